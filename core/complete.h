/* SPDX-License-Identifier: MIT */
/* `agentsandbox --completion bash|zsh|fish`: the completion script, made
 * from the core's option table (core/options.c) and the options the
 * discovered plugins declare, so --help, the completions and the man page
 * (checked by tests/host/agents.sh) name the same flags. Agent names are
 * looked up when completing (the user's configs change). */
#ifndef ASB_CORE_COMPLETE_H
#define ASB_CORE_COMPLETE_H

#include "loader.h"

/* -EINVAL for an unknown shell (with the error set). */
int complete_script(void *file, const char *shell, const struct catalog *plugins);

#endif
