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

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static char *at(const char *rel)
{
	static char buf[4][512];
	static int i;
	char *b = buf[i++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/%s", tmp, rel);
	return b;
}

static void test_venv_root(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("venv"), 0755), 0);
	assert_int_equal(mkdir(at("venv/bin"), 0755), 0);
	char *root = (char *)1;
	/* No pyvenv.cfg yet: not one. */
	assert_int_equal(python_venv_root(at("venv/bin/python3"), &root), 0);
	assert_null(root);
	touch(at("venv/pyvenv.cfg"));
	assert_int_equal(python_venv_root(at("venv/bin/python3"), &root), 0);
	assert_string_equal(root, at("venv"));
	free(root);
	/* A program of it too; the program need not exist to be placed. */
	assert_int_equal(python_venv_root(at("venv/bin/some-tool"), &root), 0);
	assert_string_equal(root, at("venv"));
	free(root);
	/* Not under bin/, or the root's bin itself. */
	assert_int_equal(python_venv_root(at("venv/lib/python3"), &root), 0);
	assert_null(root);
	assert_int_equal(python_venv_root("/bin/python3", &root), 0);
	assert_null(root);
	assert_int_equal(python_venv_root("python3", &root), 0);
	assert_null(root);
	assert_int_equal(python_venv_root(at("venv/bin/"), &root), 0);
	assert_null(root);
	/* "xbin" is not "bin". */
	assert_int_equal(mkdir(at("venv/xbin"), 0755), 0);
	assert_int_equal(python_venv_root(at("venv/xbin/python3"), &root), 0);
	assert_null(root);
	/* A directory named pyvenv.cfg is not the file. */
	assert_int_equal(mkdir(at("other"), 0755), 0);
	assert_int_equal(mkdir(at("other/pyvenv.cfg"), 0755), 0);
	assert_int_equal(python_venv_root(at("other/bin/python3"), &root), 0);
	assert_null(root);
}

static void test_prefix(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("py"), 0755), 0);
	assert_int_equal(mkdir(at("py/bin"), 0755), 0);
	assert_int_equal(mkdir(at("py/lib"), 0755), 0);
	char *prefix = (char *)1;
	/* Without its library directory: not a prefix. */
	assert_int_equal(python_prefix(at("py/bin/python3.12"), &prefix), 0);
	assert_null(prefix);
	assert_int_equal(mkdir(at("py/lib/python3.12"), 0755), 0);
	assert_int_equal(python_prefix(at("py/bin/python3.12"), &prefix), 0);
	assert_string_equal(prefix, at("py"));
	free(prefix);
	/* Only an interpreter's name: pythonX[.Y]. */
	static const char *const not_ones[] = {"py/bin/python3.12-config", "py/bin/python",
	                                       "py/bin/pythonw", "py/bin/ipython3.12",
	                                       "py/lib/python3.12"};
	for (size_t i = 0; i < sizeof(not_ones) / sizeof(not_ones[0]); i++) {
		assert_int_equal(python_prefix(at(not_ones[i]), &prefix), 0);
		assert_null(prefix);
	}
	/* Another version's name: its own library directory, missing here. */
	assert_int_equal(python_prefix(at("py/bin/python3.11"), &prefix), 0);
	assert_null(prefix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_venv_root, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_prefix, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
