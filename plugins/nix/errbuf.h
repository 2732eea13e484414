/* SPDX-License-Identifier: MIT */
/* The error-text helper the nix plugin's files share. */
#ifndef ASB_NIX_ERRBUF_H
#define ASB_NIX_ERRBUF_H

#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
