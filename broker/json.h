/* SPDX-License-Identifier: MIT */
/* A small, strict JSON tree for the Docker filter (broker/docker_policy.c):
 * what it forwards is what it checked, so it parses a body whole and writes
 * it back out. Stricter than the daemon's decoder on purpose: Go's
 * encoding/json matches struct fields case-insensitively (and folds some
 * non-ASCII letters, U+017F to 's', U+212A to 'k'), so an object key that
 * is not printable ASCII, or that repeats another case-insensitively, is a
 * parse error; so are invalid UTF-8, "\u0000", trailing data and nesting
 * deeper than JSON_MAX_DEPTH. */
#ifndef ASB_BROKER_JSON_H
#define ASB_BROKER_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64

enum json_type { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	int type;       /* J_* */
	char *s;        /* J_STR: the decoded text (no NUL inside); J_NUM: as written */
	size_t n;       /* J_ARR, J_OBJ: items */
	struct json *v; /* the items (values of an object) */
	char **k;       /* J_OBJ: the keys */
};

/* Parse all of buf: 0, -EINVAL (malformed or refused as above), -ENOMEM. */
int json_parse(const char *buf, size_t len, struct json *out);
void json_free(struct json *j);

/* Compact text, NUL-terminated (*len without it). */
int json_write(const struct json *j, char **out, size_t *len);

/* An object's member, the key compared ASCII case-insensitively as the
 * daemon does; NULL when absent or when `obj` is no object. */
struct json *json_get(const struct json *obj, const char *key);
/* "" / null / false / 0 / [] / {}: nothing asked for. */
bool json_is_empty(const struct json *j);
/* The string, or NULL when j is absent or not a string. */
const char *json_str(const struct json *j);

/* Set obj[key] to the string value, replacing a member whose key matches
 * case-insensitively (its key then spelled as given); obj must be an
 * object. */
int json_set_str(struct json *obj, const char *key, const char *value);
/* Replace j (a string) with value. */
int json_replace_str(struct json *j, const char *value);

#endif
