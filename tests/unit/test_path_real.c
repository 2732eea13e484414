/* SPDX-License-Identifier: MIT */
/* path_real (common/util.c): realpath's answer and realpath's errors, from
 * the name the kernel gives a descriptor instead of a readlink per
 * component: symlinked directories and chains, relative paths, missing
 * paths, a file taken for a directory, a loop, a name that looks like
 * what /proc says of a removed file, and no descriptor left to open. And
 * path_join's spelling (one '/' between the parts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_tmp.h"

static char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, PATH_MAX, "%s/%s", tmp, rel);
	return p;
}

static void make_file(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

/* path_real says what realpath says, both ways of giving the buffer. */
static void same_as_realpath(const char *path)
{
	char want[PATH_MAX], got[PATH_MAX];
	assert_non_null(realpath(path, want));
	assert_non_null(path_real(path, got));
	assert_string_equal(got, want);
	char *alloc = path_real(path, NULL);
	assert_non_null(alloc);
	assert_string_equal(alloc, want);
	free(alloc);
}

/* Both fail, with the same errno. */
static void fails_like_realpath(const char *path)
{
	char buf[PATH_MAX];
	errno = 0;
	assert_null(realpath(path, buf));
	int want = errno;
	errno = 0;
	assert_null(path_real(path, buf));
	assert_int_equal(errno, want);
}

static void test_symlinks_followed(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("real"), 0755), 0);
	assert_int_equal(mkdir(at("real/sub"), 0755), 0);
	make_file(at("real/sub/f"));
	assert_int_equal(symlink("real", at("dirlink")), 0);
	assert_int_equal(symlink("dirlink/sub/f", at("chain1")), 0);
	assert_int_equal(symlink(at("chain1"), at("chain2")), 0);
	same_as_realpath(tmp);
	same_as_realpath(at("dirlink/sub/f"));
	same_as_realpath(at("chain2"));
	same_as_realpath(at("dirlink/sub/../sub/./f"));
	same_as_realpath(at("dirlink/"));
	same_as_realpath("/");
	same_as_realpath("/proc/self/exe");
}

static void test_relative(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("d"), 0755), 0);
	make_file(at("d/f"));
	char cwd[PATH_MAX];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(at("d")), 0);
	same_as_realpath("f");
	same_as_realpath(".");
	same_as_realpath("..");
	assert_int_equal(chdir(cwd), 0);
}

static void test_failures(void **state)
{
	(void)state;
	make_file(at("file"));
	assert_int_equal(symlink("loop2", at("loop1")), 0);
	assert_int_equal(symlink("loop1", at("loop2")), 0);
	assert_int_equal(symlink("missing", at("dangling")), 0);
	fails_like_realpath(at("missing"));
	fails_like_realpath(at("missing/below"));
	fails_like_realpath(at("file/"));
	fails_like_realpath(at("file/below"));
	fails_like_realpath(at("loop1"));
	fails_like_realpath(at("dangling"));
	fails_like_realpath("");
	if (geteuid() != 0) { /* root searches any directory */
		assert_int_equal(mkdir(at("closed"), 0755), 0);
		make_file(at("closed/f"));
		assert_int_equal(chmod(at("closed"), 0), 0);
		fails_like_realpath(at("closed/f"));
		assert_int_equal(chmod(at("closed"), 0755), 0);
	}
}

/* /proc names a removed file "PATH (deleted)": a file so named is
 * answered by realpath, not taken for a removed one. */
static void test_deleted_lookalike(void **state)
{
	(void)state;
	make_file(at("x (deleted)"));
	same_as_realpath(at("x (deleted)"));
}

/* No descriptor left to open: realpath, which needs none, answers. */
static void test_no_descriptor_left(void **state)
{
	(void)state;
	assert_int_equal(symlink("/", at("root")), 0);
	struct rlimit old, none;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	none = old;
	none.rlim_cur = 0;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	char got[PATH_MAX];
	char *r = path_real(at("root"), got);
	int e = errno;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	errno = e;
	assert_non_null(r);
	assert_string_equal(got, "/");
}

static void test_path_join(void **state)
{
	(void)state;
	const char *cases[][3] = {
	    {"/a", "b", "/a/b"},       {"/a/", "b", "/a/b"}, {"/", ".git", "/.git"},
	    {"a/b", "c/d", "a/b/c/d"}, {"", "b", "/b"},      {"/a", "", "/a/"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *got = path_join(cases[i][0], cases[i][1]);
		assert_non_null(got);
		assert_string_equal(got, cases[i][2]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_symlinks_followed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_relative, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_deleted_lookalike, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_descriptor_left, setup, teardown),
	    cmocka_unit_test(test_path_join),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
