/* SPDX-License-Identifier: MIT */
/*
 * SBPL evaluator for the subset plugins/seatbelt emits. Written from these
 * sources (read, not copied):
 *
 *  [man]  sandbox-exec(1): a profile is a file given with -f; SBPL is a
 *         Scheme dialect, `;` starts a comment.
 *  [fG]   "Apple Sandbox Guide v1.0", fG!, reverse.put.as (2011): (version 1)
 *         first; (allow|deny OPERATION... FILTER...); several filters in one
 *         rule match when any does; require-all / require-any / require-not;
 *         literal = the exact path, subpath = the path and everything below it,
 *         regex = a POSIX-style extended regular expression; wildcard
 *         operations such as file-read* cover every file-read-... operation,
 *         `default` every operation.
 *  [sys]  the .sb files of /System/Library/Sandbox/Profiles as published in open-source
 *         mirrors (e.g. github.com/s7ephen/OSX-Sandbox--Seatbelt--Profiles),
 *         the .sb files of Chromium (sandbox/policy/mac): regexes written #"^...$" and
 *         matched as a search (a pattern without $ matches a prefix, as in
 *         (regex #"^/dev/ttys")); (target self|same-sandbox) for signal and
 *         process-info; (global-name ...) for mach-lookup.
 *  [moz]  Mozilla's security/sandbox/mac/SandboxPolicy*.h: "(deny default)"
 *         does not cover process-info*, nvram*, iokit-get-properties and
 *         file-map-executable; they are allowed unless denied.
 *  [srt]  anthropics/sandbox-runtime src/sandbox/macos-sandbox-utils.ts
 *         (observed on macOS): the last matching rule wins; the host in
 *         (remote ip "H:P") is "*" or "localhost" only; "localhost" matches
 *         127.0.0.1 and ::1 but not ::ffff:127.0.0.1, and in (local ip ...)
 *         also the any-address; unix sockets are (remote|local unix-socket
 *         (path-literal|subpath|path-regex ...)); socket() of AF_UNIX is
 *         system-socket; string literals longer than 1025 bytes are refused;
 *         and "a specific (deny file-write-unlink) is not overridden by a
 *         later (allow file-write*) wildcard", the observation SBE_SPECIFIC
 *         models next to the plain last-match reading (SBE_FLAT).
 *  [nono] nolabs-ai/nono issue 1763: AppleMatch does not support "(?:";
 *         plain groups and alternation work.
 *
 * What is not modelled: firmlinks and case-insensitive volumes (a path is
 * the string asked about), symlink resolution (queries use resolved paths,
 * as the kernel does), param/define/if/import, and any operation or filter
 * the generator does not emit (they are parse errors here, so a generator
 * bug cannot hide behind them).
 */
#include "sbpl_eval.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ s-exprs */

#define N_LIST  1
#define N_SYM   2
#define N_STR   3
#define N_REGEX 4 /* #"..." */
#define N_NUM   5

struct node {
	int kind;
	int line;
	char *text; /* SYM, STR, REGEX, NUM */
	struct node **kids;
	size_t n_kids;
};

struct reader {
	const char *s;
	size_t len, pos;
	int line;
	char *err;
	size_t err_len;
	int failed;
};

#if defined(__GNUC__)
#define SBE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SBE_PRINTF(f, a)
#endif

static void rfail(struct reader *r, const char *fmt, ...) SBE_PRINTF(2, 3);
static void rfail(struct reader *r, const char *fmt, ...)
{
	if (r->failed)
		return;
	r->failed = 1;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->err && r->err_len)
		snprintf(r->err, r->err_len, "line %d: %s", r->line, msg);
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len) {
		char c = r->s[r->pos];
		if (c == '\n') {
			r->line++;
			r->pos++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			r->pos++;
		} else if (c == ';') {
			while (r->pos < r->len && r->s[r->pos] != '\n')
				r->pos++;
		} else {
			break;
		}
	}
}

/* Valid UTF-8, no control byte: what a string literal may hold. */
static int utf8_ok(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;
		if (!k || c > 0xf4)
			return 0;
		for (size_t j = 1; j <= k; j++)
			if (i + j >= n || (p[i + j] & 0xc0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

static struct node *read_string(struct reader *r, int raw)
{
	/* [srt]: longer literals are refused by sandbox-exec. */
	char buf[1100];
	size_t n = 0;
	r->pos++; /* the quote */
	for (;;) {
		if (r->pos >= r->len) {
			rfail(r, "unterminated string");
			return NULL;
		}
		char c = r->s[r->pos++];
		if (c == '"')
			break;
		if (c == '\n') {
			rfail(r, "newline in a string");
			return NULL;
		}
		if (c == '\\' && !raw) {
			if (r->pos >= r->len) {
				rfail(r, "unterminated escape");
				return NULL;
			}
			/* The generator escapes \ and " only; anything else is a bug. */
			char e = r->s[r->pos++];
			if (e != '\\' && e != '"') {
				rfail(r, "escape \\%c is not in the subset", e);
				return NULL;
			}
			c = e;
		}
		if (n + 1 >= 1026) {
			rfail(r, "string longer than sandbox-exec reads");
			return NULL;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	if (!utf8_ok((const unsigned char *)buf, n)) {
		rfail(r, "string with a control character or invalid UTF-8");
		return NULL;
	}
	struct node *nd = calloc(1, sizeof(*nd));
	if (!nd || !(nd->text = strdup(buf))) {
		free(nd);
		rfail(r, "out of memory");
		return NULL;
	}
	nd->kind = raw ? N_REGEX : N_STR;
	nd->line = r->line;
	return nd;
}

static struct node *read_node(struct reader *r, int depth)
{
	skip_space(r);
	if (r->pos >= r->len) {
		rfail(r, "unexpected end");
		return NULL;
	}
	if (depth > 64) {
		rfail(r, "nested too deep");
		return NULL;
	}
	char c = r->s[r->pos];
	if (c == '"')
		return read_string(r, 0);
	if (c == '#' && r->pos + 1 < r->len && r->s[r->pos + 1] == '"') {
		r->pos++;
		return read_string(r, 1);
	}
	if (c == ')') {
		rfail(r, "unexpected )");
		return NULL;
	}
	struct node *nd = calloc(1, sizeof(*nd));
	if (!nd) {
		rfail(r, "out of memory");
		return NULL;
	}
	nd->line = r->line;
	if (c == '(') {
		nd->kind = N_LIST;
		r->pos++;
		for (;;) {
			skip_space(r);
			if (r->pos >= r->len) {
				rfail(r, "unclosed (");
				node_free(nd);
				return NULL;
			}
			if (r->s[r->pos] == ')') {
				r->pos++;
				return nd;
			}
			struct node *k = read_node(r, depth + 1);
			if (!k) {
				node_free(nd);
				return NULL;
			}
			struct node **nk = realloc(nd->kids, (nd->n_kids + 1) * sizeof(*nk));
			if (!nk) {
				node_free(k);
				node_free(nd);
				rfail(r, "out of memory");
				return NULL;
			}
			nd->kids = nk;
			nd->kids[nd->n_kids++] = k;
		}
	}
	size_t start = r->pos;
	while (r->pos < r->len && !strchr(" \t\r\n();\"", r->s[r->pos]))
		r->pos++;
	size_t n = r->pos - start;
	nd->text = strndup(r->s + start, n);
	if (!nd->text) {
		free(nd);
		rfail(r, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)nd->text[i] < 0x21 || (unsigned char)nd->text[i] > 0x7e) {
			rfail(r, "a symbol with a byte outside printable ASCII");
			node_free(nd);
			return NULL;
		}
	nd->kind = (nd->text[0] >= '0' && nd->text[0] <= '9') ? N_NUM : N_SYM;
	return nd;
}

/* -------------------------------------------------------------- regex */

/* The AppleMatch subset: ^ $ . [set] [^set] (ranges) ( | ) * + ? {m,n}
 * and \x; "(?" is refused [nono]. Matching is over bytes and computes the
 * set of end positions from a set of start positions, so it never
 * backtracks exponentially. */

#define R_CHAR  1
#define R_ANY   2
#define R_SET   3
#define R_GROUP 4
#define R_BOL   5
#define R_EOL   6

struct re_alt;
struct re_atom {
	int kind;
	unsigned char c;
	uint8_t set[32];
	struct re_alt *group;
	int min, max; /* max -1: unbounded */
};
struct re_seq {
	struct re_atom *v;
	size_t n;
};
struct re_alt {
	struct re_seq *v;
	size_t n;
};

struct re_parser {
	const char *s;
	size_t pos;
	int bad;
};

static void re_alt_free(struct re_alt *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		for (size_t j = 0; j < a->v[i].n; j++)
			re_alt_free(a->v[i].v[j].group);
		free(a->v[i].v);
	}
	free(a->v);
	free(a);
}

static struct re_alt *re_parse_alt(struct re_parser *p, int depth);

static int re_parse_num(struct re_parser *p)
{
	int v = 0, any = 0;
	while (p->s[p->pos] >= '0' && p->s[p->pos] <= '9' && v < 1000) {
		v = v * 10 + (p->s[p->pos++] - '0');
		any = 1;
	}
	return any ? v : -1;
}

static int re_parse_set(struct re_parser *p, struct re_atom *a)
{
	int neg = 0;
	p->pos++; /* [ */
	if (p->s[p->pos] == '^') {
		neg = 1;
		p->pos++;
	}
	memset(a->set, 0, sizeof(a->set));
	int first = 1;
	for (;;) {
		unsigned char c = (unsigned char)p->s[p->pos];
		if (!c)
			return -1;
		if (c == ']' && !first) {
			p->pos++;
			break;
		}
		if (c == '[' &&
		    (p->s[p->pos + 1] == ':' || p->s[p->pos + 1] == '.' || p->s[p->pos + 1] == '='))
			return -1; /* POSIX classes: not in the subset */
		if (c == '\\') {
			p->pos++;
			c = (unsigned char)p->s[p->pos];
			if (!c)
				return -1;
		}
		p->pos++;
		unsigned char hi = c;
		if (p->s[p->pos] == '-' && p->s[p->pos + 1] && p->s[p->pos + 1] != ']') {
			hi = (unsigned char)p->s[p->pos + 1];
			p->pos += 2;
			if (hi < c)
				return -1;
		}
		for (unsigned x = c; x <= hi; x++)
			a->set[x / 8] |= (uint8_t)(1u << (x % 8));
		first = 0;
	}
	if (neg)
		for (size_t i = 0; i < sizeof(a->set); i++)
			a->set[i] = (uint8_t)~a->set[i];
	return 0;
}

static int re_parse_atom(struct re_parser *p, struct re_atom *a, int depth)
{
	char c = p->s[p->pos];
	*a = (struct re_atom){.min = 1, .max = 1};
	switch (c) {
	case '(':
		if (p->s[p->pos + 1] == '?')
			return -1; /* [nono] */
		p->pos++;
		a->kind = R_GROUP;
		if (!(a->group = re_parse_alt(p, depth + 1)) || p->s[p->pos] != ')')
			return -1;
		p->pos++;
		break;
	case '[':
		a->kind = R_SET;
		if (re_parse_set(p, a) < 0)
			return -1;
		break;
	case '.':
		a->kind = R_ANY;
		p->pos++;
		break;
	case '^':
		a->kind = R_BOL;
		p->pos++;
		return 0;
	case '$':
		a->kind = R_EOL;
		p->pos++;
		return 0;
	case '\\':
		if (!p->s[p->pos + 1])
			return -1;
		a->kind = R_CHAR;
		a->c = (unsigned char)p->s[p->pos + 1];
		p->pos += 2;
		break;
	case '*':
	case '+':
	case '?':
	case '{':
	case ')':
	case '|':
		return -1;
	default:
		a->kind = R_CHAR;
		a->c = (unsigned char)c;
		p->pos++;
	}
	c = p->s[p->pos];
	if (c == '*' || c == '+' || c == '?') {
		a->min = c == '+' ? 1 : 0;
		a->max = c == '?' ? 1 : -1;
		p->pos++;
	} else if (c == '{') {
		p->pos++;
		a->min = re_parse_num(p);
		a->max = a->min;
		if (p->s[p->pos] == ',') {
			p->pos++;
			a->max = p->s[p->pos] == '}' ? -1 : re_parse_num(p);
		}
		if (a->min < 0 || p->s[p->pos] != '}' || (a->max >= 0 && a->max < a->min))
			return -1;
		p->pos++;
	}
	c = p->s[p->pos];
	if (c == '*' || c == '+' || c == '?' || c == '{')
		return -1; /* stacked quantifiers */
	return 0;
}

static struct re_alt *re_parse_alt(struct re_parser *p, int depth)
{
	if (depth > 32)
		return NULL;
	struct re_alt *alt = calloc(1, sizeof(*alt));
	if (!alt)
		return NULL;
	for (;;) {
		struct re_seq *ns = realloc(alt->v, (alt->n + 1) * sizeof(*ns));
		if (!ns)
			goto bad;
		alt->v = ns;
		struct re_seq *seq = &alt->v[alt->n++];
		*seq = (struct re_seq){0};
		while (p->s[p->pos] && p->s[p->pos] != '|' && p->s[p->pos] != ')') {
			struct re_atom *na = realloc(seq->v, (seq->n + 1) * sizeof(*na));
			if (!na)
				goto bad;
			seq->v = na;
			if (re_parse_atom(p, &seq->v[seq->n], depth) < 0) {
				re_alt_free(seq->v[seq->n].group);
				goto bad;
			}
			seq->n++;
		}
		if (p->s[p->pos] != '|')
			return alt;
		p->pos++;
	}
bad:
	re_alt_free(alt);
	return NULL;
}

/* Position sets over 0..len. */
struct posset {
	uint64_t *w;
	size_t words;
};

static int ps_new(struct posset *s, size_t len)
{
	s->words = len / 64 + 1;
	s->w = calloc(s->words, sizeof(uint64_t));
	return s->w ? 0 : -ENOMEM;
}
static void ps_set(struct posset *s, size_t i)
{
	s->w[i / 64] |= 1ull << (i % 64);
}
static int ps_has(const struct posset *s, size_t i)
{
	return (s->w[i / 64] >> (i % 64)) & 1;
}
static int ps_empty(const struct posset *s)
{
	for (size_t i = 0; i < s->words; i++)
		if (s->w[i])
			return 0;
	return 1;
}

static int re_eval_alt(const struct re_alt *a, const unsigned char *s, size_t len,
                       const struct posset *in, struct posset *out);

/* One repetition of an atom. */
static int re_eval_once(const struct re_atom *a, const unsigned char *s, size_t len,
                        const struct posset *in, struct posset *out)
{
	if (a->kind == R_GROUP)
		return re_eval_alt(a->group, s, len, in, out);
	for (size_t i = 0; i <= len; i++) {
		if (!ps_has(in, i))
			continue;
		switch (a->kind) {
		case R_BOL:
			if (i == 0)
				ps_set(out, i);
			break;
		case R_EOL:
			if (i == len)
				ps_set(out, i);
			break;
		case R_CHAR:
			if (i < len && s[i] == a->c)
				ps_set(out, i + 1);
			break;
		case R_ANY:
			if (i < len)
				ps_set(out, i + 1);
			break;
		case R_SET:
			if (i < len && ((a->set[s[i] / 8] >> (s[i] % 8)) & 1))
				ps_set(out, i + 1);
			break;
		}
	}
	return 0;
}

static int re_eval_atom(const struct re_atom *a, const unsigned char *s, size_t len,
                        const struct posset *in, struct posset *out)
{
	struct posset cur, next;
	if (ps_new(&cur, len) < 0)
		return -ENOMEM;
	memcpy(cur.w, in->w, in->words * sizeof(uint64_t));
	int r = 0;
	if (a->min == 0)
		for (size_t i = 0; i < in->words; i++)
			out->w[i] |= in->w[i];
	for (int k = 1; a->max < 0 || k <= a->max; k++) {
		if ((r = ps_new(&next, len)) < 0)
			break;
		if ((r = re_eval_once(a, s, len, &cur, &next)) < 0) {
			free(next.w);
			break;
		}
		int grew = 0;
		for (size_t i = 0; i < next.words; i++) {
			if (k >= a->min) {
				if (next.w[i] & ~out->w[i])
					grew = 1;
				out->w[i] |= next.w[i];
			} else if (next.w[i]) {
				grew = 1;
			}
		}
		free(cur.w);
		cur = next;
		if (ps_empty(&cur) || (k >= a->min && !grew && a->max < 0))
			break;
		if (k > (int)len + 2 && a->max < 0)
			break;
	}
	free(cur.w);
	return r;
}

static int re_eval_alt(const struct re_alt *a, const unsigned char *s, size_t len,
                       const struct posset *in, struct posset *out)
{
	for (size_t i = 0; i < a->n; i++) {
		struct posset cur;
		if (ps_new(&cur, len) < 0)
			return -ENOMEM;
		memcpy(cur.w, in->w, in->words * sizeof(uint64_t));
		for (size_t j = 0; j < a->v[i].n && !ps_empty(&cur); j++) {
			struct posset next;
			if (ps_new(&next, len) < 0 ||
			    re_eval_atom(&a->v[i].v[j], s, len, &cur, &next) < 0) {
				free(cur.w);
				return -ENOMEM;
			}
			free(cur.w);
			cur = next;
		}
		for (size_t w = 0; w < out->words; w++)
			out->w[w] |= cur.w[w];
		free(cur.w);
	}
	return 0;
}

static struct re_alt *re_compile(const char *re)
{
	struct re_parser p = {.s = re};
	struct re_alt *a = re_parse_alt(&p, 0);
	if (a && p.s[p.pos] != '\0') {
		re_alt_free(a);
		return NULL;
	}
	return a;
}

/* A search: the pattern may match starting anywhere [sys]. */
static int re_search(const struct re_alt *a, const char *subject)
{
	size_t len = strlen(subject);
	struct posset in, out;
	if (ps_new(&in, len) < 0)
		return -ENOMEM;
	if (ps_new(&out, len) < 0) {
		free(in.w);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= len; i++)
		ps_set(&in, i);
	int r = re_eval_alt(a, (const unsigned char *)subject, len, &in, &out);
	int hit = r < 0 ? r : !ps_empty(&out);
	free(in.w);
	free(out.w);
	return hit;
}

int sbe_regex_search(const char *re, const char *subject)
{
	struct re_alt *a = re_compile(re);
	if (!a)
		return -EINVAL;
	int r = re_search(a, subject);
	re_alt_free(a);
	return r;
}

/* ------------------------------------------------------------ profile */

/* Filters, compiled. */
#define F_LITERAL     1
#define F_SUBPATH     2
#define F_PREFIX      3
#define F_REGEX       4
#define F_ALL         5
#define F_ANY         6
#define F_NOT         7
#define F_VNODE       8
#define F_TARGET      9
#define F_GLOBAL_NAME 10
#define F_GLOBAL_PFX  11
#define F_SYSCTL_NAME 12
#define F_SYSCTL_PFX  13
#define F_SOCK_DOMAIN 14
#define F_IP          15 /* remote/local ip|tcp|udp "H:P" */
#define F_UNIX        16 /* remote/local unix-socket <path filter> */

struct filter {
	int kind;
	char *arg;
	struct re_alt *re;
	struct filter **kids;
	size_t n_kids;
	int remote; /* F_IP, F_UNIX: 1 remote, 0 local */
	int proto;  /* F_IP: 0 ip, SBE_PROTO_* */
	int any_host, localhost;
	int any_port;
	unsigned port;
};

struct rule {
	int allow;
	int line;
	char **ops;
	size_t n_ops;
	struct filter **filters; /* any of them; none: always */
	size_t n_filters;
};

struct sbe_profile {
	struct rule *rules;
	size_t n_rules;
};

static void filter_free(struct filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_kids; i++)
		filter_free(f->kids[i]);
	free(f->kids);
	free(f->arg);
	re_alt_free(f->re);
	free(f);
}

void sbe_free(struct sbe_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_rules; i++) {
		struct rule *r = &p->rules[i];
		for (size_t j = 0; j < r->n_ops; j++)
			free(r->ops[j]);
		free(r->ops);
		for (size_t j = 0; j < r->n_filters; j++)
			filter_free(r->filters[j]);
		free(r->filters);
	}
	free(p->rules);
	free(p);
}

size_t sbe_rule_count(const struct sbe_profile *p)
{
	return p->n_rules;
}

int sbe_rule_line(const struct sbe_profile *p, int index)
{
	return index >= 0 && (size_t)index < p->n_rules ? p->rules[index].line : 0;
}

/* The operations this evaluator knows, each seen in [fG], [sys], [moz] or
 * [srt]. A name ending in '*' is a wildcard over the names it prefixes;
 * ipc-posix-shm and ipc-posix-sem are umbrellas over theirs [srt]. */
static const char *const known_ops[] = {
    "default",
    "file*",
    "file-read*",
    "file-read-data",
    "file-read-metadata",
    "file-read-xattr",
    "file-test-existence",
    "file-write*",
    "file-write-data",
    "file-write-create",
    "file-write-unlink",
    "file-write-mode",
    "file-write-owner",
    "file-write-times",
    "file-write-xattr",
    "file-write-flags",
    "file-link",
    "file-clone",
    "file-ioctl",
    "file-map-executable",
    "file-mount",
    "process*",
    "process-exec",
    "process-fork",
    "process-info*",
    "process-info-pidinfo",
    "process-info-listpids",
    "signal",
    "sysctl*",
    "sysctl-read",
    "sysctl-write",
    "mach*",
    "mach-lookup",
    "mach-register",
    "mach-priv-task-port",
    "ipc-posix-shm",
    "ipc-posix-shm-read-data",
    "ipc-posix-shm-write-data",
    "ipc-posix-shm-write-create",
    "ipc-posix-sem",
    "ipc-posix-sem-open",
    "network*",
    "network-outbound",
    "network-inbound",
    "network-bind",
    "system-socket",
    "nvram*",
    "iokit-get-properties",
    "iokit-open",
    "pseudo-tty",
    "user-preference-read",
    NULL,
};

/* Not covered by (deny default) [moz]. */
static int outside_default(const char *op)
{
	return strncmp(op, "process-info", 12) == 0 || strncmp(op, "nvram", 5) == 0 ||
	       strcmp(op, "iokit-get-properties") == 0 || strcmp(op, "file-map-executable") == 0;
}

static int op_known(const char *op)
{
	for (const char *const *k = known_ops; *k; k++)
		if (strcmp(*k, op) == 0)
			return 1;
	return 0;
}

/* How specifically `rule_op` names `op`: 0 not at all; higher is more
 * specific (the exact name beats a longer wildcard beats a shorter one beats
 * default). */
static size_t op_covers(const char *rule_op, const char *op)
{
	size_t n = strlen(rule_op);
	if (strcmp(rule_op, op) == 0)
		return 100000;
	if (strcmp(rule_op, "default") == 0)
		return outside_default(op) ? 0 : 1;
	if (n > 1 && rule_op[n - 1] == '*')
		return strncmp(rule_op, op, n - 1) == 0 ? n + 1 : 0;
	if ((strcmp(rule_op, "ipc-posix-shm") == 0 || strcmp(rule_op, "ipc-posix-sem") == 0) &&
	    strncmp(op, rule_op, n) == 0 && op[n] == '-')
		return n + 1;
	return 0;
}

struct compiler {
	char *err;
	size_t err_len;
	int failed;
};

static void cfail(struct compiler *c, int line, const char *fmt, ...) SBE_PRINTF(3, 4);
static void cfail(struct compiler *c, int line, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = 1;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->err_len)
		snprintf(c->err, c->err_len, "line %d: %s", line, msg);
}

static int is_sym(const struct node *n, const char *s)
{
	return n && n->kind == N_SYM && strcmp(n->text, s) == 0;
}

/* "H:P" with H "*" or "localhost" [srt]. */
static int parse_endpoint(struct filter *f, const char *s)
{
	const char *colon = strrchr(s, ':');
	if (!colon)
		return -1;
	size_t hl = (size_t)(colon - s);
	if (hl == 1 && s[0] == '*')
		f->any_host = 1;
	else if (hl == 9 && strncmp(s, "localhost", 9) == 0)
		f->localhost = 1;
	else
		return -1;
	const char *port = colon + 1;
	if (strcmp(port, "*") == 0) {
		f->any_port = 1;
		return 0;
	}
	char *end;
	unsigned long v = strtoul(port, &end, 10);
	if (!*port || *end || v < 1 || v > 65535 || port[0] == '0')
		return -1;
	f->port = (unsigned)v;
	return 0;
}

static struct filter *compile_filter(struct compiler *c, const struct node *n, int depth);

static int add_kid(struct filter *f, struct filter *k)
{
	struct filter **nk = realloc(f->kids, (f->n_kids + 1) * sizeof(*nk));
	if (!nk)
		return -ENOMEM;
	f->kids = nk;
	f->kids[f->n_kids++] = k;
	return 0;
}

static int string_arg(const struct node *n)
{
	return n->n_kids == 2 && (n->kids[1]->kind == N_STR || n->kids[1]->kind == N_REGEX);
}

/* A path filter inside (remote|local unix-socket ...). */
static struct filter *compile_socket_path(struct compiler *c, const struct node *n)
{
	if (n->kind != N_LIST || !n->n_kids || n->kids[0]->kind != N_SYM || !string_arg(n)) {
		cfail(c, n->line, "unix-socket needs (path-literal|subpath|path-regex \"...\")");
		return NULL;
	}
	const char *w = n->kids[0]->text;
	struct filter *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	if (strcmp(w, "path-literal") == 0 || strcmp(w, "literal") == 0)
		f->kind = F_LITERAL;
	else if (strcmp(w, "subpath") == 0)
		f->kind = F_SUBPATH;
	else if (strcmp(w, "path-regex") == 0 || strcmp(w, "regex") == 0)
		f->kind = F_REGEX;
	else {
		free(f);
		cfail(c, n->line, "unknown unix-socket path filter %s", w);
		return NULL;
	}
	f->arg = strdup(n->kids[1]->text);
	if (f->kind == F_REGEX && f->arg && !(f->re = re_compile(f->arg))) {
		cfail(c, n->line, "a regex outside the subset: %s", f->arg);
		filter_free(f);
		return NULL;
	}
	if (!f->arg) {
		filter_free(f);
		return NULL;
	}
	return f;
}

static struct filter *compile_filter(struct compiler *c, const struct node *n, int depth)
{
	if (n->kind != N_LIST || !n->n_kids || n->kids[0]->kind != N_SYM) {
		cfail(c, n->line, "a filter must be a list starting with its name");
		return NULL;
	}
	if (depth > 32) {
		cfail(c, n->line, "filters nested too deep");
		return NULL;
	}
	const char *w = n->kids[0]->text;
	struct filter *f = calloc(1, sizeof(*f));
	if (!f) {
		cfail(c, n->line, "out of memory");
		return NULL;
	}
	static const struct {
		const char *name;
		int kind;
	} simple[] = {
	    {"literal", F_LITERAL},         {"subpath", F_SUBPATH},
	    {"prefix", F_PREFIX},           {"regex", F_REGEX},
	    {"global-name", F_GLOBAL_NAME}, {"global-name-prefix", F_GLOBAL_PFX},
	    {"sysctl-name", F_SYSCTL_NAME}, {"sysctl-name-prefix", F_SYSCTL_PFX},
	};
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		if (strcmp(w, simple[i].name) != 0)
			continue;
		if (!string_arg(n) || (n->kids[1]->kind == N_REGEX && simple[i].kind != F_REGEX)) {
			cfail(c, n->line, "(%s \"...\") takes one string", w);
			goto bad;
		}
		f->kind = simple[i].kind;
		if (!(f->arg = strdup(n->kids[1]->text)))
			goto bad;
		if ((f->kind == F_LITERAL || f->kind == F_SUBPATH) && f->arg[0] != '/') {
			cfail(c, n->line, "(%s) needs an absolute path", w);
			goto bad;
		}
		if (f->kind == F_REGEX && !(f->re = re_compile(f->arg))) {
			cfail(c, n->line, "a regex outside the subset: %s", f->arg);
			goto bad;
		}
		return f;
	}
	if (strcmp(w, "require-all") == 0 || strcmp(w, "require-any") == 0 ||
	    strcmp(w, "require-not") == 0) {
		f->kind = w[8] == 'a' && w[9] == 'l' ? F_ALL : w[8] == 'a' ? F_ANY : F_NOT;
		if (n->n_kids < 2 || (f->kind == F_NOT && n->n_kids != 2)) {
			cfail(c, n->line, "(%s) needs %s", w,
			      f->kind == F_NOT ? "one filter" : "filters");
			goto bad;
		}
		for (size_t i = 1; i < n->n_kids; i++) {
			struct filter *k = compile_filter(c, n->kids[i], depth + 1);
			if (!k || add_kid(f, k) < 0) {
				filter_free(k);
				goto bad;
			}
		}
		return f;
	}
	if (strcmp(w, "vnode-type") == 0 || strcmp(w, "target") == 0 ||
	    strcmp(w, "socket-domain") == 0) {
		if (n->n_kids != 2 || (n->kids[1]->kind != N_SYM && n->kids[1]->kind != N_NUM)) {
			cfail(c, n->line, "(%s NAME)", w);
			goto bad;
		}
		f->kind = w[0] == 'v' ? F_VNODE : w[0] == 't' ? F_TARGET : F_SOCK_DOMAIN;
		const char *a = n->kids[1]->text;
		if (f->kind == F_TARGET && strcmp(a, "self") && strcmp(a, "same-sandbox") &&
		    strcmp(a, "others")) {
			cfail(c, n->line, "(target %s) is not modelled", a);
			goto bad;
		}
		if (!(f->arg = strdup(a)))
			goto bad;
		return f;
	}
	if (strcmp(w, "remote") == 0 || strcmp(w, "local") == 0) {
		f->remote = w[0] == 'r';
		if (n->n_kids != 3 || n->kids[1]->kind != N_SYM) {
			cfail(c, n->line, "(%s KIND ...)", w);
			goto bad;
		}
		const char *k = n->kids[1]->text;
		if (strcmp(k, "unix-socket") == 0) {
			f->kind = F_UNIX;
			struct filter *pf = compile_socket_path(c, n->kids[2]);
			if (!pf || add_kid(f, pf) < 0) {
				filter_free(pf);
				goto bad;
			}
			return f;
		}
		f->kind = F_IP;
		f->proto = strcmp(k, "ip") == 0    ? 0
		           : strcmp(k, "tcp") == 0 ? SBE_PROTO_TCP
		           : strcmp(k, "udp") == 0 ? SBE_PROTO_UDP
		                                   : -1;
		if (f->proto < 0 || n->kids[2]->kind != N_STR ||
		    parse_endpoint(f, n->kids[2]->text) < 0) {
			cfail(c, n->line, "(%s ip|tcp|udp \"*|localhost:PORT|*\")", w);
			goto bad;
		}
		return f;
	}
	cfail(c, n->line, "filter %s is not in the subset", w);
bad:
	filter_free(f);
	return NULL;
}

static int compile_rule(struct compiler *c, const struct node *n, struct rule *r)
{
	*r = (struct rule){.allow = is_sym(n->kids[0], "allow"), .line = n->line};
	size_t i = 1;
	for (; i < n->n_kids && n->kids[i]->kind == N_SYM; i++) {
		const char *op = n->kids[i]->text;
		if (!op_known(op)) {
			cfail(c, n->line, "unknown operation %s", op);
			return -EINVAL;
		}
		char **no = realloc(r->ops, (r->n_ops + 1) * sizeof(*no));
		if (!no)
			return -ENOMEM;
		r->ops = no;
		if (!(r->ops[r->n_ops] = strdup(op)))
			return -ENOMEM;
		r->n_ops++;
	}
	if (!r->n_ops) {
		cfail(c, n->line, "a rule names no operation");
		return -EINVAL;
	}
	for (; i < n->n_kids; i++) {
		const struct node *k = n->kids[i];
		if (k->kind == N_LIST && k->n_kids && is_sym(k->kids[0], "with"))
			continue; /* (with message "..."), (with no-log): no effect on the answer */
		struct filter *f = compile_filter(c, k, 0);
		if (!f)
			return -EINVAL;
		struct filter **nf = realloc(r->filters, (r->n_filters + 1) * sizeof(*nf));
		if (!nf) {
			filter_free(f);
			return -ENOMEM;
		}
		r->filters = nf;
		r->filters[r->n_filters++] = f;
	}
	return 0;
}

int sbe_parse(const char *text, size_t len, struct sbe_profile **out, char *err, size_t err_len)
{
	struct reader rd = {.s = text, .len = len, .line = 1, .err = err, .err_len = err_len};
	struct compiler c = {.err = err, .err_len = err_len};
	struct sbe_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (memchr(text, '\0', len)) {
		rfail(&rd, "a NUL byte in the profile");
		goto bad;
	}
	int seen_version = 0, seen_default = 0;
	for (;;) {
		skip_space(&rd);
		if (rd.pos >= rd.len)
			break;
		struct node *n = read_node(&rd, 0);
		if (!n)
			goto bad;
		if (n->kind != N_LIST || !n->n_kids || n->kids[0]->kind != N_SYM) {
			cfail(&c, n->line, "a top-level form must be a list");
			node_free(n);
			goto bad;
		}
		if (is_sym(n->kids[0], "version")) {
			if (seen_version || p->n_rules || n->n_kids != 2 ||
			    n->kids[1]->kind != N_NUM || strcmp(n->kids[1]->text, "1") != 0) {
				cfail(&c, n->line, "(version 1) must come first, once");
				node_free(n);
				goto bad;
			}
			seen_version = 1;
			node_free(n);
			continue;
		}
		if (!is_sym(n->kids[0], "allow") && !is_sym(n->kids[0], "deny")) {
			cfail(&c, n->line, "%s is not in the subset", n->kids[0]->text);
			node_free(n);
			goto bad;
		}
		if (!seen_version) {
			cfail(&c, n->line, "(version 1) must come first");
			node_free(n);
			goto bad;
		}
		struct rule *nr = realloc(p->rules, (p->n_rules + 1) * sizeof(*nr));
		if (!nr) {
			node_free(n);
			goto bad;
		}
		p->rules = nr;
		int r = compile_rule(&c, n, &p->rules[p->n_rules]);
		p->n_rules++; /* freed with the profile even when incomplete */
		if (r == 0 && p->rules[p->n_rules - 1].n_ops == 1 &&
		    strcmp(p->rules[p->n_rules - 1].ops[0], "default") == 0)
			seen_default = 1;
		node_free(n);
		if (r < 0) {
			if (!c.failed)
				cfail(&c, rd.line, "out of memory");
			goto bad;
		}
	}
	if (!seen_version || !seen_default) {
		cfail(&c, rd.line, "a profile needs (version 1) and a default rule");
		goto bad;
	}
	*out = p;
	return 0;
bad:
	sbe_free(p);
	return -EINVAL;
}

/* ------------------------------------------------------------ answers */

static int is_loopback(const char *a)
{
	return strcmp(a, "127.0.0.1") == 0 || strcmp(a, "::1") == 0;
}

static int is_any(const char *a)
{
	return strcmp(a, "0.0.0.0") == 0 || strcmp(a, "::") == 0;
}

static int path_match(const struct filter *f, const char *path)
{
	size_t n;
	switch (f->kind) {
	case F_LITERAL:
		return strcmp(path, f->arg) == 0;
	case F_SUBPATH:
		/* [fG]: the path itself and everything below it. */
		if (strcmp(f->arg, "/") == 0)
			return path[0] == '/';
		n = strlen(f->arg);
		return strncmp(path, f->arg, n) == 0 && (path[n] == '\0' || path[n] == '/');
	case F_PREFIX:
		return strncmp(path, f->arg, strlen(f->arg)) == 0;
	case F_REGEX:
		return re_search(f->re, path) == 1;
	}
	return 0;
}

static int filter_match(const struct filter *f, const struct sbe_query *q)
{
	switch (f->kind) {
	case F_LITERAL:
	case F_SUBPATH:
	case F_PREFIX:
	case F_REGEX:
		/* Files, and unix sockets too: old system profiles allow the
		 * mDNSResponder socket with a bare (literal ...) [sys]. */
		return q->path && !q->ip && path_match(f, q->path);
	case F_ALL:
		for (size_t i = 0; i < f->n_kids; i++)
			if (!filter_match(f->kids[i], q))
				return 0;
		return 1;
	case F_ANY:
		for (size_t i = 0; i < f->n_kids; i++)
			if (filter_match(f->kids[i], q))
				return 1;
		return 0;
	case F_NOT:
		return !filter_match(f->kids[0], q);
	case F_VNODE:
		return q->vnode_type && strcmp(q->vnode_type, f->arg) == 0;
	case F_TARGET:
		if (!q->target)
			return 0;
		if (strcmp(f->arg, "same-sandbox") == 0)
			return strcmp(q->target, "self") == 0 ||
			       strcmp(q->target, "same-sandbox") == 0;
		if (strcmp(f->arg, "others") == 0)
			return strcmp(q->target, "self") != 0;
		return strcmp(q->target, f->arg) == 0;
	case F_GLOBAL_NAME:
		return q->name && strcmp(q->op, "mach-lookup") == 0 && strcmp(q->name, f->arg) == 0;
	case F_GLOBAL_PFX:
		return q->name && strcmp(q->op, "mach-lookup") == 0 &&
		       strncmp(q->name, f->arg, strlen(f->arg)) == 0;
	case F_SYSCTL_NAME:
		return q->name && strncmp(q->op, "sysctl", 6) == 0 && strcmp(q->name, f->arg) == 0;
	case F_SYSCTL_PFX:
		return q->name && strncmp(q->op, "sysctl", 6) == 0 &&
		       strncmp(q->name, f->arg, strlen(f->arg)) == 0;
	case F_SOCK_DOMAIN:
		return q->socket_domain && strcmp(q->socket_domain, f->arg) == 0;
	case F_IP: {
		/* Outbound is checked against the remote end, bind and inbound
		 * against the local one [srt]. */
		int outbound = strcmp(q->op, "network-outbound") == 0;
		if (!q->ip || !q->addr || f->remote != outbound)
			return 0;
		if (f->proto && f->proto != q->proto)
			return 0;
		if (!f->any_port && f->port != q->port)
			return 0;
		if (f->any_host)
			return 1;
		return is_loopback(q->addr) || (!f->remote && is_any(q->addr));
	}
	case F_UNIX: {
		int outbound = strcmp(q->op, "network-outbound") == 0;
		if (!q->unix_socket || !q->path || f->remote != outbound)
			return 0;
		return path_match(f->kids[0], q->path);
	}
	}
	return 0;
}

static int rule_matches(const struct rule *r, const struct sbe_query *q)
{
	if (!r->n_filters)
		return 1;
	for (size_t i = 0; i < r->n_filters; i++)
		if (filter_match(r->filters[i], q))
			return 1;
	return 0;
}

int sbe_decide(const struct sbe_profile *p, int model, const struct sbe_query *q, int *rule)
{
	if (!q->op || !op_known(q->op) || q->op[strlen(q->op) - 1] == '*')
		return -EINVAL;
	/* Levels: the exact name, then wildcards from the longest, default. */
	size_t level_best = 0;
	int best = -1;
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct rule *r = &p->rules[i];
		size_t spec = 0;
		for (size_t j = 0; j < r->n_ops; j++) {
			size_t s = op_covers(r->ops[j], q->op);
			if (s > spec)
				spec = s;
		}
		if (!spec || !rule_matches(r, q))
			continue;
		if (model == SBE_FLAT || spec >= level_best) {
			/* FLAT: the last match. SPECIFIC: the last match at the most
			 * specific level that matches at all. */
			if (model == SBE_SPECIFIC && spec > level_best)
				level_best = spec;
			best = (int)i;
		}
	}
	if (rule)
		*rule = best;
	if (best < 0)
		return outside_default(q->op) ? 1 : 0;
	return p->rules[best].allow;
}

int sbe_check(const struct sbe_profile *p, const struct sbe_query *q)
{
	int a = sbe_decide(p, SBE_FLAT, q, NULL);
	int b = sbe_decide(p, SBE_SPECIFIC, q, NULL);
	if (a < 0 || b < 0)
		return a < 0 ? a : b;
	return a == b ? a : -2;
}

static int file_q(const struct sbe_profile *p, const char *op, const char *path)
{
	struct sbe_query q = {.op = op, .path = path};
	return sbe_check(p, &q);
}

int sbe_may_read(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-read-data", path);
}
int sbe_may_stat(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-read-metadata", path);
}
int sbe_may_write(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-write-data", path);
}
int sbe_may_create(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-write-create", path);
}
int sbe_may_unlink(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-write-unlink", path);
}
int sbe_may_link(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-link", path);
}
int sbe_may_exec(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "process-exec", path);
}
int sbe_may_map_exec(const struct sbe_profile *p, const char *path)
{
	return file_q(p, "file-map-executable", path);
}

int sbe_may_connect(const struct sbe_profile *p, const char *addr, unsigned port, int proto)
{
	struct sbe_query q = {
	    .op = "network-outbound", .ip = true, .addr = addr, .port = port, .proto = proto};
	return sbe_check(p, &q);
}

int sbe_may_bind(const struct sbe_profile *p, const char *addr, unsigned port, int proto)
{
	struct sbe_query q = {
	    .op = "network-bind", .ip = true, .addr = addr, .port = port, .proto = proto};
	return sbe_check(p, &q);
}

int sbe_may_unix_connect(const struct sbe_profile *p, const char *path)
{
	struct sbe_query q = {.op = "network-outbound", .unix_socket = true, .path = path};
	int r = sbe_check(p, &q);
	struct sbe_query s = {.op = "system-socket", .socket_domain = "AF_UNIX"};
	int k = sbe_check(p, &s);
	return r < 0 ? r : k < 0 ? k : r && k;
}

int sbe_may_unix_bind(const struct sbe_profile *p, const char *path)
{
	struct sbe_query q = {.op = "network-bind", .unix_socket = true, .path = path};
	int r = sbe_check(p, &q);
	struct sbe_query s = {.op = "system-socket", .socket_domain = "AF_UNIX"};
	int k = sbe_check(p, &s);
	return r < 0 ? r : k < 0 ? k : r && k;
}

int sbe_may_socket(const struct sbe_profile *p, const char *domain)
{
	struct sbe_query q = {.op = "system-socket", .socket_domain = domain};
	return sbe_check(p, &q);
}

int sbe_may_signal(const struct sbe_profile *p, const char *target)
{
	struct sbe_query q = {.op = "signal", .target = target};
	return sbe_check(p, &q);
}

int sbe_may_lookup(const struct sbe_profile *p, const char *service)
{
	struct sbe_query q = {.op = "mach-lookup", .name = service};
	return sbe_check(p, &q);
}

int sbe_may_sysctl(const struct sbe_profile *p, const char *name)
{
	struct sbe_query q = {.op = "sysctl-read", .name = name};
	return sbe_check(p, &q);
}
