/* SPDX-License-Identifier: MIT */
/* core/session.c: the directory prepared for the next launch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"

static char tmp[256];

/* The directory session_prepare makes is the next session's: taken
 * locked, under its final name; never one another launch holds, one
 * others could write, or a symlink. */
static void test_session_prepared(void **state)
{
	(void)state;
	char root[512], ready[600], lock[700];
	snprintf(root, sizeof(root), "%s/prepared", tmp);
	snprintf(ready, sizeof(ready), "%s/.ready", root);
	snprintf(lock, sizeof(lock), "%s/.ready/.lock", root);
	assert_int_equal(mkdir(root, 0700), 0);
	session_prepare(root);
	struct stat st, seen;
	assert_int_equal(stat(ready, &st), 0);
	struct session a = {0};
	assert_int_equal(session_reserve(&a, root, "a"), 0);
	assert_int_equal(session_create(&a), 0);
	assert_int_equal(lstat(ready, &seen), -1);
	assert_int_equal(stat(a.dir, &seen), 0);
	assert_true(seen.st_ino == st.st_ino); /* that very directory */
	char alock[700];
	snprintf(alock, sizeof(alock), "%s/.lock", a.dir);
	int fd = open(alock, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1); /* a holds it */
	close(fd);

	/* Held by another launch: a new one is made, .ready stays. */
	session_prepare(root);
	fd = open(lock, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	struct session b = {0};
	assert_int_equal(session_reserve(&b, root, "b"), 0);
	b.dir[strlen(b.dir) - 1] = 'B'; /* not a's name, within one ms */
	assert_int_equal(session_create(&b), 0);
	assert_int_equal(lstat(ready, &seen), 0);
	close(fd);
	session_close(&b);

	/* Writable by others, or a symlink: not taken. */
	assert_int_equal(chmod(ready, 0777), 0);
	struct session c = {0};
	assert_int_equal(session_reserve(&c, root, "c"), 0);
	c.dir[strlen(c.dir) - 1] = 'C';
	assert_int_equal(session_create(&c), 0);
	assert_int_equal(lstat(ready, &seen), 0);
	session_close(&c);
	char aside[600], target[600];
	snprintf(aside, sizeof(aside), "%s/aside", tmp);
	snprintf(target, sizeof(target), "%s/aside/.lock", tmp);
	assert_int_equal(rename(ready, aside), 0);
	assert_int_equal(chmod(aside, 0700), 0);
	assert_int_equal(symlink(aside, ready), 0);
	struct session d = {0};
	assert_int_equal(session_reserve(&d, root, "d"), 0);
	d.dir[strlen(d.dir) - 1] = 'D';
	assert_int_equal(session_create(&d), 0);
	assert_int_equal(lstat(ready, &seen), 0);
	assert_true(S_ISLNK(seen.st_mode));
	assert_int_equal(stat(target, &seen), 0);
	session_close(&d);
	session_close(&a);
}

/* make_session ROOT NAME [PRIVATE]: an ended session directory (its .lock
 * unheld), with a private/ directory when asked. */
static void make_session(const char *root, const char *name, bool private)
{
	char dir[600], path[700];
	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/launch.log", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	if (private) {
		snprintf(path, sizeof(path), "%s/private", dir);
		assert_int_equal(mkdir(path, 0700), 0);
		snprintf(path, sizeof(path), "%s/private/bundle", dir);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
}

static bool exists(const char *root, const char *rel)
{
	char path[700];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return lstat(path, &st) == 0;
}

static int hold(const char *root, const char *name)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s/.lock", root, name);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	return fd;
}

/* The newest `keep` stay; older ended ones go, running ones (their lock
 * held) stay; a kept one's private directories go once it has ended. */
static void test_session_prune(void **state)
{
	(void)state;
	char root[512];
	snprintf(root, sizeof(root), "%s/prune", tmp);
	assert_int_equal(mkdir(root, 0700), 0);
	make_session(root, "20260101T000001.000Z-1-a", false);
	make_session(root, "20260101T000002.000Z-2-b", true);
	make_session(root, "20260101T000003.000Z-3-c", false);
	make_session(root, "20260101T000004.000Z-4-d", true);
	make_session(root, "20260101T000005.000Z-5-e", true);
	make_session(root, "20260101T000006.000Z-6-f", false);
	int running_b = hold(root, "20260101T000002.000Z-2-b");
	int running_e = hold(root, "20260101T000005.000Z-5-e");

	/* Kept: f, e, d. Beyond: c and a go, b runs. */
	assert_int_equal(session_prune(root, 3), 2);
	assert_false(exists(root, "20260101T000001.000Z-1-a"));
	assert_true(exists(root, "20260101T000002.000Z-2-b/private/bundle"));
	assert_false(exists(root, "20260101T000003.000Z-3-c"));
	assert_true(exists(root, "20260101T000004.000Z-4-d/launch.log"));
	assert_false(exists(root, "20260101T000004.000Z-4-d/private"));       /* ended */
	assert_true(exists(root, "20260101T000005.000Z-5-e/private/bundle")); /* runs */
	assert_true(exists(root, "20260101T000006.000Z-6-f/launch.log"));

	/* Once b has ended, it goes too. */
	close(running_b);
	assert_int_equal(session_prune(root, 3), 1);
	assert_false(exists(root, "20260101T000002.000Z-2-b"));
	close(running_e);
	assert_int_equal(session_prune(root, 3), 0);
	assert_false(exists(root, "20260101T000005.000Z-5-e/private"));
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/asb-session-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_session_prepared),
	    cmocka_unit_test(test_session_prune),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	(void)rm_rf(tmp);
	return r;
}
