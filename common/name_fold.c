/* SPDX-License-Identifier: MIT */
#include "name_fold.h"

#include "util.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* The next unit of s, folded; s advanced past it. */
static unsigned next_folded(const unsigned char **s)
{
	const unsigned char *p = *s;
	if (p[0] == 0xc5 && p[1] == 0xbf) {
		*s += 2;
		return 's';
	}
	if (p[0] == 0xe2 && p[1] == 0x84 && p[2] == 0xaa) {
		*s += 3;
		return 'k';
	}
	*s += 1;
	return p[0] >= 'A' && p[0] <= 'Z' ? p[0] + 32u : p[0];
}

bool name_folds_equal(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	while (*x && *y)
		if (next_folded(&x) != next_folded(&y))
			return false;
	return !*x && !*y;
}

size_t name_fold(const char *name, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t n = 0;
	while (*p) {
		unsigned c = next_folded(&p);
		if (n + 1 < size)
			out[n] = (char)c;
		n++;
	}
	if (size)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

unsigned char name_fold_first(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	return (unsigned char)next_folded(&p);
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
