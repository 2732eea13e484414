/* SPDX-License-Identifier: MIT */
/* agentsandbox-broker: the launcher's brokers in front of the user's host
 * services (plugins/ssh, plugins/gpg, plugins/docker start it). It serves
 * the listening unix socket it inherits as fd 3, which the plan exposes
 * inside the sandbox, and forwards to the real service (`--upstream`) only
 * what its policy allows, logging each decision in the session. One
 * process per launch; one child per client connection (blocking, simple,
 * each dies with the broker). */
#ifndef ASB_BROKER_H
#define ASB_BROKER_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct broker {
	const char *mode;     /* "ssh-agent", "gpg-agent", "docker" */
	const char *upstream; /* the real service's socket */
	const char *log_path; /* lines for the session (opened per line) */
	struct strv keys;     /* ssh: allowed SHA256 fingerprints (empty: all) */
	struct strv roots;    /* docker: paths binds may name */
	const char *label;    /* docker: this session's value of the label its containers get */
};

/* One log line, prefixed with the time; bytes outside printable ASCII and
 * `\` are written \xHH. */
void blog(const struct broker *b, const char *fmt, ...) _printf_(2, 3);

/* Exactly n bytes (0), the peer gone (-EPIPE), or -errno. */
int read_full(int fd, void *buf, size_t n);

/* Connect to the upstream socket: fd or -errno. */
int upstream_connect(const struct broker *b);

/* Each serves one client connection to its end; the return is ignored. */
int ssh_agent_serve(const struct broker *b, int client);
int gpg_agent_serve(const struct broker *b, int client);
int docker_serve(const struct broker *b, int client);

/* The end of the session (docker): remove the containers it made. */
int docker_reap(const struct broker *b);

#endif
