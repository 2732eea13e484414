/* SPDX-License-Identifier: MIT */
#include "expand.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *expand_lookup_environ(const char *name, void *userdata)
{
	(void)userdata;
	return getenv(name);
}

struct buf {
	char *s;
	size_t n, cap;
};

static int buf_add(struct buf *b, const char *s, size_t len)
{
	if (b->n + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + len + 1)
			cap *= 2;
		char *ns = realloc(b->s, cap);
		if (!ns)
			return -ENOMEM;
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = '\0';
	return 0;
}

static bool is_name_start(char c)
{
	return c == '_' || isalpha((unsigned char)c);
}

static bool is_name_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

int expand_vars(const char *in, expand_lookup_fn lookup, void *userdata, char **out, char **bad)
{
	struct buf b = {0};
	const char *p = in;
	int r = 0;
	*bad = NULL;

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
		const char *home = lookup("HOME", userdata);
		if (!home) {
			*bad = strdup("HOME");
			r = -ENOENT;
			goto fail;
		}
		if ((r = buf_add(&b, home, strlen(home))) < 0)
			goto fail;
		p++;
	}

	while (*p) {
		if (*p != '$') {
			const char *next = strchr(p, '$');
			size_t len = next ? (size_t)(next - p) : strlen(p);
			if ((r = buf_add(&b, p, len)) < 0)
				goto fail;
			p += len;
			continue;
		}
		p++; /* past '$' */
		if (*p == '$') {
			if ((r = buf_add(&b, "$", 1)) < 0)
				goto fail;
			p++;
			continue;
		}
		bool braced = *p == '{';
		if (braced)
			p++;
		if (!is_name_start(*p)) {
			*bad =
			    str_printf("'$' must start a variable name (write $$ for a literal $)");
			r = -EINVAL;
			goto fail;
		}
		const char *name_start = p;
		while (is_name_char(*p))
			p++;
		_cleanup_free_ char *name = strndup(name_start, (size_t)(p - name_start));
		if (!name) {
			r = -ENOMEM;
			goto fail;
		}
		const char *value = lookup(name, userdata);
		if (braced) {
			if (p[0] == ':' && p[1] == '-') {
				const char *def = p + 2;
				const char *end = strchr(def, '}');
				if (!end) {
					*bad = str_printf("unterminated ${%s:-", name);
					r = -EINVAL;
					goto fail;
				}
				if (!value || !*value) {
					value = "";
					if ((r = buf_add(&b, def, (size_t)(end - def))) < 0)
						goto fail;
				}
				p = end;
			}
			if (*p != '}') {
				*bad = str_printf("unterminated ${%s", name);
				r = -EINVAL;
				goto fail;
			}
			p++;
		}
		if (!value) {
			*bad = TAKE_PTR(name);
			r = -ENOENT;
			goto fail;
		}
		if ((r = buf_add(&b, value, strlen(value))) < 0)
			goto fail;
	}
	if (!b.s && (r = buf_add(&b, "", 0)) < 0)
		goto fail;
	*out = b.s;
	return 0;
fail:
	free(b.s);
	return r;
}
