/* SPDX-License-Identifier: MIT */
#include "allowlist.h"

#include "util.h"

#include "netrules.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Paths below one write-taking prefix get their own rule when a host saw
 * writes on at most this many prefixes; beyond that the host gets the write
 * methods for all of its paths. */
#define MAX_WRITE_PREFIXES 3
#define MAX_METHODS        16

struct use {
	char *prefix; /* first path segment: "/graphql"; "/" for the root */
	char *methods[MAX_METHODS];
	size_t n_methods;
	bool websocket; /* an upgrade was allowed here: it needs every method */
};

struct host {
	char *name;
	struct use *uses;
	size_t n_uses;
	unsigned ports[8]; /* other than 80/443, as logged ("host:port") */
	size_t n_ports;
};

static bool is_read(const char *m)
{
	return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0 || strcmp(m, "OPTIONS") == 0;
}

static void add_method(char **set, size_t *n, const char *m)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(set[i], m) == 0)
			return;
	if (*n < MAX_METHODS && (set[*n] = strdup(m)))
		(*n)++;
}

static struct host *find_host(struct host **hosts, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*hosts)[i].name, name) == 0)
			return &(*hosts)[i];
	struct host *nh = realloc(*hosts, (*n + 1) * sizeof(**hosts));
	if (!nh)
		return NULL;
	*hosts = nh;
	nh[*n] = (struct host){.name = strdup(name)};
	return &nh[(*n)++];
}

static void record(struct host *h, const char *method, const char *path, bool websocket)
{
	char prefix[256];
	const char *end = strchr(path + 1, '/');
	size_t len = end ? (size_t)(end - path) : strlen(path);
	if (len >= sizeof(prefix))
		len = sizeof(prefix) - 1;
	memcpy(prefix, path, len);
	prefix[len] = '\0';
	if (!prefix[0])
		strcpy(prefix, "/");
	struct use *u = NULL;
	for (size_t i = 0; i < h->n_uses; i++)
		if (strcmp(h->uses[i].prefix, prefix) == 0)
			u = &h->uses[i];
	if (!u) {
		struct use *nu = realloc(h->uses, (h->n_uses + 1) * sizeof(*nu));
		if (!nu)
			return;
		h->uses = nu;
		u = &nu[h->n_uses++];
		*u = (struct use){.prefix = strdup(prefix)};
	}
	add_method(u->methods, &u->n_methods, method);
	u->websocket |= websocket;
}

/* Everything taken from proxy.log becomes config text, and proxy.log holds what a
 * client inside the sandbox sent: a crafted path must not close the string it is
 * printed in and add keys ("allow_private = true") or entries. So each part is
 * checked against what a plain value of its kind can hold, and a line with
 * anything else is skipped (counted, never echoed). */
static bool is_method_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* A normalised host name, or an IPv6 literal in brackets. */
static bool plain_host(const char *h)
{
	size_t n = strlen(h);
	if (n == 0 || n > 253)
		return false;
	if (h[0] == '[') {
		if (n < 3 || h[n - 1] != ']')
			return false;
		for (size_t i = 1; i + 1 < n; i++)
			if (!strchr("0123456789abcdef:.", h[i]))
				return false;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= '0' && h[i] <= '9') || h[i] == '-' ||
		      h[i] == '.' || h[i] == '_'))
			return false;
	return h[0] != '.' && h[0] != '-';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A path of characters a URL path holds literally and a config string takes as
 * they are: no quote, no backslash, no ';' (path rules refuse it), %XX escapes. */
static bool plain_path(const char *p)
{
	if (p[0] != '/' || strlen(p) > 4096)
		return false;
	for (size_t i = 0; p[i]; i++) {
		char c = p[i];
		if (c == '%') {
			if (!is_hex(p[i + 1]) || !is_hex(p[i + 2]))
				return false;
			i += 2;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		             (c >= '0' && c <= '9') || strchr("-._~/!$&'()*+,=:@", c))) {
			return false;
		}
	}
	return true;
}

/* "2026-...Z allowed: GET host[:port]/path", with " (websocket)" for an
 * upgrade, or "... blocked: GET host/path (reason)". 1: an allowed request,
 * 2: a blocked one (never used: a denial does not widen the list), 0: another
 * line, -1: an allowed line that cannot be used. */
static int parse_line(char *line, char **method, char **host, unsigned *port, char **path,
                      bool *websocket)
{
	line[strcspn(line, "\r\n")] = '\0';
	char *p = strchr(line, ' '); /* after the timestamp */
	if (!p || p == line)
		return 0;
	p++;
	if (strncmp(p, "blocked: ", 9) == 0)
		return 2;
	if (strncmp(p, "allowed: ", 9) != 0)
		return 0;
	p += 9;
	char *sp = strchr(p, ' ');
	if (!sp || sp == p || sp - p > 32)
		return -1;
	*sp = '\0';
	for (char *m = p; *m; m++)
		if (!is_method_char(*m))
			return -1;
	*method = p;
	char *target = sp + 1;
	char *end = strchr(target, ' ');
	*websocket = false;
	if (end) {
		if (strcmp(end, " (websocket)") != 0)
			return -1;
		*websocket = true;
		*end = '\0';
	}
	char *slash = strchr(target, '/');
	/* The first segment becomes a path rule: it must fit record()'s prefix whole. */
	if (!slash || slash == target || !plain_path(slash) || strcspn(slash + 1, "/") > 250 ||
	    !(*path = strdup(slash)))
		return -1;
	*slash = '\0'; /* target is now the host part */
	*port = 0;
	char *colon = strrchr(target, ':'), *rb = strchr(target, ']');
	if (colon && (target[0] != '[' || (rb && colon > rb))) {
		char *e;
		unsigned long v = strtoul(colon + 1, &e, 10);
		if (colon[1] < '0' || colon[1] > '9' || *e || v == 0 || v > 65535)
			goto bad;
		*port = (unsigned)v;
		*colon = '\0';
	}
	if (!plain_host(target))
		goto bad;
	*host = target;
	return 1;
bad:
	free(*path);
	return -1;
}

static int cmp_hosts(const void *a, const void *b)
{
	return strcmp(((const struct host *)a)->name, ((const struct host *)b)->name);
}

static void print_methods(FILE *out, char *const *methods, size_t n)
{
	static const char *const order[] = {"GET", "HEAD",  "OPTIONS", "POST",
	                                    "PUT", "PATCH", "DELETE",  NULL};
	fputs("[ ", out);
	bool first = true;
	for (const char *const *o = order; *o; o++)
		for (size_t i = 0; i < n; i++)
			if (strcmp(methods[i], *o) == 0) {
				fprintf(out, "%s\"%s\"", first ? "" : ", ", methods[i]);
				first = false;
			}
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (const char *const *o = order; *o; o++)
			known |= strcmp(methods[i], *o) == 0;
		if (!known) {
			fprintf(out, "%s\"%s\"", first ? "" : ", ", methods[i]);
			first = false;
		}
	}
	fputs(" ]", out);
}

static void print_ports(FILE *out, const struct host *h)
{
	if (h->n_ports == 0)
		return;
	/* Naming a port replaces the default 80 and 443: keep them. */
	fputs("; ports = [ 80, 443", out);
	for (size_t i = 0; i < h->n_ports; i++)
		fprintf(out, ", %u", h->ports[i]);
	fputs(" ]", out);
}

/* A config string: the rules library normalised what it holds (domains,
 * paths checked at load); quotes and backslashes escaped all the same. */
static void print_str(FILE *out, const char *v)
{
	fputc('"', out);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', out);
		fputc((unsigned char)*v < 0x20 ? '?' : *v, out);
	}
	fputc('"', out);
}

void allowlist_print_rule(FILE *out, const struct netrule *r)
{
	fputs("{ domain = ", out);
	print_str(out, r->domain);
	fputs(";", out);
	if (r->path) {
		fputs(" path = ", out);
		print_str(out, r->path);
		fputs(";", out);
	}
	if (r->methods) {
		fputs(" methods = [ ", out);
		for (char **m = r->methods; *m; m++) {
			fputs(m == r->methods ? "" : ", ", out);
			print_str(out, *m);
		}
		fputs(" ];", out);
	}
	if (r->n_ports) {
		fputs(" ports = [ ", out);
		for (size_t i = 0; i < r->n_ports; i++)
			fprintf(out, "%s%u", i ? ", " : "", (unsigned)r->ports[i]);
		fputs(" ];", out);
	}
	if (r->allow_private)
		fputs(" allow_private = true;", out);
	fputs(" }", out);
}

static bool is_catch_all(const struct netrule *r)
{
	return strcmp(r->domain, "*") == 0;
}

/* Was this request decided by an entry of the session's own, other than
 * the catch-all? Then that entry, kept as it is, already allows it. */
static bool decided_by_session(const struct netrules *session, const char *host, const char *method,
                               const char *path)
{
	if (!session || !session->filtering)
		return false;
	struct netrules_decision d;
	netrules_match(session, host, method, path, &d);
	return d.verdict == NETRULES_ALLOW && d.rule && !is_catch_all(d.rule);
}

static bool session_has(const struct netrules *session, const char *domain, const char *path)
{
	for (size_t i = 0; session && i < session->n_rules; i++) {
		const struct netrule *r = &session->rules[i];
		if (strcmp(r->domain, domain) == 0 &&
		    (r->path ? path && strcmp(r->path, path) == 0 : !path))
			return true;
	}
	return false;
}

static void entry_start(FILE *out, bool *first)
{
	fputs(*first ? "\n  " : ",\n  ", out);
	*first = false;
}

/* One host's entries: its reads (and the writes when they are not narrowed
 * to paths) on the domain; writes and WebSocket upgrades on at most
 * MAX_WRITE_PREFIXES first segments as path rules carrying every method used
 * under them (a path rule replaces the domain's policy there), all methods
 * where an upgrade was seen. A write or upgrade at the root goes to the
 * domain: a path rule "/" would cover every path. */
static void print_host(FILE *out, const struct host *h, const struct netrules *session, bool *first)
{
	char *reads[MAX_METHODS], *writes[MAX_METHODS];
	size_t n_reads = 0, n_writes = 0, write_prefixes = 0;
	bool ws_domain = false, root_write = false;
	for (size_t u = 0; u < h->n_uses; u++) {
		const struct use *use = &h->uses[u];
		bool wrote = use->websocket;
		for (size_t m = 0; m < use->n_methods; m++) {
			const char *meth = use->methods[m];
			if (is_read(meth))
				add_method(reads, &n_reads, meth);
			else {
				add_method(writes, &n_writes, meth);
				wrote = true;
			}
		}
		write_prefixes += wrote;
		root_write |= wrote && strcmp(use->prefix, "/") == 0;
		ws_domain |= use->websocket;
	}
	bool path_rules = write_prefixes > 0 && write_prefixes <= MAX_WRITE_PREFIXES && !root_write;
	if (path_rules)
		ws_domain = false;
	char *dom[2 * MAX_METHODS];
	size_t n_dom = 0;
	for (size_t m = 0; m < n_reads; m++)
		dom[n_dom++] = reads[m];
	for (size_t m = 0; !path_rules && m < n_writes; m++)
		dom[n_dom++] = writes[m];
	/* A host used only for path-narrowed writes gets no domain rule: its
	 * other paths stay denied. */
	if ((n_dom > 0 || ws_domain) && !session_has(session, h->name, NULL)) {
		entry_start(out, first);
		if (ws_domain)
			fputs("# a WebSocket upgrade was allowed: every method\n  ", out);
		fprintf(out, "{ domain = \"%s\"", h->name);
		if (!ws_domain) {
			fputs("; methods = ", out);
			print_methods(out, dom, n_dom);
		}
		print_ports(out, h);
		fputs("; }", out);
	}
	for (size_t u = 0; path_rules && u < h->n_uses; u++) {
		const struct use *use = &h->uses[u];
		bool wrote = use->websocket;
		for (size_t m = 0; m < use->n_methods; m++)
			wrote |= !is_read(use->methods[m]);
		if (!wrote || session_has(session, h->name, use->prefix))
			continue;
		entry_start(out, first);
		if (use->websocket)
			fputs("# a WebSocket upgrade was allowed: every method\n  ", out);
		fprintf(out, "{ domain = \"%s\"; path = \"%s\"", h->name, use->prefix);
		if (!use->websocket) {
			fputs("; methods = ", out);
			print_methods(out, use->methods, use->n_methods);
		}
		print_ports(out, h);
		fputs("; }", out);
	}
	for (size_t m = 0; m < n_reads; m++)
		free(reads[m]);
	for (size_t m = 0; m < n_writes; m++)
		free(writes[m]);
}

int allowlist_derive(FILE *in, FILE *out, const char *source_name)
{
	return allowlist_derive_merged(in, out, source_name, NULL);
}

int allowlist_derive_merged(FILE *in, FILE *out, const char *source_name,
                            const struct netrules *session)
{
	struct host *hosts = NULL;
	size_t n_hosts = 0, n_requests = 0, n_kept = 0, n_blocked = 0, n_skipped = 0;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, in) > 0) {
		char *method, *host, *path;
		unsigned port;
		bool ws;
		int rc = parse_line(line, &method, &host, &port, &path, &ws);
		n_skipped += rc < 0;
		n_blocked += rc == 2;
		if (rc != 1)
			continue;
		n_requests++;
		if (decided_by_session(session, host, ws ? "*" : method, path)) {
			n_kept++;
			free(path);
			continue;
		}
		struct host *h = find_host(&hosts, &n_hosts, host);
		if (h) {
			record(h, method, path, ws);
			bool seen = port == 0 || port == 80 || port == 443;
			for (size_t k = 0; k < h->n_ports; k++)
				seen |= h->ports[k] == port;
			if (!seen && h->n_ports < ARRAY_SIZE(h->ports))
				h->ports[h->n_ports++] = port;
		}
		free(path);
	}
	free(line);
	if (n_hosts > 1)
		qsort(hosts, n_hosts, sizeof(*hosts), cmp_hosts);

	/* The source is a file name: nothing in it may end the comment. */
	char src[512];
	size_t k = 0;
	for (const char *c = source_name; *c && k + 1 < sizeof(src); c++)
		src[k++] = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
	src[k] = '\0';
	fprintf(out, "# From %s: %zu allowed request%s, %zu new host%s.\n", src, n_requests,
	        n_requests == 1 ? "" : "s", n_hosts, n_hosts == 1 ? "" : "s");
	if (n_kept)
		fprintf(
		    out,
		    "# %zu of them were allowed by the session's own entries, kept below as they "
		    "were.\n",
		    n_kept);
	if (n_blocked)
		fprintf(out,
		        "# %zu blocked request%s not turned into rules (a denial never widens the "
		        "list): if the agent needs one, add it yourself (see proxy.log).\n",
		        n_blocked, n_blocked == 1 ? " is" : "s are");
	if (n_skipped)
		fprintf(out,
		        "# %zu request line%s skipped: a method, host or path with characters "
		        "that cannot go into a config as they are.\n",
		        n_skipped, n_skipped == 1 ? "" : "s");
	fputs("# Paste into the network group of your config.\nallowed_domains = (", out);
	bool first = true;
	const struct netrule *catch_all = NULL;
	for (size_t i = 0; session && i < session->n_rules; i++) {
		if (is_catch_all(&session->rules[i])) {
			catch_all = &session->rules[i];
			continue;
		}
		entry_start(out, &first);
		allowlist_print_rule(out, &session->rules[i]);
	}
	for (size_t i = 0; i < n_hosts; i++)
		print_host(out, &hosts[i], session, &first);
	fputs("\n);\n", out);
	if (catch_all) {
		fputs("# The session's catch-all, left out: the entries above replace it for what "
		      "the agent used.\n# Add it back only if every other host should stay "
		      "reachable:\n#   ",
		      out);
		allowlist_print_rule(out, catch_all);
		fputc('\n', out);
	}
	int count = (int)n_hosts;
	for (size_t i = 0; i < n_hosts; i++) {
		for (size_t u = 0; u < hosts[i].n_uses; u++) {
			for (size_t m = 0; m < hosts[i].uses[u].n_methods; m++)
				free(hosts[i].uses[u].methods[m]);
			free(hosts[i].uses[u].prefix);
		}
		free(hosts[i].uses);
		free(hosts[i].name);
	}
	free(hosts);
	return count;
}
