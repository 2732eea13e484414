/* libFuzzer harness for the proxy's HTTP parser. The first byte picks the entry
 * point; the rest is the message. Beyond "no crash", it checks properties:
 * a parsed head lies within the input, and the chunked scanner gives the same
 * answer whether the body arrives at once or a byte at a time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int scan_in_steps(const char *p, size_t n, size_t step, size_t *used_total)
{
	struct http_chunked c = {0};
	size_t off = 0, used;
	while (off < n) {
		size_t len = n - off < step ? n - off : step;
		int rc = http_chunked_scan(&c, p + off, len, &used);
		if (rc != 0) {
			*used_total = off + used;
			return rc;
		}
		off += len;
	}
	*used_total = n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct http_msg m;
	if (size < 1)
		return 0;
	const char *p = (const char *)data + 1;
	size_t n = size - 1;
	int rc;

	switch (data[0] % 4) {
	case 0:
		rc = http_parse_request(p, n, &m);
		if (rc > 0) {
			if ((size_t)rc > n || m.n_headers > HTTP_MAX_HEADERS || m.method.n == 0)
				abort();
			struct http_target t;
			http_parse_target(m.target, http_str_ieq(m.method, "CONNECT"), &t);
			if (m.body == HTTP_BODY_CLOSE)
				abort(); /* requests never read until close */
		}
		break;
	case 1:
		rc = http_parse_response(p, n, data[0] & 4, &m);
		if (rc > 0 && ((size_t)rc > n || m.status < 100 || m.status > 999))
			abort();
		break;
	case 2: {
		size_t u1, u2;
		int r1 = scan_in_steps(p, n, n ? n : 1, &u1);
		int r2 = scan_in_steps(p, n, 1, &u2);
		if (r1 != r2 || (r1 == 1 && u1 != u2))
			abort();
		break;
	}
	case 3: {
		struct http_target t;
		struct http_str s = {p, n};
		if (http_parse_target(s, data[0] & 4, &t) == 0 && t.host.n > n)
			abort();
		break;
	}
	}
	return 0;
}
