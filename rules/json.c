/* A validating JSON scanner that records where one member is. See json.h. */
#include "json.h"

#include <errno.h>
#include <string.h>

struct scan {
	const char *b;
	size_t n, i;
	const char *const *path;
	size_t depth;
	struct json_span found;
};

static void ws(struct scan *s)
{
	while (s->i < s->n && (s->b[s->i] == ' ' || s->b[s->i] == '\t' || s->b[s->i] == '\n' ||
	                       s->b[s->i] == '\r'))
		s->i++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

static int string(struct scan *s)
{
	if (s->i >= s->n || s->b[s->i] != '"')
		return -EBADMSG;
	for (s->i++; s->i < s->n; s->i++) {
		unsigned char c = (unsigned char)s->b[s->i];
		if (c == '"') {
			s->i++;
			return 0;
		}
		if (c < 0x20)
			return -EBADMSG;
		if (c != '\\')
			continue;
		if (++s->i >= s->n)
			return -EBADMSG;
		c = (unsigned char)s->b[s->i];
		if (c == 'u') {
			if (s->i + 4 >= s->n)
				return -EBADMSG;
			for (int k = 1; k <= 4; k++)
				if (hexval(s->b[s->i + (size_t)k]) < 0)
					return -EBADMSG;
			s->i += 4;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return -EBADMSG;
		}
	}
	return -EBADMSG;
}

static int digits(struct scan *s)
{
	size_t start = s->i;
	while (s->i < s->n && s->b[s->i] >= '0' && s->b[s->i] <= '9')
		s->i++;
	return s->i > start ? 0 : -EBADMSG;
}

static int number(struct scan *s)
{
	if (s->i < s->n && s->b[s->i] == '-')
		s->i++;
	if (s->i < s->n && s->b[s->i] == '0')
		s->i++;
	else if (digits(s) < 0)
		return -EBADMSG;
	if (s->i < s->n && s->b[s->i] == '.') {
		s->i++;
		if (digits(s) < 0)
			return -EBADMSG;
	}
	if (s->i < s->n && (s->b[s->i] == 'e' || s->b[s->i] == 'E')) {
		s->i++;
		if (s->i < s->n && (s->b[s->i] == '+' || s->b[s->i] == '-'))
			s->i++;
		if (digits(s) < 0)
			return -EBADMSG;
	}
	return 0;
}

/* on_path: the keys so far matched path[0..level). */
static int value(struct scan *s, size_t level, bool on_path)
{
	if (level > JSON_MAX_DEPTH)
		return -EBADMSG;
	ws(s);
	if (s->i >= s->n)
		return -EBADMSG;
	size_t start = s->i;
	enum json_type t;
	int rc = 0;
	char c = s->b[s->i];
	if (c == '"') {
		t = JSON_STRING;
		rc = string(s);
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		t = JSON_NUMBER;
		rc = number(s);
	} else if (c == '{') {
		t = JSON_OBJECT;
		s->i++;
		ws(s);
		if (s->i < s->n && s->b[s->i] == '}') {
			s->i++;
		} else {
			for (;;) {
				ws(s);
				size_t k = s->i;
				if ((rc = string(s)) < 0)
					return rc;
				bool match = false;
				if (on_path && level < s->depth) {
					size_t kl = s->i - k - 2;
					const char *want = s->path[level];
					match = strlen(want) == kl &&
					        memcmp(s->b + k + 1, want, kl) == 0;
				}
				ws(s);
				if (s->i >= s->n || s->b[s->i] != ':')
					return -EBADMSG;
				s->i++;
				if ((rc = value(s, level + 1, match)) < 0)
					return rc;
				ws(s);
				if (s->i < s->n && s->b[s->i] == ',') {
					s->i++;
					continue;
				}
				if (s->i < s->n && s->b[s->i] == '}') {
					s->i++;
					break;
				}
				return -EBADMSG;
			}
		}
	} else if (c == '[') {
		t = JSON_ARRAY;
		s->i++;
		ws(s);
		if (s->i < s->n && s->b[s->i] == ']') {
			s->i++;
		} else {
			for (;;) {
				if ((rc = value(s, level + 1, false)) < 0)
					return rc;
				ws(s);
				if (s->i < s->n && s->b[s->i] == ',') {
					s->i++;
					continue;
				}
				if (s->i < s->n && s->b[s->i] == ']') {
					s->i++;
					break;
				}
				return -EBADMSG;
			}
		}
	} else {
		static const char *const lits[] = {"true", "false", "null"};
		t = JSON_LITERAL;
		rc = -EBADMSG;
		for (int k = 0; k < 3; k++) {
			size_t l = strlen(lits[k]);
			if (s->n - s->i >= l && memcmp(s->b + s->i, lits[k], l) == 0) {
				s->i += l;
				rc = 0;
				break;
			}
		}
	}
	if (rc < 0)
		return rc;
	if (on_path && level == s->depth)
		s->found = (struct json_span){start, s->i - start, t};
	return 0;
}

int json_find(const char *buf, size_t len, const char *const *path, size_t depth,
              struct json_span *out)
{
	struct scan s = {.b = buf, .n = len, .path = path, .depth = depth};
	if (depth == 0 || depth > JSON_MAX_DEPTH)
		return -EINVAL;
	int rc = value(&s, 0, true);
	if (rc < 0)
		return rc;
	ws(&s);
	if (s.i != s.n)
		return -EBADMSG;
	if (s.found.type == JSON_NONE)
		return 0;
	*out = s.found;
	return 1;
}

bool json_plain_string(const char *buf, const struct json_span *s, const char **p, size_t *n)
{
	if (s->type != JSON_STRING || s->len < 2 || memchr(buf + s->off, '\\', s->len))
		return false;
	*p = buf + s->off + 1;
	*n = s->len - 2;
	return true;
}
