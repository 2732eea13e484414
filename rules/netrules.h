/* Domain rules of the `network` config group: parsing and matching.
 *
 * Shared by the launcher (to validate the config) and the proxy (to enforce it),
 * so both agree by construction. Depends on libconfig only; never prints.
 */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETRULES_MAX_PORTS 16

struct netrule {
	char *domain;   /* normalised: lowercase, no trailing dot; "*" = every domain */
	char *path;     /* NULL: the domain's own policy; else starts with '/' */
	char **methods; /* NULL-terminated; NULL = all methods */
	uint16_t ports[NETRULES_MAX_PORTS]; /* empty (n_ports == 0) = 80 and 443 */
	size_t n_ports;
	bool allow_private; /* may dial loopback/private/link-local addresses */
	bool ascii;         /* false: can never match (warned at load) */
	bool is_ip;         /* the entry names an IP literal (canonical text in domain) */
	char *file;         /* where it was written, for messages (owned) */
	int line;
};

/* network.proxy_limits: what one session may make the host hold (the proxy's
 * defaults, README and `agentsandbox-proxy --help`, apply to what is not set):
 *   proxy_limits = { max_connections = 256; client_buffer = "128K";
 *                    server_buffer = "256K"; log_max = "16M"; log_rate = 100;
 *                    ca_validity_hours = 168; };
 * Sizes are integers or strings with K, M or G. 0 = not set. */
struct netrules_limits {
	long long max_connections, client_buffer, server_buffer, log_max, log_rate,
	    ca_validity_hours;
	bool log_max_set; /* log_max = 0 means no cap, which is not "not set" */
};

struct netrules {
	bool filtering; /* allowed_domains present: traffic goes through the proxy */
	struct netrule *rules;
	size_t n_rules;
	char *hosts_file;       /* absolute, or NULL */
	char *upstream_ca_file; /* absolute, or NULL */
	struct netrules_limits limits;
	char **warnings; /* NULL-terminated; "file:line: text" */
};

enum netrules_verdict {
	NETRULES_ALLOW = 0,
	NETRULES_DENY_DOMAIN,
	NETRULES_DENY_PATH,
	NETRULES_DENY_METHOD,
	NETRULES_DENY_PORT,
	NETRULES_DENY_PRIVATE,
	NETRULES_DENY_HOST,      /* resolves to the host's own address: like loopback */
	NETRULES_DENY_AMBIGUOUS, /* a path servers read differently (netrules_path_readings) */
	NETRULES_DENY_WEBSOCKET, /* an upgrade where the entry does not allow every method */
};

struct netrules_decision {
	enum netrules_verdict verdict;
	const struct netrule *rule; /* the one entry that decided; NULL when none matched */
	bool allow_private;         /* netrules_decide: every deciding entry allows private */
};

/* Parse the `network` group of an already-read config (NULL = group absent: open
 * network). On error returns -EINVAL and writes "file:line: what" into err. */
int netrules_from_setting(const config_setting_t *network, struct netrules **out, char *err,
                          size_t errlen);

/* Read a whole agentsandbox config file and parse its `network` group; other
 * top-level groups are ignored. */
int netrules_load_file(const char *path, struct netrules **out, char *err, size_t errlen);

void netrules_free(struct netrules *rules);

/* Decide one request. host must be normalised (hostcheck's host_normalize), path the
 * normalised path without query (netrules_path_normalize); method is case-sensitive. */
void netrules_match(const struct netrules *rules, const char *host, const char *method,
                    const char *path, struct netrules_decision *out);

/* Could any entry allow some request to host? (Checked at CONNECT time, before TLS.) */
const struct netrule *netrules_domain_candidate(const struct netrules *rules, const char *host);

/* Port check for the deciding entry: its own list, else 80 and 443. */
bool netrules_port_allowed(const struct netrule *rule, uint16_t port);

/* Any candidate entry for host allows port (CONNECT-time check). */
bool netrules_host_port_allowed(const struct netrules *rules, const char *host, uint16_t port);

bool netrules_all_methods(const struct netrule *rule);

/* Canonical path for matching and logs: query dropped, repeated slashes merged,
 * %XX of unreserved characters and of '/' decoded. Dot segments (also percent-encoded) are
 * refused with -EINVAL, since servers resolve them after we matched, and so is what
 * netrules_path_readings calls ambiguous in its reading 0. -ENAMETOOLONG if it does
 * not fit. */
int netrules_path_normalize(const char *raw, size_t len, char *out, size_t outlen);

/* Origin servers disagree on what a path means; a request is decided under every
 * reading a common server could give its path, and allowed only if every one is:
 *   - %2F: a separator (nginx, Go) or a character of its segment (Node, Apache);
 *   - ';' and %3B: the start of parameters cut from the segment (Tomcat, Jetty) or
 *     characters of it (everyone else).
 * Reading 0 is netrules_path_normalize's, the one logged. Refused with -EILSEQ
 * (ambiguous) in any reading: dot segments, also as "..;x", "%2e", "..." or "..%20";
 * a backslash, raw or %5C (Node, IIS: a separator); %25 before two hex digits
 * (decoded twice by some stacks); encoded control characters; %C0 and %C1 (overlong
 * UTF-8); fullwidth '.', '/' and '\' (%EF%BC%8E, %EF%BC%8F, %EF%BC%BC). Runs of '/'
 * are merged in every reading (and the proxy forwards them merged). -EINVAL:
 * malformed; -ENAMETOOLONG. */
#define NETRULES_PATH_MAX      8192
#define NETRULES_PATH_READINGS 4
struct netrules_paths {
	size_t n;
	const char *p[NETRULES_PATH_READINGS];
	char buf[NETRULES_PATH_READINGS][NETRULES_PATH_MAX];
};
int netrules_path_readings(const char *raw, size_t len, struct netrules_paths *out);

/* Decide a request under every reading of its path: the first reading not allowed
 * decides; else allowed, with the entry of reading 0, allow_private only when every
 * deciding entry has it. Also checks the port against each entry, and that a
 * WebSocket upgrade meets entries allowing every method. */
void netrules_decide(const struct netrules *rules, const char *host, const char *method,
                     const struct netrules_paths *paths, uint16_t port, bool websocket,
                     struct netrules_decision *out);

const char *netrules_reason(enum netrules_verdict v);

/* "a string", "an integer", ...: a libconfig type in error messages (the
 * launcher's config errors use it too). */
const char *netrules_type_name(int config_type);
