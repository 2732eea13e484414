/* SPDX-License-Identifier: MIT */
#include "shown.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int shown_add(struct strv *shown, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *value = str_vprintf(fmt, ap);
	va_end(ap);
	return value ? strv_push_take(shown, str_printf("%s\t%s", key, value)) : -ENOMEM;
}

int shown_describe(const struct asb_host *host, struct asb_ctx *ctx, const struct strv *shown)
{
	for (size_t i = 0; i < shown->n; i++) {
		const char *tab = strchr(shown->v[i], '\t');
		if (!tab)
			continue;
		_cleanup_free_ char *key = strndup(shown->v[i], (size_t)(tab - shown->v[i]));
		if (!key)
			return -ENOMEM;
		int r = host->describe(ctx, key, tab + 1);
		if (r < 0)
			return r;
	}
	return 0;
}
