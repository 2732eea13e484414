/* SPDX-License-Identifier: MIT */
/* Scoped cleanup and error-text helpers shared by the nix plugin's files
 * (a plugin includes only the public header, never core/'s). */
#ifndef ASB_NIX_UTIL_H
#define ASB_NIX_UTIL_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
	if (*d != NULL)
		closedir(*d);
}

#define _cleanup_free_  __attribute__((cleanup(freep)))
#define _cleanup_close_ __attribute__((cleanup(closep)))

/* Write a message into a caller's buffer (which may be NULL). */
static inline void set_err(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

#endif
