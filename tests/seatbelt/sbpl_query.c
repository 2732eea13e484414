/* SPDX-License-Identifier: MIT */
/* sbpl-query PROFILE QUESTION ARG...: ask the SBPL evaluator (sbpl_eval.c)
 * what a profile the real launcher generated allows, for the shell tests
 * (tests/seatbelt/real_core.sh). Prints "allow" or "deny" and exits 0 or 1;
 * 2 when the two readings of precedence disagree, 3 on errors.
 *   read|stat|write|create|exec PATH
 *   connect|bind ADDR PORT      (TCP)
 *   unix-connect|unix-bind PATH */
#include "sbpl_eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				buf = NULL;
			}
			buf = b;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: sbpl-query PROFILE QUESTION ARG...\n");
		return 3;
	}
	size_t len = 0;
	char *text = slurp(argv[1], &len);
	struct sbe_profile *p = NULL;
	char err[512] = "";
	if (!text || sbe_parse(text, len, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "sbpl-query: %s: %s\n", argv[1], text ? err : "cannot read");
		free(text);
		return 3;
	}
	const char *q = argv[2];
	int r = -3;
	if (strcmp(q, "read") == 0)
		r = sbe_may_read(p, argv[3]);
	else if (strcmp(q, "stat") == 0)
		r = sbe_may_stat(p, argv[3]);
	else if (strcmp(q, "write") == 0)
		r = sbe_may_write(p, argv[3]);
	else if (strcmp(q, "create") == 0)
		r = sbe_may_create(p, argv[3]);
	else if (strcmp(q, "exec") == 0)
		r = sbe_may_exec(p, argv[3]);
	else if (strcmp(q, "unix-connect") == 0)
		r = sbe_may_unix_connect(p, argv[3]);
	else if (strcmp(q, "unix-bind") == 0)
		r = sbe_may_unix_bind(p, argv[3]);
	else if ((strcmp(q, "connect") == 0 || strcmp(q, "bind") == 0) && argc >= 5)
		r = q[0] == 'c'
		        ? sbe_may_connect(p, argv[3], (unsigned)atoi(argv[4]), SBE_PROTO_TCP)
		        : sbe_may_bind(p, argv[3], (unsigned)atoi(argv[4]), SBE_PROTO_TCP);
	sbe_free(p);
	free(text);
	if (r == -3) {
		fprintf(stderr, "sbpl-query: unknown question %s\n", q);
		return 3;
	}
	if (r == -2) {
		puts("ambiguous");
		return 2;
	}
	puts(r > 0 ? "allow" : "deny");
	return r > 0 ? 0 : 1;
}
