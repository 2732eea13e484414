/* proxy.log: allow/deny lines as SPEC.md writes them, with a UTC timestamp in front:
 *   2025-01-31T12:00:00Z allowed: GET api.github.com/graphql
 *   2025-01-31T12:00:00Z blocked: GET api.github.com/user (path not allowed)
 * Allows are logged once per method, host and path; denials every time. */
#pragma once

int plog_open(const char *path); /* NULL: stderr */
void plog_allowed(const char *method, const char *host, const char *path);
void plog_blocked(const char *method, const char *host, const char *path, const char *reason);
/* Diagnostics ("proxy: ..."), same stream. */
__attribute__((format(printf, 1, 2))) void plog_info(const char *fmt, ...);
