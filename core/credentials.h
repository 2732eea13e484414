/* SPDX-License-Identifier: MIT */
/* network.credentials, the launcher's part (rules/netcreds.h parses them): read
 * each secret from the launching environment or a file, make its placeholder,
 * put the placeholder where the agent reads it (a variable, a file, Claude Code's
 * .credentials.json), check that no real value reaches the plan, and hand the
 * real values to the proxy over a pipe (--secrets-fd): never an argv, the
 * sandbox's environment, the session directory or a log. */
#ifndef ASB_CORE_CREDENTIALS_H
#define ASB_CORE_CREDENTIALS_H

#include "netrules.h"
#include "plan.h"
#include "policy.h"

#include <stdbool.h>
#include <stdio.h>

struct cred_value {
	const struct netcred *def; /* borrowed from the rules */
	bool active;               /* false: its value expanded to nothing */
	char *source;              /* "$ANTHROPIC_API_KEY", "file /x/key": for logs */
	char *real, *placeholder;  /* oauth: the access token */
	char *refresh, *refresh_placeholder;
	char *file;       /* the `file` inside (expanded), or NULL */
	char *host_file;  /* oauth: the token file on the host (resolved) */
	char *value_path; /* value_file, resolved: masked inside wherever the plan shows it */
	char *ph_file;    /* oauth: the placeholder copy, bound writable at `file` */
	char *ph_content; /* plain `file`: "placeholder\n"; oauth: the placeholder JSON */
	size_t ph_len;
};

struct credentials {
	struct cred_value *v;
	size_t n;
	char **guard; /* secrets read from guard_files */
	int *guard_file;
	size_t n_guard;
	char **guard_files; /* expanded; NULL entries: optional and missing */
	size_t n_guard_files;
	bool dry_run;
};

/* Resolve every binding and guard file (dry_run: describe only; nothing is
 * written). Errors name the binding's file:line. */
int credentials_resolve(struct credentials *cr, const struct netcreds *defs, const struct policy *p,
                        bool dry_run);

/* After the plugins' env hooks (nothing may override a placeholder): the
 * placeholders into the plan; then refuse a plan that holds a real value (an env
 * entry, an argument, a generated file). state_root: where the oauth
 * placeholder file is made (NULL: a dry run). */
int credentials_plan(struct credentials *cr, struct plan *plan, const char *state_root,
                     uint64_t caps);

/* The records for the proxy (rules/netcreds.h), written whole to fd. */
int credentials_send(const struct credentials *cr, const struct netcreds *defs, int fd);

bool credentials_any(const struct credentials *cr);
/* launch.log: which bindings this session has, and where each placeholder is. */
void credentials_log(const struct credentials *cr);
/* At exit: what proxy.log says each binding was injected into. */
void credentials_log_use(const struct credentials *cr, const char *proxy_log);
/* --show-config: the bindings, values redacted. */
void credentials_show(FILE *out, const struct credentials *cr);
/* The binding whose placeholder the variable holds, or NULL. */
const char *credentials_env_binding(const struct credentials *cr, const char *key);

/* Wipe the secrets, remove the placeholder files; safe twice. */
void credentials_free(struct credentials *cr);

#endif
