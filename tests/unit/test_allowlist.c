/* SPDX-License-Identifier: MIT */
/* Deriving allowed_domains from proxy.log lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "allowlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *derive(const char *log)
{
	FILE *in = fmemopen((void *)log, strlen(log), "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(in);
	assert_non_null(out);
	assert_true(allowlist_derive(in, out, "test") >= 0);
	fclose(in);
	fclose(out);
	return buf;
}

static void expect_line(const char *out, const char *line)
{
	if (!strstr(out, line))
		fail_msg("missing \"%s\" in:\n%s", line, out);
}

static void test_reads_and_path_writes(void **state)
{
	(void)state;
	char *out = derive("2026-11-30T10:00:00Z proxy: listening on 127.0.0.1:3128\n"
	                   "2026-11-30T10:00:01Z allowed: GET api.github.com/repos/x\n"
	                   "2026-11-30T10:00:01Z allowed: HEAD api.github.com/repos/y\n"
	                   "2026-11-30T10:00:02Z allowed: POST api.github.com/graphql\n"
	                   "2026-11-30T10:00:03Z blocked: GET example.org/x (domain not allowed)\n"
	                   "2026-11-30T10:00:04Z allowed: POST anthropic.com/v1/messages\n"
	                   "2026-11-30T10:00:05Z allowed: GET anthropic.com/v1/models\n");
	expect_line(out, "{ domain = \"api.github.com\"; methods = [ \"GET\", \"HEAD\" ]; }");
	expect_line(
	    out, "{ domain = \"api.github.com\"; path = \"/graphql\"; methods = [ \"POST\" ]; }");
	expect_line(out, "{ domain = \"example.org\"; methods = [ \"GET\" ]; }");
	/* The path rule replaces the domain's policy under /v1: it keeps GET. */
	expect_line(
	    out,
	    "{ domain = \"anthropic.com\"; path = \"/v1\"; methods = [ \"GET\", \"POST\" ]; }");
	expect_line(out, "allowed_domains = (");
	assert_null(strstr(out, "},\n);")); /* no trailing comma: libconfig rejects it */
	free(out);
}

static void test_many_write_paths_widen(void **state)
{
	(void)state;
	char *out = derive("t allowed: PUT s3.test/a/1\nt allowed: PUT s3.test/b/1\n"
	                   "t allowed: PUT s3.test/c/1\nt allowed: DELETE s3.test/d/1\n"
	                   "t allowed: GET s3.test:8443/e\n");
	expect_line(out,
	            "{ domain = \"s3.test\"; methods = [ \"GET\", \"PUT\", \"DELETE\" ]; ports "
	            "= [ 80, 443, 8443 ]; }");
	assert_null(strstr(out, "path ="));
	free(out);
}

static void test_empty(void **state)
{
	(void)state;
	char *out = derive("nothing to see\n");
	expect_line(out, "0 logged requests to 0 hosts");
	expect_line(out, "allowed_domains = (\n);");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reads_and_path_writes),
	    cmocka_unit_test(test_many_write_paths_widen),
	    cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
