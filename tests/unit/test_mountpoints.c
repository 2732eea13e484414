/* SPDX-License-Identifier: MIT */
/* The mount points a private view needs (core/mountpoints.c): which entry
 * covers which (the last one before it whose place lies strictly above,
 * places compared however they are spelt), checked against a plain scan of
 * every entry before it; and the check itself on a host directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "log.h"
#include "mountpoints.h"
#include "plan.h"
#include "policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_tmp.h"

/* A plan of ephemeral directories at these places, in this order. */
static void plan_of(struct plan *plan, const char *const *dests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(plan_ephemeral(plan, dests[i], 0755, "test"), 0);
}

/* What entry `i` of the plan is covered by, through the index. */
static size_t cover_of(const struct plan *plan, size_t i)
{
	struct mountpoints_index ix;
	assert_int_equal(mountpoints_index_build(plan, &ix), 0);
	size_t c = mountpoints_covering(&ix, i, ix.dest[i]);
	mountpoints_index_free(&ix);
	return c;
}

static void test_normalize(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
	    {"/", "/"},           {"//", "/"},          {"/.", "/"},
	    {"/./", "/"},         {"/a", "/a"},         {"/a/", "/a"},
	    {"/a//b///", "/a/b"}, {"/a/./b/.", "/a/b"}, {"/a/.b/..", "/a/.b/.."},
	    {"/a/b.", "/a/b."},   {"/./a", "/a"},
	};
	char out[64];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(path_normalize(out, cases[i][0]), strlen(cases[i][1]));
		assert_string_equal(out, cases[i][1]);
		/* In place too. */
		snprintf(out, sizeof(out), "%s", cases[i][0]);
		path_normalize(out, out);
		assert_string_equal(out, cases[i][1]);
	}
}

static void test_nested(void **state)
{
	(void)state;
	static const char *const d[] = {"/", "/a", "/a/b", "/a/b/c", "/a/bc", "/x"};
	struct plan plan = {0};
	plan_of(&plan, d, ARRAY_SIZE(d));
	assert_int_equal(cover_of(&plan, 0), MOUNTPOINTS_NONE);
	assert_int_equal(cover_of(&plan, 1), 0);
	assert_int_equal(cover_of(&plan, 2), 1);
	assert_int_equal(cover_of(&plan, 3), 2);
	assert_int_equal(cover_of(&plan, 4), 1); /* /a/b is no ancestor of /a/bc */
	assert_int_equal(cover_of(&plan, 5), 0);
	plan_free(&plan);
}

/* The last entry before wins, not the deepest: one mounted later hides what
 * was mounted below it before. */
static void test_order(void **state)
{
	(void)state;
	static const char *const d[] = {"/a/b", "/a", "/a/b/c", "/a/b", "/a/b/c/d", "/a"};
	struct plan plan = {0};
	plan_of(&plan, d, ARRAY_SIZE(d));
	assert_int_equal(cover_of(&plan, 0), MOUNTPOINTS_NONE);
	assert_int_equal(cover_of(&plan, 1), MOUNTPOINTS_NONE);
	assert_int_equal(cover_of(&plan, 2), 1); /* /a, mounted over /a/b */
	assert_int_equal(cover_of(&plan, 3), 1); /* not itself: entry 0 is no strict ancestor */
	assert_int_equal(cover_of(&plan, 4), 3); /* the later /a/b, over the earlier /a/b/c */
	assert_int_equal(cover_of(&plan, 5), MOUNTPOINTS_NONE);
	/* Past the end: what PATH's directory lands in. */
	struct mountpoints_index ix;
	assert_int_equal(mountpoints_index_build(&plan, &ix), 0);
	assert_int_equal(mountpoints_covering(&ix, plan.n_entries, "/a/b/c/d/e"), 5);
	assert_int_equal(mountpoints_covering(&ix, 5, "/a/b/c/d/e"), 4);
	assert_int_equal(mountpoints_covering(&ix, 4, "/a/b/c/d/e"), 3);
	assert_int_equal(mountpoints_covering(&ix, 0, "/a/b/c/d/e"), MOUNTPOINTS_NONE);
	assert_int_equal(mountpoints_covering(&ix, plan.n_entries, PLAN_RUN_DIR), MOUNTPOINTS_NONE);
	mountpoints_index_free(&ix);
	plan_free(&plan);
}

static void test_root_covers(void **state)
{
	(void)state;
	static const char *const d[] = {"/tmp", "/", "/run", "//"};
	struct plan plan = {0};
	plan_of(&plan, d, ARRAY_SIZE(d));
	assert_int_equal(cover_of(&plan, 0), MOUNTPOINTS_NONE);
	assert_int_equal(cover_of(&plan, 1), MOUNTPOINTS_NONE);
	assert_int_equal(cover_of(&plan, 2), 1);
	assert_int_equal(cover_of(&plan, 3), MOUNTPOINTS_NONE); /* "//" is "/" */
	struct mountpoints_index ix;
	assert_int_equal(mountpoints_index_build(&plan, &ix), 0);
	assert_int_equal(mountpoints_covering(&ix, plan.n_entries, PLAN_RUN_DIR), 3);
	assert_int_equal(mountpoints_covering(&ix, 3, PLAN_RUN_DIR), 2);
	mountpoints_index_free(&ix);
	plan_free(&plan);
}

/* Two spellings of one place: neither covers the other (once "/a/b/" was
 * taken to lie above "/a/b", and the place inside it was read past the end
 * of "/a/b"). */
static void test_spellings(void **state)
{
	(void)state;
	static const char *const d[] = {"/a/b/", "/a/b", "/a//b/c", "/a/./b/c/", "/a/b/c/d"};
	struct plan plan = {0};
	plan_of(&plan, d, ARRAY_SIZE(d));
	assert_int_equal(cover_of(&plan, 1), MOUNTPOINTS_NONE);
	assert_int_equal(cover_of(&plan, 2), 1);
	assert_int_equal(cover_of(&plan, 3), 1);
	assert_int_equal(cover_of(&plan, 4), 3);
	plan_free(&plan);
}

/* A plain scan, on places spelt one way: what the index must agree with. */
static size_t scan(char **dest, size_t before, const char *path)
{
	for (size_t j = before; j-- > 0;)
		if (strcmp(dest[j], path) != 0 && path_is_within(path, dest[j]))
			return j;
	return MOUNTPOINTS_NONE;
}

static void test_against_scan(void **state)
{
	(void)state;
	static const char *const parts[] = {"a", "b", "ab", "a.", "c"};
	srand(17);
	for (int round = 0; round < 50; round++) {
		struct plan plan = {0};
		size_t n = 1 + (size_t)rand() % 60;
		char **norm = calloc(n, sizeof(*norm));
		assert_non_null(norm);
		for (size_t i = 0; i < n; i++) {
			char d[128] = "";
			size_t depth = (size_t)rand() % 5, len = 0;
			for (size_t k = 0; k < depth; k++)
				len += (size_t)snprintf(d + len, sizeof(d) - len, "%s%s",
				                        rand() % 6 ? "/" : "//",
				                        parts[rand() % ARRAY_SIZE(parts)]);
			if (len == 0 || rand() % 5 == 0)
				snprintf(d + len, sizeof(d) - len, "/");
			assert_int_equal(plan_ephemeral(&plan, d, 0755, "test"), 0);
			norm[i] = strdup(d);
			assert_non_null(norm[i]);
			path_normalize(norm[i], norm[i]);
		}
		struct mountpoints_index ix;
		assert_int_equal(mountpoints_index_build(&plan, &ix), 0);
		for (size_t i = 0; i <= n; i++) {
			const char *path = i < n ? norm[i] : "/a/b/c";
			assert_int_equal(mountpoints_covering(&ix, i, path), scan(norm, i, path));
		}
		mountpoints_index_free(&ix);
		for (size_t i = 0; i < n; i++)
			free(norm[i]);
		free(norm);
		plan_free(&plan);
	}
}

/* The check reads the host directory a bind covers, however the places are
 * spelt. */
static void test_check_host(void **state)
{
	(void)state;
	char sub[300];
	snprintf(sub, sizeof(sub), "%s/sub", tmp);
	assert_int_equal(mkdir(sub, 0755), 0);
	struct policy p;
	policy_init(&p);

	/* The same place twice: nothing is made in the bind. */
	struct plan plan = {0};
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, tmp, "/m/", 0, "test"), 0);
	assert_int_equal(plan_ephemeral(&plan, "/m", 0755, "test"), 0);
	assert_int_equal(mountpoints_check(&plan, &p), 0);
	plan_free(&plan);

	/* A place that exists in the read-only bind, spelt with a slash. */
	plan = (struct plan){0};
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, tmp, "/m/", 0, "test"), 0);
	assert_int_equal(plan_ephemeral(&plan, "/m//sub/", 0755, "test"), 0);
	assert_int_equal(mountpoints_check(&plan, &p), 0);
	/* One that does not: refused, naming it. */
	assert_int_equal(plan_ephemeral(&plan, "/m/missing", 0755, "test"), 0);
	assert_int_equal(mountpoints_check(&plan, &p), -EINVAL);
	assert_non_null(strstr(err_get(), "/m/missing"));
	assert_non_null(strstr(err_get(), "read-only bind cannot hold"));
	err_clear();
	plan_free(&plan);

	/* A later entry over the bind decides instead. */
	plan = (struct plan){0};
	assert_int_equal(plan_path(&plan, ASB_ENTRY_READ, tmp, "/m", 0, "test"), 0);
	assert_int_equal(plan_ephemeral(&plan, "/m/", 0755, "test"), 0);
	assert_int_equal(plan_ephemeral(&plan, "/m/missing", 0755, "test"), 0);
	assert_int_equal(mountpoints_check(&plan, &p), 0);
	plan_free(&plan);

	/* Inside /proc: refused. */
	plan = (struct plan){0};
	assert_int_equal(plan_entry(&plan, ASB_ENTRY_PROC, 0, 0, NULL, "/proc/", NULL, 0, "test"),
	                 0);
	assert_int_equal(plan_ephemeral(&plan, "/proc/x", 0755, "test"), 0);
	assert_int_equal(mountpoints_check(&plan, &p), -EINVAL);
	assert_non_null(strstr(err_get(), "/proc"));
	err_clear();
	plan_free(&plan);
	policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalize),  cmocka_unit_test(test_nested),
	    cmocka_unit_test(test_order),      cmocka_unit_test(test_root_covers),
	    cmocka_unit_test(test_spellings),  cmocka_unit_test(test_against_scan),
	    cmocka_unit_test(test_check_host),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
