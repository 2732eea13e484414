/* The guard's matcher (proxy/guard.c): every encoding of a secret is found, in
 * one piece and split at every boundary, with text before it that skews where the
 * prefilter samples; near misses and other text are not; results agree with a
 * naive search on random streams fed in random pieces; empty and huge inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

static const char SECRET[] = "sk-live-Q7/x+Zr9=k2&pW4~mN8.tY1_cB5";
static const char PH[] = "sk-ant-api03-PLACEHOLDERplaceholder0123";

static struct guard *make(void)
{
	struct guard_builder *b = guard_builder_new();
	assert_non_null(b);
	assert_int_equal(guard_add(b, SECRET, strlen(SECRET), GUARD_FILE | 3, true), 0);
	assert_int_equal(guard_add(b, PH, strlen(PH), GUARD_PLACEHOLDER | 5, true), 0);
	struct guard *g = guard_build(b);
	guard_builder_free(b);
	assert_non_null(g);
	return g;
}

/* The encodings a client could send SECRET in. */
static size_t encodings(char out[][256])
{
	const unsigned char *s = (const unsigned char *)SECRET;
	size_t n = strlen(SECRET), k = 0;
	strcpy(out[k++], SECRET);
	for (size_t i = 0; i <= n; i++)
		out[k][i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	k++;
	for (int up = 0; up < 2; up++) {
		char *p = out[k++], *q = out[k++], *r = out[k++];
		for (size_t i = 0; i < n; i++) {
			char h[3];
			snprintf(h, sizeof(h), up ? "%02X" : "%02x", s[i]);
			p += sprintf(p, "%s", h);
			q += sprintf(q, "%%%s", h);
			bool plain = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			             (s[i] >= '0' && s[i] <= '9') || strchr("-._~", s[i]);
			r += plain ? sprintf(r, "%c", s[i]) : sprintf(r, "%%%s", h);
		}
	}
	/* base64 at the three alignments, standard and URL alphabets */
	for (unsigned pre = 0; pre < 3; pre++) {
		unsigned char in[128];
		memcpy(in, "ab", pre);
		memcpy(in + pre, s, n);
		guard_base64(in, pre + n, out[k]);
		strcpy(out[k + 1], out[k]);
		for (char *c = out[k + 1]; *c; c++)
			*c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
		k += 2;
	}
	return k;
}

static bool scan_pieces(const struct guard *g, const char *text, size_t n, const size_t *cuts,
                        size_t n_cuts, struct guard_scan *out)
{
	guard_scan_init(out);
	size_t at = 0;
	for (size_t i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : n;
		guard_feed(g, out, text + at, to - at);
		at = to;
	}
	return guard_hit(out);
}

static void test_every_encoding_every_split(void **state)
{
	struct guard *g = make();
	char enc[16][256];
	size_t k = encodings(enc);
	char text[512];
	for (size_t e = 0; e < k; e++) {
		/* Leading text shifts the occurrence against the prefilter's samples. */
		for (size_t lead = 0; lead < 70; lead += 3) {
			memset(text, 'q', lead);
			size_t el = strlen(enc[e]);
			memcpy(text + lead, enc[e], el);
			memcpy(text + lead + el, " tail", 6);
			size_t n = lead + el + 5;
			struct guard_scan s;
			for (size_t cut = 0; cut <= n; cut++) {
				assert_true(scan_pieces(g, text, n, &cut, 1, &s));
				assert_int_equal(s.secret, GUARD_FILE | 3);
				assert_int_equal(s.placeholders, 0);
			}
			/* Byte by byte, and in pieces of two and three around the match. */
			size_t cuts[512], m = 0;
			for (size_t i = 1; i < n; i++)
				cuts[m++] = i;
			assert_true(scan_pieces(g, text, n, cuts, m, &s));
			for (size_t a = lead; a < lead + el; a++)
				for (size_t b = a + 1; b < a + 4 && b < n; b++) {
					size_t two[2] = {a, b};
					assert_true(scan_pieces(g, text, n, two, 2, &s));
				}
		}
	}
	guard_unref(g);
}

static void test_found_when_its_last_byte_is_fed(void **state)
{
	struct guard *g = make();
	char text[256];
	memset(text, '.', 40);
	strcpy(text + 40, PH);
	size_t end = 40 + strlen(PH);
	struct guard_scan s;
	guard_scan_init(&s);
	guard_feed(g, &s, text, end - 1);
	assert_false(guard_hit(&s));
	guard_feed(g, &s, text + end - 1, 1);
	assert_true(guard_hit(&s));
	assert_int_equal(s.placeholders, 1ull << 5);
	assert_int_equal(s.secret, -1);
	guard_unref(g);
}

static void test_near_misses(void **state)
{
	struct guard *g = make();
	char enc[16][256];
	encodings(enc);
	struct guard_scan s;
	/* The plain, hex and percent forms with one byte changed, or cut short. */
	for (size_t e = 0; e < 8; e++) {
		size_t el = strlen(enc[e]);
		char t[300];
		for (size_t i = 0; i < el; i++) {
			memcpy(t, enc[e], el);
			t[i] = t[i] == '#' ? '!' : '#';
			guard_scan_init(&s);
			guard_feed(g, &s, t, el);
			assert_false(guard_hit(&s));
		}
		guard_scan_init(&s);
		guard_feed(g, &s, enc[e] + 1, el - 1);
		guard_feed(g, &s, " ", 1);
		guard_feed(g, &s, enc[e], el - 1);
		assert_false(guard_hit(&s));
	}
	/* base64 of the secret with one byte of it changed, at each alignment. */
	for (size_t i = 0; i < strlen(SECRET); i++)
		for (unsigned pre = 0; pre < 3; pre++) {
			unsigned char in[64];
			char out[128];
			memcpy(in, "ab", pre);
			memcpy(in + pre, SECRET, strlen(SECRET));
			in[pre + i] ^=
			    0xff; /* every bit: the last byte's low ones are in no pattern */
			guard_base64(in, pre + strlen(SECRET), out);
			guard_scan_init(&s);
			guard_feed(g, &s, out, strlen(out));
			assert_false(guard_hit(&s));
		}
	const char *text =
	    "POST /v1/messages HTTP/1.1\r\nx-api-key: sk-ant-api03-PLACEHOLDERplaceholder012\r\n"
	    "{\"content\":\"sk-live-Q7/x+Zr9=k2&pW4~mN8.tY1_cB\"}";
	guard_scan_init(&s);
	guard_feed(g, &s, text, strlen(text));
	assert_false(guard_hit(&s));
	guard_unref(g);
}

static void test_empty_and_huge(void **state)
{
	struct guard *g = make();
	struct guard_scan s;
	guard_scan_init(&s);
	guard_feed(g, &s, "", 0);
	guard_feed(g, &s, NULL, 0);
	assert_false(guard_hit(&s));
	/* An empty guard finds nothing, and no guard at all neither. */
	struct guard_builder *b = guard_builder_new();
	assert_non_null(b);
	assert_int_equal(guard_add(b, "abc", 3, 0, true), 0); /* too short: ignored */
	struct guard *none = guard_build(b);
	guard_builder_free(b);
	assert_non_null(none);
	assert_int_equal(guard_patterns(none), 0);
	guard_feed(none, &s, SECRET, strlen(SECRET));
	guard_feed(NULL, &s, SECRET, strlen(SECRET));
	assert_false(guard_hit(&s));
	guard_unref(none);

	/* 64 MiB of text like an agent's, in 64 KiB reads, then the secret split. */
	size_t chunk = 64 << 10;
	char *buf = malloc(chunk);
	assert_non_null(buf);
	const char *fill = "{\"role\":\"user\",\"content\":\"aGVsbG8gd29ybGQ= 0123456789abcdef\"} ";
	for (size_t i = 0; i < chunk; i++)
		buf[i] = fill[i % strlen(fill)];
	guard_scan_init(&s);
	for (int i = 0; i < 1024; i++)
		guard_feed(g, &s, buf, chunk - (size_t)(i & 7));
	assert_false(guard_hit(&s));
	guard_feed(g, &s, SECRET, 10);
	guard_feed(g, &s, SECRET + 10, strlen(SECRET) - 10);
	assert_true(guard_hit(&s));
	free(buf);
	guard_unref(g);
}

/* A naive search over the raw patterns against the automaton, on random streams
 * over a small alphabet (so patterns and near misses are frequent), fed in random
 * pieces; pattern sets with and without the prefilter (short patterns). */
static bool holds(const unsigned char *hay, size_t n, const unsigned char *p, size_t k)
{
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(hay + i, p, k) == 0)
			return true;
	return false;
}

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void test_agrees_with_naive_search(void **state)
{
	uint32_t x = 0x9e3779b9;
	for (int round = 0; round < 400; round++) {
		unsigned char pat[8][80];
		size_t plen[8], np = 1 + rnd(&x) % 8;
		size_t minl = round % 2 ? 4 : 8 + rnd(&x) % 60;
		struct guard_builder *b = guard_builder_new();
		assert_non_null(b);
		for (size_t i = 0; i < np; i++) {
			plen[i] = minl + rnd(&x) % 16;
			for (size_t j = 0; j < plen[i]; j++)
				pat[i][j] = (unsigned char)("abc"[rnd(&x) % 3]);
			assert_int_equal(guard_add(b, (const char *)pat[i], plen[i],
			                           (uint16_t)(GUARD_PLACEHOLDER | i), false),
			                 0);
		}
		struct guard *g = guard_build(b);
		guard_builder_free(b);
		assert_non_null(g);
		size_t n = rnd(&x) % 3000;
		unsigned char *text = malloc(n + 1);
		assert_non_null(text);
		for (size_t i = 0; i < n; i++)
			text[i] = (unsigned char)("abcd"[rnd(&x) % 4]);
		/* Plant a pattern sometimes, else they would hardly ever occur. */
		if (n > 100 && rnd(&x) % 2) {
			size_t i = rnd(&x) % np, at = rnd(&x) % (n - plen[i]);
			memcpy(text + at, pat[i], plen[i]);
		}
		struct guard_scan s;
		guard_scan_init(&s);
		for (size_t at = 0; at < n;) {
			size_t k = 1 + rnd(&x) % (rnd(&x) % 2 ? 5 : 200);
			k = k < n - at ? k : n - at;
			guard_feed(g, &s, (const char *)text + at, k);
			at += k;
		}
		for (size_t i = 0; i < np; i++) {
			bool want = holds(text, n, pat[i], plen[i]);
			bool got = s.placeholders >> i & 1;
			assert_int_equal(want, got);
		}
		free(text);
		guard_unref(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_encoding_every_split),
	    cmocka_unit_test(test_found_when_its_last_byte_is_fed),
	    cmocka_unit_test(test_near_misses),
	    cmocka_unit_test(test_empty_and_huge),
	    cmocka_unit_test(test_agrees_with_naive_search),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
