/* SPDX-License-Identifier: MIT */
/* Mount points a backend that builds a private view (ASB_CAP_FS_VIEW) must
 * find or make: an entry whose place lies under an earlier host bind needs
 * that place to exist in the bound host directory, or to be creatable there
 * by this user (never in a read-only bind). Checked before anything starts,
 * so that the backend does not fail halfway through building the view
 * (sandbox.ro_dirs = [ "/" ], a bind over /run). */
#ifndef ASB_CORE_MOUNTPOINTS_H
#define ASB_CORE_MOUNTPOINTS_H

#include "plan.h"
#include "policy.h"

/* 0, or -EINVAL with the launch error naming the entry, the place and what
 * to do. */
int mountpoints_check(const struct plan *plan, const struct policy *p);

#endif
