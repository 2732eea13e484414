/* SPDX-License-Identifier: MIT */
#include "plan_fixture.h"

#include "macos_paths.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *keep(struct fixture *f, const char *s)
{
	if (!s)
		return NULL;
	if (f->n_strings == FX_MAX_STRINGS)
		abort();
	char *c = strdup(s);
	if (!c)
		abort();
	return f->strings[f->n_strings++] = c;
}

void fx_init(struct fixture *f, const char *session_name)
{
	memset(f, 0, sizeof(*f));
	char priv[512];
	snprintf(priv, sizeof(priv),
	         FX_HOME "/.local/state/agentsandbox/20250101T000000.000Z-4242-%s/seatbelt",
	         session_name);
	f->net = (struct asb_network){.struct_size = sizeof(f->net),
	                              .mode = ASB_NET_FILTERED,
	                              .proxy_port = 53128,
	                              .host_ports = f->host_ports,
	                              .published_ports = f->published};
	f->in = (struct sbpl_input){
	    .home = FX_HOME,
	    .private_dir = keep(f, priv),
	    .tty = FX_TTY,
	    .net = &f->net,
	};
	char title[256];
	snprintf(title, sizeof(title), "session %s (fixture)", session_name);
	f->in.title = keep(f, title);
}

void fx_free(struct fixture *f)
{
	for (size_t i = 0; i < f->n_strings; i++)
		free(f->strings[i]);
	f->n_strings = 0;
}

void fx_add(struct fixture *f, uint32_t type, uint32_t flags, const char *host, const char *dest,
            uint32_t state, const char *origin)
{
	if (f->n == FX_MAX_ENTRIES)
		abort();
	f->entries[f->n] = (struct asb_entry){
	    .struct_size = sizeof(struct asb_entry),
	    .type = type,
	    .flags = flags,
	    .fd = -1,
	    .host_path = keep(f, host),
	    .dest = keep(f, dest ? dest : host),
	    .origin = keep(f, origin),
	};
	f->state[f->n++] = state;
}

void fx_exec(struct fixture *f, const char *name, const char *host, uint32_t state)
{
	if (f->n_execs == FX_MAX_EXECS)
		abort();
	f->execs[f->n_execs] = (struct asb_exec){
	    .struct_size = sizeof(struct asb_exec),
	    .name = keep(f, name),
	    .host_path = keep(f, host),
	    .origin = "fixture",
	};
	f->xstate[f->n_execs++] = state;
}

const struct sbpl_input *fx_input(struct fixture *f)
{
	f->in.entries = f->entries;
	f->in.n_entries = f->n;
	f->in.entry_state = f->state;
	f->in.execs = f->execs;
	f->in.n_execs = f->n_execs;
	f->in.exec_state = f->xstate;
	f->in.seccomp = f->groups;
	f->in.n_seccomp = f->n_groups;
	return &f->in;
}

#define DIR_ ASB_ENTRY_F_DIR
#define EX   SBPL_ST_EXISTS

/* What core/layout.c adds, as the host resolves it on a Mac: /lib* and most
 * of the Linux /etc list do not exist there (F_TRY drops them); /etc is
 * /private/etc. The seccomp groups are the core's. */
void fx_system(struct fixture *f)
{
	fx_add(f, ASB_ENTRY_READ, DIR_, "/usr", NULL, EX, "core");
	fx_add(f, ASB_ENTRY_READ, DIR_, "/bin", NULL, EX, "core");
	fx_add(f, ASB_ENTRY_READ, DIR_, "/sbin", NULL, EX, "core");
	static const char *const etc[] = {"passwd",   "group",     "hosts",
	                                  "services", "protocols", NULL};
	for (const char *const *e = etc; *e; e++) {
		char p[64];
		snprintf(p, sizeof(p), "/private/etc/%s", *e);
		fx_add(f, ASB_ENTRY_READ, 0, p, NULL, EX, "core");
	}
	/* /etc/resolv.conf and /etc/localtime are links: the glue turns each
	 * into the target and the link as it is. */
	fx_add(f, ASB_ENTRY_READ, 0, "/private/var/run/resolv.conf", NULL, EX, "core");
	fx_add(f, ASB_ENTRY_SYMLINK, 0, "/var/run/resolv.conf", "/private/etc/resolv.conf",
	       EX | SBPL_ST_AS_IS, "core");
	fx_add(f, ASB_ENTRY_READ, 0, "/private/var/db/timezone/zoneinfo/Europe/Berlin", NULL, EX,
	       "core");
	fx_add(f, ASB_ENTRY_SYMLINK, 0, "/var/db/timezone/zoneinfo/Europe/Berlin",
	       "/private/etc/localtime", EX | SBPL_ST_AS_IS, "core");
	fx_add(f, ASB_ENTRY_READ, DIR_, "/private/etc/ssl", NULL, EX, "core");
	fx_add(f, ASB_ENTRY_PROC, 0, NULL, "/proc", 0, "core");
	fx_add(f, ASB_ENTRY_DEVFS, 0, NULL, "/dev", EX, "core");
	fx_add(f, ASB_ENTRY_EPHEMERAL, DIR_, NULL, "/tmp", EX, "core");
	fx_add(f, ASB_ENTRY_EPHEMERAL, DIR_, NULL, "/var/tmp", EX, "core");
	static const char *const groups[] = {"unix_sockets",  "socket_families",
	                                     "tty_injection", "userns",
	                                     "mount",         "keyring",
	                                     "bpf",           "perf",
	                                     "userfaultfd",   "io_uring",
	                                     "ptrace",        "kernel",
	                                     "personality",   NULL};
	for (const char *const *g = groups; *g && f->n_groups < 16; g++)
		f->groups[f->n_groups++] = (struct asb_seccomp_group){
		    .struct_size = sizeof(struct asb_seccomp_group), .denied = 1, .name = *g};
}

void fx_home(struct fixture *f)
{
	fx_add(f, ASB_ENTRY_EPHEMERAL, DIR_, NULL, FX_HOME, EX, "core");
}

/* repo_scan.c on a repository with hooks/ and config, no config.worktree,
 * info/attributes or objects/info/alternates: read-only binds, pinned
 * directories, masks for what does not exist yet. */
void fx_git(struct fixture *f, const char *ws)
{
	char p[512];
#define G(type, flags, rel, st)                                                                    \
	do {                                                                                       \
		snprintf(p, sizeof(p), "%s/.git/%s", ws, rel);                                     \
		fx_add(f, type, flags, type == ASB_ENTRY_MASK ? NULL : p, p, st, "git");           \
	} while (0)
	G(ASB_ENTRY_READ, DIR_, "hooks", EX);
	G(ASB_ENTRY_READ, 0, "config", EX);
	G(ASB_ENTRY_MASK, 0, "config.worktree", 0);
	G(ASB_ENTRY_WRITE, DIR_, "info", EX);
	G(ASB_ENTRY_MASK, 0, "info/attributes", 0);
	G(ASB_ENTRY_WRITE, DIR_, "objects", EX);
	G(ASB_ENTRY_WRITE, DIR_, "objects/info", EX);
	G(ASB_ENTRY_MASK, 0, "objects/info/alternates", 0);
#undef G
}

/* layout_common_tools that a Mac has, where it has them. */
void fx_common_tools(struct fixture *f)
{
	static const char *const bin[] = {"sh",    "cat",   "ls",  "cp",    "mv",       "rm",
	                                  "mkdir", "rmdir", "ln",  "chmod", "realpath", "echo",
	                                  "test",  "[",     "pwd", "date",  "sleep",    "expr",
	                                  "df",    "stty",  "dd",  "sync",  NULL};
	static const char *const usr[] = {
	    "env",      "touch",   "stat",   "readlink", "basename", "dirname", "head",   "tail",
	    "wc",       "sort",    "uniq",   "cut",      "tr",       "tee",     "printf", "true",
	    "false",    "id",      "whoami", "uname",    "mktemp",   "seq",     "yes",    "du",
	    "paste",    "join",    "comm",   "split",    "nl",       "od",      "base64", "cksum",
	    "truncate", "install", "fold",   "fmt",      "printenv", "tty",     "nice",   "nohup",
	    "find",     "xargs",   "grep",   "egrep",    "fgrep",    "sed",     "awk",    "diff",
	    "cmp",      "diff3",   "sdiff",  "which",    "tar",      "gzip",    "gunzip", "zcat",
	    "less",     NULL};
	char p[64];
	for (const char *const *b = bin; *b; b++) {
		snprintf(p, sizeof(p), "/bin/%s", *b);
		fx_exec(f, *b, p, 0);
	}
	for (const char *const *u = usr; *u; u++) {
		snprintf(p, sizeof(p), "/usr/bin/%s", *u);
		fx_exec(f, *u, p, 0);
	}
}

/* seatbelt's pre_mount: sbpl_system_paths, as the host hands them back (the
 * xcode_select_link is a link to the command line tools). */
static void fx_seatbelt_baseline(struct fixture *f)
{
	for (const struct sbpl_system_path *s = sbpl_system_paths; s->path; s++) {
		if (strcmp(s->path, "/private/var/db/xcode_select_link") == 0) {
			fx_add(f, ASB_ENTRY_SYMLINK, 0, SBPL_CLT_DIR, s->path, EX | SBPL_ST_AS_IS,
			       "seatbelt");
			continue;
		}
		if (strcmp(s->path, "/private/etc/localtime") == 0 ||
		    strcmp(s->path, "/private/etc/resolv.conf") == 0)
			continue; /* as the core's, above */
		bool file = strncmp(s->path, "/private/etc/", 13) == 0 &&
		            strcmp(s->path, "/private/etc/ssl") != 0 &&
		            strcmp(s->path, "/private/etc/paths.d") != 0;
		fx_add(f, ASB_ENTRY_READ, s->flags | (file ? 0 : DIR_), s->path, NULL, EX,
		       "seatbelt");
	}
}

struct example {
	const char *name;
	const char *command;     /* host path of the command, resolved */
	const char *command_dir; /* what layout_add_executable binds for it */
	const char *rw[4];
	int node; /* packages has "node" (or "node?") */
};

static const struct example examples[] = {
    {"claude",
     "/opt/homebrew/lib/node_modules/@anthropic-ai/claude-code/cli.js",
     "/opt/homebrew/lib/node_modules/@anthropic-ai/claude-code",
     {FX_HOME "/.claude"},
     1},
    {"codex",
     "/opt/homebrew/lib/node_modules/@openai/codex/bin/codex.js",
     "/opt/homebrew/lib/node_modules/@openai/codex/bin",
     {FX_HOME "/.codex"},
     1},
    {"copilot",
     "/opt/homebrew/lib/node_modules/@github/copilot/index.js",
     "/opt/homebrew/lib/node_modules/@github/copilot",
     {FX_HOME "/.cache/copilot", FX_HOME "/.copilot"},
     1},
    {"gemini",
     "/opt/homebrew/lib/node_modules/@google/gemini-cli/dist/index.js",
     "/opt/homebrew/lib/node_modules/@google/gemini-cli/dist",
     {FX_HOME "/.gemini"},
     1},
    {"opencode",
     "/opt/homebrew/Cellar/opencode/0.15.0/bin/opencode",
     "/opt/homebrew/Cellar/opencode/0.15.0/bin",
     {FX_HOME "/.cache/opencode", FX_HOME "/.config/opencode", FX_HOME "/.local/share/opencode",
      FX_HOME "/.local/state/opencode"},
     1},
    {"pi",
     "/opt/homebrew/lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
     "/opt/homebrew/lib/node_modules/@mariozechner/pi-coding-agent/dist",
     {FX_HOME "/.pi"},
     1},
};

int fx_example(struct fixture *f, const char *name)
{
	const struct example *x = NULL;
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		if (strcmp(examples[i].name, name) == 0)
			x = &examples[i];
	if (!x)
		return -1;
	fx_init(f, name);
	fx_system(f);
	fx_home(f);
	/* Declared paths, parent first (depth, then name), the workspace too. */
	const char *decl[6];
	size_t n = 0;
	for (size_t i = 0; i < 4 && x->rw[i]; i++)
		decl[n++] = x->rw[i];
	decl[n++] = FX_WS;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			size_t di = 0, dj = 0;
			for (const char *c = decl[i]; *c; c++)
				di += *c == '/';
			for (const char *c = decl[j]; *c; c++)
				dj += *c == '/';
			if (dj < di || (dj == di && strcmp(decl[j], decl[i]) < 0)) {
				const char *t = decl[i];
				decl[i] = decl[j];
				decl[j] = t;
			}
		}
	for (size_t i = 0; i < n; i++)
		fx_add(f, ASB_ENTRY_WRITE, DIR_, decl[i], NULL, EX,
		       strcmp(decl[i], FX_WS) == 0 ? "workspace" : "sandbox.rw_dirs");
	/* Executables: the command, packages, bash, the common tools. */
	const char *base = strrchr(x->command, '/') + 1;
	const char *cmd_name = strcmp(x->name, "claude") == 0 ? "claude" : x->name;
	(void)base;
	fx_add(f, ASB_ENTRY_READ, DIR_, x->command_dir, NULL, EX, "sandbox.command");
	fx_exec(f, cmd_name, x->command, 0);
	static const char *node = "/opt/homebrew/Cellar/node/23.11.0/bin/node";
	static const char *rg = "/opt/homebrew/Cellar/ripgrep/14.1.1/bin/rg";
	fx_exec(f, "git", "/usr/bin/git", 0);
	if (x->node) {
		fx_add(f, ASB_ENTRY_READ, DIR_, "/opt/homebrew/Cellar/node/23.11.0/bin", NULL, EX,
		       "sandbox.packages");
		fx_exec(f, "node", node, 0);
	}
	fx_add(f, ASB_ENTRY_READ, DIR_, "/opt/homebrew/Cellar/ripgrep/14.1.1/bin", NULL, EX,
	       "sandbox.packages");
	fx_exec(f, "rg", rg, 0);
	fx_exec(f, "curl", "/usr/bin/curl", 0);
	fx_exec(f, "python3", "/usr/bin/python3", 0);
	fx_exec(f, "make", "/usr/bin/make", 0);
	fx_exec(f, "jq", "/usr/bin/jq", 0);
	fx_exec(f, "bash", "/bin/bash", 0);
	fx_common_tools(f);
	/* seatbelt pre_mount, git pre_mount, seatbelt env (the closures of the
	 * command line tool shims the plan runs). */
	fx_seatbelt_baseline(f);
	fx_git(f, FX_WS);
	static const char *const shims[] = {"git", "python3", "make", NULL};
	for (const char *const *s = shims; *s; s++) {
		char p[128];
		snprintf(p, sizeof(p), SBPL_CLT_DIR "/usr/bin/%s", *s);
		fx_add(f, ASB_ENTRY_READ, ASB_ENTRY_F_EXEC, p, NULL, EX, "seatbelt");
	}
	return 0;
}
