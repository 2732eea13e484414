/* libFuzzer harness for the rules: a libconfig text, then (after a NUL) host,
 * method and path separated by newlines. Checks that normalisation is
 * idempotent (a normalised name or path normalises to itself), that reading 0 of
 * a path is its normalised form and every reading is a normalised path itself,
 * and that a decision always names its entry when it allows, and allows only
 * what every reading allows. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostcheck.h"
#include "netrules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	const char *cfgtext = buf;
	size_t cl = strlen(buf);
	const char *rest = cl < size ? buf + cl + 1 : "";
	char host_raw[512] = "", method[64] = "GET", path_raw[1024] = "/";
	const char *nl1 = strchr(rest, '\n');
	if (nl1) {
		size_t hl = (size_t)(nl1 - rest) < sizeof(host_raw) - 1 ? (size_t)(nl1 - rest)
		                                                        : sizeof(host_raw) - 1;
		memcpy(host_raw, rest, hl);
		const char *nl2 = strchr(nl1 + 1, '\n');
		if (nl2) {
			size_t ml = (size_t)(nl2 - nl1 - 1) < sizeof(method) - 1
			                ? (size_t)(nl2 - nl1 - 1)
			                : sizeof(method) - 1;
			memcpy(method, nl1 + 1, ml);
			method[ml] = '\0';
			strncpy(path_raw, nl2 + 1, sizeof(path_raw) - 1);
		}
	} else {
		strncpy(host_raw, rest, sizeof(host_raw) - 1);
	}

	char host[HOST_MAX], host2[HOST_MAX], path[1024], path2[1024];
	bool ip, ip2;
	bool host_ok = host_normalize(host_raw, strlen(host_raw), host, sizeof(host), &ip) == 0;
	if (host_ok && (host_normalize(host, strlen(host), host2, sizeof(host2), &ip2) != 0 ||
	                strcmp(host, host2) != 0 || ip != ip2))
		abort();
	int pl = netrules_path_normalize(path_raw, strlen(path_raw), path, sizeof(path));
	if (pl > 0 && (netrules_path_normalize(path, (size_t)pl, path2, sizeof(path2)) != pl ||
	               strcmp(path, path2) != 0))
		abort();
	static struct netrules_paths paths;
	int rrc = netrules_path_readings(path_raw, strlen(path_raw), &paths);
	if (rrc == 0 && (paths.n == 0 || pl < 0 || strcmp(paths.p[0], path) != 0))
		abort();
	for (size_t i = 0; rrc == 0 && i < paths.n; i++)
		if (paths.p[i][0] != '/' || strstr(paths.p[i], "//"))
			abort();

	config_t cfg;
	config_init(&cfg);
	if (config_read_string(&cfg, cfgtext)) {
		struct netrules *r = NULL;
		char err[256];
		if (netrules_from_setting(config_lookup(&cfg, "network"), &r, err, sizeof(err)) ==
		    0) {
			if (host_ok && pl > 0) {
				struct netrules_decision d;
				netrules_match(r, host, method, path, &d);
				if (d.verdict == NETRULES_ALLOW && !d.rule)
					abort();
				if (rrc == 0) {
					struct netrules_decision all, one;
					netrules_decide(r, host, method, &paths, 443, false, &all);
					for (size_t i = 0;
					     all.verdict == NETRULES_ALLOW && i < paths.n; i++) {
						netrules_match(r, host, method, paths.p[i], &one);
						if (one.verdict != NETRULES_ALLOW ||
						    (all.allow_private && !one.rule->allow_private))
							abort();
					}
				}
				netrules_domain_candidate(r, host);
			}
			netrules_free(r);
		}
	}
	config_destroy(&cfg);
	free(buf);
	return 0;
}
