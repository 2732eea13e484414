/* SPDX-License-Identifier: MIT */
/* The plan: a backend-neutral list of what the sandbox does — mounts in
 * order, environment, argv, working directory, flags. Plugins add to it;
 * backends render it. The plan owns every fd it holds. */
#ifndef ASB_CORE_PLAN_H
#define ASB_CORE_PLAN_H

#include "util.h"

#include <stdint.h>

struct plan_mount {
	uint32_t type;
	uint32_t flags;
	uint32_t mode;
	int fd;
	char *source;
	char *dest;
	char *origin;
};

struct plan_env {
	char *key;
	char *value;
};

struct plan_exec {
	char *name;
	char *target;
};

/* A seccomp group lifted by a plugin (logged and shown). */
struct plan_seccomp_allow {
	char *group;
	char *origin;
};

struct plan {
	struct plan_mount *mounts;
	size_t n_mounts;
	struct plan_env *env;
	size_t n_env;
	struct plan_exec *execs; /* executables on PATH, rendered by plan_finish */
	size_t n_execs;
	struct strv argv;
	char *chdir;
	uint32_t flags;
	bool finished;

	/* Kernel hardening (core/hardening.c fills these before plan_finish). */
	int *seccomp_fds; /* BPF programs, applied in order */
	size_t n_seccomp_fds;
	struct plan_seccomp_allow *seccomp_allow;
	size_t n_seccomp_allow;
	char *init_path;       /* host path of agentsandbox-init; NULL: none */
	struct strv init_args; /* its options; plan_finish puts argv after "--" */
	/* Landlock TCP connect filter: when on, only these ports (networking). */
	bool tcp_connect_filtered;
	uint16_t *tcp_connect_ports;
	size_t n_tcp_connect_ports;
};

/* Where declared executables appear inside; PATH is exactly this. */
#define PLAN_BIN_ROOT "/run/agentsandbox"
#define PLAN_BIN_DIR  PLAN_BIN_ROOT "/bin"
#define PLAN_INIT     PLAN_BIN_ROOT "/init"

void plan_free(struct plan *plan);

/* Append a mount. `fd` (>= 0) is duplicated; strings are copied. */
int plan_add_mount(struct plan *plan, uint32_t type, uint32_t flags, uint32_t mode, int fd,
                   const char *source, const char *dest, const char *origin);

/* Open host_path once (following symlinks), check that what was opened is
 * what realpath() saw, and bind that fd at dest (NULL: host_path). With
 * ASB_MOUNT_F_TRY a missing path is skipped (returns 0). */
int plan_bind(struct plan *plan, uint32_t type, const char *host_path, const char *dest,
              uint32_t flags, const char *origin);

/* A read-only file with this content, carried by a sealed memfd. */
int plan_add_data(struct plan *plan, const char *dest, const void *data, size_t len, uint32_t mode,
                  const char *origin);

int plan_setenv(struct plan *plan, const char *key, const char *value);
int plan_unsetenv(struct plan *plan, const char *key);
const char *plan_getenv(const struct plan *plan, const char *key);

/* Put `target` (an absolute host path) on PATH as `name`. A second entry
 * with the same name is ignored (first one wins: packages before the common
 * set). */
int plan_add_exec(struct plan *plan, const char *name, const char *target);

/* Keep a seccomp BPF program (the plan takes ownership of fd). */
int plan_add_seccomp_fd(struct plan *plan, int fd);
/* Lift a seccomp group (names in core/seccomp.c); idempotent. */
int plan_seccomp_allow(struct plan *plan, const char *group, const char *origin);
bool plan_seccomp_allowed(const struct plan *plan, const char *group);
/* Run `host_path` first inside (bound at PLAN_INIT), with these options
 * (taken), then "--" and the agent's argv. */
int plan_set_init(struct plan *plan, const char *host_path, struct strv *args);
/* Restrict TCP connect() inside to the ports given (Landlock ABI >= 4);
 * port 0 only turns the filter on (no port at all). */
int plan_filter_tcp_connect(struct plan *plan, uint16_t port);

/* Render the PATH directory (after every plugin had its say). Idempotent. */
int plan_finish(struct plan *plan);

#endif
