/* Just enough JSON for OAuth token files and token responses: validate a document
 * and find a member by its path of object keys, so one value can be swapped
 * without rewriting the rest (whatever else the file holds stays as written).
 * Pure code over caller-owned buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 32

enum json_type { JSON_NONE = 0, JSON_STRING, JSON_NUMBER, JSON_OBJECT, JSON_ARRAY, JSON_LITERAL };

struct json_span {
	size_t off, len; /* the value's bytes (a string's with its quotes) */
	enum json_type type;
};

/* Validate buf as one JSON value (RFC 8259; depth at most JSON_MAX_DEPTH) and find
 * the member at path[0].path[1]... (keys compared as written; the last of
 * duplicates wins, as JavaScript reads it). 1: found, 0: valid but absent,
 * -EBADMSG: not JSON. */
int json_find(const char *buf, size_t len, const char *const *path, size_t depth,
              struct json_span *out);

/* A string member's content when it holds no escapes: [*p, *p + *n). false when
 * the span is no string or has escapes. */
bool json_plain_string(const char *buf, const struct json_span *s, const char **p, size_t *n);
