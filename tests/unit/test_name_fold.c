/* SPDX-License-Identifier: MIT */
/* common/name_fold.c: which spellings a case-insensitive file system takes
 * for one another, and which listed entry is the object a name resolves
 * to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "name_fold.h"
#include "unit_tmp.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void folds(void **state)
{
	(void)state;
	assert_true(name_folds_equal(".vscode", ".vscode"));
	assert_true(name_folds_equal(".VSCode", ".vscode"));
	assert_true(name_folds_equal(".vscode", ".VSCODE"));
	assert_true(name_folds_equal(".v\xc5\xbf"
	                             "code",
	                             ".vscode")); /* U+017F */
	assert_true(name_folds_equal(".v\xc5\xbf"
	                             "code",
	                             ".V\xc5\xbf"
	                             "CODE"));
	assert_true(name_folds_equal("\xe2\x84\xaa"
	                             "eychains",
	                             "keychains")); /* U+212A */
	/* Full case folding: one character for two or three ASCII letters. */
	assert_true(name_folds_equal(".pre-commit-con\xef\xac\x81g.yaml",
	                             ".pre-commit-config.yaml")); /* U+FB01 fi */
	assert_true(name_folds_equal("\xef\xac\x82"
	                             "ake.nix",
	                             "flake.nix"));                    /* U+FB02 fl */
	assert_true(name_folds_equal(".\xc3\x9fh", ".ssh"));           /* U+00DF */
	assert_true(name_folds_equal(".\xe1\xba\x9eH", ".SSH"));       /* U+1E9E */
	assert_true(name_folds_equal("a\xef\xac\x83x", "affix"));      /* U+FB03 ffi */
	assert_true(name_folds_equal("a\xef\xac\x84y", "AFFLY"));      /* U+FB04 ffl */
	assert_true(name_folds_equal("\xef\xac\x85", "\xef\xac\x86")); /* both st */
	assert_true(name_folds_equal("\xef\xac\x80", "ff"));
	assert_false(name_folds_equal(".\xc3\x9fh", ".sh"));
	assert_false(name_folds_equal(".\xc3\x9f", ".sss"));
	assert_false(name_folds_equal("\xef\xac\x83", "ff"));
	/* Decomposed to ASCII: two Greek marks. */
	assert_true(name_folds_equal("a\xcd\xbe", "a;"));
	assert_true(name_folds_equal("\xe1\xbf\xaf", "`"));
	/* Default-ignorable characters are left out: U+200B, U+00AD, U+FEFF,
	 * U+E0041 (a tag). */
	assert_true(name_folds_equal(".git\xe2\x80\x8b", ".git"));
	assert_true(name_folds_equal(".\xc2\xad"
	                             "G\xef\xbb\xbfit",
	                             ".git"));
	assert_true(name_folds_equal("\xf3\xa0\x81\x81.git", ".git"));
	assert_false(name_folds_equal(".git\xe2\x80\x8a", ".git")); /* U+200A: a space */
	assert_true(name_folds_equal("", ""));
	assert_false(name_folds_equal(".vscode", ".vscod"));
	assert_false(name_folds_equal(".vscod", ".vscode"));
	assert_false(name_folds_equal(".vscode", ".vscodf"));
	assert_false(name_folds_equal(".vscode", ".vscode "));
	/* Only ASCII letters fold: not '[' onto '{' (0x5b, 0x7b), not é onto É. */
	assert_false(name_folds_equal("[", "{"));
	assert_false(name_folds_equal("\xc3\xa9", "\xc3\x89"));
	/* A truncated sequence is bytes, not a letter. */
	assert_false(name_folds_equal("\xc5", "s"));
	assert_false(name_folds_equal("\xe2\x84", "k"));
	/* Folded, as snprintf writes. */
	char out[16];
	assert_int_equal(name_fold(".V\xc5\xbf"
	                           "Code",
	                           out, sizeof(out)),
	                 7);
	assert_string_equal(out, ".vscode");
	assert_int_equal(name_fold("\xe2\x84\xaa"
	                           "EY",
	                           out, 3),
	                 3);
	assert_string_equal(out, "ke");
	assert_int_equal(name_fold("abc", NULL, 0), 3);
	assert_int_equal(name_fold(".Con\xef\xac\x81g\xe2\x80\x8b", out, sizeof(out)), 7);
	assert_string_equal(out, ".config");
	assert_int_equal(name_fold("\xef\xac\x83", out, 3), 3);
	assert_string_equal(out, "ff");
	/* Its first byte, for every spelling alike. */
	assert_int_equal(name_fold_first(".VSCode"), '.');
	assert_int_equal(name_fold_first("Makefile"), 'm');
	assert_int_equal(name_fold_first("\xc5\xbf"
	                                 "ettings"),
	                 's');
	assert_int_equal(name_fold_first("\xe2\x84\xaa"
	                                 "iro"),
	                 'k');
	assert_int_equal(name_fold_first("\xef\xac\x82"
	                                 "ake.nix"),
	                 'f');
	assert_int_equal(name_fold_first("\xe2\x80\x8b.git"), '.');
	assert_int_equal(name_fold_first("\xc3\xa9"), 0xc3);
	assert_int_equal(name_fold_first(""), 0);
}

static void resolves(void **state)
{
	(void)state;
	char p[512];
	/* The same bytes: always (nothing is looked up). */
	assert_true(name_resolves_to(-1, tmp, ".git", ".git"));
	/* A fold of the name that is another object, or none: not it (this
	 * file system tells the two spellings apart). */
	snprintf(p, sizeof(p), "%s/.GIT", tmp);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_false(name_resolves_to(-1, tmp, ".GIT", ".git"));
	snprintf(p, sizeof(p), "%s/.git", tmp);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_false(name_resolves_to(-1, tmp, ".GIT", ".git"));
	/* The same object under both spellings (what a case-insensitive file
	 * system shows; here a hard link): it, by path and by descriptor. */
	snprintf(p, sizeof(p), "%s/.envrc", tmp);
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	char q[512];
	snprintf(q, sizeof(q), "%s/.ENVRC", tmp);
	assert_int_equal(link(p, q), 0);
	assert_true(name_resolves_to(-1, tmp, ".ENVRC", ".envrc"));
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_true(name_resolves_to(dfd, NULL, ".ENVRC", ".envrc"));
	/* Not a fold, whatever the object. */
	snprintf(q, sizeof(q), "%s/other", tmp);
	assert_int_equal(link(p, q), 0);
	assert_false(name_resolves_to(dfd, NULL, "other", ".envrc"));
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(folds),
	    cmocka_unit_test_setup_teardown(resolves, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
