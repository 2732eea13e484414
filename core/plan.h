/* SPDX-License-Identifier: MIT */
/* The plan: what the sandbox gives, not how (include/agentsandbox/plugin.h,
 * "plan"). Entries in order, the executables on PATH, the environment, argv,
 * the working directory, the network and hardening intent. The core and the
 * feature plugins add to it until it is final; backends read it. The plan
 * owns every fd it holds. */
#ifndef ASB_CORE_PLAN_H
#define ASB_CORE_PLAN_H

#include "util.h"

#include <agentsandbox/plugin.h>

#include <stdint.h>

struct plan_entry {
	uint32_t type;  /* ASB_ENTRY_* */
	uint32_t flags; /* ASB_ENTRY_F_* */
	uint32_t mode;
	int fd;
	char *host_path;
	char *dest;
	char *origin;
	char *data; /* FILE: content (also behind fd) */
	size_t data_len;
	bool remapped; /* asked to appear away from the path given */
};

struct plan_env {
	char *key;
	char *value;
};

struct plan_exec {
	char *name;
	char *target;
	char *origin;
};

/* A seccomp group lifted by a plugin (logged and shown). */
struct plan_seccomp_allow {
	char *group;
	char *origin;
};

struct plan {
	struct plan_entry *entries;
	size_t n_entries, cap_entries;
	struct plan_env *env;
	size_t n_env;
	struct plan_exec *execs;
	size_t n_execs;
	struct strv argv;
	char *chdir;
	bool final; /* changes now fail with -EBUSY */
	/* The sealed empty file every empty FILE or MASK entry holds a dup of
	 * (a git workspace masks hundreds); 0: none made yet. */
	int empty_data_fd;

	/* Network intent (core/network.c). */
	uint32_t net_mode;  /* ASB_NET_* */
	uint32_t net_flags; /* ASB_NET_F_* */
	uint16_t proxy_port;
	uint16_t *host_ports;
	size_t n_host_ports;
	uint16_t *published_ports;
	size_t n_published_ports;

	/* Hardening intent (core/hardening.c). */
	uint32_t hardening; /* ASB_HARD_* that hold */
	struct plan_seccomp_allow *seccomp_allow;
	size_t n_seccomp_allow;
	uint32_t seccomp_lifted; /* 1u << SECCOMP_G_* */
	bool seccomp_enforced;   /* a filter is installed inside */
	struct asb_limit limits[5];
	size_t n_limits;
};

/* Where the core's own files appear inside. */
#define PLAN_RUN_DIR ASB_RUN_DIR
#define PLAN_BIN_DIR ASB_BIN_DIR
#define PLAN_INIT    ASB_INIT_PATH
#define PLAN_SECCOMP PLAN_RUN_DIR "/seccomp.bpf"

void plan_free(struct plan *plan);

/* Open `host_path` once (following symlinks), check that what was opened is
 * what realpath() saw, and expose that object at `dest` (NULL: host_path).
 * READ, WRITE or DEVICE; with ASB_ENTRY_F_TRY a missing path is skipped
 * (returns 0). */
int plan_path(struct plan *plan, uint32_t type, const char *host_path, const char *dest,
              uint32_t flags, const char *origin);
/* An entry whose host path is named but not opened: the system's own
 * directories and /etc files (root-owned, nothing in the sandbox can swap
 * them; pinning each costs a launch more than it guards), and, in a dry
 * run, a missing rw dir. ASB_ENTRY_F_TRY: it may be missing when the
 * sandbox starts. */
int plan_path_unopened(struct plan *plan, uint32_t type, const char *host_path, const char *dest,
                       uint32_t flags, const char *origin);
/* EPHEMERAL, MASK (a file gets an empty fd), FILE (content copied into a
 * sealed fd), SYMLINK (target in host_path), PROC, DEVFS. */
int plan_entry(struct plan *plan, uint32_t type, uint32_t flags, uint32_t mode,
               const char *host_path, const char *dest, const void *data, size_t len,
               const char *origin);
/* Shorthands. */
int plan_file(struct plan *plan, const char *dest, const void *data, size_t len, uint32_t mode,
              const char *origin);
int plan_ephemeral(struct plan *plan, const char *dest, uint32_t mode, const char *origin);

int plan_setenv(struct plan *plan, const char *key, const char *value);
int plan_unsetenv(struct plan *plan, const char *key);
const char *plan_getenv(const struct plan *plan, const char *key);

/* Put `target` (an absolute host path) on PATH as `name`. A second entry
 * with the same name is ignored (first one wins: packages before the common
 * set). */
int plan_add_exec(struct plan *plan, const char *name, const char *target, const char *origin);
const struct plan_exec *plan_find_exec(const struct plan *plan, const char *name);

/* Lift a seccomp group (names: core/seccomp_groups.c); idempotent. */
int plan_seccomp_allow(struct plan *plan, const char *group, const char *origin);
bool plan_seccomp_allowed(const struct plan *plan, const char *group);

/* Run `init` first inside: argv becomes init, its options, "--", argv. */
int plan_prefix_argv(struct plan *plan, const char *init, const struct strv *opts);

/* Nothing may change from now on. The entries are put parent first (by
 * the depth of their dest, keeping the order of those at one depth), so a
 * later entry never covers one below its dest. */
void plan_set_final(struct plan *plan);

#endif
