/* SPDX-License-Identifier: MIT */
/* Config parsing: values, expansion, and every error path with file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli.h"
#include "loader.h"
#include "config.h"
#include "log.h"
#include "policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

static const char *lookup(const char *name, void *ud)
{
	(void)ud;
	if (strcmp(name, "HOME") == 0)
		return tmp;
	if (strcmp(name, "TOKEN") == 0)
		return "abc123";
	if (strcmp(name, "AGENTSANDBOX_ALLOW_UNIX_SOCKETS") == 0)
		return getenv("TEST_ENV_UNIX");
	if (strcmp(name, "AGENTSANDBOX_BACKEND") == 0)
		return getenv("TEST_ENV_BACKEND");
	if (strcmp(name, "AGENTSANDBOX_GIT_PROTECTION") == 0)
		return getenv("AGENTSANDBOX_GIT_PROTECTION");
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/asb-unit-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	char path[512];
	snprintf(path, sizeof(path), "%s/ro", tmp);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/file", tmp);
	FILE *f = fopen(path, "w");
	fputs("x", f);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

/* Load `text` as cfg.cfg; returns the result, leaves the policy in *p. */
static int load(struct policy *p, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/cfg.cfg", tmp);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	policy_init(p);
	p->home = strdup(tmp);
	p->user = strdup("ada");
	p->launch_dir = strdup(tmp);
	err_clear();
	return config_load(p, path, lookup, NULL);
}

static void expect_error(const char *text, const char *needle, int line)
{
	struct policy p;
	int r = load(&p, text);
	if (r >= 0)
		fail_msg("config was accepted:\n%s", text);
	const char *e = err_get();
	assert_non_null(e);
	if (!strstr(e, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", e, needle);
	char where[64];
	snprintf(where, sizeof(where), "cfg.cfg:%d", line);
	if (!strstr(e, where))
		fail_msg("error \"%s\" does not name %s", e, where);
	policy_free(&p);
}

static void test_full(void **state)
{
	(void)state;
	struct policy p;
	int r = load(&p, "sandbox: {\n"
	                 "  name = \"claude-sandboxed\";\n"
	                 "  command = \"claude\";\n"
	                 "  args = [ \"--dangerously-skip-permissions\" ];\n"
	                 "  backend = \"bwrap\";\n"
	                 "  workspace = \"$HOME\";\n"
	                 "  packages = [ \"git\", \"rg\" ];\n"
	                 "  rw_dirs = [ \"$HOME/.claude\", \"~/state/\" ];\n"
	                 "  ro_dirs = [ \"${HOME}/ro\" ];\n"
	                 "  ro_files = [ \"~/file\" ];\n"
	                 "  env = { CLAUDE_CONFIG_DIR = \"$HOME/.claude\"; TOK = \"$TOKEN\";\n"
	                 "          OPT = \"${UNSET_VAR:-}\"; };\n"
	                 "  common_tools = false;\n"
	                 "};\n"
	                 "network: { allowed_domains = ( \"a.com\" ); host_ports = [ 5432 ];\n"
	                 "  published_ports = ( 3000, { port = 8000; bind = \"0.0.0.0\"; } );\n"
	                 "  unix_sockets = true; };\n"
	                 "plugins: { git: { protect = true; }; };\n");
	if (r < 0)
		fail_msg("%s", err_get());
	assert_string_equal(p.name.value, "claude-sandboxed");
	assert_int_equal(p.name.source, SRC_FILE);
	assert_int_equal(p.name.line, 2);
	assert_string_equal(p.command.value, "claude");
	assert_int_equal(p.args.items.n, 1);
	assert_string_equal(p.workspace.value, tmp);
	assert_int_equal(p.packages.items.n, 2);
	char want[512];
	snprintf(want, sizeof(want), "%s/.claude", tmp);
	assert_string_equal(p.rw_dirs.items.v[0], want);
	snprintf(want, sizeof(want), "%s/state", tmp); /* trailing slash dropped */
	assert_string_equal(p.rw_dirs.items.v[1], want);
	assert_int_equal(p.n_env, 3);
	assert_string_equal(p.env[1].raw, "$TOKEN");
	assert_string_equal(p.env[1].value, "abc123");
	assert_null(p.env[2].value); /* empty: left unset */
	assert_false(p.common_tools.value);
	assert_true(p.unix_sockets.value);
	assert_non_null(p.network);
	assert_non_null(p.plugins);
	policy_free(&p);
}

static void test_defaults(void **state)
{
	(void)state;
	struct policy p;
	assert_int_equal(load(&p, "sandbox: { command = \"true\"; };\n"), 0);
	assert_true(p.common_tools.value);
	assert_int_equal(p.common_tools.source, SRC_DEFAULT);
	assert_true(p.network_enabled.value);
	assert_false(p.unix_sockets.value);
	assert_null(p.workspace.value);
	policy_free(&p);
	assert_int_equal(load(&p, ""), 0); /* an empty file is a valid policy */
	policy_free(&p);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("sandbox: {\n  comand = \"x\";\n};\n", "unknown key 'sandbox.comand'", 2);
	expect_error("sandboxx: { };\n", "unknown key 'sandboxx'", 1);
	expect_error("sandbox: {\n\n  args = \"--x\";\n};\n", "sandbox.args must be a list", 3);
	expect_error("sandbox: { name = 3; };\n", "sandbox.name must be a string", 1);
	expect_error("sandbox: { packages = [ \"a\", \"\" ]; };\n", "sandbox.packages[1] is empty",
	             1);
	expect_error("sandbox: {\n  rw_dirs = [ \"relative/path\" ];\n};\n", "not an absolute path",
	             2);
	expect_error("sandbox: {\n  ro_dirs = [ \"$NOT_SET/x\" ];\n};\n",
	             "variable $NOT_SET is not set", 2);
	expect_error("sandbox: {\n  ro_dirs = [ \"/nonexistent-asb\" ];\n};\n", "No such file", 2);
	expect_error("sandbox: {\n  rw_files = [ \"/nonexistent-asb\" ];\n};\n", "No such file", 2);
	expect_error("sandbox: {\n  ro_files = [ \"/tmp\" ];\n};\n", "is a directory", 2);
	expect_error("sandbox: {\n  ro_dirs = [ \"/etc/hostname\" ];\n};\n", "not a directory", 2);
	expect_error("sandbox: {\n env = { TOKEN2 = \"$MISSING\"; };\n};\n",
	             "variable $MISSING is not set", 2);
	expect_error("sandbox: {\n env = { X = 1; };\n};\n", "sandbox.env.X must be a string", 2);
	expect_error("sandbox: {\n common_tools = \"yes\";\n};\n", "must be a boolean", 2);
	expect_error("sandbox: {\n name = \"a\";\n name = \"b\";\n};\n", "duplicate", 3);
	expect_error("sandbox: {\n name = ;\n};\n", "syntax error", 2);
	expect_error("network: {\n  host_ports = [ 70000 ];\n};\n", "not a port", 2);
	expect_error("network: {\n  published_ports = ( { bind = \"0.0.0.0\"; } );\n};\n",
	             "needs port", 2);
	expect_error("network: {\n  nope = 1;\n};\n", "unknown key 'network.nope'", 2);
	expect_error("network: {\n  host_ports = \"some\";\n};\n", "list of ports or \"all\"", 2);

	expect_error("plugins: {\n  git = true;\n};\n", "plugins.git must be a group", 2);
}

static void test_precedence(void **state)
{
	(void)state;
	struct policy p;
	assert_int_equal(load(&p, "sandbox: { backend = \"file\"; };\n"
	                          "network: { unix_sockets = false; };\n"),
	                 0);
	char *argv_flag[] = {"agentsandbox", "--backend", "flag", "--", "x"};
	struct cli c;
	assert_int_equal(cli_parse(5, argv_flag, NULL, &c), 0);
	setenv("TEST_ENV_BACKEND", "env", 1);
	setenv("TEST_ENV_UNIX", "yes", 1);
	assert_int_equal(cli_apply(&c, NULL, &p, lookup, NULL), 0);
	assert_string_equal(p.backend.value, "flag"); /* flag > env > file */
	assert_int_equal(p.backend.source, SRC_FLAG);
	assert_true(p.unix_sockets.value); /* env > file */
	assert_int_equal(p.unix_sockets.source, SRC_ENV);
	assert_int_equal(p.agent_args.n, 1);
	cli_free(&c);
	policy_free(&p);

	assert_int_equal(load(&p, "sandbox: { backend = \"file\"; };\n"), 0);
	char *argv_none[] = {"agentsandbox", "--no-allow-unix-sockets"};
	assert_int_equal(cli_parse(2, argv_none, NULL, &c), 0);
	assert_int_equal(cli_apply(&c, NULL, &p, lookup, NULL), 0);
	assert_string_equal(p.backend.value, "env");
	assert_false(p.unix_sockets.value); /* flag beats env */
	assert_int_equal(p.unix_sockets.source, SRC_FLAG);
	cli_free(&c);
	policy_free(&p);

	setenv("TEST_ENV_UNIX", "maybe", 1); /* not a boolean: an error, never ignored */
	assert_int_equal(load(&p, ""), 0);
	char *argv0[] = {"agentsandbox"};
	assert_int_equal(cli_parse(1, argv0, NULL, &c), 0);
	err_clear();
	assert_int_equal(cli_apply(&c, NULL, &p, lookup, NULL), -EINVAL);
	assert_non_null(strstr(err_get(), "AGENTSANDBOX_ALLOW_UNIX_SOCKETS=maybe"));
	cli_free(&c);
	policy_free(&p);
	unsetenv("TEST_ENV_UNIX");
	unsetenv("TEST_ENV_BACKEND");
}

static void test_cli(void **state)
{
	(void)state;
	struct cli c;
	/* Plugins declare their own flags: --git-protection is git's,
	 * --no-allow-nix nix's; the core knows neither name. */
	struct catalog plugins = {0};
	struct strv dirs = {0};
	if (getenv("PLUGIN_DIR"))
		assert_int_equal(strv_push(&dirs, getenv("PLUGIN_DIR")), 0);
	assert_int_equal(loader_discover(&dirs, NULL, &plugins), 0);
	bool have_plugins = catalog_find(&plugins, "git") && catalog_find(&plugins, "nix");
	char *a1[] = {"agentsandbox", "-c",      "x.cfg",   "--shell",          "--env",
	              "A=b",          "--mount", "ro:/etc", "--git-protection", "--no-allow-nix",
	              "run",          "--flag"};
	if (have_plugins) {
		assert_int_equal(cli_parse(12, a1, &plugins, &c), 0);
		assert_string_equal(c.config_path, "x.cfg");
		assert_true(c.shell);
		assert_int_equal(c.env_kv.n, 1);
		assert_int_equal(c.mounts.n, 1);
		assert_int_equal(c.plugin_opts.n, 2);
		/* The first non-option starts the agent's arguments, untouched. */
		assert_int_equal(c.agent_args.n, 2);
		assert_string_equal(c.agent_args.v[1], "--flag");
		struct policy p;
		assert_int_equal(load(&p, "plugins: { nix: { allow = true; }; };\n"), 0);
		setenv("AGENTSANDBOX_GIT_PROTECTION", "0", 1);
		assert_int_equal(cli_apply(&c, &plugins, &p, lookup, NULL), 0);
		unsetenv("AGENTSANDBOX_GIT_PROTECTION");
		const struct plugin_override *o = policy_override(&p, "git", "protect");
		assert_non_null(o);
		assert_int_equal(o->value, 1); /* the flag beats the environment */
		assert_int_equal(o->source, SRC_FLAG);
		o = policy_override(&p, "nix", "allow");
		assert_non_null(o);
		assert_int_equal(o->value, 0); /* and the file */
		assert_string_equal(o->given, "--no-allow-nix");
		policy_free(&p);
		cli_free(&c);
	}
	/* Without the plugin, its flag is unknown. */
	err_clear();
	assert_int_equal(cli_parse(12, a1, NULL, &c), -EINVAL);
	assert_non_null(strstr(err_get(), "unknown option --git-protection"));
	cli_free(&c);
	catalog_free(&plugins);
	strv_clear(&dirs);

	char *a2[] = {"agentsandbox", "--config=y.cfg", "--", "--show-config"};
	assert_int_equal(cli_parse(4, a2, NULL, &c), 0);
	assert_string_equal(c.config_path, "y.cfg");
	assert_int_equal(c.mode, MODE_RUN);
	assert_string_equal(c.agent_args.v[0], "--show-config");
	cli_free(&c);

	char *a3[] = {"agentsandbox", "--bogus"};
	err_clear();
	assert_int_equal(cli_parse(2, a3, NULL, &c), -EINVAL);
	assert_non_null(strstr(err_get(), "unknown option --bogus"));
	cli_free(&c);

	char *a4[] = {"agentsandbox", "--env", "=x"};
	err_clear();
	assert_int_equal(cli_parse(3, a4, NULL, &c), -EINVAL);
	cli_free(&c);

	char *a5[] = {"agentsandbox", "-c"};
	err_clear();
	assert_int_equal(cli_parse(2, a5, NULL, &c), -EINVAL);
	assert_non_null(strstr(err_get(), "needs a value"));
	cli_free(&c);

	char *a6[] = {"agentsandbox", "--accept-weaker", "landlock", "--accept-weaker=network"};
	assert_int_equal(cli_parse(4, a6, NULL, &c), 0);
	assert_int_equal(c.accept_weaker.n, 2);
	cli_free(&c);

	assert_int_equal(parse_bool("on"), 1);
	assert_int_equal(parse_bool("OFF"), 0);
	assert_int_equal(parse_bool("2"), -EINVAL);
}

/* Discovery dlopens regular files only, whether readdir's d_type says so or
 * a stat of a symlink does: a FIFO named x.so would block dlopen. */
static void test_discover_entries(void **state)
{
	(void)state;
	const char *pd = getenv("PLUGIN_DIR");
	if (!pd)
		skip();
	char dir[512], path[600], target[600];
	snprintf(dir, sizeof(dir), "%s/entries", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(target, sizeof(target), "%s/git.so", pd);
	snprintf(path, sizeof(path), "%s/git.so", dir);
	assert_int_equal(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/fifo.so", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/dir.so", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dangling.so", dir);
	assert_int_equal(symlink("/nonexistent/x.so", path), 0);

	struct strv dirs = {0};
	struct catalog plugins = {0};
	assert_int_equal(strv_push(&dirs, dir), 0);
	assert_int_equal(loader_discover(&dirs, NULL, &plugins), 0);
	const struct found_plugin *git = catalog_find(&plugins, "git");
	assert_non_null(git);
	assert_non_null(git->handle);
	assert_null(catalog_find(&plugins, "fifo"));
	assert_null(catalog_find(&plugins, "dir"));
	assert_null(catalog_find(&plugins, "dangling"));
	catalog_free(&plugins);
	strv_clear(&dirs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),   cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_errors), cmocka_unit_test(test_precedence),
	    cmocka_unit_test(test_cli),    cmocka_unit_test(test_discover_entries),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
