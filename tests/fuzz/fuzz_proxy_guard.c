/* libFuzzer harness for the guard's matcher, differential: the first bytes give
 * up to 8 patterns (lengths, then bytes), the rest is a stream fed in pieces of
 * fuzzer-chosen sizes. Every pattern the stream holds as it is must be found
 * (the state carries over between pieces, as over reads of a body), and no
 * pattern may be reported that it does not hold, in any encoding the guard
 * knows. Also: base64 round trips. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool holds(const uint8_t *hay, size_t n, const uint8_t *p, size_t k)
{
	for (size_t i = 0; k && i + k <= n; i++)
		if (memcmp(hay + i, p, k) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t np = data[0] % 9, pos = 1;
	const uint8_t *pat[8];
	size_t plen[8];
	size_t n = 0;
	for (size_t i = 0; i < np && pos < size; i++) {
		size_t l = 4 + data[pos++] % 24;
		if (pos + l > size)
			break;
		pat[n] = data + pos;
		plen[n++] = l;
		pos += l;
	}
	const uint8_t *stream = data + pos;
	size_t sl = size - pos;

	/* Raw patterns only: the automaton and a naive search agree exactly. */
	struct guard_builder *b = guard_builder_new();
	if (!b)
		return 0;
	for (size_t i = 0; i < n; i++)
		guard_add(b, (const char *)pat[i], plen[i], (uint16_t)(GUARD_PLACEHOLDER | i),
		          false);
	struct guard *g = guard_build(b);
	guard_builder_free(b);
	if (!g)
		return 0;
	struct guard_scan s;
	guard_scan_init(&s);
	size_t off = 0, step = 1 + (sl ? stream[0] % 17 : 0);
	while (off < sl) {
		size_t k = sl - off < step ? sl - off : step;
		guard_feed(g, &s, (const char *)stream + off, k);
		off += k;
		step = 1 + (step * 7 + 3) % 23;
	}
	for (size_t i = 0; i < n; i++) {
		bool want = holds(stream, sl, pat[i], plen[i]);
		bool got = s.placeholders & (1ull << i);
		/* The same bytes may be given twice under two ids: a hit for one is a hit
		 * for the other, which the naive search sees too. */
		if (want != got)
			abort();
	}
	guard_unref(g);

	/* With the encodings: what is there as it is is still found. */
	b = guard_builder_new();
	if (!b)
		return 0;
	for (size_t i = 0; i < n; i++)
		guard_add(b, (const char *)pat[i], plen[i], (uint16_t)i, true);
	g = guard_build(b);
	guard_builder_free(b);
	if (g) {
		guard_scan_init(&s);
		guard_feed(g, &s, (const char *)stream, sl);
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= holds(stream, sl, pat[i], plen[i]);
		if (any && s.secret < 0)
			abort();
		guard_unref(g);
	}

	/* base64 */
	char *enc = malloc((sl + 2) / 3 * 4 + 1);
	unsigned char *dec = malloc(sl + 4);
	if (enc && dec) {
		size_t el = guard_base64(stream, sl, enc);
		long dl = guard_unbase64(enc, el, dec);
		if (dl != (long)sl || (sl && memcmp(dec, stream, sl) != 0))
			abort();
		guard_unbase64((const char *)stream, sl, dec);
	}
	free(enc);
	free(dec);
	return 0;
}
