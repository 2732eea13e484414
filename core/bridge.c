/* SPDX-License-Identifier: MIT */
#include "bridge.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#define BRIDGE_BUF (64 * 1024) /* per direction, allocated on first use */

struct half {
	ev_io rd; /* readable on `from` */
	ev_io wr; /* writable on `to` */
	int from, to;
	char *buf;
	size_t off, len;
	bool eof;
	struct conn *conn;
};

struct conn {
	struct half ab, ba; /* accepted → dialled, dialled → accepted */
	int a, b;
	bool connecting;
	ev_io connect_w;
	struct bridge_listener *owner;
	struct conn *next;
};

struct bridge_listener {
	struct ev_loop *loop;
	ev_io accept_w;
	int fd;
	bridge_dial_fn dial;
	void *userdata;
	char *name;
	struct conn *conns;
	unsigned active;
};

static void conn_close(struct conn *c)
{
	struct bridge_listener *l = c->owner;
	ev_io_stop(l->loop, &c->ab.rd);
	ev_io_stop(l->loop, &c->ab.wr);
	ev_io_stop(l->loop, &c->ba.rd);
	ev_io_stop(l->loop, &c->ba.wr);
	ev_io_stop(l->loop, &c->connect_w);
	close(c->a);
	close(c->b);
	free(c->ab.buf);
	free(c->ba.buf);
	for (struct conn **p = &l->conns; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	l->active--;
	free(c);
}

/* Both directions finished (EOF seen and flushed): the connection is done. */
static void maybe_done(struct conn *c)
{
	bool ab_done = c->ab.eof && c->ab.len == 0;
	bool ba_done = c->ba.eof && c->ba.len == 0;
	if (ab_done && ba_done)
		conn_close(c);
}

static void half_pump(struct ev_loop *loop, struct half *h);

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	struct half *h = w->data;
	if (!h->buf && !(h->buf = malloc(BRIDGE_BUF))) {
		conn_close(h->conn);
		return;
	}
	ssize_t n = read(h->from, h->buf + h->len, BRIDGE_BUF - h->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* EOF or error on one side: the other side is closed after the
		 * data already read reaches it. */
		h->eof = true;
		ev_io_stop(loop, &h->rd);
		if (n < 0) {
			conn_close(h->conn);
			return;
		}
		half_pump(loop, h);
		return;
	}
	h->len += (size_t)n;
	half_pump(loop, h);
}

static void on_writable(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	half_pump(loop, w->data);
}

static void half_pump(struct ev_loop *loop, struct half *h)
{
	struct conn *c = h->conn;
	while (h->len > h->off) {
		ssize_t n = send(h->to, h->buf + h->off, h->len - h->off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			conn_close(c);
			return;
		}
		h->off += (size_t)n;
	}
	if (h->off == h->len) {
		h->off = h->len = 0;
		ev_io_stop(loop, &h->wr);
		if (!h->eof)
			ev_io_start(loop, &h->rd);
	} else {
		/* Backpressure: stop reading until the other side drains. */
		ev_io_start(loop, &h->wr);
		if (h->len == BRIDGE_BUF)
			ev_io_stop(loop, &h->rd);
	}
	if (h->eof && h->len == 0) {
		/* Closing one side closes the other. */
		shutdown(h->to, SHUT_WR);
		struct half *other = h == &c->ab ? &c->ba : &c->ab;
		if (!other->eof) {
			other->eof = true;
			ev_io_stop(loop, &other->rd);
			other->len = other->off = 0;
		}
		maybe_done(c);
	}
}

static void half_init(struct conn *c, struct half *h, int from, int to)
{
	h->from = from;
	h->to = to;
	h->conn = c;
	ev_io_init(&h->rd, on_readable, from, EV_READ);
	ev_io_init(&h->wr, on_writable, to, EV_WRITE);
	h->rd.data = h;
	h->wr.data = h;
}

static void start_flowing(struct ev_loop *loop, struct conn *c)
{
	ev_io_start(loop, &c->ab.rd);
	ev_io_start(loop, &c->ba.rd);
}

static void on_connected(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	struct conn *c = w->data;
	int err = 0;
	socklen_t len = sizeof(err);
	ev_io_stop(loop, w);
	if (getsockopt(c->b, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
		log_msg(LOG_INFO, "%s: connection refused on the far side: %s", c->owner->name,
		        strerror(err ? err : errno));
		conn_close(c);
		return;
	}
	c->connecting = false;
	start_flowing(loop, c);
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	struct bridge_listener *l = w->data;
	for (;;) {
		int a = accept_cloexec(l->fd, true);
		if (a < 0)
			return; /* EAGAIN, or a transient error: wait for the next one */
		int b = l->dial(l->userdata);
		if (b < 0) {
			log_msg(LOG_INFO, "%s: cannot reach the far side: %s", l->name,
			        strerror(-b));
			close(a);
			continue;
		}
		struct conn *c = calloc(1, sizeof(*c));
		if (!c) {
			close(a);
			close(b);
			continue;
		}
		c->a = a;
		c->b = b;
		c->owner = l;
		half_init(c, &c->ab, a, b);
		half_init(c, &c->ba, b, a);
		c->next = l->conns;
		l->conns = c;
		l->active++;
		c->connecting = true;
		ev_io_init(&c->connect_w, on_connected, b, EV_WRITE);
		c->connect_w.data = c;
		ev_io_start(loop, &c->connect_w);
	}
}

int bridge_listen(struct ev_loop *loop, int listen_fd, bridge_dial_fn dial, void *userdata,
                  const char *name, struct bridge_listener **out)
{
	struct bridge_listener *l = calloc(1, sizeof(*l));
	if (!l || !(l->name = strdup(name))) {
		free(l);
		close(listen_fd);
		return -ENOMEM;
	}
	l->loop = loop;
	l->fd = listen_fd;
	l->dial = dial;
	l->userdata = userdata;
	ev_io_init(&l->accept_w, on_accept, listen_fd, EV_READ);
	l->accept_w.data = l;
	ev_io_start(loop, &l->accept_w);
	*out = l;
	return 0;
}

void bridge_close(struct bridge_listener *l)
{
	if (!l)
		return;
	ev_io_stop(l->loop, &l->accept_w);
	while (l->conns)
		conn_close(l->conns);
	close(l->fd);
	free(l->name);
	free(l);
}

unsigned bridge_active(const struct bridge_listener *l)
{
	return l ? l->active : 0;
}
