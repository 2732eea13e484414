/* SPDX-License-Identifier: MIT */
/* A small JSON writer for the OCI runtime spec: objects, arrays, strings,
 * integers and booleans into a growing buffer, indented for people. Strings
 * must be valid UTF-8 (runsc's decoder would silently replace bad bytes, and
 * a path would then name another file): anything else latches -EILSEQ. The
 * first error latches and every later call is a no-op; json_finish reports
 * it. */
#ifndef ASB_RUNSC_JSON_H
#define ASB_RUNSC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 16

struct json {
	char *buf;
	size_t len, cap;
	int err;
	unsigned depth;
	bool first[JSON_MAX_DEPTH]; /* nothing written yet at this level */
};

void json_init(struct json *j);
void json_free(struct json *j);

/* Containers; `key` names the member when inside an object, else NULL. */
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);

void json_string(struct json *j, const char *key, const char *value);
/* A string made of two parts (an environment entry "KEY=" "value"). */
void json_string2(struct json *j, const char *key, const char *a, const char *b);
void json_int(struct json *j, const char *key, int64_t value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_bool(struct json *j, const char *key, bool value);

/* 0 and the text (NUL-terminated, owned by j) or the latched -errno. */
int json_finish(struct json *j, const char **out, size_t *len);

/* Is s valid UTF-8 (no overlong forms, no surrogates)? */
bool json_utf8_valid(const char *s, size_t len);

#endif
