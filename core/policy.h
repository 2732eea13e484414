/* SPDX-License-Identifier: MIT */
/* The policy: what the user allows, validated and fully expanded. Pure data,
 * each value tagged with where it came from (for --show-config). */
#ifndef ASB_CORE_POLICY_H
#define ASB_CORE_POLICY_H

#include "util.h"

#include <agentsandbox/plugin.h>

#include <libconfig.h>
#include <stdint.h>
#include <sys/types.h>

enum source { SRC_DEFAULT, SRC_FILE, SRC_ENV, SRC_FLAG };
const char *source_name(int source);

struct pstr {
	char *value;
	int source;
	int line; /* config line when source == SRC_FILE */
};

struct pbool {
	int value;
	int source;
	int line;
};

struct plist {
	struct strv items;
	int source;
	int line;
	int *item_lines; /* each item's config line (file lists), or NULL */
};

struct env_entry {
	char *key;
	char *raw;   /* as written in the config / on the command line */
	char *value; /* expanded; NULL = leave unset (expanded to empty) */
	int source;
	int line;
};

struct extra_mount {
	char *source;
	char *dest;
	bool read_only;
};

/* A plugin option (struct asb_option) set by a flag or an environment
 * variable: it beats the file. */
struct plugin_override {
	char *plugin;
	char *key;
	uint32_t type;      /* ASB_OPT_* */
	int value;          /* ASB_OPT_BOOL */
	struct strv values; /* ASB_OPT_STRING (one), ASB_OPT_LIST */
	int source;
	char *given; /* "--allow-nix", "AGENTSANDBOX_ALLOW_NIX": for messages */
};

/* sandbox.limits (core/rlimits.c); source SRC_DEFAULT: the built-in default. */
enum { LIMIT_NOFILE, LIMIT_NPROC, LIMIT_CPU, LIMIT_AS, LIMIT_COUNT };
#define LIMIT_UNLIMITED (-1)
struct plimit {
	int64_t value; /* LIMIT_UNLIMITED or the limit */
	int source;
	int line;
};

struct policy {
	/* Identity of the launch. */
	char *config_file; /* absolute, or NULL when none */
	int config_source; /* SRC_FLAG (-c), SRC_ENV, SRC_DEFAULT */
	char *home;
	char *user;
	uid_t uid;
	gid_t gid;
	char *launch_dir;

	/* sandbox group */
	struct pstr name;
	struct pstr command;
	struct plist args;
	struct pstr backend;
	struct pstr workspace;
	struct plist packages;
	struct plist rw_dirs, rw_files, ro_dirs, ro_files;
	struct env_entry *env;
	size_t n_env;
	struct pbool common_tools;
	struct pbool allow_home;
	struct pbool require_landlock;
	/* The agent's terminal (core/terminal.h): a filtered pty, and the
	 * sequence classes let through (core/termfilter.h). */
	struct pbool terminal_filter;
	struct plist terminal_allow;
	struct plimit limits[LIMIT_COUNT];
	/* Protections the user accepts the backend cannot give
	 * (sandbox.accept_weaker, --accept-weaker). */
	struct plist accept_weaker;
	/* env keys whose values are not secret: --show-config prints them
	 * (sandbox.public_env, --reveal KEY). Every other value is hidden. */
	struct plist public_env;

	/* network group (wiring comes with the networking work) */
	struct pbool network_enabled;
	struct pbool unix_sockets;
	config_setting_t *network; /* the raw group, or NULL */

	/* plugins group */
	config_setting_t *plugins; /* the raw group, or NULL */
	struct plugin_override *overrides;
	size_t n_overrides;

	/* command line only */
	struct extra_mount *mounts;
	size_t n_mounts;
	struct strv agent_args; /* after -- */
	/* --accept-config-change: run with a sandbox-shaping file an earlier
	 * session could have changed (core/selfconfig.h). A flag only: the
	 * config cannot vouch for itself. */
	bool accept_config_change;
	struct strv plugin_dirs;

	config_t cfg; /* kept alive: plugins read their groups from it */
	bool cfg_loaded;
};

void policy_init(struct policy *p);
void policy_free(struct policy *p);

/* A plugin option set by a flag or the environment, or NULL when the file
 * (or the default) decides. */
const struct plugin_override *policy_override(const struct policy *p, const char *plugin,
                                              const char *key);
/* Set (or replace) one; strings are copied. */
int policy_set_override(struct policy *p, const char *plugin, const char *key, uint32_t type,
                        int value, const struct strv *values, int source, const char *given);
/* Does the plugin have an override (it asked to be loaded by a flag)? */
bool policy_plugin_named(const struct policy *p, const char *plugin);

#endif
