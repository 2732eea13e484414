/* SPDX-License-Identifier: MIT */
/* Reading the libconfig file into the policy. Every error names file:line. */
#ifndef ASB_CORE_CONFIG_H
#define ASB_CORE_CONFIG_H

#include "expand.h"
#include "policy.h"

/* Parse and validate `path` into `p` (whose identity fields — home, user,
 * launch_dir — are already set). Variables expand through `lookup`. */
int config_load(struct policy *p, const char *path, expand_lookup_fn lookup, void *userdata);

/* file:line of a setting, for messages ("claude.cfg:12"). Static buffer. */
const char *config_where(const config_setting_t *s);

/* Refuse text with a control character (names and paths that reach logs
 * and the backend's records): -EINVAL with the error set. `where` is a
 * file:line, a flag or NULL. */
int config_check_text(const char *where, const char *what, const char *value);

/* Expand one config string and require an absolute path. */
int config_expand_path(const config_setting_t *s, const char *what, const char *in,
                       expand_lookup_fn lookup, void *userdata, char **out);

#endif
