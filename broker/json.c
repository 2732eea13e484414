/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct parser {
	const char *p, *end;
	int depth;
};

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* A growable byte buffer. */
struct buf {
	char *b;
	size_t n, cap;
};

static int buf_add(struct buf *b, const void *data, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *nb = realloc(b->b, cap);
		if (!nb)
			return -ENOMEM;
		b->b = nb;
		b->cap = cap;
	}
	memcpy(b->b + b->n, data, n);
	b->n += n;
	b->b[b->n] = '\0';
	return 0;
}

static int utf8_put(struct buf *b, uint32_t c)
{
	char o[4];
	size_t n;
	if (c < 0x80) {
		o[0] = (char)c, n = 1;
	} else if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3f)), n = 2;
	} else if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f)), n = 3;
	} else {
		o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((c >> 6) & 0x3f)), o[3] = (char)(0x80 | (c & 0x3f)), n = 4;
	}
	return buf_add(b, o, n);
}

/* The length of the valid UTF-8 sequence at p (0: invalid). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4   ? 4
	           : p[0] >= 0xe0                 ? 3
	           : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
	                                          : 0;
	if (!n || (size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	uint32_t c =
	    n == 2   ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f)
	    : n == 3 ? (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f)
	             : (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
	                   (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

static int hex4(struct parser *ps, uint32_t *out)
{
	uint32_t v = 0;
	if (ps->end - ps->p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_string(struct parser *ps, char **out)
{
	struct buf b = {0};
	int r = -EINVAL;
	ps->p++; /* the opening quote */
	while (ps->p < ps->end) {
		unsigned char c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			if (!b.b && (r = buf_add(&b, "", 0)) < 0)
				return r;
			*out = b.b;
			return 0;
		}
		if (c < 0x20)
			break;
		if (c == '\\') {
			if (++ps->p >= ps->end)
				break;
			char e = *ps->p++;
			const char *simple = strchr("\"\\/bfnrt", e);
			if (simple && e) {
				static const char map[] = "\"\\/\b\f\n\r\t";
				r = buf_add(&b, &map[simple - "\"\\/bfnrt"], 1);
			} else if (e == 'u') {
				uint32_t u, lo;
				if (hex4(ps, &u) < 0)
					break;
				if (u >= 0xd800 && u <= 0xdbff) {
					if (ps->end - ps->p < 6 || ps->p[0] != '\\' ||
					    ps->p[1] != 'u')
						break;
					ps->p += 2;
					if (hex4(ps, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
						break;
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				} else if ((u >= 0xdc00 && u <= 0xdfff) || u == 0) {
					break;
				}
				r = utf8_put(&b, u);
			} else {
				break;
			}
			if (r < 0)
				goto fail;
			r = -EINVAL;
			continue;
		}
		size_t n = c < 0x80 ? 1
		                    : utf8_len((const unsigned char *)ps->p,
		                               (const unsigned char *)ps->end);
		if (!n)
			break;
		if ((r = buf_add(&b, ps->p, n)) < 0)
			goto fail;
		r = -EINVAL;
		ps->p += n;
	}
fail:
	free(b.b);
	return r;
}

static int parse_number(struct parser *ps, char **out)
{
	const char *s = ps->p;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end)
		return -EINVAL;
	if (*ps->p == '0') {
		ps->p++;
	} else if (*ps->p >= '1' && *ps->p <= '9') {
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	} else {
		return -EINVAL;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return -EINVAL;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return -EINVAL;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	*out = strndup(s, (size_t)(ps->p - s));
	return *out ? 0 : -ENOMEM;
}

static bool key_ok(const char *k)
{
	for (const char *c = k; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return false;
	return true;
}

static int parse_value(struct parser *ps, struct json *out);

static int push(struct json *j, size_t *cap, char *key)
{
	if (j->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct json *nv = realloc(j->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		j->v = nv;
		if (j->type == J_OBJ) {
			char **nk = realloc(j->k, nc * sizeof(*nk));
			if (!nk)
				return -ENOMEM;
			j->k = nk;
		}
		*cap = nc;
	}
	j->v[j->n] = (struct json){0};
	if (j->type == J_OBJ)
		j->k[j->n] = key;
	j->n++;
	return 0;
}

static int parse_container(struct parser *ps, struct json *out, bool obj)
{
	size_t cap = 0;
	int r;
	*out = (struct json){.type = obj ? J_OBJ : J_ARR};
	if (++ps->depth > JSON_MAX_DEPTH)
		return -EINVAL;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				return -EINVAL;
			if ((r = parse_string(ps, &key)) < 0)
				return r;
			bool dup = false;
			for (size_t i = 0; i < out->n; i++)
				dup = dup || strcasecmp(out->k[i], key) == 0;
			if (dup || !key_ok(key)) {
				free(key);
				return -EINVAL;
			}
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return -EINVAL;
			}
			ps->p++;
		}
		if ((r = push(out, &cap, key)) < 0) {
			free(key);
			return r;
		}
		if ((r = parse_value(ps, &out->v[out->n - 1])) < 0)
			return r;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return -EINVAL;
	}
}

static int parse_value(struct parser *ps, struct json *out)
{
	*out = (struct json){0};
	skip_ws(ps);
	if (ps->p >= ps->end)
		return -EINVAL;
	static const struct {
		const char *word;
		int type;
	} words[] = {{"null", J_NULL}, {"false", J_FALSE}, {"true", J_TRUE}};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word);
		if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, words[i].word, n) == 0) {
			ps->p += n;
			out->type = words[i].type;
			return 0;
		}
	}
	switch (*ps->p) {
	case '"':
		out->type = J_STR;
		return parse_string(ps, &out->s);
	case '{':
		return parse_container(ps, out, true);
	case '[':
		return parse_container(ps, out, false);
	}
	out->type = J_NUM;
	return parse_number(ps, &out->s);
}

int json_parse(const char *buf, size_t len, struct json *out)
{
	struct parser ps = {buf, buf + len, 0};
	struct json j;
	int r = parse_value(&ps, &j);
	skip_ws(&ps);
	if (r >= 0 && ps.p != ps.end)
		r = -EINVAL;
	if (r < 0) {
		json_free(&j);
		return r;
	}
	*out = j;
	return 0;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		json_free(&j->v[i]);
		if (j->k)
			free(j->k[i]);
	}
	free(j->v);
	free(j->k);
	free(j->s);
	*j = (struct json){0};
}

static int write_str(struct buf *b, const char *s)
{
	int r = buf_add(b, "\"", 1);
	for (const char *c = s; r >= 0 && *c; c++) {
		unsigned char u = (unsigned char)*c;
		char esc[8];
		if (u == '"' || u == '\\') {
			esc[0] = '\\', esc[1] = (char)u;
			r = buf_add(b, esc, 2);
		} else if (u < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", u);
			r = buf_add(b, esc, 6);
		} else {
			r = buf_add(b, c, 1);
		}
	}
	return r < 0 ? r : buf_add(b, "\"", 1);
}

static int write_value(struct buf *b, const struct json *j)
{
	int r = 0;
	switch (j->type) {
	case J_NULL:
		return buf_add(b, "null", 4);
	case J_FALSE:
		return buf_add(b, "false", 5);
	case J_TRUE:
		return buf_add(b, "true", 4);
	case J_NUM:
		return buf_add(b, j->s, strlen(j->s));
	case J_STR:
		return write_str(b, j->s);
	}
	bool obj = j->type == J_OBJ;
	r = buf_add(b, obj ? "{" : "[", 1);
	for (size_t i = 0; r >= 0 && i < j->n; i++) {
		if (i)
			r = buf_add(b, ",", 1);
		if (r >= 0 && obj && (r = write_str(b, j->k[i])) >= 0)
			r = buf_add(b, ":", 1);
		if (r >= 0)
			r = write_value(b, &j->v[i]);
	}
	return r < 0 ? r : buf_add(b, obj ? "}" : "]", 1);
}

int json_write(const struct json *j, char **out, size_t *len)
{
	struct buf b = {0};
	int r = write_value(&b, j);
	if (r < 0) {
		free(b.b);
		return r;
	}
	*out = b.b;
	*len = b.n;
	return 0;
}

struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcasecmp(obj->k[i], key) == 0)
			return &obj->v[i];
	return NULL;
}

bool json_is_empty(const struct json *j)
{
	if (!j)
		return true;
	switch (j->type) {
	case J_NULL:
	case J_FALSE:
		return true;
	case J_NUM:
		return strspn(j->s, "-0.eE+") == strlen(j->s);
	case J_STR:
		return j->s[0] == '\0';
	case J_ARR:
	case J_OBJ:
		return j->n == 0;
	}
	return false;
}

const char *json_str(const struct json *j)
{
	return j && j->type == J_STR ? j->s : NULL;
}

int json_replace_str(struct json *j, const char *value)
{
	char *s = strdup(value);
	if (!s)
		return -ENOMEM;
	json_free(j);
	j->type = J_STR;
	j->s = s;
	return 0;
}

int json_set_str(struct json *obj, const char *key, const char *value)
{
	if (obj->type != J_OBJ)
		return -EINVAL;
	for (size_t i = 0; i < obj->n; i++) {
		if (strcasecmp(obj->k[i], key) != 0)
			continue;
		char *k = strdup(key);
		if (!k)
			return -ENOMEM;
		free(obj->k[i]);
		obj->k[i] = k; /* the key as given, not as it was spelled */
		return json_replace_str(&obj->v[i], value);
	}
	size_t cap = obj->n; /* push grows from a full vector */
	char *k = strdup(key);
	int r = k ? push(obj, &cap, k) : -ENOMEM;
	if (r < 0) {
		free(k);
		return r;
	}
	return json_replace_str(&obj->v[obj->n - 1], value);
}
