/* SPDX-License-Identifier: MIT */
/* Scoped cleanup helpers and path utilities shared by the git plugin. */
#ifndef ASB_GIT_UTIL_H
#define ASB_GIT_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_free_     __attribute__((cleanup(freep)))
#define _cleanup_close_    __attribute__((cleanup(closep)))
#define _cleanup_closedir_ __attribute__((cleanup(closedirp)))

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
