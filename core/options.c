/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "policy.h"
#include "termfilter.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define BOOL(n, o, e, field, u, h)                                                                 \
	{                                                                                          \
		.name = (n), .is_bool = true, .off = (o), .env = (e),                              \
		.offset = offsetof(struct policy, field), .usage = (u), .help = (h)                \
	}

const struct core_option core_options[] = {
    {.name = "config",
     .short_name = 'c',
     .arg = OPT_ARG_CONFIG,
     .metavar = "FILE|NAME",
     .help = "the policy (default: $AGENTSANDBOX_CONFIG, then\n"
             "${XDG_CONFIG_HOME:-~/.config}/agentsandbox/default.cfg)\n"
             "NAME: NAME.cfg there, else the installed example"},
    {.name = "show-config",
     .help = "print the resolved policy, where each value came from,\n"
             "what the backend applies, and its exact command"},
    {.name = "reveal",
     .arg = OPT_ARG_TEXT,
     .metavar = "KEY",
     .help = "--show-config prints the value of env KEY (repeatable;\n"
             "every other value is hidden; also sandbox.public_env)"},
    {.name = "shell", .help = "open bash in the very same sandbox instead of the agent"},
    {.name = "check", .help = "validate the config and this host, run nothing"},
    {.name = "workspace",
     .arg = OPT_ARG_DIR,
     .metavar = "DIR",
     .help = "the read-write project directory (default: $PWD)"},
    {.name = "mount",
     .arg = OPT_ARG_PATH,
     .metavar = "[ro:]SRC[:DEST]",
     .help = "bind a host path (read-write unless ro:)"},
    {.name = "env", .arg = OPT_ARG_TEXT, .metavar = "KEY=VALUE", .help = "set a variable inside"},
    {.name = "backend",
     .arg = OPT_ARG_BACKEND,
     .metavar = "NAME",
     .help = "backend plugin (default: bwrap)"},
    {.name = "plugin-dir",
     .arg = OPT_ARG_DIR,
     .metavar = "DIR",
     .help = "search DIR for plugins first (repeatable)"},
    {.name = "accept-weaker",
     .arg = OPT_ARG_WORDS,
     .metavar = "NAME",
     .values = "filesystem pinned-paths remap ephemeral files masks processes network "
               "unix-sockets seccomp landlock limits no-new-privs",
     .help = "run although the backend cannot give protection NAME\n"
             "(repeatable; recorded in launch.log; see --check)"},
    BOOL("allow-home", "no-allow-home", "ALLOW_HOME", allow_home, "--allow-home",
         "allow launching from $HOME or / (exposes all of it)"),
    {.name = "accept-config-change",
     .help = "run although a file that shapes the sandbox (the\n"
             "config, a plugin dir, ...) may have been changed by an\n"
             "earlier session that could write it"},
    BOOL("common-tools", "no-common-tools", "COMMON_TOOLS", common_tools, "--[no-]common-tools",
         "coreutils, grep, sed, ... on PATH (default: on)"),
    BOOL("allow-unix-sockets", "no-allow-unix-sockets", "ALLOW_UNIX_SOCKETS", unix_sockets,
         "--[no-]allow-unix-sockets", "AF_UNIX sockets inside"),
    BOOL("network", "no-network", "NETWORK", network_enabled, "--no-network", "loopback only"),
    BOOL("require-landlock", "no-require-landlock", "REQUIRE_LANDLOCK", require_landlock,
         "--require-landlock", "refuse to start without Landlock"),
    BOOL("terminal-filter", "no-terminal-filter", "TERMINAL_FILTER", terminal_filter,
         "--no-terminal-filter", "give the agent your terminal itself, not a filtered pty"),
    {.name = "terminal-allow",
     .arg = OPT_ARG_TERMINAL,
     .metavar = "CLASS,...",
     .help = "sequences to let through to your terminal:\n" TERMINAL_CLASSES},
    {.name = "completion",
     .arg = OPT_ARG_WORDS,
     .metavar = "SHELL",
     .values = "bash zsh fish",
     .help = "print the completion script for bash, zsh or fish"},
    {.name = "help", .short_name = 'h', .help = "this text"},
    {.name = "version", .short_name = 'V', .help = "the version"},
};
const size_t n_core_options = ARRAY_SIZE(core_options);
_Static_assert(ARRAY_SIZE(core_options) <= 32, "grow CLI_MAX_BOOLS (core/cli.h)");

static const struct core_subopt sessions_opts[] = {
    {"json", OPT_ARG_NONE, "the sessions as a JSON array"},
    {"paths", OPT_ARG_NONE, "one session directory a line"},
    {"last", OPT_ARG_NONE, "the newest session directory"},
    {NULL, 0, NULL},
};
static const struct core_subopt allowlist_opts[] = {
    {"session", OPT_ARG_SESSION, "a directory, its name, or the newest of a sandbox.name"},
    {NULL, 0, NULL},
};
static const struct core_subopt init_opts[] = {
    {"force", OPT_ARG_NONE, "replace an existing config"},
    {NULL, 0, NULL},
};

const struct core_subcommand core_subcommands[] = {
    {"sessions", "",
     "recent sessions: time, name, command, network, status\n"
     "and directory; --json, --paths (one a line), --last\n"
     "(the newest directory, for tail -f DIR/proxy.log)",
     sessions_opts, OPT_ARG_NONE},
    {"allowlist", "[SESSION]",
     "an allowed_domains block from what a session's proxy\n"
     "allowed, merged with the entries it ran with (default:\n"
     "the newest session with a proxy.log; --session NAME:\n"
     "a directory, its name, or the newest of a sandbox.name)",
     allowlist_opts, OPT_ARG_SESSION},
    {"plugins", "", "list plugins found, their ABI and whether they load", NULL, OPT_ARG_NONE},
    {"proxy", "[options]", "the filtering proxy on its own (proxy --help)", NULL, OPT_ARG_NONE},
    {"init", "AGENT [--force]",
     "write a starter AGENT.cfg into\n"
     "${XDG_CONFIG_HOME:-~/.config}/agentsandbox (--force: replace it)",
     init_opts, OPT_ARG_AGENT},
    {NULL, NULL, NULL, NULL, 0},
};

static void help_lines(FILE *f, const char *left, const char *help)
{
	size_t n = strlen(left);
	fprintf(f, "  %s%*s", left, n < 25 ? (int)(25 - n) : 2, "");
	for (const char *h = help; *h;) {
		size_t len = strcspn(h, "\n");
		fprintf(f, "%.*s\n", (int)len, h);
		h += len;
		if (*h == '\n' && *++h)
			fprintf(f, "%27s", "");
	}
}

void options_usage(void *file)
{
	FILE *f = file;
	for (size_t i = 0; i < n_core_options; i++) {
		const struct core_option *o = &core_options[i];
		char left[96];
		if (o->usage)
			snprintf(left, sizeof(left), "    %s", o->usage);
		else if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
			         o->metavar ? " " : "", o->metavar ? o->metavar : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->metavar ? " " : "",
			         o->metavar ? o->metavar : "");
		help_lines(f, left, o->help);
	}
}

void options_usage_subcommands(void *file)
{
	for (const struct core_subcommand *sc = core_subcommands; sc->name; sc++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%s%s", sc->name, sc->args[0] ? " " : "", sc->args);
		help_lines(file, left, sc->help);
	}
}
