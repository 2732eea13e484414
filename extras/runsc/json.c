/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void json_free(struct json *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

static void put(struct json *j, const char *s, size_t n)
{
	if (j->err)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 4096;
		while (j->len + n + 1 > cap)
			cap *= 2;
		char *b = realloc(j->buf, cap);
		if (!b) {
			j->err = -ENOMEM;
			return;
		}
		j->buf = b;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void newline(struct json *j)
{
	static const char spaces[] = "                                ";
	put(j, "\n", 1);
	put(j, spaces, 2 * j->depth < sizeof(spaces) - 1 ? 2 * j->depth : sizeof(spaces) - 1);
}

bool json_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 2;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 3;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (i + n > len)
			return false;
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n;
	}
	return true;
}

static void escaped(struct json *j, const char *s)
{
	size_t len = strlen(s);
	if (!json_utf8_valid(s, len)) {
		if (!j->err)
			j->err = -EILSEQ;
		return;
	}
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		char hex[8];
		switch (c) {
		case '"':
			rep = "\\\"";
			break;
		case '\\':
			rep = "\\\\";
			break;
		case '\n':
			rep = "\\n";
			break;
		case '\r':
			rep = "\\r";
			break;
		case '\t':
			rep = "\\t";
			break;
		case '\b':
			rep = "\\b";
			break;
		case '\f':
			rep = "\\f";
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				snprintf(hex, sizeof(hex), "\\u%04x", c);
				rep = hex;
			}
		}
		if (rep) {
			put(j, s + start, i - start);
			puts_(j, rep);
			start = i + 1;
		}
	}
	put(j, s + start, len - start);
}

/* Comma, indentation and the member's key before a value. */
static void value_start(struct json *j, const char *key)
{
	if (j->err)
		return;
	if (!j->first[j->depth])
		put(j, ",", 1);
	if (j->depth > 0)
		newline(j);
	j->first[j->depth] = false;
	if (key) {
		put(j, "\"", 1);
		escaped(j, key);
		put(j, "\": ", 3);
	}
}

static void open_(struct json *j, const char *key, const char *bracket)
{
	value_start(j, key);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		if (!j->err)
			j->err = -E2BIG;
		return;
	}
	puts_(j, bracket);
	j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, const char *bracket)
{
	if (j->err)
		return;
	if (j->depth == 0) {
		j->err = -EINVAL;
		return;
	}
	bool empty = j->first[j->depth];
	j->depth--;
	if (!empty)
		newline(j);
	puts_(j, bracket);
}

void json_object_begin(struct json *j, const char *key)
{
	open_(j, key, "{");
}

void json_object_end(struct json *j)
{
	close_(j, "}");
}

void json_array_begin(struct json *j, const char *key)
{
	open_(j, key, "[");
}

void json_array_end(struct json *j)
{
	close_(j, "]");
}

void json_string(struct json *j, const char *key, const char *value)
{
	json_string2(j, key, value, "");
}

void json_string2(struct json *j, const char *key, const char *a, const char *b)
{
	if (!a || !b) {
		if (!j->err)
			j->err = -EINVAL;
		return;
	}
	value_start(j, key);
	put(j, "\"", 1);
	escaped(j, a);
	escaped(j, b);
	put(j, "\"", 1);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	char num[32];
	snprintf(num, sizeof(num), "%lld", (long long)value);
	value_start(j, key);
	puts_(j, num);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	char num[32];
	snprintf(num, sizeof(num), "%llu", (unsigned long long)value);
	value_start(j, key);
	puts_(j, num);
}

void json_bool(struct json *j, const char *key, bool value)
{
	value_start(j, key);
	puts_(j, value ? "true" : "false");
}

int json_finish(struct json *j, const char **out, size_t *len)
{
	if (!j->err && j->depth != 0)
		j->err = -EINVAL;
	if (!j->err)
		put(j, "\n", 1);
	if (j->err)
		return j->err;
	*out = j->buf;
	if (len)
		*len = j->len;
	return 0;
}
