/* SPDX-License-Identifier: MIT */
/* Expansion of ~, $VAR, ${VAR} and ${VAR:-default} from the launching
 * environment, the way a shell would (no word splitting, no commands). */
#ifndef ASB_CORE_EXPAND_H
#define ASB_CORE_EXPAND_H

typedef const char *(*expand_lookup_fn)(const char *name, void *userdata);

/* On success *out is a new string. -ENOENT: an undefined variable, whose name
 * is written to *bad (a new string); -EINVAL: malformed syntax, *bad says
 * what. `home` replaces a leading ~ (NULL: lookup("HOME")). */
int expand_vars(const char *in, expand_lookup_fn lookup, void *userdata, char **out, char **bad);

/* Lookup in the process environment. */
const char *expand_lookup_environ(const char *name, void *userdata);

#endif
