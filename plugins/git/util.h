/* SPDX-License-Identifier: MIT */
/* Path utilities shared by the git plugin (and the common cleanup helpers). */
#ifndef ASB_GIT_UTIL_H
#define ASB_GIT_UTIL_H

#include "../common/cleanup.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Hand a cleanup-owned pointer over to the caller. */
static inline void *steal_ptr(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}
#define TAKE_PTR(p) steal_ptr(&(p))

/* True when `path` is `root` or lies below it (both absolute, normalised). */
static inline bool path_is_under(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static inline bool path_is_strictly_under(const char *path, const char *root)
{
	return path_is_under(path, root) && strcmp(path, root) != 0;
}

#endif
