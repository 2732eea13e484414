/* SPDX-License-Identifier: MIT */
#include "sbpl_text.h"

#include "sbpl.h"

#include "fold_ascii.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbpl_buf_init(struct sbpl_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

void sbpl_buf_free(struct sbpl_buf *b)
{
	free(b->data);
	sbpl_buf_init(b);
}

static bool reserve(struct sbpl_buf *b, size_t more)
{
	if (b->err)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	char *d = realloc(b->data, cap);
	if (!d) {
		b->err = -ENOMEM;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

void sbpl_buf_put(struct sbpl_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sbpl_buf_puts(struct sbpl_buf *b, const char *s)
{
	sbpl_buf_put(b, s, strlen(s));
}

void sbpl_buf_printf(struct sbpl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = b->err ? b->err : -EINVAL;
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *sbpl_buf_take(struct sbpl_buf *b, size_t *len)
{
	if (!reserve(b, 0))
		return NULL;
	char *d = b->data;
	if (len)
		*len = b->len;
	sbpl_buf_init(b);
	return d;
}

bool sbpl_text_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c < 0x20 || c == 0x7f)
			return false;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t k;
		uint32_t cp, min;
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1, cp = c & 0x1f, min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2, cp = c & 0x0f, min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

int sbpl_path_check(const char *path, const char **reason)
{
	const char *why = NULL;
	size_t n = path ? strlen(path) : 0;
	if (!path || path[0] != '/')
		why = "not an absolute path";
	else if (n > SBPL_PATH_MAX)
		why = "longer than macOS allows (1023 bytes)";
	else if (!sbpl_text_ok(path, n))
		why = "holds a control character or is not valid UTF-8";
	else if (n > 1 && path[n - 1] == '/')
		why = "ends with a slash";
	else if (strstr(path, "//"))
		why = "has an empty component";
	else {
		for (const char *c = path; c && *c; c = strchr(c + 1, '/')) {
			const char *s = c + 1;
			size_t len = strcspn(s, "/");
			if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.')) {
				why = "has a \".\" or \"..\" component";
				break;
			}
		}
	}
	if (why) {
		if (reason)
			*reason = why;
		return n > SBPL_PATH_MAX ? -ENAMETOOLONG : -EINVAL;
	}
	return 0;
}

int sbpl_quote(struct sbpl_buf *b, const char *s)
{
	size_t need = 2;
	for (const char *p = s; *p; p++)
		need += (*p == '"' || *p == '\\') ? 2 : 1;
	if (need > SBPL_STRING_MAX)
		return -ENAMETOOLONG;
	sbpl_buf_put(b, "\"", 1);
	for (const char *p = s; *p;) {
		size_t run = strcspn(p, "\"\\");
		sbpl_buf_put(b, p, run);
		p += run;
		if (*p) {
			char esc[2] = {'\\', *p++};
			sbpl_buf_put(b, esc, 2);
		}
	}
	sbpl_buf_put(b, "\"", 1);
	return 0;
}

void sbpl_comment(struct sbpl_buf *b, const char *s)
{
	sbpl_buf_puts(b, ";; ");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			sbpl_buf_put(b, (const char *)p, 1);
		else
			sbpl_buf_printf(b, "\\x%02x", *p);
	}
	sbpl_buf_puts(b, "\n");
}

/* One character spelled exactly. */
static void re_exact(struct sbpl_buf *b, unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    strchr("/-_,=@%:~!#&;<>'` ", c)) {
		char ch = (char)c;
		sbpl_buf_put(b, &ch, 1);
	} else if (strchr(".()*+?{}|$", c)) {
		char br[3] = {'[', (char)c, ']'};
		sbpl_buf_put(b, br, 3);
	} else {
		/* \ " [ ] ^: no bracket spells them safely inside a SBPL string. */
		sbpl_buf_put(b, ".", 1);
	}
}

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* Is the character `f` (fold_ascii.h) another spelling of the ASCII
 * character lo alone? `full`: any of them; else only those for letters
 * (U+017F, U+212A), the shorter form a regex falls back to. */
static bool single_fold(const struct fold_ascii *f, unsigned char lo, bool full)
{
	return f->ascii[0] == (char)lo && !f->ascii[1] && (full || (lo >= 'a' && lo <= 'z'));
}

/* One character in every spelling a case-insensitive volume takes for it:
 * both cases of a letter, and the characters that fold or decompose to it
 * alone (fold_ascii.h: U+017F for s, U+212A for k, two Greek marks). */
static void re_fold(struct sbpl_buf *b, unsigned char c, bool full)
{
	unsigned char lo = (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
	bool letter = lo >= 'a' && lo <= 'z', others = false;
	for (size_t i = 0; i < FOLD_ASCII_COUNT; i++)
		others |= single_fold(&fold_ascii[i], lo, full);
	if (!others) {
		if (letter)
			sbpl_buf_printf(b, "[%c%c]", lo, lo - 32);
		else
			re_exact(b, c);
		return;
	}
	if (letter)
		sbpl_buf_printf(b, "(%c|%c", lo, lo - 32);
	else
		sbpl_buf_printf(b, "(%c", c); /* ; and ` need no brackets */
	for (size_t i = 0; i < FOLD_ASCII_COUNT; i++)
		if (single_fold(&fold_ascii[i], lo, full))
			sbpl_buf_printf(b, "|%s", fold_ascii[i].utf8);
	sbpl_buf_puts(b, ")");
}

/* Does the character `f` (fold_ascii.h) stand for several letters (ß for
 * "ss", ﬁ for "fi") that p starts with, within n bytes? Their count, or 0. */
static size_t ligature_at(const struct fold_ascii *f, const unsigned char *p, size_t n)
{
	size_t k = strlen(f->ascii);
	if (k < 2 || k > n)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (lower(p[i]) != (unsigned char)f->ascii[i])
			return 0;
	return k;
}

/* The letters p[i..end) in every spelling: one letter at a time, or a
 * ligature for two or three of them, each way of splitting them an
 * alternative. Nothing past `end` is covered by a ligature that starts
 * before it (fold_run sees to that), so the rest follows unchanged. */
static void re_ligatures(struct sbpl_buf *b, const unsigned char *p, size_t i, size_t end)
{
	while (i < end && !b->err) {
		size_t alts = 0;
		for (size_t f = 0; f < FOLD_ASCII_COUNT; f++)
			alts += ligature_at(&fold_ascii[f], p + i, end - i) > 0;
		if (!alts) {
			re_fold(b, p[i++], true);
			continue;
		}
		sbpl_buf_puts(b, "(");
		re_fold(b, p[i], true);
		re_ligatures(b, p, i + 1, end);
		for (size_t f = 0; f < FOLD_ASCII_COUNT; f++) {
			size_t k = ligature_at(&fold_ascii[f], p + i, end - i);
			if (k) {
				sbpl_buf_printf(b, "|%s", fold_ascii[f].utf8);
				re_ligatures(b, p, i + k, end);
			}
		}
		sbpl_buf_puts(b, ")");
		/* Too long for a profile string: the caller goes without. */
		if (b->len > SBPL_STRING_MAX)
			b->err = -ENAMETOOLONG;
		return;
	}
}

/* Folded, from p[i]: letters that ligatures may stand for, taken together
 * up to where no ligature spans the boundary; the rest a letter at a time.
 * `full`: with ligatures and the Greek marks, else with U+017F and U+212A
 * only (shorter). */
static size_t fold_run(struct sbpl_buf *b, const unsigned char *p, size_t i, size_t n, bool full)
{
	size_t end = i + 1;
	for (size_t a = i; full && a < end; a++)
		for (size_t f = 0; f < FOLD_ASCII_COUNT; f++) {
			size_t k = ligature_at(&fold_ascii[f], p + a, n - a);
			if (k && a + k > end)
				end = a + k;
		}
	if (end == i + 1)
		re_fold(b, p[i], full);
	else
		re_ligatures(b, p, i, end);
	return end;
}

static void re_run(struct sbpl_buf *b, const char *s, size_t n, bool fold, bool full)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		if (p[i] >= 0x80) {
			/* Any spelling of it (NFC or NFD), within the component. */
			while (i < n && p[i] >= 0x80)
				i++;
			sbpl_buf_puts(b, "[^/]*");
			continue;
		}
		if (fold) {
			i = fold_run(b, p, i, n, full);
		} else {
			re_exact(b, p[i]);
			i++;
		}
	}
}

static void fold_regex(struct sbpl_buf *b, const char *anchor, size_t anchor_len, const char *tail,
                       const char *end, bool full)
{
	sbpl_buf_puts(b, "^");
	if (!(anchor_len == 1 && anchor[0] == '/'))
		re_run(b, anchor, anchor_len, false, false);
	re_run(b, tail, strlen(tail), true, full);
	sbpl_buf_puts(b, end);
}

void sbpl_fold_regex(struct sbpl_buf *b, const char *anchor, size_t anchor_len, const char *tail,
                     const char *end)
{
	/* With ligatures and the Greek marks where that fits in a profile
	 * string, else as before them: never refused for them. */
	struct sbpl_buf with;
	sbpl_buf_init(&with);
	fold_regex(&with, anchor, anchor_len, tail, end, true);
	if (!with.err && with.len + 2 <= SBPL_STRING_MAX) /* quoted */
		sbpl_buf_put(b, with.data, with.len);
	else
		fold_regex(b, anchor, anchor_len, tail, end, false);
	sbpl_buf_free(&with);
}

bool sbpl_fold_within(const char *path, const char *root)
{
	if (root[0] == '/' && root[1] == '\0')
		return path[0] == '/';
	size_t n = strlen(root);
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)path[i]) != lower((unsigned char)root[i]) || !path[i])
			return false;
	return path[n] == '\0' || path[n] == '/';
}

bool sbpl_within(const char *path, const char *root)
{
	if (root[0] == '/' && root[1] == '\0')
		return path[0] == '/';
	size_t n = strlen(root);
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
