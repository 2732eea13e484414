/* SPDX-License-Identifier: MIT */
/* The seccomp programs compiled at build time (linux/seccomp_gen.c) are
 * the very ones a launch would compile; a mask without one compiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "seccomp_groups.h"
#include "syscall_filter.h"
#include "util.h"

#include <string.h>

static void expect_same(uint32_t lifted)
{
	_cleanup_free_ struct sock_filter *pre = NULL, *now = NULL;
	size_t n_pre = 0, n_now = 0;
	bool was_prebuilt = false;
	assert_int_equal(seccomp_program(lifted, true, &pre, &n_pre, &was_prebuilt), 0);
	if (!was_prebuilt)
		skip(); /* another libseccomp than the build's: launches compile */
	assert_int_equal(seccomp_program(lifted, false, &now, &n_now, &was_prebuilt), 0);
	assert_false(was_prebuilt);
	assert_int_equal(n_pre, n_now);
	assert_memory_equal(pre, now, n_now * sizeof(*now));
}

static void test_prebuilt_nothing_lifted(void **state)
{
	(void)state;
	expect_same(0);
}

static void test_prebuilt_unix_sockets(void **state)
{
	(void)state;
	expect_same((1u << SECCOMP_G_UNIX) | (1u << SECCOMP_G_UNIX_PAIRS) |
	            (1u << SECCOMP_G_UNIX_SEQPACKET));
}

/* Any other mask is compiled at launch, and lifting a group changes it. */
static void test_other_mask_compiles(void **state)
{
	(void)state;
	_cleanup_free_ struct sock_filter *all = NULL, *lifted = NULL;
	size_t n_all = 0, n_lifted = 0;
	bool was_prebuilt = true;
	assert_int_equal(
	    seccomp_program(1u << SECCOMP_G_PTRACE, true, &lifted, &n_lifted, &was_prebuilt), 0);
	assert_false(was_prebuilt);
	assert_int_equal(seccomp_program(0, true, &all, &n_all, NULL), 0);
	assert_true(n_lifted > 0 && n_lifted < n_all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prebuilt_nothing_lifted),
	    cmocka_unit_test(test_prebuilt_unix_sockets),
	    cmocka_unit_test(test_other_mask_compiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
