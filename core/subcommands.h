/* SPDX-License-Identifier: MIT */
/* `agentsandbox sessions` and `agentsandbox plugins`. */
#ifndef ASB_CORE_SUBCOMMANDS_H
#define ASB_CORE_SUBCOMMANDS_H

#include "policy.h"

#include <stdio.h>

int subcommand_sessions(const struct policy *p, FILE *out);
int subcommand_plugins(const struct policy *p, FILE *out);
int subcommand_allowlist(const struct policy *p, const char *session, FILE *out);

#endif
