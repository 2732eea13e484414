/* SPDX-License-Identifier: MIT */
/* fds_cloexec_from and fds_close_except (common/util.c, a walk of the open
 * descriptors) and their platform versions (core/platform.h; Linux:
 * close_range): every descriptor from the lowest up is marked or closed,
 * those below it and the kept ones are left as they were, kept ones given
 * in any order, repeated, below the lowest, or more of them than the fast
 * path sorts. Descriptors from 200 up, where the test runner keeps none of
 * its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "platform.h"
#include "util.h"

#define LOW 200
#define N   12

static void open_at(int fd)
{
	int f = open("/dev/null", O_RDONLY);
	assert_true(f >= 0);
	assert_int_equal(dup2(f, fd), fd);
	close(f);
	assert_int_equal(fcntl(fd, F_GETFD), 0); /* inherited, as a caller's are */
}

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

static void close_all(void)
{
	for (int fd = LOW - 2; fd < LOW + N + 300; fd++)
		(void)close(fd);
}

static int (*cloexec_from)(int) = fds_cloexec_from;
static int (*close_except)(int, const int *, size_t) = fds_close_except;

static int use_walk(void **state)
{
	(void)state;
	cloexec_from = fds_cloexec_from;
	close_except = fds_close_except;
	return 0;
}

static int use_platform(void **state)
{
	(void)state;
	cloexec_from = platform_fds_cloexec_from;
	close_except = platform_fds_close_except;
	return 0;
}

static void cloexec_from_marks_only_from_lowfd(void **state)
{
	(void)state;
	for (int fd = LOW - 2; fd < LOW + N; fd++)
		open_at(fd);
	open_at(LOW + 400); /* far above the others */
	assert_int_equal(cloexec_from(LOW), 0);
	assert_int_equal(fcntl(LOW - 2, F_GETFD), 0);
	assert_int_equal(fcntl(LOW - 1, F_GETFD), 0);
	for (int fd = LOW; fd < LOW + N; fd++)
		assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
	assert_int_equal(fcntl(LOW + 400, F_GETFD), FD_CLOEXEC);
	(void)close(LOW + 400);
	close_all();
}

static void close_except_keeps(const int *keep, size_t n_keep, const bool *want_open)
{
	for (int fd = LOW - 2; fd < LOW + N; fd++)
		open_at(fd);
	open_at(LOW + 300);
	assert_int_equal(close_except(LOW, keep, n_keep), 0);
	assert_true(is_open(LOW - 2));
	assert_true(is_open(LOW - 1));
	for (int i = 0; i < N; i++)
		assert_int_equal(is_open(LOW + i), want_open[i]);
	assert_false(is_open(LOW + 300));
	close_all();
}

static void close_except_nothing_kept(void **state)
{
	(void)state;
	bool want[N] = {false};
	close_except_keeps(NULL, 0, want);
}

static void close_except_unsorted_repeated_and_edges(void **state)
{
	(void)state;
	/* The first and last of the range, neighbours, a repeat, one below
	 * the lowest (left alone either way). */
	const int keep[] = {LOW + N - 1, LOW + 5, LOW, LOW + 6, LOW + 5, LOW - 1};
	bool want[N] = {false};
	want[0] = want[5] = want[6] = want[N - 1] = true;
	close_except_keeps(keep, sizeof(keep) / sizeof(*keep), want);
}

static void close_except_many_kept(void **state)
{
	(void)state;
	/* More kept than the fast path sorts on its stack: the walk does it. */
	int keep[100];
	for (int i = 0; i < 100; i++)
		keep[i] = LOW + 1000 + i;
	keep[7] = LOW + 3;
	bool want[N] = {false};
	want[3] = true;
	close_except_keeps(keep, 100, want);
}

int main(void)
{
#define BOTH(t) cmocka_unit_test_setup(t, use_walk), cmocka_unit_test_setup(t, use_platform)
	const struct CMUnitTest tests[] = {
	    BOTH(cloexec_from_marks_only_from_lowfd),
	    BOTH(close_except_nothing_kept),
	    BOTH(close_except_unsorted_repeated_and_edges),
	    BOTH(close_except_many_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
