/* SPDX-License-Identifier: MIT */
/* The Docker Engine API filter (plugins/docker): one client connection of
 * HTTP/1.1 over the socket inside, checked by broker/docker_policy.c, and
 * forwarded to the host's daemon one request at a time. Each forwarded
 * request says "Connection: close", so the daemon answers it and no other;
 * the answer is copied back as it comes (logs and stats stream), and only
 * attach and exec start, once allowed, turn the connection into the
 * container's stream both ways. Whatever the client sends after its one
 * request is never read. Every decision is a line of the session's
 * docker.log. At the end of the session (SIGTERM, or the launcher gone)
 * the broker removes the containers the session made (docker_reap). */
#include "broker.h"

#include "docker_policy.h"
#include "json.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define MAX_HEAD    (64 * 1024)
#define MAX_HEADERS 100
#define MAX_ANSWER  (8 * 1024 * 1024) /* an inspect answer the filter reads */

/* What the client sent, read through a buffer. */
struct rd {
	int fd;
	char buf[MAX_HEAD + 1];
	size_t off, len;
};

static int rd_fill(struct rd *r)
{
	if (r->off && r->off == r->len)
		r->off = r->len = 0;
	if (r->len == MAX_HEAD) {
		if (r->off == 0)
			return -E2BIG;
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
	for (;;) {
		ssize_t n = read(r->fd, r->buf + r->len, MAX_HEAD - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		r->len += (size_t)n;
		r->buf[r->len] = '\0';
		return 0;
	}
}

/* Up to n bytes of what is there (reading when nothing is). */
static ssize_t rd_some(struct rd *r, char *out, size_t n)
{
	if (r->off == r->len) {
		int e = rd_fill(r);
		if (e < 0)
			return e;
	}
	size_t k = r->len - r->off < n ? r->len - r->off : n;
	memcpy(out, r->buf + r->off, k);
	r->off += k;
	return (ssize_t)k;
}

/* A line ending in CRLF (without it). */
static int rd_line(struct rd *r, char *out, size_t n)
{
	for (;;) {
		char *nl = memchr(r->buf + r->off, '\n', r->len - r->off);
		if (nl) {
			size_t k = (size_t)(nl - (r->buf + r->off));
			if (k == 0 || nl[-1] != '\r' || k - 1 >= n)
				return -EINVAL;
			memcpy(out, r->buf + r->off, k - 1);
			out[k - 1] = '\0';
			r->off += k + 1;
			return 0;
		}
		if (r->len - r->off > 8400)
			return -EINVAL;
		int e = rd_fill(r);
		if (e < 0)
			return e;
	}
}

struct request {
	char method[16];
	char target[8192];
	char *headers[MAX_HEADERS]; /* "Name: value", those that pass on */
	size_t n_headers;
	long long content_length; /* -1: none */
	bool chunked, upgrade, expect_continue;
};

static void request_free(struct request *q)
{
	for (size_t i = 0; i < q->n_headers; i++)
		free(q->headers[i]);
	q->n_headers = 0;
}

static bool token_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The request line and headers, strictly: CRLF lines, no folding, one
 * Content-Length or chunked (not both), nothing else as encoding. */
static int read_head(struct rd *r, struct request *q, char *why, size_t why_len)
{
	char line[8300];
	int e = rd_line(r, line, sizeof(line));
	if (e < 0)
		return snprintf(why, why_len, "a request line the filter does not read"), e;
	char version[16];
	char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strchr(sp2 + 1, ' ') || (size_t)(sp1 - line) >= sizeof(q->method) ||
	    (size_t)(sp2 - sp1 - 1) >= sizeof(q->target) || strlen(sp2 + 1) >= sizeof(version))
		return snprintf(why, why_len, "a request line the filter does not read"), -EINVAL;
	memcpy(q->method, line, (size_t)(sp1 - line));
	q->method[sp1 - line] = '\0';
	memcpy(q->target, sp1 + 1, (size_t)(sp2 - sp1 - 1));
	q->target[sp2 - sp1 - 1] = '\0';
	snprintf(version, sizeof(version), "%s", sp2 + 1);
	for (const char *c = q->method; *c; c++)
		if (*c < 'A' || *c > 'Z')
			return snprintf(why, why_len, "the method %s", q->method), -EINVAL;
	if (strcmp(version, "HTTP/1.1") && strcmp(version, "HTTP/1.0"))
		return snprintf(why, why_len, "%s (HTTP/1.x only)", version), -EINVAL;
	q->content_length = -1;
	for (;;) {
		if ((e = rd_line(r, line, sizeof(line))) < 0)
			return snprintf(why, why_len, "a header the filter does not read"), e;
		if (!line[0] && q->chunked && q->content_length >= 0)
			return snprintf(why, why_len, "both Content-Length and chunked"), -EINVAL;
		if (!line[0])
			return 0;
		char *colon = strchr(line, ':');
		if (!colon || colon == line)
			return snprintf(why, why_len, "a header the filter does not read"), -EINVAL;
		for (char *c = line; c < colon; c++)
			if (!token_char(*c))
				return snprintf(why, why_len,
				                "a header name the filter does not read"),
				       -EINVAL;
		for (char *c = colon + 1; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				return snprintf(why, why_len, "a header value with control bytes"),
				       -EINVAL;
		*colon = '\0';
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t vl = strlen(v);
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			v[--vl] = '\0';
		if (strcasecmp(line, "Content-Length") == 0) {
			char *end;
			long long n = strtoll(v, &end, 10);
			if (!*v || *end || n < 0 || q->content_length >= 0 || v[0] == '+' ||
			    v[0] == '-')
				return snprintf(why, why_len,
				                "a Content-Length the filter does not read"),
				       -EINVAL;
			q->content_length = n;
			continue;
		}
		if (strcasecmp(line, "Transfer-Encoding") == 0) {
			if (strcasecmp(v, "chunked") || q->chunked)
				return snprintf(why, why_len, "Transfer-Encoding %s", v), -EINVAL;
			q->chunked = true;
			continue;
		}
		if (strcasecmp(line, "Upgrade") == 0) {
			q->upgrade = strcasecmp(v, "tcp") == 0;
			continue;
		}
		if (strcasecmp(line, "Expect") == 0) {
			if (strcasecmp(v, "100-continue"))
				return snprintf(why, why_len, "Expect %s", v), -EINVAL;
			q->expect_continue = true;
			continue;
		}
		/* hop-by-hop: this connection's, not the next one's */
		if (strcasecmp(line, "Connection") == 0 || strcasecmp(line, "Keep-Alive") == 0 ||
		    strcasecmp(line, "Proxy-Connection") == 0 || strcasecmp(line, "TE") == 0 ||
		    strcasecmp(line, "Trailer") == 0)
			continue;
		if (q->n_headers == MAX_HEADERS)
			return snprintf(why, why_len, "more than %d headers", MAX_HEADERS), -EINVAL;
		if (!(q->headers[q->n_headers] = str_printf("%s: %s", line, v)))
			return -ENOMEM;
		q->n_headers++;
	}
}

/* One chunk's size line: its size, or -EINVAL. */
static long long chunk_size(struct rd *r)
{
	char line[128];
	if (rd_line(r, line, sizeof(line)) < 0)
		return -EINVAL;
	char *end;
	line[strcspn(line, ";")] = '\0'; /* extensions */
	long long n = strtoll(line, &end, 16);
	if (!line[0] || *end || n < 0 || line[0] == '-' || line[0] == '+')
		return -EINVAL;
	return n;
}

static int rd_exact(struct rd *r, char *out, size_t n)
{
	while (n) {
		ssize_t k = rd_some(r, out, n);
		if (k < 0)
			return (int)k;
		out += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The end of a chunked body: trailers until the empty line. */
static int chunk_trailers(struct rd *r)
{
	char line[1024];
	for (int i = 0; i < MAX_HEADERS; i++) {
		if (rd_line(r, line, sizeof(line)) < 0)
			return -EINVAL;
		if (!line[0])
			return 0;
	}
	return -EINVAL;
}

/* A whole body, up to max bytes. */
static int read_body(struct rd *r, const struct request *q, size_t max, char **out, size_t *len)
{
	size_t n = 0, cap = 4096;
	char *b = malloc(cap + 1);
	if (!b)
		return -ENOMEM;
	int e = 0;
	if (!q->chunked) {
		long long want = q->content_length < 0 ? 0 : q->content_length;
		if ((unsigned long long)want > max) {
			e = -E2BIG;
		} else {
			char *nb = realloc(b, (size_t)want + 1);
			if (!nb)
				e = -ENOMEM;
			else if ((b = nb), (e = rd_exact(r, b, (size_t)want)) >= 0)
				n = (size_t)want;
		}
	} else {
		for (;;) {
			long long cs = chunk_size(r);
			if (cs < 0 || (unsigned long long)cs > max - n) {
				e = cs < 0 ? -EINVAL : -E2BIG;
				break;
			}
			if (cs == 0) {
				e = chunk_trailers(r);
				break;
			}
			if (n + (size_t)cs > cap) {
				cap = n + (size_t)cs;
				char *nb = realloc(b, cap + 1);
				if (!nb) {
					e = -ENOMEM;
					break;
				}
				b = nb;
			}
			char crlf[2];
			if ((e = rd_exact(r, b + n, (size_t)cs)) < 0 ||
			    (e = rd_exact(r, crlf, 2)) < 0)
				break;
			if (crlf[0] != '\r' || crlf[1] != '\n') {
				e = -EINVAL;
				break;
			}
			n += (size_t)cs;
		}
	}
	if (e < 0) {
		free(b);
		return e;
	}
	b[n] = '\0';
	*out = b;
	*len = n;
	return 0;
}

/* A body passed on as it comes: Content-Length bytes, or re-chunked. */
static int stream_body(struct rd *r, const struct request *q, int up)
{
	char buf[65536];
	if (!q->chunked) {
		unsigned long long left =
		    q->content_length < 0 ? 0 : (unsigned long long)q->content_length;
		while (left) {
			ssize_t k =
			    rd_some(r, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
			if (k < 0)
				return (int)k;
			int e = write_all(up, buf, (size_t)k);
			if (e < 0)
				return e;
			left -= (unsigned long long)k;
		}
		return 0;
	}
	for (;;) {
		long long cs = chunk_size(r);
		if (cs < 0)
			return -EINVAL;
		char head[32];
		int hl = snprintf(head, sizeof(head), "%llx\r\n", cs);
		int e = write_all(up, head, (size_t)hl);
		if (e < 0)
			return e;
		if (cs == 0)
			return chunk_trailers(r) < 0 ? -EINVAL : write_all(up, "\r\n", 2);
		while (cs) {
			ssize_t k =
			    rd_some(r, buf, (size_t)cs < sizeof(buf) ? (size_t)cs : sizeof(buf));
			if (k < 0)
				return (int)k;
			if ((e = write_all(up, buf, (size_t)k)) < 0)
				return e;
			cs -= k;
		}
		char crlf[2];
		if (rd_exact(r, crlf, 2) < 0 || crlf[0] != '\r' || crlf[1] != '\n')
			return -EINVAL;
		if ((e = write_all(up, "\r\n", 2)) < 0)
			return e;
	}
}

/* 403 with the daemon's error shape: the docker CLI prints the message. */
static void answer_refused(int client, const char *why)
{
	_cleanup_free_ char *msg = str_printf("agentsandbox: refused: %s", why);
	struct json j = {.type = J_STR, .s = msg};
	char *text = NULL;
	size_t tl = 0;
	if (!msg || json_write(&j, &text, &tl) < 0)
		return;
	_cleanup_free_ char *body = str_printf("{\"message\":%s}\n", text);
	free(text);
	_cleanup_free_ char *all =
	    body ? str_printf("HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
	                      "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
	                      strlen(body), body)
	         : NULL;
	if (all)
		(void)write_all(client, all, strlen(all));
}

/* GET path from the daemon, its whole answer's body (status 200 only). */
static int upstream_get(const struct broker *b, const char *path, char **body, size_t *len)
{
	int up = upstream_connect(b);
	if (up < 0)
		return up;
	_cleanup_close_ int fd = up;
	_cleanup_free_ char *req =
	    str_printf("GET %s HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n", path);
	int e = req ? write_all(fd, req, strlen(req)) : -ENOMEM;
	if (e < 0)
		return e;
	struct rd *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = fd;
	char line[1024];
	struct request q = {.content_length = -1};
	bool ok = false;
	if (rd_line(r, line, sizeof(line)) == 0)
		ok = strncmp(line, "HTTP/1.", 7) == 0 && strncmp(line + 8, " 200", 4) == 0;
	while (ok && (e = rd_line(r, line, sizeof(line))) == 0 && line[0]) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		const char *v = colon + 1 + strspn(colon + 1, " \t");
		if (strcasecmp(line, "Content-Length") == 0)
			q.content_length = strtoll(v, NULL, 10);
		else if (strcasecmp(line, "Transfer-Encoding") == 0)
			q.chunked = strcasecmp(v, "chunked") == 0;
	}
	if (!ok || e < 0) {
		free(r);
		return -EPERM;
	}
	if (!q.chunked && q.content_length < 0) {
		/* to the end of the connection */
		size_t n = 0, cap = 65536;
		char *out = malloc(cap + 1);
		e = out ? 0 : -ENOMEM;
		for (;;) {
			if (e < 0)
				break;
			if (n == cap && (cap *= 2) > MAX_ANSWER) {
				e = -E2BIG;
				break;
			}
			char *no = realloc(out, cap + 1);
			if (!no) {
				e = -ENOMEM;
				break;
			}
			out = no;
			ssize_t k = rd_some(r, out + n, cap - n);
			if (k == -EPIPE)
				break;
			if (k < 0) {
				e = (int)k;
				break;
			}
			n += (size_t)k;
		}
		free(r);
		if (e < 0) {
			free(out);
			return e;
		}
		out[n] = '\0';
		*body = out;
		*len = n;
		return 0;
	}
	e = read_body(r, &q, MAX_ANSWER, body, len);
	free(r);
	return e;
}

/* Whether container `id` is this session's: its full id into full. */
static int check_owned(const struct broker *b, const char *id, char *full, size_t full_len)
{
	_cleanup_free_ char *path = str_printf("/containers/%s/json", id);
	_cleanup_free_ char *body = NULL;
	size_t len = 0;
	int e = path ? upstream_get(b, path, &body, &len) : -ENOMEM;
	if (e < 0)
		return e;
	return docker_owned(body, len, b->label, full, full_len);
}

/* The answer's head, with "Connection: close" (the daemon answers one
 * request on this connection, and so does the filter: a client that kept
 * it for the next would find it gone); an upgrade's passes as it is. */
static int relay_head(int up, int client)
{
	struct rd *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = up;
	int e = 0;
	char *end = NULL;
	while (!(end = strstr(r->buf, "\r\n\r\n")) && (e = rd_fill(r)) >= 0)
		;
	if (!end) {
		free(r);
		return e < 0 ? e : -EINVAL;
	}
	size_t head_len = (size_t)(end - r->buf) + 4;
	bool upgrade = strncmp(r->buf, "HTTP/1.1 101", 12) == 0;
	_cleanup_free_ char *out = malloc(head_len + 32);
	size_t w = 0;
	if (!out) {
		free(r);
		return -ENOMEM;
	}
	for (char *line = r->buf; line < end + 2;) {
		char *eol = strstr(line, "\r\n");
		size_t n = (size_t)(eol - line) + 2;
		bool hop = line != r->buf && (strncasecmp(line, "Connection:", 11) == 0 ||
		                              strncasecmp(line, "Keep-Alive:", 11) == 0);
		if (!hop || upgrade) {
			memcpy(out + w, line, n);
			w += n;
		}
		line += n;
	}
	if (!upgrade) {
		memcpy(out + w, "Connection: close\r\n", 19);
		w += 19;
	}
	memcpy(out + w, "\r\n", 2);
	w += 2;
	e = write_all(client, out, w);
	if (e >= 0 && r->len > head_len)
		e = write_all(client, r->buf + head_len, r->len - head_len);
	free(r);
	return e;
}

/* Both ways until both are done (attach, exec start), or the answer only. */
static void pump(int client, int up, bool duplex)
{
	char buf[65536];
	bool c_open = duplex, u_open = true;
	while (u_open || c_open) {
		/* not reading the client: polled for its hanging up only */
		struct pollfd p[2] = {{.fd = u_open ? up : -1, .events = POLLIN},
		                      {.fd = client, .events = c_open ? POLLIN : 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (!c_open && (p[1].revents & (POLLHUP | POLLERR)))
			return;
		for (int i = 0; i < 2; i++) {
			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int from = i == 0 ? up : client, to = i == 0 ? client : up;
			ssize_t n = read(from, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || write_all(to, buf, (size_t)n) < 0) {
				if (i == 0) {
					u_open = false;
					(void)shutdown(client, SHUT_WR);
					if (!duplex)
						return;
				} else {
					c_open = false;
					(void)shutdown(up, SHUT_WR);
				}
			}
		}
	}
}

static char *resolve(const char *path, void *ud)
{
	(void)ud;
	char real[PATH_MAX];
	if (realpath(path, real))
		return strdup(real);
	struct stat st;
	/* a dangling link: where it would lead is not for the filter to guess */
	if (errno != ENOENT || lstat(path, &st) == 0)
		return NULL;
	/* The daemon makes a missing bind source: where it would be. */
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return NULL;
	_cleanup_free_ char *parent = strndup(path, (size_t)(slash - path));
	_cleanup_free_ char *rp = parent ? resolve(parent, NULL) : NULL;
	return !rp ? NULL : strcmp(rp, "/") ? str_printf("%s%s", rp, slash) : strdup(slash);
}

struct plan {
	struct docker_route route;
	char path[8192]; /* what goes upstream */
	char *body;      /* DB_JSON: the checked body */
	size_t body_len;
	char *note; /* for the log */
};

/* Decide: 0 with the plan, or -EPERM with why. */
static int decide(const struct broker *b, struct rd *r, const struct request *q, struct plan *pl,
                  char *why, size_t why_len)
{
	struct docker_route *rt = &pl->route;
	int e = docker_route(q->method, q->target, rt, why, why_len);
	if (e < 0)
		return e;
	bool has_body = q->chunked || q->content_length > 0;
	if (rt->body == DB_NONE && has_body)
		return snprintf(why, why_len, "a body on %s %.256s", q->method, rt->rest), -EPERM;
	if (q->expect_continue && has_body) {
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
		if ((e = write_all(r->fd, cont, sizeof(cont) - 1)) < 0)
			return e;
	}
	if (rt->body == DB_JSON) {
		e = read_body(r, q, DOCKER_MAX_JSON, &pl->body, &pl->body_len);
		if (e < 0)
			return snprintf(why, why_len, "a body the filter does not read (%s)",
			                e == -E2BIG ? "over 1 MiB" : strerror(-e)),
			       -EPERM;
	}
	const char *query = rt->query;
	_cleanup_free_ char *filtered = NULL;
	char full[129], exec_id[129];
	switch (rt->kind) {
	case DR_FILTERED:
		if ((e = docker_filter_query(rt->query, b->label, &filtered)) < 0)
			return snprintf(why, why_len,
			                "a filters parameter the filter does not read"),
			       -EPERM;
		query = filtered;
		break;
	case DR_CREATE: {
		char *out = NULL;
		size_t ol = 0;
		/* the roots as the bind sources are compared: resolved */
		struct strv roots = {0};
		for (size_t i = 0; e >= 0 && i < b->roots.n; i++) {
			char *real = resolve(b->roots.v[i], NULL);
			e = real ? strv_push_take(&roots, real) : strv_push(&roots, b->roots.v[i]);
		}
		struct docker_policy p = {(const char *const *)roots.v, roots.n, b->label, resolve,
		                          NULL};
		if (e >= 0)
			e = docker_check_create(&p, pl->body, pl->body_len, &out, &ol, &pl->note,
			                        why, why_len);
		strv_clear(&roots);
		if (e < 0)
			return e;
		free(pl->body);
		pl->body = out;
		pl->body_len = ol;
		break;
	}
	case DR_CONTAINER:
	case DR_CONTAINER_HIJACK:
	case DR_EXEC_CREATE:
		if (check_owned(b, rt->id, full, sizeof(full)) < 0)
			return snprintf(why, why_len, "container %s is not one this session made",
			                rt->id),
			       -EPERM;
		if (rt->kind == DR_EXEC_CREATE) {
			char *out = NULL;
			size_t ol = 0;
			if ((e = docker_check_exec(pl->body, pl->body_len, &out, &ol, why,
			                           why_len)) < 0)
				return e;
			free(pl->body);
			pl->body = out;
			pl->body_len = ol;
		}
		snprintf(pl->path, sizeof(pl->path), "%s/containers/%s%s", rt->prefix, full,
		         rt->rest);
		break;
	case DR_EXEC:
	case DR_EXEC_HIJACK: {
		_cleanup_free_ char *ipath = str_printf("/exec/%s/json", rt->id);
		_cleanup_free_ char *ibody = NULL;
		size_t il = 0;
		char container[129];
		if (!ipath || upstream_get(b, ipath, &ibody, &il) < 0 ||
		    docker_exec_container(ibody, il, container, sizeof(container), exec_id,
		                          sizeof(exec_id)) < 0 ||
		    check_owned(b, container, full, sizeof(full)) < 0)
			return snprintf(why, why_len,
			                "exec %s is not one of this session's containers", rt->id),
			       -EPERM;
		if (rt->kind == DR_EXEC_HIJACK) {
			struct json j;
			if (json_parse(pl->body, pl->body_len, &j) < 0)
				return snprintf(why, why_len,
				                "an exec start body the filter does not read"),
				       -EPERM;
			char *out = NULL;
			size_t ol = 0;
			e = json_write(&j, &out, &ol);
			json_free(&j);
			if (e < 0)
				return e;
			free(pl->body);
			pl->body = out;
			pl->body_len = ol;
		}
		snprintf(pl->path, sizeof(pl->path), "%s/exec/%s%s", rt->prefix, exec_id, rt->rest);
		break;
	}
	}
	if (!pl->path[0])
		snprintf(pl->path, sizeof(pl->path), "%s%s", rt->prefix, rt->rest);
	if (query[0]) {
		size_t n = strlen(pl->path);
		if (n + 1 + strlen(query) >= sizeof(pl->path))
			return snprintf(why, why_len, "a query too long"), -EPERM;
		snprintf(pl->path + n, sizeof(pl->path) - n, "?%s", query);
	}
	return 0;
}

static int forward(const struct broker *b, struct rd *r, const struct request *q,
                   const struct plan *pl)
{
	bool hijack = pl->route.kind == DR_CONTAINER_HIJACK || pl->route.kind == DR_EXEC_HIJACK;
	int up = upstream_connect(b);
	if (up < 0)
		return up;
	_cleanup_close_ int fd = up;
	size_t cap = 1024 + strlen(pl->path);
	for (size_t i = 0; i < q->n_headers; i++)
		cap += strlen(q->headers[i]) + 2;
	_cleanup_free_ char *head = malloc(cap);
	if (!head)
		return -ENOMEM;
	size_t w = (size_t)snprintf(head, cap, "%s %s HTTP/1.1\r\n", q->method, pl->path);
	for (size_t i = 0; i < q->n_headers; i++)
		if (pl->route.body != DB_JSON || strncasecmp(q->headers[i], "Content-Type:", 13))
			w += (size_t)snprintf(head + w, cap - w, "%s\r\n", q->headers[i]);
	if (hijack && q->upgrade)
		w += (size_t)snprintf(head + w, cap - w, "Connection: Upgrade\r\nUpgrade: tcp\r\n");
	else
		w += (size_t)snprintf(head + w, cap - w, "Connection: close\r\n");
	if (pl->route.body == DB_JSON)
		w += (size_t)snprintf(head + w, cap - w,
		                      "Content-Type: application/json\r\n"
		                      "Content-Length: %zu\r\n",
		                      pl->body_len);
	else if (pl->route.body == DB_STREAM && q->chunked)
		w += (size_t)snprintf(head + w, cap - w, "Transfer-Encoding: chunked\r\n");
	else if (pl->route.body == DB_STREAM && q->content_length >= 0)
		w += (size_t)snprintf(head + w, cap - w, "Content-Length: %lld\r\n",
		                      q->content_length);
	else if (strcmp(q->method, "POST") == 0 || strcmp(q->method, "PUT") == 0)
		w += (size_t)snprintf(head + w, cap - w, "Content-Length: 0\r\n");
	w += (size_t)snprintf(head + w, cap - w, "\r\n");
	int e = write_all(fd, head, w);
	if (e >= 0 && pl->route.body == DB_JSON)
		e = write_all(fd, pl->body, pl->body_len);
	if (e >= 0 && pl->route.body == DB_STREAM)
		e = stream_body(r, q, fd);
	if (e < 0)
		return e;
	/* What the client sent after the request: its stream, once attached. */
	if (hijack && r->len > r->off && (e = write_all(fd, r->buf + r->off, r->len - r->off)) < 0)
		return e;
	if ((e = relay_head(fd, r->fd)) < 0)
		return e;
	pump(r->fd, fd, hijack);
	return 0;
}

int docker_serve(const struct broker *b, int client)
{
	struct rd *r = calloc(1, sizeof(*r));
	struct request q = {0};
	struct plan pl = {0};
	char why[1024] = "";
	if (!r)
		return -ENOMEM;
	r->fd = client;
	int e = read_head(r, &q, why, sizeof(why));
	if (e == -EPIPE) {
		free(r);
		return 0; /* connected and left */
	}
	if (e >= 0)
		e = decide(b, r, &q, &pl, why, sizeof(why));
	if (e < 0) {
		if (!why[0])
			snprintf(why, sizeof(why), "%s", strerror(-e));
		_cleanup_free_ char *clean = strndup(q.target, 512);
		blog(b, "refused: %s %s: %s", q.method[0] ? q.method : "?", clean ? clean : "?",
		     why);
		answer_refused(client, why);
	} else {
		blog(b, "allowed: %s %s%s%s%s", q.method, pl.path, pl.note ? " (" : "",
		     pl.note ? pl.note : "", pl.note ? ")" : "");
		if ((e = forward(b, r, &q, &pl)) < 0)
			blog(b, "%s %s: the daemon: %s", q.method, pl.path, strerror(-e));
	}
	free(pl.body);
	free(pl.note);
	request_free(&q);
	free(r);
	return e;
}

int docker_reap(const struct broker *b)
{
	_cleanup_free_ char *query = NULL;
	int e = docker_filter_query("all=1", b->label, &query);
	_cleanup_free_ char *path = e >= 0 ? str_printf("/containers/json?%s", query) : NULL;
	_cleanup_free_ char *body = NULL;
	size_t len = 0;
	if (!path || (e = upstream_get(b, path, &body, &len)) < 0) {
		blog(b, "end of session: cannot list its containers: %s",
		     strerror(e < 0 ? -e : ENOMEM));
		return e < 0 ? e : -ENOMEM;
	}
	struct json j;
	if (json_parse(body, len, &j) < 0 || j.type != J_ARR) {
		blog(b, "end of session: the daemon's container list does not read");
		return -EINVAL;
	}
	for (size_t i = 0; i < j.n; i++) {
		const char *id = json_str(json_get(&j.v[i], "Id"));
		char full[129];
		/* the daemon filtered by label; each is checked again before it goes */
		if (!id || check_owned(b, id, full, sizeof(full)) < 0)
			continue;
		int up = upstream_connect(b);
		if (up < 0)
			break;
		_cleanup_free_ char *req =
		    str_printf("DELETE /containers/%s?force=1&v=1 HTTP/1.1\r\n"
		               "Host: docker\r\nConnection: close\r\n\r\n",
		               full);
		char status[64] = "";
		if (req && write_all(up, req, strlen(req)) >= 0) {
			ssize_t n = read(up, status, sizeof(status) - 1);
			status[n > 0 ? n : 0] = '\0';
		}
		close(up);
		status[strcspn(status, "\r\n")] = '\0';
		blog(b, "end of session: removed container %.12s (%s)", full,
		     status[0] ? status : "no answer");
	}
	json_free(&j);
	return 0;
}
