/* The proxy's credentials: the real values the launcher handed over (--secrets-fd,
 * rules/netcreds.h), which requests may carry them, how they are put in, and the
 * exfiltration guard over everything a client sends.
 *
 * A request is judged on what the client sent, before anything is injected:
 *   - a real value (or a guard file's secret), plain or encoded, anywhere in the
 *     request line, a header or the body: refused, whatever the host;
 *   - a placeholder towards a host its binding does not cover, or over plain HTTP:
 *     refused ("credential for api.anthropic.com");
 *   - otherwise, towards a covered host over HTTPS, each binding's placeholder is
 *     replaced by the real value where the binding says it travels (a header,
 *     Basic credentials, a query parameter), or added when `add` says so. */
#pragma once

#include "guard.h"
#include "http_parse.h"
#include "netrules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CREDS_OLD_MAX 8 /* earlier values of a refreshed token, still guarded */

struct pcred {
	const struct netcred *def;
	bool active;
	char *real, *ph;            /* oauth: the access token */
	char *refresh, *refresh_ph; /* oauth */
	char *host_file;            /* oauth: kept up to date after a refresh */
	char *old[CREDS_OLD_MAX];   /* values replaced by a refresh */
	size_t n_old;
};

struct creds {
	struct pcred v[NETCRED_MAX];
	size_t n;
	char **guard; /* secrets from guard files */
	int *guard_file;
	size_t n_guard;
	struct guard *g; /* the current automaton; requests hold a reference */
	bool any;
};

/* Read the records from fd (until EOF, then close it) and check them against the
 * bindings the config names. -errno with a message in err; -ENODATA: nothing
 * at all came (the sender closed it unused). */
int creds_load(struct creds *cs, const struct netrules *rules, int fd, char *err, size_t errlen);
void creds_free(struct creds *cs);

/* What a request carries and may get. */
struct creds_verdict {
	const char *refuse; /* NULL: go on; else the reason for the log and the 403 */
	char reason[160];
	bool in_target;   /* a hit in the request line: its path is withheld in logs */
	uint64_t covered; /* bindings whose domains and paths cover the request */
	bool tls;
	uint64_t inject; /* bindings to put in (covered, HTTPS, placeholder or add) */
	int oauth;       /* an oauth binding's token exchange (POST to its endpoint), or -1 */
};

/* Scan the head (line_len: its request line) and decide. */
void creds_check_head(const struct creds *cs, const char *head, size_t head_len, size_t line_len,
                      const char *host, const char *const *paths, size_t n_paths, bool tls,
                      const char *method, struct creds_verdict *v);
/* Placeholders a body of that request may carry (to bindings that cover it). */
static inline uint64_t creds_body_ok(const struct creds_verdict *v)
{
	return v->tls ? v->covered : 0;
}
/* The reason a scan's hits refuse the request, into buf; NULL when they do not. */
const char *creds_judge(const struct creds *cs, const struct guard_scan *s, uint64_t covered,
                        bool tls, char *buf, size_t len);

/* A header of the request as it goes upstream: 1 and *out (malloc'd, the caller
 * wipes and frees it) when a binding rewrote its value, 0 when it goes as sent. */
int creds_rewrite_header(const struct creds *cs, uint64_t inject, struct http_str name,
                         struct http_str value, char **out, size_t *out_len, uint64_t *which);
/* The query (after '?', as sent): rewritten like a header's value. */
int creds_rewrite_query(const struct creds *cs, uint64_t inject, struct http_str query, char **out,
                        size_t *out_len, uint64_t *which);
/* Headers and query parameters to add (bindings with `add` whose header or
 * parameter the request lacks). present: bit i set when binding i's header was
 * there. Lines "Name: value\r\n" into *out (malloc'd, NULL when none), or the
 * query addition ("&key=value"). which: the bindings that changed something. */
int creds_added_headers(const struct creds *cs, uint64_t inject, uint64_t present, char **out,
                        size_t *out_len, uint64_t *which);
int creds_added_query(const struct creds *cs, uint64_t inject, struct http_str query, char **out,
                      size_t *out_len, uint64_t *which);
/* Bindings whose header this is (for `present`). */
uint64_t creds_header_owner(const struct creds *cs, uint64_t inject, struct http_str name);

/* The oauth token exchange: the request body with the refresh placeholder
 * replaced (*out malloc'd; 1 when it was there: a refresh of the host's login,
 * 0 for another grant), and the response body with the tokens it brings replaced
 * by placeholders, the real ones kept. Only a refresh is written back to the
 * host's file: a login made inside (the agent's own code exchange) must not
 * replace the host's. -errno: the exchange fails (502). */
int creds_oauth_request(struct creds *cs, int i, const char *body, size_t n, char **out,
                        size_t *out_len);
int creds_oauth_response(struct creds *cs, int i, bool refresh, const char *body, size_t n,
                         char **out, size_t *out_len);

const char *creds_name(const struct creds *cs, int i);
