/* proxy.log writer. One write() per line on an O_APPEND fd, so lines never interleave.
 * Escaping, rate limits and the size cap: see log.h. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SEEN_SLOTS  65536 /* hashes of logged allows; cleared when 3/4 full */
#define DEDUP_AFTER 3     /* identical lines in a row written before repeats are counted */
#define CAP_RESERVE 256   /* room kept for the line that says the cap was reached */

enum kind { K_ALLOWED, K_BLOCKED, K_INFO, K_N };
static const char *const kind_name[K_N] = {"allowed", "blocked", "proxy"};

struct bucket {
	double tokens, last; /* last: when tokens were counted; 0 = never */
	uint64_t last_hash;  /* of the last line written */
	unsigned streak;     /* times in a row that line was written */
	unsigned long repeats, dropped;
	double reported; /* when repeats or drops were last reported */
};

static int log_fd = 2;
static size_t cap, written;
static bool capped;
static unsigned rate = PLOG_DEFAULT_RATE;
static struct bucket buckets[K_N];
static uint64_t seen[SEEN_SLOTS];
static size_t n_seen;

int plog_open(const char *path, size_t max_bytes)
{
	if (!path)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return -errno;
	struct stat st;
	written = fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
	log_fd = fd;
	cap = max_bytes;
	return 0;
}

void plog_set_rate(unsigned lines_per_sec)
{
	rate = lines_per_sec ? lines_per_sec : 1;
}

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

size_t plog_escape(const char *in, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c < 0x20 || c >= 0x7f || c == '\\') {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return o;
}

/* A failed log write must not take the proxy down; there is nowhere to report it. */
static void write_line(const char *msg)
{
	char line[PLOG_LINE_MAX + 64];
	time_t now = time(NULL);
	struct tm tm;

	if (capped)
		return;
	size_t n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ ", gmtime_r(&now, &tm));
	int m = snprintf(line + n, sizeof(line) - n - 1, "%s", msg);
	n += m < 0 ? 0 : (size_t)m < sizeof(line) - n - 1 ? (size_t)m : sizeof(line) - n - 2;
	line[n++] = '\n';
	if (cap && written + n + CAP_RESERVE > cap) {
		capped = true;
		n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ ", &tm);
		n += (size_t)snprintf(line + n, sizeof(line) - n,
		                      "proxy: proxy.log reached its cap of %zu bytes: nothing more "
		                      "is logged\n",
		                      cap);
	}
	ssize_t w = write(log_fd, line, n);
	if (w > 0)
		written += (size_t)w;
}

static void report(enum kind k, double t, bool repeats, bool dropped)
{
	struct bucket *b = &buckets[k];
	char msg[256];

	if (repeats && b->repeats) {
		snprintf(msg, sizeof(msg), "proxy: last %s line repeated %lu more times",
		         kind_name[k], b->repeats);
		write_line(msg);
		b->repeats = 0;
		b->reported = t;
	}
	if (dropped && b->dropped) {
		snprintf(msg, sizeof(msg), "proxy: %lu %s lines not logged (more than %u a second)",
		         b->dropped, kind_name[k], rate);
		write_line(msg);
		b->dropped = 0;
		b->reported = t;
	}
}

static uint64_t fnv(const char *p, uint64_t h)
{
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/* msg: the line after the timestamp, not yet escaped. */
static void emit(enum kind k, const char *msg, size_t n)
{
	char esc[PLOG_LINE_MAX];
	struct bucket *b = &buckets[k];
	double t = now_mono();

	if (n > (sizeof(esc) - 1) / 4)
		n = (sizeof(esc) - 1) / 4; /* cut, so the escaped text always fits */
	plog_escape(msg, n, esc);
	uint64_t h = fnv(esc, 1469598103934665603ULL);

	if (b->last == 0) {
		b->tokens = 10.0 * rate;
		b->last = t;
	}
	b->tokens += (t - b->last) * rate;
	if (b->tokens > 10.0 * rate)
		b->tokens = 10.0 * rate;
	b->last = t;

	if (h == b->last_hash && b->streak >= DEDUP_AFTER) {
		b->repeats++;
		return;
	}
	if (b->tokens < 1) {
		b->dropped++;
		return;
	}
	/* A different line ends a run of repeats: say how long it was, first. */
	report(k, t, true, t - b->reported >= 1);
	b->tokens -= 1;
	if (h == b->last_hash) {
		b->streak++;
	} else {
		b->last_hash = h;
		b->streak = 1;
	}
	write_line(esc);
}

void plog_tick(void)
{
	double t = now_mono();
	for (int k = 0; k < K_N; k++)
		report((enum kind)k, t, t - buckets[k].reported >= 5, t - buckets[k].reported >= 1);
}

void plog_flush(void)
{
	double t = now_mono();
	for (int k = 0; k < K_N; k++)
		report((enum kind)k, t, true, true);
}

__attribute__((format(printf, 2, 3))) static void emitf(enum kind k, const char *fmt, ...)
{
	char buf[PLOG_LINE_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	emit(k, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void plog_info(const char *fmt, ...)
{
	char buf[PLOG_LINE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emitf(K_INFO, "proxy: %s", buf);
}

static uint64_t hash3(const char *a, const char *b, const char *c)
{
	uint64_t h = 1469598103934665603ULL;
	const char *parts[3] = {a, b, c};
	for (int i = 0; i < 3; i++) {
		h = fnv(parts[i], h);
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
		emitf(K_ALLOWED, "allowed: %s %s%s", method, host, path);
}

void plog_upgrade(const char *method, const char *host, const char *path)
{
	/* Not the same line as a plain request's: `agentsandbox allowlist`
	 * learns from it that the entry must allow every method. */
	if (first_time(hash3(method, host, path) ^ 0x7765627363ULL))
		emitf(K_ALLOWED, "allowed: %s %s%s (websocket)", method, host, path);
}

void plog_blocked(const char *method, const char *host, const char *path, const char *reason)
{
	emitf(K_BLOCKED, "blocked: %s %s%s (%s)", method, host, path, reason);
}
