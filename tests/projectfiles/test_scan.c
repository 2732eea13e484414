/* SPDX-License-Identifier: MIT */
/* Unit tests of plugins/projectfiles/scan.c on temporary trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ci_lookup.h"
#include "scan.h"
#include "util.h"

#include <errno.h>

static char root[256];

static void sh(const char *cmd)
{
	char full[1024];
	snprintf(full, sizeof(full), "cd '%s' && (%s)", root, cmd);
	if (system(full) != 0)
		fail_msg("command failed: %s", cmd);
}

static const char *at(const char *rel)
{
	static char bufs[4][512];
	static int i;
	char *b = bufs[i++ % 4];
	snprintf(b, 512, "%s/%s", root, rel);
	return b;
}

static const struct pf_action *find(const struct pf_result *r, const char *rel)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].host, at(rel)) == 0)
			return &r->v[i];
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/asb-pf-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static int scan_list(const struct pf_entry *list, const char *const *writable, int audit,
                     struct pf_result *r)
{
	struct pf_root roots[] = {{at("ws"), at("ws"), 1}, {at("rw"), at("rw"), 0}};
	struct pf_options o = {.roots = roots,
	                       .n_roots = 2,
	                       .list = list,
	                       .writable = writable,
	                       .max_depth = 8,
	                       .max_dirs = 1000,
	                       .audit = audit};
	return pf_scan(&o, r);
}

static int scan(const char *const *writable, int audit, struct pf_result *r)
{
	return scan_list(pf_default_list, writable, audit, r);
}

static void test_present_and_missing(void **state)
{
	(void)state;
	sh("mkdir -p ws/a/b/.vscode ws/node_modules/x/.vscode rw/.idea ws/.claude && "
	   "echo x > ws/.envrc && echo x > ws/a/.tool-versions");
	struct pf_result r;
	assert_int_equal(scan(NULL, 0, &r), 0);
	/* Present: read-only, wherever it is; its parents pinned. */
	assert_int_equal(find(&r, "ws/a/b/.vscode")->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/a")->op, PF_OP_PIN);
	assert_int_equal(find(&r, "ws/a/b")->op, PF_OP_PIN);
	assert_int_equal(find(&r, "ws/a/.tool-versions")->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/.envrc")->op, PF_OP_RO);
	assert_int_equal(find(&r, "rw/.idea")->op, PF_OP_RO);
	assert_null(find(&r, "ws/node_modules/x/.vscode")); /* dependencies are not walked */
	/* Missing at the workspace root: masked (tools that ask first: not). */
	assert_int_equal(find(&r, "ws/.mcp.json")->op, PF_OP_MASK_FILE);
	assert_true(find(&r, "ws/.mcp.json")->placeholder);
	assert_int_equal(find(&r, "ws/.vscode")->op, PF_OP_MASK_DIR);
	assert_null(find(&r, "ws/.mise.toml"));
	/* .claude exists: it is pinned, its entries masked one by one. */
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_PIN);
	assert_int_equal(find(&r, "ws/.claude/settings.json")->op, PF_OP_MASK_FILE);
	assert_int_equal(find(&r, "ws/.claude/commands")->op, PF_OP_MASK_DIR);
	/* Not masked below the root, nor in an rw dir. */
	assert_null(find(&r, "ws/a/.mcp.json"));
	assert_null(find(&r, "rw/.mcp.json"));
	/* Parents before children. */
	for (size_t i = 1; i < r.n; i++)
		assert_true(path_depth(r.v[i - 1].dest) <= path_depth(r.v[i].dest));
	pf_result_free(&r);
}

/* More directories than the walk's first queue holds (it grows under it). */
static void test_wide_tree(void **state)
{
	(void)state;
	sh("mkdir -p rw && for i in $(seq 300); do mkdir -p ws/d$i/e; done && mkdir -p "
	   "ws/d299/e/.vscode");
	struct pf_result r;
	assert_int_equal(scan(NULL, 0, &r), 0);
	assert_int_equal(find(&r, "ws/d299/e/.vscode")->op, PF_OP_RO);
	assert_true(r.dirs_scanned >= 601);
	pf_result_free(&r);
}

static void test_missing_parent(void **state)
{
	(void)state;
	sh("mkdir -p ws rw");
	struct pf_result r;
	assert_int_equal(scan(NULL, 0, &r), 0);
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_MASK_DIR); /* one mask for all */
	assert_null(find(&r, "ws/.claude/settings.json"));
	pf_result_free(&r);
	const char *const writable[] = {".claude/commands", NULL};
	assert_int_equal(scan(writable, 0, &r), 0);
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_MKDIR_PIN);
	assert_int_equal(find(&r, "ws/.claude/settings.json")->op, PF_OP_MASK_FILE);
	pf_result_free(&r);
}

static void test_symlink_refused(void **state)
{
	(void)state;
	sh("mkdir -p ws/sub rw && ln -s /etc/passwd ws/sub/.envrc");
	struct pf_result r;
	assert_int_equal(scan(NULL, 0, &r), -ELOOP);
	assert_string_equal(r.error_path, at("ws/sub/.envrc"));
	pf_result_free(&r);
	/* After exit the same link is reported, not refused. */
	assert_int_equal(scan(NULL, 1, &r), 0);
	assert_int_equal(find(&r, "ws/sub/.envrc")->op, PF_OP_RO);
	assert_null(find(&r, "ws/.mcp.json"));
	pf_result_free(&r);
}

/* A protected name in another spelling. On a case-insensitive volume
 * (ci_lookup.h: macOS's default one, casefold directories) it is the entry
 * its tool opens: protected as spelled, and a missing one at the root is
 * not masked beside it. Where spellings differ it is another name: walked
 * like any directory. */
static void test_case_insensitive_volume(void **state)
{
	(void)state;
	sh("mkdir -p ws/a/.VSCode ws/b/.Claude ws/d/.VSCode rw && "
	   "echo x > ws/a/.VSCode/tasks.json && echo x > ws/a/.ENVRC && "
	   "echo x > ws/b/.Claude/Settings.json && echo x > ws/.Mcp.json && "
	   "echo x > ws/d/.VSCode/.envrc && mkdir -p ws/e && echo x > ws/e/Mise.toml && "
	   "mkdir -p \"ws/c/$(printf '.v\\305\\277code')\" && "
	   "mkdir -p \"ws/f/$(printf '.con\\357\\254\\201g')\" && "
	   "mkdir -p \"ws/f/$(printf '.con\\357\\254\\201g')/mise\"");
	static const char long_s[] = "ws/c/.v\xc5\xbf"
	                             "code";
	static const char fi_config[] = "ws/f/.con\xef\xac\x81g/mise";
	struct pf_result r;
	ci_lookup_root = root;
	int ret = scan(NULL, 0, &r);
	ci_lookup_root = NULL;
	assert_int_equal(ret, 0);
	assert_int_equal(find(&r, "ws/a/.VSCode")->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/a")->op, PF_OP_PIN);
	assert_int_equal(find(&r, "ws/a/.ENVRC")->op, PF_OP_RO);
	assert_int_equal(find(&r, long_s)->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/e/Mise.toml")->op, PF_OP_RO); /* a first byte folded too */
	assert_int_equal(find(&r, fi_config)->op, PF_OP_RO);        /* U+FB01 for fi */
	assert_int_equal(find(&r, "ws/b/.Claude/settings.json")->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/b/.Claude")->op, PF_OP_PIN);
	assert_int_equal(find(&r, "ws/.Mcp.json")->op, PF_OP_RO);
	assert_null(find(&r, "ws/.mcp.json"));
	assert_int_equal(find(&r, "ws/d/.VSCode")->op, PF_OP_RO); /* whole */
	assert_null(find(&r, "ws/d/.VSCode/.envrc"));
	pf_result_free(&r);
	/* After exit, the same. */
	ci_lookup_root = root;
	ret = scan(NULL, 1, &r);
	ci_lookup_root = NULL;
	assert_int_equal(ret, 0);
	assert_int_equal(find(&r, "ws/a/.VSCode")->op, PF_OP_RO);
	pf_result_free(&r);

	assert_int_equal(scan(NULL, 0, &r), 0);
	assert_null(find(&r, "ws/a/.VSCode"));
	assert_null(find(&r, "ws/a/.ENVRC"));
	assert_null(find(&r, long_s));
	assert_null(find(&r, "ws/e/Mise.toml"));
	assert_null(find(&r, fi_config));
	assert_null(find(&r, "ws/b/.Claude/settings.json"));
	assert_null(find(&r, "ws/.Mcp.json"));
	assert_int_equal(find(&r, "ws/.mcp.json")->op, PF_OP_MASK_FILE);
	assert_int_equal(find(&r, "ws/d/.VSCode")->op, PF_OP_PIN); /* walked */
	assert_int_equal(find(&r, "ws/d/.VSCode/.envrc")->op, PF_OP_RO);
	pf_result_free(&r);
}

/* The default list with one extra entry, a directory protected whole
 * (malloc'd). */
static struct pf_entry *list_with_dir(const char *extra)
{
	size_t n = 0;
	while (pf_default_list[n].path)
		n++;
	struct pf_entry *list = calloc(n + 2, sizeof(*list));
	assert_non_null(list);
	memcpy(list, pf_default_list, n * sizeof(*list));
	list[n] = (struct pf_entry){extra, PF_DIR, PF_MASK, "test"};
	return list;
}

/* An extra ".claude/" protects the directory whole: read-only, not only
 * bound over itself to hold the default list's files in it. */
static void test_extra_dir_over_listed_files(void **state)
{
	(void)state;
	sh("mkdir -p ws/.claude rw && echo x > ws/.claude/settings.json");
	struct pf_entry *list = list_with_dir(".claude");
	struct pf_result r;
	assert_int_equal(scan_list(list, NULL, 0, &r), 0);
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/.claude/settings.json")->op, PF_OP_RO);
	pf_result_free(&r);
	/* Without it, bound over itself. */
	assert_int_equal(scan(NULL, 0, &r), 0);
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_PIN);
	pf_result_free(&r);
	free(list);
}

/* Two of the list's names that fold alike (an extra ".Claude/" beside the
 * default ".claude/..."), one listed: on a case-insensitive volume both are
 * that entry, protected as the listing spells it, and neither is masked
 * as missing beside it. */
static void test_list_names_folding_alike(void **state)
{
	(void)state;
	sh("mkdir -p ws/.claude rw && echo x > ws/.claude/settings.json");
	struct pf_entry *list = list_with_dir(".Claude");
	struct pf_result r;
	ci_lookup_root = root;
	int ret = scan_list(list, NULL, 0, &r);
	ci_lookup_root = NULL;
	assert_int_equal(ret, 0);
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_RO);
	assert_int_equal(find(&r, "ws/.claude/settings.json")->op, PF_OP_RO);
	assert_null(find(&r, "ws/.Claude"));
	pf_result_free(&r);
	/* Where spellings differ, .Claude is another name: missing, masked. */
	assert_int_equal(scan_list(list, NULL, 0, &r), 0);
	assert_int_equal(find(&r, "ws/.Claude")->op, PF_OP_MASK_DIR);
	assert_int_equal(find(&r, "ws/.claude")->op, PF_OP_PIN);
	pf_result_free(&r);
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_present_and_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wide_tree, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_parent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_case_insensitive_volume, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_extra_dir_over_listed_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_names_folding_alike, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
