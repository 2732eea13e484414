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
};

/* Where declared executables appear inside; PATH is exactly this. */
#define PLAN_BIN_ROOT "/run/agentsandbox"
#define PLAN_BIN_DIR  PLAN_BIN_ROOT "/bin"

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

/* Render the PATH directory (after every plugin had its say). Idempotent. */
int plan_finish(struct plan *plan);

#endif
