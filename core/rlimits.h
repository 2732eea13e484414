/* SPDX-License-Identifier: MIT */
/* sandbox.limits: resource limits set on the sandbox (inherited through the
 * backend by everything inside; platform_child_prepare() applies them). */
#ifndef ASB_CORE_RLIMITS_H
#define ASB_CORE_RLIMITS_H

#include "policy.h"

#include <sys/resource.h>

const char *limits_name(int which); /* "nofile", "nproc", "cpu", "as" */
int limits_resource(int which);     /* RLIMIT_NOFILE, ... */

/* Parse the sandbox.limits group (file:line errors). */
int limits_load(struct policy *p, const config_setting_t *g);

/* The limits to set: the configured value or the default, never above the
 * current hard limit (limits only go down). RLIMIT_CORE is always 0. */
struct limits_set {
	struct rlimit lim[LIMIT_COUNT];
};
int limits_resolve(const struct policy *p, struct limits_set *out);

/* "nofile=65536 nproc=8192 cpu=unlimited as=unlimited core=0" */
void limits_format(const struct limits_set *s, char *buf, size_t len);

#endif
