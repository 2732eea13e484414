/* SPDX-License-Identifier: MIT */
/* Kernel hardening for one launch, as intent: the seccomp groups denied and
 * lifted, Landlock wanted or required, the limits. The platform carries it
 * out where the backend says it holds (core/platform.h:
 * platform_hardening_plan); core/protections.c reports what applies. */
#ifndef ASB_CORE_HARDENING_H
#define ASB_CORE_HARDENING_H

#include "launch.h"

#include <stdio.h>

/* After the plugins' env hook, before the plan is final. */
int hardening_plan(struct launch *l);

/* launch.log: the groups, every exception, the limits. */
void hardening_log(const struct launch *l);

/* --show-config lines. */
void hardening_show(FILE *out, const struct launch *l);

/* Who lifted seccomp group `g`, or NULL when it is enforced. */
const char *hardening_group_lifted_by(const struct launch *l, int g);

#endif
