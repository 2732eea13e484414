/* SPDX-License-Identifier: MIT */
/* Kernel hardening for one launch: the seccomp filter, Landlock through
 * agentsandbox-init, resource limits, no_new_privs. Ties seccomp.c,
 * landlock.c and limits.c to the plan, launch.log, --check and
 * --show-config. */
#ifndef ASB_CORE_HARDENING_H
#define ASB_CORE_HARDENING_H

#include "launch.h"

#include <stdio.h>

/* After the plugins' env hook, before plan_finish: compile the filter into
 * the plan, place agentsandbox-init with its rules. Fails closed: no seccomp,
 * or no Landlock when sandbox.require_landlock is set (except for --check,
 * which reports it instead). */
int hardening_plan(struct launch *l);

/* launch.log: what is active, every exception, the limits. */
void hardening_log(const struct launch *l);

/* In the forked child, before exec of the backend (async-signal-safe). */
int hardening_child(const struct launch *l);

/* The supervisor process itself (non-dumpable, no core). */
void hardening_self(void);

/* --check: one line per protection; < 0 when something the config
 * requires is unavailable. */
int hardening_check(FILE *out, const struct launch *l);

/* --show-config lines. */
void hardening_show(FILE *out, const struct launch *l);

#endif
