/* SPDX-License-Identifier: MIT */
/* The Landlock rules handed to agentsandbox-init: each path a plan makes
 * writable or executable is covered, and a rule beneath another of its kind
 * (which grants nothing more) is left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "landlock.h"
#include "plan.h"
#include "util.h"

#include <string.h>

/* The paths given with `opt`, in order, as one string ("a b c"). */
static char *rules_of(const struct strv *out, const char *opt)
{
	char *s = strdup("");
	for (size_t i = 0; s && i + 1 < out->n; i++)
		if (strcmp(out->v[i], opt) == 0) {
			char *t = str_printf("%s%s%s", s, *s ? " " : "", out->v[++i]);
			free(s);
			s = t;
		}
	return s;
}

static void add(struct plan *plan, uint32_t type, const char *path)
{
	assert_int_equal(plan_path_unopened(plan, type, path, path, 0, "test"), 0);
}

static void test_nested_rules_left_out(void **state)
{
	(void)state;
	struct plan plan = {0};
	add(&plan, ASB_ENTRY_WRITE, "/home/u/ws");
	add(&plan, ASB_ENTRY_WRITE, "/home/u/ws/r/.git"); /* a pinned git dir */
	add(&plan, ASB_ENTRY_WRITE, "/home/u/ws/r/.git/info");
	add(&plan, ASB_ENTRY_WRITE, "/home/u/ws b"); /* sorts between the two above */
	add(&plan, ASB_ENTRY_WRITE, "/home/u/ws-x");
	add(&plan, ASB_ENTRY_WRITE, "/home/u/ws"); /* twice */
	add(&plan, ASB_ENTRY_DEVICE, "/dev/dri");
	assert_int_equal(plan_add_exec(&plan, "git", "/usr/lib/git-core/git", "test"), 0);
	assert_int_equal(plan_add_exec(&plan, "true", "/usr/bin/true", "test"), 0);
	struct strv out = {0};
	assert_int_equal(landlock_rules(&plan, "/home/u", false, &out), 0);
	assert_string_equal(out.v[0], "--scope");

	_cleanup_free_ char *w = rules_of(&out, "--write");
	_cleanup_free_ char *wf = rules_of(&out, "--write-files");
	_cleanup_free_ char *x = rules_of(&out, "--exec");
	/* The home holds every entry; the scratch directories stand apart. */
	assert_string_equal(w, "/dev/shm /home/u /tmp /var/tmp");
	/* /dev holds /dev/dri. */
	assert_string_equal(wf, "/dev /proc");
	/* /usr/lib holds git; /usr/bin/true is a file rule of its own. */
	assert_non_null(strstr(x, "/usr/bin/true"));
	assert_null(strstr(x, "git-core"));
	assert_null(strstr(x, "/home/u/"));
	assert_non_null(strstr(x, "/home/u"));
	strv_clear(&out);
	plan_free(&plan);
}

/* Without a home or scratch directory above them, siblings that share a
 * prefix are kept apart ("/a" does not hold "/ab" or "/a b"). */
static void test_prefixes_are_not_parents(void **state)
{
	(void)state;
	struct plan plan = {0};
	add(&plan, ASB_ENTRY_WRITE, "/w/ab");
	add(&plan, ASB_ENTRY_WRITE, "/w/a b");
	add(&plan, ASB_ENTRY_WRITE, "/w/a/c");
	add(&plan, ASB_ENTRY_WRITE, "/w/a");
	struct strv out = {0};
	assert_int_equal(landlock_rules(&plan, NULL, true, &out), 0);
	assert_string_equal(out.v[0], "--require");
	_cleanup_free_ char *w = rules_of(&out, "--write");
	assert_string_equal(w, "/dev/shm /tmp /var/tmp /w/a /w/a b /w/ab");
	strv_clear(&out);
	plan_free(&plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nested_rules_left_out),
	    cmocka_unit_test(test_prefixes_are_not_parents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
