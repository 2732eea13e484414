/* SPDX-License-Identifier: MIT */
/* `agentsandbox allowlist`: an allowed_domains block derived from what a
 * session's proxy.log shows the agent used (allowed or blocked): each host
 * with the narrowest methods seen, and path rules for the writes where only
 * a few paths took them. */
#ifndef ASB_CORE_ALLOWLIST_H
#define ASB_CORE_ALLOWLIST_H

#include <stdio.h>

/* Read proxy.log lines from `in`, write the block to `out`. Returns the
 * number of hosts, or -errno. */
int allowlist_derive(FILE *in, FILE *out, const char *source_name);

#endif
