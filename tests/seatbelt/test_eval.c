/* SPDX-License-Identifier: MIT */
/* The evaluator against hand-written profiles: the semantics it claims
 * (sources in sbpl_eval.c), and what it refuses to read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sbpl_eval.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct sbe_profile *parse(const char *text)
{
	struct sbe_profile *p = NULL;
	char err[256] = "";
	int r = sbe_parse(text, strlen(text), &p, err, sizeof(err));
	if (r < 0)
		fail_msg("parse: %s\n%s", err, text);
	return p;
}

static void parse_fails(const char *text, const char *why)
{
	struct sbe_profile *p = NULL;
	char err[256] = "";
	int r = sbe_parse(text, strlen(text), &p, err, sizeof(err));
	if (r == 0) {
		sbe_free(p);
		fail_msg("accepted, should not: %s\n%s", why, text);
	}
}

static void last_match_wins(void **state)
{
	(void)state;
	struct sbe_profile *p = parse("(version 1)\n(deny default)\n"
	                              "(allow file-read* (subpath \"/etc\"))\n"
	                              "(deny file-read* (literal \"/etc/secret\"))\n"
	                              "(allow file-read* (literal \"/etc/secret/ok\"))\n");
	assert_int_equal(sbe_may_read(p, "/etc/hosts"), 1);
	assert_int_equal(sbe_may_read(p, "/etc/secret"), 0);
	assert_int_equal(sbe_may_read(p, "/etc/secret/ok"), 1);
	assert_int_equal(sbe_may_read(p, "/etcetera"), 0); /* subpath is by component */
	assert_int_equal(sbe_may_read(p, "/usr"), 0);      /* default */
	assert_int_equal(sbe_may_write(p, "/etc/hosts"), 0);
	sbe_free(p);
	/* The other order: the later allow re-opens the earlier deny. */
	p = parse("(version 1)(deny default)(deny file-read* (literal \"/etc/x\"))"
	          "(allow file-read* (subpath \"/etc\"))");
	assert_int_equal(sbe_may_read(p, "/etc/x"), 1);
	sbe_free(p);
}

static void filters_combine(void **state)
{
	(void)state;
	struct sbe_profile *p = parse(
	    "(version 1)(deny default)\n"
	    "(allow file-read* (literal \"/a\") (literal \"/b\"))\n" /* any of them */
	    "(allow file-write* (require-all (subpath \"/w\") (require-not (literal \"/w/x\"))))\n"
	    "(allow process-exec (require-any (literal \"/bin/sh\") (prefix \"/opt/bin/\")))\n");
	assert_int_equal(sbe_may_read(p, "/a"), 1);
	assert_int_equal(sbe_may_read(p, "/b"), 1);
	assert_int_equal(sbe_may_read(p, "/c"), 0);
	assert_int_equal(sbe_may_write(p, "/w/y"), 1);
	assert_int_equal(sbe_may_write(p, "/w/x"), 0);
	assert_int_equal(sbe_may_exec(p, "/bin/sh"), 1);
	assert_int_equal(sbe_may_exec(p, "/opt/bin/tool"), 1);
	assert_int_equal(sbe_may_exec(p, "/opt/binx"), 0);
	sbe_free(p);
}

static void wildcards_and_default(void **state)
{
	(void)state;
	struct sbe_profile *p = parse("(version 1)(deny default)(allow file-read-metadata "
	                              "(literal \"/m\"))(allow file* (literal \"/f\"))");
	assert_int_equal(sbe_may_stat(p, "/m"), 1);
	assert_int_equal(sbe_may_read(p, "/m"), 0);
	assert_int_equal(sbe_may_read(p, "/f"), 1);
	assert_int_equal(sbe_may_write(p, "/f"), 1);
	assert_int_equal(sbe_may_exec(p, "/f"), 0); /* process-exec is not a file* */
	/* [moz]: deny default leaves file-map-executable alone. */
	assert_int_equal(sbe_may_map_exec(p, "/anything"), 1);
	sbe_free(p);
	p = parse("(version 1)(allow default)(deny file-write* (subpath \"/ro\"))");
	assert_int_equal(sbe_may_write(p, "/ro/x"), 0);
	assert_int_equal(sbe_may_write(p, "/rw/x"), 1);
	sbe_free(p);
}

/* The one place the two readings differ: a rule naming the operation
 * itself against a later one naming its wildcard. */
static void models_differ(void **state)
{
	(void)state;
	struct sbe_profile *p = parse("(version 1)(deny default)"
	                              "(deny file-write-unlink (literal \"/w/d\"))"
	                              "(allow file-write* (subpath \"/w\"))");
	struct sbe_query q = {.op = "file-write-unlink", .path = "/w/d"};
	assert_int_equal(sbe_decide(p, SBE_FLAT, &q, NULL), 1);
	assert_int_equal(sbe_decide(p, SBE_SPECIFIC, &q, NULL), 0);
	assert_int_equal(sbe_check(p, &q), -2);
	q.path = "/w/e";
	assert_int_equal(sbe_check(p, &q), 1);
	sbe_free(p);
	/* Specific rules last: both readings agree. */
	p = parse("(version 1)(deny default)(allow file-write* (subpath \"/w\"))"
	          "(deny file-write-unlink (literal \"/w/d\"))");
	q.path = "/w/d";
	assert_int_equal(sbe_check(p, &q), 0);
	sbe_free(p);
}

static void regexes(void **state)
{
	(void)state;
	assert_int_equal(sbe_regex_search("^/dev/ttys[0-9]+$", "/dev/ttys004"), 1);
	assert_int_equal(sbe_regex_search("^/dev/ttys[0-9]+$", "/dev/ttys004x"), 0);
	assert_int_equal(sbe_regex_search("^/dev/ttys", "/dev/ttysX"), 1); /* a search */
	assert_int_equal(sbe_regex_search("ttys", "/dev/ttys1"), 1);
	assert_int_equal(sbe_regex_search("^/a/[.][gG][iI][tT]$", "/a/.GiT"), 1);
	assert_int_equal(sbe_regex_search("^/a/[.][gG][iI][tT]$", "/a/xgit"), 0);
	assert_int_equal(sbe_regex_search("^/a/(s|S|\xc5\xbf)h$", "/a/\xc5\xbfh"), 1);
	assert_int_equal(sbe_regex_search("^/a/(s|S|\xc5\xbf)h$", "/a/Sh"), 1);
	assert_int_equal(sbe_regex_search("^/a/(s|S|\xc5\xbf)h$", "/a/th"), 0);
	assert_int_equal(sbe_regex_search("^/u/[^/]*/x$", "/u/\xc3\xa9t\xc3\xa9/x"), 1);
	assert_int_equal(sbe_regex_search("^/u/[^/]*/x$", "/u/a/b/x"), 0);
	assert_int_equal(sbe_regex_search("^(ab)+c$", "ababc"), 1);
	assert_int_equal(sbe_regex_search("^a{2,3}$", "aaaa"), 0);
	assert_int_equal(sbe_regex_search("^a{2,3}$", "aaa"), 1);
	assert_int_equal(sbe_regex_search("^a.c$", "a/c"), 1);
	assert_int_equal(sbe_regex_search("^[]x]$", "]"), 1);
	/* Outside the subset. */
	assert_true(sbe_regex_search("^(?:a)$", "a") < 0);
	assert_true(sbe_regex_search("^[[:alpha:]]$", "a") < 0);
	assert_true(sbe_regex_search("a**", "a") < 0);
	assert_true(sbe_regex_search("(a", "a") < 0);
	assert_true(sbe_regex_search("[a", "a") < 0);
	/* No exponential blow-up. */
	assert_int_equal(
	    sbe_regex_search("^(a*)*b$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 0);
}

static void network_semantics(void **state)
{
	(void)state;
	struct sbe_profile *p =
	    parse("(version 1)(deny default)\n"
	          "(allow network-outbound (remote tcp \"localhost:3128\"))\n"
	          "(allow network-outbound (remote ip \"*:443\"))\n"
	          "(allow network-bind (local ip \"localhost:*\"))\n"
	          "(allow system-socket (socket-domain AF_UNIX))\n"
	          "(allow network-outbound (remote unix-socket (path-literal \"/var/run/x\")))\n"
	          "(allow network-bind (local unix-socket (subpath \"/w\")))\n");
	assert_int_equal(sbe_may_connect(p, "127.0.0.1", 3128, SBE_PROTO_TCP), 1);
	assert_int_equal(sbe_may_connect(p, "::1", 3128, SBE_PROTO_TCP), 1);
	/* [srt]: localhost is not the IPv4-mapped loopback. */
	assert_int_equal(sbe_may_connect(p, "::ffff:127.0.0.1", 3128, SBE_PROTO_TCP), 0);
	assert_int_equal(sbe_may_connect(p, "127.0.0.1", 3128, SBE_PROTO_UDP), 0);
	assert_int_equal(sbe_may_connect(p, "127.0.0.1", 3129, SBE_PROTO_TCP), 0);
	assert_int_equal(sbe_may_connect(p, "93.184.216.34", 443, SBE_PROTO_TCP), 1);
	assert_int_equal(sbe_may_connect(p, "127.0.0.1", 443, SBE_PROTO_UDP), 1);
	assert_int_equal(sbe_may_connect(p, "93.184.216.34", 80, SBE_PROTO_TCP), 0);
	/* [srt]: in (local ...) localhost is also the any-address. */
	assert_int_equal(sbe_may_bind(p, "127.0.0.1", 8080, SBE_PROTO_TCP), 1);
	assert_int_equal(sbe_may_bind(p, "0.0.0.0", 8080, SBE_PROTO_TCP), 1);
	assert_int_equal(sbe_may_bind(p, "192.168.1.5", 8080, SBE_PROTO_TCP), 0);
	assert_int_equal(sbe_may_unix_connect(p, "/var/run/x"), 1);
	assert_int_equal(sbe_may_unix_connect(p, "/var/run/y"), 0);
	assert_int_equal(sbe_may_unix_bind(p, "/w/sock"), 1);
	assert_int_equal(sbe_may_unix_bind(p, "/var/run/x"), 0);
	/* An IP rule says nothing of a unix socket and the other way round. */
	struct sbe_query q = {.op = "network-outbound", .unix_socket = true, .path = "/w/sock"};
	assert_int_equal(sbe_check(p, &q), 0);
	sbe_free(p);
}

static void processes(void **state)
{
	(void)state;
	struct sbe_profile *p = parse("(version 1)(deny default)"
	                              "(allow signal (target same-sandbox))"
	                              "(allow mach-lookup (global-name \"com.apple.logd\"))"
	                              "(allow sysctl-read)(deny sysctl-read (sysctl-name-prefix "
	                              "\"kern.proc.\"))");
	assert_int_equal(sbe_may_signal(p, "self"), 1);
	assert_int_equal(sbe_may_signal(p, "same-sandbox"), 1);
	assert_int_equal(sbe_may_signal(p, "others"), 0);
	assert_int_equal(sbe_may_lookup(p, "com.apple.logd"), 1);
	assert_int_equal(sbe_may_lookup(p, "com.apple.SecurityServer"), 0);
	assert_int_equal(sbe_may_sysctl(p, "hw.ncpu"), 1);
	assert_int_equal(sbe_may_sysctl(p, "kern.proc.all"), 0);
	sbe_free(p);
}

static void strings_and_comments(void **state)
{
	(void)state;
	struct sbe_profile *p = parse(";; a comment (with \"quotes\"\n"
	                              "(version 1) ; trailing\n(deny default)\n"
	                              "(allow file-read* (literal \"/a \\\"b\\\" \\\\c (d)\"))\n"
	                              "(allow file-read* (regex #\"^/r\\.x$\"))\n"
	                              "(allow file-read* (literal \"/\xc3\xa9t\xc3\xa9\"))\n");
	assert_int_equal(sbe_may_read(p, "/a \"b\" \\c (d)"), 1);
	assert_int_equal(sbe_may_read(p, "/a \"b\" \\c"), 0);
	assert_int_equal(sbe_may_read(p, "/r.x"), 1);
	assert_int_equal(sbe_may_read(p, "/rax"), 0);
	assert_int_equal(sbe_may_read(p, "/\xc3\xa9t\xc3\xa9"), 1);
	sbe_free(p);
}

static void refused(void **state)
{
	(void)state;
	parse_fails("(deny default)", "no version");
	parse_fails("(version 1)(allow file-read*)", "no default rule");
	parse_fails("(version 2)(deny default)", "version 2");
	parse_fails("(version 1)(deny default)(allow file-frobnicate)", "unknown operation");
	parse_fails("(version 1)(deny default)(allow file-read* (literal \"a\"))", "relative");
	parse_fails("(version 1)(deny default)(allow file-read* (literal \"/a\\nb\"))", "escape");
	parse_fails("(version 1)(deny default)(allow file-read* (literal \"/a\nb\"))", "newline");
	parse_fails("(version 1)(deny default)(allow file-read* (literal \"/a\xff\"))",
	            "not UTF-8");
	parse_fails("(version 1)(deny default)(allow file-read* (regex \"^(?:a)\"))", "(?:");
	parse_fails("(version 1)(deny default)(allow file-read* (literal \"/a\")", "unclosed");
	parse_fails("(version 1)(deny default))", "extra )");
	parse_fails("(version 1)(deny default)(allow file-read* (literal \"/a\"", "unterminated");
	parse_fails("(version 1)(deny default)(define x 1)", "define");
	parse_fails("(version 1)(deny default)(allow network-outbound (remote ip \"10.0.0.1:80\"))",
	            "a host other than * or localhost");
	parse_fails("(version 1)(deny default)(allow network-outbound (remote ip \"*:0\"))",
	            "port 0");
	parse_fails("(version 1)(deny default)(allow signal (target pid 4))", "target pid");
	char big[1300];
	int n =
	    snprintf(big, sizeof(big), "(version 1)(deny default)(allow file-read* (literal \"/");
	memset(big + n, 'a', 1100);
	snprintf(big + n + 1100, sizeof(big) - (size_t)n - 1100, "\"))");
	parse_fails(big, "a string over 1025 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(last_match_wins),
	    cmocka_unit_test(filters_combine),
	    cmocka_unit_test(wildcards_and_default),
	    cmocka_unit_test(models_differ),
	    cmocka_unit_test(regexes),
	    cmocka_unit_test(network_semantics),
	    cmocka_unit_test(processes),
	    cmocka_unit_test(strings_and_comments),
	    cmocka_unit_test(refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
