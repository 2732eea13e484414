/* Aho-Corasick over the secrets and their encodings. See guard.h.
 *
 * The shallow nodes (the root and depth 1 and 2) have a full row of
 * transitions, failure links folded in, over byte classes (the bytes the
 * patterns use, and one class for all others): text that only resembles the
 * first bytes of some pattern, which is most text once base64 and hex forms are
 * patterns, costs one table lookup a byte. Deeper nodes, mostly chains of one
 * edge, are sparse (a node's edges are a sorted run in one array) and fall back
 * along their failure links to a shallow node. Each node carries what the
 * patterns ending there or at its dictionary suffixes say, folded into one mask
 * and one secret, so a match costs two assignments.
 *
 * Even so the automaton reads every byte, and a body is mostly text where no
 * pattern is. So a prefilter runs first (Wu-Manber's sampling): every pattern is
 * at least m bytes long (m capped at GUARD_TAIL), so an occurrence starting at s
 * holds the 4 bytes at the one multiple of step = m - 3 in [s, s + m - 4], at an
 * offset of at most m - 4 into the pattern. Those 4-byte grams of every pattern
 * are bits of a hashed set; the scan tests one gram every step bytes, and only
 * where one is in the set does the automaton run, from the root, over the starts
 * that gram vouches for, and on while a match begun there may still be in
 * progress. Its state carries over between runs and chunks (it only ever skips
 * bytes where no match can start); the last GUARD_TAIL bytes are kept, for a run
 * whose starts lie in an earlier chunk. */
#include "guard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PATTERN 4
#define DENSE_DEPTH 2
#define GRAM        4
#define FILTER_MIN  8 /* shorter patterns: the automaton over every byte */

/* Nodes are numbered breadth first, so the shallow ones, which have dense rows,
 * are 0 .. n_dense-1. A state below `lim` (n_dense * n_cls) is a shallow node's
 * row offset (its number * n_cls: no multiplication on the way) where no pattern
 * ends; any other state is lim + the node's number: a deep node, or one where a
 * pattern ends (at it or at one of its dictionary suffixes). So the common case,
 * text wandering among the shallow nodes, costs one comparison and one lookup. */

struct edge {
	unsigned char byte;
	uint32_t to;
};

struct node {
	uint32_t fail;  /* a state */
	uint32_t first; /* its edges: edges[first .. first + n) */
	uint16_t n;     /* at most 256 */
	uint16_t out;   /* a pattern ends here or at a dictionary suffix */
	uint32_t depth; /* the length of the prefix it stands for */
	int32_t secret;
	uint64_t placeholders;
};

struct guard {
	unsigned refs;
	struct node *nodes;
	size_t n_nodes;
	struct edge *edges;
	uint8_t cls[256]; /* byte -> class; 0: no pattern has it */
	size_t n_cls;
	uint32_t *dense; /* n_dense rows of n_cls states */
	uint32_t n_dense, lim;
	size_t max_len, min_len, n_patterns;
	/* The prefilter; grams == NULL: none. */
	uint64_t *grams;
	unsigned gram_shift; /* 32 - log2(bits) */
	uint32_t step, span; /* span = m - GRAM: the starts one gram vouches for, less one */
};

/* While building: per node a growable edge list. */
struct bnode {
	struct edge *e;
	uint32_t n, cap;
	int32_t secret;
	uint64_t placeholders;
};

struct guard_builder {
	struct bnode *nodes;
	size_t n, cap;
	size_t max_len, min_len, n_patterns;
	bool failed;
};

struct guard_builder *guard_builder_new(void)
{
	struct guard_builder *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->nodes = calloc(64, sizeof(*b->nodes));
	if (!b->nodes) {
		free(b);
		return NULL;
	}
	b->cap = 64;
	b->n = 1;
	b->nodes[0].secret = -1;
	return b;
}

void guard_builder_free(struct guard_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		free(b->nodes[i].e);
	free(b->nodes);
	free(b);
}

static uint32_t child_of(const struct bnode *n, unsigned char c)
{
	for (uint32_t i = 0; i < n->n; i++)
		if (n->e[i].byte == c)
			return n->e[i].to;
	return 0;
}

static int add_raw(struct guard_builder *b, const unsigned char *s, size_t n, uint16_t src)
{
	if (n < MIN_PATTERN)
		return 0;
	uint32_t cur = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t next = child_of(&b->nodes[cur], s[i]);
		if (!next) {
			if (b->n == b->cap) {
				size_t cap = b->cap * 2;
				struct bnode *nn = realloc(b->nodes, cap * sizeof(*nn));
				if (!nn)
					return -ENOMEM;
				memset(nn + b->cap, 0, (cap - b->cap) * sizeof(*nn));
				b->nodes = nn;
				b->cap = cap;
			}
			if (b->n >= UINT32_MAX / 2)
				return -E2BIG;
			struct bnode *p = &b->nodes[cur];
			if (p->n == p->cap) {
				uint32_t cap = p->cap ? p->cap * 2 : 2;
				struct edge *e = realloc(p->e, cap * sizeof(*e));
				if (!e)
					return -ENOMEM;
				p->e = e;
				p->cap = cap;
			}
			next = (uint32_t)b->n++;
			b->nodes[next].secret = -1;
			p->e[p->n++] = (struct edge){s[i], next};
		}
		cur = next;
	}
	struct bnode *end = &b->nodes[cur];
	if (src & GUARD_PLACEHOLDER)
		end->placeholders |= 1ull << (src & 63);
	else if (end->secret < 0)
		end->secret = src;
	if (n > b->max_len)
		b->max_len = n;
	if (!b->min_len || n < b->min_len)
		b->min_len = n;
	b->n_patterns++;
	return 0;
}

static const char b64std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t guard_base64(const unsigned char *in, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[o++] = b64std[v >> 18 & 63];
		out[o++] = b64std[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64std[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64std[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

long guard_unbase64(const char *in, size_t n, unsigned char *out)
{
	uint32_t acc = 0;
	int bits = 0;
	long o = 0;
	while (n && in[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		const char *p = in[i] ? strchr(b64std, in[i]) : NULL;
		if (!p)
			return -1;
		acc = acc << 6 | (uint32_t)(p - b64std);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return bits >= 6 ? -1 : o;
}

/* The characters of base64(k unknown bytes + s + unknown bytes) that only s decides. */
static int add_base64(struct guard_builder *b, const unsigned char *s, size_t n, uint16_t src)
{
	for (unsigned k = 0; k < 3; k++) {
		size_t len = k + n;
		unsigned char *in = calloc(len + 3, 1);
		char *enc = malloc((len + 3) / 3 * 4 + 1);
		if (!in || !enc) {
			free(in);
			free(enc);
			return -ENOMEM;
		}
		memcpy(in + k, s, n);
		/* Encode without padding logic: all groups full (zeros beyond s). */
		size_t o = 0;
		for (size_t i = 0; i < len; i += 3) {
			uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
			for (int j = 18; j >= 0; j -= 6)
				enc[o++] = (char)(v >> j & 63);
		}
		size_t from = (8 * k + 5) / 6, to = 8 * len / 6;
		int rc = 0;
		for (int alpha = 0; alpha < 2 && rc == 0; alpha++) {
			const char *tab = alpha ? b64url : b64std;
			unsigned char *pat = malloc(to - from + 1);
			bool differs = false;
			if (!pat) {
				rc = -ENOMEM;
				break;
			}
			for (size_t i = from; i < to; i++) {
				pat[i - from] = (unsigned char)tab[(unsigned char)enc[i]];
				differs |= enc[i] >= 62;
			}
			if (alpha == 0 || differs)
				rc = add_raw(b, pat, to - from, src);
			free(pat);
		}
		free(in);
		free(enc);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

int guard_add(struct guard_builder *b, const char *str, size_t n, uint16_t src, bool encoded)
{
	const unsigned char *s = (const unsigned char *)str;
	int rc = add_raw(b, s, n, src);
	if (rc < 0 || !encoded || n < MIN_PATTERN) {
		b->failed |= rc < 0;
		return rc;
	}
	unsigned char *t = malloc(3 * n + 1);
	if (!t) {
		b->failed = true;
		return -ENOMEM;
	}
	/* Lower case: host names are compared without case. */
	bool upper = false;
	for (size_t i = 0; i < n; i++) {
		t[i] = s[i] >= 'A' && s[i] <= 'Z' ? (unsigned char)(s[i] + 32) : s[i];
		upper |= t[i] != s[i];
	}
	if (upper)
		rc = add_raw(b, t, n, src);
	for (int up = 0; up < 2 && rc == 0; up++) {
		const char *hex = up ? "0123456789ABCDEF" : "0123456789abcdef";
		for (size_t i = 0; i < n; i++) {
			t[2 * i] = (unsigned char)hex[s[i] >> 4];
			t[2 * i + 1] = (unsigned char)hex[s[i] & 15];
		}
		rc = add_raw(b, t, 2 * n, src);
		/* Every byte percent-encoded. */
		for (size_t i = 0; rc == 0 && i < n; i++) {
			t[3 * i] = '%';
			t[3 * i + 1] = (unsigned char)hex[s[i] >> 4];
			t[3 * i + 2] = (unsigned char)hex[s[i] & 15];
		}
		if (rc == 0)
			rc = add_raw(b, t, 3 * n, src);
		/* Percent-encoded: only when something is escaped at all. */
		size_t o = 0;
		bool escaped = false;
		for (size_t i = 0; i < n; i++) {
			if (unreserved(s[i])) {
				t[o++] = s[i];
			} else {
				t[o++] = '%';
				t[o++] = (unsigned char)hex[s[i] >> 4];
				t[o++] = (unsigned char)hex[s[i] & 15];
				escaped = true;
			}
		}
		if (rc == 0 && escaped)
			rc = add_raw(b, t, o, src);
	}
	free(t);
	if (rc == 0)
		rc = add_base64(b, s, n, src);
	b->failed |= rc < 0;
	return rc;
}

static uint32_t bstep(const struct guard_builder *b, const uint32_t *fail, uint32_t s,
                      unsigned char c)
{
	for (;;) {
		uint32_t t = child_of(&b->nodes[s], c);
		if (t)
			return t;
		if (s == 0)
			return 0;
		s = fail[s];
	}
}

static inline uint32_t gram_hash(uint32_t w, unsigned shift)
{
	return (w * 0x9e3779b1u) >> shift;
}

static inline bool gram_in(const struct guard *g, uint32_t w)
{
	uint32_t h = gram_hash(w, g->gram_shift);
	return g->grams[h >> 6] >> (h & 63) & 1;
}

/* The grams at offsets 0 .. m - GRAM of every pattern: the last GRAM bytes on the
 * way to each node of depth GRAM .. m (breadth first: parents before children). */
static int build_filter(struct guard *g, const struct guard_builder *b, const uint32_t *order,
                        const uint32_t *depth)
{
	size_t n = b->n, m = b->min_len < GUARD_TAIL ? b->min_len : GUARD_TAIL, count = 0;
	if (m < FILTER_MIN)
		return 0;
	for (size_t i = 0; i < n; i++)
		count += depth[i] >= GRAM && depth[i] <= m;
	/* About 1 bit in 32 set: a gram of text that no pattern has passes 3% of the
	 * time. At most 2^20 bits (128 KiB). */
	unsigned log2 = 12;
	while (log2 < 20 && ((size_t)1 << log2) < count * 32)
		log2++;
	uint32_t *word = calloc(n, sizeof(uint32_t));
	g->grams = calloc((size_t)1 << (log2 - 6), sizeof(uint64_t));
	if (!word || !g->grams) {
		free(word);
		return -ENOMEM;
	}
	g->gram_shift = 32 - log2;
	for (size_t i = 0; i < n; i++) {
		const struct bnode *bv = &b->nodes[order[i]];
		for (uint32_t k = 0; k < bv->n; k++) {
			uint32_t t = bv->e[k].to;
			/* Byte by byte as the scan assembles them: first byte lowest. */
			word[t] = word[order[i]] >> 8 | (uint32_t)bv->e[k].byte << 24;
			if (depth[t] >= GRAM && depth[t] <= m) {
				uint32_t h = gram_hash(word[t], g->gram_shift);
				g->grams[h >> 6] |= 1ull << (h & 63);
			}
		}
	}
	free(word);
	g->span = (uint32_t)(m - GRAM);
	g->step = g->span + 1;
	return 0;
}

static int cmp_edge(const void *a, const void *b)
{
	return (int)((const struct edge *)a)->byte - (int)((const struct edge *)b)->byte;
}

struct guard *guard_build(struct guard_builder *b)
{
	if (b->failed)
		return NULL;
	size_t n = b->n, n_edges = 0;
	for (size_t i = 0; i < n; i++)
		n_edges += b->nodes[i].n;
	struct guard *g = calloc(1, sizeof(*g));
	uint32_t *fail = calloc(n, sizeof(uint32_t));  /* by builder number */
	uint32_t *order = calloc(n, sizeof(uint32_t)); /* breadth first */
	uint32_t *num = calloc(n, sizeof(uint32_t));   /* builder number -> state */
	uint32_t *depth = calloc(n, sizeof(uint32_t)); /* by builder number */
	if (g) {
		g->refs = 1;
		g->nodes = calloc(n, sizeof(*g->nodes));
		g->edges = calloc(n_edges + 1, sizeof(*g->edges));
	}
	if (!g || !fail || !order || !num || !depth || !g->nodes || !g->edges)
		goto fail;

	/* Breadth first: a node's failure link (and what it inherits) is known before
	 * its children's. */
	size_t head = 0, tail = 0;
	order[tail++] = 0;
	while (head < tail) {
		uint32_t v = order[head++];
		struct bnode *bv = &b->nodes[v];
		if (v) {
			uint32_t f = fail[v];
			bv->placeholders |= b->nodes[f].placeholders;
			if (bv->secret < 0)
				bv->secret = b->nodes[f].secret;
		}
		for (uint32_t i = 0; i < bv->n; i++) {
			uint32_t t = bv->e[i].to;
			fail[t] = v == 0 ? 0 : bstep(b, fail, fail[v], bv->e[i].byte);
			depth[t] = depth[v] + 1;
			order[tail++] = t;
		}
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t v = order[i];
		if (depth[v] <= DENSE_DEPTH)
			g->n_dense = (uint32_t)i + 1;
		for (uint32_t k = 0; k < b->nodes[v].n; k++)
			g->cls[b->nodes[v].e[k].byte] = 1; /* used: numbered below */
	}
	g->n_cls = 1;
	for (int c = 0; c < 256; c++)
		g->cls[c] = g->cls[c] ? (uint8_t)g->n_cls++ : 0;
	if ((uint64_t)g->n_dense * g->n_cls + n >= UINT32_MAX)
		goto fail;
	g->lim = (uint32_t)(g->n_dense * g->n_cls);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = order[i];
		bool out = b->nodes[v].placeholders || b->nodes[v].secret >= 0;
		num[v] = i < g->n_dense && !out ? (uint32_t)(i * g->n_cls) : g->lim + (uint32_t)i;
	}

	size_t e = 0;
	for (size_t i = 0; i < n; i++) {
		struct bnode *bv = &b->nodes[order[i]];
		struct node *nv = &g->nodes[i];
		nv->fail = num[fail[order[i]]];
		nv->fail = nv->fail >= g->lim ? nv->fail - g->lim : nv->fail / (uint32_t)g->n_cls;
		nv->first = (uint32_t)e;
		nv->n = (uint16_t)bv->n;
		nv->out = bv->placeholders || bv->secret >= 0;
		nv->depth = depth[order[i]];
		nv->secret = bv->secret;
		nv->placeholders = bv->placeholders;
		for (uint32_t k = 0; k < bv->n; k++)
			g->edges[e + k] = (struct edge){bv->e[k].byte, num[bv->e[k].to]};
		qsort(g->edges + e, bv->n, sizeof(*g->edges), cmp_edge);
		e += bv->n;
	}
	/* Rows of the shallow nodes: their edges, else their failure node's row,
	 * which is shallower and so made before. */
	g->dense = calloc((size_t)g->n_dense * g->n_cls, sizeof(uint32_t));
	if (!g->dense)
		goto fail;
	for (uint32_t v = 0; v < g->n_dense; v++) {
		uint32_t *row = g->dense + (size_t)v * g->n_cls;
		if (v)
			memcpy(row, g->dense + (size_t)g->nodes[v].fail * g->n_cls,
			       g->n_cls * sizeof(uint32_t));
		const struct node *nv = &g->nodes[v];
		for (uint32_t k = 0; k < nv->n; k++)
			row[g->cls[g->edges[nv->first + k].byte]] = g->edges[nv->first + k].to;
	}
	if (build_filter(g, b, order, depth) < 0)
		goto fail;
	g->n_nodes = n;
	g->max_len = b->max_len;
	g->min_len = b->min_len;
	g->n_patterns = b->n_patterns;
	free(fail);
	free(order);
	free(num);
	free(depth);
	return g;
fail:
	free(fail);
	free(order);
	free(num);
	free(depth);
	guard_unref(g);
	return NULL;
}

struct guard *guard_ref(struct guard *g)
{
	if (g)
		g->refs++;
	return g;
}

void guard_unref(struct guard *g)
{
	if (!g || --g->refs)
		return;
	free(g->nodes);
	free(g->edges);
	free(g->dense);
	free(g->grams);
	free(g);
}

size_t guard_max_len(const struct guard *g)
{
	return g ? g->max_len : 0;
}

size_t guard_patterns(const struct guard *g)
{
	return g ? g->n_patterns : 0;
}

void guard_scan_init(struct guard_scan *s)
{
	*s = (struct guard_scan){.secret = -1};
}

static inline uint32_t child(const struct guard *g, const struct node *v, unsigned char c)
{
	const struct edge *e = g->edges + v->first;
	for (uint32_t i = 0; i < v->n; i++) {
		if (e[i].byte == c)
			return e[i].to;
		if (e[i].byte > c)
			break;
	}
	return UINT32_MAX;
}

/* At a state past the shallow ones without output: a deep one, or one where a
 * pattern ends. */
static inline void report(const struct guard *g, struct guard_scan *s, uint32_t st)
{
	const struct node *o = &g->nodes[st - g->lim];
	if (!o->out)
		return;
	s->placeholders |= o->placeholders;
	if (s->secret < 0)
		s->secret = o->secret;
}

/* The automaton over every byte of u[0 .. n). */
static void run(const struct guard *g, struct guard_scan *s, const unsigned char *u, size_t n)
{
	const unsigned char *end = u + n;
	const uint32_t *dense = g->dense;
	const uint8_t *cls = g->cls;
	const uint32_t n_dense = g->n_dense, lim = g->lim, nc = (uint32_t)g->n_cls;
	uint32_t st = s->state;
	while (u < end) {
		if (st < lim) {
			/* The common case, in a loop of its own: a lookup a byte. */
			do
				st = dense[st + cls[*u++]];
			while (st < lim && u < end);
			if (st >= lim)
				report(g, s, st);
			continue;
		}
		unsigned char c = *u++;
		uint32_t v = st - lim;
		if (v < n_dense) {
			st = dense[v * nc + cls[c]];
		} else {
			/* Down the failure links to a node with the edge, or a shallow one. */
			while ((st = child(g, &g->nodes[v], c)) == UINT32_MAX) {
				v = g->nodes[v].fail;
				if (v < n_dense) {
					st = dense[v * nc + cls[c]];
					break;
				}
			}
		}
		if (st >= lim)
			report(g, s, st);
	}
	s->state = st;
}

/* How many more bytes the automaton must read at stream position cur before it
 * may stop: 0 when no match begun before s->ac_end can still be open (the prefix
 * the state stands for begins later). Reading on further is only work, so the
 * answer need not be exact, only never too small. */
static uint64_t must_read(const struct guard *g, const struct guard_scan *s, uint64_t cur)
{
	if (cur < s->ac_end)
		return s->ac_end - cur;
	uint64_t past = cur - s->ac_end;
	uint32_t st = s->state, d;
	if (st < g->lim) {
		if (past >= DENSE_DEPTH)
			return 0; /* shallow: depth at most DENSE_DEPTH */
		d = g->nodes[st / (uint32_t)g->n_cls].depth;
	} else {
		d = g->nodes[st - g->lim].depth;
	}
	/* The open prefix begins at cur - d: only a match from before ac_end counts,
	 * and one that is still open then has to be at least this much longer. */
	return d > past ? d - past : 0;
}

/* The automaton from s->ac_pos (in this chunk) on, as far as it is needed. */
static void advance(const struct guard *g, struct guard_scan *s, const unsigned char *u,
                    uint64_t base, uint64_t end)
{
	uint64_t cur = s->ac_pos, k;
	while (cur < end && (k = must_read(g, s, cur))) {
		if (k > end - cur)
			k = end - cur;
		run(g, s, u + (cur - base), (size_t)k);
		cur += k;
	}
	s->ac_pos = cur;
}

/* Stream byte x, from this chunk or the kept tail of earlier ones. */
static inline unsigned char byte_at(const struct guard_scan *s, const unsigned char *u,
                                    uint64_t base, uint64_t x)
{
	return x >= base ? u[x - base] : s->tail[GUARD_TAIL - (base - x)];
}

static void filtered(const struct guard *g, struct guard_scan *s, const unsigned char *u, size_t n)
{
	uint64_t base = s->pos, end = base + n, q = s->next;
	if (s->ac_pos == base)
		advance(g, s, u, base, end); /* a run the last chunk ended in the middle of */
	for (; q + GRAM <= end; q += g->step) {
		uint32_t w;
		if (q >= base) {
			const unsigned char *p = u + (q - base);
			w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			    (uint32_t)p[3] << 24;
		} else {
			w = 0;
			for (unsigned k = 0; k < GRAM; k++)
				w |= (uint32_t)byte_at(s, u, base, q + k) << (8 * k);
		}
		if (!gram_in(g, w))
			continue;
		/* Starts q - span .. q may hold a pattern: the automaton over them, from
		 * the root unless it already got this far. */
		uint64_t from = q > g->span ? q - g->span : 0;
		if (s->ac_pos < from) {
			s->state = 0;
			s->ac_pos = from;
		}
		if (s->ac_end < q + 1)
			s->ac_end = q + 1;
		if (s->ac_pos < base) {
			unsigned char early[GUARD_TAIL];
			size_t k = (size_t)(base - s->ac_pos);
			memcpy(early, s->tail + GUARD_TAIL - k, k);
			run(g, s, early, k);
			s->ac_pos = base;
		}
		advance(g, s, u, base, end);
	}
	s->next = q;
	if (n >= GUARD_TAIL) {
		memcpy(s->tail, u + n - GUARD_TAIL, GUARD_TAIL);
	} else {
		memmove(s->tail, s->tail + n, GUARD_TAIL - n);
		memcpy(s->tail + GUARD_TAIL - n, u, n);
	}
	s->pos = end;
}

void guard_feed(const struct guard *g, struct guard_scan *s, const char *p, size_t n)
{
	if (!g || !n)
		return;
	if (g->grams)
		filtered(g, s, (const unsigned char *)p, n);
	else
		run(g, s, (const unsigned char *)p, n);
}
