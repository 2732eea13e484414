/* Credentials of the `network` group: secrets the proxy injects, never the agent.
 *
 *   credentials = (
 *     { name = "anthropic"; value = "${ANTHROPIC_API_KEY}";
 *       domains = [ "api.anthropic.com" ]; header = "x-api-key";
 *       env = "ANTHROPIC_API_KEY"; },
 *     { name = "github"; value_file = "~/.config/agentsandbox/github-token";
 *       domains = [ "github.com" ]; basic = "x-access-token"; add = true; },
 *     { name = "claude"; oauth = "claude"; file = "~/.claude/.credentials.json";
 *       domains = [ "anthropic.com", "claude.ai", "claude.com" ]; }
 *   );
 *   guard_files = [ ".env?" ];
 *
 * Parsed here (shared by the launcher and the proxy, like the domain rules); the
 * values themselves are never in the config's parse: `value`, `value_file`, `file`
 * and `guard_files` are kept as written and expanded by the launcher, which reads
 * the secrets and hands them to the proxy over a pipe (the records below), so no
 * secret is on an argv, in the sandbox's environment or in a file the session
 * keeps. Depends on libconfig only; never prints. */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETCRED_MAX        64 /* bindings per config */
#define NETCRED_VALUE_MAX  8192
#define NETCRED_MIN_GUARD  8 /* shorter secrets are not guarded (too many false hits) */
#define NETCRED_MIN_RANDOM 16

enum netcred_send {
	NETCRED_HEADER = 1, /* header = "x-api-key": the header's value */
	NETCRED_BEARER,     /* bearer = true: Authorization: Bearer <value> */
	NETCRED_BASIC,      /* basic = "user": Authorization: Basic base64(user:<value>) */
	NETCRED_QUERY,      /* query = "key": ?key=<value> */
};

enum netcred_oauth {
	NETCRED_OAUTH_NONE = 0,
	NETCRED_OAUTH_CLAUDE, /* Claude Code's .credentials.json (claudeAiOauth) */
};

struct netcred {
	char *name;       /* [A-Za-z0-9._-]+, unique; for logs and --show-config */
	char *value;      /* as written ("${ANTHROPIC_API_KEY}"), or NULL */
	char *value_file; /* as written, or NULL */
	char **domains;   /* normalised, NULL-terminated; each covers its subdomains */
	size_t n_domains;
	char **paths; /* normalised prefixes (as path rules), NULL-terminated; NULL: all */
	size_t n_paths;
	int send;     /* enum netcred_send */
	char *header; /* the header it travels in ("Authorization" for bearer, basic) */
	char *user;   /* basic: the user name added with `add` */
	char *query;  /* query: the parameter */
	char *env;    /* the placeholder's variable inside, or NULL */
	char *file;   /* as written: a file inside holding the placeholder, or NULL */
	char *prefix; /* the placeholder's prefix; NULL: the real value's own */
	bool add;     /* add it to requests to the domains that lack it */
	bool guard;   /* refuse requests that carry the real value (default true) */
	int oauth;    /* enum netcred_oauth */
	char *where;  /* "file:line" */
};

struct netcreds {
	struct netcred *v;
	size_t n;
	char **guard_files; /* as written, NULL-terminated; a trailing '?': may be missing */
	size_t n_guard_files;
};

void netcreds_free(struct netcreds *c);

/* Parse `credentials` (a list of groups) and `guard_files` into c. -EINVAL with
 * "file:line: what" in err. */
int netcreds_parse(struct netcreds *c, const config_setting_t *credentials,
                   const config_setting_t *guard_files, char *err, size_t errlen);

/* Does the binding let its secret go to host (normalised) at every reading of the
 * path (netrules_paths' p[0..n))? */
bool netcred_covers(const struct netcred *c, const char *host, const char *const *paths,
                    size_t n_paths);

/* What the binding is, as one line both sides compute (the proxy checks that the
 * launcher resolved the same binding: the config is read twice). */
int netcred_fingerprint(const struct netcred *c, char *out, size_t outlen);

/* "Authorization: Bearer", "x-api-key", "?key=", "Basic (x-access-token)". */
const char *netcred_send_name(const struct netcred *c, char *buf, size_t len);

/* The path of an oauth binding's token endpoint (on any host it covers): where a
 * client refreshes its tokens. NULL for other bindings. */
const char *netcred_oauth_token_path(int oauth);

/* The placeholder for a real value: `prefix` (NULL: the real value's own, see
 * netcred_default_prefix), then random characters up to the real value's length,
 * at least NETCRED_MIN_RANDOM of them: same-length placeholders can be swapped in
 * place. Hex-only values get hex, others letters and digits. rnd fills a buffer
 * with random bytes (0 or -errno). *out is a new string. */
typedef int (*netcred_random_fn)(void *buf, size_t len);
int netcred_placeholder(const char *real, size_t real_len, const char *prefix,
                        netcred_random_fn rnd, char **out);
/* The part of a real value that says what it is, never what it is: up to three
 * segments of lowercase letters and digits (at most 6 each, with a letter)
 * ending in '-' or '_': "sk-ant-api03-", "ghp_", "sk-proj-". Its length. */
size_t netcred_default_prefix(const char *real, size_t len);

/* ---- the private channel: launcher -> proxy ----
 *
 *   ASB-SECRETS 1\n
 *   <tag> <index> <length>\n<length bytes>\n      (any number)
 *   END\n
 *
 * Tags: B binding fingerprint; V its real value; P its placeholder; for oauth
 * bindings R the refresh token, Q its placeholder, F the host file to keep up to
 * date (written back after a refresh); G a guarded secret of no binding (from
 * guard_files; index: the file's). */
#define NETSECRETS_MAGIC   "ASB-SECRETS 1\n"
#define NETSECRETS_MAX     (16u << 20)
#define NETSECRETS_REC_MAX (1u << 20)

struct netsecrets_buf {
	char *p;
	size_t len, cap;
};
int netsecrets_begin(struct netsecrets_buf *b);
int netsecrets_add(struct netsecrets_buf *b, char tag, int index, const char *data, size_t len);
int netsecrets_end(struct netsecrets_buf *b);
/* Zeroes what it held, then frees it. */
void netsecrets_buf_wipe(struct netsecrets_buf *b);

/* Calls fn for every record, in order; 0, or -EBADMSG (malformed, truncated: no
 * END), or what fn returned when < 0. Records point into buf. */
typedef int (*netsecrets_fn)(void *arg, char tag, int index, const char *data, size_t len);
int netsecrets_parse(const char *buf, size_t len, netsecrets_fn fn, void *arg);

/* A memset the compiler keeps. */
void netsecrets_wipe(void *p, size_t n);
