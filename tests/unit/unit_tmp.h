/* SPDX-License-Identifier: MIT */
/* A scratch directory per test (cmocka setup and teardown): `tmp` names
 * it; it is removed with all it holds. */
#ifndef ASB_TESTS_UNIT_TMP_H
#define ASB_TESTS_UNIT_TMP_H

#include "util.h"

#include <stdio.h>
#include <stdlib.h>

static char tmp[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/asb-unit-XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(tmp) < 0 ? -1 : 0;
}

#endif
