/* SPDX-License-Identifier: MIT */
#include "name_fold.h"

#include "util.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* The characters that case-insensitive file systems take for ASCII: they
 * compare names after canonical decomposition (NFD) and full case folding
 * (Unicode CaseFolding.txt, statuses C and F), as APFS and Linux's casefold
 * do. These are all the characters that end up ASCII there: the Kelvin
 * sign and two Greek marks decompose to ASCII, the rest fold to it. */
static const struct {
	const char *utf8, *ascii;
} to_ascii[] = {
    {"\xc3\x9f", "ss"},     /* U+00DF sharp s */
    {"\xc5\xbf", "s"},      /* U+017F long s */
    {"\xcd\xbe", ";"},      /* U+037E Greek question mark */
    {"\xe1\xba\x9e", "ss"}, /* U+1E9E capital sharp s */
    {"\xe1\xbf\xaf", "`"},  /* U+1FEF Greek varia */
    {"\xe2\x84\xaa", "k"},  /* U+212A Kelvin sign */
    {"\xef\xac\x80", "ff"}, /* U+FB00..FB06 Latin ligatures */
    {"\xef\xac\x81", "fi"},  {"\xef\xac\x82", "fl"}, {"\xef\xac\x83", "ffi"},
    {"\xef\xac\x84", "ffl"}, {"\xef\xac\x85", "st"}, {"\xef\xac\x86", "st"},
};

/* Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt): the
 * casefold of Linux kernels up to 2024 decomposes these to nothing, so
 * ".git" followed by U+200B names .git there. */
static const struct {
	unsigned lo, hi;
} ignorable[] = {
    {0x00ad, 0x00ad},   {0x034f, 0x034f},   {0x061c, 0x061c}, {0x115f, 0x1160}, {0x17b4, 0x17b5},
    {0x180b, 0x180f},   {0x200b, 0x200f},   {0x202a, 0x202e}, {0x2060, 0x206f}, {0x3164, 0x3164},
    {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},   {0xffa0, 0xffa0}, {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3},
    {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
};

/* The length of the UTF-8 sequence at p if it is a default-ignorable code
 * point, else 0. */
static size_t ignorable_len(const unsigned char *p)
{
	unsigned cp;
	size_t n;
	if ((p[0] & 0xe0) == 0xc0 && (p[1] & 0xc0) == 0x80) {
		cp = (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
		n = 2;
	} else if ((p[0] & 0xf0) == 0xe0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
		cp = (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
		n = 3;
	} else if ((p[0] & 0xf8) == 0xf0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
	           (p[3] & 0xc0) == 0x80) {
		cp = (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 |
		     (p[3] & 0x3fu);
		n = 4;
	} else {
		return 0;
	}
	for (size_t i = 0; i < sizeof(ignorable) / sizeof(*ignorable); i++)
		if (cp >= ignorable[i].lo && cp <= ignorable[i].hi)
			return n;
	return 0;
}

/* A name being folded: the rest of it, and what is left of the folding of
 * the character last read (one character can fold to three). */
struct fold_cursor {
	const unsigned char *p;
	const char *pending;
};

/* The next byte of the folded name; 0 at its end. */
static unsigned fold_next(struct fold_cursor *c)
{
	if (c->pending && *c->pending)
		return (unsigned char)*c->pending++;
	for (size_t skip; *c->p >= 0xc2 && (skip = ignorable_len(c->p)) > 0;)
		c->p += skip;
	unsigned char b = *c->p;
	if (b >= 0xc3)
		for (size_t i = 0; i < sizeof(to_ascii) / sizeof(*to_ascii); i++) {
			size_t n = strlen(to_ascii[i].utf8);
			if (strncmp((const char *)c->p, to_ascii[i].utf8, n) == 0) {
				c->p += n;
				c->pending = to_ascii[i].ascii + 1;
				return (unsigned char)to_ascii[i].ascii[0];
			}
		}
	if (b)
		c->p++;
	return b >= 'A' && b <= 'Z' ? b + 32u : b;
}

bool name_folds_equal(const char *a, const char *b)
{
	struct fold_cursor x = {(const unsigned char *)a, NULL},
	                   y = {(const unsigned char *)b, NULL};
	unsigned cx, cy;
	do {
		cx = fold_next(&x);
		cy = fold_next(&y);
	} while (cx && cx == cy);
	return cx == cy;
}

size_t name_fold(const char *name, char *out, size_t size)
{
	struct fold_cursor c = {(const unsigned char *)name, NULL};
	size_t n = 0;
	for (unsigned b; (b = fold_next(&c)) != 0; n++)
		if (n + 1 < size)
			out[n] = (char)b;
	if (size)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

unsigned char name_fold_first(const char *name)
{
	struct fold_cursor c = {(const unsigned char *)name, NULL};
	return (unsigned char)fold_next(&c);
}

bool name_resolves_to(int dfd, const char *dir, const char *listed, const char *name)
{
	if (strcmp(listed, name) == 0)
		return true;
	if (!name_folds_equal(listed, name))
		return false;
	_cleanup_free_ char *a = dfd < 0 ? path_join(dir, listed) : NULL;
	_cleanup_free_ char *b = dfd < 0 ? path_join(dir, name) : NULL;
	if (dfd < 0 && (!a || !b))
		return false;
	int at = dfd < 0 ? AT_FDCWD : dfd;
	struct stat x, y;
	return fstatat(at, dfd < 0 ? a : listed, &x, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(at, dfd < 0 ? b : name, &y, AT_SYMLINK_NOFOLLOW) == 0 &&
	       x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}
