/* SPDX-License-Identifier: MIT */
/* `agentsandbox sessions`, `plugins` and `allowlist`. */
#ifndef ASB_CORE_SUBCOMMANDS_H
#define ASB_CORE_SUBCOMMANDS_H

#include "loader.h"
#include "policy.h"

#include <stdio.h>

/* agentsandbox sessions: a table (time, name, command, network, status,
 * directory), --json, --paths (one directory a line), --last (the newest). */
enum { SESSIONS_HUMAN, SESSIONS_JSON, SESSIONS_PATHS, SESSIONS_LAST };
int subcommand_sessions(const struct policy *p, int format, FILE *out);
int subcommand_plugins(const struct catalog *plugins, FILE *out);
int subcommand_allowlist(const struct policy *p, const char *session, FILE *out);

#endif
