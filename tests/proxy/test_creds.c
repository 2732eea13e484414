/* network.credentials: the config (rules/netcreds.c), placeholders, the records
 * of --secrets-fd, the JSON scanner, the guard's matcher and encodings, and how
 * the proxy rewrites heads (proxy/creds.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "creds.h"
#include "guard.h"
#include "json.h"
#include "netrules.h"

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct netrules *parse(const char *text, char *err, size_t errlen)
{
	config_t cfg;
	config_init(&cfg);
	struct netrules *r = NULL;
	if (!config_read_string(&cfg, text)) {
		snprintf(err, errlen, "libconfig: %s", config_error_text(&cfg));
	} else if (netrules_from_setting(config_lookup(&cfg, "network"), &r, err, errlen) < 0) {
		r = NULL;
	}
	config_destroy(&cfg);
	return r;
}

#define NET(creds) "network: { allowed_domains = ( \"test\" ); credentials = ( " creds " ); };"

static void expect_error(const char *text, const char *what)
{
	char err[512] = "";
	struct netrules *r = parse(text, err, sizeof(err));
	if (r || !strstr(err, what))
		fail_msg("expected an error with \"%s\", got \"%s\" for %s", what, err, text);
}

static void test_parse(void **state)
{
	(void)state;
	char err[512] = "";
	struct netrules *r = parse(
	    NET("{ name = \"a\"; value = \"${K}\"; domains = [ \"API.test.\" ]; paths = [ \"/v1\" "
	        "]; "
	        "header = \"x-api-key\"; env = \"K\"; },"
	        "{ value_file = \"~/k\"; domains = [ \"g.test\" ]; basic = \"x-access-token\"; "
	        "add = true; guard = false; },"
	        "{ oauth = \"claude\"; file = \"~/.claude/.credentials.json\"; domains = [ "
	        "\"c.test\" ]; }"),
	    err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->creds.n, 3);
	const struct netcred *a = &r->creds.v[0], *g = &r->creds.v[1], *c = &r->creds.v[2];
	assert_string_equal(a->domains[0], "api.test");
	assert_string_equal(a->value, "${K}"); /* never expanded here */
	assert_int_equal(a->send, NETCRED_HEADER);
	assert_true(a->guard);
	assert_string_equal(g->name, "g.test");
	assert_int_equal(g->send, NETCRED_BASIC);
	assert_string_equal(g->user, "x-access-token");
	assert_true(g->add);
	assert_false(g->guard);
	assert_int_equal(c->oauth, NETCRED_OAUTH_CLAUDE);
	assert_int_equal(c->send, NETCRED_BEARER);
	assert_string_equal(c->name, "claude-oauth");

	const char *v1[] = {"/v1/messages"}, *other[] = {"/v2"}, *two[] = {"/v1/x", "/other"};
	assert_true(netcred_covers(a, "api.test", v1, 1));
	assert_true(netcred_covers(a, "eu.api.test", v1, 1));
	assert_false(netcred_covers(a, "xapi.test", v1, 1));
	assert_false(netcred_covers(a, "api.test", other, 1));
	assert_false(netcred_covers(a, "api.test", two, 2)); /* every reading */
	assert_false(netcred_covers(a, "api.test", NULL, 0));
	assert_true(netcred_covers(g, "g.test", NULL, 0));

	char fp[512];
	assert_true(netcred_fingerprint(a, fp, sizeof(fp)) > 0);
	assert_string_equal(fp,
	                    "a send=x-api-key oauth=0 add=0 guard=1 domains=api.test paths=/v1");
	netrules_free(r);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error(NET("{ value = \"x\"; domains = [ \"*\" ]; header = \"h\"; env = \"X\"; }"),
	             "never to \"*\"");
	expect_error(NET("{ value = \"x\"; value_file = \"y\"; domains = [ \"a.test\" ]; bearer = "
	                 "true; env = \"X\"; }"),
	             "exactly one of value");
	expect_error(NET("{ value = \"x\"; domains = [ \"a.test\" ]; env = \"X\"; }"),
	             "say how it is sent");
	expect_error(
	    NET("{ value = \"x\"; domains = [ \"a.test\" ]; header = \"h\"; bearer = true; "
	        "env = \"X\"; }"),
	    "say how it is sent");
	expect_error(
	    NET("{ value = \"x\"; domains = [ \"a.test\" ]; header = \"Host\"; env = \"X\"; }"),
	    "frames or routes");
	expect_error(NET("{ value = \"x\"; domains = [ \"a.test\" ]; bearer = true; }"),
	             "no placeholder");
	expect_error(
	    NET("{ value = \"x\"; domains = [ \"a.test\" ]; bearer = true; env = \"1X\"; }"),
	    "not a variable name");
	expect_error(NET("{ value = \"x\"; domains = [ \"a.test\" ]; bearer = true; env = \"X\"; "
	                 "paths = [ \"/a/../b\" ]; }"),
	             "dot segment");
	expect_error(NET("{ value = \"x\"; domains = [ \"a.test\" ]; bearer = true; env = \"X\"; "
	                 "colour = 1; }"),
	             "unknown key \"colour\"");
	expect_error(NET("{ oauth = \"codex\"; file = \"f\"; domains = [ \"a.test\" ]; }"),
	             "supported one is \"claude\"");
	expect_error(NET("{ oauth = \"claude\"; domains = [ \"a.test\" ]; }"), "needs its file");
	expect_error(
	    NET("{ name = \"a\"; value = \"x\"; domains = [ \"a.test\" ]; bearer = true; env = "
	        "\"X\"; }, { name = \"a\"; value = \"y\"; domains = [ \"b.test\" ]; bearer = "
	        "true; env = \"Y\"; }"),
	    "a second entry named \"a\"");
	expect_error(
	    NET("{ value = \"x\"; domains = [ \"a.test\" ]; bearer = true; env = \"X\"; }, "
	        "{ value = \"y\"; domains = [ \"b.test\" ]; bearer = true; env = \"X\"; }"),
	    "both put their placeholder into X");
	expect_error(
	    "network: { credentials = ( { value = \"x\"; domains = [ \"a.test\" ]; bearer = "
	    "true; env = \"X\"; } ); };",
	    "need the filtered network");
	expect_error("network: { allowed_domains = ( ); guard_files = ( 1 ); };", "guard_files");
}

static void test_warns_unreachable(void **state)
{
	(void)state;
	char err[512] = "";
	struct netrules *r = parse("network: { allowed_domains = ( \"a.test\" ); credentials = ( { "
	                           "value = \"x\"; domains = [ \"b.test\" ]; bearer = true; env = "
	                           "\"X\"; } ); };",
	                           err, sizeof(err));
	assert_non_null(r);
	assert_non_null(r->warnings);
	assert_non_null(strstr(r->warnings[0], "no allowed_domains entry allows b.test"));
	netrules_free(r);
}

static int counter_rnd(void *buf, size_t n)
{
	static unsigned k;
	for (size_t i = 0; i < n; i++)
		((unsigned char *)buf)[i] = (unsigned char)(k++ * 37 + 11);
	return 0;
}

static void test_placeholders(void **state)
{
	(void)state;
	const char *key =
	    "sk-ant-api03-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	assert_int_equal(netcred_default_prefix(key, strlen(key)), 13);
	assert_int_equal(netcred_default_prefix("ghp_0123456789abcdef0123", 24), 4);
	assert_int_equal(netcred_default_prefix("sk-proj-xyz0123456789abcdefghi", 30), 8);
	/* A value with no such prefix keeps none of itself. */
	assert_int_equal(netcred_default_prefix("AbCdEf-0123456789ABCDEF", 23), 0);
	assert_int_equal(netcred_default_prefix("abcdefgh-rest0123456789abcdef", 29), 0);
	assert_int_equal(netcred_default_prefix("123-456-0123456789abcdefgh", 26), 0);
	char *ph = NULL;
	assert_int_equal(netcred_placeholder(key, strlen(key), NULL, counter_rnd, &ph),
	                 (int)strlen(key));
	assert_memory_equal(ph, "sk-ant-api03-", 13);
	assert_string_not_equal(ph, key);
	free(ph);
	const char *hex = "0123456789abcdef0123456789abcdef01234567";
	assert_int_equal(netcred_placeholder(hex, strlen(hex), NULL, counter_rnd, &ph), 40);
	for (const char *p = ph; *p; p++)
		assert_non_null(strchr("0123456789abcdef", *p));
	free(ph);
	/* Short values get a longer placeholder: at least 16 random characters. */
	assert_int_equal(netcred_placeholder("short", 5, "pre-", counter_rnd, &ph), 20);
	assert_memory_equal(ph, "pre-", 4);
	free(ph);
}

static int collect_cb(void *arg, char tag, int index, const char *d, size_t n)
{
	char *out = arg;
	size_t o = strlen(out);
	snprintf(out + o, 256 - o, "%c%d[%.*s]", tag, index, (int)n, d);
	return 0;
}

static void test_records(void **state)
{
	(void)state;
	struct netsecrets_buf b;
	assert_int_equal(netsecrets_begin(&b), 0);
	assert_int_equal(netsecrets_add(&b, 'B', 3, "fp", 2), 0);
	assert_int_equal(netsecrets_add(&b, 'V', 3, "a\nb", 3), 0); /* any bytes */
	assert_int_equal(netsecrets_add(&b, 'G', 0, "", 0), 0);
	assert_int_equal(netsecrets_end(&b), 0);
	char out[256] = "";
	assert_int_equal(netsecrets_parse(b.p, b.len, collect_cb, out), 0);
	assert_string_equal(out, "B3[fp]V3[a\nb]G0[]");
	/* Truncated anywhere: refused. */
	for (size_t n = 0; n < b.len; n++) {
		out[0] = '\0';
		assert_int_equal(netsecrets_parse(b.p, n, collect_cb, out), -EBADMSG);
	}
	netsecrets_buf_wipe(&b);
	assert_null(b.p);
	const char *bad[] = {"ASB-SECRETS 1\nV 01 1\nx\nEND\n", "ASB-SECRETS 1\nV 1 2\nx\nEND\n",
	                     "ASB-SECRETS 1\nv 1 1\nx\nEND\n", "ASB-SECRETS 2\nEND\n",
	                     "ASB-SECRETS 1\nEND\nX"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(netsecrets_parse(bad[i], strlen(bad[i]), collect_cb, out),
		                 -EBADMSG);
}

static void test_json(void **state)
{
	(void)state;
	const char *doc = "{ \"claudeAiOauth\" : {\"accessToken\":\"sk-1\", \"n\":[1,{\"a\":2}], "
	                  "\"refreshToken\":\"sk-2\",\"expiresAt\":17e3}, \"x\":\"\\u00e9\\\"\" }";
	const char *acc[] = {"claudeAiOauth", "accessToken"},
	           *exp[] = {"claudeAiOauth", "expiresAt"};
	const char *none[] = {"claudeAiOauth", "nope"}, *esc[] = {"x"};
	struct json_span s;
	const char *p;
	size_t n;
	assert_int_equal(json_find(doc, strlen(doc), acc, 2, &s), 1);
	assert_true(json_plain_string(doc, &s, &p, &n));
	assert_int_equal(n, 4);
	assert_memory_equal(p, "sk-1", 4);
	assert_int_equal(json_find(doc, strlen(doc), exp, 2, &s), 1);
	assert_int_equal(s.type, JSON_NUMBER);
	assert_memory_equal(doc + s.off, "17e3", 4);
	assert_int_equal(json_find(doc, strlen(doc), none, 2, &s), 0);
	assert_int_equal(json_find(doc, strlen(doc), esc, 1, &s), 1);
	assert_false(json_plain_string(doc, &s, &p, &n)); /* escapes: not taken */
	const char *bad[] = {"{",    "{\"a\":}", "{\"a\":1,}", "[1 2]",           "{\"a\":tru}",
	                     "{} x", "\"\\x\"",  "{\"a\":01}", "{\"a\":\"\x01\"}"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(json_find(bad[i], strlen(bad[i]), esc, 1, &s), -EBADMSG);
	/* Duplicates: the last wins, as JavaScript reads it. */
	const char *dup = "{\"x\":\"first\",\"x\":\"last\"}";
	assert_int_equal(json_find(dup, strlen(dup), esc, 1, &s), 1);
	assert_memory_equal(dup + s.off, "\"last\"", 6);
}

static bool found(struct guard *g, const char *text, uint64_t *ph, int *secret)
{
	struct guard_scan s;
	guard_scan_init(&s);
	/* One byte at a time: matches span reads. */
	for (size_t i = 0; text[i]; i++)
		guard_feed(g, &s, text + i, 1);
	*ph = s.placeholders;
	*secret = s.secret;
	return guard_hit(&s);
}

static void test_guard(void **state)
{
	(void)state;
	const char *sec = "s3cr3t/Value+xyz", *ph = "PLACEHOLDER-0123";
	struct guard_builder *b = guard_builder_new();
	assert_non_null(b);
	assert_int_equal(guard_add(b, sec, strlen(sec), 5, true), 0);
	assert_int_equal(guard_add(b, ph, strlen(ph), GUARD_PLACEHOLDER | 2, true), 0);
	struct guard *g = guard_build(b);
	guard_builder_free(b);
	assert_non_null(g);
	assert_true(guard_max_len(g) >= 3 * strlen(sec));
	uint64_t m;
	int s;
	char buf[256], enc[128];
	assert_true(found(g, "xx s3cr3t/Value+xyz yy", &m, &s));
	assert_int_equal(s, 5);
	assert_int_equal(m, 0);
	assert_true(found(g, "a=placeholder-0123", &m, &s)); /* lower case */
	assert_int_equal(m, 1u << 2);
	assert_int_equal(s, -1);
	assert_false(found(g, "s3cr3t/Value+xy and PLACEHOLDER-012", &m, &s));
	for (int k = 0; k < 3; k++) { /* base64, at every offset */
		char in[64];
		snprintf(in, sizeof(in), "%.*s%s!", k, "ab", sec);
		guard_base64((const unsigned char *)in, strlen(in), enc);
		snprintf(buf, sizeof(buf), "data=%s", enc);
		assert_true(found(g, buf, &m, &s));
		assert_int_equal(s, 5);
		for (char *p = enc; *p; p++) /* and base64url */
			*p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
		assert_true(found(g, enc, &m, &s));
	}
	assert_true(found(g, "73336372337421", &m, &s) || true); /* unrelated hex: no claim */
	assert_true(found(g, "7333637233742f56616c75652b78797a", &m, &s)); /* hex */
	assert_true(found(g, "7333637233742F56616C75652B78797A", &m, &s)); /* HEX */
	assert_true(found(g, "s3cr3t%2FValue%2Bxyz", &m, &s));             /* reserved only */
	assert_true(found(g, "s3cr3t%2fValue%2bxyz", &m, &s));
	assert_true(found(g, "%73%33%63%72%33%74%2F%56%61%6C%75%65%2B%78%79%7A", &m, &s));
	assert_false(found(g, "nothing to see here, not even s3cr3t", &m, &s));
	guard_unref(g);

	unsigned char dec[64];
	assert_int_equal(guard_unbase64("YWJj", 4, dec), 3);
	assert_int_equal(guard_unbase64("YWI=", 4, dec), 2);
	assert_int_equal(guard_unbase64("Y!Jj", 4, dec), -1);
}

/* The proxy's rewriting, on a store made by hand (as creds_load fills it). */
static void test_rewrite(void **state)
{
	(void)state;
	char err[512] = "";
	struct netrules *r = parse(NET("{ name = \"h\"; value = \"x\"; domains = [ \"h.test\" ]; "
	                               "header = \"x-api-key\"; env "
	                               "= \"H\"; },"
	                               "{ name = \"b\"; value = \"x\"; domains = [ \"b.test\" ]; "
	                               "basic = \"me\"; add = true; },"
	                               "{ name = \"q\"; value = \"x\"; domains = [ \"q.test\" ]; "
	                               "query = \"key\"; add = true; }"),
	                           err, sizeof(err));
	assert_non_null(r);
	static struct creds cs;
	memset(&cs, 0, sizeof(cs));
	cs.n = 3;
	const char *vals[][2] = {{"REAL-h-0123456789", "PH-h-abcdefghijkl"},
	                         {"REAL-b-0123456789", "PH-b-abcdefghijkl"},
	                         {"REAL-q-0123456789", "PH-q-abcdefghijkl"}};
	for (int i = 0; i < 3; i++) {
		cs.v[i] = (struct pcred){.def = &r->creds.v[i], .active = true};
		cs.v[i].real = strdup(vals[i][0]);
		cs.v[i].ph = strdup(vals[i][1]);
	}
	char *out = NULL;
	size_t n = 0;
	uint64_t which = 0;
	struct http_str name = {"X-Api-Key", 9}, val = {"PH-h-abcdefghijkl", 17};
	assert_int_equal(creds_rewrite_header(&cs, 1, name, val, &out, &n, &which), 1);
	assert_string_equal(out, "REAL-h-0123456789");
	assert_int_equal(which, 1);
	free(out);
	/* Not injected (another host): left alone. */
	assert_int_equal(creds_rewrite_header(&cs, 2, name, val, &out, &n, &which), 0);
	char basic[256], b64[64];
	guard_base64((const unsigned char *)"me:PH-b-abcdefghijkl", 20, b64);
	snprintf(basic, sizeof(basic), "Basic %s", b64);
	struct http_str auth = {"authorization", 13}, bv = {basic, strlen(basic)};
	which = 0;
	assert_int_equal(creds_rewrite_header(&cs, 2, auth, bv, &out, &n, &which), 1);
	guard_base64((const unsigned char *)"me:REAL-b-0123456789", 20, b64);
	snprintf(basic, sizeof(basic), "Basic %s", b64);
	assert_string_equal(out, basic);
	free(out);
	assert_int_equal(creds_added_headers(&cs, 2, 0, &out, &n, &which), 0);
	snprintf(basic, sizeof(basic), "Authorization: Basic %s\r\n", b64);
	assert_string_equal(out, basic);
	free(out);
	assert_int_equal(creds_added_headers(&cs, 2, 2, &out, &n, &which), 0); /* present */
	assert_null(out);
	struct http_str q = {"a=1&key=PH-q-abcdefghijkl", 25};
	assert_int_equal(creds_rewrite_query(&cs, 4, q, &out, &n, &which), 1);
	assert_string_equal(out, "a=1&key=REAL-q-0123456789");
	free(out);
	assert_int_equal(creds_added_query(&cs, 4, q, &out, &n, &which), 0);
	assert_null(out); /* it has key= */
	struct http_str q2 = {"a=1", 3};
	assert_int_equal(creds_added_query(&cs, 4, q2, &out, &n, &which), 0);
	assert_string_equal(out, "&key=REAL-q-0123456789");
	free(out);
	for (int i = 0; i < 3; i++) {
		free(cs.v[i].real);
		free(cs.v[i].ph);
	}
	netrules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_warns_unreachable),
	    cmocka_unit_test(test_placeholders),
	    cmocka_unit_test(test_records),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_guard),
	    cmocka_unit_test(test_rewrite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
