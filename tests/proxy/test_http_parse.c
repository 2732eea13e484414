/* Strict HTTP/1.1 parsing: every request smuggling form is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "http_parse.h"

#define H "Host: a.com\r\n"

static int req(const char *s, struct http_msg *m)
{
	return http_parse_request(s, strlen(s), m);
}

static void test_accept(void **state)
{
	struct http_msg m;
	const char *s = "GET http://a.com/x?y HTTP/1.1\r\n" H "Accept: */*\r\n\r\nNEXT";
	assert_int_equal(req(s, &m), (int)strlen(s) - 4);
	assert_int_equal(m.method.n, 3);
	assert_int_equal(m.n_headers, 2);
	assert_int_equal(m.body, HTTP_BODY_NONE);
	assert_true(m.keep_alive);
	assert_int_equal(m.host.n, 5);

	assert_true(req("POST / HTTP/1.1\r\n" H "Content-Length: 5\r\n\r\n", &m) > 0);
	assert_int_equal(m.body, HTTP_BODY_LENGTH);
	assert_int_equal(m.content_length, 5);
	assert_true(req("POST / HTTP/1.1\r\n" H "Content-Length: 0\r\n\r\n", &m) > 0);
	assert_int_equal(m.body, HTTP_BODY_NONE);
	assert_true(req("POST / HTTP/1.1\r\n" H "Transfer-Encoding: chunked\r\n\r\n", &m) > 0);
	assert_int_equal(m.body, HTTP_BODY_CHUNKED);
	assert_true(req("POST / HTTP/1.1\r\n" H "transfer-encoding:  Chunked \r\n\r\n", &m) > 0);
	assert_int_equal(m.body, HTTP_BODY_CHUNKED);
	assert_true(req("GET / HTTP/1.0\r\n\r\n", &m) > 0);
	assert_false(m.keep_alive);
	assert_true(req("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &m) > 0);
	assert_true(m.keep_alive);
	assert_true(req("GET / HTTP/1.1\r\n" H "Connection: close\r\n\r\n", &m) > 0);
	assert_false(m.keep_alive);
	assert_true(req("GET / HTTP/1.1\r\n" H "Connection: keep-alive, Upgrade\r\n"
	                "Upgrade: websocket\r\n\r\n",
	                &m) > 0);
	assert_true(m.websocket);
	assert_true(req("GET / HTTP/1.1\r\n" H "Connection: Upgrade, HTTP2-Settings\r\n"
	                "Upgrade: h2c\r\n\r\n",
	                &m) > 0);
	assert_true(m.upgrade);
	assert_false(m.websocket);
	assert_true(req("GET / HTTP/1.1\r\n" H "X: caf\xc3\xa9\t ok\r\n\r\n", &m) > 0);
	assert_int_equal(m.headers[1].value.n, 9); /* trailing OWS trimmed */
	assert_true(req("CONNECT a.com:443 HTTP/1.1\r\nHost: a.com:443\r\n\r\n", &m) > 0);
	assert_false(m.expect_continue);
	assert_true(req("PUT / HTTP/1.1\r\n" H "Expect: 100-Continue\r\nContent-Length: 9\r\n\r\n",
	                &m) > 0);
	assert_true(m.expect_continue);
}

static void test_reject(void **state)
{
	static const char *const bad[] = {
	    /* framing ambiguity */
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5\r\nContent-Length: 5\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5, 5\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: -1\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: +5\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 0x5\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: \r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 5 5\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Content-Length: 1234567890123456789\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: gzip\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: gzip, chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: chunked, gzip\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: chunked, chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H
	    "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: xchunked\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding: \"chunked\"\r\n\r\n",
	    "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	    /* obs-fold */
	    "GET / HTTP/1.1\r\n" H "X: a\r\n b\r\n\r\n",
	    "GET / HTTP/1.1\r\n" H "X: a\r\n\tb\r\n\r\n", "GET / HTTP/1.1\r\n Host: a.com\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding:\r\n chunked\r\n\r\n",
	    /* bare LF / CR, NUL */
	    "GET / HTTP/1.1\n" H "\r\n", "GET / HTTP/1.1\r\n" H "X: a\n\r\n",
	    "GET / HTTP/1.1\r\n" H "\n", "GET / HTTP/1.1\r\n" H "X: a\rb\r\n\r\n",
	    "GET / HTTP/1.1\r\n" H "X: a\r\r\n\r\n", "GET /a\rb HTTP/1.1\r\n" H "\r\n",
	    /* whitespace before the colon, bad names */
	    "GET / HTTP/1.1\r\nHost : a.com\r\n\r\n", "GET / HTTP/1.1\r\nHost\t: a.com\r\n\r\n",
	    "POST / HTTP/1.1\r\n" H "Transfer-Encoding : chunked\r\n\r\n",
	    "GET / HTTP/1.1\r\n" H ": x\r\n\r\n", "GET / HTTP/1.1\r\n" H "NoColon\r\n\r\n",
	    "GET / HTTP/1.1\r\n" H "X(y): z\r\n\r\n", "GET / HTTP/1.1\r\n" H "X\xc3\xa9: z\r\n\r\n",
	    /* request line */
	    "GET /a b HTTP/1.1\r\n" H "\r\n", "GET  / HTTP/1.1\r\n" H "\r\n",
	    "GET /  HTTP/1.1\r\n" H "\r\n", "GET / HTTP/1.1 \r\n" H "\r\n",
	    "GET / HTTP/2.0\r\n" H "\r\n", "GET / HTTP/1.2\r\n" H "\r\n",
	    "GET / http/1.1\r\n" H "\r\n", "GET /\xc3\xa9 HTTP/1.1\r\n" H "\r\n",
	    "GET\t/ HTTP/1.1\r\n" H "\r\n", "G(T / HTTP/1.1\r\n" H "\r\n",
	    "\r\nGET / HTTP/1.1\r\n" H "\r\n", " GET / HTTP/1.1\r\n" H "\r\n",
	    "GET / HTTP/1.1\r\n\r\n",        /* no Host */
	    "GET / HTTP/1.1\r\n" H H "\r\n", /* two Hosts */
	};
	struct http_msg m;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = req(bad[i], &m);
		if (rc != -EBADMSG)
			fail_msg("vector %zu accepted or misjudged (%d): %s", i, rc, bad[i]);
	}
	/* NUL inside a value (strlen would stop at it) */
	static const char nul[] = "GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n";
	assert_int_equal(http_parse_request(nul, sizeof(nul) - 1, &m), -EBADMSG);
	static const char nul2[] = "GET / HTTP/1.1\r\nHo\0st: ab\r\n\r\n";
	assert_int_equal(http_parse_request(nul2, sizeof(nul2) - 1, &m), -EBADMSG);
}

static void test_bounds(void **state)
{
	static char big[HTTP_MAX_HEAD + 100];
	struct http_msg m;
	size_t o = (size_t)snprintf(big, sizeof(big), "GET / HTTP/1.1\r\n" H);
	for (int i = 0; i < HTTP_MAX_HEADERS; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "X-%d: y\r\n", i);
	o += (size_t)snprintf(big + o, sizeof(big) - o, "\r\n");
	assert_int_equal(http_parse_request(big, o, &m), -EMSGSIZE);

	memset(big, 'a', sizeof(big));
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	assert_int_equal(http_parse_request(big, HTTP_MAX_HEAD, &m), -EMSGSIZE);
	assert_int_equal(http_parse_request(big, 1000, &m), 0); /* incomplete, within bound */
	assert_int_equal(req("GET / HTTP/1.1\r\n" H, &m), 0);
	assert_int_equal(req("GET / HT", &m), 0);
}

static void test_response(void **state)
{
	struct http_msg m;
#define RESP(s, head) http_parse_response(s, strlen(s), head, &m)
	assert_true(RESP("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", false) > 0);
	assert_int_equal(m.body, HTTP_BODY_LENGTH);
	assert_int_equal(m.status, 200);
	assert_true(RESP("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", true) > 0);
	assert_int_equal(m.body, HTTP_BODY_NONE);
	assert_true(RESP("HTTP/1.1 204 No Content\r\n\r\n", false) > 0);
	assert_int_equal(m.body, HTTP_BODY_NONE);
	assert_true(RESP("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", false) > 0);
	assert_int_equal(m.body, HTTP_BODY_NONE);
	assert_true(RESP("HTTP/1.1 200\r\n\r\n", false) > 0);
	assert_int_equal(m.body, HTTP_BODY_CLOSE);
	assert_true(RESP("HTTP/1.0 200 OK\r\n\r\n", false) > 0);
	assert_false(m.keep_alive);
	assert_true(RESP("HTTP/1.1 100 Continue\r\n\r\n", false) > 0);
	assert_int_equal(m.status, 100);
	assert_true(RESP("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
	                 "Upgrade: websocket\r\n\r\n",
	                 false) > 0);
	assert_true(m.websocket);
	assert_true(RESP("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false) > 0);
	assert_int_equal(m.body, HTTP_BODY_CHUNKED);
	assert_int_equal(RESP("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: "
	                      "3\r\n\r\n",
	                      false),
	                 -EBADMSG);
	assert_int_equal(RESP("HTTP/1.1 20 OK\r\n\r\n", false), -EBADMSG);
	assert_int_equal(RESP("HTTP/1.1 099 X\r\n\r\n", false), -EBADMSG);
	assert_int_equal(RESP("HTTP/1.1  200 OK\r\n\r\n", false), -EBADMSG);
	assert_int_equal(RESP("HTTP/1.1 200OK\r\n\r\n", false), -EBADMSG);
	assert_int_equal(RESP("HTTP/1.1 200 OK\nX: y\r\n\r\n", false), -EBADMSG);
	assert_int_equal(
	    RESP("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", false),
	    -EBADMSG);
	assert_int_equal(RESP("HTTP/1.1 200 OK\r\n", false), 0);
}

static void test_target(void **state)
{
	struct http_target t;
#define TGT(s, c) http_parse_target((struct http_str){s, strlen(s)}, c, &t)
	assert_int_equal(TGT("http://a.com:8080/x?y", false), 0);
	assert_int_equal(t.scheme, HTTP_SCHEME_HTTP);
	assert_int_equal(t.host.n, 5);
	assert_int_equal(t.port, 8080);
	assert_int_equal(t.path.n, 4);
	assert_int_equal(TGT("HTTP://a.com", false), 0);
	assert_int_equal(t.port, 80);
	assert_int_equal(t.path.n, 0);
	assert_int_equal(TGT("https://a.com?q", false), 0);
	assert_int_equal(t.port, 443);
	assert_int_equal(TGT("http://[::1]:81/", false), 0);
	assert_int_equal(t.host.n, 5);
	assert_int_equal(t.port, 81);
	assert_int_equal(TGT("/x", false), 0);
	assert_int_equal(t.scheme, HTTP_SCHEME_NONE);
	assert_int_equal(TGT("a.com:443", true), 0);
	assert_int_equal(t.port, 443);
	assert_int_equal(TGT("[::1]:443", true), 0);

	static const char *const bad[] = {"http://allowed.com@evil.com/",
	                                  "http://u:p@a.com/",
	                                  "ftp://a.com/",
	                                  "http://a.com:0/",
	                                  "http://a.com:99999/",
	                                  "http://a.com:/",
	                                  "http://a.com/#frag",
	                                  "http://a.com:8o/",
	                                  "http:///x",
	                                  "*",
	                                  "a.com",
	                                  "http://[::1/",
	                                  "/a#frag"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (TGT(bad[i], false) != -EBADMSG)
			fail_msg("target \"%s\" accepted", bad[i]);
	assert_int_equal(TGT("a.com", true), -EBADMSG); /* CONNECT needs a port */
	assert_int_equal(TGT("a.com:", true), -EBADMSG);
	assert_int_equal(TGT(":443", true), -EBADMSG);
}

static int scan_all(const char *s, size_t n, size_t step, size_t *used_total)
{
	struct http_chunked c = {0};
	size_t off = 0;
	while (off < n) {
		size_t len = n - off < step ? n - off : step, used;
		int rc = http_chunked_scan(&c, s + off, len, &used);
		if (rc != 0) {
			*used_total = off + used;
			return rc;
		}
		off += len;
	}
	*used_total = off;
	return 0;
}

static void test_chunked(void **state)
{
	static const char good[] = "5\r\nhello\r\n1A;ext=1;y\r\nabcdefghijklmnopqrstuvwxyz\r\n"
	                           "0\r\nTrailer: x\r\n\r\nGET /next";
	size_t used, end = sizeof(good) - 1 - 9;
	for (size_t step = 1; step <= sizeof(good); step *= 2) {
		assert_int_equal(scan_all(good, sizeof(good) - 1, step, &used), 1);
		assert_int_equal(used, end);
	}
	assert_int_equal(scan_all("0\r\n\r\n", 5, 100, &used), 1);
	assert_int_equal(used, 5);
	assert_int_equal(scan_all("5\r\nhel", 7, 100, &used), 0);

	static const char *const bad[] = {
	    "5\nhello\r\n0\r\n\r\n",
	    "5\r\nhelloX\r\n0\r\n\r\n",
	    "5\r\nhello\n0\r\n\r\n",
	    "fffffffffffffffff\r\n",
	    " 5\r\nhello\r\n",
	    "5 \r\nhello\r\n",
	    "\r\n",
	    "x\r\n",
	    "-1\r\n",
	    "0\r\n Folded: x\r\n\r\n",
	    "0\r\nX: y\n\r\n",
	    "0\r\n\n",
	    "5;a\x01\r\nhello\r\n",
	    "0x5\r\nhello\r\n0\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (scan_all(bad[i], strlen(bad[i]), 100, &used) != -EBADMSG)
			fail_msg("chunked vector %zu accepted", i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_accept), cmocka_unit_test(test_reject),
	    cmocka_unit_test(test_bounds), cmocka_unit_test(test_response),
	    cmocka_unit_test(test_target), cmocka_unit_test(test_chunked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
