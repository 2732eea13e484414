/* libFuzzer harness for what the credentials read: the launcher's records
 * (netsecrets_parse: never reads past the buffer, and what it accepts encodes
 * back to the same bytes), the JSON scanner (a span it finds lies inside the
 * document and is itself valid JSON), and the placeholder maker (same length,
 * the prefix kept). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "netcreds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int reencode(void *arg, char tag, int index, const char *d, size_t n)
{
	return netsecrets_add(arg, tag, index, d, n);
}

static const uint8_t *rnd_src;
static size_t rnd_len;

static int rnd(void *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)buf)[i] = rnd_len ? rnd_src[i % rnd_len] : (uint8_t)i;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct netsecrets_buf b;
	if (netsecrets_begin(&b) == 0) {
		int rc = netsecrets_parse(buf, size, reencode, &b);
		if (rc == 0 && (netsecrets_end(&b) != 0 || b.len != size || memcmp(b.p, buf, size)))
			abort();
		netsecrets_buf_wipe(&b);
	}

	static const char *const paths[][2] = {{"claudeAiOauth", "accessToken"},
	                                       {"access_token", NULL}};
	for (int p = 0; p < 2; p++) {
		struct json_span s;
		int rc = json_find(buf, size, paths[p], paths[p][1] ? 2 : 1, &s);
		if (rc == 1) {
			struct json_span inner;
			const char *one[] = {"x"};
			if (s.off + s.len > size || s.len == 0 ||
			    json_find(buf + s.off, s.len, one, 1, &inner) < 0)
				abort();
			const char *sp;
			size_t sn;
			if (json_plain_string(buf, &s, &sp, &sn) &&
			    (sp < buf || sp + sn > buf + size))
				abort();
		}
	}

	if (size && size < NETCRED_VALUE_MAX) {
		rnd_src = data;
		rnd_len = size;
		char *ph = NULL;
		int n = netcred_placeholder(buf, size, NULL, rnd, &ph);
		if (n >= 0) {
			size_t pre = netcred_default_prefix(buf, size);
			if ((size_t)n < size || (size_t)n < pre + NETCRED_MIN_RANDOM ||
			    memcmp(ph, buf, pre) != 0 || strlen(ph) != (size_t)n)
				abort();
			free(ph);
		}
	}
	return 0;
}
