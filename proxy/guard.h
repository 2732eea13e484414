/* The exfiltration guard's matcher: every declared secret and every placeholder,
 * as it is and in lower case, base64 (standard and URL alphabets, at each of the
 * three alignments a substring can have), hex (lower and upper case) and
 * percent-encoded (the reserved bytes or every byte; upper and lower case hex
 * digits), in one Aho-Corasick automaton behind a sampling prefilter. A scan
 * carries a fixed-size state (struct guard_scan) from chunk to chunk, so a body
 * of any length is checked in constant memory, and a match split across reads is
 * still found. Pure code. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a pattern is: a placeholder of binding i, or a secret (a binding's real
 * value, or one read from a guard file). */
#define GUARD_PLACEHOLDER 0x8000u
#define GUARD_FILE        0x4000u /* with a secret: the index is a guard file's */
#define GUARD_INDEX       0x3fffu

struct guard;
struct guard_builder;

struct guard_builder *guard_builder_new(void);
void guard_builder_free(struct guard_builder *b);
/* The string and its encodings (encoded = false: only as it is). src: see above;
 * placeholders are bindings 0..63. Patterns shorter than 4 bytes are ignored. */
int guard_add(struct guard_builder *b, const char *s, size_t n, uint16_t src, bool encoded);
/* The automaton (refcount 1); the builder can be freed. NULL: out of memory. */
struct guard *guard_build(struct guard_builder *b);
struct guard *guard_ref(struct guard *g);
void guard_unref(struct guard *g);

/* The longest pattern: hold back one byte less of a stream than this, and a match
 * is always found before any byte of it was let through. */
size_t guard_max_len(const struct guard *g);
size_t guard_patterns(const struct guard *g);

#define GUARD_TAIL 64 /* bytes of a stream a scan keeps (the prefilter's reach) */

struct guard_scan {
	uint64_t placeholders; /* bit i: a placeholder of binding i was seen */
	int32_t secret;        /* the first secret's source (GUARD_FILE | i, or i), or -1 */
	uint32_t state;        /* the automaton's */
	/* The prefilter's (guard.c): stream positions. */
	uint64_t pos;    /* bytes fed */
	uint64_t next;   /* the next gram to test */
	uint64_t ac_pos; /* the automaton has read the stream up to here */
	uint64_t ac_end; /* and must read on while a match begun before this may be open */
	unsigned char tail[GUARD_TAIL]; /* the stream's last bytes */
};

void guard_scan_init(struct guard_scan *s);
void guard_feed(const struct guard *g, struct guard_scan *s, const char *p, size_t n);
static inline bool guard_hit(const struct guard_scan *s)
{
	return s->placeholders || s->secret >= 0;
}

/* Encodings, for the injection of Basic credentials and for tests. */
size_t guard_base64(const unsigned char *in, size_t n, char *out); /* out: 4*ceil(n/3)+1 */
/* -1: not base64 (padding optional); else the decoded length. out: n*3/4+3 */
long guard_unbase64(const char *in, size_t n, unsigned char *out);
