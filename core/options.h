/* SPDX-License-Identifier: MIT */
/* The core's own options, one table: core/cli.c parses the booleans from
 * it and prints --help from it, core/complete.c makes the bash, zsh and
 * fish completions from it (with the plugins' declared options), and
 * tests/host/agents.sh checks doc/agentsandbox.1 against it. */
#ifndef ASB_CORE_OPTIONS_H
#define ASB_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* What an option's value is, for completions. */
enum opt_arg {
	OPT_ARG_NONE,
	OPT_ARG_CONFIG,   /* a .cfg file */
	OPT_ARG_DIR,      /* a directory */
	OPT_ARG_PATH,     /* any path */
	OPT_ARG_TEXT,     /* free text */
	OPT_ARG_WORDS,    /* one of `values` */
	OPT_ARG_BACKEND,  /* a backend plugin's name */
	OPT_ARG_AGENT,    /* an agent's (a config's) name */
	OPT_ARG_SESSION,  /* a session directory's name */
	OPT_ARG_TERMINAL, /* terminal sequence classes (core/termfilter.h) */
};

struct core_option {
	const char *name; /* without dashes: "config" */
	char short_name;  /* 'c', or 0 */
	int arg;          /* OPT_ARG_* */
	const char *metavar;
	const char *values; /* OPT_ARG_WORDS: space-separated */
	const char *help;   /* '\n' continues on the next line */
	/* Booleans: --name, --off, AGENTSANDBOX_<env>, a struct pbool in the
	 * policy at `offset`. */
	bool is_bool;
	const char *off;
	const char *env;
	size_t offset;
	const char *usage; /* the left column of --help, when not "--name META" */
};

extern const struct core_option core_options[];
extern const size_t n_core_options;

/* A subcommand's own option: "--json", or "--session" with a value. */
struct core_subopt {
	const char *name; /* without dashes */
	int arg;          /* OPT_ARG_NONE or what its value is */
	const char *help;
};

/* Subcommands (the first word), for --help and completions. */
struct core_subcommand {
	const char *name;
	const char *args; /* the left column of --help after the name */
	const char *help;
	const struct core_subopt *options; /* NULL-terminated, or NULL */
	int words;                         /* OPT_ARG_*: its other words */
};
extern const struct core_subcommand core_subcommands[];

/* The options part of --help, and its subcommands. */
void options_usage(void *file);
void options_usage_subcommands(void *file);

#endif
