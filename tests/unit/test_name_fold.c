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

/* Pairs of names, and whether they fold alike. */
static const struct {
	const char *a, *b;
	bool equal;
} pairs[] = {
    {".vscode", ".vscode", true},
    {".VSCode", ".vscode", true},
    {".vscode", ".VSCODE", true},
    {".v\xc5\xbf"
     "code",
     ".vscode", true}, /* U+017F */
    {".v\xc5\xbf"
     "code",
     ".V\xc5\xbf"
     "CODE",
     true},
    {"\xe2\x84\xaa"
     "eychains",
     "keychains", true}, /* U+212A */
    /* Full case folding: one character for two or three ASCII letters. */
    {".pre-commit-con\xef\xac\x81g.yaml", ".pre-commit-config.yaml", true}, /* U+FB01 fi */
    {"\xef\xac\x82"
     "ake.nix",
     "flake.nix", true},                    /* U+FB02 fl */
    {".\xc3\x9fh", ".ssh", true},           /* U+00DF */
    {".\xe1\xba\x9eH", ".SSH", true},       /* U+1E9E */
    {"a\xef\xac\x83x", "affix", true},      /* U+FB03 ffi */
    {"a\xef\xac\x84y", "AFFLY", true},      /* U+FB04 ffl */
    {"\xef\xac\x85", "\xef\xac\x86", true}, /* both st */
    {"\xef\xac\x80", "ff", true},
    {".\xc3\x9fh", ".sh", false},
    {".\xc3\x9f", ".sss", false},
    {"\xef\xac\x83", "ff", false},
    /* Decomposed to ASCII: two Greek marks. */
    {"a\xcd\xbe", "a;", true},
    {"\xe1\xbf\xaf", "`", true},
    /* Default-ignorable characters are left out: U+200B, U+00AD, U+FEFF,
     * U+E0041 (a tag); U+200A is a space, not one of them. */
    {".git\xe2\x80\x8b", ".git", true},
    {".\xc2\xad"
     "G\xef\xbb\xbfit",
     ".git", true},
    {"\xf3\xa0\x81\x81.git", ".git", true},
    {".git\xe2\x80\x8a", ".git", false},
    {"", "", true},
    {".vscode", ".vscod", false},
    {".vscode", ".vscodf", false},
    {".vscode", ".vscode ", false},
    /* Nothing else folds: not '[' onto '{' (0x5b, 0x7b), not é onto É. */
    {"[", "{", false},
    {"\xc3\xa9", "\xc3\x89", false},
    /* A truncated sequence is bytes, not a letter. */
    {"\xc5", "s", false},
    {"\xe2\x84", "k", false},
};

static void folds(void **state)
{
	(void)state;
	/* Each pair both ways: folding alike is symmetric. */
	for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++) {
		assert_int_equal(name_folds_equal(pairs[i].a, pairs[i].b), pairs[i].equal);
		assert_int_equal(name_folds_equal(pairs[i].b, pairs[i].a), pairs[i].equal);
	}
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
