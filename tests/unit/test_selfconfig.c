/* SPDX-License-Identifier: MIT */
/* core/selfconfig.c: a session's record of what its agent could write, and
 * the next launch's check against it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "selfconfig.h"
#include "unit_tmp.h"

static void add(struct plan *plan, uint32_t type, const char *path)
{
	assert_int_equal(plan_path_unopened(plan, type, path, path, 0, "test"), 0);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Only the outermost writable paths are recorded (git protection's rebinds
 * inside the workspace are hundreds), each once; a prefix that is not a
 * parent ("ws b", "ws-x") is a path of its own. The check still sees a
 * change in a nested writable directory, and never one outside them. */
static void test_record_keeps_outermost(void **state)
{
	(void)state;
	char root[300], ws[300], nested[400], conf[500], outside[400];
	snprintf(root, sizeof(root), "%s/state", tmp);
	snprintf(ws, sizeof(ws), "%s/ws", tmp);
	snprintf(nested, sizeof(nested), "%s/r/.git", ws);
	snprintf(conf, sizeof(conf), "%s/conf.cfg", nested);
	snprintf(outside, sizeof(outside), "%s/outside.cfg", tmp);
	assert_int_equal(mkdir_p(nested, 0700), 0);
	assert_int_equal(mkdir(root, 0700), 0);

	struct plan plan = {0};
	add(&plan, ASB_ENTRY_WRITE, nested);
	add(&plan, ASB_ENTRY_WRITE, ws);
	_cleanup_free_ char *ws_b = str_printf("%s b", ws);
	_cleanup_free_ char *ws_x = str_printf("%s-x", ws);
	_cleanup_free_ char *info = str_printf("%s/info", nested);
	add(&plan, ASB_ENTRY_WRITE, ws_b);
	add(&plan, ASB_ENTRY_WRITE, info);
	add(&plan, ASB_ENTRY_WRITE, ws_x);
	add(&plan, ASB_ENTRY_WRITE, ws); /* twice */
	add(&plan, ASB_ENTRY_READ, tmp);

	struct session s = {0};
	assert_int_equal(session_reserve(&s, root, "t"), 0);
	assert_int_equal(session_create(&s), 0);
	struct timespec start;
	selfconfig_start_time(&start);
	struct strv protected = {0};
	assert_int_equal(strv_push(&protected, conf), 0);
	struct strv unexposed = {0}, exposed = {0};
	assert_int_equal(strv_push(&unexposed, conf), 0); /* protected */
	assert_int_equal(strv_push(&unexposed, outside), 0);
	_cleanup_free_ char *in_ws = str_printf("%s/x.cfg", ws);
	assert_int_equal(strv_push(&exposed, in_ws), 0);
	assert_int_equal(selfconfig_record(&s, &start, &plan, &protected, &exposed), 1);
	/* The state root itself, though no path names it (a first launch
	 * makes it after they are collected). */
	struct plan over_root = {0};
	add(&over_root, ASB_ENTRY_WRITE, tmp);
	assert_int_equal(selfconfig_record(&s, &start, &over_root, &protected, &unexposed), 1);
	plan_free(&over_root);
	/* Last: the record checked below. */
	assert_int_equal(selfconfig_record(&s, &start, &plan, &protected, &unexposed), 0);
	strv_clear(&unexposed);
	strv_clear(&exposed);

	_cleanup_free_ char *file = str_printf("%s/writable", s.dir);
	_cleanup_free_ char *text = NULL;
	assert_int_equal(read_file(file, &text, NULL), 0);
	_cleanup_free_ char *want = str_printf("w %s\nw %s\nw %s\np %s\n", ws, ws_b, ws_x, conf);
	assert_non_null(strstr(text, want));
	assert_true(str_has_prefix(text, "start "));
	assert_int_equal(strlen(text), strcspn(text, "\n") + 1 + strlen(want));

	/* Changed while the session could write there (it never ended). */
	struct timespec pause = {0, 20 * 1000 * 1000};
	nanosleep(&pause, NULL);
	_cleanup_free_ char *changed = str_printf("%s/changed.cfg", info);
	assert_int_equal(mkdir_p(info, 0700), 0);
	write_text(changed, "x");
	write_text(conf, "x");
	write_text(outside, "x");
	struct strv paths = {0};
	assert_int_equal(strv_push(&paths, outside), 0);
	assert_int_equal(strv_push(&paths, conf), 0); /* protected: read-only inside */
	char *why = NULL;
	assert_int_equal(selfconfig_check(root, &paths, NULL, &why), 0);
	assert_null(why);
	assert_int_equal(strv_push(&paths, changed), 0);
	assert_int_equal(selfconfig_check(root, &paths, NULL, &why), 1);
	assert_non_null(why);
	assert_non_null(strstr(why, changed));
	free(why);

	strv_clear(&paths);
	strv_clear(&protected);
	session_close(&s);
	plan_free(&plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_record_keeps_outermost, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
