/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static log_sink_fn user_sink;
static int log_fd_current = -1;
static struct strv pending; /* lines written before the file exists, or held */
static bool holding;
static char *last_error;

static const char *const level_names[] = {"debug", "info", "warning", "error"};

void log_set_sink(log_sink_fn sink)
{
	user_sink = sink;
}

static int flush_pending(int fd)
{
	/* What was said before the file existed, in one write. */
	size_t len = 0;
	for (size_t i = 0; i < pending.n; i++)
		len += strlen(pending.v[i]);
	_cleanup_free_ char *all = malloc(len + 1);
	if (!all)
		return -ENOMEM;
	char *w = all;
	for (size_t i = 0; i < pending.n; i++) {
		size_t n = strlen(pending.v[i]);
		memcpy(w, pending.v[i], n);
		w += n;
	}
	strv_clear(&pending);
	return len ? write_all(fd, all, len) : 0;
}

int log_attach_file(int fd)
{
	if (log_fd_current == fd)
		return 0;
	log_fd_current = fd;
	return holding ? 0 : flush_pending(fd);
}

int log_hold(bool hold)
{
	holding = hold;
	if (hold || log_fd_current < 0)
		return 0;
	return flush_pending(log_fd_current);
}

void log_detach(void)
{
	log_fd_current = -1;
	holding = false;
	strv_clear(&pending);
}

int log_fd(void)
{
	return log_fd_current;
}

char *log_escape(const char *s)
{
	size_t n = 0;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		n += (*c < 0x20 || *c == 0x7f) ? 4 : 1;
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	char *w = out;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			snprintf(w, 5, "\\x%02x", *c);
			w += 4;
		} else {
			*w++ = (char)*c;
		}
	}
	*w = '\0';
	return out;
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
	_cleanup_free_ char *raw = str_vprintf(fmt, ap);
	_cleanup_free_ char *msg = raw ? log_escape(raw) : NULL;
	if (!msg)
		return;
	if (level >= LOG_WARN && user_sink)
		user_sink(level, msg);

	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	char *line = str_printf("%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s: %s\n", tm.tm_year + 1900,
	                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	                        ts.tv_nsec / 1000000L,
	                        level_names[level < 0   ? 0
	                                    : level > 3 ? 3
	                                                : level],
	                        msg);
	if (!line)
		return;
	if (log_fd_current >= 0 && !holding) {
		(void)write_all(log_fd_current, line, strlen(line));
		free(line);
	} else {
		(void)strv_push_take(&pending, line);
	}
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

void err_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = str_vprintf(fmt, ap);
	va_end(ap);
	/* Keep the first (deepest) cause; callers up the stack only add context
	 * when nothing was said yet. */
	if (last_error) {
		free(msg);
		return;
	}
	last_error = msg;
}

void err_prefix(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *ctx = str_vprintf(fmt, ap);
	va_end(ap);
	if (!ctx)
		return;
	char *msg = last_error ? str_printf("%s: %s", ctx, last_error) : ctx;
	if (last_error)
		free(ctx);
	if (!msg)
		return;
	free(last_error);
	last_error = msg;
}

const char *err_get(void)
{
	return last_error;
}

void err_clear(void)
{
	free(last_error);
	last_error = NULL;
}
