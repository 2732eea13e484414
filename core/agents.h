/* SPDX-License-Identifier: MIT */
/* One command for many agents: `agentsandbox claude` (or a link named
 * claude pointing at agentsandbox) runs with claude.cfg from
 * ${XDG_CONFIG_HOME:-~/.config}/agentsandbox/, else the installed examples;
 * `agentsandbox init claude` writes a starter claude.cfg there. */
#ifndef ASB_CORE_AGENTS_H
#define ASB_CORE_AGENTS_H

#include "expand.h"
#include "util.h"

#include <stdbool.h>

/* a-z, 0-9, '_', '-', '.', not starting with '-' or '.', at most 64. */
bool agents_valid_name(const char *name);

/* The agent a link to the launcher stands for: its name when it is not
 * "agentsandbox" and is a valid agent name, else NULL. */
const char *agents_from_argv0(const char *argv0);

/* ${XDG_CONFIG_HOME:-$HOME/.config}/agentsandbox (new string), or NULL. */
char *agents_config_dir(expand_lookup_fn lookup, void *ud);

/* The examples: next to a launcher in a build tree, else installed (new
 * string). */
char *agents_examples_dir(void);

/* NAME.cfg: the user's, else the examples' (next to a launcher in a build
 * tree, else installed). *path is a new string; -ENOENT when neither. */
int agents_find(const char *name, expand_lookup_fn lookup, void *ud, char **path);

/* -c NAME and $AGENTSANDBOX_CONFIG: NAME itself when it has a '/' or a
 * file (not a directory) of that name is here; else NAME.cfg (NAME when it
 * ends in .cfg) the user's, else the examples'; else NAME as given, so the
 * error names it. A new string, NULL without memory. */
char *agents_config_by_name(const char *name, expand_lookup_fn lookup, void *ud);

/* Every agent with a config in either place (sorted, unique), for
 * completions. */
int agents_list(expand_lookup_fn lookup, void *ud, struct strv *out);

/* Write the user's NAME.cfg (the example's text when there is one, else a
 * starter for the command NAME); -EEXIST unless `force`. *written: where. */
int agents_init(const char *name, bool force, expand_lookup_fn lookup, void *ud, char **written);

#endif
