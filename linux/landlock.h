/* SPDX-License-Identifier: MIT */
/* Landlock, launcher side: is it there (which ABI), and which rules the init
 * helper (linux/init/agentsandbox-init.c) gets — derived from the plan, so
 * plugins' writable entries and executables are covered. */
#ifndef ASB_LINUX_LANDLOCK_H
#define ASB_LINUX_LANDLOCK_H

#include "plan.h"

/* The running kernel's Landlock ABI (>= 1), or -errno (-EOPNOTSUPP: built
 * but disabled at boot; -ENOSYS: not built). */
int landlock_abi(void);

/* The helper's options for this plan: writes only to WRITE entries, the
 * ephemeral home and the temporary directories; execution only from entries
 * marked ASB_ENTRY_F_EXEC, the declared executables, system libraries and the
 * places the agent can write anyway; signals and abstract sockets scoped. */
int landlock_rules(const struct plan *plan, const char *home, bool require, struct strv *out);

#endif
