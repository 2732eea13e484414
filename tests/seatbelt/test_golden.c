/* SPDX-License-Identifier: MIT */
/*
 * The profiles for the six agent configs in examples/, compared byte for
 * byte with tests/seatbelt/golden/NAME.sb (reviewed line by line; the
 * README walks through one). SBPL_GOLDEN_UPDATE=1 rewrites them instead.
 * The plans come from plan_fixture.c, which mirrors what the core adds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixture.h"
#include "sbpl.h"
#include "sbpl_eval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct fixture fx;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 65536));
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

static void golden(const char *name)
{
	const char *root = getenv("SRC_ROOT");
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/seatbelt/golden/%s.sb", root ? root : ".", name);
	assert_int_equal(fx_example(&fx, name), 0);
	char why[512] = "", *text = NULL;
	size_t len = 0;
	int r = sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why));
	if (r < 0)
		fail_msg("%s: %s", name, why);
	struct sbe_profile *p = NULL;
	char err[256];
	if (sbe_parse(text, len, &p, err, sizeof(err)) < 0)
		fail_msg("%s does not parse: %s", name, err);
	sbe_free(p);
	const char *update = getenv("SBPL_GOLDEN_UPDATE");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
	} else {
		size_t glen = 0;
		char *want = slurp(path, &glen);
		if (!want)
			fail_msg("%s: missing (SBPL_GOLDEN_UPDATE=1 writes it)", path);
		if (glen != len || memcmp(want, text, len) != 0) {
			size_t line = 1, i = 0;
			for (; i < len && i < glen && want[i] == text[i]; i++)
				line += text[i] == '\n';
			free(want);
			fail_msg("%s differs from %s from line %zu on (SBPL_GOLDEN_UPDATE=1 "
			         "rewrites it)",
			         name, path, line);
		}
		free(want);
	}
	free(text);
	fx_free(&fx);
}

static void claude(void **state)
{
	(void)state;
	golden("claude");
}
static void codex(void **state)
{
	(void)state;
	golden("codex");
}
static void copilot(void **state)
{
	(void)state;
	golden("copilot");
}
static void gemini(void **state)
{
	(void)state;
	golden("gemini");
}
static void opencode(void **state)
{
	(void)state;
	golden("opencode");
}
static void pi(void **state)
{
	(void)state;
	golden("pi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(claude), cmocka_unit_test(codex),    cmocka_unit_test(copilot),
	    cmocka_unit_test(gemini), cmocka_unit_test(opencode), cmocka_unit_test(pi),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
