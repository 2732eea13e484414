/* SPDX-License-Identifier: MIT */
/* The plan (intent), plugin discovery and its refusals, the bwrap backend's
 * rendering through the host table, session pruning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "launch.h"
#include "layout.h"
#include "loader.h"
#include "log.h"
#include "plan.h"
#include "session.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_tmp.h"

static void test_env(void **state)
{
	(void)state;
	struct plan plan = {0};
	assert_int_equal(plan_setenv(&plan, "A", "1"), 0);
	assert_int_equal(plan_setenv(&plan, "B", "2"), 0);
	assert_int_equal(plan_setenv(&plan, "A", "3"), 0);
	assert_int_equal(plan.n_env, 2);
	assert_string_equal(plan_getenv(&plan, "A"), "3");
	assert_int_equal(plan_unsetenv(&plan, "A"), 0);
	assert_null(plan_getenv(&plan, "A"));
	assert_string_equal(plan.env[0].key, "B");
	assert_int_equal(plan_setenv(&plan, "X=Y", "1"), -EINVAL);
	assert_int_equal(plan_setenv(&plan, "", "1"), -EINVAL);
	/* A final plan refuses every change. */
	plan_set_final(&plan);
	assert_int_equal(plan_setenv(&plan, "C", "1"), -EBUSY);
	assert_int_equal(plan_unsetenv(&plan, "B"), -EBUSY);
	assert_int_equal(plan_ephemeral(&plan, "/x", 0700, "t"), -EBUSY);
	assert_int_equal(plan_add_exec(&plan, "git", "/usr/bin/git", "t"), -EBUSY);
	plan_free(&plan);
}

/* Final plans are parent first, stable within a depth, whoever added what. */
static void test_parent_first(void **state)
{
	(void)state;
	struct plan plan = {0};
	assert_int_equal(plan_ephemeral(&plan, "/a/b/c", 0700, "first"), 0);
	assert_int_equal(plan_ephemeral(&plan, "/a", 0700, "pin"), 0);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_MASK, ASB_ENTRY_F_DIR, 0, NULL, "/a/b/c", NULL,
	                            0, "second"),
	                 0);
	assert_int_equal(plan_ephemeral(&plan, "/x", 0700, "x"), 0);
	assert_int_equal(plan_ephemeral(&plan, "/a/b", 0700, "mid"), 0);
	plan_set_final(&plan);
	const char *dests[] = {"/a", "/x", "/a/b", "/a/b/c", "/a/b/c"};
	const char *origins[] = {"pin", "x", "mid", "first", "second"};
	assert_int_equal(plan.n_entries, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(plan.entries[i].dest, dests[i]);
		assert_string_equal(plan.entries[i].origin, origins[i]);
	}
	plan_free(&plan);
}

/* Hundreds of entries (a git workspace): parents first, and within a depth
 * the order they were added in. */
static void test_parent_first_many(void **state)
{
	(void)state;
	struct plan plan = {0};
	unsigned seed = 12345;
	for (int i = 0; i < 600; i++) {
		seed = seed * 1103515245u + 12345u;
		int depth = 1 + (int)((seed >> 16) % 9);
		char dest[128] = "", origin[16];
		for (int d = 0; d < depth; d++)
			snprintf(dest + strlen(dest), sizeof(dest) - strlen(dest), "/d%d",
			         (i + d) % 7);
		snprintf(origin, sizeof(origin), "%d", i);
		assert_int_equal(plan_ephemeral(&plan, dest, 0700, origin), 0);
	}
	plan_set_final(&plan);
	assert_int_equal(plan.n_entries, 600);
	for (size_t i = 1; i < plan.n_entries; i++) {
		size_t a = path_depth(plan.entries[i - 1].dest),
		       b = path_depth(plan.entries[i].dest);
		assert_true(a <= b);
		if (a == b)
			assert_true(atoi(plan.entries[i - 1].origin) <
			            atoi(plan.entries[i].origin));
	}
	plan_free(&plan);
}

static void test_execs(void **state)
{
	(void)state;
	struct plan plan = {0};
	assert_int_equal(plan_add_exec(&plan, "git", "/usr/bin/git", "t"), 0);
	assert_int_equal(plan_add_exec(&plan, "git", "/opt/other/git", "t"), 0); /* first wins */
	assert_int_equal(plan_add_exec(&plan, "a/b", "/usr/bin/x", "t"), -EINVAL);
	assert_int_equal(plan_add_exec(&plan, "..", "/usr/bin/x", "t"), -EINVAL);
	assert_int_equal(plan_add_exec(&plan, "rel", "usr/bin/x", "t"), -EINVAL);
	assert_int_equal(plan.n_execs, 1);
	assert_string_equal(plan_find_exec(&plan, "git")->target, "/usr/bin/git");
	plan_free(&plan);
}

static void test_paths(void **state)
{
	(void)state;
	struct plan plan = {0};
	char dir[512], link[512];
	snprintf(dir, sizeof(dir), "%s/real", tmp);
	snprintf(link, sizeof(link), "%s/link", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(symlink(dir, link), 0);
	/* A symlink is resolved once; what is exposed is the checked target,
	 * pinned, at the path that was declared. */
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, link, NULL, 0, "t"), 0);
	assert_int_equal(plan.n_entries, 1);
	const struct plan_entry *e = &plan.entries[0];
	assert_string_equal(e->host_path, dir);
	assert_string_equal(e->dest, link);
	assert_false(e->remapped);
	assert_true(e->fd >= 0);
	assert_int_equal(e->flags & (ASB_ENTRY_F_PINNED | ASB_ENTRY_F_DIR),
	                 ASB_ENTRY_F_PINNED | ASB_ENTRY_F_DIR);
	assert_int_equal(fcntl(e->fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(
	    plan_path(&plan, ASB_ENTRY_WRITE, dir, "/elsewhere", ASB_ENTRY_F_EXEC, "t"), 0);
	assert_true(plan.entries[1].remapped);
	assert_true(plan.entries[1].flags & ASB_ENTRY_F_EXEC);
	assert_int_equal(
	    plan_path(&plan, ASB_ENTRY_WRITE, "/nonexistent-asb", NULL, ASB_ENTRY_F_TRY, "t"), 0);
	assert_int_equal(plan.n_entries, 2);
	assert_int_equal(plan_path(&plan, ASB_ENTRY_WRITE, "/nonexistent-asb", NULL, 0, "t"),
	                 -ENOENT);
	assert_int_equal(plan_path(&plan, ASB_ENTRY_EPHEMERAL, dir, NULL, 0, "t"), -EINVAL);
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, "relative", NULL, 0, "t"), -EINVAL);
	assert_int_equal(plan_file(&plan, "/etc/x", "hello", 5, 0, "t"), 0);
	char buf[8] = {0};
	assert_int_equal(pread(plan.entries[2].fd, buf, sizeof(buf), 0), 5);
	assert_string_equal(buf, "hello");
	assert_int_equal(plan.entries[2].mode, 0444);
	/* A masked file gets an empty fd; a masked directory none. */
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_MASK, 0, 0, NULL, "/m", NULL, 0, "t"), 0);
	assert_true(plan.entries[3].fd >= 0);
	assert_int_equal(
	    plan_entry(&plan, ASB_ENTRY_MASK, ASB_ENTRY_F_DIR, 0, NULL, "/d", NULL, 0, "t"), 0);
	assert_int_equal(plan.entries[4].fd, -1);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_SYMLINK, 0, 0, NULL, "/l", NULL, 0, "t"),
	                 -EINVAL);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_FILE, 0, 0, NULL, "rel", "x", 1, "t"),
	                 -EINVAL);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_FILE, 0, 0, NULL, "/a/../b", "x", 1, "t"),
	                 -EINVAL);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_FILE, 0, 0, NULL, "/a/b/..", "x", 1, "t"),
	                 -EINVAL);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_FILE, 0, 0, NULL, "/..", "x", 1, "t"),
	                 -EINVAL);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_FILE, 0, 0, NULL, "/a/..b", "x", 1, "t"), 0);
	plan_free(&plan);
}

static int count_open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Empty FILE and MASK entries (a git workspace masks hundreds) share one
 * empty file: each entry has an fd of its own, none can write to it, and
 * plan_free leaves no fd open. */
static void test_empty_data_shared(void **state)
{
	(void)state;
	int before = count_open_fds();
	struct plan plan = {0};
	for (int i = 0; i < 3; i++) {
		char dest[32];
		snprintf(dest, sizeof(dest), "/m%d", i);
		assert_int_equal(plan_entry(&plan, ASB_ENTRY_MASK, 0, 0, NULL, dest, NULL, 0, "t"),
		                 0);
	}
	assert_int_equal(plan_file(&plan, "/empty", "", 0, 0, "t"), 0);
	assert_int_equal(plan_file(&plan, "/full", "data", 4, 0, "t"), 0);
	struct stat first, st;
	assert_int_equal(fstat(plan.entries[0].fd, &first), 0);
	assert_int_equal(first.st_size, 0);
	for (size_t i = 1; i < 4; i++) {
		assert_int_not_equal(plan.entries[i].fd, plan.entries[0].fd);
		assert_int_equal(fcntl(plan.entries[i].fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		assert_int_equal(fstat(plan.entries[i].fd, &st), 0);
		assert_true(st.st_ino == first.st_ino && st.st_dev == first.st_dev);
	}
	/* What has content is a file of its own. */
	assert_int_equal(fstat(plan.entries[4].fd, &st), 0);
	assert_true(st.st_ino != first.st_ino || st.st_dev != first.st_dev);
	assert_int_equal(st.st_size, 4);
	/* Sealed (Linux) or read-only (elsewhere): the shared file stays empty
	 * whoever holds it. */
	assert_int_equal(write(plan.entries[2].fd, "x", 1), -1);
	assert_int_equal(fstat(plan.entries[0].fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(count_open_fds(), before + 5 + 1);
	plan_free(&plan);
	assert_int_equal(count_open_fds(), before);
}

/* Started with stdin closed, the shared empty file would be fd 0, the "none
 * made yet" of a zeroed plan: it is moved above 2, and nothing is left open. */
static void test_empty_data_with_stdin_closed(void **state)
{
	(void)state;
	int saved = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	assert_true(saved >= 0);
	assert_int_equal(close(STDIN_FILENO), 0);
	struct plan plan = {0};
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_MASK, 0, 0, NULL, "/a", NULL, 0, "t"), 0);
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_MASK, 0, 0, NULL, "/b", NULL, 0, "t"), 0);
	assert_true(plan.empty_data_fd > 2);
	assert_true(plan.entries[0].fd > 2 && plan.entries[1].fd > 2);
	assert_int_equal(fcntl(STDIN_FILENO, F_GETFD), -1);
	plan_free(&plan);
	assert_int_equal(fcntl(STDIN_FILENO, F_GETFD), -1);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

/* Whatever the spelling, a pinned path is named by its canonical path and
 * pins that very object: a path already canonical and free of symlinks as
 * given (platform_pin_path reads no /proc link then), any other through
 * what the kernel resolved. */
static void test_pin_spellings(void **state)
{
	(void)state;
	char dir[512], sub[600], link[512], flink[600], spelt[700];
	snprintf(dir, sizeof(dir), "%s/pins", tmp);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(link, sizeof(link), "%s/pins-link", tmp);
	snprintf(flink, sizeof(flink), "%s/file-link", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(symlink("sub", flink), 0);
	char real_sub[PATH_MAX];
	assert_non_null(realpath(sub, real_sub));
	struct stat want;
	assert_int_equal(stat(sub, &want), 0);
	const char *const forms[] = {"/sub", "//sub", "/./sub/", "/sub/../sub", "/file-link"};
	for (size_t i = 0; i < ARRAY_SIZE(forms) * 2; i++) {
		/* Each form from the directory, then through the symlink to it. */
		snprintf(spelt, sizeof(spelt), "%s%s", i % 2 ? link : dir, forms[i / 2]);
		struct plan plan = {0};
		assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, spelt, NULL, 0, "t"), 0);
		assert_string_equal(plan.entries[0].host_path, real_sub);
		assert_string_equal(plan.entries[0].dest, spelt);
		struct stat st;
		assert_int_equal(fstat(plan.entries[0].fd, &st), 0);
		assert_true(st.st_dev == want.st_dev && st.st_ino == want.st_ino);
		plan_free(&plan);
	}
	/* Missing, before or after a symlink, or a dangling one. */
	struct plan plan = {0};
	snprintf(spelt, sizeof(spelt), "%s/missing", link);
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, spelt, NULL, 0, "t"), -ENOENT);
	snprintf(spelt, sizeof(spelt), "%s/missing/sub", dir);
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, spelt, NULL, 0, "t"), -ENOENT);
	snprintf(spelt, sizeof(spelt), "%s/dangling", dir);
	assert_int_equal(symlink("nowhere", spelt), 0);
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, spelt, NULL, 0, "t"), -ENOENT);
	assert_int_equal(plan.n_entries, 0);
}

static const char *path_only(const char *name, void *ud)
{
	(void)ud;
	return strcmp(name, "PATH") == 0 ? "/usr/bin:/bin" : NULL;
}

/* Each common tool is the host's /usr/bin (then /bin) binary of that name,
 * a symlink (sh, awk) followed to the file it names; one that is missing,
 * or not an executable file, is not on PATH. The expected value is worked
 * out here from the file system, not from the plan's own lookup. */
static void test_common_tools(void **state)
{
	(void)state;
	struct policy p;
	policy_init(&p);
	char home[512];
	snprintf(home, sizeof(home), "%s/home", tmp);
	assert_int_equal(mkdir(home, 0700), 0);
	p.home = strdup(home);
	p.user = strdup("tester");
	p.workspace.value = strdup(tmp);
	p.command.value = strdup("true");
	struct plan plan = {0};
	int r = layout_build(&plan, &p, false, path_only, NULL);
	if (r < 0)
		fail_msg("layout_build: %s", err_get() ? err_get() : strerror(-r));
	size_t found = 0;
	for (const char *const *t = layout_common_tools; *t; t++) {
		char want[PATH_MAX] = "";
		static const char *const dirs[] = {"/usr/bin", "/bin"};
		for (size_t d = 0; d < 2 && !want[0]; d++) {
			char path[PATH_MAX];
			struct stat st;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], *t);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
				assert_non_null(realpath(path, want));
		}
		const struct plan_exec *e = plan_find_exec(&plan, *t);
		if (!want[0]) {
			assert_null(e);
			continue;
		}
		assert_non_null(e);
		char real[PATH_MAX];
		assert_non_null(realpath(e->target, real));
		if (strcmp(real, want) != 0)
			fail_msg("%s: %s on PATH, expected %s", *t, e->target, want);
		/* A symlink is named by its target, the file that is bound. */
		struct stat lst;
		assert_int_equal(lstat(e->target, &lst), 0);
		assert_true(S_ISREG(lst.st_mode));
		found++;
	}
	assert_true(found > 10); /* cat, ls, sh, ... on any host that runs this */
	plan_free(&plan);
	policy_free(&p);
}

static void expect_take_error(struct catalog *c, const char *name, const char *needle)
{
	struct loaded_plugin lp;
	struct strv dirs = {0};
	err_clear();
	int r = loader_take(c, name, &dirs, &lp);
	assert_true(r < 0);
	if (!strstr(err_get(), needle))
		fail_msg("\"%s\" does not contain \"%s\"", err_get(), needle);
}

static void test_loader(void **state)
{
	(void)state;
	if (!getenv("FIXTURE_DIR"))
		skip();
	struct strv dirs = {0};
	assert_int_equal(strv_push(&dirs, getenv("FIXTURE_DIR")), 0);
	struct catalog c = {0};
	/* Broken plugins stay in the catalog with their reasons. */
	assert_int_equal(loader_discover(&dirs, NULL, &c), 0);
	expect_take_error(&c, "badmagic", "bad magic 0xdeadbeef");
	expect_take_error(&c, "badabi", "built for plugin ABI 3.0, this agentsandbox needs 2.x");
	expect_take_error(&c, "abi1", "built for plugin ABI 1.0, this agentsandbox needs 2.x");
	expect_take_error(&c, "truncated", "descriptor is 8 bytes");
	expect_take_error(&c, "missing-plugin", "plugin \"missing-plugin\" not found (searched");
	expect_take_error(&c, "../etc", "is not valid");

	const struct found_plugin *f = catalog_find(&c, "probe");
	assert_non_null(f);
	assert_non_null(f->desc);
	/* Its option, as the core reads it. */
	const struct asb_option *o = loader_option_at(f->desc, 0);
	assert_non_null(o);
	assert_string_equal(o->flag, "probe-note");
	assert_null(loader_option_at(f->desc, 1));
	struct loaded_plugin lp;
	assert_int_equal(loader_take(&c, "probe", &dirs, &lp), 0);
	assert_string_equal(lp.desc->name, "probe");
	assert_int_equal(lp.desc->abi_major, ASB_ABI_MAJOR);
	loader_release(&lp);
	catalog_free(&c);
	strv_clear(&dirs);
}

static char *joined_argv(const struct launch *l)
{
	size_t len = 1;
	for (size_t i = 0; i < l->out_argv.n; i++)
		len += strlen(l->out_argv.v[i]) + 1;
	char *out = calloc(1, len);
	for (size_t i = 0; out && i < l->out_argv.n; i++) {
		strcat(out, l->out_argv.v[i]);
		strcat(out, "|");
	}
	return out;
}

/* The bwrap backend renders a plan through the host table alone. */
static void test_bwrap_render(void **state)
{
	(void)state;
	if (!getenv("PLUGIN_DIR"))
		skip();
	struct policy p;
	policy_init(&p);
	p.home = strdup("/home/ada");
	p.user = strdup("ada");
	p.uid = 1000;
	assert_int_equal(strv_push(&p.plugin_dirs, getenv("PLUGIN_DIR")), 0);
	struct catalog c = {0};
	assert_int_equal(loader_discover(&p.plugin_dirs, NULL, &c), 0);
	if (!catalog_find(&c, "bwrap")) { /* the portable build has none */
		catalog_free(&c);
		policy_free(&p);
		skip();
	}
	struct launch l;
	launch_init(&l, &p, &c, false, true);
	l.plugins = calloc(1, sizeof(*l.plugins));
	assert_int_equal(loader_take(&c, "bwrap", &p.plugin_dirs, &l.plugins[0]), 0);
	l.n_plugins = 1;
	l.backend = &l.plugins[0];
	l.plugins[0].ctx.launch = &l;
	l.plugins[0].ctx.plugin = &l.plugins[0];
	l.plugins[0].initialized = true;
	const struct asb_plugin *d = l.backend->desc;
	assert_int_equal(d->init(host_table(), &l.backend->ctx, &l.backend->data), 0);

	assert_int_equal(plan_path(&l.plan, ASB_ENTRY_READ, "/usr", NULL, 0, "t"), 0);
	assert_int_equal(plan_ephemeral(&l.plan, "/home/ada", 0700, "t"), 0);
	assert_int_equal(plan_path(&l.plan, ASB_ENTRY_WRITE, tmp, NULL, 0, "t"), 0);
	assert_int_equal(plan_file(&l.plan, "/etc/motd", "hi", 2, 0, "t"), 0);
	assert_int_equal(
	    plan_entry(&l.plan, ASB_ENTRY_MASK, ASB_ENTRY_F_DIR, 0, NULL, "/m", NULL, 0, "t"), 0);
	assert_int_equal(plan_add_exec(&l.plan, "git", "/usr/bin/git", "t"), 0);
	assert_int_equal(strv_push(&l.plan.argv, "/run/agentsandbox/bin/claude"), 0);
	assert_int_equal(strv_push(&l.plan.argv, "--flag with space"), 0);
	l.plan.chdir = strdup(tmp);
	l.plan.hardening = ASB_HARD_NO_USERNS;
	plan_set_final(&l.plan);
	l.stage = STAGE_BUILDING;
	assert_int_equal(d->backend->build(host_table(), &l.backend->ctx, l.backend->data), 0);

	char *joined = joined_argv(&l);
	/* Final plans are parent first: /usr, /m, then /home/ada, /etc/motd. */
	int usr_fd = -1, tmp_fd = -1;
	for (size_t i = 0; i < l.plan.n_entries; i++) {
		if (strcmp(l.plan.entries[i].dest, "/usr") == 0)
			usr_fd = l.plan.entries[i].fd;
		if (strcmp(l.plan.entries[i].dest, tmp) == 0)
			tmp_fd = l.plan.entries[i].fd;
	}
	char fd_bind[512];
	snprintf(fd_bind, sizeof(fd_bind), "--bind-fd|%d|%s|", tmp_fd, tmp);
	char ro_bind[512];
	snprintf(ro_bind, sizeof(ro_bind), "--ro-bind-fd|%d|/usr|--perms|0555|--tmpfs|/m|", usr_fd);
	assert_non_null(strstr(joined, "|--perms|0700|--tmpfs|/home/ada|"));
	assert_non_null(strstr(joined, "--unshare-user|"));
	assert_non_null(strstr(joined, "--unshare-net|"));
	assert_non_null(strstr(joined, "--die-with-parent|"));
	assert_non_null(strstr(joined, ro_bind));
	assert_non_null(strstr(joined, fd_bind));
	assert_non_null(strstr(joined, "--ro-bind-data|"));
	assert_non_null(strstr(joined, "--perms|0555|--tmpfs|/m|--remount-ro|/m|"));
	assert_non_null(strstr(joined,
	                       "--tmpfs|/run/agentsandbox|--perms|0755|--dir|"
	                       "/run/agentsandbox/bin|--symlink|/usr/bin/git|"
	                       "/run/agentsandbox/bin/git|--remount-ro|/run/agentsandbox|"));
	assert_non_null(strstr(joined, "|--|/run/agentsandbox/bin/claude|--flag with space|"));
	assert_null(strstr(joined, "--cap-drop")); /* only as root */
	assert_null(strstr(joined, "--info-fd"));  /* a dry run has no pipes */
	/* Every fd named on the command line is kept open for bwrap. */
	assert_int_equal(l.n_keep_fds, 3);
	free(joined);
	launch_free(&l);
	catalog_free(&c);
	policy_free(&p);
}

static void test_sessions(void **state)
{
	(void)state;
	char root[512];
	snprintf(root, sizeof(root), "%s/state", tmp);
	struct session live = {0};
	assert_int_equal(session_reserve(&live, root, "live"), 0);
	assert_int_equal(session_create(&live), 0);
	assert_true(live.lock_fd >= 0);
	assert_int_equal(strlen(live.id), 36);
	/* Older directories than the live one would be pruned first. */
	for (int i = 0; i < 30; i++) {
		char d[600];
		snprintf(d, sizeof(d), "%s/20250101T0000%02d.000Z-1-old", root, i);
		assert_int_equal(mkdir(d, 0700), 0);
	}
	/* A live session older than all of them survives pruning. */
	char oldlive[600];
	snprintf(oldlive, sizeof(oldlive), "%s/20240101T000000.000Z-2-oldlive", root);
	assert_int_equal(mkdir(oldlive, 0700), 0);
	char lock[700];
	snprintf(lock, sizeof(lock), "%s/.lock", oldlive);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);

	assert_int_equal(session_prune(root, 25), 31 - 24 - 1 + 0); /* 32 dirs, keep 25 + oldlive */
	struct stat st;
	assert_int_equal(stat(oldlive, &st), 0);
	assert_int_equal(stat(live.dir, &st), 0);
	close(fd);
	assert_int_equal(session_prune(root, 25), 1); /* unlocked now */
	assert_int_equal(session_write(&live, "x.txt", "data", 4), 0);
	/* A kept session whose launcher was killed: its private directory
	 * (even a read-only one) goes at the next prune, the rest stays. */
	char priv[700], inner[800];
	snprintf(priv, sizeof(priv), "%s/20260101T000000.000Z-3-killed", root);
	assert_int_equal(mkdir(priv, 0700), 0);
	snprintf(priv, sizeof(priv), "%s/20260101T000000.000Z-3-killed/private", root);
	snprintf(inner, sizeof(inner), "%s/runsc", priv);
	assert_int_equal(mkdir(priv, 0700), 0);
	assert_int_equal(mkdir(inner, 0700), 0);
	assert_int_equal(chmod(inner, 0500), 0);
	assert_true(session_prune(root, 25) >= 0);
	assert_int_equal(stat(priv, &st), -1);
	snprintf(priv, sizeof(priv), "%s/20260101T000000.000Z-3-killed", root);
	assert_int_equal(stat(priv, &st), 0);
	session_close(&live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_parent_first),
	    cmocka_unit_test(test_parent_first_many),
	    cmocka_unit_test(test_execs),
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_empty_data_shared),
	    cmocka_unit_test(test_empty_data_with_stdin_closed),
	    cmocka_unit_test(test_pin_spellings),
	    cmocka_unit_test(test_common_tools),
	    cmocka_unit_test(test_loader),
	    cmocka_unit_test(test_bwrap_render),
	    cmocka_unit_test(test_sessions),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
