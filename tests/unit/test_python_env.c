/* SPDX-License-Identifier: MIT */
/* core/python_env.c: a program's virtual environment (ROOT/bin/NAME with
 * ROOT/pyvenv.cfg a regular file) and an interpreter's prefix
 * (PREFIX/bin/pythonX.Y with PREFIX/lib/pythonX.Y a directory); anything
 * else is neither. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python_env.h"
#include "unit_tmp.h"

/* Make each of `rels` under the scratch directory: a directory, or a file
 * where the name ends in ".cfg". */
static void make(const char *const *rels)
{
	for (; *rels; rels++) {
		_cleanup_free_ char *p = tmp_path(*rels);
		size_t n = strlen(p);
		if (n > 4 && strcmp(p + n - 4, ".cfg") == 0) {
			int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			assert_true(fd >= 0);
			close(fd);
		} else {
			assert_int_equal(mkdir(p, 0755), 0);
		}
	}
}

/* What `fn` says of the scratch path `rel`: "" for none, else the found
 * directory relative to the scratch directory. */
static char *said(int (*fn)(const char *, char **), const char *rel)
{
	_cleanup_free_ char *p = rel[0] == '/' ? strdup(rel) : tmp_path(rel);
	assert_non_null(p);
	char *out = (char *)1;
	assert_int_equal(fn(p, &out), 0);
	if (!out)
		return strdup("");
	size_t n = strlen(tmp);
	assert_int_equal(strncmp(out, tmp, n), 0);
	char *rel_out = strdup(out[n] ? out + n + 1 : "");
	free(out);
	return rel_out;
}

#define EXPECT(fn, rel, want)                                                                      \
	do {                                                                                       \
		_cleanup_free_ char *got = said(fn, rel);                                          \
		assert_string_equal(got, want);                                                    \
	} while (0)

static void test_venv_root(void **state)
{
	(void)state;
	make((const char *const[]){"venv", "venv/bin", NULL});
	/* No pyvenv.cfg yet: not one. */
	EXPECT(python_venv_root, "venv/bin/python3", "");
	make((const char *const[]){"venv/pyvenv.cfg", NULL});
	EXPECT(python_venv_root, "venv/bin/python3", "venv");
	/* A program of it too; the program need not exist to be placed. */
	EXPECT(python_venv_root, "venv/bin/some-tool", "venv");
	/* Not under bin/, or the root's bin itself. */
	EXPECT(python_venv_root, "venv/lib/python3", "");
	EXPECT(python_venv_root, "/bin/python3", "");
	EXPECT(python_venv_root, "venv/bin/", "");
	char *out = (char *)1;
	assert_int_equal(python_venv_root("python3", &out), 0);
	assert_null(out);
	/* "xbin" is not "bin". */
	make((const char *const[]){"venv/xbin", NULL});
	EXPECT(python_venv_root, "venv/xbin/python3", "");
	/* A directory named pyvenv.cfg is not the file. */
	make((const char *const[]){"other", NULL});
	_cleanup_free_ char *dir_cfg = tmp_path("other/pyvenv.cfg");
	assert_int_equal(mkdir(dir_cfg, 0755), 0);
	EXPECT(python_venv_root, "other/bin/python3", "");
}

static void test_prefix(void **state)
{
	(void)state;
	make((const char *const[]){"py", "py/bin", "py/lib", NULL});
	/* Without its library directory: not a prefix. */
	EXPECT(python_prefix, "py/bin/python3.12", "");
	make((const char *const[]){"py/lib/python3.12", NULL});
	EXPECT(python_prefix, "py/bin/python3.12", "py");
	/* Only an interpreter's name: pythonX[.Y]. */
	static const char *const not_ones[] = {"py/bin/python3.12-config", "py/bin/python",
	                                       "py/bin/pythonw", "py/bin/ipython3.12",
	                                       "py/lib/python3.12"};
	for (size_t i = 0; i < sizeof(not_ones) / sizeof(not_ones[0]); i++)
		EXPECT(python_prefix, not_ones[i], "");
	/* Another version's name: its own library directory, missing here. */
	EXPECT(python_prefix, "py/bin/python3.11", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_venv_root, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prefix, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
