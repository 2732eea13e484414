/* Strict HTTP/1.1 message heads (RFC 9112) and chunked framing.
 *
 * The proxy sits between two parsers that may disagree; anything whose framing
 * two implementations could read differently is refused, not repaired. Pure code
 * over caller-owned buffers: parsed strings point into the input. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_MAX_HEAD    32768
#define HTTP_MAX_HEADERS 100

struct http_str {
	const char *p;
	size_t n;
};

struct http_header {
	struct http_str name, value;
};

enum http_body {
	HTTP_BODY_NONE = 0,
	HTTP_BODY_LENGTH,
	HTTP_BODY_CHUNKED,
	HTTP_BODY_CLOSE, /* responses only: until the server closes */
};

struct http_msg {
	struct http_str method, target; /* requests */
	int status;                     /* responses */
	int minor;                      /* HTTP/1.minor */
	struct http_header headers[HTTP_MAX_HEADERS];
	size_t n_headers;
	size_t head_len;
	enum http_body body;
	uint64_t content_length;
	struct http_str host; /* Host header value; n == 0 when absent */
	bool keep_alive;
	bool upgrade;         /* Connection: upgrade with an Upgrade header */
	bool websocket;       /* ...and the Upgrade names websocket */
	bool expect_continue; /* Expect: 100-continue */
};

/* Both return the head length (> 0), 0 when more bytes are needed, -EMSGSIZE when
 * the head exceeds HTTP_MAX_HEAD or HTTP_MAX_HEADERS (431), -EBADMSG when it is
 * malformed or ambiguous (400 / 502). */
int http_parse_request(const char *buf, size_t len, struct http_msg *m);
int http_parse_response(const char *buf, size_t len, bool head_request, struct http_msg *m);

enum http_scheme {
	HTTP_SCHEME_NONE = 0, /* origin-form or authority-form */
	HTTP_SCHEME_HTTP,
	HTTP_SCHEME_HTTPS,
};

struct http_target {
	enum http_scheme scheme;
	struct http_str host; /* raw, brackets kept for IPv6; empty for origin-form */
	uint16_t port;
	struct http_str path; /* path and query, "/"-rooted; empty for authority-form */
};

/* Split a request target: absolute-form (http/https only, no userinfo, no fragment),
 * authority-form when connect (host:port, port required), else origin-form. */
int http_parse_target(struct http_str target, bool connect, struct http_target *t);

/* "host[:port]" / "[v6][:port]" as in a Host header; default_port when absent. */
int http_split_authority(struct http_str a, uint16_t default_port, struct http_str *host,
                         uint16_t *port);

bool http_str_ieq(struct http_str s, const char *lit);
/* Whether a comma-separated header value lists tok (case-insensitive). */
bool http_list_has(struct http_str v, const char *tok);

struct http_chunked {
	int state;
	uint64_t left;
	size_t line; /* bytes in the current size line or trailer section */
};

/* Feed body bytes; *used says how many belong to the body. 1: the body ended
 * (after *used bytes), 0: consumed all and wants more, -EBADMSG: malformed. */
int http_chunked_scan(struct http_chunked *c, const char *p, size_t n, size_t *used);
/* The same, calling data() for each run of chunk data among those bytes (what a
 * body's reader gets, without the framing). */
typedef void (*http_chunk_data_fn)(void *arg, const char *p, size_t n);
int http_chunked_scan_data(struct http_chunked *c, const char *p, size_t n, size_t *used,
                           http_chunk_data_fn data, void *arg);
