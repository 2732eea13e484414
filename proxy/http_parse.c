/* Strict HTTP/1.1 parsing. See http_parse.h for why strict. */
#include "http_parse.h"

#include <errno.h>
#include <string.h>

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool http_str_ieq(struct http_str s, const char *lit)
{
	size_t n = strlen(lit);
	if (s.n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(s.p[i]) != lower(lit[i]))
			return false;
	return true;
}

static struct http_str trim_ows(struct http_str s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
		s.p++;
		s.n--;
	}
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
		s.n--;
	return s;
}

bool http_list_has(struct http_str v, const char *tok)
{
	size_t start = 0;
	for (size_t i = 0; i <= v.n; i++) {
		if (i < v.n && v.p[i] != ',')
			continue;
		struct http_str item = trim_ows((struct http_str){v.p + start, i - start});
		if (http_str_ieq(item, tok))
			return true;
		start = i + 1;
	}
	return false;
}

/* The next line without its CRLF. 0: incomplete, -EBADMSG: bare LF or CR. */
static int next_line(const char *buf, size_t len, size_t *pos, struct http_str *line)
{
	const char *lf = memchr(buf + *pos, '\n', len - *pos);
	if (!lf)
		return 0;
	size_t end = (size_t)(lf - buf);
	if (end == *pos || buf[end - 1] != '\r')
		return -EBADMSG;
	line->p = buf + *pos;
	line->n = end - 1 - *pos;
	*pos = end + 1;
	return 1;
}

static int parse_version(struct http_str v, int *minor)
{
	if (v.n != 8 || memcmp(v.p, "HTTP/1.", 7) != 0 || (v.p[7] != '0' && v.p[7] != '1'))
		return -EBADMSG;
	*minor = v.p[7] - '0';
	return 0;
}

static int parse_length(struct http_str v, uint64_t *out)
{
	uint64_t n = 0;
	if (v.n == 0 || v.n > 18)
		return -EBADMSG;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return -EBADMSG;
		n = n * 10 + (uint64_t)(v.p[i] - '0');
	}
	*out = n;
	return 0;
}

/* Header fields after the start line, then what they mean for framing. */
static int parse_fields(const char *buf, size_t len, size_t pos, struct http_msg *m, bool *has_cl,
                        bool *has_te)
{
	int n_host = 0, n_te = 0;
	bool conn_close = false, conn_keep = false, conn_upgrade = false, up_ws = false;
	bool has_upgrade = false, te_chunked = false, expect = false;
	struct http_str line;
	int rc;

	m->n_headers = 0;
	m->host = (struct http_str){0};
	for (;;) {
		if ((rc = next_line(buf, len, &pos, &line)) <= 0)
			return rc == 0 && len >= HTTP_MAX_HEAD ? -EMSGSIZE : rc;
		if (pos > HTTP_MAX_HEAD)
			return -EMSGSIZE;
		if (line.n == 0)
			break;
		if (m->n_headers == HTTP_MAX_HEADERS)
			return -EMSGSIZE;
		size_t i = 0;
		while (i < line.n && is_tchar((unsigned char)line.p[i]))
			i++;
		/* No name (obs-fold starts with SP/HT) or anything but ':' after it. */
		if (i == 0 || i == line.n || line.p[i] != ':')
			return -EBADMSG;
		struct http_header *h = &m->headers[m->n_headers++];
		h->name = (struct http_str){line.p, i};
		for (size_t j = i + 1; j < line.n; j++) {
			unsigned char c = (unsigned char)line.p[j];
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return -EBADMSG; /* NUL, bare CR, other controls */
		}
		h->value = trim_ows((struct http_str){line.p + i + 1, line.n - i - 1});

		if (http_str_ieq(h->name, "content-length")) {
			if (*has_cl || parse_length(h->value, &m->content_length) < 0)
				return -EBADMSG;
			*has_cl = true;
		} else if (http_str_ieq(h->name, "transfer-encoding")) {
			n_te++;
			te_chunked = http_str_ieq(h->value, "chunked");
		} else if (http_str_ieq(h->name, "host")) {
			n_host++;
			m->host = h->value;
		} else if (http_str_ieq(h->name, "connection")) {
			conn_close |= http_list_has(h->value, "close");
			conn_keep |= http_list_has(h->value, "keep-alive");
			conn_upgrade |= http_list_has(h->value, "upgrade");
		} else if (http_str_ieq(h->name, "expect")) {
			expect = http_str_ieq(h->value, "100-continue");
		} else if (http_str_ieq(h->name, "upgrade")) {
			has_upgrade = true;
			up_ws |= http_list_has(h->value, "websocket");
		}
	}
	/* Only a single, final "chunked" is unambiguous; everything else is refused. */
	if (n_te > 1 || (n_te == 1 && !te_chunked) || n_host > 1)
		return -EBADMSG;
	*has_te = n_te == 1;
	if (*has_te && *has_cl)
		return -EBADMSG;
	if (*has_te && m->minor == 0)
		return -EBADMSG;
	m->keep_alive = m->minor == 1 ? !conn_close : (conn_keep && !conn_close);
	m->upgrade = conn_upgrade && has_upgrade;
	m->websocket = m->upgrade && up_ws;
	m->expect_continue = expect;
	m->head_len = pos;
	return (int)pos;
}

int http_parse_request(const char *buf, size_t len, struct http_msg *m)
{
	struct http_str line;
	size_t pos = 0;
	bool has_cl = false, has_te = false;
	int rc;

	memset(m, 0, offsetof(struct http_msg, headers));
	if ((rc = next_line(buf, len, &pos, &line)) <= 0)
		return rc == 0 && len >= HTTP_MAX_HEAD ? -EMSGSIZE : rc;
	/* method SP request-target SP HTTP-version, exactly one SP each */
	size_t i = 0;
	while (i < line.n && is_tchar((unsigned char)line.p[i]))
		i++;
	if (i == 0 || i == line.n || line.p[i] != ' ')
		return -EBADMSG;
	m->method = (struct http_str){line.p, i};
	size_t t = ++i;
	while (i < line.n && (unsigned char)line.p[i] > 0x20 && (unsigned char)line.p[i] < 0x7f)
		i++;
	if (i == t || i == line.n || line.p[i] != ' ')
		return -EBADMSG;
	m->target = (struct http_str){line.p + t, i - t};
	if (parse_version((struct http_str){line.p + i + 1, line.n - i - 1}, &m->minor) < 0)
		return -EBADMSG;
	if ((rc = parse_fields(buf, len, pos, m, &has_cl, &has_te)) <= 0)
		return rc;
	if (m->minor == 1 && m->host.p == NULL)
		return -EBADMSG;
	m->body = has_te                        ? HTTP_BODY_CHUNKED
	          : has_cl && m->content_length ? HTTP_BODY_LENGTH
	                                        : HTTP_BODY_NONE;
	return rc;
}

int http_parse_response(const char *buf, size_t len, bool head_request, struct http_msg *m)
{
	struct http_str line;
	size_t pos = 0;
	bool has_cl = false, has_te = false;
	int rc;

	memset(m, 0, offsetof(struct http_msg, headers));
	if ((rc = next_line(buf, len, &pos, &line)) <= 0)
		return rc == 0 && len >= HTTP_MAX_HEAD ? -EMSGSIZE : rc;
	/* HTTP-version SP 3DIGIT SP [reason] */
	if (line.n < 12 || line.p[8] != ' ' || (line.n > 12 && line.p[12] != ' '))
		return -EBADMSG;
	if (parse_version((struct http_str){line.p, 8}, &m->minor) < 0)
		return -EBADMSG;
	m->status = 0;
	for (int k = 9; k < 12; k++) {
		if (line.p[k] < '0' || line.p[k] > '9')
			return -EBADMSG;
		m->status = m->status * 10 + (line.p[k] - '0');
	}
	if (m->status < 100)
		return -EBADMSG;
	for (size_t k = 13; k < line.n; k++) {
		unsigned char c = (unsigned char)line.p[k];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -EBADMSG;
	}
	if ((rc = parse_fields(buf, len, pos, m, &has_cl, &has_te)) <= 0)
		return rc;
	if (head_request || m->status < 200 || m->status == 204 || m->status == 304)
		m->body = HTTP_BODY_NONE;
	else if (has_te)
		m->body = HTTP_BODY_CHUNKED;
	else if (has_cl)
		m->body = m->content_length ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
	else
		m->body = HTTP_BODY_CLOSE;
	return rc;
}

int http_split_authority(struct http_str a, uint16_t default_port, struct http_str *host,
                         uint16_t *port)
{
	size_t hend;

	if (a.n == 0)
		return -EBADMSG;
	if (a.p[0] == '[') {
		const char *rb = memchr(a.p, ']', a.n);
		if (!rb)
			return -EBADMSG;
		hend = (size_t)(rb - a.p) + 1;
	} else {
		const char *colon = memchr(a.p, ':', a.n);
		hend = colon ? (size_t)(colon - a.p) : a.n;
	}
	if (hend == 0)
		return -EBADMSG;
	*host = (struct http_str){a.p, hend};
	if (hend == a.n) {
		*port = default_port;
		return default_port ? 0 : -EBADMSG;
	}
	if (a.p[hend] != ':' || hend + 1 == a.n || a.n - hend - 1 > 5)
		return -EBADMSG;
	unsigned v = 0;
	for (size_t i = hend + 1; i < a.n; i++) {
		if (a.p[i] < '0' || a.p[i] > '9')
			return -EBADMSG;
		v = v * 10 + (unsigned)(a.p[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -EBADMSG;
	*port = (uint16_t)v;
	return 0;
}

int http_parse_target(struct http_str target, bool connect, struct http_target *t)
{
	memset(t, 0, sizeof(*t));
	if (connect)
		return http_split_authority(target, 0, &t->host, &t->port);
	if (target.n && target.p[0] == '/') {
		if (memchr(target.p, '#', target.n))
			return -EBADMSG; /* fragments are never sent */
		t->path = target;
		return 0;
	}
	size_t skip;
	uint16_t defport;
	if (target.n > 7 && http_str_ieq((struct http_str){target.p, 7}, "http://")) {
		t->scheme = HTTP_SCHEME_HTTP;
		skip = 7;
		defport = 80;
	} else if (target.n > 8 && http_str_ieq((struct http_str){target.p, 8}, "https://")) {
		t->scheme = HTTP_SCHEME_HTTPS;
		skip = 8;
		defport = 443;
	} else {
		return -EBADMSG;
	}
	struct http_str rest = {target.p + skip, target.n - skip};
	size_t aend = 0;
	while (aend < rest.n && rest.p[aend] != '/' && rest.p[aend] != '?')
		aend++;
	struct http_str auth = {rest.p, aend};
	/* userinfo ("allowed.com@evil.com") and fragments have no place in a request */
	if (memchr(auth.p, '@', auth.n) || memchr(target.p, '#', target.n))
		return -EBADMSG;
	if (http_split_authority(auth, defport, &t->host, &t->port) < 0)
		return -EBADMSG;
	t->path = (struct http_str){rest.p + aend, rest.n - aend};
	return 0;
}

enum {
	CH_SIZE0 = 0, /* first hex digit */
	CH_SIZE,
	CH_EXT,
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER, /* start of a trailer line or the final CRLF */
	CH_TRAILER_LINE,
	CH_TRAILER_LF,
	CH_FINAL_LF,
	CH_DONE,
};

#define CHUNK_LINE_MAX 4096

int http_chunked_scan(struct http_chunked *c, const char *p, size_t n, size_t *used)
{
	return http_chunked_scan_data(c, p, n, used, NULL, NULL);
}

int http_chunked_scan_data(struct http_chunked *c, const char *p, size_t n, size_t *used,
                           http_chunk_data_fn data, void *arg)
{
	size_t i = 0;

	while (i < n) {
		unsigned char ch = (unsigned char)p[i];
		switch (c->state) {
		case CH_SIZE0:
		case CH_SIZE: {
			int v = ch >= '0' && ch <= '9'   ? ch - '0'
			        : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			        : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
			                                 : -1;
			if (v >= 0) {
				if (c->left >> 59)
					return -EBADMSG; /* overflow */
				c->left = c->left << 4 | (uint64_t)v;
				c->state = CH_SIZE;
			} else if (c->state == CH_SIZE && ch == ';') {
				c->state = CH_EXT;
			} else if (c->state == CH_SIZE && ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return -EBADMSG;
			}
			if (++c->line > CHUNK_LINE_MAX)
				return -EBADMSG;
			i++;
			break;
		}
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				return -EBADMSG;
			if (++c->line > CHUNK_LINE_MAX)
				return -EBADMSG;
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return -EBADMSG;
			c->line = 0;
			c->state = c->left ? CH_DATA : CH_TRAILER;
			i++;
			break;
		case CH_DATA: {
			size_t take = n - i < c->left ? n - i : (size_t)c->left;
			if (data && take)
				data(arg, p + i, take);
			c->left -= take;
			i += take;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (ch != '\r')
				return -EBADMSG;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return -EBADMSG;
			c->state = CH_SIZE0;
			i++;
			break;
		case CH_TRAILER:
			if (ch == '\r') {
				c->state = CH_FINAL_LF;
			} else if (is_tchar(ch)) {
				c->state = CH_TRAILER_LINE;
			} else {
				return -EBADMSG; /* obs-fold, bare LF, junk */
			}
			if (++c->line > HTTP_MAX_HEAD)
				return -EBADMSG;
			i++;
			break;
		case CH_TRAILER_LINE:
			if (ch == '\r')
				c->state = CH_TRAILER_LF;
			else if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				return -EBADMSG;
			if (++c->line > HTTP_MAX_HEAD)
				return -EBADMSG;
			i++;
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return -EBADMSG;
			c->state = CH_TRAILER;
			i++;
			break;
		case CH_FINAL_LF:
			if (ch != '\n')
				return -EBADMSG;
			c->state = CH_DONE;
			*used = i + 1;
			return 1;
		default:
			*used = 0;
			return 1;
		}
	}
	*used = n;
	return 0;
}
