/* SPDX-License-Identifier: MIT */
/* `agentsandbox sessions` and `agentsandbox plugins`. */
#ifndef ASB_CORE_SUBCOMMANDS_H
#define ASB_CORE_SUBCOMMANDS_H

#include "loader.h"
#include "policy.h"

#include <stdio.h>

int subcommand_sessions(const struct policy *p, FILE *out);
int subcommand_plugins(const struct catalog *plugins, FILE *out);
int subcommand_allowlist(const struct policy *p, const char *session, FILE *out);

#endif
