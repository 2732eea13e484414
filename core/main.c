/* SPDX-License-Identifier: MIT */
/* agentsandbox: the command line. Everything else lives in the core library;
 * this file turns its results into messages and an exit status. */
#include "agents.h"
#include "cli.h"
#include "complete.h"
#include "config.h"
#include "exec.h"
#include "launch.h"
#include "layout.h"
#include "log.h"
#include "platform.h"
#include "selfconfig.h"
#include "session.h"
#include "show.h"
#include "subcommands.h"
#include "tty.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define EXIT_SETUP 125

static void stderr_sink(int level, const char *msg)
{
	if (level == LOG_WARN)
		fprintf(stderr, "agentsandbox: warning: %s\n", msg);
}

static int fail(int r)
{
	const char *e = err_get();
	/* Several errors (a config's, core/config.c) come one a line. */
	_cleanup_free_ char *all = strdup(e ? e : strerror(r < 0 ? -r : r));
	char *save = NULL;
	for (char *line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *clean = log_escape(line);
		fprintf(stderr, "agentsandbox: %s\n", clean ? clean : "error");
	}
	if (!all)
		fputs("agentsandbox: error\n", stderr);
	return EXIT_SETUP;
}

static int identify(struct policy *p)
{
	p->uid = getuid();
	p->gid = getgid();
	struct passwd *pw = getpwuid(p->uid);
	const char *home = getenv("HOME");
	if (!home || home[0] != '/')
		home = pw ? pw->pw_dir : NULL;
	if (!home) {
		err_set("cannot tell the home directory: set $HOME");
		return -ENOENT;
	}
	const char *user = pw ? pw->pw_name : getenv("USER");
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd))) {
		err_set("cannot read the current directory: %s", strerror(errno));
		return -errno;
	}
	p->home = strdup(home);
	p->user = strdup(user ? user : "user");
	p->launch_dir = strdup(cwd);
	size_t len = p->home ? strlen(p->home) : 0;
	while (len > 1 && p->home[len - 1] == '/')
		p->home[--len] = '\0';
	return p->home && p->user && p->launch_dir ? 0 : -ENOMEM;
}

/* A config that failed to parse: say so when it looks like JSON or YAML. */
static void config_format_hint(const char *path)
{
	const char *ext = strrchr(path, '.');
	FILE *f = fopen(path, "re");
	int c = ' ';
	while (f && (c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
		;
	if (f)
		fclose(f);
	bool json = c == '{' || c == '[' || (ext && strcmp(ext, ".json") == 0);
	bool yaml = (ext && (strcmp(ext, ".yaml") == 0 || strcmp(ext, ".yml") == 0)) || c == '-';
	if (json || yaml)
		err_prefix("%s looks like %s, but agentsandbox reads libconfig syntax (sandbox: { "
		           "command = \"claude\"; }; see the examples)",
		           path, json ? "JSON" : "YAML");
}

static int resolve_policy(struct policy *p, const struct cli *c, const struct catalog *plugins)
{
	int r = identify(p);
	if (r < 0)
		return r;
	_cleanup_free_ char *cfg = NULL;
	int cfg_source = SRC_DEFAULT;
	r = cli_config_path(c, expand_lookup_environ, NULL, &cfg, &cfg_source);
	if (r < 0 && r != -ENOENT)
		return r;
	if (cfg && (r = config_check_text(cfg_source == SRC_FLAG  ? "-c"
	                                  : cfg_source == SRC_ENV ? "AGENTSANDBOX_CONFIG"
	                                                          : NULL,
	                                  "the config file", cfg)) < 0)
		return r;
	if (cfg) {
		char real[PATH_MAX];
		struct stat cst;
		if (!path_real(cfg, real)) {
			err_set(
			    "%s: cannot read config: %s%s", cfg, strerror(errno),
			    errno == ENOENT && !strchr(cfg, '/')
			        ? " (nor is there one of that name in ~/.config/agentsandbox or "
			          "the installed examples)"
			        : "");
			return -errno;
		}
		if (stat(real, &cst) == 0 && S_ISDIR(cst.st_mode)) {
			err_set("%s: is a directory, not a config file", cfg);
			return -EISDIR;
		}
		if (!(p->config_file = strdup(cfg)))
			return -ENOMEM;
		p->config_source = cfg_source;
		if ((r = config_load(p, cfg, expand_lookup_environ, NULL)) < 0) {
			config_format_hint(cfg);
			return r;
		}
	}
	if ((r = cli_apply(c, plugins, p, expand_lookup_environ, NULL)) < 0)
		return r;

	/* Without a command in the config, the first agent argument is it. */
	if (!p->command.value && !c->shell && p->agent_args.n > 0) {
		p->command.value = strdup(p->agent_args.v[0]);
		p->command.source = SRC_FLAG;
		free(p->agent_args.v[0]);
		memmove(p->agent_args.v, p->agent_args.v + 1, p->agent_args.n * sizeof(char *));
		p->agent_args.n--;
		if (!p->command.value)
			return -ENOMEM;
	}
	if (!p->command.value && !c->shell) {
		err_set("%s: sandbox.command is not set (set it, give the command after --, or "
		        "use --shell)",
		        p->config_file ? p->config_file : "no config file");
		return -EINVAL;
	}
	if (!p->workspace.value) {
		if (!(p->workspace.value = strdup(p->launch_dir)))
			return -ENOMEM;
		p->workspace.source = SRC_DEFAULT;
	}
	struct stat st;
	char real[PATH_MAX];
	if (stat(p->workspace.value, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    !path_real(p->workspace.value, real)) {
		err_set("workspace %s [%s]: %s", p->workspace.value,
		        source_name(p->workspace.source),
		        errno ? strerror(errno) : "not a directory");
		return -ENOTDIR;
	}
	free(p->workspace.value);
	if (!(p->workspace.value = strdup(real)))
		return -ENOMEM;
	/* Paths given by flag or variable (the config's were checked with
	 * their file:line), and the directory launched from. */
	const int ws_src = p->workspace.source;
	if ((r = config_check_text(ws_src == SRC_FLAG   ? "--workspace"
	                           : ws_src == SRC_ENV  ? "AGENTSANDBOX_WORKSPACE"
	                           : ws_src == SRC_FILE ? p->config_file
	                                                : "the directory you launch from",
	                           "the workspace", p->workspace.value)) < 0)
		return r;
	for (size_t i = 0; i < p->n_mounts; i++)
		if ((r = config_check_text("--mount", "source", p->mounts[i].source)) < 0 ||
		    (r = config_check_text("--mount", "destination", p->mounts[i].dest)) < 0)
			return r;
	if (p->command.value && (r = config_check_text(NULL, "the command", p->command.value)) < 0)
		return r;
	if (!p->name.value) {
		const char *base = c->shell ? "shell" : p->command.value;
		if (strrchr(base, '/'))
			base = strrchr(base, '/') + 1;
		if (!(p->name.value = strdup(base)))
			return -ENOMEM;
	}
	return 0;
}

static int print_check(const struct launch *l)
{
	const struct policy *p = l->policy;
	printf("config: %s: ok\n", p->config_file ? p->config_file : "(none)");
	for (size_t i = 0; i < l->n_plugins; i++)
		printf("plugin %s: %s, ABI %u.%u, loaded from %s (%s)\n", l->plugins[i].name,
		       l->plugins[i].desc->version ? l->plugins[i].desc->version : "?",
		       l->plugins[i].desc->abi_major, l->plugins[i].desc->abi_minor,
		       l->plugins[i].path, show_load_reason(l, &l->plugins[i]));
	for (size_t i = 0; i < l->describe.n; i++) {
		_cleanup_free_ char *line = strdup(l->describe.v[i]);
		char *t1 = line ? strchr(line, '\t') : NULL;
		char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			continue;
		*t1 = *t2 = '\0';
		printf("%s: %s: %s\n", line, t1 + 1, t2 + 1);
	}
	int bad = 0;
	if (l->probe_error[0]) {
		printf("backend %s: CANNOT RUN HERE: %s\n", l->backend->name, l->probe_error);
		bad = 1;
	} else {
		printf("backend %s: usable (platform %s)\n", l->backend->name, platform_name());
	}
	if (l->view_error[0]) {
		printf("filesystem: CANNOT RUN HERE: %s\n", l->view_error);
		bad = 1;
	}
	const struct network *n = &l->net;
	if (n->mode == NET_FILTERED)
		printf("network: filtered (filtering proxy on the %s127.0.0.1:%u)\n",
		       n->in_namespace ? "sandbox's " : "host's ", (unsigned)n->proxy_port);
	else if (n->mode == NET_OPEN && l->network_error[0]) {
		printf("network: open: CANNOT RUN HERE: %s\n", l->network_error);
		bad = 1;
	} else if (n->mode == NET_OPEN)
		printf("network: open (%s)\n", n->in_namespace
		                                   ? "slirp4netns, host loopback closed"
		                                   : "the backend's rules, host ports closed");
	else
		printf("network: off (loopback only)\n");
	if (network_needs_wiring(n))
		printf("network namespace: %s\n",
		       n->made_at_spawn ? "made by agentsandbox as the backend's command starts, "
		                          "wired while the sandbox is set up"
		                        : "the backend's own, wired once the sandbox exists");
	printf("workspace: %s%s\n", p->workspace.value,
	       layout_workspace_exposes_home(p) ? " (contains $HOME: needs --allow-home)" : "");
	struct home_exposure he;
	if (layout_home_exposure(p, &he) && strcmp(he.what, "the workspace") != 0) {
		_cleanup_free_ char *what = layout_home_exposure_text(p, &he);
		printf("home: %s (%s)\n", what ? what : he.path,
		       p->allow_home.value ? "allowed by --allow-home" : "needs --allow-home");
	}
	if (p->terminal_filter.value) {
		printf("terminal: filtered (a pty of its own when 0-2 hold a terminal, its output "
		       "filtered; never your controlling terminal)");
		for (size_t i = 0; i < p->terminal_allow.items.n; i++)
			printf("%s%s", i ? ", " : "; let through: ", p->terminal_allow.items.v[i]);
		putchar('\n');
	} else {
		printf("terminal: direct (the agent gets your terminal itself: "
		       "--no-terminal-filter)\n");
	}
	if (protections_print_check(stdout, l) < 0)
		bad = 1;
	return bad ? -EPERM : 0;
}

/* Discovery opens every plugin it finds: a plugin dir an earlier session
 * could write is checked before anything in it runs (core/selfconfig.h). */
static int check_plugin_dirs(int argc, char **argv, const struct strv *dirs,
                             struct selfconfig_records *records)
{
	bool accept = false;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		accept = accept || strcmp(argv[i], "--accept-config-change") == 0;
	struct strv real = {0};
	char buf[PATH_MAX];
	int r = 0;
	for (size_t i = 0; r >= 0 && i < dirs->n; i++)
		if (path_real(dirs->v[i], buf) && !strv_contains(&real, buf))
			r = strv_push(&real, buf);
	if (r >= 0 && path_real(ASB_PLUGINDIR, buf))
		r = strv_push(&real, buf);
	const char *home = getenv("HOME");
	_cleanup_free_ char *root = NULL, *why = NULL;
	if (r >= 0 && session_root(getenv("XDG_STATE_HOME"), home, &root) == 0 &&
	    (r = selfconfig_check(root, &real, records, &why)) > 0) {
		_cleanup_free_ char *clean = log_escape(why);
		_cleanup_free_ char *q =
		    str_printf("agentsandbox: %s.\nIts plugins would be loaded now. Go on?",
		               clean ? clean : why);
		if (accept || (q && tty_confirm(q) == 1)) {
			r = selfconfig_accept(root, &real);
		} else {
			err_set("%s. Check it, then run with --accept-config-change", why);
			r = -EPERM;
		}
	}
	strv_clear(&real);
	return r < 0 ? r : 0;
}

/* --plugin-dir, then $AGENTSANDBOX_PLUGIN_PATH (cli_apply keeps the same
 * order for the policy). */
static int discover(int argc, char **argv, struct catalog *plugins,
                    struct selfconfig_records *records)
{
	struct strv dirs = {0};
	int r = cli_plugin_dirs(argc, argv, &dirs);
	const char *env = getenv("AGENTSANDBOX_PLUGIN_PATH");
	_cleanup_free_ char *copy = env ? strdup(env) : NULL;
	char *save = NULL;
	for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; r >= 0 && tok;
	     tok = strtok_r(NULL, ":", &save))
		r = strv_push(&dirs, tok);
	if (r >= 0)
		r = check_plugin_dirs(argc, argv, &dirs, records);
	/* The descriptors of unchanged plugins, beside the sessions: only the
	 * plugins a launch uses are opened (core/plugin_cache.h). */
	_cleanup_free_ char *root = NULL, *cache = NULL;
	if (session_root(getenv("XDG_STATE_HOME"), getenv("HOME"), &root) == 0)
		cache = str_printf("%s/.plugin-cache", root);
	if (r >= 0)
		r = loader_discover(&dirs, cache, plugins);
	strv_clear(&dirs);
	return r;
}

/* `agentsandbox proxy ARGS...`: the filtering proxy on its own; it is
 * installed beside the launcher's other helpers, not on PATH. */
static int run_proxy(char **argv)
{
	_cleanup_free_ char *proxy = NULL;
	int r = exec_find_helper("agentsandbox-proxy", &proxy);
	if (r < 0) {
		err_set("agentsandbox-proxy was not found (next to agentsandbox or in %s)",
		        ASB_LIBEXECDIR);
		return fail(r);
	}
	argv[0] = proxy;
	execv(proxy, argv);
	err_set("%s: %s", proxy, strerror(errno));
	return fail(-errno);
}

int main(int argc, char **argv)
{
	/* Nothing this process inherited beyond 0-2 reaches the sandbox or a
	 * helper: a terminal's, an IDE's or a wrapper script's open files. */
	(void)platform_fds_cloexec_from(3);
	/* Through a link named after an agent, "proxy" is the agent's word. */
	if (argc > 1 && strcmp(argv[1], "proxy") == 0 && !agents_from_argv0(argv[0]))
		return run_proxy(argv + 1);
	log_set_sink(stderr_sink);
	struct catalog plugins = {0};
	/* Read by discovery's check of the plugin dirs, again by the launch's. */
	_cleanup_(selfconfig_records_free) struct selfconfig_records self_records = {0};
	struct cli c;
	int r = discover(argc, argv, &plugins, &self_records);
	if (r < 0) {
		catalog_free_at_exit(&plugins);
		return fail(r);
	}
	r = cli_parse(argc, argv, &plugins, &c);
	if (r < 0) {
		cli_free(&c);
		catalog_free_at_exit(&plugins);
		return fail(r);
	}
	if (c.mode == MODE_HELP) {
		cli_usage(stdout, &plugins);
		cli_free(&c);
		catalog_free_at_exit(&plugins);
		return 0;
	}
	if (c.mode == MODE_COMPLETION || c.mode == MODE_INIT) {
		_cleanup_free_ char *written = NULL;
		r = c.mode == MODE_COMPLETION
		        ? complete_script(stdout, c.completion, &plugins)
		        : agents_init(c.agent, c.force, expand_lookup_environ, NULL, &written);
		if (r >= 0 && written)
			printf("wrote %s\nrun it from a project directory: agentsandbox %s\n",
			       written, c.agent);
		cli_free(&c);
		catalog_free_at_exit(&plugins);
		return r < 0 ? fail(r) : 0;
	}
	if (c.mode == MODE_VERSION) {
		printf("agentsandbox %s (plugin ABI %u.%u)\n", ASB_VERSION, ASB_ABI_MAJOR,
		       ASB_ABI_MINOR);
		cli_free(&c);
		catalog_free_at_exit(&plugins);
		return 0;
	}

	struct policy p;
	policy_init(&p);
	int code = EXIT_SETUP;
	if (c.mode == MODE_SESSIONS || c.mode == MODE_PLUGINS || c.mode == MODE_ALLOWLIST) {
		if ((r = identify(&p)) < 0 ||
		    (r = cli_apply(&c, &plugins, &p, expand_lookup_environ, NULL)) < 0)
			code = fail(r);
		else if (c.mode == MODE_ALLOWLIST)
			code = subcommand_allowlist(&p,
			                            c.session        ? c.session
			                            : p.agent_args.n ? p.agent_args.v[0]
			                                             : NULL,
			                            stdout);
		else if (c.mode == MODE_SESSIONS)
			code = subcommand_sessions(&p, c.list_format, stdout);
		else {
			/* What each plugin does now, not what it did when recorded. */
			catalog_open_all(&plugins);
			code = subcommand_plugins(&plugins, stdout);
		}
		policy_free(&p);
		cli_free(&c);
		catalog_free_at_exit(&plugins);
		return code;
	}

	if ((r = resolve_policy(&p, &c, &plugins)) < 0) {
		code = fail(r);
		goto out_policy;
	}
	bool dry_run = c.mode == MODE_SHOW_CONFIG || c.mode == MODE_CHECK;
	struct home_exposure he;
	if (!dry_run && !p.allow_home.value && layout_home_exposure(&p, &he)) {
		_cleanup_free_ char *what = layout_home_exposure_text(&p, &he);
		_cleanup_free_ char *clean = what ? log_escape(what) : NULL;
		_cleanup_free_ char *q = str_printf(
		    "agentsandbox: %s.\nThe agent would be able to read and change all of "
		    "it. Continue?",
		    clean ? clean : "a declared path contains your home directory");
		if (q && tty_confirm(q) == 1) {
			p.allow_home.value = 1;
			p.allow_home.source = SRC_FLAG;
			log_msg(LOG_INFO, "confirmed on the terminal: %s", what ? what : "");
		}
	}

	struct launch l;
	launch_init(&l, &p, &plugins, c.shell, dry_run);
	l.self_records = &self_records;
	if ((r = launch_load_plugins(&l)) < 0) {
		code = fail(r);
		goto out_launch;
	}
	if ((r = launch_plan(&l)) < 0) {
		launch_post_exit(&l, r);
		code = fail(r);
		goto out_launch;
	}
	if (dry_run) {
		if ((r = launch_describe(&l)) < 0) {
			code = fail(r);
		} else {
			code = 0;
			if (c.mode == MODE_SHOW_CONFIG)
				show_config(stdout, &l);
			else if (print_check(&l) < 0)
				code = EXIT_SETUP;
		}
		launch_post_exit(&l, 0);
		goto out_launch;
	}
	(void)launch_describe(&l);
	code = launch_run(&l);
	if (code == EXIT_SETUP && err_get())
		(void)fail(-EIO);
out_launch:
	launch_free(&l);
out_policy:
	policy_free(&p);
	cli_free(&c);
	catalog_free_at_exit(&plugins);
	return code;
}
