/* Credentials in the proxy: loading them, judging requests, injecting, and the
 * OAuth token exchange. See creds.h. */
#include "creds.h"

#include "json.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

static void wipe_free(char *s)
{
	if (s) {
		netsecrets_wipe(s, strlen(s));
		free(s);
	}
}

/* Best effort: a secret's pages never go to swap. */
static char *secret_dup(const char *p, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, p, n);
	s[n] = '\0';
	(void)mlock(s, n + 1);
	return s;
}

const char *creds_name(const struct creds *cs, int i)
{
	return i >= 0 && (size_t)i < cs->n && cs->v[i].def ? cs->v[i].def->name : "?";
}

static int rebuild(struct creds *cs)
{
	struct guard_builder *b = guard_builder_new();
	if (!b)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < cs->n && rc == 0; i++) {
		const struct pcred *p = &cs->v[i];
		if (!p->active)
			continue;
		uint16_t ph = (uint16_t)(GUARD_PLACEHOLDER | i), sec = (uint16_t)i;
		rc = guard_add(b, p->ph, strlen(p->ph), ph, true);
		if (rc == 0 && p->refresh_ph)
			rc = guard_add(b, p->refresh_ph, strlen(p->refresh_ph), ph, true);
		if (!p->def->guard)
			continue;
		const char *reals[2 + CREDS_OLD_MAX] = {p->real, p->refresh};
		for (size_t k = 0; k < p->n_old; k++)
			reals[2 + k] = p->old[k];
		for (size_t k = 0; k < 2 + p->n_old && rc == 0; k++)
			if (reals[k] && strlen(reals[k]) >= NETCRED_MIN_GUARD)
				rc = guard_add(b, reals[k], strlen(reals[k]), sec, true);
	}
	for (size_t i = 0; i < cs->n_guard && rc == 0; i++)
		rc = guard_add(b, cs->guard[i], strlen(cs->guard[i]),
		               (uint16_t)(GUARD_FILE | (cs->guard_file[i] & GUARD_INDEX)), true);
	struct guard *g = rc == 0 ? guard_build(b) : NULL;
	guard_builder_free(b);
	if (!g)
		return rc < 0 ? rc : -ENOMEM;
	guard_unref(cs->g);
	cs->g = g;
	return 0;
}

struct load {
	struct creds *cs;
	const struct netrules *rules;
	bool seen[NETCRED_MAX];
	char *err;
	size_t errlen;
};

static int on_record(void *arg, char tag, int index, const char *data, size_t len)
{
	struct load *l = arg;
	struct creds *cs = l->cs;
	if (tag == 'G') {
		char **g = realloc(cs->guard, (cs->n_guard + 1) * sizeof(char *));
		int *gf = g ? realloc(cs->guard_file, (cs->n_guard + 1) * sizeof(int)) : NULL;
		if (g)
			cs->guard = g;
		if (!g || !gf)
			return -ENOMEM;
		cs->guard_file = gf;
		if (!(cs->guard[cs->n_guard] = secret_dup(data, len)))
			return -ENOMEM;
		cs->guard_file[cs->n_guard++] = index;
		return 0;
	}
	if ((size_t)index >= l->rules->creds.n) {
		snprintf(l->err, l->errlen,
		         "--secrets-fd: a record for binding %d, which the config "
		         "does not have",
		         index);
		return -EINVAL;
	}
	struct pcred *p = &cs->v[index];
	if (tag == 'B') {
		char fp[2048];
		int n = netcred_fingerprint(&l->rules->creds.v[index], fp, sizeof(fp));
		if (n < 0 || (size_t)n != len || memcmp(fp, data, len) != 0 || l->seen[index]) {
			snprintf(l->err, l->errlen,
			         "--secrets-fd: binding %d is not the config's \"%s\" (the config "
			         "changed since the launcher read it?)",
			         index, l->rules->creds.v[index].name);
			return -EINVAL;
		}
		l->seen[index] = true;
		return 0;
	}
	if (!l->seen[index]) {
		snprintf(l->err, l->errlen, "--secrets-fd: a value before its binding");
		return -EINVAL;
	}
	char **dst = tag == 'V'   ? &p->real
	             : tag == 'P' ? &p->ph
	             : tag == 'R' ? &p->refresh
	             : tag == 'Q' ? &p->refresh_ph
	             : tag == 'F' ? &p->host_file
	                          : NULL;
	if (!dst || *dst || memchr(data, '\0', len) || len == 0) {
		snprintf(l->err, l->errlen, "--secrets-fd: a bad record ('%c') for binding %d", tag,
		         index);
		return -EINVAL;
	}
	return (*dst = secret_dup(data, len)) ? 0 : -ENOMEM;
}

int creds_load(struct creds *cs, const struct netrules *rules, int fd, char *err, size_t errlen)
{
	*cs = (struct creds){0};
	cs->n = rules->creds.n;
	for (size_t i = 0; i < cs->n; i++)
		cs->v[i].def = &rules->creds.v[i];
	/* Grown by copying, never realloc: no stale copy of a secret in freed memory. */
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (len == cap) {
			if (cap >= NETSECRETS_MAX) {
				rc = -E2BIG;
				break;
			}
			char *nb = malloc(cap * 2);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			memcpy(nb, buf, len);
			netsecrets_wipe(buf, cap);
			free(buf);
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!buf) {
		snprintf(err, errlen, "--secrets-fd: out of memory");
		return -ENOMEM;
	}
	struct load l = {.cs = cs, .rules = rules, .err = err, .errlen = errlen};
	err[0] = '\0';
	if (rc == 0 && len == 0) {
		/* Not even the magic: the sender closed it unused (it gave up). */
		free(buf);
		snprintf(err, errlen, "--secrets-fd: nothing came");
		return -ENODATA;
	}
	if (rc == 0)
		rc = netsecrets_parse(buf, len, on_record, &l);
	netsecrets_wipe(buf, cap);
	free(buf);
	if (rc < 0) {
		if (!err[0])
			snprintf(err, errlen, "--secrets-fd: %s",
			         rc == -EBADMSG ? "truncated or malformed records" : strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < cs->n; i++) {
		struct pcred *p = &cs->v[i];
		if (!l.seen[i])
			continue;
		bool oauth = p->def->oauth != NETCRED_OAUTH_NONE;
		if (!p->real || !p->ph ||
		    (oauth && (!p->refresh || !p->refresh_ph || !p->host_file))) {
			snprintf(err, errlen, "--secrets-fd: binding \"%s\" lacks its values",
			         p->def->name);
			return -EINVAL;
		}
		p->active = true;
		cs->any = true;
	}
	cs->any |= cs->n_guard > 0;
	if (cs->any && (rc = rebuild(cs)) < 0) {
		snprintf(err, errlen, "cannot build the guard's patterns: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

void creds_free(struct creds *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct pcred *p = &cs->v[i];
		wipe_free(p->real);
		wipe_free(p->ph);
		wipe_free(p->refresh);
		wipe_free(p->refresh_ph);
		free(p->host_file);
		for (size_t k = 0; k < p->n_old; k++)
			wipe_free(p->old[k]);
	}
	for (size_t i = 0; i < cs->n_guard; i++)
		wipe_free(cs->guard[i]);
	free(cs->guard);
	free(cs->guard_file);
	guard_unref(cs->g);
	*cs = (struct creds){0};
}

/* ---- judging ---- */

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

static uint64_t covered(const struct creds *cs, const char *host, const char *const *paths,
                        size_t n_paths)
{
	uint64_t m = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i].active && netcred_covers(cs->v[i].def, host, paths, n_paths))
			m |= 1ull << i;
	return m;
}

static int lowest(uint64_t m)
{
	for (int i = 0; i < 64; i++)
		if (m & (1ull << i))
			return i;
	return -1;
}

/* The reason, or NULL when the hits are allowed. */
static const char *judge(const struct creds *cs, const struct guard_scan *s, uint64_t cov, bool tls,
                         char *buf, size_t len)
{
	if (s->secret >= 0) {
		if (s->secret & GUARD_FILE)
			snprintf(buf, len, "a secret from guard_files");
		else
			snprintf(buf, len, "the real value of credential %s",
			         creds_name(cs, s->secret & GUARD_INDEX));
		return buf;
	}
	uint64_t bad = s->placeholders & ~(tls ? cov : 0);
	if (!bad)
		return NULL;
	int i = lowest(bad);
	if (!tls && (cov & (1ull << i)))
		snprintf(buf, len, "credential %s over plain HTTP", creds_name(cs, i));
	else
		snprintf(buf, len, "credential for %s", cs->v[i].def->domains[0]);
	return buf;
}

void creds_check_head(const struct creds *cs, const char *head, size_t head_len, size_t line_len,
                      const char *host, const char *const *paths, size_t n_paths, bool tls,
                      const char *method, struct creds_verdict *v)
{
	*v = (struct creds_verdict){.oauth = -1};
	if (!cs || !cs->any)
		return;
	struct guard_scan s;
	guard_scan_init(&s);
	guard_feed(cs->g, &s, head, line_len);
	/* The target as servers read it too: percent-escapes of any byte decoded. */
	char dec[1024];
	size_t o = 0;
	bool escaped = memchr(head, '%', line_len) != NULL;
	for (size_t i = 0; escaped && i < line_len; i++) {
		int hi = i + 2 < line_len && head[i] == '%' ? hexval(head[i + 1]) : -1;
		int lo = hi >= 0 ? hexval(head[i + 2]) : -1;
		if (o == sizeof(dec)) {
			guard_feed(cs->g, &s, dec, o);
			o = 0;
		}
		if (lo >= 0) {
			dec[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			dec[o++] = head[i];
		}
	}
	guard_feed(cs->g, &s, dec, o);
	v->in_target = guard_hit(&s);
	guard_feed(cs->g, &s, head + line_len, head_len - line_len);
	uint64_t cov = covered(cs, host, paths, n_paths);
	v->covered = cov;
	v->tls = tls;
	if ((v->refuse = judge(cs, &s, cov, tls, v->reason, sizeof(v->reason))))
		return;
	if (!tls)
		return; /* nothing is ever put into plain HTTP */
	uint64_t add = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i].active && cs->v[i].def->add)
			add |= 1ull << i;
	v->inject = cov & (s.placeholders | add);
	for (size_t i = 0; i < cs->n && strcmp(method, "POST") == 0; i++) {
		const char *tp = netcred_oauth_token_path(cs->v[i].def->oauth);
		if ((cov & (1ull << i)) && tp && n_paths && strcmp(paths[0], tp) == 0)
			v->oauth = (int)i;
	}
}

const char *creds_judge(const struct creds *cs, const struct guard_scan *s, uint64_t cov, bool tls,
                        char *buf, size_t len)
{
	return judge(cs, s, cov, tls, buf, len);
}

/* ---- injecting ---- */

/* s with every `from` replaced by `to`; 1 when anything was. */
static int replace_all(const char *s, size_t n, const char *from, const char *to, char **out,
                       size_t *out_len)
{
	size_t fl = strlen(from), tl = strlen(to), count = 0;
	if (!fl)
		return 0;
	for (size_t i = 0; i + fl <= n; i++)
		if (memcmp(s + i, from, fl) == 0) {
			count++;
			i += fl - 1;
		}
	if (!count)
		return 0;
	size_t len = n - count * fl + count * tl;
	char *o = malloc(len + 1);
	if (!o)
		return -ENOMEM;
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		if (i + fl <= n && memcmp(s + i, from, fl) == 0) {
			memcpy(o + w, to, tl);
			w += tl;
			i += fl;
		} else {
			o[w++] = s[i++];
		}
	}
	o[w] = '\0';
	*out = o;
	*out_len = len;
	return 1;
}

/* Basic credentials: decode, replace, encode again. */
static int rewrite_basic(const struct pcred *p, const char *v, size_t n, char **out, size_t *len)
{
	if (n < 6 || strncasecmp(v, "Basic ", 6) != 0)
		return 0;
	const char *b = v + 6;
	size_t bn = n - 6;
	while (bn && *b == ' ')
		b++, bn--;
	unsigned char *dec = malloc(bn * 3 / 4 + 4);
	if (!dec)
		return -ENOMEM;
	long dl = guard_unbase64(b, bn, dec);
	char *rep = NULL;
	size_t rl = 0;
	int rc = dl < 0 ? 0 : replace_all((const char *)dec, (size_t)dl, p->ph, p->real, &rep, &rl);
	netsecrets_wipe(dec, bn * 3 / 4 + 4);
	free(dec);
	if (rc <= 0)
		return rc;
	char *o = malloc(6 + (rl + 2) / 3 * 4 + 1);
	if (!o) {
		wipe_free(rep);
		return -ENOMEM;
	}
	memcpy(o, "Basic ", 6);
	size_t el = guard_base64((const unsigned char *)rep, rl, o + 6);
	netsecrets_wipe(rep, rl);
	free(rep);
	*out = o;
	*len = 6 + el;
	return 1;
}

uint64_t creds_header_owner(const struct creds *cs, uint64_t inject, struct http_str name)
{
	uint64_t m = 0;
	for (size_t i = 0; i < cs->n; i++)
		if ((inject & (1ull << i)) && cs->v[i].def->header &&
		    http_str_ieq(name, cs->v[i].def->header))
			m |= 1ull << i;
	return m;
}

int creds_rewrite_header(const struct creds *cs, uint64_t inject, struct http_str name,
                         struct http_str value, char **out, size_t *out_len, uint64_t *which)
{
	uint64_t own = creds_header_owner(cs, inject, name);
	char *cur = NULL;
	size_t cl = 0;
	int changed = 0;
	for (size_t i = 0; own && i < cs->n; i++) {
		if (!(own & (1ull << i)))
			continue;
		const struct pcred *p = &cs->v[i];
		const char *v = cur ? cur : value.p;
		size_t vn = cur ? cl : value.n;
		char *o = NULL;
		size_t ol = 0;
		int rc = p->def->send == NETCRED_BASIC
		             ? rewrite_basic(p, v, vn, &o, &ol)
		             : replace_all(v, vn, p->ph, p->real, &o, &ol);
		if (rc < 0) {
			wipe_free(cur);
			return rc;
		}
		if (rc > 0) {
			wipe_free(cur);
			cur = o;
			cl = ol;
			changed = 1;
			*which |= 1ull << i;
		}
	}
	if (changed) {
		*out = cur;
		*out_len = cl;
	}
	return changed;
}

int creds_rewrite_query(const struct creds *cs, uint64_t inject, struct http_str query, char **out,
                        size_t *out_len, uint64_t *which)
{
	char *cur = NULL;
	size_t cl = 0;
	int changed = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct pcred *p = &cs->v[i];
		if (!(inject & (1ull << i)) || p->def->send != NETCRED_QUERY)
			continue;
		char *o;
		size_t ol;
		int rc =
		    replace_all(cur ? cur : query.p, cur ? cl : query.n, p->ph, p->real, &o, &ol);
		if (rc < 0) {
			wipe_free(cur);
			return rc;
		}
		if (rc > 0) {
			wipe_free(cur);
			cur = o;
			cl = ol;
			changed = 1;
			*which |= 1ull << i;
		}
	}
	if (changed) {
		*out = cur;
		*out_len = cl;
	}
	return changed;
}

static int append(char **buf, size_t *len, const char *p, size_t n)
{
	char *nb = malloc(*len + n + 1);
	if (!nb)
		return -ENOMEM;
	if (*len)
		memcpy(nb, *buf, *len);
	memcpy(nb + *len, p, n);
	nb[*len + n] = '\0';
	if (*buf) {
		netsecrets_wipe(*buf, *len);
		free(*buf);
	}
	*buf = nb;
	*len += n;
	return 0;
}

int creds_added_headers(const struct creds *cs, uint64_t inject, uint64_t present, char **out,
                        size_t *out_len, uint64_t *which)
{
	*out = NULL;
	*out_len = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct pcred *p = &cs->v[i];
		if (!(inject & (1ull << i)) || !p->def->add || (present & (1ull << i)) ||
		    p->def->send == NETCRED_QUERY)
			continue;
		int rc;
		if (p->def->send == NETCRED_BASIC) {
			size_t ul = strlen(p->def->user), rl = strlen(p->real);
			char *up = malloc(ul + rl + 2);
			char *enc = malloc((ul + rl + 3) / 3 * 4 + 1);
			if (!up || !enc) {
				free(up);
				free(enc);
				return -ENOMEM;
			}
			memcpy(up, p->def->user, ul);
			up[ul] = ':';
			memcpy(up + ul + 1, p->real, rl);
			size_t el = guard_base64((const unsigned char *)up, ul + rl + 1, enc);
			netsecrets_wipe(up, ul + rl + 2);
			free(up);
			rc = append(out, out_len, "Authorization: Basic ", 21);
			if (rc == 0)
				rc = append(out, out_len, enc, el);
			netsecrets_wipe(enc, el);
			free(enc);
		} else {
			const char *pre = p->def->send == NETCRED_BEARER ? "Bearer " : "";
			rc = append(out, out_len, p->def->header, strlen(p->def->header));
			if (rc == 0)
				rc = append(out, out_len, ": ", 2);
			if (rc == 0)
				rc = append(out, out_len, pre, strlen(pre));
			if (rc == 0)
				rc = append(out, out_len, p->real, strlen(p->real));
		}
		if (rc == 0)
			rc = append(out, out_len, "\r\n", 2);
		if (rc < 0) {
			wipe_free(*out);
			*out = NULL;
			return rc;
		}
		*which |= 1ull << i;
	}
	return 0;
}

static bool query_has(struct http_str q, const char *param)
{
	size_t pl = strlen(param);
	for (size_t i = 0; i < q.n;) {
		size_t j = i;
		while (j < q.n && q.p[j] != '&')
			j++;
		if (j - i > pl && memcmp(q.p + i, param, pl) == 0 && q.p[i + pl] == '=')
			return true;
		i = j + 1;
	}
	return false;
}

int creds_added_query(const struct creds *cs, uint64_t inject, struct http_str query, char **out,
                      size_t *out_len, uint64_t *which)
{
	*out = NULL;
	*out_len = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct pcred *p = &cs->v[i];
		if (!(inject & (1ull << i)) || !p->def->add || p->def->send != NETCRED_QUERY ||
		    query_has(query, p->def->query))
			continue;
		int rc =
		    append(out, out_len, (query.n || *out_len) ? "&" : "", (query.n || *out_len));
		if (rc == 0)
			rc = append(out, out_len, p->def->query, strlen(p->def->query));
		if (rc == 0)
			rc = append(out, out_len, "=", 1);
		if (rc == 0)
			rc = append(out, out_len, p->real, strlen(p->real));
		if (rc < 0) {
			wipe_free(*out);
			*out = NULL;
			return rc;
		}
		*which |= 1ull << i;
	}
	return 0;
}

/* ---- the oauth token exchange ---- */

int creds_oauth_request(struct creds *cs, int i, const char *body, size_t n, char **out,
                        size_t *out_len)
{
	const struct pcred *p = &cs->v[i];
	int rc = replace_all(body, n, p->refresh_ph, p->refresh, out, out_len);
	if (rc == 0) {
		/* An authorization-code exchange (a login inside): nothing to put in. */
		if (!(*out = malloc(n + 1)))
			return -ENOMEM;
		memcpy(*out, body, n);
		(*out)[n] = '\0';
		*out_len = n;
	}
	return rc;
}

static int rand_fn(void *buf, size_t n)
{
	return RAND_bytes(buf, (int)n) == 1 ? 0 : -EIO;
}

/* The new real value of one token: the old one stays guarded; the placeholder
 * stays when the length does (the agent may keep what it has). */
static int take_token(struct pcred *p, char **real, char **ph, const char *v, size_t n)
{
	if (*real && strlen(*real) == n && memcmp(*real, v, n) == 0)
		return 0;
	char *nv = secret_dup(v, n);
	if (!nv)
		return -ENOMEM;
	if (!*ph || strlen(*ph) != n) {
		char *nph;
		int rc = netcred_placeholder(v, n, p->def->prefix, rand_fn, &nph);
		if (rc < 0) {
			wipe_free(nv);
			return rc;
		}
		wipe_free(*ph);
		*ph = nph;
	}
	if (*real) {
		if (p->n_old == CREDS_OLD_MAX) {
			wipe_free(p->old[0]);
			memmove(p->old, p->old + 1, (CREDS_OLD_MAX - 1) * sizeof(char *));
			p->n_old--;
		}
		p->old[p->n_old++] = *real;
	}
	*real = nv;
	return 0;
}

struct span_sub {
	size_t off, len;
	const char *text; /* written as a JSON string */
	bool quote;
};

static int cmp_sub(const void *a, const void *b)
{
	const struct span_sub *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* buf with the spans replaced (non-overlapping). */
static int substitute(const char *buf, size_t n, struct span_sub *subs, size_t k, char **out,
                      size_t *out_len)
{
	qsort(subs, k, sizeof(*subs), cmp_sub);
	size_t len = n;
	for (size_t i = 0; i < k; i++)
		len = len - subs[i].len + strlen(subs[i].text) + (subs[i].quote ? 2 : 0);
	char *o = malloc(len + 1);
	if (!o)
		return -ENOMEM;
	size_t w = 0, r = 0;
	for (size_t i = 0; i < k; i++) {
		memcpy(o + w, buf + r, subs[i].off - r);
		w += subs[i].off - r;
		if (subs[i].quote)
			o[w++] = '"';
		size_t tl = strlen(subs[i].text);
		memcpy(o + w, subs[i].text, tl);
		w += tl;
		if (subs[i].quote)
			o[w++] = '"';
		r = subs[i].off + subs[i].len;
	}
	memcpy(o + w, buf + r, n - r);
	w += n - r;
	o[w] = '\0';
	*out = o;
	*out_len = w;
	return 0;
}

/* The host's token file, updated in place (a rename would detach the placeholder
 * mounted over it inside the sandbox, and show the agent the real file). */
static void write_back(const struct pcred *p, long long expires_in)
{
	static const char *const acc[] = {"claudeAiOauth", "accessToken"};
	static const char *const ref[] = {"claudeAiOauth", "refreshToken"};
	static const char *const exp[] = {"claudeAiOauth", "expiresAt"};
	int fd = open(p->host_file, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	struct stat st;
	const char *why = NULL;
	char *old = NULL, *nw = NULL;
	size_t nl = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
		why = "cannot open it";
		goto out;
	}
	old = malloc((size_t)st.st_size + 1);
	if (!old || pread(fd, old, (size_t)st.st_size, 0) != st.st_size) {
		why = "cannot read it";
		goto out;
	}
	struct json_span a, r, e;
	struct span_sub subs[3];
	size_t k = 0;
	char expbuf[32];
	if (json_find(old, (size_t)st.st_size, acc, 2, &a) != 1 ||
	    json_find(old, (size_t)st.st_size, ref, 2, &r) != 1) {
		why = "it holds no claudeAiOauth tokens";
		goto out;
	}
	subs[k++] = (struct span_sub){a.off, a.len, p->real, true};
	subs[k++] = (struct span_sub){r.off, r.len, p->refresh, true};
	if (expires_in > 0 && json_find(old, (size_t)st.st_size, exp, 2, &e) == 1 &&
	    e.type == JSON_NUMBER) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(expbuf, sizeof(expbuf), "%lld",
		         (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + expires_in * 1000);
		subs[k++] = (struct span_sub){e.off, e.len, expbuf, false};
	}
	if (substitute(old, (size_t)st.st_size, subs, k, &nw, &nl) < 0 ||
	    pwrite(fd, nw, nl, 0) != (ssize_t)nl || ftruncate(fd, (off_t)nl) < 0) {
		why = "cannot write it";
		goto out;
	}
out:
	if (why)
		plog_info("credential %s: %s %s: the host's Claude Code may have to log in again",
		          p->def->name, p->host_file, why);
	if (fd >= 0)
		close(fd);
	if (old) {
		netsecrets_wipe(old, (size_t)st.st_size);
		free(old);
	}
	if (nw) {
		netsecrets_wipe(nw, nl);
		free(nw);
	}
}

int creds_oauth_response(struct creds *cs, int i, bool refresh, const char *body, size_t n,
                         char **out, size_t *out_len)
{
	static const char *const acc[] = {"access_token"}, *const ref[] = {"refresh_token"},
	                         *const exp[] = {"expires_in"};
	struct pcred *p = &cs->v[i];
	struct json_span a, r, e;
	int ha = json_find(body, n, acc, 1, &a), hr = json_find(body, n, ref, 1, &r);
	const char *ap = NULL, *rp = NULL;
	size_t an = 0, rn = 0;
	if (ha < 0)
		return -EBADMSG;
	if ((ha == 1 && !json_plain_string(body, &a, &ap, &an)) ||
	    (hr == 1 && !json_plain_string(body, &r, &rp, &rn)) || (ha == 1 && !an))
		return -EBADMSG;
	if (ha != 1 && hr != 1) {
		/* An error answer: as it came. */
		if (!(*out = malloc(n + 1)))
			return -ENOMEM;
		memcpy(*out, body, n);
		*out_len = n;
		return 0;
	}
	int rc = 0;
	if (ha == 1)
		rc = take_token(p, &p->real, &p->ph, ap, an);
	if (rc == 0 && hr == 1 && rn)
		rc = take_token(p, &p->refresh, &p->refresh_ph, rp, rn);
	if (rc < 0)
		return rc;
	struct span_sub subs[2];
	size_t k = 0;
	if (ha == 1)
		subs[k++] = (struct span_sub){a.off, a.len, p->ph, true};
	if (hr == 1)
		subs[k++] = (struct span_sub){r.off, r.len, p->refresh_ph, true};
	if ((rc = substitute(body, n, subs, k, out, out_len)) < 0)
		return rc;
	long long expires = 0;
	if (json_find(body, n, exp, 1, &e) == 1 && e.type == JSON_NUMBER)
		expires = strtoll(body + e.off, NULL, 10);
	if ((rc = rebuild(cs)) < 0)
		plog_info("credential %s: cannot update the guard: %s", p->def->name,
		          strerror(-rc));
	if (refresh) {
		write_back(p, expires);
		plog_info("credential %s: tokens refreshed; the agent keeps placeholders",
		          p->def->name);
	} else {
		plog_info("credential %s: a login inside: its tokens stay in the proxy for this "
		          "session, the host's file is left alone",
		          p->def->name);
	}
	return 0;
}
