/* SPDX-License-Identifier: MIT */
#include "name_fold.h"

#include "fold_ascii.h"
#include "util.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

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
	if (b >= 0x80) /* the table's characters: none is ASCII */
		for (size_t i = 0; i < FOLD_ASCII_COUNT; i++) {
			size_t n = strlen(fold_ascii[i].utf8);
			if (strncmp((const char *)c->p, fold_ascii[i].utf8, n) == 0) {
				c->p += n;
				c->pending = fold_ascii[i].ascii + 1;
				return (unsigned char)fold_ascii[i].ascii[0];
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
