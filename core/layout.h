/* SPDX-License-Identifier: MIT */
/* The core's part of the plan: system directories read-only, an ephemeral
 * home, fresh /proc, /dev and /tmp, declared paths, the workspace, the
 * executables on PATH and a rebuilt environment. Programs are found with
 * common/exec.h. */
#ifndef ASB_CORE_LAYOUT_H
#define ASB_CORE_LAYOUT_H

#include "plan.h"
#include "expand.h"
#include "policy.h"

#include <limits.h>

/* Put a resolved executable on PATH, binding its directory read-only when it
 * lives outside the system directories. */
int layout_add_executable(struct plan *plan, const struct policy *p, const char *name,
                          const char *host_path, const char *origin);

/* Build the core mounts, env and argv. `shell` runs bash instead. */
int layout_build(struct plan *plan, const struct policy *p, bool shell, expand_lookup_fn lookup,
                 void *ud);

/* Create missing rw_dirs (0700). Only once the whole launch is validated. */
int layout_create_rw_dirs(const struct policy *p);

/* True when the workspace exposes the home directory (it is $HOME or above). */
bool layout_workspace_exposes_home(const struct policy *p);

/* The first declared directory (the workspace, rw_dirs, ro_dirs, --mount)
 * that is $HOME, /, or an ancestor of $HOME, as written or once resolved:
 * what it is, as declared, and what it resolves to. Launching with one is
 * refused without --allow-home. */
struct home_exposure {
	char what[96];
	char path[PATH_MAX];
	char real[PATH_MAX];
};
bool layout_home_exposure(const struct policy *p, struct home_exposure *e);
/* "sandbox.rw_dirs[0] (line 3) ~/w resolves to /home/u, which contains your
 * home directory /home/u" (new string). */
char *layout_home_exposure_text(const struct policy *p, const struct home_exposure *e);

/* The documented common set (NULL-terminated). */
extern const char *const layout_common_tools[];

#endif
