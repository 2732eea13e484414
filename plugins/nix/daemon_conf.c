/* SPDX-License-Identifier: MIT */
#include "daemon_conf.h"
#include "errbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Includes nest at most this deep: a loop is an error, not a hang. */
#define NIX_CONF_MAX_DEPTH 16

/* One word of the config (not NUL-terminated there) onto a list. */
static int push_word(struct strv *s, const char *word, size_t len)
{
	return strv_push_take(s, strndup(word, len));
}

static int set_origin(char **origin, const char *path)
{
	char *p = strdup(path);
	if (p == NULL)
		return -ENOMEM;
	free(*origin);
	*origin = p;
	return 0;
}

int nix_daemon_conf_init(struct nix_daemon_conf *c, int linux_defaults)
{
	int r;

	memset(c, 0, sizeof(*c));
	c->sandbox = linux_defaults ? NIX_SANDBOX_TRUE : NIX_SANDBOX_FALSE;
	r = push_word(&c->trusted_users, "root", 4);
	if (r >= 0)
		r = push_word(&c->allowed_users, "*", 1);
	if (r >= 0)
		r = set_origin(&c->trusted_users_origin, "");
	if (r >= 0)
		r = set_origin(&c->sandbox_origin, "");
	if (r < 0)
		nix_daemon_conf_free(c);
	return r;
}

void nix_daemon_conf_free(struct nix_daemon_conf *c)
{
	strv_clear(&c->trusted_users);
	strv_clear(&c->allowed_users);
	free(c->trusted_users_origin);
	free(c->sandbox_origin);
	memset(c, 0, sizeof(*c));
}

const char *nix_sandbox_name(int mode)
{
	switch (mode) {
	case NIX_SANDBOX_TRUE:
		return "true";
	case NIX_SANDBOX_RELAXED:
		return "relaxed";
	default:
		return "false";
	}
}

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* Split [s, end) into words separated by whitespace, as Nix's
 * tokenizeString does. */
struct words {
	const char *w[64];
	size_t len[64];
	size_t n;
	int overflow;
};

static void split_words(const char *s, const char *end, struct words *out)
{
	out->n = 0;
	out->overflow = 0;
	while (s < end) {
		while (s < end && is_space(*s))
			s++;
		if (s >= end)
			break;
		const char *start = s;
		while (s < end && !is_space(*s))
			s++;
		if (out->n == sizeof(out->w) / sizeof(out->w[0])) {
			out->overflow = 1;
			return;
		}
		out->w[out->n] = start;
		out->len[out->n] = (size_t)(s - start);
		out->n++;
	}
}

static int word_is(const struct words *w, size_t i, const char *lit)
{
	return w->len[i] == strlen(lit) && memcmp(w->w[i], lit, w->len[i]) == 0;
}

/* include paths are relative to the including file's directory. */
static char *resolve_include(const char *from, const char *word, size_t len)
{
	char *out = NULL;

	if (len > 0 && word[0] == '/')
		return strndup(word, len);
	const char *slash = strrchr(from, '/');
	int dir_len = slash == NULL ? 1 : (int)(slash - from);
	const char *dir = slash == NULL ? "." : from;
	if (slash == from)
		dir_len = 0; /* file in "/" */
	if (asprintf(&out, "%.*s/%.*s", dir_len, dir, (int)len, word) < 0)
		return NULL;
	return out;
}

static int apply_file(struct nix_daemon_conf *c, const char *path, int optional,
                      nix_conf_read_fn read_fn, void *ud, int depth, char *err, size_t err_len);

static int apply_list(struct strv *list, char **origin, const struct words *w, int append,
                      const char *path)
{
	int r;

	if (!append)
		strv_clear(list);
	for (size_t i = 2; i < w->n; i++) {
		r = push_word(list, w->w[i], w->len[i]);
		if (r < 0)
			return r;
	}
	return origin == NULL ? 0 : set_origin(origin, path);
}

static int apply_setting(struct nix_daemon_conf *c, const struct words *w, const char *path,
                         size_t lineno, char *err, size_t err_len)
{
	const char *name = w->w[0];
	size_t name_len = w->len[0];
	int append = 0;

	if (name_len > 6 && memcmp(name, "extra-", 6) == 0) {
		append = 1;
		name += 6;
		name_len -= 6;
	}
#define NAME_IS(lit) (name_len == strlen(lit) && memcmp(name, lit, name_len) == 0)
	if (NAME_IS("trusted-users"))
		return apply_list(&c->trusted_users, &c->trusted_users_origin, w, append, path);
	if (NAME_IS("allowed-users"))
		return apply_list(&c->allowed_users, NULL, w, append, path);
	if (!append && (NAME_IS("sandbox") || NAME_IS("build-use-sandbox"))) {
		if (w->n == 3 && word_is(w, 2, "true"))
			c->sandbox = NIX_SANDBOX_TRUE;
		else if (w->n == 3 && word_is(w, 2, "false"))
			c->sandbox = NIX_SANDBOX_FALSE;
		else if (w->n == 3 && word_is(w, 2, "relaxed"))
			c->sandbox = NIX_SANDBOX_RELAXED;
		else {
			set_err(err, err_len,
			        "%s:%zu: sandbox must be true, false or relaxed (nix-daemon would "
			        "not start with this value)",
			        path, lineno);
			return -EINVAL;
		}
		return set_origin(&c->sandbox_origin, path);
	}
#undef NAME_IS
	return 0; /* a setting that does not decide trust */
}

static int apply_text(struct nix_daemon_conf *c, const char *text, const char *path,
                      nix_conf_read_fn read_fn, void *ud, int depth, char *err, size_t err_len)
{
	const char *line = text;
	size_t lineno = 0;
	int r;

	while (*line != '\0') {
		const char *nl = strchr(line, '\n');
		const char *end = nl == NULL ? line + strlen(line) : nl;
		const char *hash = memchr(line, '#', (size_t)(end - line));
		struct words w;

		lineno++;
		split_words(line, hash == NULL ? end : hash, &w);
		line = nl == NULL ? end : nl + 1;
		if (w.n == 0)
			continue;
		if (w.overflow) {
			set_err(err, err_len, "%s:%zu: line too long to check", path, lineno);
			return -E2BIG;
		}
		if (w.n < 2) {
			set_err(err, err_len, "%s:%zu: illegal configuration line", path, lineno);
			return -EINVAL;
		}
		if (word_is(&w, 0, "include") || word_is(&w, 0, "!include")) {
			if (w.n != 2) {
				set_err(err, err_len, "%s:%zu: illegal include line", path, lineno);
				return -EINVAL;
			}
			_cleanup_free_ char *inc = resolve_include(path, w.w[1], w.len[1]);
			if (inc == NULL)
				return -ENOMEM;
			r = apply_file(c, inc, word_is(&w, 0, "!include"), read_fn, ud, depth + 1,
			               err, err_len);
			if (r == -ENOENT)
				set_err(err, err_len, "%s:%zu: included file %s not found", path,
				        lineno, inc);
			if (r < 0)
				return r;
			continue;
		}
		if (!word_is(&w, 1, "=")) {
			set_err(err, err_len,
			        "%s:%zu: illegal configuration line (expected `name = value`)",
			        path, lineno);
			return -EINVAL;
		}
		r = apply_setting(c, &w, path, lineno, err, err_len);
		if (r < 0)
			return r;
	}
	return 0;
}

static int apply_file(struct nix_daemon_conf *c, const char *path, int optional,
                      nix_conf_read_fn read_fn, void *ud, int depth, char *err, size_t err_len)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (depth > NIX_CONF_MAX_DEPTH) {
		set_err(err, err_len, "%s: includes nest too deep (a loop?)", path);
		return -ELOOP;
	}
	r = read_fn(ud, path, &text);
	if (r == -ENOENT && optional)
		return 0;
	if (r < 0) {
		set_err(err, err_len, "%s: %s", path, strerror(-r));
		return r;
	}
	return apply_text(c, text, path, read_fn, ud, depth, err, err_len);
}

int nix_daemon_conf_apply_file(struct nix_daemon_conf *c, const char *path, int optional,
                               nix_conf_read_fn read_fn, void *userdata, char *err, size_t err_len)
{
	return apply_file(c, path, optional, read_fn, userdata, 0, err, err_len);
}

int nix_daemon_conf_apply_text(struct nix_daemon_conf *c, const char *text, const char *path,
                               nix_conf_read_fn read_fn, void *userdata, char *err, size_t err_len)
{
	return apply_text(c, text, path, read_fn, userdata, 0, err, err_len);
}

int nix_daemon_conf_match(const struct strv *list, const char *user, const char *const *groups,
                          const char **why)
{
	for (size_t i = 0; i < list->n; i++) {
		const char *e = list->v[i];
		int hit = strcmp(e, "*") == 0 || strcmp(e, user) == 0;

		for (size_t g = 0; !hit && e[0] == '@' && groups != NULL && groups[g] != NULL; g++)
			hit = strcmp(e + 1, groups[g]) == 0;
		if (hit) {
			if (why != NULL)
				*why = e;
			return 1;
		}
	}
	return 0;
}
