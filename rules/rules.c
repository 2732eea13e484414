/* The `network` config group: parse it into a rule table and decide requests.
 *
 * One entry decides each request: the exact domain, else the longest matching
 * suffix, else "*", else blocked. Within a domain the longest matching path rule
 * decides, else the domain's own entry; a domain with only path rules passes an
 * unmatched path on to the next shorter domain (that is what "unless a shorter
 * domain entry matches" means), and blocks it with "path not allowed" when none. */
#include "netrules.h"
#include "hostcheck.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_strv(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void netrules_free(struct netrules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_rules; i++) {
		free(r->rules[i].domain);
		free(r->rules[i].path);
		free(r->rules[i].file);
		free_strv(r->rules[i].methods);
	}
	free(r->rules);
	free(r->hosts_file);
	free(r->upstream_ca_file);
	free_strv(r->warnings);
	free(r);
}

static void netrules_freep(struct netrules **r)
{
	netrules_free(*r);
}

static const char *src_file(const config_setting_t *s)
{
	const char *f = config_setting_source_file(s);
	return f ? f : "<config>";
}

__attribute__((format(printf, 4, 5))) static int
fail(char *err, size_t errlen, const config_setting_t *s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errlen)
		snprintf(err, errlen, "%s:%u: %s", src_file(s), config_setting_source_line(s), msg);
	return -EINVAL;
}

static int push_str(char ***v, size_t *n, char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(char *));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

__attribute__((format(printf, 3, 4))) static int warn(struct netrules *r, const config_setting_t *s,
                                                      const char *fmt, ...)
{
	char msg[512], *line;
	va_list ap;
	size_t n = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (asprintf(&line, "%s:%u: %s", src_file(s), config_setting_source_line(s), msg) < 0)
		return -ENOMEM;
	while (r->warnings && r->warnings[n])
		n++;
	return push_str(&r->warnings, &n, line);
}

const char *netrules_type_name(int t)
{
	switch (t) {
	case CONFIG_TYPE_GROUP:
		return "a group { }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ]";
	case CONFIG_TYPE_LIST:
		return "a list ( )";
	}
	return "something else";
}

static int expect_type(const config_setting_t *s, int type, const char *what, char *err,
                       size_t errlen)
{
	int t = config_setting_type(s);
	if (t == type)
		return 0;
	return fail(err, errlen, s, "%s must be %s, not %s", what, netrules_type_name(type),
	            netrules_type_name(t));
}

static bool is_aggregate_seq(const config_setting_t *s)
{
	return config_setting_is_array(s) || config_setting_is_list(s);
}

static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One byte of a %XX escape at raw[i], or -1 when raw[i] does not start one. */
static int pct_at(const char *raw, size_t len, size_t i)
{
	if (i + 2 >= len || raw[i] != '%')
		return -1;
	int hi = hexval(raw[i + 1]), lo = hexval(raw[i + 2]);
	return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

/* A segment some server resolves as a dot segment: dots only ("." "..", and "..."
 * which Windows servers trim to ".."), perhaps followed by encoded spaces (trimmed
 * there too). */
static bool dotlike(const char *seg, size_t n)
{
	while (n >= 3 && memcmp(seg + n - 3, "%20", 3) == 0)
		n -= 3;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (seg[i] != '.')
			return false;
	return true;
}

/* The character at raw[*j], decoded once if escaped; -1 at the end. */
static int next_char(const char *raw, size_t len, size_t *j)
{
	if (*j >= len)
		return -1;
	int d = pct_at(raw, len, *j);
	if (d >= 0) {
		*j += 3;
		return d;
	}
	return (unsigned char)raw[(*j)++];
}

/* Whether an escape decodes to a form some server treats as a separator or a dot,
 * or decodes again: backslash (IIS, and Node for raw ones), a percent sign before
 * hex digits, themselves escaped or not (double decoding), control characters (NUL truncates in C
 * servers), the overlong UTF-8 leads 0xC0/0xC1 and the fullwidth '.', '/' and '\' (U+FF0E, U+FF0F,
 * U+FF3C) that Unicode-normalising servers fold. */
static bool ambiguous_escape(const char *raw, size_t len, size_t i, int d)
{
	if (d == '\\' || d < 0x20 || d == 0x7f || d == 0xc0 || d == 0xc1)
		return true;
	if (d == '%') {
		size_t j = i + 3;
		int c1 = next_char(raw, len, &j), c2 = next_char(raw, len, &j);
		if (c1 >= 0 && c2 >= 0 && hexval((char)c1) >= 0 && hexval((char)c2) >= 0)
			return true;
	}
	if (d == 0xef && pct_at(raw, len, i + 3) == 0xbc) {
		int d3 = pct_at(raw, len, i + 6);
		return d3 == 0x8e || d3 == 0x8f || d3 == 0xbc;
	}
	return false;
}

#define READ_LITERAL_SLASH 1u /* %2F is a character of its segment, not a separator */
#define READ_STRIP_PARAMS  2u /* ";..." (also %3B) is cut from every segment (Tomcat, Jetty) */

/* One reading of a path: 0 = %2F separates, parameters kept. Length, -EINVAL
 * (malformed), -EILSEQ (ambiguous), -ENAMETOOLONG. */
static int read_path(const char *raw, size_t len, unsigned how, char *out, size_t outlen)
{
	size_t o = 0, seg = 0;
	bool skipping = false; /* inside a stripped parameter */

	if (len == 0 || raw[0] != '/')
		return -EINVAL;
	for (size_t i = 0; i <= len; i++) {
		bool end = i == len || raw[i] == '?' || raw[i] == '#';
		char c = end ? '/' : raw[i];
		char enc[3] = {0};

		if (c == '\\')
			return -EILSEQ;
		if (!end && c == '%') {
			int d = pct_at(raw, len, i);
			if (d < 0)
				return -EINVAL;
			if (ambiguous_escape(raw, len, i, d))
				return -EILSEQ;
			i += 2;
			if (is_unreserved((unsigned char)d) ||
			    (d == '/' && !(how & READ_LITERAL_SLASH))) {
				c = (char)d; /* %2F too: many servers decode it before routing */
			} else if (d == ';' && (how & READ_STRIP_PARAMS)) {
				c = ';';
			} else {
				static const char hex[] = "0123456789ABCDEF";
				enc[0] = '%';
				enc[1] = hex[d >> 4];
				enc[2] = hex[d & 15];
			}
		}
		if (!enc[0] && c == '/') {
			/* A segment ends: dot segments are resolved by servers after we matched. */
			skipping = false;
			if (dotlike(out + seg, o - seg))
				return -EILSEQ;
			if (end) {
				if (o == 0) {
					if (outlen < 2)
						return -ENAMETOOLONG;
					out[o++] = '/';
				}
				break;
			}
			if (o > 0 && out[o - 1] == '/')
				continue; /* merge "//" */
			if (o + 1 >= outlen)
				return -ENAMETOOLONG;
			out[o++] = '/';
			seg = o;
			continue;
		}
		if (!enc[0] && c == ';' && (how & READ_STRIP_PARAMS))
			skipping = true;
		if (skipping)
			continue;
		size_t n = enc[0] ? 3 : 1;
		if (o + n >= outlen)
			return -ENAMETOOLONG;
		memcpy(out + o, enc[0] ? enc : &c, n);
		o += n;
	}
	out[o] = '\0';
	return (int)o;
}

int netrules_path_normalize(const char *raw, size_t len, char *out, size_t outlen)
{
	int rc = read_path(raw, len, 0, out, outlen);
	return rc == -EILSEQ ? -EINVAL : rc;
}

int netrules_path_readings(const char *raw, size_t len, struct netrules_paths *out)
{
	bool slash = false, params = false;
	size_t end = 0;

	while (end < len && raw[end] != '?' && raw[end] != '#')
		end++;
	for (size_t i = 0; i < end; i++) {
		int d = pct_at(raw, len, i);
		slash |= d == '/';
		params |= raw[i] == ';' || d == ';';
	}
	out->n = 0;
	for (unsigned how = 0; how < 4; how++) {
		if (((how & READ_LITERAL_SLASH) && !slash) ||
		    ((how & READ_STRIP_PARAMS) && !params))
			continue;
		int rc = read_path(raw, len, how, out->buf[out->n], sizeof(out->buf[out->n]));
		if (rc < 0)
			return rc;
		out->p[out->n] = out->buf[out->n];
		out->n++;
	}
	return 0;
}

static int parse_domain(struct netrules *r, struct netrule *rule, const config_setting_t *s,
                        const char *text, size_t len, char *err, size_t errlen)
{
	char norm[HOST_MAX];
	bool is_ip = false;

	if (len == 1 && text[0] == '*') {
		rule->domain = strdup("*");
		rule->ascii = true;
		return rule->domain ? 0 : -ENOMEM;
	}
	if (len >= 2 && text[0] == '*' && text[1] == '.')
		return fail(err, errlen, s,
		            "write \"%.*s\" instead of \"%.*s\": entries already cover subdomains",
		            (int)(len - 2), text + 2, (int)len, text);
	int rc = host_normalize(text, len, norm, sizeof(norm), &is_ip);
	if (rc == -EILSEQ) {
		rule->domain = strndup(text, len);
		rule->ascii = false;
		if (!rule->domain)
			return -ENOMEM;
		return warn(
		    r, s,
		    "\"%.*s\" is not ASCII and can never match; write it in punycode (xn--...)",
		    (int)len, text);
	}
	if (rc < 0)
		return fail(err, errlen, s, "\"%.*s\" is not a valid domain name or IP address",
		            (int)len, text);
	rule->domain = strdup(norm);
	rule->ascii = true;
	rule->is_ip = is_ip;
	return rule->domain ? 0 : -ENOMEM;
}

static int parse_path(struct netrule *rule, const config_setting_t *s, const char *p, char *err,
                      size_t errlen)
{
	char norm[4096];
	size_t len = strlen(p);

	if (len == 0 || p[0] != '/' || strpbrk(p, "?# \t\r\n"))
		return fail(
		    err, errlen, s,
		    "path \"%s\" must start with '/' and contain no query, fragment or space", p);
	int rc = read_path(p, len, 0, norm, sizeof(norm));
	if (rc == -EILSEQ)
		return fail(err, errlen, s,
		            "path \"%s\" has dot segments, a backslash or an escape servers "
		            "read differently",
		            p);
	if (rc < 0)
		return fail(err, errlen, s, "path \"%s\" has bad %%-escapes or is too long", p);
	if (strchr(norm, ';') || strstr(norm, "%3B"))
		return fail(err, errlen, s,
		            "path \"%s\": a ';' starts parameters that servers such as Tomcat "
		            "cut off, so the rule could never apply",
		            p);
	rule->path = strdup(norm);
	return rule->path ? 0 : -ENOMEM;
}

static int parse_methods(struct netrule *rule, const config_setting_t *s, char *err, size_t errlen)
{
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		if (strcmp(config_setting_get_string(s), "*") != 0)
			return fail(err, errlen, s, "methods must be \"*\" or a list of methods");
		return 0;
	}
	if (!is_aggregate_seq(s))
		return fail(err, errlen, s, "methods must be a list of strings or \"*\"");
	int n = config_setting_length(s);
	if (n == 0)
		return fail(err, errlen, s, "methods is empty: remove the entry to block it");
	size_t count = 0;
	char **v = NULL;
	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(m) != CONFIG_TYPE_STRING) {
			free_strv(v);
			return fail(err, errlen, m, "each method must be a string");
		}
		const char *name = config_setting_get_string(m);
		if (strcmp(name, "*") == 0) {
			free_strv(v);
			return 0;
		}
		for (const char *c = name; *c || c == name; c++)
			if (!*c || !is_tchar(*c)) {
				free_strv(v);
				return fail(err, errlen, m, "\"%s\" is not an HTTP method", name);
			}
		char *dup = strdup(name);
		if (!dup || push_str(&v, &count, dup) < 0) {
			free_strv(v);
			return -ENOMEM;
		}
	}
	rule->methods = v;
	return 0;
}

static int parse_ports(struct netrule *rule, const config_setting_t *s, char *err, size_t errlen)
{
	if (!is_aggregate_seq(s))
		return fail(err, errlen, s, "ports must be a list of integers");
	int n = config_setting_length(s);
	if (n > NETRULES_MAX_PORTS)
		return fail(err, errlen, s, "at most %d ports per entry", NETRULES_MAX_PORTS);
	for (int i = 0; i < n; i++) {
		const config_setting_t *p = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(p) != CONFIG_TYPE_INT)
			return fail(err, errlen, p, "each port must be an integer");
		int v = config_setting_get_int(p);
		if (v < 1 || v > 65535)
			return fail(err, errlen, p, "port %d is out of range", v);
		rule->ports[rule->n_ports++] = (uint16_t)v;
	}
	return 0;
}

static int parse_entry_group(struct netrules *r, struct netrule *rule, const config_setting_t *g,
                             char *err, size_t errlen)
{
	const config_setting_t *domain = NULL;
	int n = config_setting_length(g), rc;

	for (int i = 0; i < n; i++) {
		const config_setting_t *k = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(k);
		if (strcmp(name, "domain") == 0) {
			if ((rc = expect_type(k, CONFIG_TYPE_STRING, "domain", err, errlen)) < 0)
				return rc;
			domain = k;
		} else if (strcmp(name, "path") == 0) {
			if ((rc = expect_type(k, CONFIG_TYPE_STRING, "path", err, errlen)) < 0 ||
			    (rc = parse_path(rule, k, config_setting_get_string(k), err, errlen)) <
			        0)
				return rc;
		} else if (strcmp(name, "methods") == 0) {
			if ((rc = parse_methods(rule, k, err, errlen)) < 0)
				return rc;
		} else if (strcmp(name, "ports") == 0) {
			if ((rc = parse_ports(rule, k, err, errlen)) < 0)
				return rc;
		} else if (strcmp(name, "allow_private") == 0) {
			if ((rc = expect_type(k, CONFIG_TYPE_BOOL, "allow_private", err, errlen)) <
			    0)
				return rc;
			rule->allow_private = config_setting_get_bool(k);
		} else {
			return fail(err, errlen, k,
			            "unknown key \"%s\" in an allowed_domains entry (domain, path, "
			            "methods, ports, allow_private)",
			            name);
		}
	}
	if (!domain)
		return fail(err, errlen, g, "an allowed_domains entry needs a domain");
	const char *d = config_setting_get_string(domain);
	return parse_domain(r, rule, domain, d, strlen(d), err, errlen);
}

static int parse_entry(struct netrules *r, struct netrule *rule, const config_setting_t *e,
                       char *err, size_t errlen)
{
	const char *file = config_setting_source_file(e);
	if (file && !(rule->file = strdup(file)))
		return -ENOMEM;
	rule->line = config_setting_source_line(e);
	if (config_setting_type(e) == CONFIG_TYPE_GROUP)
		return parse_entry_group(r, rule, e, err, errlen);
	if (config_setting_type(e) != CONFIG_TYPE_STRING)
		return fail(err, errlen, e,
		            "an allowed_domains entry must be a string or a group, not %s",
		            netrules_type_name(config_setting_type(e)));
	const char *text = config_setting_get_string(e);
	const char *slash = strchr(text, '/');
	size_t dlen = slash ? (size_t)(slash - text) : strlen(text);
	int rc = parse_domain(r, rule, e, text, dlen, err, errlen);
	if (rc < 0 || !slash)
		return rc;
	return parse_path(rule, e, slash, err, errlen);
}

static bool same_entry(const struct netrule *a, const struct netrule *b)
{
	if (strcmp(a->domain, b->domain) != 0)
		return false;
	if (!a->path || !b->path)
		return !a->path && !b->path;
	return strcmp(a->path, b->path) == 0;
}

static int describe_methods(const struct netrule *rule, char *buf, size_t len)
{
	if (!rule->methods)
		return snprintf(buf, len, "all methods");
	size_t o = 0;
	buf[0] = '\0';
	for (char **m = rule->methods; *m && o < len; m++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", *m);
	return 0;
}

static int parse_allowed_domains(struct netrules *r, const config_setting_t *s, char *err,
                                 size_t errlen)
{
	if (!is_aggregate_seq(s))
		return fail(err, errlen, s, "allowed_domains must be a list, not %s",
		            netrules_type_name(config_setting_type(s)));
	int n = config_setting_length(s), rc;
	r->filtering = true;
	r->rules = calloc((size_t)n + 1, sizeof(*r->rules));
	if (!r->rules)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct netrule *rule = &r->rules[r->n_rules++];
		if ((rc = parse_entry(r, rule, e, err, errlen)) < 0)
			return rc;
		for (size_t j = 0; j + 1 < r->n_rules; j++)
			if (same_entry(&r->rules[j], rule))
				return fail(
				    err, errlen, e, "duplicate entry for %s%s (first at line %d)",
				    rule->domain, rule->path ? rule->path : "", r->rules[j].line);
		if (strcmp(rule->domain, "*") == 0) {
			char m[256];
			describe_methods(rule, m, sizeof(m));
			if ((rc = warn(r, e, "\"*\" permits %s on every domain not listed%s%s", m,
			               rule->path ? " under " : "", rule->path ? rule->path : "")) <
			    0)
				return rc;
		}
	}
	return 0;
}

/* Relative file names are relative to the config file that names them. */
static int parse_file_key(const config_setting_t *k, char **out, char *err, size_t errlen)
{
	int rc = expect_type(k, CONFIG_TYPE_STRING, config_setting_name(k), err, errlen);
	if (rc < 0)
		return rc;
	const char *v = config_setting_get_string(k);
	const char *src = config_setting_source_file(k);
	if (v[0] == '\0')
		return fail(err, errlen, k, "%s is empty", config_setting_name(k));
	if (v[0] == '/' || !src || !strchr(src, '/')) {
		*out = strdup(v);
	} else {
		int dirlen = (int)(strrchr(src, '/') - src);
		if (asprintf(out, "%.*s/%s", dirlen, src, v) < 0)
			*out = NULL;
	}
	return *out ? 0 : -ENOMEM;
}

static int check_int_list(const config_setting_t *k, char *err, size_t errlen)
{
	if (!is_aggregate_seq(k))
		return fail(err, errlen, k, "%s must be a list of integers",
		            config_setting_name(k));
	for (int i = 0; i < config_setting_length(k); i++) {
		const config_setting_t *e = config_setting_get_elem(k, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_INT)
			return fail(err, errlen, e, "%s entries must be integers",
			            config_setting_name(k));
	}
	return 0;
}

/* Owned by the launcher; checked only for shape so a typo is not silently ignored. */
static int check_published_ports(const config_setting_t *k, char *err, size_t errlen)
{
	if (!is_aggregate_seq(k))
		return fail(err, errlen, k, "published_ports must be a list");
	for (int i = 0; i < config_setting_length(k); i++) {
		const config_setting_t *e = config_setting_get_elem(k, (unsigned)i);
		if (config_setting_type(e) == CONFIG_TYPE_INT)
			continue;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP)
			return fail(err, errlen, e,
			            "published_ports entries must be a port or { port; bind; }");
		for (int j = 0; j < config_setting_length(e); j++) {
			const config_setting_t *f = config_setting_get_elem(e, (unsigned)j);
			const char *name = config_setting_name(f);
			int rc;
			if (strcmp(name, "port") == 0)
				rc = expect_type(f, CONFIG_TYPE_INT, "port", err, errlen);
			else if (strcmp(name, "bind") == 0)
				rc = expect_type(f, CONFIG_TYPE_STRING, "bind", err, errlen);
			else
				rc = fail(err, errlen, f, "unknown key \"%s\" in published_ports",
				          name);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* An integer, or a string of digits with a K, M or G suffix (powers of 1024). */
static int get_size(const config_setting_t *k, long long min, long long max, long long *out,
                    char *err, size_t errlen)
{
	long long v;
	if (config_setting_type(k) == CONFIG_TYPE_INT ||
	    config_setting_type(k) == CONFIG_TYPE_INT64) {
		v = config_setting_get_int64(k);
	} else if (config_setting_type(k) == CONFIG_TYPE_STRING) {
		const char *t = config_setting_get_string(k);
		char *end;
		v = strtoll(t, &end, 10);
		int shift = *end == 'K' || *end == 'k'   ? 10
		            : *end == 'M' || *end == 'm' ? 20
		            : *end == 'G' || *end == 'g' ? 30
		                                         : 0;
		if (shift)
			end++;
		if (t[0] < '0' || t[0] > '9' || *end || v > (max >> shift))
			return fail(err, errlen, k,
			            "%s: \"%s\" is not a size (digits, then K, M or G)",
			            config_setting_name(k), t);
		v <<= shift;
	} else {
		return fail(err, errlen, k, "%s must be a number or a size like \"256K\", not %s",
		            config_setting_name(k), netrules_type_name(config_setting_type(k)));
	}
	if (v < min || v > max)
		return fail(err, errlen, k, "%s: %lld is out of range (%lld to %lld)",
		            config_setting_name(k), v, min, max);
	*out = v;
	return 0;
}

static int parse_limits(struct netrules *r, const config_setting_t *g, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t off;
		long long min, max;
	} keys[] = {
	    {"max_connections", offsetof(struct netrules_limits, max_connections), 1, 1 << 20},
	    {"client_buffer", offsetof(struct netrules_limits, client_buffer), 4096, 64 << 20},
	    {"server_buffer", offsetof(struct netrules_limits, server_buffer), 4096, 64 << 20},
	    {"log_max", offsetof(struct netrules_limits, log_max), 0, 1LL << 40},
	    {"log_rate", offsetof(struct netrules_limits, log_rate), 1, 1000000},
	    {"ca_validity_hours", offsetof(struct netrules_limits, ca_validity_hours), 1, 24 * 366},
	};
	int rc = expect_type(g, CONFIG_TYPE_GROUP, "proxy_limits", err, errlen);
	for (int i = 0; rc == 0 && i < config_setting_length(g); i++) {
		const config_setting_t *k = config_setting_get_elem(g, (unsigned)i);
		size_t j = 0;
		while (j < sizeof(keys) / sizeof(keys[0]) &&
		       strcmp(keys[j].name, config_setting_name(k)))
			j++;
		if (j == sizeof(keys) / sizeof(keys[0]))
			return fail(err, errlen, k,
			            "unknown key \"%s\" in proxy_limits (max_connections, "
			            "client_buffer, server_buffer, log_max, log_rate, "
			            "ca_validity_hours)",
			            config_setting_name(k));
		rc = get_size(k, keys[j].min, keys[j].max,
		              (long long *)(void *)((char *)&r->limits + keys[j].off), err, errlen);
		r->limits.log_max_set |= rc == 0 && strcmp(keys[j].name, "log_max") == 0;
	}
	return rc;
}

int netrules_from_setting(const config_setting_t *network, struct netrules **out, char *err,
                          size_t errlen)
{
	__attribute__((cleanup(netrules_freep))) struct netrules *r = calloc(1, sizeof(*r));
	int rc = 0;

	if (!r)
		return -ENOMEM;
	if (network) {
		if (config_setting_type(network) != CONFIG_TYPE_GROUP)
			return fail(err, errlen, network, "network must be a group");
		for (int i = 0; i < config_setting_length(network) && rc >= 0; i++) {
			const config_setting_t *k = config_setting_get_elem(network, (unsigned)i);
			const char *name = config_setting_name(k);
			if (strcmp(name, "allowed_domains") == 0)
				rc = parse_allowed_domains(r, k, err, errlen);
			else if (strcmp(name, "hosts_file") == 0)
				rc = parse_file_key(k, &r->hosts_file, err, errlen);
			else if (strcmp(name, "upstream_ca_file") == 0)
				rc = parse_file_key(k, &r->upstream_ca_file, err, errlen);
			else if (strcmp(name, "enabled") == 0 || strcmp(name, "unix_sockets") == 0)
				rc = expect_type(k, CONFIG_TYPE_BOOL, name, err, errlen);
			else if (strcmp(name, "host_ports") == 0)
				/* "all": every host port (the launcher checks the mode). */
				rc = config_setting_type(k) == CONFIG_TYPE_STRING &&
				             strcmp(config_setting_get_string(k), "all") == 0
				         ? 0
				         : check_int_list(k, err, errlen);

			else if (strcmp(name, "published_ports") == 0)
				rc = check_published_ports(k, err, errlen);
			else if (strcmp(name, "proxy_limits") == 0)
				rc = parse_limits(r, k, err, errlen);
			else
				rc = fail(err, errlen, k, "unknown key \"%s\" in network", name);
		}
		if (rc < 0)
			return rc;
	}
	*out = r;
	r = NULL;
	return 0;
}

int netrules_load_file(const char *path, struct netrules **out, char *err, size_t errlen)
{
	config_t cfg;
	int rc;

	config_init(&cfg);
	if (!config_read_file(&cfg, path)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			snprintf(err, errlen, "%s: cannot read the file", path);
		else
			snprintf(err, errlen, "%s:%d: %s",
			         config_error_file(&cfg) ? config_error_file(&cfg) : path,
			         config_error_line(&cfg), config_error_text(&cfg));
		config_destroy(&cfg);
		return -EINVAL;
	}
	rc = netrules_from_setting(config_lookup(&cfg, "network"), out, err, errlen);
	config_destroy(&cfg);
	return rc;
}

/* Path parameters (';') are a reading of their own (netrules_path_readings): here a
 * ';' is a character like any other, as most servers have it. */
static bool path_covers(const char *rule, const char *path)
{
	size_t n = strlen(rule);
	if (strncmp(rule, path, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/' || rule[n - 1] == '/';
}

bool netrules_all_methods(const struct netrule *rule)
{
	return rule && !rule->methods;
}

static bool method_allowed(const struct netrule *rule, const char *method)
{
	if (!rule->methods)
		return true;
	for (char **m = rule->methods; *m; m++)
		if (strcmp(*m, method) == 0)
			return true;
	return false;
}

/* Decide with the entries of exactly one domain. false: they do not decide. */
static bool decide_domain(const struct netrules *r, const char *domain, const char *method,
                          const char *path, struct netrules_decision *out, bool *path_only)
{
	const struct netrule *best = NULL, *whole = NULL;
	bool any = false;

	for (size_t i = 0; i < r->n_rules; i++) {
		const struct netrule *rule = &r->rules[i];
		if (!rule->ascii || strcmp(rule->domain, domain) != 0)
			continue;
		any = true;
		if (!rule->path)
			whole = rule;
		else if (path_covers(rule->path, path) &&
		         (!best || strlen(rule->path) > strlen(best->path)))
			best = rule;
	}
	if (!best)
		best = whole;
	if (!best) {
		*path_only |= any;
		return false;
	}
	out->rule = best;
	out->verdict = method_allowed(best, method) ? NETRULES_ALLOW : NETRULES_DENY_METHOD;
	return true;
}

void netrules_match(const struct netrules *r, const char *host, const char *method,
                    const char *path, struct netrules_decision *out)
{
	struct host_addr ip;
	bool path_only = false;

	out->rule = NULL;
	out->verdict = NETRULES_DENY_DOMAIN;
	if (!r->filtering)
		return;
	if (host_parse_ip(host, &ip) == 1) {
		/* Only an entry naming the address allows it; not a suffix, not "*". */
		if (!decide_domain(r, host, method, path, out, &path_only) && path_only)
			out->verdict = NETRULES_DENY_PATH;
		return;
	}
	for (const char *s = host; s; s = strchr(s, '.'), s = s ? s + 1 : NULL)
		if (decide_domain(r, s, method, path, out, &path_only))
			return;
	if (decide_domain(r, "*", method, path, out, &path_only))
		return;
	out->verdict = path_only ? NETRULES_DENY_PATH : NETRULES_DENY_DOMAIN;
}

void netrules_decide(const struct netrules *r, const char *host, const char *method,
                     const struct netrules_paths *paths, uint16_t port, bool websocket,
                     struct netrules_decision *out)
{
	bool allow_private = true;

	for (size_t i = 0; i < paths->n; i++) {
		struct netrules_decision d;
		netrules_match(r, host, method, paths->p[i], &d);
		if (d.verdict == NETRULES_ALLOW && !netrules_port_allowed(d.rule, port))
			d.verdict = NETRULES_DENY_PORT;
		/* A WebSocket carries any traffic: only where every method is allowed. */
		if (d.verdict == NETRULES_ALLOW && websocket && !netrules_all_methods(d.rule))
			d.verdict = NETRULES_DENY_WEBSOCKET;
		if (d.verdict != NETRULES_ALLOW || i == 0)
			*out = d;
		if (d.verdict != NETRULES_ALLOW)
			break;
		allow_private &= d.rule->allow_private;
	}
	if (paths->n == 0) {
		out->verdict = NETRULES_DENY_AMBIGUOUS;
		out->rule = NULL;
	}
	out->allow_private = out->verdict == NETRULES_ALLOW && allow_private;
}

static const struct netrule *first_rule_for(const struct netrules *r, const char *domain)
{
	for (size_t i = 0; i < r->n_rules; i++)
		if (r->rules[i].ascii && strcmp(r->rules[i].domain, domain) == 0)
			return &r->rules[i];
	return NULL;
}

const struct netrule *netrules_domain_candidate(const struct netrules *r, const char *host)
{
	struct host_addr ip;
	const struct netrule *rule;

	if (!r->filtering)
		return NULL;
	if (host_parse_ip(host, &ip) == 1)
		return first_rule_for(r, host);
	for (const char *s = host; s; s = strchr(s, '.'), s = s ? s + 1 : NULL)
		if ((rule = first_rule_for(r, s)))
			return rule;
	return first_rule_for(r, "*");
}

bool netrules_port_allowed(const struct netrule *rule, uint16_t port)
{
	if (rule->n_ports == 0)
		return port == 80 || port == 443;
	for (size_t i = 0; i < rule->n_ports; i++)
		if (rule->ports[i] == port)
			return true;
	return false;
}

static bool domain_port_allowed(const struct netrules *r, const char *domain, uint16_t port)
{
	for (size_t i = 0; i < r->n_rules; i++)
		if (r->rules[i].ascii && strcmp(r->rules[i].domain, domain) == 0 &&
		    netrules_port_allowed(&r->rules[i], port))
			return true;
	return false;
}

bool netrules_host_port_allowed(const struct netrules *r, const char *host, uint16_t port)
{
	struct host_addr ip;

	if (host_parse_ip(host, &ip) == 1)
		return domain_port_allowed(r, host, port);
	for (const char *s = host; s; s = strchr(s, '.'), s = s ? s + 1 : NULL)
		if (domain_port_allowed(r, s, port))
			return true;
	return domain_port_allowed(r, "*", port);
}

const char *netrules_reason(enum netrules_verdict v)
{
	switch (v) {
	case NETRULES_ALLOW:
		return "allowed";
	case NETRULES_DENY_DOMAIN:
		return "domain not allowed";
	case NETRULES_DENY_PATH:
		return "path not allowed";
	case NETRULES_DENY_METHOD:
		return "method not allowed";
	case NETRULES_DENY_PORT:
		return "port not allowed";
	case NETRULES_DENY_PRIVATE:
		return "private address";
	case NETRULES_DENY_HOST:
		return "the host's own address";
	case NETRULES_DENY_AMBIGUOUS:
		return "ambiguous path";
	case NETRULES_DENY_WEBSOCKET:
		return "websocket needs an entry allowing every method";
	}
	return "denied";
}
