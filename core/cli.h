/* SPDX-License-Identifier: MIT */
/* Command line and AGENTSANDBOX_* environment: flag > env > file > default. */
#ifndef ASB_CORE_CLI_H
#define ASB_CORE_CLI_H

#include "expand.h"
#include "loader.h"
#include "policy.h"

enum cli_mode {
	MODE_RUN,
	MODE_SHOW_CONFIG,
	MODE_CHECK,
	MODE_HELP,
	MODE_VERSION,
	MODE_SESSIONS,
	MODE_PLUGINS,
	MODE_ALLOWLIST,
	MODE_COMPLETION, /* --completion SHELL */
	MODE_INIT,       /* init AGENT [--force] */
};

#define CLI_MAX_BOOLS 32 /* indexed like core_options (core/options.c) */

struct cli {
	int mode;
	bool shell;
	char *config_path; /* NULL: from env or the default location */
	int config_source;
	char *workspace;
	char *backend;
	struct strv env_kv; /* --env K=V */
	struct strv mounts; /* --mount [ro:]SRC[:DEST] */
	struct strv plugin_dirs;
	int bools[CLI_MAX_BOOLS]; /* -1 = not given */
	struct strv accept_weaker;
	struct strv reveal; /* --reveal KEY: --show-config prints its value */
	/* Plugin options, in the order given: "plugin\tkey\tvalue\tflag". */
	struct strv plugin_opts;
	/* Subcommands: sessions [--json | --paths | --last], allowlist
	 * [--session NAME]. */
	int list_format; /* SESSIONS_* (subcommands.h) */
	char *session;
	bool accept_config_change;
	struct strv terminal_allow; /* --terminal-allow, as given */
	bool have_agent_args;
	struct strv agent_args;
	/* `agentsandbox AGENT`, a link named AGENT, `init AGENT` (core/agents.c) */
	char *agent;
	bool agent_link;
	bool force;
	char *completion; /* --completion SHELL */
};

/* The --plugin-dir values, before anything else is parsed (discovery needs
 * them to know the plugins' own options). */
int cli_plugin_dirs(int argc, char **argv, struct strv *out);

/* Parse the command line; `plugins` declares the options plugins add. */
int cli_parse(int argc, char **argv, const struct catalog *plugins, struct cli *out);
void cli_free(struct cli *c);

/* Find the config file: -c, $AGENTSANDBOX_CONFIG, then the XDG default.
 * Sets *path (new string) and *source; -ENOENT when none exists. */
int cli_config_path(const struct cli *c, expand_lookup_fn lookup, void *ud, char **path,
                    int *source);

/* Apply environment then flags on top of the loaded file. */
int cli_apply(const struct cli *c, const struct catalog *plugins, struct policy *p,
              expand_lookup_fn lookup, void *ud);

/* Parse 1/true/yes/on and 0/false/no/off; -EINVAL otherwise. */
int parse_bool(const char *s);

/* --help: the core options, then each plugin's. */
void cli_usage(void *file, const struct catalog *plugins);

#endif
