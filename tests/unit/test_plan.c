/* SPDX-License-Identifier: MIT */
/* Plan building, plugin loading checks, bwrap rendering, session pruning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "launch.h"
#include "loader.h"
#include "log.h"
#include "plan.h"
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/asb-unit-XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

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
	plan_free(&plan);
}

static void test_execs(void **state)
{
	(void)state;
	struct plan plan = {0};
	assert_int_equal(plan_add_exec(&plan, "git", "/usr/bin/git"), 0);
	assert_int_equal(plan_add_exec(&plan, "git", "/opt/other/git"), 0); /* first wins */
	assert_int_equal(plan_add_exec(&plan, "a/b", "/usr/bin/x"), -EINVAL);
	assert_int_equal(plan_add_exec(&plan, "..", "/usr/bin/x"), -EINVAL);
	assert_int_equal(plan_add_exec(&plan, "rel", "usr/bin/x"), -EINVAL);
	assert_int_equal(plan_finish(&plan), 0);
	assert_int_equal(plan_finish(&plan), 0); /* idempotent */
	/* tmpfs, dir, one symlink, remount-ro */
	assert_int_equal(plan.n_mounts, 4);
	assert_int_equal(plan.mounts[2].type, ASB_MOUNT_SYMLINK);
	assert_string_equal(plan.mounts[2].source, "/usr/bin/git");
	assert_string_equal(plan.mounts[2].dest, PLAN_BIN_DIR "/git");
	assert_int_equal(plan.mounts[3].type, ASB_MOUNT_REMOUNT_RO);
	plan_free(&plan);
}

static void test_bind(void **state)
{
	(void)state;
	struct plan plan = {0};
	char dir[512], link[512];
	snprintf(dir, sizeof(dir), "%s/real", tmp);
	snprintf(link, sizeof(link), "%s/link", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(symlink(dir, link), 0);
	/* A symlink is resolved once; what is bound is the checked target. */
	assert_int_equal(plan_bind(&plan, ASB_MOUNT_RO_BIND, link, NULL, 0, "t"), 0);
	assert_int_equal(plan.n_mounts, 1);
	assert_string_equal(plan.mounts[0].source, dir);
	assert_string_equal(plan.mounts[0].dest, link);
	assert_true(plan.mounts[0].fd >= 0);
	assert_int_equal(fcntl(plan.mounts[0].fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(
	    plan_bind(&plan, ASB_MOUNT_BIND, "/nonexistent-asb", NULL, ASB_MOUNT_F_TRY, "t"), 0);
	assert_int_equal(plan.n_mounts, 1);
	assert_int_equal(plan_bind(&plan, ASB_MOUNT_BIND, "/nonexistent-asb", NULL, 0, "t"),
	                 -ENOENT);
	assert_int_equal(plan_bind(&plan, ASB_MOUNT_TMPFS, dir, NULL, 0, "t"), -EINVAL);
	assert_int_equal(plan_add_data(&plan, "/etc/x", "hello", 5, 0, "t"), 0);
	char buf[8] = {0};
	assert_int_equal(pread(plan.mounts[1].fd, buf, sizeof(buf), 0), 5);
	assert_string_equal(buf, "hello");
	plan_free(&plan);
}

static void expect_load_error(const char *name, const char *needle)
{
	struct strv dirs = {0};
	assert_int_equal(strv_push(&dirs, getenv("FIXTURE_DIR")), 0);
	struct loaded_plugin lp;
	err_clear();
	int r = loader_open(name, &dirs, &lp);
	assert_true(r < 0);
	if (!strstr(err_get(), needle))
		fail_msg("\"%s\" does not contain \"%s\"", err_get(), needle);
	strv_clear(&dirs);
}

static void test_loader(void **state)
{
	(void)state;
	if (!getenv("FIXTURE_DIR"))
		skip();
	expect_load_error("badmagic", "bad magic 0xdeadbeef");
	expect_load_error("badabi", "ABI 2.0, this agentsandbox supports 1.0-1.x");
	expect_load_error("truncated", "descriptor is 8 bytes");
	expect_load_error("missing-plugin", "plugin \"missing-plugin\" not found (searched");
	expect_load_error("../etc", "is not valid");

	struct strv dirs = {0};
	assert_int_equal(strv_push(&dirs, getenv("FIXTURE_DIR")), 0);
	struct loaded_plugin lp;
	assert_int_equal(loader_open("probe", &dirs, &lp), 0);
	assert_string_equal(lp.desc->name, "probe");
	assert_int_equal(lp.desc->abi_major, ASB_ABI_MAJOR);
	loader_release(&lp);
	strv_clear(&dirs);
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
	struct launch l;
	launch_init(&l, &p, false, true);
	assert_int_equal(strv_push(&p.plugin_dirs, getenv("PLUGIN_DIR")), 0);
	l.plugins = calloc(1, sizeof(*l.plugins));
	assert_int_equal(loader_open("bwrap", &p.plugin_dirs, &l.plugins[0]), 0);
	l.n_plugins = 1;
	l.backend = &l.plugins[0];
	l.plugins[0].ctx.launch = &l;
	l.plugins[0].ctx.plugin = &l.plugins[0];
	l.plugins[0].initialized = true;

	assert_int_equal(
	    plan_add_mount(&l.plan, ASB_MOUNT_RO_BIND, ASB_MOUNT_F_TRY, 0, -1, "/usr", "/usr", "t"),
	    0);
	assert_int_equal(
	    plan_add_mount(&l.plan, ASB_MOUNT_TMPFS, 0, 0700, -1, NULL, "/home/ada", "t"), 0);
	assert_int_equal(plan_bind(&l.plan, ASB_MOUNT_BIND, tmp, NULL, 0, "t"), 0);
	assert_int_equal(plan_add_data(&l.plan, "/etc/motd", "hi", 2, 0, "t"), 0);
	assert_int_equal(strv_push(&l.plan.argv, "/run/agentsandbox/bin/claude"), 0);
	assert_int_equal(strv_push(&l.plan.argv, "--flag with space"), 0);
	l.plan.chdir = strdup(tmp);
	l.plan.flags = ASB_PLAN_DIE_WITH_PARENT;
	assert_int_equal(l.backend->desc->backend->build(host_table(), &l.backend->ctx), 0);

	/* Join the argv to compare the interesting stretch. */
	char joined[4096] = "";
	for (size_t i = 0; i < l.out_argv.n; i++) {
		strncat(joined, l.out_argv.v[i], sizeof(joined) - strlen(joined) - 2);
		strcat(joined, "|");
	}
	char fd_bind[512];
	snprintf(fd_bind, sizeof(fd_bind), "--bind-fd|%d|%s|", l.plan.mounts[2].fd, tmp);
	assert_non_null(strstr(joined, "--unshare-user|"));
	assert_non_null(strstr(joined, "--unshare-net|"));
	assert_non_null(strstr(joined, "--die-with-parent|"));
	assert_non_null(strstr(joined, "--ro-bind-try|/usr|/usr|--perms|0700|--tmpfs|/home/ada|"));
	assert_non_null(strstr(joined, fd_bind));
	assert_non_null(strstr(joined, "--ro-bind-data|"));
	assert_non_null(strstr(joined, "|--|/run/agentsandbox/bin/claude|--flag with space|"));
	assert_null(strstr(joined, "--cap-drop")); /* only as root */
	/* Every fd named on the command line is kept open for bwrap. */
	assert_int_equal(l.n_keep_fds, 2);
	launch_free(&l);
	policy_free(&p);
}

static void test_sessions(void **state)
{
	(void)state;
	char root[512];
	snprintf(root, sizeof(root), "%s/state", tmp);
	struct session live = {0};
	assert_int_equal(session_create(&live, root, "live"), 0);
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
	session_close(&live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_env),          cmocka_unit_test(test_execs),
	    cmocka_unit_test(test_bind),         cmocka_unit_test(test_loader),
	    cmocka_unit_test(test_bwrap_render), cmocka_unit_test(test_sessions),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
