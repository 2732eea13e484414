/* The records the launcher hands the proxy (--secrets-fd), for tests of the proxy
 * on its own:
 *
 *   mksecrets CONFIG NAME=VALUE=PLACEHOLDER ... [G=SECRET ...] [R:NAME=VALUE=PLACEHOLDER]
 *            [F:NAME=PATH]
 *
 * NAME is a binding of CONFIG's network.credentials; G= adds a guarded secret as a
 * guard file's; R: an oauth binding's refresh token; F: its host file. Writes the
 * records to stdout. */
#include "netrules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int index_of(const struct netrules *r, const char *name, size_t n)
{
	for (size_t i = 0; i < r->creds.n; i++)
		if (strlen(r->creds.v[i].name) == n && strncmp(r->creds.v[i].name, name, n) == 0)
			return (int)i;
	fprintf(stderr, "mksecrets: no binding %.*s\n", (int)n, name);
	exit(2);
}

int main(int argc, char **argv)
{
	char err[512];
	struct netrules *r;
	if (argc < 2 || netrules_load_file(argv[1], &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "mksecrets: %s\n", argc < 2 ? "usage: mksecrets CONFIG ..." : err);
		return 2;
	}
	struct netsecrets_buf b;
	netsecrets_begin(&b);
	for (int a = 2; a < argc; a++) {
		char *arg = argv[a];
		if (strncmp(arg, "G=", 2) == 0) {
			netsecrets_add(&b, 'G', 0, arg + 2, strlen(arg + 2));
			continue;
		}
		char kind = 0;
		if ((arg[0] == 'R' || arg[0] == 'F') && arg[1] == ':') {
			kind = arg[0];
			arg += 2;
		}
		char *eq = strchr(arg, '=');
		if (!eq)
			return 2;
		int i = index_of(r, arg, (size_t)(eq - arg));
		if (kind == 'F') {
			netsecrets_add(&b, 'F', i, eq + 1, strlen(eq + 1));
			continue;
		}
		char *eq2 = strchr(eq + 1, '=');
		if (!eq2)
			return 2;
		if (kind == 'R') {
			netsecrets_add(&b, 'R', i, eq + 1, (size_t)(eq2 - eq - 1));
			netsecrets_add(&b, 'Q', i, eq2 + 1, strlen(eq2 + 1));
			continue;
		}
		char fp[2048];
		int n = netcred_fingerprint(&r->creds.v[i], fp, sizeof(fp));
		netsecrets_add(&b, 'B', i, fp, (size_t)n);
		netsecrets_add(&b, 'V', i, eq + 1, (size_t)(eq2 - eq - 1));
		netsecrets_add(&b, 'P', i, eq2 + 1, strlen(eq2 + 1));
	}
	netsecrets_end(&b);
	fwrite(b.p, 1, b.len, stdout);
	netsecrets_buf_wipe(&b);
	netrules_free(r);
	return 0;
}
