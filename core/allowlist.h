/* SPDX-License-Identifier: MIT */
/* `agentsandbox allowlist`: an allowed_domains block derived from the
 * requests a session's proxy.log shows allowed (never the blocked ones: a
 * denial does not widen the list), merged with the entries the session ran
 * with (kept as they were; its "*" catch-all left out, shown as a comment):
 * each new host with the narrowest methods seen, path rules for the writes
 * where only a few paths took them, every method where a WebSocket upgrade
 * was allowed. */
#ifndef ASB_CORE_ALLOWLIST_H
#define ASB_CORE_ALLOWLIST_H

#include <stdio.h>

struct netrules;
struct netrule;

/* Read proxy.log lines from `in`, write the block to `out`. `session`: the
 * rules the session ran with (its allowed_domains.cfg), or NULL. Returns
 * the number of new hosts, or -errno. */
int allowlist_derive_merged(FILE *in, FILE *out, const char *source_name,
                            const struct netrules *session);
int allowlist_derive(FILE *in, FILE *out, const char *source_name);

/* One entry as config text: { domain = "…"; path = …; methods = …; … } */
void allowlist_print_rule(FILE *out, const struct netrule *rule);

#endif
