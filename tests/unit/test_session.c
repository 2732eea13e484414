/* SPDX-License-Identifier: MIT */
/* core/session.c: the directory prepared for the next launch. */
#include <setjmp.h>
#include <stdarg.h>
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

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/asb-session-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_session_prepared),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	(void)rm_rf(tmp);
	return r;
}
