/* SPDX-License-Identifier: MIT */
/* --show-config: the resolved policy with the source of each value, the
 * plugins' descriptions, the environment inside and the backend command. */
#ifndef ASB_CORE_SHOW_H
#define ASB_CORE_SHOW_H

#include "launch.h"

#include <stdio.h>

void show_config(FILE *out, const struct launch *l);

/* Why a plugin is loaded: "the default backend", "loaded because
 * /nix/store exists", ... (borrowed until the next call). */
const char *show_load_reason(const struct launch *l, const struct loaded_plugin *lp);

/* May --show-config print this env value (sandbox.public_env, --reveal)?
 * Every other value of the user's env is hidden. */
bool show_env_revealed(const struct policy *p, const char *key);

/* Quote an argument for a POSIX shell when it needs it (new string). */
char *show_shell_quote(const char *arg);

#endif
