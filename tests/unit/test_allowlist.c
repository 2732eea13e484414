/* SPDX-License-Identifier: MIT */
/* Deriving allowed_domains from proxy.log lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "allowlist.h"
#include "netrules.h"
#include "util.h"

#include <libconfig.h>
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
	/* A denial never becomes a rule. */
	assert_null(strstr(out, "example.org"));
	expect_line(out, "# 1 blocked request is not turned into rules");
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
	expect_line(out, "0 allowed requests, 0 new hosts");
	expect_line(out, "allowed_domains = (\n);");
	free(out);
}

/* The block parses as a network group, and every entry holds only the keys and
 * values the log could justify: never allow_private, never a domain not logged. */
static struct netrules *parse_block(const char *out)
{
	char *text = NULL;
	assert_non_null(text = str_printf("network: {\n%s};\n", out));
	config_t cfg;
	config_init(&cfg);
	if (!config_read_string(&cfg, text))
		fail_msg("not a config (%s, line %d):\n%s", config_error_text(&cfg),
		         config_error_line(&cfg), text);
	struct netrules *r = NULL;
	char err[256] = "";
	if (netrules_from_setting(config_lookup(&cfg, "network"), &r, err, sizeof(err)) < 0)
		fail_msg("rules refused (%s):\n%s", err, text);
	for (size_t i = 0; i < r->n_rules; i++)
		assert_false(r->rules[i].allow_private);
	config_destroy(&cfg);
	free(text);
	return r;
}

static void test_injection(void **state)
{
	(void)state;
	char *out = derive(
	    /* a path that would close its string and add a key, then an entry */
	    "t allowed: POST a.test/x\";allow_private=true;path=\"/\n"
	    "t allowed: POST a.test/x\"},{domain=\"evil.test\";allow_private=true;},{domain="
	    "\"a.test\";path=\"/x\n"
	    "t allowed: GET a.test/x\\\"\n" /* a backslash before a quote */
	    "t allowed: G\"ET a.test/\n"    /* a quote in the method */
	    "t allowed: GET a.test\";}/x\n" /* ... in the host */
	    "t allowed: GET A.TEST/x\n"     /* not a normalised host */
	    "t allowed: GET a.test:99999/x\n"
	    "t allowed: GET a.test:80x/x\n"
	    "t allowed: GET a.test/x;allow_private=true\n"
	    "t allowed: GET a.test/x{y}\n"
	    "t allowed: GET a.test/%zz\n"
	    "t allowed: GET a.test/x\\x0a2026-01-01T00:00:00Z\n" /* as the log escapes a LF */
	    "t allowed: GET a.test/x extra words\n"
	    "t blocked: GET a.test/x\"y (domain not allowed)\n"
	    /* " allowed: " inside another line is not a request */
	    "t proxy: cannot resolve x allowed: GET inner.test/\n"
	    "t allowed: GET [::1]:8080/ok\n"
	    "t allowed: GET [::1\"]/x\n"
	    "t allowed: GET ok.test/fine/path%20x\n");
	assert_null(strstr(out, "evil.test"));
	assert_null(strstr(out, "inner.test"));
	assert_null(strstr(out, "allow_private"));
	assert_null(strstr(out, "a.test")); /* every a.test line was crafted */
	expect_line(out, "# 14 request lines skipped");
	expect_line(out, "# 1 blocked request is not turned into rules");
	expect_line(out, "{ domain = \"ok.test\"; methods = [ \"GET\" ]; }");
	expect_line(out,
	            "{ domain = \"[::1]\"; methods = [ \"GET\" ]; ports = [ 80, 443, 8080 ]; }");
	struct netrules *r = parse_block(out);
	assert_int_equal(r->n_rules, 2);
	netrules_free(r);
	free(out);
}

static void test_source_name(void **state)
{
	(void)state;
	FILE *in = fmemopen("t allowed: GET a.test/\n", 23, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_int_equal(allowlist_derive(in, out, "/x\nallowed_domains = ( \"*\" );\n#"), 1);
	fclose(in);
	fclose(out);
	expect_line(buf, "# From /x?allowed_domains = ( \"*\" );?#: 1 allowed request");
	struct netrules *r = parse_block(buf);
	assert_int_equal(r->n_rules, 1);
	assert_string_equal(r->rules[0].domain, "a.test");
	netrules_free(r);
	free(buf);
}

static struct netrules *rules_of(const char *text)
{
	config_t cfg;
	config_init(&cfg);
	if (!config_read_string(&cfg, text))
		fail_msg("not a config: %s", text);
	struct netrules *r = NULL;
	char err[256] = "";
	if (netrules_from_setting(config_lookup(&cfg, "network"), &r, err, sizeof(err)) < 0)
		fail_msg("rules refused (%s)", err);
	config_destroy(&cfg);
	return r;
}

static char *derive_merged(const char *log, const struct netrules *session)
{
	FILE *in = fmemopen((void *)log, strlen(log), "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_true(allowlist_derive_merged(in, out, "test", session) >= 0);
	fclose(in);
	fclose(out);
	return buf;
}

/* What the session already allowed stays as it was; only what its "*"
 * decided is derived; the catch-all is left out, as a comment. */
static void test_merge_with_session(void **state)
{
	(void)state;
	struct netrules *session = rules_of(
	    "network: { allowed_domains = ( { domain = \"api.github.com\"; methods = [ \"GET\", "
	    "\"POST\" ]; }, { domain = \"a.test\"; path = \"/up\"; methods = [ \"PUT\" ]; "
	    "ports = [ 8443 ]; allow_private = true; }, \"*\" ); };");
	char *out = derive_merged("t allowed: POST api.github.com/graphql\n"
	                          "t allowed: GET api.github.com/user\n"
	                          "t allowed: PUT a.test:8443/up/x\n"
	                          "t allowed: GET a.test:8443/other\n"
	                          "t allowed: GET new.test/x\n"
	                          "t blocked: DELETE api.github.com/x (method not allowed)\n",
	                          session);
	/* No path rule for /graphql: it would replace the GET and POST allowed. */
	expect_line(out, "{ domain = \"api.github.com\"; methods = [ \"GET\", \"POST\" ]; }");
	assert_null(strstr(out, "/graphql"));
	expect_line(out, "{ domain = \"a.test\"; path = \"/up\"; methods = [ \"PUT\" ]; ports = [ "
	                 "8443 ]; allow_private = true; }");
	/* a.test's other path was the catch-all's: a domain rule of its own. */
	expect_line(out,
	            "{ domain = \"a.test\"; methods = [ \"GET\" ]; ports = [ 80, 443, 8443 ]; }");
	expect_line(out, "{ domain = \"new.test\"; methods = [ \"GET\" ]; }");
	expect_line(out, "# 3 of them were allowed by the session's own entries");
	expect_line(out, "#   { domain = \"*\"; }");
	assert_null(strstr(out, "DELETE"));
	char *text = str_printf("network: {\n%s};\n", out);
	struct netrules *r = rules_of(text);
	assert_int_equal(r->n_rules, 4);
	netrules_free(r);
	free(text);
	netrules_free(session);
	free(out);
}

/* An allowed upgrade keeps working: its rule allows every method; a write at
 * the root never becomes the path rule "/" (it would cover every path). */
static void test_websocket_and_root(void **state)
{
	(void)state;
	char *out = derive("t allowed: GET chat.test/backend/ws (websocket)\n"
	                   "t allowed: GET chat.test/models\n"
	                   "t allowed: GET root.test/x\n"
	                   "t allowed: POST root.test/\n"
	                   "t allowed: GET all.test/ (websocket)\n");
	expect_line(out,
	            "# a WebSocket upgrade was allowed: every method\n  { domain = \"chat.test\"; "
	            "path = \"/backend\"; }");
	expect_line(out, "{ domain = \"chat.test\"; methods = [ \"GET\" ]; }");
	expect_line(out, "{ domain = \"root.test\"; methods = [ \"GET\", \"POST\" ]; }");
	expect_line(out, "{ domain = \"all.test\"; }");
	assert_null(strstr(out, "path = \"/\""));
	struct netrules *r = parse_block(out);
	struct netrules_decision d;
	netrules_match(r, "chat.test", "GET", "/backend/ws", &d);
	assert_true(d.verdict == NETRULES_ALLOW && netrules_all_methods(d.rule));
	netrules_free(r);
	free(out);
}

/* Lines of random bytes around the real shape: the block always parses, and only
 * names that were logged plainly appear in it. */
static void test_random_lines(void **state)
{
	(void)state;
	static const char alphabet[] = "aZ09./:;\"\\{}()[],=#%\x01\n\r\t -_~!$&'*+@?\x7f\xff";
	char *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);
	unsigned seed = 12345;
	for (int i = 0; i < 3000; i++) {
		fputs(i % 2 ? "t allowed: " : "t blocked: ", f);
		int n = 3 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 40;
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			fputc(alphabet[(seed >> 16) % (sizeof(alphabet) - 1)], f);
		}
		fputc('\n', f);
	}
	fclose(f);
	char *out = derive(log);
	struct netrules *r = parse_block(out);
	netrules_free(r);
	free(out);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reads_and_path_writes),
	    cmocka_unit_test(test_many_write_paths_widen),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_injection),
	    cmocka_unit_test(test_source_name),
	    cmocka_unit_test(test_random_lines),
	    cmocka_unit_test(test_merge_with_session),
	    cmocka_unit_test(test_websocket_and_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
