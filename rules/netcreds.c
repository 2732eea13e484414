/* network.credentials and network.guard_files: parsing, matching, placeholders, and
 * the records of the launcher's pipe to the proxy. See netcreds.h. */
#include "netcreds.h"
#include "hostcheck.h"
#include "netrules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void free_strv(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

static void cred_free(struct netcred *c)
{
	free(c->name);
	free(c->value);
	free(c->value_file);
	free_strv(c->domains);
	free_strv(c->paths);
	free(c->header);
	free(c->user);
	free(c->query);
	free(c->env);
	free(c->file);
	free(c->prefix);
	free(c->where);
}

void netcreds_free(struct netcreds *c)
{
	for (size_t i = 0; i < c->n; i++)
		cred_free(&c->v[i]);
	free(c->v);
	free_strv(c->guard_files);
	*c = (struct netcreds){0};
}

__attribute__((format(printf, 4, 5))) static int
fail(char *err, size_t errlen, const config_setting_t *s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const char *f = config_setting_source_file(s);
	if (err && errlen)
		snprintf(err, errlen, "%s:%u: %s", f ? f : "<config>",
		         config_setting_source_line(s), msg);
	return -EINVAL;
}

static bool is_seq(const config_setting_t *s)
{
	return config_setting_is_array(s) || config_setting_is_list(s);
}

static int push(char ***v, size_t *n, const char *s)
{
	char *d = strdup(s);
	char **nv = d ? realloc(*v, (*n + 2) * sizeof(char *)) : NULL;
	if (!nv) {
		free(d);
		return -ENOMEM;
	}
	nv[(*n)++] = d;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

static bool all_of(const char *s, const char *extra, bool alnum)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		char c = *s;
		bool an =
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!(alnum && an) && !strchr(extra, c))
			return false;
	}
	return true;
}

static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static const char *get_string(const config_setting_t *k, const char *what, char *err, size_t errlen,
                              int *rc)
{
	if (config_setting_type(k) != CONFIG_TYPE_STRING) {
		*rc = fail(err, errlen, k, "credentials: %s must be %s, not %s", what,
		           netrules_type_name(CONFIG_TYPE_STRING),
		           netrules_type_name(config_setting_type(k)));
		return NULL;
	}
	*rc = 0;
	return config_setting_get_string(k);
}

static int parse_domains(struct netcred *c, const config_setting_t *k, char *err, size_t errlen)
{
	if (!is_seq(k) || config_setting_length(k) == 0)
		return fail(err, errlen, k,
		            "credentials: domains must be a non-empty list of "
		            "domain names");
	for (int i = 0; i < config_setting_length(k); i++) {
		const config_setting_t *e = config_setting_get_elem(k, (unsigned)i);
		char norm[HOST_MAX];
		bool is_ip;
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return fail(err, errlen, e, "credentials: each domain must be a string");
		const char *d = config_setting_get_string(e);
		if (strchr(d, '*'))
			return fail(err, errlen, e,
			            "credentials: \"%s\": a credential goes only to domains named "
			            "(each covers its subdomains), never to \"*\"",
			            d);
		if (host_normalize(d, strlen(d), norm, sizeof(norm), &is_ip) < 0)
			return fail(err, errlen, e,
			            "credentials: \"%s\" is not an ASCII domain name or IP address",
			            d);
		if (push(&c->domains, &c->n_domains, norm) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int parse_paths(struct netcred *c, const config_setting_t *k, char *err, size_t errlen)
{
	if (!is_seq(k) || config_setting_length(k) == 0)
		return fail(err, errlen, k, "credentials: paths must be a non-empty list of paths");
	for (int i = 0; i < config_setting_length(k); i++) {
		const config_setting_t *e = config_setting_get_elem(k, (unsigned)i);
		char norm[NETRULES_PATH_MAX];
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return fail(err, errlen, e, "credentials: each path must be a string");
		const char *p = config_setting_get_string(e);
		if (p[0] != '/' || strpbrk(p, "?# \t\r\n;") ||
		    netrules_path_normalize(p, strlen(p), norm, sizeof(norm)) < 0)
			return fail(
			    err, errlen, e,
			    "credentials: path \"%s\" must start with '/' and hold no query, "
			    "space, ';', dot segment or ambiguous escape",
			    p);
		if (push(&c->paths, &c->n_paths, norm) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

enum {
	K_NAME,
	K_VALUE,
	K_VALUE_FILE,
	K_DOMAINS,
	K_PATHS,
	K_HEADER,
	K_BEARER,
	K_BASIC,
	K_QUERY,
	K_ENV,
	K_FILE,
	K_PREFIX,
	K_ADD,
	K_GUARD,
	K_OAUTH,
	K_N
};
static const char *const key_names[K_N] = {"name",   "value",  "value_file", "domains", "paths",
                                           "header", "bearer", "basic",      "query",   "env",
                                           "file",   "prefix", "add",        "guard",   "oauth"};

static int parse_one(struct netcred *c, const config_setting_t *g, char *err, size_t errlen)
{
	const config_setting_t *k[K_N] = {0};
	int rc;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return fail(err, errlen, g,
		            "credentials: each entry must be a group { ... }, not %s",
		            netrules_type_name(config_setting_type(g)));
	const char *f = config_setting_source_file(g);
	if (asprintf(&c->where, "%s:%u", f ? f : "<config>", config_setting_source_line(g)) < 0) {
		c->where = NULL;
		return -ENOMEM;
	}
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
		int j = 0;
		while (j < K_N && strcmp(key_names[j], config_setting_name(e)) != 0)
			j++;
		if (j == K_N)
			return fail(
			    err, errlen, e,
			    "credentials: unknown key \"%s\" (name, value, value_file, "
			    "domains, paths, header, bearer, basic, query, env, file, prefix, "
			    "add, guard, oauth)",
			    config_setting_name(e));
		k[j] = e;
	}
	c->guard = true;
	const char *s;
	if (k[K_OAUTH]) {
		if (!(s = get_string(k[K_OAUTH], "oauth", err, errlen, &rc)))
			return rc;
		if (strcmp(s, "claude") != 0)
			return fail(err, errlen, k[K_OAUTH],
			            "credentials: oauth = \"%s\": the supported one is \"claude\" "
			            "(Claude Code's .credentials.json)",
			            s);
		c->oauth = NETCRED_OAUTH_CLAUDE;
	}
	if (k[K_NAME]) {
		if (!(s = get_string(k[K_NAME], "name", err, errlen, &rc)))
			return rc;
		if (strlen(s) > 64 || !all_of(s, "._-", true))
			return fail(err, errlen, k[K_NAME],
			            "credentials: name \"%s\": letters, digits, '.', '_' and '-' "
			            "(at most 64)",
			            s);
		if ((rc = set_str(&c->name, s)) < 0)
			return rc;
	}
	static const int strs[] = {K_VALUE, K_VALUE_FILE, K_FILE, K_PREFIX};
	char **dst[] = {&c->value, &c->value_file, &c->file, &c->prefix};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (!k[strs[i]])
			continue;
		if (!(s = get_string(k[strs[i]], key_names[strs[i]], err, errlen, &rc)))
			return rc;
		if (!*s)
			return fail(err, errlen, k[strs[i]], "credentials: %s is empty",
			            key_names[strs[i]]);
		if ((rc = set_str(dst[i], s)) < 0)
			return rc;
	}
	if (c->prefix && (strlen(c->prefix) > 32 || !all_of(c->prefix, "-_.", true)))
		return fail(err, errlen, k[K_PREFIX],
		            "credentials: prefix \"%s\": letters, digits, '-', '_' and '.' (at "
		            "most 32)",
		            c->prefix);
	if (c->oauth) {
		if (c->value || c->value_file)
			return fail(err, errlen, c->value ? k[K_VALUE] : k[K_VALUE_FILE],
			            "credentials: an oauth binding reads its tokens from its file; "
			            "value and value_file do not apply");
		if (!c->file)
			return fail(
			    err, errlen, g,
			    "credentials: an oauth binding needs its file (for Claude Code: "
			    "file = \"$HOME/.claude/.credentials.json\")");
	} else if (!!c->value == !!c->value_file) {
		return fail(err, errlen, g,
		            "credentials: an entry needs exactly one of value (\"${VAR}\") and "
		            "value_file");
	}
	if (!k[K_DOMAINS])
		return fail(err, errlen, g,
		            "credentials: an entry needs domains (where it may go)");
	if ((rc = parse_domains(c, k[K_DOMAINS], err, errlen)) < 0)
		return rc;
	if (k[K_PATHS] && (rc = parse_paths(c, k[K_PATHS], err, errlen)) < 0)
		return rc;

	int n_send = !!k[K_HEADER] + !!k[K_BEARER] + !!k[K_BASIC] + !!k[K_QUERY];
	if (c->oauth && n_send)
		return fail(err, errlen, g,
		            "credentials: an oauth binding is sent as Authorization: Bearer; "
		            "header, bearer, basic and query do not apply");
	if (!c->oauth && n_send != 1)
		return fail(err, errlen, g,
		            "credentials: say how it is sent with exactly one of header = "
		            "\"x-api-key\", bearer = true, basic = \"user\" or query = \"key\"");
	if (c->oauth || k[K_BEARER]) {
		if (k[K_BEARER] && (config_setting_type(k[K_BEARER]) != CONFIG_TYPE_BOOL ||
		                    !config_setting_get_bool(k[K_BEARER])))
			return fail(err, errlen, k[K_BEARER],
			            "credentials: bearer must be true (or leave it out)");
		c->send = NETCRED_BEARER;
		if ((rc = set_str(&c->header, "Authorization")) < 0)
			return rc;
	} else if (k[K_HEADER]) {
		if (!(s = get_string(k[K_HEADER], "header", err, errlen, &rc)))
			return rc;
		for (const char *p = s; *p || p == s; p++)
			if (!*p || !is_tchar(*p) || p - s > 64)
				return fail(err, errlen, k[K_HEADER],
				            "credentials: header \"%s\" is not a header name", s);
		static const char *const framing[] = {
		    "host", "content-length", "transfer-encoding", "connection", "upgrade", NULL};
		for (const char *const *fr = framing; *fr; fr++)
			if (strcasecmp(s, *fr) == 0)
				return fail(
				    err, errlen, k[K_HEADER],
				    "credentials: header \"%s\" frames or routes the request; "
				    "a secret cannot travel there",
				    s);
		c->send = NETCRED_HEADER;
		if ((rc = set_str(&c->header, s)) < 0)
			return rc;
	} else if (k[K_BASIC]) {
		if (!(s = get_string(k[K_BASIC], "basic", err, errlen, &rc)))
			return rc;
		if (strlen(s) > 128 || !all_of(s, "._-@+", true))
			return fail(err, errlen, k[K_BASIC],
			            "credentials: basic = \"%s\": the user name (letters, digits, "
			            "'.', '_', '-', '@', '+')",
			            s);
		c->send = NETCRED_BASIC;
		if ((rc = set_str(&c->header, "Authorization")) < 0 ||
		    (rc = set_str(&c->user, s)) < 0)
			return rc;
	} else {
		if (!(s = get_string(k[K_QUERY], "query", err, errlen, &rc)))
			return rc;
		if (strlen(s) > 64 || !all_of(s, "._-~", true))
			return fail(
			    err, errlen, k[K_QUERY],
			    "credentials: query = \"%s\": a parameter name (letters, digits, "
			    "'.', '_', '-', '~')",
			    s);
		c->send = NETCRED_QUERY;
		if ((rc = set_str(&c->query, s)) < 0)
			return rc;
	}
	if (k[K_ENV]) {
		if (!(s = get_string(k[K_ENV], "env", err, errlen, &rc)))
			return rc;
		if (!all_of(s, "_", true) || (s[0] >= '0' && s[0] <= '9') || strlen(s) > 128)
			return fail(err, errlen, k[K_ENV],
			            "credentials: env \"%s\" is not a variable name", s);
		if ((rc = set_str(&c->env, s)) < 0)
			return rc;
	}
	static const int bools[] = {K_ADD, K_GUARD};
	bool *bdst[] = {&c->add, &c->guard};
	for (size_t i = 0; i < 2; i++) {
		if (!k[bools[i]])
			continue;
		if (config_setting_type(k[bools[i]]) != CONFIG_TYPE_BOOL)
			return fail(err, errlen, k[bools[i]],
			            "credentials: %s must be true or false", key_names[bools[i]]);
		*bdst[i] = config_setting_get_bool(k[bools[i]]);
	}
	if (!c->env && !c->file && !c->add)
		return fail(err, errlen, g,
		            "credentials: the agent gets no placeholder: set env (a variable "
		            "inside) or file, or add = true (the proxy adds it to requests)");
	if (!c->name) {
		const char *dflt = c->oauth ? "claude-oauth" : c->env ? c->env : c->domains[0];
		if ((rc = set_str(&c->name, dflt)) < 0)
			return rc;
	}
	return 0;
}

int netcreds_parse(struct netcreds *c, const config_setting_t *credentials,
                   const config_setting_t *guard_files, char *err, size_t errlen)
{
	int rc;
	if (credentials) {
		if (!is_seq(credentials))
			return fail(err, errlen, credentials,
			            "credentials must be a list ( { ... }, ... ), not %s",
			            netrules_type_name(config_setting_type(credentials)));
		int n = config_setting_length(credentials);
		if (n > NETCRED_MAX)
			return fail(err, errlen, credentials, "credentials: at most %d entries",
			            NETCRED_MAX);
		c->v = calloc((size_t)n + 1, sizeof(*c->v));
		if (!c->v)
			return -ENOMEM;
		for (int i = 0; i < n; i++) {
			const config_setting_t *g =
			    config_setting_get_elem(credentials, (unsigned)i);
			struct netcred *nc = &c->v[c->n++];
			if ((rc = parse_one(nc, g, err, errlen)) < 0)
				return rc;
			for (size_t j = 0; j + 1 < c->n; j++) {
				if (nc->env && c->v[j].env && strcmp(c->v[j].env, nc->env) == 0)
					return fail(err, errlen, g,
					            "credentials: \"%s\" and \"%s\" both put their "
					            "placeholder into %s",
					            c->v[j].name, nc->name, nc->env);
				if (strcmp(c->v[j].name, nc->name) == 0)
					return fail(
					    err, errlen, g,
					    "credentials: a second entry named \"%s\" (first at "
					    "%s); give each a name",
					    nc->name, c->v[j].where);
			}
		}
	}
	if (guard_files) {
		if (!is_seq(guard_files))
			return fail(err, errlen, guard_files,
			            "guard_files must be a list of file names, not %s",
			            netrules_type_name(config_setting_type(guard_files)));
		for (int i = 0; i < config_setting_length(guard_files); i++) {
			const config_setting_t *e =
			    config_setting_get_elem(guard_files, (unsigned)i);
			if (config_setting_type(e) != CONFIG_TYPE_STRING ||
			    !*config_setting_get_string(e))
				return fail(err, errlen, e,
				            "guard_files: each entry must be a file name");
			if (c->n_guard_files >= 256)
				return fail(err, errlen, e, "guard_files: at most 256 files");
			if ((rc = push(&c->guard_files, &c->n_guard_files,
			               config_setting_get_string(e))) < 0)
				return rc;
		}
	}
	return 0;
}

static bool domain_covers(const char *domain, const char *host)
{
	size_t dl = strlen(domain), hl = strlen(host);
	if (hl < dl || strcmp(host + hl - dl, domain) != 0)
		return false;
	return hl == dl || host[hl - dl - 1] == '.';
}

static bool path_covers(const char *rule, const char *path)
{
	size_t n = strlen(rule);
	if (strncmp(rule, path, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/' || rule[n - 1] == '/';
}

bool netcred_covers(const struct netcred *c, const char *host, const char *const *paths,
                    size_t n_paths)
{
	struct host_addr ip;
	int is_ip = -1; /* asked only when a suffix matches (an address matches exactly) */
	bool found = false;
	for (size_t i = 0; i < c->n_domains && !found; i++) {
		if (strcmp(c->domains[i], host) == 0) {
			found = true;
		} else if (domain_covers(c->domains[i], host)) {
			if (is_ip < 0)
				is_ip = host_parse_ip(host, &ip) == 1;
			found = !is_ip;
		}
	}
	if (!found)
		return false;
	if (!c->paths)
		return true;
	if (n_paths == 0)
		return false;
	for (size_t j = 0; j < n_paths; j++) {
		bool any = false;
		for (size_t i = 0; i < c->n_paths && !any; i++)
			any = path_covers(c->paths[i], paths[j]);
		if (!any)
			return false;
	}
	return true;
}

const char *netcred_send_name(const struct netcred *c, char *buf, size_t len)
{
	switch (c->send) {
	case NETCRED_BEARER:
		return "Authorization: Bearer";
	case NETCRED_HEADER:
		snprintf(buf, len, "%s", c->header);
		return buf;
	case NETCRED_BASIC:
		snprintf(buf, len, "Authorization: Basic (user %s)", c->user);
		return buf;
	case NETCRED_QUERY:
		snprintf(buf, len, "query ?%s=", c->query);
		return buf;
	}
	return "?";
}

int netcred_fingerprint(const struct netcred *c, char *out, size_t outlen)
{
	char sb[256];
	size_t o = 0;
	int n = snprintf(out, outlen, "%s send=%s oauth=%d add=%d guard=%d domains=", c->name,
	                 netcred_send_name(c, sb, sizeof(sb)), c->oauth, c->add, c->guard);
	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	o = (size_t)n;
	for (int pass = 0; pass < 2; pass++) {
		char **v = pass ? c->paths : c->domains;
		if (pass) {
			n = snprintf(out + o, outlen - o, " paths=");
			if (n < 0 || (size_t)n >= outlen - o)
				return -ENAMETOOLONG;
			o += (size_t)n;
		}
		for (char **p = v; p && *p; p++) {
			n = snprintf(out + o, outlen - o, "%s%s", p == v ? "" : ",", *p);
			if (n < 0 || (size_t)n >= outlen - o)
				return -ENAMETOOLONG;
			o += (size_t)n;
		}
	}
	return (int)o;
}

const char *netcred_oauth_token_path(int oauth)
{
	return oauth == NETCRED_OAUTH_CLAUDE ? "/v1/oauth/token" : NULL;
}

static bool lower_or_digit(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

size_t netcred_default_prefix(const char *real, size_t len)
{
	size_t end = 0, i = 0;
	for (int seg = 0; seg < 3; seg++) {
		size_t start = i;
		bool letter = false;
		while (i < len && lower_or_digit(real[i]) && i - start <= 6) {
			letter |= real[i] >= 'a' && real[i] <= 'z';
			i++;
		}
		if (i == start || i - start > 6 || !letter || i >= len ||
		    (real[i] != '-' && real[i] != '_'))
			break;
		end = ++i;
	}
	/* Never the whole value, and always room for the random part. */
	return end + NETCRED_MIN_RANDOM <= len ? end : 0;
}

int netcred_placeholder(const char *real, size_t real_len, const char *prefix,
                        netcred_random_fn rnd, char **out)
{
	static const char alnum[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static const char hex[] = "0123456789abcdef";
	size_t plen = prefix ? strlen(prefix) : netcred_default_prefix(real, real_len);
	const char *pfx = prefix ? prefix : real;
	size_t len = real_len > plen + NETCRED_MIN_RANDOM ? real_len : plen + NETCRED_MIN_RANDOM;
	bool is_hex = real_len > plen;
	for (size_t i = plen; i < real_len; i++)
		is_hex &= (real[i] >= '0' && real[i] <= '9') || (real[i] >= 'a' && real[i] <= 'f');
	if (len > NETCRED_VALUE_MAX)
		return -EINVAL;
	char *p = malloc(len + 1);
	unsigned char *r = malloc(len);
	if (!p || !r || rnd(r, len - plen) < 0) {
		free(p);
		free(r);
		return p && r ? -EIO : -ENOMEM;
	}
	memcpy(p, pfx, plen);
	for (size_t i = plen; i < len; i++) {
		unsigned v = r[i - plen];
		/* 62 and 16 divide 248 and 256 evenly enough for a placeholder. */
		p[i] = is_hex ? hex[v & 15] : alnum[v % 62];
	}
	p[len] = '\0';
	netsecrets_wipe(r, len);
	free(r);
	*out = p;
	return (int)len;
}

/* ---- the channel's records ---- */

void netsecrets_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

static int buf_grow(struct netsecrets_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	if (cap > NETSECRETS_MAX + 64)
		return -E2BIG;
	/* Not realloc: the old copy of the secrets would be left in freed memory. */
	char *p = malloc(cap);
	if (!p)
		return -ENOMEM;
	if (b->len)
		memcpy(p, b->p, b->len);
	if (b->p) {
		netsecrets_wipe(b->p, b->cap);
		free(b->p);
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static int buf_put(struct netsecrets_buf *b, const void *p, size_t n)
{
	int rc = buf_grow(b, n);
	if (rc < 0)
		return rc;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int netsecrets_begin(struct netsecrets_buf *b)
{
	*b = (struct netsecrets_buf){0};
	return buf_put(b, NETSECRETS_MAGIC, strlen(NETSECRETS_MAGIC));
}

int netsecrets_add(struct netsecrets_buf *b, char tag, int index, const char *data, size_t len)
{
	char head[64];
	if (len > NETSECRETS_REC_MAX || index < 0 || index > 65535 || tag < 'A' || tag > 'Z')
		return -EINVAL;
	int n = snprintf(head, sizeof(head), "%c %d %zu\n", tag, index, len);
	int rc = buf_put(b, head, (size_t)n);
	if (rc == 0)
		rc = buf_put(b, data, len);
	if (rc == 0)
		rc = buf_put(b, "\n", 1);
	return rc;
}

int netsecrets_end(struct netsecrets_buf *b)
{
	return buf_put(b, "END\n", 4);
}

void netsecrets_buf_wipe(struct netsecrets_buf *b)
{
	if (b->p) {
		netsecrets_wipe(b->p, b->cap);
		free(b->p);
	}
	*b = (struct netsecrets_buf){0};
}

/* A decimal number of at most `max` up to `stop`; its end in *pos. */
static int read_num(const char *buf, size_t len, size_t *pos, char stop, unsigned long max,
                    unsigned long *out)
{
	unsigned long v = 0;
	size_t start = *pos;
	while (*pos < len && buf[*pos] >= '0' && buf[*pos] <= '9' && *pos - start < 8) {
		v = v * 10 + (unsigned long)(buf[*pos] - '0');
		(*pos)++;
	}
	if (*pos == start || *pos >= len || buf[*pos] != stop || v > max ||
	    (buf[start] == '0' && *pos - start > 1))
		return -EBADMSG;
	(*pos)++;
	*out = v;
	return 0;
}

int netsecrets_parse(const char *buf, size_t len, netsecrets_fn fn, void *arg)
{
	size_t ml = strlen(NETSECRETS_MAGIC), pos = ml;
	if (len < ml || memcmp(buf, NETSECRETS_MAGIC, ml) != 0)
		return -EBADMSG;
	for (;;) {
		if (len - pos == 4 && memcmp(buf + pos, "END\n", 4) == 0)
			return 0;
		if (len - pos < 2 || buf[pos] < 'A' || buf[pos] > 'Z' || buf[pos + 1] != ' ')
			return -EBADMSG;
		char tag = buf[pos];
		unsigned long index, n;
		pos += 2;
		if (read_num(buf, len, &pos, ' ', 65535, &index) < 0 ||
		    read_num(buf, len, &pos, '\n', NETSECRETS_REC_MAX, &n) < 0 ||
		    len - pos < n + 1 || buf[pos + n] != '\n')
			return -EBADMSG;
		int rc = fn(arg, tag, (int)index, buf + pos, n);
		if (rc < 0)
			return rc;
		pos += n + 1;
	}
}
