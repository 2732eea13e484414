/* SPDX-License-Identifier: MIT */
/* Minimal TAP assertions for the unit tests. */
#ifndef ASB_RUNSC_CHECK_H
#define ASB_RUNSC_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_n, check_failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		check_n++;                                                                         \
		bool _ok = (cond);                                                                 \
		printf("%s %d - ", _ok ? "ok" : "not ok", check_n);                                \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		if (!_ok) {                                                                        \
			check_failed++;                                                            \
			printf("#   failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);             \
		}                                                                                  \
	} while (0)

static inline int check_done(void)
{
	printf("1..%d\n", check_n);
	return check_failed ? 1 : 0;
}

#endif
