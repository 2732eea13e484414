/* SPDX-License-Identifier: MIT */
#include "allowlist.h"

#include "util.h"

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
	if (*n < MAX_METHODS)
		set[(*n)++] = strdup(m);
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

static void record(struct host *h, const char *method, const char *path)
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
}

/* "2026-...Z allowed: GET host/path" or "... blocked: GET host/path (reason)" */
static bool parse_line(char *line, char **method, char **host, char **path)
{
	char *p = strstr(line, " allowed: ");
	size_t skip = strlen(" allowed: ");
	if (!p) {
		p = strstr(line, " blocked: ");
		skip = strlen(" blocked: ");
	}
	if (!p)
		return false;
	p += skip;
	char *sp = strchr(p, ' ');
	if (!sp)
		return false;
	*sp = '\0';
	*method = p;
	char *target = sp + 1;
	target[strcspn(target, " \n")] = '\0';
	char *slash = strchr(target, '/');
	if (!slash || slash == target)
		return false;
	*path = strdup(slash);
	*slash = '\0';
	*host = target;
	return *path != NULL;
}

static int cmp_hosts(const void *a, const void *b)
{
	return strcmp(((const struct host *)a)->name, ((const struct host *)b)->name);
}

static void print_methods(FILE *out, char **methods, size_t n)
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

int allowlist_derive(FILE *in, FILE *out, const char *source_name)
{
	struct host *hosts = NULL;
	size_t n_hosts = 0, n_requests = 0;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, in) > 0) {
		char *method, *host, *path;
		if (!parse_line(line, &method, &host, &path))
			continue;
		unsigned port = 0;
		char *colon = strrchr(host, ':');
		if (colon && !strchr(host, ']')) {
			port = (unsigned)strtoul(colon + 1, NULL, 10);
			*colon = '\0';
		}
		struct host *h = find_host(&hosts, &n_hosts, host);
		if (h) {
			record(h, method, path);
			bool seen = port == 0 || port == 80 || port == 443;
			for (size_t k = 0; k < h->n_ports; k++)
				seen |= h->ports[k] == port;
			if (!seen && h->n_ports < ARRAY_SIZE(h->ports))
				h->ports[h->n_ports++] = port;
		}
		free(path);
		n_requests++;
	}
	free(line);
	if (n_hosts > 1)
		qsort(hosts, n_hosts, sizeof(*hosts), cmp_hosts);

	fprintf(out, "# From %s: %zu logged request%s to %zu host%s.\n", source_name, n_requests,
	        n_requests == 1 ? "" : "s", n_hosts, n_hosts == 1 ? "" : "s");
	fputs("# Paste into the network group of your config.\nallowed_domains = (", out);
	bool first_entry = true;
	for (size_t i = 0; i < n_hosts; i++) {
		struct host *h = &hosts[i];
		char *reads[MAX_METHODS], *writes[MAX_METHODS];
		size_t n_reads = 0, n_writes = 0, write_prefixes = 0;
		for (size_t u = 0; u < h->n_uses; u++) {
			bool wrote = false;
			for (size_t m = 0; m < h->uses[u].n_methods; m++) {
				const char *meth = h->uses[u].methods[m];
				if (is_read(meth))
					add_method(reads, &n_reads, meth);
				else {
					add_method(writes, &n_writes, meth);
					wrote = true;
				}
			}
			write_prefixes += wrote;
		}
		bool path_rules = n_writes > 0 && write_prefixes <= MAX_WRITE_PREFIXES;
		/* The domain's own rule: its reads, plus the writes when they are not
		 * narrowed to paths. A host used only for path-narrowed writes gets
		 * no domain rule: its other paths stay denied. */
		char *dom[2 * MAX_METHODS];
		size_t n_dom = 0;
		for (size_t m = 0; m < n_reads; m++)
			dom[n_dom++] = reads[m];
		for (size_t m = 0; !path_rules && m < n_writes; m++)
			dom[n_dom++] = writes[m];
		if (n_dom > 0) {
			fprintf(out, "%s\n  { domain = \"%s\"; methods = ", first_entry ? "" : ",",
			        h->name);
			print_methods(out, dom, n_dom);
			print_ports(out, h);
			fputs("; }", out);
			first_entry = false;
		}
		for (size_t u = 0; path_rules && u < h->n_uses; u++) {
			struct use *use = &h->uses[u];
			bool wrote = false;
			for (size_t m = 0; m < use->n_methods; m++)
				wrote |= !is_read(use->methods[m]);
			if (!wrote)
				continue;
			/* A path rule replaces the domain's policy there: it carries
			 * every method used under the prefix. */
			fprintf(out, "%s\n  { domain = \"%s\"; path = \"%s\"; methods = ",
			        first_entry ? "" : ",", h->name, use->prefix);
			print_methods(out, use->methods, use->n_methods);
			print_ports(out, h);
			fputs("; }", out);
			first_entry = false;
		}
		for (size_t m = 0; m < n_reads; m++)
			free(reads[m]);
		for (size_t m = 0; m < n_writes; m++)
			free(writes[m]);
	}
	fputs("\n);\n", out);
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
