/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "expand.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *lookup(const char *name, void *ud)
{
	(void)ud;
	static const char *const vars[][2] = {
	    {"HOME", "/home/ada"}, {"PWD", "/work/p"}, {"EMPTY", ""},
	    {"TOKEN", "s3cr$t"},   {"A_1", "x"},
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i][0], name) == 0)
			return vars[i][1];
	return NULL;
}

static void expect_ok(const char *in, const char *want)
{
	char *out = NULL, *bad = NULL;
	int r = expand_vars(in, lookup, NULL, &out, &bad);
	if (r != 0)
		fail_msg("expand(\"%s\") failed: %d (%s)", in, r, bad ? bad : "");
	assert_string_equal(out, want);
	free(out);
	free(bad);
}

static void expect_err(const char *in, int err, const char *bad_want)
{
	char *out = NULL, *bad = NULL;
	int r = expand_vars(in, lookup, NULL, &out, &bad);
	assert_int_equal(r, err);
	assert_null(out);
	if (bad_want)
		assert_string_equal(bad, bad_want);
	free(bad);
}

static void test_plain(void **state)
{
	(void)state;
	expect_ok("", "");
	expect_ok("/usr/bin", "/usr/bin");
	expect_ok("no vars at all", "no vars at all");
}

static void test_tilde(void **state)
{
	(void)state;
	expect_ok("~", "/home/ada");
	expect_ok("~/.claude", "/home/ada/.claude");
	expect_ok("a~/b", "a~/b");       /* only a leading ~ */
	expect_ok("~user/x", "~user/x"); /* ~user is not supported: left alone */
}

static void test_vars(void **state)
{
	(void)state;
	expect_ok("$HOME/.claude", "/home/ada/.claude");
	expect_ok("${HOME}/.claude", "/home/ada/.claude");
	expect_ok("$PWD", "/work/p");
	expect_ok("${HOME}${PWD}", "/home/ada/work/p");
	expect_ok("$A_1-y", "x-y");
	expect_ok("$TOKEN", "s3cr$t"); /* values are not re-expanded */
	expect_ok("$EMPTY", "");
	expect_ok("cost: $$5", "cost: $5");
}

static void test_defaults(void **state)
{
	(void)state;
	expect_ok("${NOPE:-fallback}", "fallback");
	expect_ok("${NOPE:-}", "");
	expect_ok("${EMPTY:-d}", "d");
	expect_ok("${HOME:-d}", "/home/ada");
}

static void test_errors(void **state)
{
	(void)state;
	expect_err("$NOPE", -ENOENT, "NOPE");
	expect_err("/x/${NOPE}/y", -ENOENT, "NOPE");
	expect_err("${HOME", -EINVAL, NULL);
	expect_err("${NOPE:-x", -EINVAL, NULL);
	expect_err("$1", -EINVAL, NULL);
	expect_err("a $ b", -EINVAL, NULL);
	expect_err("${}", -EINVAL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),  cmocka_unit_test(test_tilde),
	    cmocka_unit_test(test_vars),   cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
