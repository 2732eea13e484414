/* SPDX-License-Identifier: MIT */
/* launch.log and user-facing messages. Lines are buffered in memory until the
 * session directory exists (a bad config must not create one), then appended
 * to launch.log. Warnings and errors also go to the sink the CLI installs.
 * Every message is escaped (log_escape) on the way. */
#ifndef ASB_CORE_LOG_H
#define ASB_CORE_LOG_H

#include "util.h"

enum { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

typedef void (*log_sink_fn)(int level, const char *msg);

void log_set_sink(log_sink_fn sink);
void log_msg(int level, const char *fmt, ...) _printf_(2, 3);
void log_vmsg(int level, const char *fmt, va_list ap) _printf_(2, 0);
/* Start writing to this file (flushing what was buffered); -1 stops. */
int log_attach_file(int fd);
/* While held, lines are kept (the file attached or not) and written in one
 * go when released: a launch writes its log once, not line by line. */
int log_hold(bool hold);
void log_detach(void);
/* The attached file (for helpers' stderr), or -1. */
int log_fd(void);

/* Control characters (and DEL) in untrusted text as \xNN, so that no file
 * name or message can start a line or drive a terminal. New string. */
char *log_escape(const char *s);

/* The one error that aborts a launch: the deepest layer that knows the cause
 * sets it (with file:line where there is one); the CLI prints it once. */
void err_set(const char *fmt, ...) _printf_(1, 2);
/* Put context in front of the error already set ("file:12: plugins.x: ..."). */
void err_prefix(const char *fmt, ...) _printf_(1, 2);
const char *err_get(void);
void err_clear(void);

#endif
