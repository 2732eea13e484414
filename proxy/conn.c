/* One client connection: parse each request, decide it, forward it, stream the
 * response back, repeat.
 *
 * Requests and responses move in lockstep: the next request head on a connection
 * (pipelined or kept alive, plain or inside an intercepted TLS tunnel) is parsed
 * and decided only after the previous response has been delivered, so every
 * request is checked and bytes never overtake each other. Within one exchange the
 * two directions are independent (a server may answer "100 Continue" or stream
 * an SSE reply while the upload is still running).
 *
 * Each direction is a `flow`: bytes read from its source into a lazily allocated
 * buffer, a generated head to send first, and a count of buffered bytes approved
 * for the sink by the body framing. When neither side speaks TLS and the framing
 * needs no inspection, body bytes bypass user space through a pipe with splice().
 * Everything is level-triggered: `drive` makes all the progress it can, then
 * asks libev for exactly the readiness it is waiting for. */
#include "conn.h"
#include "guard.h"
#include "hostaddr.h"
#include "hostcheck.h"
#include "http_parse.h"
#include "log.h"
#include "tls_init.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <openssl/err.h>

#define BUF_SIZE  HTTP_MAX_HEAD /* a whole head must fit */
#define PIPE_SIZE PROXY_PIPE_SIZE
#define UNLIMITED UINT64_MAX

struct buf {
	char *data;
	size_t off, len, cap;
};

enum fmode { F_NONE, F_LENGTH, F_CHUNKED, F_UNTIL_EOF };

struct flow {
	struct buf in;   /* from the source */
	struct buf head; /* generated, goes out before any approved byte */
	uint64_t pass;   /* bytes at in.off approved for the sink */
	int pipe[2];
	size_t piped;
	enum fmode mode;
	uint64_t left; /* F_LENGTH: body bytes not yet approved or piped */
	struct http_chunked ch;
	bool done; /* the body has been fully read from the source */
	/* The guard over a request body (creds.h): bytes are scanned as the framing
	 * takes them, and the last `hold` of them held back until more come or the
	 * body ends, so a secret is found before any byte of it leaves. */
	struct guard *scan;
	struct guard_scan gs;
	uint64_t ph_ok; /* placeholders this body may carry */
	size_t held;    /* scanned bytes after `pass`, not yet approved */
	size_t hold;
	bool refused; /* the body carries what must not leave */
};

struct side {
	int fd;
	SSL *ssl;
	ev_io io;
	int events;
	bool handshaking;
	int hs_want;
	bool r_needs_w, w_needs_r; /* TLS wants the other readiness to continue */
	/* Plain sockets: poll said ready and no EAGAIN since. Saves the read or
	 * write that would only fail, which is most of the syscalls per request. */
	bool rd_ready, wr_ready;
	bool eof;
};

enum rstate { R_HEAD, R_BODY, R_DONE, R_TUNNEL };
enum sstate { S_IDLE, S_HEAD, S_BODY, S_TUNNEL };
enum ustate { U_NONE, U_RESOLVING, U_CONNECTING, U_HANDSHAKE, U_READY };
enum tkind { T_NONE, T_IDLE, T_HEADER, T_CONNECT, T_IO, T_CLOSING };

struct conn {
	struct proxy *px;
	struct conn *next, **pprev; /* in px->conns */
	struct side cli, up;
	struct flow c2u, u2c;
	enum rstate rstate;
	enum sstate sstate;
	enum ustate ustate;
	bool closing;     /* flush what is pending, then close */
	bool lingering;   /* response out, write side shut: drain the client until EOF */
	bool discard;     /* the current request body is read and dropped (denied) */
	bool close_after; /* close once the current response is delivered */
	bool tls_pending; /* start TLS on the client once "200" is flushed */
	bool req_head;    /* the request was HEAD: its response has no body */
	bool req_ws;      /* an allowed WebSocket upgrade is in flight */
	bool resp_started;
	int client_minor;
	bool up_reusable;
	bool up_once; /* the server is not reused after this exchange (a body it may ignore) */
	bool activity;
	/* CONNECT target of an intercepted tunnel */
	char tun_host[HOST_MAX];
	uint16_t tun_port;
	/* the upstream connection, for reuse */
	char up_host[HOST_MAX];
	uint16_t up_port;
	uint16_t dial_port; /* what is dialled: up_port, unless hosts_file moves it */
	bool up_tls;
	bool allow_private; /* the current request may dial private and local addresses */
	struct dns_job *dns;
	struct host_addr addrs[UPSTREAM_MAX_ADDRS];
	bool addr_private[UPSTREAM_MAX_ADDRS]; /* dialling it needs allow_private */
	size_t n_addrs, next_addr;
	bool up_private; /* the server connected to is at such an address */
	/* what the current request is, for logs on late failures */
	char method[32];
	char *req_path;
	char *req_host;      /* as logged ("host[:port]"), for a body the guard refuses */
	bool injected;       /* the upstream head holds a real value: wiped when sent */
	int oauth;           /* an oauth token exchange is in flight (its binding), or -1 */
	bool oauth_refresh;  /* ... which refreshes the host's login (creds_oauth_request) */
	bool head_wait;      /* the request is taken only once its whole body is here */
	uint64_t cr_covered; /* the bindings covering the request (for the body's verdict) */
	bool cr_tls;
	ev_timer timer;
	enum tkind tkind;
};

static void drive(struct conn *c);

/* ---- buffers ---- */

static size_t buf_avail(const struct buf *b)
{
	return b->len - b->off;
}

/* Input buffers come from a small pool: busy connections reuse them without a
 * system call, idle ones hold none, and beyond the pool they are mapped and
 * unmapped directly (malloc could carve them out of a heap that never shrinks),
 * so RSS follows the number of active connections, not the peak. */
#define POOL_MAX 64
static char *pool[POOL_MAX];
static size_t pool_n;

/* AddressSanitizer only sees overflows of malloc'd memory: use it there. */
#if defined(__SANITIZE_ADDRESS__)
#define BUF_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUF_MALLOC 1
#endif
#endif

static void *buf_map(void)
{
#ifdef BUF_MALLOC
	return malloc(BUF_SIZE);
#else
	void *p = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
#endif
}

static void buf_unmap(void *p)
{
#ifdef BUF_MALLOC
	free(p);
#else
	munmap(p, BUF_SIZE);
#endif
}
static int inbuf_get(struct buf *b)
{
	if (b->data)
		return 0;
	b->data = pool_n ? pool[--pool_n] : buf_map();
	if (!b->data)
		return -ENOMEM;
	b->cap = BUF_SIZE;
	b->off = b->len = 0;
	return 0;
}

static void inbuf_put(struct buf *b)
{
	if (b->data && pool_n < POOL_MAX)
		pool[pool_n++] = b->data;
	else if (b->data)
		buf_unmap(b->data);
	*b = (struct buf){0};
}

/* Generated heads may hold a real value (creds.h): never left in freed memory. */
static void buf_release(struct buf *b)
{
	if (b->data)
		explicit_bzero(b->data, b->len);
	free(b->data);
	*b = (struct buf){0};
}

static int buf_reserve(struct buf *b, size_t n);

static int buf_append(struct buf *b, const char *p, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

static int buf_reserve(struct buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < b->len + n)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

static int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

/* Any length: formatted in place, the buffer grown and the format redone when short. */
__attribute__((format(printf, 2, 3))) static int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room = b->cap - b->len;
	va_start(ap, fmt);
	int n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= room) {
		if (buf_reserve(b, (size_t)n + 1) < 0)
			return -ENOMEM;
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
	return 0;
}

static void flow_reset_body(struct flow *f, enum fmode mode, uint64_t len)
{
	f->mode = mode;
	f->left = mode == F_LENGTH ? len : 0;
	f->ch = (struct http_chunked){0};
	f->done = mode == F_NONE;
	guard_unref(f->scan);
	f->scan = NULL;
	f->held = 0;
	f->refused = false;
}

/* Scan a body (the guard) as the framing takes it. */
static void flow_scan_data(void *arg, const char *p, size_t n)
{
	struct flow *f = arg;
	guard_feed(f->scan, &f->gs, p, n);
}

static void flow_close_pipe(struct flow *f)
{
	if (f->pipe[0] >= 0) {
		close(f->pipe[0]);
		close(f->pipe[1]);
	}
	f->pipe[0] = f->pipe[1] = -1;
	f->piped = 0;
}

/* Everything of the current message has left for the sink. */
static bool flow_flushed(const struct flow *f)
{
	return f->pass == 0 && f->piped == 0 && buf_avail(&f->head) == 0;
}

static bool flow_complete(const struct flow *f)
{
	return f->done && flow_flushed(f);
}

/* Mark approved the buffered bytes the framing says belong to the body. Under the
 * guard, what the framing took is scanned first and the tail held back; a body
 * that carries what must not leave is never approved further (f->refused). */
static int flow_approve(struct flow *f)
{
	size_t avail = buf_avail(&f->in) - f->pass - f->held, used = 0;
	if (avail == 0 || f->done || f->refused)
		return 0;
	const char *p = f->in.data + f->in.off + f->pass + f->held;
	switch (f->mode) {
	case F_NONE:
		return 0;
	case F_LENGTH:
		used = avail < f->left ? avail : (size_t)f->left;
		if (f->scan)
			guard_feed(f->scan, &f->gs, p, used);
		f->left -= used;
		f->done = f->left == 0;
		break;
	case F_CHUNKED: {
		int rc = f->scan
		             ? http_chunked_scan_data(&f->ch, p, avail, &used, flow_scan_data, f)
		             : http_chunked_scan(&f->ch, p, avail, &used);
		if (rc < 0)
			return rc;
		f->done = rc == 1;
		break;
	}
	case F_UNTIL_EOF:
		used = avail;
		break;
	}
	if (!f->scan) {
		f->pass += used;
		return 0;
	}
	if (f->gs.secret >= 0 || (f->gs.placeholders & ~f->ph_ok)) {
		f->held += used;
		f->refused = true;
		return 0;
	}
	size_t pending = f->held + used;
	size_t keep = f->done ? 0 : pending < f->hold ? pending : f->hold;
	f->pass += pending - keep;
	f->held = keep;
	return 0;
}

/* ---- sockets, plain or TLS ---- */

static ssize_t side_read(struct side *s, char *p, size_t n)
{
	if (s->ssl) {
		ERR_clear_error();
		int r = SSL_read(s->ssl, p, (int)n);
		if (r > 0) {
			s->r_needs_w = false;
			return r;
		}
		int e = SSL_get_error(s->ssl, r);
		if (e == SSL_ERROR_WANT_READ)
			return 0;
		if (e == SSL_ERROR_WANT_WRITE) {
			s->r_needs_w = true;
			return 0;
		}
		return -1;
	}
	if (!s->rd_ready)
		return 0;
	ssize_t r = read(s->fd, p, n);
	if (r > 0)
		return r;
	if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
		s->rd_ready = errno == EINTR;
		return 0;
	}
	return -1;
}

static ssize_t side_write(struct side *s, const char *p, size_t n)
{
	if (s->ssl) {
		ERR_clear_error();
		int r = SSL_write(s->ssl, p, (int)(n > INT32_MAX ? INT32_MAX : n));
		if (r > 0) {
			s->w_needs_r = false;
			return r;
		}
		int e = SSL_get_error(s->ssl, r);
		if (e == SSL_ERROR_WANT_WRITE)
			return 0;
		if (e == SSL_ERROR_WANT_READ) {
			s->w_needs_r = true;
			return 0;
		}
		return -1;
	}
	if (!s->wr_ready)
		return 0;
	ssize_t r = send(s->fd, p, n, MSG_NOSIGNAL);
	if (r >= 0)
		return r;
	if (errno == EAGAIN || errno == EINTR) {
		s->wr_ready = errno == EINTR;
		return 0;
	}
	return -1;
}

/* 1 done, 0 in progress, -1 failed */
static int side_handshake(struct side *s)
{
	ERR_clear_error();
	int r = SSL_do_handshake(s->ssl);
	if (r == 1) {
		s->handshaking = false;
		return 1;
	}
	int e = SSL_get_error(s->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		s->hs_want = e == SSL_ERROR_WANT_READ ? EV_READ : EV_WRITE;
		return 0;
	}
	return -1;
}

static void side_close(struct ev_loop *loop, struct side *s)
{
	if (s->fd < 0)
		return;
	ev_io_stop(loop, &s->io);
	if (s->ssl)
		SSL_free(s->ssl);
	close(s->fd);
	s->ssl = NULL;
	s->fd = -1;
	s->events = 0;
	s->eof = s->handshaking = s->r_needs_w = s->w_needs_r = false;
	s->rd_ready = s->wr_ready = false;
}

static void side_set_events(struct ev_loop *loop, struct side *s, int ev)
{
	if (s->fd < 0 || ev == s->events)
		return;
	ev_io_stop(loop, &s->io);
	ev_io_set(&s->io, s->fd, ev);
	if (ev)
		ev_io_start(loop, &s->io);
	s->events = ev;
}

/* ---- lifetime ---- */

static void conn_free(struct conn *c)
{
	struct proxy *px = c->px;
	dns_cancel(c->dns);
	ev_timer_stop(px->loop, &c->timer);
	side_close(px->loop, &c->cli);
	side_close(px->loop, &c->up);
	struct flow *flows[2] = {&c->c2u, &c->u2c};
	for (int i = 0; i < 2; i++) {
		inbuf_put(&flows[i]->in);
		buf_release(&flows[i]->head);
		flow_close_pipe(flows[i]);
		guard_unref(flows[i]->scan);
	}
	free(c->req_path);
	free(c->req_host);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	free(c);
	px->n_conns--;
}

static void close_upstream(struct conn *c)
{
	dns_cancel(c->dns);
	c->dns = NULL;
	side_close(c->px->loop, &c->up);
	inbuf_put(&c->u2c.in);
	c->u2c.pass = 0;
	flow_close_pipe(&c->u2c);
	flow_close_pipe(&c->c2u);
	c->ustate = U_NONE;
	c->up_reusable = false;
}

/* A complete error response; the connection closes after it unless keep. */
static void respond(struct conn *c, int status, const char *phrase, const char *why, bool keep)
{
	char body[256];
	int n = snprintf(body, sizeof(body), "%s\n", why ? why : phrase);
	if (buf_printf(&c->u2c.head,
	               "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
	               "%s%s%sConnection: %s\r\n\r\n%s",
	               status, phrase, n, why ? "X-Proxy-Error: " : "", why ? why : "",
	               why ? "\r\n" : "", keep ? "keep-alive" : "close", body) < 0)
		keep = false; /* out of memory: the client at least sees the connection close */
	if (!keep)
		c->closing = true;
}

/* The current exchange failed before a response head reached the client. */
static void fail_exchange(struct conn *c, int status, const char *phrase, const char *why)
{
	/* Unsent request bytes can only be skipped when the request had no body left. */
	bool keep = !c->close_after && c->c2u.done && c->rstate != R_TUNNEL;
	close_upstream(c);
	buf_release(&c->c2u.head);
	c->c2u.in.off += c->c2u.pass + c->c2u.held; /* the rest of the failed request's body */
	c->c2u.pass = c->c2u.held = 0;
	c->oauth = -1;
	c->sstate = S_IDLE;
	c->rstate = R_HEAD;
	respond(c, status, phrase, why, keep);
}

/* ---- requests ---- */

static const char *default_port_str(uint16_t port, bool tls, char *buf, size_t n)
{
	if (port == (tls ? 443 : 80))
		return "";
	snprintf(buf, n, ":%u", port);
	return buf;
}

#define DISCARD_MAX (1 << 20) /* a denied body larger than this closes the connection */

static void deny(struct conn *c, const struct http_msg *m, const char *host, const char *path,
                 const char *reason)
{
	/* A denied request's body is read and dropped, so the connection can go on. */
	/* A client waiting for "100 Continue" may never send the body: close then. */
	bool keep = m->keep_alive && !(m->body != HTTP_BODY_NONE && m->expect_continue) &&
	            (m->body != HTTP_BODY_LENGTH || m->content_length <= DISCARD_MAX);
	plog_blocked(c->method, host, path, reason);
	if (keep) {
		c->c2u.in.off += m->head_len;
		if (m->body != HTTP_BODY_NONE) {
			flow_reset_body(&c->c2u,
			                m->body == HTTP_BODY_CHUNKED ? F_CHUNKED : F_LENGTH,
			                m->content_length);
			c->discard = true;
			c->rstate = R_BODY;
		}
	}
	respond(c, 403, "Forbidden", reason, keep);
}

/* Hop-by-hop headers never cross the proxy; neither do the ones Connection names. */
static bool hop_by_hop(const struct http_msg *m, struct http_str name)
{
	static const char *const hop[] = {
	    "connection",         "keep-alive", "proxy-connection", "proxy-authorization",
	    "proxy-authenticate", "te",         "upgrade",          "http2-settings"};
	for (size_t i = 0; i < sizeof(hop) / sizeof(hop[0]); i++)
		if (http_str_ieq(name, hop[i]))
			return true; /* Framing and Host are never removed, whatever Connection
			              * says: dropping them would let the two sides split the body
			              * differently. */
	if (http_str_ieq(name, "content-length") || http_str_ieq(name, "transfer-encoding") ||
	    http_str_ieq(name, "host"))
		return false;
	char lname[128];
	if (name.n >= sizeof(lname))
		return false;
	memcpy(lname, name.p, name.n);
	lname[name.n] = '\0';
	for (size_t i = 0; i < m->n_headers; i++)
		if (http_str_ieq(m->headers[i].name, "connection") &&
		    http_list_has(m->headers[i].value, lname))
			return true;
	return false;
}

static int write_headers(struct buf *b, const struct http_msg *m)
{
	for (size_t i = 0; i < m->n_headers; i++) {
		const struct http_header *h = &m->headers[i];
		if (hop_by_hop(m, h->name))
			continue;
		if (buf_append(b, h->name.p, h->name.n) < 0 || buf_append(b, ": ", 2) < 0 ||
		    buf_append(b, h->value.p, h->value.n) < 0 || buf_append(b, "\r\n", 2) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void start_upstream(struct conn *c);

/* The target as forwarded: as sent, but with runs of '/' in the path merged, as the
 * rules read it. Left alone, "//host/x" is a network-path reference to URL parsers
 * (Node's new URL(), Python's urlsplit) and names another path than the one checked. */
static int append_target(struct buf *b, struct http_str raw)
{
	const char *q = memchr(raw.p, '?', raw.n);
	size_t plen = q ? (size_t)(q - raw.p) : raw.n;
	for (size_t i = 0; i < plen; i++) {
		size_t j = i;
		while (j < plen && raw.p[j] != '/')
			j++;
		/* raw.p[i..j) has no slash; raw.p[j] is one (or the end) */
		if (j > i && buf_append(b, raw.p + i, j - i) < 0)
			return -ENOMEM;
		if (j < plen && buf_append(b, "/", 1) < 0)
			return -ENOMEM;
		while (j + 1 < plen && raw.p[j + 1] == '/')
			j++;
		i = j;
	}
	return buf_append(b, raw.p + plen, raw.n - plen);
}

/* The request's head as the client sent it, and its first line's length. */
static const char *client_head(const struct conn *c, const struct http_msg *m, size_t *line_len)
{
	const char *head = c->c2u.in.data + c->c2u.in.off;
	const char *lf = memchr(head, '\n', m->head_len);
	*line_len = lf ? (size_t)(lf - head) + 1 : m->head_len;
	return head;
}

/* ---- credentials (creds.h) ---- */

#define OAUTH_BODY_MAX (16u << 10)

/* A buffer that may hold a real value: wiped when it goes. */
struct wiped {
	char *p;
	size_t len;
	bool refused;
	char why[160];
};

static void wiped_free(struct wiped *w)
{
	if (w->p) {
		explicit_bzero(w->p, w->len);
		free(w->p);
	}
	w->p = NULL;
	w->len = 0;
}
#define _cleanup_wipe_ __attribute__((cleanup(wiped_free)))

/* The target as forwarded (append_target), with the bindings' query parameters
 * put in. */
static int append_target_creds(struct conn *c, struct buf *b, struct http_str raw,
                               const struct creds_verdict *v, uint64_t *done)
{
	const struct creds *cs = c->px->creds;
	const char *q = memchr(raw.p, '?', raw.n);
	size_t plen = q ? (size_t)(q - raw.p) : raw.n;
	struct http_str query = {q ? q + 1 : "", q ? raw.n - plen - 1 : 0};
	_cleanup_wipe_ struct wiped rq = {0}, add = {0};
	int rc = append_target(b, (struct http_str){raw.p, plen});
	if (rc == 0)
		rc = creds_rewrite_query(cs, v->inject, query, &rq.p, &rq.len, done) < 0 ? -ENOMEM
		                                                                         : 0;
	if (rc == 0)
		rc = creds_added_query(cs, v->inject, query, &add.p, &add.len, done);
	if (rc == 0 && (q || add.len))
		rc = buf_append(b, "?", 1);
	if (rc == 0)
		rc = buf_append(b, rq.p ? rq.p : query.p, rq.p ? rq.len : query.n);
	if (rc == 0 && add.len)
		rc = buf_append(b, add.p, add.len);
	return rc;
}

/* The request's headers with the bindings' placeholders replaced and what `add`
 * says added; an oauth exchange (body_len >= 0) gets its new body's length and
 * asks for an answer it can read (no compression). */
static int write_request_headers(struct conn *c, struct buf *b, const struct http_msg *m,
                                 const struct creds_verdict *v, uint64_t *done, long long body_len)
{
	const struct creds *cs = c->px->creds;
	uint64_t present = 0;
	int rc = 0;
	for (size_t i = 0; i < m->n_headers && rc == 0; i++) {
		const struct http_header *h = &m->headers[i];
		if (hop_by_hop(m, h->name))
			continue;
		if (body_len >= 0 && (http_str_ieq(h->name, "content-length") ||
		                      http_str_ieq(h->name, "accept-encoding")))
			continue;
		_cleanup_wipe_ struct wiped val = {0};
		if (v->inject) {
			present |= creds_header_owner(cs, v->inject, h->name);
			if (creds_rewrite_header(cs, v->inject, h->name, h->value, &val.p, &val.len,
			                         done) < 0)
				return -ENOMEM;
		}
		if (buf_append(b, h->name.p, h->name.n) < 0 || buf_append(b, ": ", 2) < 0 ||
		    buf_append(b, val.p ? val.p : h->value.p, val.p ? val.len : h->value.n) < 0 ||
		    buf_append(b, "\r\n", 2) < 0)
			rc = -ENOMEM;
	}
	_cleanup_wipe_ struct wiped add = {0};
	if (rc == 0 && v->inject)
		rc = creds_added_headers(cs, v->inject, present, &add.p, &add.len, done);
	if (rc == 0 && add.len)
		rc = buf_append(b, add.p, add.len);
	if (rc == 0 && body_len >= 0)
		rc = buf_printf(b, "Content-Length: %lld\r\nAccept-Encoding: identity\r\n",
		                body_len);
	return rc;
}

/* An oauth binding's token request, whole: 1 and out (the body to send, or
 * out->refused), 0: wait for the rest, -1: cannot take it. */
static int oauth_request(struct conn *c, const struct http_msg *m, const struct creds_verdict *v,
                         struct wiped *out)
{
	struct creds *cs = c->px->creds;
	if (m->body == HTTP_BODY_CHUNKED || m->expect_continue ||
	    m->content_length > OAUTH_BODY_MAX || m->head_len + m->content_length > BUF_SIZE)
		return -1;
	if (buf_avail(&c->c2u.in) < m->head_len + m->content_length)
		return 0;
	const char *body = c->c2u.in.data + c->c2u.in.off + m->head_len;
	struct guard_scan gs;
	guard_scan_init(&gs);
	guard_feed(cs->g, &gs, body, (size_t)m->content_length);
	if (creds_judge(cs, &gs, v->covered, v->tls, out->why, sizeof(out->why))) {
		out->refused = true;
		return 1;
	}
	int rc =
	    creds_oauth_request(cs, v->oauth, body, (size_t)m->content_length, &out->p, &out->len);
	if (rc < 0)
		return -1;
	c->oauth_refresh = rc > 0;
	return 1;
}

static void handle_connect(struct conn *c, const struct http_msg *m)
{
	struct http_target t;
	char host[HOST_MAX], hp[HOST_MAX + 16];
	bool is_ip;

	if (c->cli.ssl || http_parse_target(m->target, true, &t) < 0 ||
	    host_normalize(t.host.p, t.host.n, host, sizeof(host), &is_ip) < 0) {
		respond(c, 400, "Bad Request", "bad CONNECT target", false);
		return;
	}
	snprintf(hp, sizeof(hp), strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, t.port);
	if (c->px->creds) {
		/* Nothing of a credential in a tunnel's name either (it would be resolved). */
		struct creds_verdict cv;
		size_t line_len;
		const char *head = client_head(c, m, &line_len);
		creds_check_head(c->px->creds, head, m->head_len, line_len, host, NULL, 0, false,
		                 "CONNECT", &cv);
		if (cv.refuse) {
			deny(c, m, cv.in_target ? "(withheld)" : hp, "", cv.refuse);
			return;
		}
	}
	if (!netrules_domain_candidate(c->px->rules, host)) {
		deny(c, m, hp, "", netrules_reason(NETRULES_DENY_DOMAIN));
		return;
	}
	if (!netrules_host_port_allowed(c->px->rules, host, t.port)) {
		deny(c, m, hp, "", netrules_reason(NETRULES_DENY_PORT));
		return;
	}
	/* Bytes after the CONNECT head would have to be fed to TLS: clients wait. */
	if (buf_avail(&c->c2u.in) != m->head_len || m->body != HTTP_BODY_NONE) {
		respond(c, 400, "Bad Request", "data after CONNECT", false);
		return;
	}
	c->c2u.in.off += m->head_len;
	snprintf(c->tun_host, sizeof(c->tun_host), "%s", host);
	c->tun_port = t.port;
	c->tls_pending = true;
	if (buf_puts(&c->u2c.head, "HTTP/1.1 200 Connection established\r\n\r\n") < 0) {
		c->closing = true;
		return;
	}
}

static void handle_request(struct conn *c, const struct http_msg *m)
{
	struct http_target t;
	char host[HOST_MAX], hhost[HOST_MAX], hostlog[HOST_MAX + 16], pbuf[8];
	bool is_ip, h_ip, tls;
	uint16_t port;

	if (m->method.n >= sizeof(c->method)) {
		respond(c, 400, "Bad Request", "method too long", false);
		return;
	}
	memcpy(c->method, m->method.p, m->method.n);
	c->method[m->method.n] = '\0';
	if (strcmp(c->method, "CONNECT") == 0) {
		handle_connect(c, m);
		return;
	}
	if (http_parse_target(m->target, false, &t) < 0) {
		respond(c, 400, "Bad Request", "bad request target", false);
		return;
	}
	if (c->cli.ssl) {
		/* Inside a tunnel only the CONNECT host can be reached. */
		tls = true;
		port = c->tun_port;
		snprintf(host, sizeof(host), "%s", c->tun_host);
		if (t.scheme == HTTP_SCHEME_HTTP ||
		    (t.scheme == HTTP_SCHEME_HTTPS &&
		     (host_normalize(t.host.p, t.host.n, hhost, sizeof(hhost), &h_ip) < 0 ||
		      strcmp(hhost, host) != 0))) {
			respond(c, 421, "Misdirected Request", "target is not the tunnel's host",
			        false);
			return;
		}
	} else {
		if (t.scheme == HTTP_SCHEME_NONE) {
			respond(c, 403, "Forbidden",
			        "this is a proxy: requests need an absolute URI", false);
			return;
		}
		tls = t.scheme == HTTP_SCHEME_HTTPS;
		port = t.port;
		int rc = host_normalize(t.host.p, t.host.n, host, sizeof(host), &is_ip);
		if (rc < 0) {
			respond(c, 400, "Bad Request",
			        rc == -EILSEQ ? "host is not ASCII" : "bad host", false);
			return;
		}
	}
	/* The Host header must name what we dial, or origin and proxy disagree on it. */
	if (m->host.p) {
		struct http_str hh;
		uint16_t hport;
		if (http_split_authority(m->host, tls ? 443 : 80, &hh, &hport) < 0 ||
		    host_normalize(hh.p, hh.n, hhost, sizeof(hhost), &h_ip) < 0 ||
		    strcmp(hhost, host) != 0 || (!c->cli.ssl && hport != port)) {
			respond(c, 400, "Bad Request", "Host header does not match the target",
			        false);
			return;
		}
	}
	struct http_str rawpath = t.path.n ? t.path : (struct http_str){"/", 1};
	static struct netrules_paths paths; /* 32 KiB: not on the stack */
	int prc = netrules_path_readings(rawpath.p, rawpath.n, &paths);
	snprintf(hostlog, sizeof(hostlog), "%s%s%s%s", strchr(host, ':') ? "[" : "", host,
	         strchr(host, ':') ? "]" : "", default_port_str(port, tls, pbuf, sizeof(pbuf)));
	/* The guard first: a credential in the target must not reach a log line. */
	struct creds_verdict cv = {.oauth = -1};
	if (c->px->creds) {
		size_t line_len;
		const char *head = client_head(c, m, &line_len);
		creds_check_head(c->px->creds, head, m->head_len, line_len, host,
		                 prc == 0 ? paths.p : NULL, prc == 0 ? paths.n : 0, tls, c->method,
		                 &cv);
		if (cv.refuse) {
			if (cv.in_target)
				deny(c, m, "(withheld)", "", cv.refuse);
			else
				deny(c, m, hostlog, prc == 0 ? paths.p[0] : "/", cv.refuse);
			return;
		}
	}
	if (prc == -EILSEQ) {
		/* Logged as sent (the log escapes it), without the query. */
		const char *q = memchr(rawpath.p, '?', rawpath.n);
		size_t n = q ? (size_t)(q - rawpath.p) : rawpath.n;
		char raw[1024];
		snprintf(raw, sizeof(raw), "%.*s", (int)(n < sizeof(raw) ? n : sizeof(raw) - 1),
		         rawpath.p);
		plog_blocked(c->method, hostlog, raw, netrules_reason(NETRULES_DENY_AMBIGUOUS));
		respond(c, 400, "Bad Request", netrules_reason(NETRULES_DENY_AMBIGUOUS), false);
		return;
	}
	if (prc < 0) {
		respond(c, prc == -ENAMETOOLONG ? 414 : 400,
		        prc == -ENAMETOOLONG ? "URI Too Long" : "Bad Request", "bad request path",
		        false);
		return;
	}
	const char *path = paths.p[0];

	/* A body where the method has none (RFC 9110: no defined meaning on GET, HEAD,
	 * TRACE) is refused: an origin that ignores it would read it as the next
	 * request, one never checked. Other methods keep their bodies (DELETE and
	 * OPTIONS bodies are common in APIs), but unless the method is one whose body
	 * every server reads (POST, PUT, PATCH), the origin is told to close after it,
	 * so whatever it left unread is never parsed as a request. */
	bool body = m->body != HTTP_BODY_NONE;
	if (body && (strcmp(c->method, "GET") == 0 || strcmp(c->method, "HEAD") == 0 ||
	             strcmp(c->method, "TRACE") == 0)) {
		char why[64];
		snprintf(why, sizeof(why), "body on a %s request", c->method);
		plog_blocked(c->method, hostlog, path, why);
		respond(c, 400, "Bad Request", why, false);
		return;
	}
	c->up_once = body && strcmp(c->method, "POST") != 0 && strcmp(c->method, "PUT") != 0 &&
	             strcmp(c->method, "PATCH") != 0;

	struct netrules_decision d;
	netrules_decide(c->px->rules, host, c->method, &paths, port, m->websocket, &d);
	if (d.verdict != NETRULES_ALLOW) {
		deny(c, m, hostlog, path, netrules_reason(d.verdict));
		return;
	}

	/* An OAuth token exchange is read whole: its body carries the refresh token. */
	_cleanup_wipe_ struct wiped oauth_body = {0};
	if (cv.oauth >= 0) {
		int orc = oauth_request(c, m, &cv, &oauth_body);
		if (orc == 0) {
			c->head_wait = true; /* the rest of the body first */
			return;
		}
		if (orc < 0) {
			plog_blocked(c->method, hostlog, path,
			             "token request the proxy cannot read");
			respond(c, 400, "Bad Request", "token request the proxy cannot read",
			        false);
			return;
		}
		if (oauth_body.refused) {
			deny(c, m, hostlog, path, oauth_body.why);
			return;
		}
	}

	/* The request as the origin will see it, whole or not at all: a head missing a
	 * part (its request line, say) would be read as another request. An HTTP/1.0
	 * client cannot read chunked replies: ask as it asked. */
	struct buf *h = &c->c2u.head;
	int brc = buf_puts(h, c->method);
	if (brc == 0)
		brc = buf_puts(h, " ");
	uint64_t injected = 0;
	if (brc == 0)
		brc = cv.inject ? append_target_creds(c, h, rawpath, &cv, &injected)
		                : append_target(h, rawpath);
	if (brc == 0)
		brc = buf_printf(h, " HTTP/1.%d\r\n", m->minor);
	if (brc == 0 && !m->host.p)
		brc = buf_printf(h, "Host: %s\r\n", hostlog);
	if (brc == 0)
		brc = cv.inject || cv.oauth >= 0
		          ? write_request_headers(c, h, m, &cv, &injected,
		                                  cv.oauth >= 0 ? (long long)oauth_body.len : -1)
		          : write_headers(h, m);
	if (brc == 0 && c->up_once)
		brc = buf_puts(h, "Connection: close\r\n");
	if (brc == 0 && m->websocket)
		brc = buf_puts(h, "Connection: Upgrade\r\nUpgrade: websocket\r\n");
	if (brc == 0)
		brc = buf_puts(h, "\r\n");
	if (brc == 0 && cv.oauth >= 0) {
		brc = buf_append(h, oauth_body.p, oauth_body.len);
		injected |= 1ull << cv.oauth;
	}
	if (brc < 0) {
		buf_release(h);
		plog_info("cannot build the request to %s: %s", hostlog, strerror(-brc));
		respond(c, 502, "Bad Gateway", "cannot build the request", false);
		return;
	}
	if (m->websocket)
		plog_upgrade(c->method, hostlog, path);
	else
		plog_allowed(c->method, hostlog, path);
	for (size_t i = 0; injected && i < c->px->creds->n; i++)
		if (injected & (1ull << i))
			plog_injected(creds_name(c->px->creds, (int)i), c->method, hostlog, path);
	c->injected = injected != 0;
	free(c->req_path);
	c->req_path = strdup(path);
	free(c->req_host);
	c->req_host = strdup(hostlog);

	c->c2u.in.off += m->head_len;
	if (cv.oauth >= 0) {
		/* The body went into the head, rewritten. */
		c->c2u.in.off += m->content_length;
		flow_reset_body(&c->c2u, F_NONE, 0);
	} else {
		flow_reset_body(&c->c2u,
		                m->body == HTTP_BODY_CHUNKED  ? F_CHUNKED
		                : m->body == HTTP_BODY_LENGTH ? F_LENGTH
		                                              : F_NONE,
		                m->content_length);
	}
	c->oauth = cv.oauth;
	if (c->px->creds && c->px->creds->any && m->body != HTTP_BODY_NONE && cv.oauth < 0) {
		struct flow *f = &c->c2u;
		f->scan = guard_ref(c->px->creds->g);
		guard_scan_init(&f->gs);
		f->hold = guard_max_len(f->scan) ? guard_max_len(f->scan) - 1 : 0;
		f->ph_ok = creds_body_ok(&cv);
		c->cr_covered = cv.covered;
		c->cr_tls = cv.tls;
	}
	c->req_head = strcmp(c->method, "HEAD") == 0;
	c->req_ws = m->websocket;
	c->close_after = !m->keep_alive;
	c->client_minor = m->minor;
	c->resp_started = false;
	flow_reset_body(&c->u2c, F_NONE, 0);
	c->rstate = R_BODY;
	c->sstate = S_HEAD;

	/* A kept-alive server is reused only if this request could have dialled it: same
	 * host, port and scheme, and allow_private where its address needed it (the
	 * decision may come from another entry than the one it was dialled for). */
	if (c->ustate != U_NONE && c->up_reusable && !c->up.eof && c->up_port == port &&
	    c->up_tls == tls && strcmp(c->up_host, host) == 0 &&
	    (!c->up_private || d.allow_private)) {
		c->allow_private = d.allow_private;
		return;
	}
	close_upstream(c);
	snprintf(c->up_host, sizeof(c->up_host), "%s", host);
	c->up_port = c->dial_port = port;
	c->up_tls = tls;
	c->allow_private = d.allow_private;
	start_upstream(c);
}

static bool step_request(struct conn *c)
{
	struct http_msg m;

	if (c->closing || c->tls_pending || c->cli.handshaking || c->rstate != R_HEAD ||
	    c->sstate != S_IDLE || !flow_flushed(&c->u2c) || buf_avail(&c->c2u.in) == 0)
		return false;
	int rc = http_parse_request(c->c2u.in.data + c->c2u.in.off, buf_avail(&c->c2u.in), &m);
	if (rc == 0)
		return false;
	if (rc == -EMSGSIZE)
		respond(c, 431, "Request Header Fields Too Large", "request head too large", false);
	else if (rc < 0)
		respond(c, 400, "Bad Request", "malformed request", false);
	else
		handle_request(c, &m);
	if (c->head_wait) {
		c->head_wait = false;
		return false; /* nothing consumed: more bytes first */
	}
	return true;
}

/* ---- the upstream side ---- */

static bool is_self(struct conn *c, const struct host_addr *a, uint16_t port, bool local)
{
	struct host_addr self;
	const struct sockaddr *sa = (const struct sockaddr *)&c->px->self;
	if (host_addr_from_sockaddr(sa, &self) < 0)
		return false;
	uint16_t sport = ntohs(sa->sa_family == AF_INET
	                           ? ((const struct sockaddr_in *)(const void *)sa)->sin_port
	                           : ((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	if (sport != port)
		return false;
	enum addr_class ac = host_addr_classify(a);
	/* A wildcard listener answers on every local address: the host's own too. */
	if (host_addr_classify(&self) == ADDR_UNSPECIFIED)
		return ac == ADDR_LOOPBACK || ac == ADDR_UNSPECIFIED || local;
	if (self.family != a->family)
		return false;
	return self.family == AF_INET ? self.v4.s_addr == a->v4.s_addr
	                              : memcmp(&self.v6, &a->v6, sizeof(self.v6)) == 0;
}

static void try_connect(struct conn *c)
{
	while (c->next_addr < c->n_addrs) {
		int fd;
		c->up_private = c->addr_private[c->next_addr];
		if (upstream_connect(&c->addrs[c->next_addr++], c->dial_port,
		                     c->px->upstream_sockbuf, &fd) < 0)
			continue;
		c->up.fd = fd;
		ev_io_set(&c->up.io, fd, 0);
		c->up.events = 0;
		c->ustate = U_CONNECTING;
		return;
	}
	plog_info("cannot connect to %s port %u", c->up_host, c->up_port);
	fail_exchange(c, 502, "Bad Gateway", "cannot connect to the server");
}

/* Only the addresses the rules allow are dialled: the ones we checked. The host's
 * own addresses count as loopback (hostaddr.h); when the routing table cannot be
 * asked, an address counts as the host's. */
static void got_addrs(struct conn *c, const struct host_addr *addrs, size_t n)
{
	enum netrules_verdict why = NETRULES_DENY_PRIVATE;

	c->n_addrs = c->next_addr = 0;
	for (size_t i = 0; i < n; i++) {
		bool local = false, private = host_addr_classify(&addrs[i]) != ADDR_PUBLIC;
		int lrc = private ? 0 : hostaddr_is_local(&addrs[i]);
		if (lrc < 0)
			plog_info("cannot ask the routing table about an address of %s (%s): it "
			          "counts as the host's own",
			          c->up_host, strerror(-lrc));
		if (lrc != 0) {
			private = local = true;
			why = NETRULES_DENY_HOST;
		}
		if (private && !c->allow_private)
			continue;
		if (is_self(c, &addrs[i], c->dial_port, local))
			continue;
		c->addr_private[c->n_addrs] = private;
		c->addrs[c->n_addrs++] = addrs[i];
	}
	if (c->n_addrs == 0) {
		char pbuf[8], hostlog[HOST_MAX + 16];
		snprintf(hostlog, sizeof(hostlog), "%s%s%s%s", strchr(c->up_host, ':') ? "[" : "",
		         c->up_host, strchr(c->up_host, ':') ? "]" : "",
		         default_port_str(c->up_port, c->up_tls, pbuf, sizeof(pbuf)));
		plog_blocked(c->method, hostlog, c->req_path ? c->req_path : "",
		             netrules_reason(why));
		fail_exchange(c, 403, "Forbidden", netrules_reason(why));
		return;
	}
	try_connect(c);
}

static void dns_done(void *arg, int err, const struct host_addr *addrs, size_t n)
{
	struct conn *c = arg;
	c->dns = NULL;
	if (err < 0) {
		plog_info("cannot resolve %s", c->up_host);
		fail_exchange(c, 502, "Bad Gateway", "cannot resolve the host name");
	} else {
		got_addrs(c, addrs, n);
	}
	drive(c);
}

static void start_upstream(struct conn *c)
{
	struct host_addr a[UPSTREAM_MAX_ADDRS];
	size_t n;

	if (host_parse_ip(c->up_host, &a[0]) == 1) {
		got_addrs(c, a, 1);
		return;
	}
	uint16_t moved = 0;
	n = hosts_lookup(c->px->hosts, c->up_host, a, UPSTREAM_MAX_ADDRS, &moved);
	if (moved)
		c->dial_port = moved;
	if (n) {
		got_addrs(c, a, n);
		return;
	}
	c->ustate = U_RESOLVING;
	if (dns_start(c->up_host, dns_done, c, &c->dns) < 0) {
		c->ustate = U_NONE;
		fail_exchange(c, 503, "Service Unavailable", "resolver busy");
	}
}

static bool step_upstream_setup(struct conn *c)
{
	if (c->ustate == U_CONNECTING) {
		int rc = upstream_connect_result(c->up.fd);
		if (rc == 0) {
			/* not yet connected? SO_ERROR is 0 too: probe with a zero write */
			struct sockaddr_storage ss;
			socklen_t l = sizeof(ss);
			if (getpeername(c->up.fd, (struct sockaddr *)&ss, &l) < 0)
				return false;
			c->up.wr_ready = true;
		} else {
			side_close(c->px->loop, &c->up);
			c->ustate = U_NONE;
			try_connect(c);
			return true;
		}
		if (c->up_tls) {
			if (proxy_tls_ctxs(c->px) < 0 ||
			    upstream_tls_new(c->px->client_ctx, c->up.fd, c->up_host, &c->up.ssl) <
			        0) {
				fail_exchange(c, 502, "Bad Gateway", "TLS setup failed");
				return true;
			}
			c->up.handshaking = true;
			c->ustate = U_HANDSHAKE;
		} else {
			c->ustate = U_READY;
			c->up_reusable = true;
		}
		return true;
	}
	if (c->ustate == U_HANDSHAKE) {
		int rc = side_handshake(&c->up);
		if (rc == 0)
			return false;
		if (rc < 0) {
			long v = SSL_get_verify_result(c->up.ssl);
			plog_info("TLS to %s failed: %s", c->up_host,
			          v != X509_V_OK ? X509_verify_cert_error_string(v)
			                         : "handshake error");
			fail_exchange(c, 502, "Bad Gateway",
			              v != X509_V_OK ? "upstream certificate not trusted"
			                             : "upstream TLS handshake failed");
			return true;
		}
		c->ustate = U_READY;
		c->up_reusable = true;
		return true;
	}
	return false;
}

/* ---- responses ---- */

static void collect(void *arg, const char *p, size_t n)
{
	struct wiped *w = arg;
	if (w->refused || w->len + n > BUF_SIZE) {
		w->refused = true;
		return;
	}
	memcpy(w->p + w->len, p, n);
	w->len += n;
}

/* The answer to an oauth token request, whole: the tokens it brings are kept by
 * the proxy and the agent gets placeholders (creds_oauth_response). */
static bool oauth_response(struct conn *c, const struct http_msg *m)
{
	struct flow *f = &c->u2c;
	const char *base = f->in.data + f->in.off;
	size_t avail = buf_avail(&f->in), raw = 0;
	_cleanup_wipe_ struct wiped body = {0}, out = {0};
	int brc = 0;
	const char *why = NULL;
	for (size_t i = 0; i < m->n_headers; i++)
		if (http_str_ieq(m->headers[i].name, "content-encoding") &&
		    !http_str_ieq(m->headers[i].value, "identity"))
			why = "a compressed token response";
	if (why)
		goto fail;
	if (m->body != HTTP_BODY_NONE && !(body.p = malloc(BUF_SIZE)))
		goto fail;
	if (m->body == HTTP_BODY_LENGTH) {
		if (m->head_len + m->content_length > BUF_SIZE) {
			why = "a token response too large";
			goto fail;
		}
		if (avail < m->head_len + m->content_length)
			return false;
		raw = (size_t)m->content_length;
		memcpy(body.p, base + m->head_len, raw);
		body.len = raw;
	} else if (m->body == HTTP_BODY_CHUNKED) {
		struct http_chunked ch = {0};
		int rc = http_chunked_scan_data(&ch, base + m->head_len, avail - m->head_len, &raw,
		                                collect, &body);
		if (rc < 0 || body.refused) {
			why = "a token response it cannot read";
			goto fail;
		}
		if (rc == 0) {
			if (f->in.len == f->in.cap && f->in.off == 0) {
				why = "a token response too large";
				goto fail;
			}
			return false;
		}
	} else if (m->body == HTTP_BODY_CLOSE) {
		why = "a token response without a length";
		goto fail;
	}
	if (m->status / 100 == 2 && body.len) {
		if (creds_oauth_response(c->px->creds, c->oauth, c->oauth_refresh, body.p, body.len,
		                         &out.p, &out.len) < 0) {
			why = "a token response it cannot read";
			goto fail;
		}
	} else if (body.len) {
		out = body;
		body = (struct wiped){0};
	}
	const char *line_end = memchr(base, '\r', m->head_len);
	bool close = c->close_after || !m->keep_alive;
	struct buf *h = &f->head;
	brc = buf_printf(h, "HTTP/1.1%.*s\r\n", (int)(line_end - base - 8), base + 8);
	for (size_t i = 0; brc == 0 && i < m->n_headers; i++) {
		const struct http_header *hd = &m->headers[i];
		if (hop_by_hop(m, hd->name) || http_str_ieq(hd->name, "content-length") ||
		    http_str_ieq(hd->name, "transfer-encoding"))
			continue;
		brc = buf_printf(h, "%.*s: %.*s\r\n", (int)hd->name.n, hd->name.p, (int)hd->value.n,
		                 hd->value.p);
	}
	if (brc == 0)
		brc = buf_printf(h, "Content-Length: %zu\r\n%s\r\n", out.len,
		                 close                  ? "Connection: close\r\n"
		                 : c->client_minor == 0 ? "Connection: keep-alive\r\n"
		                                        : "");
	if (brc == 0 && out.len)
		brc = buf_append(h, out.p, out.len);
	if (brc < 0) {
		buf_release(h);
		why = "out of memory";
		goto fail;
	}
	/* The real tokens do not stay in the buffer either. */
	explicit_bzero(f->in.data + f->in.off + m->head_len, raw);
	f->in.off += m->head_len + raw;
	c->resp_started = true;
	c->close_after = close;
	c->up_reusable = m->keep_alive && !c->up_once;
	flow_reset_body(f, F_NONE, 0);
	c->sstate = S_BODY;
	c->oauth = -1;
	return true;
fail:
	plog_info("credential %s: %s from %s", creds_name(c->px->creds, c->oauth),
	          why ? why : "cannot take the token response", c->up_host);
	c->close_after = true;
	c->oauth = -1;
	fail_exchange(c, 502, "Bad Gateway", "cannot read the token response");
	return true;
}

static bool step_response(struct conn *c)
{
	struct http_msg m;
	struct flow *f = &c->u2c;

	if (c->sstate != S_HEAD || c->ustate != U_READY || buf_avail(&f->in) == 0 || f->pass)
		return false;
	int rc = http_parse_response(f->in.data + f->in.off, buf_avail(&f->in), c->req_head, &m);
	if (rc == 0)
		return false;
	if (rc < 0) {
		plog_info("bad response from %s", c->up_host);
		c->close_after = true;
		fail_exchange(c, 502, "Bad Gateway", "malformed response from the server");
		return true;
	}
	struct buf *h = &f->head;
	bool upgrade = m.status == 101;
	if (upgrade && !(c->req_ws && m.websocket && c->c2u.done)) {
		c->close_after = true;
		fail_exchange(c, 502, "Bad Gateway", "unexpected protocol switch");
		return true;
	}
	if (!upgrade && m.status < 200) { /* 100 Continue and friends pass through */
		if (buf_append(h, f->in.data + f->in.off, m.head_len) < 0) {
			c->close_after = true;
			buf_release(h);
			fail_exchange(c, 502, "Bad Gateway", "cannot pass the response on");
			return true;
		}
		f->in.off += m.head_len;
		return true;
	}
	if (c->oauth >= 0)
		return oauth_response(c, &m);
	/* Whole or not at all, as for requests. */
	const char *line_end = memchr(f->in.data + f->in.off, '\r', m.head_len);
	bool close = c->close_after || m.body == HTTP_BODY_CLOSE;
	int brc = buf_printf(h, "HTTP/1.1%.*s\r\n", (int)(line_end - (f->in.data + f->in.off) - 8),
	                     f->in.data + f->in.off + 8);
	if (brc == 0)
		brc = write_headers(h, &m);
	if (brc == 0)
		brc = buf_puts(h, upgrade ? "Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
		                  : close ? "Connection: close\r\n\r\n"
		                  : c->client_minor == 0 ? "Connection: keep-alive\r\n\r\n"
		                                         : "\r\n");
	if (brc < 0) {
		c->close_after = true;
		buf_release(h);
		fail_exchange(c, 502, "Bad Gateway", "cannot pass the response on");
		return true;
	}
	c->resp_started = true;
	c->close_after = close;
	c->up_reusable = m.keep_alive && m.body != HTTP_BODY_CLOSE && !c->up_once;
	f->in.off += m.head_len;
	if (upgrade) {
		c->sstate = S_TUNNEL;
		c->rstate = R_TUNNEL;
		c->up_reusable = false;
		flow_reset_body(f, F_UNTIL_EOF, 0);
		flow_reset_body(&c->c2u, F_UNTIL_EOF, 0);
		return true;
	}
	flow_reset_body(f,
	                m.body == HTTP_BODY_CHUNKED  ? F_CHUNKED
	                : m.body == HTTP_BODY_LENGTH ? F_LENGTH
	                : m.body == HTTP_BODY_CLOSE  ? F_UNTIL_EOF
	                                             : F_NONE,
	                m.content_length);
	c->sstate = S_BODY;
	return true;
}

/* ---- moving bytes ---- */

static bool can_splice(const struct flow *f, const struct side *src, const struct side *dst)
{
	return !src->ssl && !dst->ssl && dst->fd >= 0 && !f->done && !f->scan &&
	       buf_avail(&f->in) == 0 &&
	       (f->mode == F_UNTIL_EOF || (f->mode == F_LENGTH && f->left > 0));
}

/* >0 progress, 0 none, -1 source ended (EOF or error) */
static int flow_fill(struct conn *c, struct flow *f, struct side *src, struct side *dst)
{
	if (can_splice(f, src, dst)) {
		if (f->pipe[0] < 0) {
			if (pipe2(f->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
				goto copy; /* out of fds: the buffer still works */
			fcntl(f->pipe[1], F_SETPIPE_SZ, PIPE_SIZE);
		}
		if (f->piped >= PIPE_SIZE / 2 || !src->rd_ready)
			return 0;
		size_t want =
		    f->mode == F_LENGTH && f->left < PIPE_SIZE ? (size_t)f->left : PIPE_SIZE;
		ssize_t n = splice(src->fd, NULL, f->pipe[1], NULL, want,
		                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			f->piped += (size_t)n;
			if (f->mode == F_LENGTH) {
				f->left -= (uint64_t)n;
				f->done = f->left == 0;
			}
			return 1;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			src->rd_ready = false; /* the pipe has room: the socket is empty */
			return 0;
		}
		return -1;
	}
copy:
	if (inbuf_get(&f->in) < 0)
		return 0;
	if (f->in.len == f->in.cap && f->in.off > 0) {
		memmove(f->in.data, f->in.data + f->in.off, buf_avail(&f->in));
		f->in.len -= f->in.off;
		f->in.off = 0;
	}
	if (f->in.len == f->in.cap)
		return 0;
	ssize_t n = side_read(src, f->in.data + f->in.len, f->in.cap - f->in.len);
	if (n > 0) {
		f->in.len += (size_t)n;
		return 1;
	}
	return n < 0 ? -1 : 0;
}

/* >0 progress, 0 none, -1 sink failed */
static int flow_flush(struct flow *f, struct side *dst)
{
	int progress = 0;
	ssize_t n;

	if (!dst->ssl && buf_avail(&f->head) && f->pass && dst->wr_ready) {
		/* A small response goes out as one segment with one system call. */
		struct iovec iov[2] = {
		    {f->head.data + f->head.off, buf_avail(&f->head)},
		    {f->in.data + f->in.off, f->pass},
		};
		n = writev(dst->fd, iov, 2);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n < 0) {
			dst->wr_ready = false;
			return 0;
		}
		size_t h = (size_t)n < iov[0].iov_len ? (size_t)n : iov[0].iov_len;
		f->head.off += h;
		f->in.off += (size_t)n - h;
		f->pass -= (size_t)n - h;
		progress = 1;
	}
	while (buf_avail(&f->head)) {
		n = side_write(dst, f->head.data + f->head.off, buf_avail(&f->head));
		if (n <= 0)
			return n < 0 ? -1 : progress;
		f->head.off += (size_t)n;
		progress = 1;
	}
	if (f->head.data)
		buf_release(&f->head);
	while (f->pass) {
		n = side_write(dst, f->in.data + f->in.off, f->pass);
		if (n <= 0)
			return n < 0 ? -1 : progress;
		f->in.off += (size_t)n;
		f->pass -= (size_t)n;
		progress = 1;
	}
	if (buf_avail(&f->in) == 0)
		f->in.off = f->in.len = 0;
	while (f->piped && dst->wr_ready) {
		n = splice(f->pipe[0], NULL, dst->fd, NULL, f->piped,
		           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			dst->wr_ready = false;
			return progress;
		}
		if (n <= 0)
			return -1;
		f->piped -= (size_t)n;
		progress = 1;
	}
	return progress;
}

static bool cli_ready(const struct conn *c)
{
	return c->cli.fd >= 0 && !c->cli.handshaking && !c->tls_pending;
}

/* What the client direction wants to read now. */
static bool want_client_read(const struct conn *c)
{
	if (c->closing || !cli_ready(c) || c->cli.eof)
		return false;
	switch (c->rstate) {
	case R_HEAD:
		return c->c2u.in.len < BUF_SIZE || c->c2u.in.off > 0 || !c->c2u.in.data;
	case R_BODY:
	case R_TUNNEL:
		return !c->c2u.done && c->c2u.pass == 0 && c->c2u.piped < PIPE_SIZE / 2;
	case R_DONE:
		return false;
	}
	return false;
}

static bool want_up_read(const struct conn *c)
{
	if (c->closing || c->ustate != U_READY || c->up.eof)
		return false;
	if (c->sstate == S_IDLE)
		return true; /* notice a server closing an idle kept-alive connection */
	if (c->sstate == S_HEAD)
		return c->u2c.in.len < BUF_SIZE || c->u2c.in.off > 0 || !c->u2c.in.data;
	return !c->u2c.done && c->u2c.pass == 0 && c->u2c.piped < PIPE_SIZE / 2;
}

static bool abort_conn(struct conn *c)
{
	conn_free(c);
	return false;
}

/* Source EOF handling; false when the connection is gone. */
static bool client_ended(struct conn *c)
{
	c->cli.eof = true;
	if (c->rstate == R_TUNNEL) {
		c->c2u.done = true;
		c->closing = true;
		return true;
	}
	if (c->rstate == R_HEAD && c->sstate == S_IDLE) {
		c->closing = true; /* the client is done; flush what it is owed */
		return true;
	}
	return abort_conn(c);
}

static bool upstream_ended(struct conn *c)
{
	c->up.eof = true;
	c->up_reusable = false;
	switch (c->sstate) {
	case S_IDLE:
		close_upstream(c);
		return true;
	case S_HEAD:
		c->close_after = true;
		fail_exchange(c, 502, "Bad Gateway", "the server closed the connection");
		return true;
	case S_BODY:
		if (c->u2c.mode == F_UNTIL_EOF) {
			flow_approve(&c->u2c);
			c->u2c.done = true;
			c->close_after = true;
			return true;
		}
		return abort_conn(c);
	case S_TUNNEL:
		flow_approve(&c->u2c);
		c->u2c.done = true;
		c->closing = true;
		return true;
	}
	return true;
}

/* The guard found, in a body being forwarded, what must not leave: nothing more of
 * it goes (what the server got so far ends before the match); the server is
 * dropped and the client told, or cut off when its answer had begun. */
static bool refuse_body(struct conn *c, bool *progress)
{
	char buf[160];
	const char *why =
	    creds_judge(c->px->creds, &c->c2u.gs, c->cr_covered, c->cr_tls, buf, sizeof(buf));
	plog_blocked(c->method, c->req_host ? c->req_host : "?", c->req_path ? c->req_path : "",
	             why ? why : "credential");
	c->close_after = true;
	if (c->resp_started)
		return abort_conn(c);
	fail_exchange(c, 403, "Forbidden", why ? why : "credential");
	flow_reset_body(&c->c2u, F_NONE, 0);
	*progress = true;
	return true;
}

/* One pass over everything that can move; false when the connection is gone. */
static bool step(struct conn *c, bool *progress)
{
	int r;

	if (c->cli.handshaking) {
		r = side_handshake(&c->cli);
		if (r < 0)
			return abort_conn(c);
		*progress |= r > 0;
	}
	if (want_client_read(c)) {
		r = flow_fill(c, &c->c2u, &c->cli, &c->up);
		if (r < 0) /* go round again: a client gone while idle is freed at once */
			return client_ended(c) && (*progress = true);
		*progress |= r > 0;
	}
	*progress |= step_request(c);
	if (c->rstate == R_BODY || c->rstate == R_TUNNEL) {
		if (flow_approve(&c->c2u) < 0)
			return abort_conn(c);
		if (c->c2u.refused && !c->discard)
			return refuse_body(c, progress);
	}
	if (c->discard) {
		c->c2u.in.off += c->c2u.pass;
		c->c2u.pass = 0;
		if (c->c2u.done) {
			c->discard = false;
			c->rstate = R_HEAD;
			*progress = true;
		}
	}
	if (c->lingering) {
		char sink[4096];
		ssize_t n = read(c->cli.fd, sink, sizeof(sink));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return abort_conn(c);
		return true;
	}
	*progress |= step_upstream_setup(c);
	if (c->ustate == U_READY && !c->closing) {
		r = flow_flush(&c->c2u, &c->up);
		if (r < 0)
			return abort_conn(c);
		*progress |= r > 0;
	}
	if (c->rstate == R_BODY && flow_complete(&c->c2u)) {
		c->rstate = R_DONE;
		*progress = true;
	}
	if (want_up_read(c)) {
		r = flow_fill(c, &c->u2c, &c->up, &c->cli);
		if (r < 0)
			return upstream_ended(c) && (*progress = true);
		*progress |= r > 0;
		if (r > 0 && c->sstate == S_IDLE) { /* bytes nobody asked for */
			close_upstream(c);
			*progress = true;
		}
	}
	*progress |= step_response(c);
	if (c->sstate == S_BODY || c->sstate == S_TUNNEL) {
		if (flow_approve(&c->u2c) < 0)
			return abort_conn(c);
	}
	if (c->cli.fd >= 0 && !c->cli.handshaking) {
		r = flow_flush(&c->u2c, &c->cli);
		if (r < 0)
			return abort_conn(c);
		*progress |= r > 0;
	}
	if (c->tls_pending && flow_flushed(&c->u2c)) {
		/* "200 Connection established" is out: the client starts TLS now. */
		c->tls_pending = false;
		if (proxy_tls_ctxs(c->px) < 0)
			return abort_conn(c);
		c->cli.ssl = SSL_new(c->px->server_ctx);
		if (!c->cli.ssl || SSL_set_fd(c->cli.ssl, c->cli.fd) != 1 ||
		    tls_ca_use_leaf(c->px->ca, c->cli.ssl, c->tun_host) < 0)
			return abort_conn(c);
		SSL_set_accept_state(c->cli.ssl);
		c->cli.handshaking = true;
		*progress = true;
	}
	if (c->sstate == S_BODY && flow_complete(&c->u2c)) {
		/* The response is delivered. Bytes the server sent beyond it would be
		 * taken for the next response: such a server is not reused. */
		c->sstate = S_IDLE;
		if (!c->up_reusable || buf_avail(&c->u2c.in))
			close_upstream(c);
		if (c->close_after || c->rstate != R_DONE)
			c->closing = true;
		else
			c->rstate = R_HEAD;
		*progress = true;
	}
	if (c->closing && flow_flushed(&c->u2c)) {
		/* Everything owed to the client is out. Closing with unread input would
		 * reset the connection and could destroy the response in flight. */
		if (c->cli.ssl || c->cli.eof || c->cli.fd < 0)
			return abort_conn(c);
		shutdown(c->cli.fd, SHUT_WR);
		close_upstream(c);
		c->lingering = true;
		*progress = true;
	}
	return true;
}

static void release_idle_memory(struct conn *c)
{
	if (c->rstate != R_HEAD || c->sstate != S_IDLE)
		return;
	if (c->c2u.in.data && buf_avail(&c->c2u.in) == 0)
		inbuf_put(&c->c2u.in);
	if (c->u2c.in.data && buf_avail(&c->u2c.in) == 0)
		inbuf_put(&c->u2c.in);
	flow_close_pipe(&c->c2u);
	flow_close_pipe(&c->u2c);
}

static void update_timer(struct conn *c, bool activity)
{
	struct proxy *px = c->px;
	enum tkind k;
	double t;

	if (c->closing) {
		k = T_CLOSING, t = 5;
	} else if (c->ustate == U_RESOLVING || c->ustate == U_CONNECTING ||
	           c->ustate == U_HANDSHAKE) {
		k = T_CONNECT, t = px->connect_timeout;
	} else if (c->rstate == R_HEAD && c->sstate == S_IDLE && !c->cli.handshaking &&
	           !c->tls_pending) {
		bool partial = buf_avail(&c->c2u.in) > 0;
		k = partial ? T_HEADER : T_IDLE;
		t = partial ? px->header_timeout : px->idle_timeout;
	} else if (c->cli.handshaking) {
		k = T_HEADER, t = px->header_timeout;
	} else {
		k = T_IO, t = px->io_timeout;
	}
	/* Header and handshake deadlines do not move with trickling bytes (slowloris). */
	if (k != c->tkind || (activity && (k == T_IO || k == T_IDLE))) {
		c->tkind = k;
		c->timer.repeat = t;
		ev_timer_again(px->loop, &c->timer);
	}
}

static void update_events(struct conn *c)
{
	struct ev_loop *loop = c->px->loop;
	int ce = 0, ue = 0;

	if (c->lingering) {
		side_set_events(loop, &c->cli, EV_READ);
		return;
	}

	if (c->cli.handshaking) {
		ce = c->cli.hs_want;
	} else {
		bool cw = !flow_flushed(&c->u2c);
		if (want_client_read(c))
			ce |= c->cli.r_needs_w ? EV_WRITE : EV_READ;
		if (cw)
			ce |= c->cli.w_needs_r ? EV_READ : EV_WRITE;
	}
	if (c->ustate == U_CONNECTING) {
		ue = EV_WRITE;
	} else if (c->ustate == U_HANDSHAKE) {
		ue = c->up.hs_want;
	} else if (c->ustate == U_READY) {
		if (want_up_read(c))
			ue |= c->up.r_needs_w ? EV_WRITE : EV_READ;
		if (!flow_flushed(&c->c2u))
			ue |= c->up.w_needs_r ? EV_READ : EV_WRITE;
	}
	side_set_events(loop, &c->cli, ce);
	side_set_events(loop, &c->up, ue);
}

static void drive(struct conn *c)
{
	bool progress, any = false;
	int rounds = 0;

	do {
		progress = false;
		if (!step(c, &progress))
			return; /* freed */
		any |= progress;
	} while (progress && ++rounds < 64); /* yield to other connections now and then */
	release_idle_memory(c);
	update_timer(c, any);
	update_events(c);
	if (progress) /* more to do: come back on the next loop iteration */
		ev_feed_event(c->px->loop, &c->timer, EV_CUSTOM);
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct conn *c = w->data;
	struct side *s = w == &c->cli.io ? &c->cli : &c->up;
	if (revents & EV_READ)
		s->rd_ready = true;
	if (revents & EV_WRITE)
		s->wr_ready = true;
	drive(c);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct conn *c = w->data;

	if (revents & EV_CUSTOM) {
		drive(c);
		return;
	}
	switch (c->tkind) {
	case T_HEADER:
		if (!c->cli.handshaking && !c->cli.ssl) {
			c->tkind = T_NONE;
			respond(c, 408, "Request Timeout", "request head timed out", false);
			inbuf_put(&c->c2u.in);
			drive(c);
			return;
		}
		break;
	case T_CONNECT:
		if (c->sstate == S_HEAD && !c->resp_started) {
			c->tkind = T_NONE;
			c->close_after = true;
			fail_exchange(c, 504, "Gateway Timeout",
			              "connecting to the server timed out");
			drive(c);
			return;
		}
		break;
	case T_IO:
		if (c->sstate == S_HEAD && !c->resp_started && flow_complete(&c->c2u)) {
			c->tkind = T_NONE;
			c->close_after = true;
			fail_exchange(c, 504, "Gateway Timeout", "the server did not answer");
			drive(c);
			return;
		}
		break;
	default:
		break;
	}
	conn_free(c);
}

/* ---- accepting ---- */

/* Over the limit: say so and close. What the client already sent is read first,
 * so closing sends a FIN rather than a reset that could destroy the answer. */
static void refuse_conn(struct proxy *px, int fd)
{
	char body[128], resp[512], sink[4096];
	int bn = snprintf(body, sizeof(body),
	                  "too many connections: this proxy serves %zu at once\n", px->max_conns);
	int n = snprintf(resp, sizeof(resp),
	                 "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
	                 "Content-Length: %d\r\nX-Proxy-Error: too many connections\r\n"
	                 "Connection: close\r\n\r\n%s",
	                 bn, body);
	for (int i = 0; i < 16 && read(fd, sink, sizeof(sink)) > 0; i++)
		;
	ssize_t w = send(fd, resp, (size_t)n, MSG_NOSIGNAL);
	(void)w;
	shutdown(fd, SHUT_WR);
	close(fd);
	plog_info("refused a connection: %zu are open, the limit (--max-conns)", px->max_conns);
}

static void on_accept_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct proxy *px = w->data;
	ev_io_start(loop, &px->listen_io);
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct proxy *px = w->data;

	for (int i = 0; i < 64; i++) {
		int fd = accept4(px->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* The listener stays readable: without a pause this spins. */
				plog_info("out of file descriptors; accepting again in 0.5 s");
				ev_io_stop(loop, &px->listen_io);
				ev_timer_set(&px->accept_retry, 0.5, 0);
				ev_timer_start(loop, &px->accept_retry);
			}
			return;
		}
		if (px->n_conns >= px->max_conns) {
			refuse_conn(px, fd);
			continue;
		}
		struct conn *c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->px = px;
		c->cli.fd = fd;
		c->cli.rd_ready = c->cli.wr_ready = true;
		c->up.fd = -1;
		c->c2u.pipe[0] = c->c2u.pipe[1] = c->u2c.pipe[0] = c->u2c.pipe[1] = -1;
		c->oauth = -1;
		ev_io_init(&c->cli.io, on_io, fd, 0);
		ev_io_init(&c->up.io, on_io, -1, 0);
		c->cli.io.data = c->up.io.data = c;
		ev_init(&c->timer, on_timer);
		c->timer.data = c;
		px->n_conns++;
		c->next = px->conns;
		if (c->next)
			c->next->pprev = &c->next;
		c->pprev = &px->conns;
		px->conns = c;
		drive(c);
	}
}

static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg)
{
	/* HTTP/1.1 only towards the client: every request is then parsed by us. */
	for (unsigned i = 0; i < inlen; i += 1u + in[i]) {
		if (in[i] == 8 && i + 9 <= inlen && memcmp(in + i + 1, "http/1.1", 8) == 0) {
			*out = in + i + 1;
			*outlen = 8;
			return SSL_TLSEXT_ERR_OK;
		}
	}
	return SSL_TLSEXT_ERR_NOACK;
}

int proxy_server_tls_ctx(SSL_CTX **out)
{
	tls_load_system_config();
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx)
		return -ENOMEM;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
	                          SSL_MODE_ENABLE_PARTIAL_WRITE);
	/* One read() per burst of records rather than two per record. */
	SSL_CTX_set_read_ahead(ctx, 1);
	SSL_CTX_sess_set_cache_size(ctx, 1024);
	SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
	*out = ctx;
	return 0;
}

int proxy_tls_ctxs(struct proxy *px)
{
	if (!px->server_ctx && proxy_server_tls_ctx(&px->server_ctx) < 0) {
		plog_info("cannot set up TLS towards clients");
		return -ENOMEM;
	}
	if (!px->client_ctx && upstream_tls_ctx(px->rules->upstream_ca_file, &px->client_ctx) < 0) {
		plog_info("cannot set up TLS towards servers (upstream_ca_file %s)",
		          px->rules->upstream_ca_file ? px->rules->upstream_ca_file : "unset");
		return -EINVAL;
	}
	return 0;
}

void proxy_stop(struct proxy *px)
{
	ev_io_stop(px->loop, &px->listen_io);
	ev_timer_stop(px->loop, &px->accept_retry);
	while (px->conns)
		conn_free(px->conns);
	while (pool_n)
		buf_unmap(pool[--pool_n]);
}

void proxy_start(struct proxy *px)
{
	ev_io_init(&px->listen_io, on_accept, px->listen_fd, EV_READ);
	px->listen_io.data = px;
	ev_init(&px->accept_retry, on_accept_retry);
	px->accept_retry.data = px;
	ev_io_start(px->loop, &px->listen_io);
}
