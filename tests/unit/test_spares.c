/* SPDX-License-Identifier: MIT */
/* common/spares.c: a spare is moved into a placeholder's path never over
 * anything, and one that could not be placed (the path taken meanwhile, as
 * by another sandbox's mount point) is left for the next; after exit, what
 * is still empty goes back to the pool and the cleanup leaves it alone.
 * common/placeholders.c: what no spare filled is made, never over anything
 * (a symlink planted there is not followed), and a symlink planted on the
 * way to one is refused (nothing is locked, made or removed through it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spares.h"
#include "unit_tmp.h"

#ifdef __linux__
static int entries(const char *dir)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	return n;
}
#endif

static void test_taken_path_leaves_the_spare(void **state)
{
	(void)state;
#ifdef __linux__ /* where the kernel renames without replacing */
	_cleanup_free_ char *pool = tmp_path("pool"), *project = tmp_path("project"),
	                    *taken = tmp_path("project/.mcp.json"),
	                    *free_path = tmp_path("project/opencode.json"),
	                    *spare = tmp_path("pool/old-0");
	assert_int_equal(mkdir(pool, 0700), 0);
	assert_int_equal(mkdir(project, 0755), 0);
	int fd = open(spare, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);

	/* Both missing when recorded; one is made by someone else before the
	 * spares are placed. */
	struct placeholders p = {0};
	assert_int_equal(placeholders_add(&p, taken, 0), 0);
	assert_int_equal(placeholders_add(&p, free_path, 0), 0);
	FILE *f = fopen(taken, "w");
	assert_non_null(f);
	fputs("theirs", f);
	assert_int_equal(fclose(f), 0);

	/* One spare: the taken path does not use it up, the free one gets it. */
	struct spares s;
	spares_open(&s, pool, "new");
	spares_place(&s, &p);
	_cleanup_free_ char *text = NULL;
	assert_int_equal(read_file(taken, &text, NULL), 0);
	assert_string_equal(text, "theirs");
	struct stat st;
	assert_int_equal(lstat(free_path, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 0);
	assert_int_equal(entries(pool), 0);
	/* Only the one a spare filled is marked: the other is not made over. */
	assert_false(p.items[0].placed);
	assert_true(p.items[1].placed);
	placeholders_make(&p, NULL, NULL);
	_cleanup_free_ char *still = NULL;
	assert_int_equal(read_file(taken, &still, NULL), 0);
	assert_string_equal(still, "theirs");

	/* After exit: the empty one back to the pool, the other left as it
	 * is, and the cleanup removes neither. */
	spares_keep(&s, &p, NULL, NULL);
	placeholders_cleanup(&p, NULL, NULL);
	assert_int_equal(lstat(free_path, &st), -1);
	assert_int_equal(entries(pool), 1);
	free(text);
	text = NULL;
	assert_int_equal(read_file(taken, &text, NULL), 0);
	assert_string_equal(text, "theirs");
	spares_close(&s);
	placeholders_free(&p);
#else
	skip();
#endif
}

static void test_missing_ones_made_never_over_anything(void **state)
{
	(void)state;
	_cleanup_free_ char *project = tmp_path("project"), *dir = tmp_path("project/.claude"),
	                    *file = tmp_path("project/.mcp.json"),
	                    *link = tmp_path("project/opencode.json"), *aim = tmp_path("elsewhere"),
	                    *theirs = tmp_path("project/.vscode");
	assert_int_equal(mkdir(project, 0755), 0);
	struct placeholders p = {0};
	assert_int_equal(placeholders_add(&p, dir, 1), 0);
	assert_int_equal(placeholders_add(&p, file, 0), 0);
	assert_int_equal(placeholders_add(&p, link, 0), 0);
	assert_int_equal(placeholders_add(&p, theirs, 1), 0);
	/* Planted between the record and the making: a symlink, a file. */
	assert_int_equal(symlink(aim, link), 0);
	int fd = open(theirs, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);

	placeholders_make(&p, NULL, NULL);
	struct stat st;
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 0 && (st.st_mode & 0222) == 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(aim, &st), -1);
	assert_int_equal(lstat(theirs, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 1);

	/* After exit the made ones go; what was planted is not ours. */
	placeholders_cleanup(&p, NULL, NULL);
	assert_int_equal(lstat(dir, &st), -1);
	assert_int_equal(lstat(file, &st), -1);
	assert_int_equal(lstat(theirs, &st), 0);
	placeholders_free(&p);
}

/* A nested repository's directory swapped for a symlink between the scan
 * and the record (a sandbox writing the workspace can): the record fails,
 * so nothing is made, renamed or removed where the symlink points. */
static void test_symlink_on_the_way_refused(void **state)
{
	(void)state;
	_cleanup_free_ char *project = tmp_path("project"), *sub = tmp_path("project/sub"),
	                    *sub_git = tmp_path("project/sub/.git"),
	                    *moved = tmp_path("project/sub.real"), *aim = tmp_path("elsewhere"),
	                    *aim_git = tmp_path("elsewhere/.git"),
	                    *through = tmp_path("project/sub/.git/hooks"),
	                    *target = tmp_path("elsewhere/.git/hooks"),
	                    *real_git = tmp_path("project/sub.real/.git"),
	                    *in_moved = tmp_path("project/sub.real/.git/hooks");
	assert_int_equal(mkdir(project, 0755), 0);
	assert_int_equal(mkdir(aim, 0755), 0);
	assert_int_equal(mkdir(aim_git, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(sub_git, 0755), 0);

	/* Recorded fine while it is a directory. */
	struct placeholders p = {0};
	assert_int_equal(placeholders_add(&p, through, 1), 0);
	assert_int_equal(p.n, 1);
	placeholders_free(&p);
	/* Swapped: sub is now a symlink to a directory with the same shape. */
	assert_int_equal(rename(sub, moved), 0);
	assert_int_equal(symlink(aim, sub), 0);
	int r = placeholders_add(&p, through, 1);
	assert_true(r == -ELOOP || r == -ENOTDIR);
	assert_int_equal(p.n, 0);
	placeholders_make(&p, NULL, NULL);
	struct stat st;
	assert_int_equal(lstat(target, &st), -1);
	/* The parent itself a symlink: refused too. */
	assert_int_equal(rmdir(real_git), 0);
	assert_int_equal(symlink(aim_git, real_git), 0);
	r = placeholders_add(&p, in_moved, 1);
	assert_true(r == -ELOOP || r == -ENOTDIR);
	assert_int_equal(p.n, 0);
	assert_int_equal(lstat(target, &st), -1);
	placeholders_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_taken_path_leaves_the_spare, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_ones_made_never_over_anything, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_symlink_on_the_way_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
