/* SPDX-License-Identifier: MIT */
/* A scratch directory per test (cmocka setup and teardown): `tmp` names
 * it, resolved (macOS's /tmp is a symlink, and paths handed to the
 * placeholders must have none); it is removed with all it holds. */
#ifndef ASB_TESTS_UNIT_TMP_H
#define ASB_TESTS_UNIT_TMP_H

#include "util.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static char tmp[256];

static int setup(void **state)
{
	(void)state;
	char made[sizeof(tmp)] = "/tmp/asb-unit-XXXXXX";
	char real[PATH_MAX];
	if (!mkdtemp(made) || !realpath(made, real) || strlen(real) >= sizeof(tmp))
		return -1;
	memcpy(tmp, real, strlen(real) + 1);
	return 0;
}

/* A path under the scratch directory (malloc'd: _cleanup_free_ it). */
static inline char *tmp_path(const char *rel)
{
	return str_printf("%s/%s", tmp, rel);
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(tmp) < 0 ? -1 : 0;
}

#endif
