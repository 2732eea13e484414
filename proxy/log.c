/* proxy.log writer. One write() per line on an O_APPEND fd, so lines never interleave. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEEN_SLOTS 65536 /* hashes of logged allows; cleared when 3/4 full */

static int log_fd = 2;
static uint64_t seen[SEEN_SLOTS];
static size_t n_seen;

int plog_open(const char *path)
{
	if (!path)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return -errno;
	log_fd = fd;
	return 0;
}

__attribute__((format(printf, 1, 0))) static void emit(const char *fmt, va_list ap)
{
	char line[4096];
	time_t now = time(NULL);
	struct tm tm;
	size_t n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ ", gmtime_r(&now, &tm));
	int m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	if (m < 0)
		return;
	n += (size_t)m < sizeof(line) - n - 1 ? (size_t)m : sizeof(line) - n - 2;
	line[n++] = '\n';
	/* A failed log write must not take the proxy down; there is nowhere to report it. */
	ssize_t w = write(log_fd, line, n);
	(void)w;
}

__attribute__((format(printf, 1, 2))) static void logf_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void plog_info(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	logf_("proxy: %s", buf);
}

static uint64_t hash3(const char *a, const char *b, const char *c)
{
	uint64_t h = 1469598103934665603ULL;
	const char *parts[3] = {a, b, c};
	for (int i = 0; i < 3; i++) {
		for (const char *p = parts[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL; /* separator */
	}
	return h ? h : 1;
}

/* true the first time this triple is seen */
static bool first_time(uint64_t h)
{
	size_t i = h & (SEEN_SLOTS - 1);
	while (seen[i]) {
		if (seen[i] == h)
			return false;
		i = (i + 1) & (SEEN_SLOTS - 1);
	}
	if (n_seen >= SEEN_SLOTS / 4 * 3) {
		memset(seen, 0, sizeof(seen));
		n_seen = 0;
		i = h & (SEEN_SLOTS - 1);
	}
	seen[i] = h;
	n_seen++;
	return true;
}

void plog_allowed(const char *method, const char *host, const char *path)
{
	if (first_time(hash3(method, host, path)))
		logf_("allowed: %s %s%s", method, host, path);
}

void plog_blocked(const char *method, const char *host, const char *path, const char *reason)
{
	logf_("blocked: %s %s%s (%s)", method, host, path, reason);
}
