/* proxy.log: allow/deny lines as SPEC.md writes them, with a UTC timestamp in front:
 *   2025-01-31T12:00:00Z allowed: GET api.github.com/graphql
 *   2025-01-31T12:00:00Z blocked: GET api.github.com/user (path not allowed)
 * Allows are logged once per method, host and path; denials every time.
 *
 * What a client sent never reaches the log raw: every byte outside printable
 * ASCII, and the backslash, is written as \xHH, so no line can be forged or
 * split and nothing can drive a terminal. The log is bounded: each kind of line
 * (allowed, blocked, proxy) has a rate (a token bucket); beyond it identical
 * lines are counted as repeats and others as dropped, and a "proxy:" line says
 * how many once the flood pauses. The file stops at a size cap, with a last
 * line saying so. */
#pragma once

#include <stddef.h>

#define PLOG_DEFAULT_MAX  (16u << 20) /* bytes */
#define PLOG_DEFAULT_RATE 100         /* lines a second per kind; bursts of 10 seconds' worth */
#define PLOG_LINE_MAX     2048        /* longer lines are cut (paths, mostly) */

/* NULL: stderr (no size cap). max_bytes 0: no cap. */
int plog_open(const char *path, size_t max_bytes);
void plog_set_rate(unsigned lines_per_sec);
void plog_allowed(const char *method, const char *host, const char *path);
/* An allowed WebSocket upgrade: "allowed: GET host/path (websocket)", once. */
void plog_upgrade(const char *method, const char *host, const char *path);
void plog_blocked(const char *method, const char *host, const char *path, const char *reason);
/* Diagnostics ("proxy: ..."), same stream. */
__attribute__((format(printf, 1, 2))) void plog_info(const char *fmt, ...);
/* Once a second: report repeats and drops of a flood that has paused. */
void plog_tick(void);
/* At exit: report what is still pending. */
void plog_flush(void);
/* The escaping every line gets; out holds at least 4 * len + 1 bytes. */
size_t plog_escape(const char *in, size_t len, char *out);
