/* Aho-Corasick over the secrets and their encodings. See guard.h.
 *
 * The trie is sparse (a node's edges are a sorted run in one array) except at the
 * root, whose 256 transitions are a table: most bytes of a body leave the root
 * for the root, so a scan costs a table lookup per byte until something
 * resembles a pattern. Each node carries what the patterns ending there or at its
 * dictionary suffixes say, folded into one mask and one secret, so a match costs
 * two assignments. */
#include "guard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PATTERN 4

struct edge {
	unsigned char byte;
	uint32_t to;
};

struct node {
	uint32_t fail;
	uint32_t first; /* its edges: edges[first .. first + n) */
	uint32_t n;
	int32_t secret;
	uint64_t placeholders;
};

struct guard {
	unsigned refs;
	struct node *nodes;
	size_t n_nodes;
	struct edge *edges;
	uint32_t root[256];
	size_t max_len, n_patterns;
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
	size_t max_len, n_patterns;
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

static int cmp_edge(const void *a, const void *b)
{
	return (int)((const struct edge *)a)->byte - (int)((const struct edge *)b)->byte;
}

struct guard *guard_build(struct guard_builder *b)
{
	if (b->failed)
		return NULL;
	struct guard *g = calloc(1, sizeof(*g));
	uint32_t *fail = calloc(b->n, sizeof(uint32_t));
	uint32_t *queue = calloc(b->n, sizeof(uint32_t));
	size_t n_edges = 0;
	for (size_t i = 0; i < b->n; i++)
		n_edges += b->nodes[i].n;
	if (g) {
		g->nodes = calloc(b->n, sizeof(*g->nodes));
		g->edges = calloc(n_edges + 1, sizeof(*g->edges));
	}
	if (!g || !fail || !queue || !g->nodes || !g->edges) {
		free(fail);
		free(queue);
		if (g) {
			free(g->nodes);
			free(g->edges);
		}
		free(g);
		return NULL;
	}
	/* Breadth first: a node's failure link (and what it inherits) is known before its
	 * children's. */
	size_t head = 0, tail = 0;
	for (uint32_t i = 0; i < b->nodes[0].n; i++) {
		uint32_t t = b->nodes[0].e[i].to;
		fail[t] = 0;
		queue[tail++] = t;
	}
	while (head < tail) {
		uint32_t v = queue[head++];
		struct bnode *bv = &b->nodes[v];
		uint32_t f = fail[v];
		bv->placeholders |= b->nodes[f].placeholders;
		if (bv->secret < 0)
			bv->secret = b->nodes[f].secret;
		for (uint32_t i = 0; i < bv->n; i++) {
			uint32_t t = bv->e[i].to;
			fail[t] = v == 0 ? 0 : bstep(b, fail, f, bv->e[i].byte);
			queue[tail++] = t;
		}
	}
	size_t e = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct bnode *bv = &b->nodes[i];
		struct node *nv = &g->nodes[i];
		nv->fail = fail[i];
		nv->first = (uint32_t)e;
		nv->n = bv->n;
		nv->secret = bv->secret;
		nv->placeholders = bv->placeholders;
		if (bv->n) {
			memcpy(g->edges + e, bv->e, bv->n * sizeof(*bv->e));
			qsort(g->edges + e, bv->n, sizeof(*bv->e), cmp_edge);
		}
		e += bv->n;
	}
	for (int c = 0; c < 256; c++)
		g->root[c] = child_of(&b->nodes[0], (unsigned char)c);
	g->n_nodes = b->n;
	g->max_len = b->max_len;
	g->n_patterns = b->n_patterns;
	g->refs = 1;
	free(fail);
	free(queue);
	return g;
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
	return 0;
}

void guard_feed(const struct guard *g, struct guard_scan *s, const char *p, size_t n)
{
	if (!g)
		return;
	const unsigned char *u = (const unsigned char *)p;
	uint32_t st = s->state;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		if (st == 0) {
			st = g->root[c];
			if (!st)
				continue;
		} else {
			uint32_t t;
			while (!(t = child(g, &g->nodes[st], c)) && st)
				st = g->nodes[st].fail;
			st = t ? t : g->root[c];
			if (!st)
				continue;
		}
		const struct node *v = &g->nodes[st];
		if (v->placeholders | (uint64_t)(v->secret >= 0)) {
			s->placeholders |= v->placeholders;
			if (s->secret < 0)
				s->secret = v->secret;
		}
	}
	s->state = st;
}
