/* SPDX-License-Identifier: MIT */
/* --show-config: the resolved policy with the source of each value, the
 * plugins' descriptions, the environment inside and the backend command. */
#ifndef ASB_CORE_SHOW_H
#define ASB_CORE_SHOW_H

#include "launch.h"

#include <stdio.h>

void show_config(FILE *out, const struct launch *l);

/* Does a variable's value look like a secret? (redacted in logs/output) */
bool show_env_is_secret(const char *key, const char *raw);

/* Quote an argument for a POSIX shell when it needs it (new string). */
char *show_shell_quote(const char *arg);

#endif
