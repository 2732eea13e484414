/* SPDX-License-Identifier: MIT */
/* Landlock, launcher side: is it there (which ABI), where is the helper that
 * applies it inside (agentsandbox-init), and which rules it gets — derived
 * from the plan, so plugins' read-write binds and executables are covered. */
#ifndef ASB_CORE_LANDLOCK_H
#define ASB_CORE_LANDLOCK_H

#include "plan.h"
#include "policy.h"

/* The running kernel's Landlock ABI (>= 1), or -errno (-EOPNOTSUPP: built
 * but disabled at boot; -ENOSYS: not built). */
int landlock_abi(void);

/* agentsandbox-init next to the running launcher (a build tree), else in the
 * installed libexec directory. -ENOENT when neither exists. */
int landlock_init_path(char **out);

/* The helper's options for this plan: writes only to read-write binds, the
 * ephemeral home and the temporary directories; execution only of declared
 * executables, their package directories, system libraries and the places
 * the agent can write anyway; TCP connect filtered when the plan says so;
 * signals and abstract sockets scoped. */
int landlock_rules(const struct plan *plan, const struct policy *p, bool require, struct strv *out);

#endif
