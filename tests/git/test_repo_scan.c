/* SPDX-License-Identifier: MIT */
/* Unit tests of plugins/git/repo_scan.c on repositories made with real git. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "dirlist.h"
#include "ci_lookup.h"
#include "repo_scan.h"

static char root[256];

#define GIT "git -c init.defaultBranch=main -c user.name=t -c user.email=t@t "

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	char full[4500];
	snprintf(full, sizeof(full), "cd '%s' && (%s) >/dev/null 2>&1", root, cmd);
	int rc = system(full);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
}

static char *at(const char *rel)
{
	static char bufs[8][512];
	static int i;
	char *b = bufs[i++ % 8];
	snprintf(b, 512, "%s%s%s", root, rel[0] ? "/" : "", rel);
	return b;
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "%s/asb-scan-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static const struct rs_limits big = {.max_repos = 100, .max_depth = 8, .max_dirs = 10000};

static int scan(const char *ws_rel, struct rs_result *r)
{
	struct rs_options o = {.workspace = at(ws_rel), .home = "/nonexistent-home", .limits = big};
	return rs_scan(&o, r);
}

static long find(const struct rs_result *r, const char *rel)
{
	const char *p = at(rel);
	for (size_t i = 0; i < r->n_mounts; i++)
		if (strcmp(r->mounts[i].path, p) == 0)
			return (long)i;
	return -1;
}

static void expect(const struct rs_result *r, const char *rel, int op, int placeholder)
{
	long i = find(r, rel);
	if (i < 0)
		fail_msg("no mount for %s", rel);
	if (r->mounts[i].op != op || r->mounts[i].placeholder != placeholder)
		fail_msg("%s: op %s placeholder %d, want %s %d", rel, rs_op_name(r->mounts[i].op),
		         r->mounts[i].placeholder, rs_op_name(op), placeholder);
}

static void expect_none(const struct rs_result *r, const char *rel)
{
	if (find(r, rel) >= 0)
		fail_msg("unexpected mount for %s", rel);
}

/* No path below `rel` is mounted (it stays hidden or untouched). */
static void expect_none_under(const struct rs_result *r, const char *rel)
{
	const char *p = at(rel);
	size_t n = strlen(p);
	for (size_t i = 0; i < r->n_mounts; i++)
		if (strncmp(r->mounts[i].path, p, n) == 0 &&
		    (r->mounts[i].path[n] == '\0' || r->mounts[i].path[n] == '/'))
			fail_msg("unexpected mount %s under %s", r->mounts[i].path, rel);
}

/* Mounts are applied in order: every parent precedes its children. */
static void expect_parents_first(const struct rs_result *r)
{
	for (size_t i = 0; i < r->n_mounts; i++)
		for (size_t j = i + 1; j < r->n_mounts; j++) {
			const char *a = r->mounts[i].path, *b = r->mounts[j].path;
			size_t n = strlen(b);
			if (strncmp(a, b, n) == 0 && a[n] == '/')
				fail_msg("%s is mounted after its child %s", b, a);
		}
}

static void expect_gitdir_protected(const struct rs_result *r, const char *g)
{
	char p[512];
	expect(r, g, RS_BIND_RW, 0);
#define SUB(x) (snprintf(p, sizeof(p), "%s/%s", g, x), p)
	expect(r, SUB("hooks"), RS_BIND_RO, 0);
	expect(r, SUB("config"), RS_BIND_RO, 0);
	expect(r, SUB("config.worktree"), RS_MASK_FILE, 1);
	expect(r, SUB("info"), RS_BIND_RW, 0);
	expect(r, SUB("info/attributes"), RS_MASK_FILE, 1);
	expect(r, SUB("objects"), RS_BIND_RW, 0);
	expect(r, SUB("objects/info"), RS_BIND_RW, 0);
	expect(r, SUB("objects/info/alternates"), RS_MASK_FILE, 1);
#undef SUB
}

static void test_plain_repo(void **state)
{
	sh(GIT "init -q ws");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), 0);
	expect_gitdir_protected(&r, "ws/.git");
	expect_none(&r, "ws"); /* the core binds the workspace */
	assert_null(r.tree_root);
	assert_int_equal(r.n_repos, 1);
	assert_int_equal(r.repos[0].kind, RS_REPO_DIR);
	expect_parents_first(&r);
	rs_result_free(&r);
}

static void test_missing_paths(void **state)
{
	sh(GIT "init -q ws && rm -rf ws/.git/hooks ws/.git/info && "
	       "touch ws/.git/config.worktree");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), 0);
	expect(&r, "ws/.git/hooks", RS_MASK_DIR, 1);
	expect(&r, "ws/.git/info", RS_TMPFS, 1);
	expect(&r, "ws/.git/info/attributes", RS_MASK_FILE, 0); /* inside the tmpfs */
	expect(&r, "ws/.git/config.worktree", RS_BIND_RO, 0);
	expect_parents_first(&r);
	rs_result_free(&r);
}

/* Under extensions.worktreeConfig git reads config.worktree: masked by a file
 * as everywhere. */
static void test_worktree_config_extension(void **state)
{
	sh(GIT "init -q ws && " GIT "-C ws config extensions.worktreeConfig true");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), 0);
	expect(&r, "ws/.git/config.worktree", RS_MASK_FILE, 1);
	expect(&r, "ws/.git/info/attributes", RS_MASK_FILE, 1);
	rs_result_free(&r);
}

/* A directory with no subdirectory is not read (plain_leaf): one whose .git
 * is a pointer file must still be found, next to many plain ones. */
static void test_leaf_with_pointer_file(void **state)
{
	sh("mkdir -p ws/a && for i in 1 2 3 4 5 6 7 8; do mkdir ws/a/d$i && touch ws/a/d$i/f; "
	   "done && mkdir store && " GIT "init -q --separate-git-dir store/x.git ws/a/leaf");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), 0);
	assert_int_equal(r.n_repos, 1);
	assert_string_equal(r.repos[0].worktree, at("ws/a/leaf"));
	assert_int_equal(r.repos[0].kind, RS_REPO_SUBMODULE);
	expect(&r, "ws/a/leaf/.git", RS_BIND_RO, 0);
	expect(&r, "ws/a/leaf", RS_BIND_RW, 0); /* pinned */
	rs_result_free(&r);
}

static void test_nested_two_levels(void **state)
{
	sh(GIT "init -q ws && mkdir -p ws/a/b && " GIT "init -q ws/a/b/n && mkdir -p ws/c/d");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), 0);
	expect_gitdir_protected(&r, "ws/.git");
	expect_gitdir_protected(&r, "ws/a/b/n/.git");
	/* pinned so that renaming a parent cannot carry the masks away */
	expect(&r, "ws/a", RS_BIND_RW, 0);
	expect(&r, "ws/a/b", RS_BIND_RW, 0);
	expect(&r, "ws/a/b/n", RS_BIND_RW, 0);
	expect_none(&r, "ws/c");
	assert_int_equal(r.n_repos, 2);
	expect_parents_first(&r);
	rs_result_free(&r);
}

static void test_subdirectory(void **state)
{
	sh(GIT "init -q repo && mkdir -p repo/sub/dir repo/rw && touch repo/f");
	struct rs_result r;
	const char *rw[] = {at("repo/rw"), "/elsewhere", NULL};
	struct rs_options o = {.workspace = at("repo/sub/dir"),
	                       .home = "/nonexistent-home",
	                       .rw_paths = rw,
	                       .limits = big};
	assert_int_equal(rs_scan(&o, &r), 0);
	assert_string_equal(r.tree_root, at("repo"));
	expect(&r, "repo", RS_BIND_RO, 0);
	expect(&r, "repo/sub/dir", RS_BIND_RW, 0);
	expect(&r, "repo/rw", RS_BIND_RW, 0);
	expect_none(&r, "repo/sub");
	expect_gitdir_protected(&r, "repo/.git");
	assert_true(find(&r, "repo") < find(&r, "repo/sub/dir"));
	expect_parents_first(&r);
	rs_result_free(&r);
}

static void test_subdirectory_of_home_not_exposed(void **state)
{
	sh(GIT "init -q h && mkdir -p h/user/proj");
	struct rs_result r;
	struct rs_options o = {.workspace = at("h/user/proj"), .home = at("h/user"), .limits = big};
	assert_int_equal(rs_scan(&o, &r), 0);
	assert_null(r.tree_root);
	assert_string_equal(r.skipped_root, at("h"));
	assert_int_equal(r.n_mounts, 0);
	rs_result_free(&r);
}

static void test_worktree(void **state)
{
	sh(GIT "init -q main && " GIT "-C main commit -q --allow-empty -m i && " GIT
	       "-C main worktree add -q ../wt && " GIT "-C main worktree add -q ../wt2");
	struct rs_result r;
	assert_int_equal(scan("wt", &r), 0);
	expect(&r, "wt/.git", RS_BIND_RO, 0);
	expect_gitdir_protected(&r, "main/.git");
	expect(&r, "main/.git/worktrees", RS_BIND_RW, 0);
	expect(&r, "main/.git/worktrees/wt", RS_BIND_RW, 0);
	expect(&r, "main/.git/worktrees/wt/gitdir", RS_BIND_RO, 0);
	expect(&r, "main/.git/worktrees/wt/commondir", RS_BIND_RO, 0);
	expect(&r, "main/.git/worktrees/wt/config.worktree", RS_MASK_FILE, 1);
	expect(&r, "main/.git/worktrees/wt2/gitdir", RS_BIND_RO, 0);
	expect_none(&r, "main");      /* the main checkout is not exposed */
	expect_none_under(&r, "wt2"); /* nor a sibling worktree */
	assert_null(r.tree_root);
	assert_int_equal(r.repos[0].kind, RS_REPO_WORKTREE);
	expect_parents_first(&r);
	rs_result_free(&r);
}

static void test_submodule(void **state)
{
	sh(GIT "init -q lib && " GIT "-C lib commit -q --allow-empty -m l && " GIT
	       "init -q super && " GIT "-C super -c protocol.file.allow=always submodule add -q "
	       "../lib lib && " GIT "-C super commit -q -m s && " GIT "init -q other && " GIT
	       "-C other commit -q --allow-empty -m o && " GIT
	       "-C super -c protocol.file.allow=always submodule add -q ../other other");
	struct rs_result r;
	/* the submodule as workspace: only its own git dir */
	assert_int_equal(scan("super/lib", &r), 0);
	expect(&r, "super/lib/.git", RS_BIND_RO, 0);
	expect_gitdir_protected(&r, "super/.git/modules/lib");
	expect_none(&r, "super");
	expect_none(&r, "super/.git");
	expect_none_under(&r, "super/.git/modules/other");
	assert_null(r.tree_root);
	assert_int_equal(r.repos[0].kind, RS_REPO_SUBMODULE);
	expect_parents_first(&r);
	rs_result_free(&r);

	/* the superproject as workspace: every submodule */
	assert_int_equal(scan("super", &r), 0);
	expect_gitdir_protected(&r, "super/.git");
	expect(&r, "super/.git/modules", RS_BIND_RW, 0);
	expect_gitdir_protected(&r, "super/.git/modules/lib");
	expect_gitdir_protected(&r, "super/.git/modules/other");
	expect(&r, "super/lib/.git", RS_BIND_RO, 0);
	expect(&r, "super/other/.git", RS_BIND_RO, 0);
	expect(&r, "super/lib", RS_BIND_RW, 0);
	expect_parents_first(&r);
	rs_result_free(&r);
}

static void test_bare_repo_in_workspace(void **state)
{
	sh("mkdir ws && " GIT "init -q --bare ws/remote.git");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), 0);
	expect_gitdir_protected(&r, "ws/remote.git");
	assert_int_equal(r.n_repos, 1);
	assert_int_equal(r.repos[0].kind, RS_REPO_BARE);
	expect_none(&r, "ws/remote.git/refs");
	rs_result_free(&r);
}

static void test_symlinked_hooks_refused(void **state)
{
	sh(GIT "init -q ws && rm -rf ws/.git/hooks && mkdir ws/h && ln -s ../h ws/.git/hooks");
	struct rs_result r;
	assert_int_equal(scan("ws", &r), -ELOOP);
	assert_string_equal(r.error_path, at("ws/.git/hooks"));
	rs_result_free(&r);
}

static void test_limits(void **state)
{
	sh("mkdir ws && for i in 1 2 3 4; do " GIT
	   "init -q ws/r$i; done && mkdir -p ws/x/y/z && " GIT "init -q ws/x/y/z/deep");
	struct rs_result r;
	struct rs_options o = {.workspace = at("ws"),
	                       .limits = {.max_repos = 2, .max_depth = 8, .max_dirs = 1000}};
	assert_int_equal(rs_scan(&o, &r), 0);
	assert_true(r.limits_hit & RS_LIMIT_REPOS);
	assert_int_equal(r.n_gitdirs, 2);
	rs_result_free(&r);

	o.limits = (struct rs_limits){.max_repos = 100, .max_depth = 2, .max_dirs = 1000};
	assert_int_equal(rs_scan(&o, &r), 0);
	assert_true(r.limits_hit & RS_LIMIT_DEPTH);
	assert_int_equal(r.n_repos, 4); /* ws/x/y/z/deep is at depth 4 */
	rs_result_free(&r);
}

static void test_heavy_dirs_last(void **state)
{
	sh("mkdir -p ws/node_modules/a/b/c/d ws/src && " GIT "init -q ws/src/lib && " GIT
	   "init -q ws/node_modules/a/b/dep");
	struct rs_result r;
	struct rs_options o = {.workspace = at("ws"),
	                       .limits = {.max_repos = 100, .max_depth = 8, .max_dirs = 4}};
	/* ws, node_modules?, src, src/lib: the budget reaches src/lib first */
	assert_int_equal(rs_scan(&o, &r), 0);
	assert_true(r.limits_hit & RS_LIMIT_DIRS);
	assert_int_equal(r.n_repos, 1);
	assert_string_equal(r.repos[0].worktree, at("ws/src/lib"));
	rs_result_free(&r);
}

/* With kept listings (a cache, the tree settled), a scan opens no
 * directory that is unchanged, and finds what a scan that read them all
 * found; a repository made in a leaf since is found. */
static void test_kept_listings(void **state)
{
	sh(GIT "init -q kw && mkdir -p kw/a/b kw/c && " GIT "init -q kw/a/b/n && "
	       "for i in 1 2 3; do mkdir kw/c/l$i && touch kw/c/l$i/f; done");
	sleep(DIRLIST_SETTLED_S + 1);
	struct dirlist_cache *c = dirlist_cache_new();
	char *ws = strdup(at("kw")); /* at()'s buffers are reused */
	assert_non_null(ws);
	struct rs_options o = {
	    .workspace = ws, .home = "/nonexistent-home", .limits = big, .dirs = c};
	struct rs_result first, again;
	assert_int_equal(rs_scan(&o, &first), 0);
	size_t reused0, read0, reused, read;
	dirlist_counts(c, &reused0, &read0);
	assert_int_equal(rs_scan(&o, &again), 0);
	dirlist_counts(c, &reused, &read);
	assert_int_equal(read, read0); /* nothing read again */
	assert_true(reused > reused0);
	assert_int_equal(first.n_repos, 2);
	assert_int_equal(again.n_repos, first.n_repos);
	assert_int_equal(again.n_mounts, first.n_mounts);
	for (size_t i = 0; i < first.n_mounts; i++) {
		assert_string_equal(again.mounts[i].path, first.mounts[i].path);
		assert_int_equal(again.mounts[i].op, first.mounts[i].op);
	}
	expect_gitdir_protected(&again, "kw/a/b/n/.git");
	rs_result_free(&again);
	/* A repository made since in a leaf directory (a .git file). */
	sh("mkdir store && " GIT "init -q --separate-git-dir store/y.git kw/c/l2");
	assert_int_equal(rs_scan(&o, &again), 0);
	assert_int_equal(again.n_repos, 3);
	expect(&again, "kw/c/l2/.git", RS_BIND_RO, 0);
	rs_result_free(&again);
	rs_result_free(&first);
	dirlist_cache_free(c);
	free(ws);
}

static void test_audit_lists_new_gitdirs(void **state)
{
	sh(GIT "init -q ws");
	struct rs_result before, after;
	assert_int_equal(scan("ws", &before), 0);
	sh(GIT "init -q ws/planted");
	struct rs_options o = {.workspace = at("ws"), .limits = big, .audit = 1};
	assert_int_equal(rs_scan(&o, &after), 0);
	assert_int_equal(after.n_mounts, 0);
	assert_true(rs_find_gitdir(&after, at("ws/planted/.git")) >= 0);
	assert_true(rs_find_gitdir(&before, at("ws/planted/.git")) < 0);
	rs_result_free(&before);
	rs_result_free(&after);
}

/* A repository whose git dir is spelled ".GIT": on a case-insensitive
 * volume (ci_lookup.h) git opens it as .git and runs its hooks, so it is
 * protected as that repository's, found before the sandbox and after it.
 * The same for a bare repository's OBJECTS. */
static void test_case_insensitive_volume(void **state)
{
	sh(GIT "init -q ws && mkdir -p ws/a && " GIT
	       "init -q ws/a/n && mv ws/a/n/.git ws/a/n/.GIT && " GIT
	       "init -q --bare ws/b.git && mv ws/b.git/objects ws/b.git/OBJECTS && "
	       "mkdir -p ws/c && " GIT "init -q ws/c/m && "
	       "mv ws/c/m/.git \"ws/c/m/$(printf '.git\\342\\200\\213')\"");
	struct rs_result r;
	ci_lookup_root = root;
	int ret = scan("ws", &r);
	ci_lookup_root = NULL;
	assert_int_equal(ret, 0);
	assert_int_equal(r.n_repos, 4);
	expect_gitdir_protected(&r, "ws/.git");
	expect_gitdir_protected(&r, "ws/a/n/.git");
	/* .git and U+200B, which older Linux kernels' casefold leaves out. */
	expect_gitdir_protected(&r, "ws/c/m/.git");
	assert_true(rs_find_gitdir(&r, at("ws/b.git")) >= 0);
	expect(&r, "ws/b.git/hooks", RS_BIND_RO, 0);
	rs_result_free(&r);
	struct rs_options o = {.workspace = at("ws"), .limits = big, .audit = 1};
	ci_lookup_root = root;
	ret = rs_scan(&o, &r);
	ci_lookup_root = NULL;
	assert_int_equal(ret, 0);
	assert_true(rs_find_gitdir(&r, at("ws/a/n/.git")) >= 0);
	rs_result_free(&r);

	/* Here .GIT (and .git with U+200B) is a git dir like any other in the
	 * working area (a bare repository's shape); OBJECTS makes none. */
	assert_int_equal(scan("ws", &r), 0);
	assert_int_equal(r.n_repos, 3);
	assert_true(rs_find_gitdir(&r, at("ws/c/m/.git\xe2\x80\x8b")) >= 0);
	assert_true(rs_find_gitdir(&r, at("ws/c/m/.git")) < 0);
	assert_true(rs_find_gitdir(&r, at("ws/a/n/.GIT")) >= 0);
	assert_true(rs_find_gitdir(&r, at("ws/a/n/.git")) < 0);
	expect_none_under(&r, "ws/b.git");
	rs_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_plain_repo, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_worktree_config_extension, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_leaf_with_pointer_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_paths, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nested_two_levels, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_subdirectory, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_subdirectory_of_home_not_exposed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_worktree, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_submodule, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bare_repo_in_workspace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_symlinked_hooks_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_heavy_dirs_last, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kept_listings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_lists_new_gitdirs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_case_insensitive_volume, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
