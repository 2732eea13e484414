/* SPDX-License-Identifier: MIT */
/* The sandbox's network, three modes (SPEC "network" group):
 *   off       loopback only (--no-network, enabled = false);
 *   filtered  allowed_domains set: no route out; the filtering proxy listens
 *             on the sandbox's own 127.0.0.1 (a socket made inside its
 *             namespace) and dials out from the host;
 *   open      allowed_domains absent: slirp4netns gives the namespace a
 *             user-mode route out, with the host's loopback cut off.
 * In every mode host_ports and published_ports are bridged by the
 * supervisor's loop. */
#ifndef ASB_CORE_NETWORK_H
#define ASB_CORE_NETWORK_H

#include "netns.h"
#include "bridge.h"
#include "plan.h"
#include "policy.h"

#include <ev.h>
#include <stdint.h>

enum net_mode { NET_OFF, NET_FILTERED, NET_OPEN };

#define NET_PROXY_PORT 3128
#define NET_CA_BUNDLE  "/run/agentsandbox-ca.pem"
#define NET_MAX_PORTS  64

struct published {
	uint16_t port;
	char bind[64];
	int fd; /* bound and listening on the host before the sandbox starts */
};

struct network {
	int mode;
	struct netrules *rules;
	bool all_host_ports;
	uint16_t host_ports[NET_MAX_PORTS];
	size_t n_host_ports;
	struct published published[NET_MAX_PORTS];
	size_t n_published;

	int ca_fd;         /* the CA bundle file, bound read-only inside */
	char *ca_tmp_path; /* until it moves into the session directory */
	struct child proxy;
	struct child engine;
	int engine_exit_fd; /* slirp4netns exits when this closes */
	struct netns_helper helper;
	struct bridge_listener *bridges[2 * NET_MAX_PORTS];
	size_t n_bridges;
	ev_child proxy_watch;
	bool stopping;
	char *engine_args;
	char *session_dir;
};

void network_init(struct network *n);

/* Read the network group (the same parser the proxy uses) and decide the
 * mode. Errors name file:line. */
int network_configure(struct network *n, const struct policy *p);

/* Mounts and environment for the mode (core's pre_mount/env stage).
 * state_root: where the CA bundle file is made (NULL for a dry run). */
int network_plan(struct network *n, struct plan *plan, const char *state_root);

/* Bind published ports on the host now: a port in use is a setup error
 * before anything starts. */
int network_bind_published(struct network *n);

/* Anything to wire once the sandbox exists? */
bool network_needs_wiring(const struct network *n);

/* Wire the running (held) sandbox: proxy, engine, bridges, network.json. */
int network_wire(struct network *n, const struct policy *p, const char *session_dir,
                 pid_t sandbox_pid);

/* Stop everything wire started; safe to call more than once. */
void network_stop(struct network *n);

/* Where the launcher finds its helper programs (agentsandbox-proxy, ...). */
int network_find_libexec(const char *name, char **out);

const char *network_mode_name(int mode);

#endif
