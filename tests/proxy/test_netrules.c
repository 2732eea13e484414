/* Domain rules: config parsing and the one-entry-decides matching of SPEC.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostcheck.h"
#include "netrules.h"

static struct netrules *parse(const char *text, char *err, size_t errlen)
{
	config_t cfg;
	struct netrules *r = NULL;
	config_init(&cfg);
	if (!config_read_string(&cfg, text)) {
		snprintf(err, errlen, "syntax: %s at %d", config_error_text(&cfg),
		         config_error_line(&cfg));
		config_destroy(&cfg);
		return NULL;
	}
	if (netrules_from_setting(config_lookup(&cfg, "network"), &r, err, errlen) < 0)
		r = NULL;
	config_destroy(&cfg);
	return r;
}

static struct netrules *must_parse(const char *text)
{
	char err[512] = "";
	struct netrules *r = parse(text, err, sizeof(err));
	if (!r)
		fail_msg("parse failed: %s", err);
	return r;
}

struct vec {
	const char *host; /* raw, normalised by the test as the proxy does */
	const char *method;
	const char *path; /* raw, normalised too */
	enum netrules_verdict want;
};

static void run_vectors(const char *cfg, const struct vec *v, size_t n)
{
	struct netrules *r = must_parse(cfg);
	static struct netrules_paths paths;
	for (size_t i = 0; i < n; i++) {
		char host[HOST_MAX];
		bool is_ip;
		struct netrules_decision d;
		assert_int_equal(
		    host_normalize(v[i].host, strlen(v[i].host), host, sizeof(host), &is_ip), 0);
		if (netrules_path_readings(v[i].path, strlen(v[i].path), &paths) < 0) {
			if (v[i].want != NETRULES_DENY_AMBIGUOUS)
				fail_msg("vector %zu: %s refused", i, v[i].path);
			continue;
		}
		netrules_decide(r, host, v[i].method, &paths, 80, false, &d);
		if (d.verdict != v[i].want)
			fail_msg("vector %zu: %s %s%s: got \"%s\", want \"%s\"", i, v[i].method,
			         v[i].host, v[i].path, netrules_reason(d.verdict),
			         netrules_reason(v[i].want));
		if (d.verdict == NETRULES_ALLOW || d.verdict == NETRULES_DENY_METHOD)
			assert_non_null(d.rule);
	}
	netrules_free(r);
}

#define A NETRULES_ALLOW
#define D NETRULES_DENY_DOMAIN
#define P NETRULES_DENY_PATH
#define M NETRULES_DENY_METHOD
#define X NETRULES_DENY_AMBIGUOUS

static const char cfg_a[] =
    "network: { allowed_domains = (\n"
    "  \"example.com\",\n"
    "  { domain = \"api.example.com\"; methods = [ \"GET\", \"HEAD\" ]; },\n"
    "  { domain = \"api.example.com\"; path = \"/graphql\"; methods = [ \"POST\" ]; },\n"
    "  \"only.paths.org/v1\",\n"
    "  { domain = \"only.paths.org\"; path = \"/v1/admin\"; methods = [ \"GET\" ]; },\n"
    "  \"docs.org/Guide\",\n"
    "  \"127.0.0.1\",\n"
    "  \"[::1]\",\n"
    "  \"gh.io/a/\",\n"
    "  \"xn--bcher-kva.example\",\n"
    "  { domain = \"git.corp\"; path = \"/\"; methods = [ \"GET\" ]; },\n"
    "  { domain = \"star.org\"; methods = \"*\"; }\n"
    "); };\n";

static const struct vec vec_a[] = {
    {"example.com", "GET", "/", A},
    {"www.example.com", "POST", "/x", A},
    {"a.b.example.com", "DELETE", "/", A},
    {"EXAMPLE.COM", "GET", "/", A},
    {"example.com.", "GET", "/", A},
    {"Www.Example.Com.", "PUT", "/", A},
    {"example.com.evil.com", "GET", "/", D},
    {"evilexample.com", "GET", "/", D},
    {"example.co", "GET", "/", D},
    {"com", "GET", "/", D},
    {"xample.com", "GET", "/", D},
    {"example.com-evil.net", "GET", "/", D},
    {"api.example.com", "GET", "/user", A},
    {"api.example.com", "HEAD", "/user", A},
    {"api.example.com", "POST", "/user", M},
    {"api.example.com", "get", "/user", M}, /* methods are case-sensitive */
    {"api.example.com", "POST", "/graphql", A},
    {"api.example.com", "GET", "/graphql", M}, /* the path rule replaces the domain's */
    {"api.example.com", "HEAD", "/graphql", M},
    {"api.example.com", "POST", "/graphql/x", A},
    {"api.example.com", "POST", "/graphql?q=1", A},
    {"api.example.com", "POST", "//graphql", A},
    {"api.example.com", "POST", "/%67raphql", A},
    {"api.example.com", "POST", "/graphqlfoo", M},
    {"api.example.com", "POST", "/GraphQL", M},
    {"v2.api.example.com", "POST", "/graphql", A},
    {"v2.api.example.com", "DELETE", "/x", M}, /* entries never combine */
    {"only.paths.org", "GET", "/v1", A},
    {"only.paths.org", "POST", "/v1/x", A},
    {"only.paths.org", "GET", "/v2", P},
    {"only.paths.org", "GET", "/", P},
    {"only.paths.org", "POST", "/v1/admin", M},
    {"only.paths.org", "GET", "/v1/admin/x", A},
    {"only.paths.org", "GET", "/v1admin", P},
    {"only.paths.org", "POST", "/v1/admin;jsessionid=1", M}, /* path parameters */
    {"only.paths.org", "GET", "/v1/admin;jsessionid=1", A},
    {"only.paths.org", "POST", "/v1;x/admin", P}, /* Tomcat: /v1/admin; others: not /v1 */
    {"only.paths.org", "POST", "/v1%3Bx/admin", P},
    {"only.paths.org", "GET", "/v1;x/admin", P},
    {"only.paths.org", "POST", "/v1%2Fadmin", M}, /* an encoded slash */
    {"only.paths.org", "POST", "/v1%2fadmin/x", M},
    {"only.paths.org", "GET", "/v1%2Fx", P},       /* not under /v1 for Node or Apache */
    {"only.paths.org", "GET", "/v1/..;/admin", X}, /* Tomcat, Jetty: /admin */
    {"only.paths.org", "GET", "/v1/.;/admin", X},
    {"only.paths.org", "GET", "/v1/..;x=1/admin", X},
    {"only.paths.org", "GET", "/v1/%2e%2e;/admin", X},
    {"only.paths.org", "GET", "/v1/..%3B/admin", X},
    {"only.paths.org", "GET", "/v1/..\\admin", X}, /* Node: a separator */
    {"only.paths.org", "GET", "/v1\\..\\admin", X},
    {"only.paths.org", "GET", "/v1/..%5cadmin", X}, /* IIS */
    {"only.paths.org", "GET", "/v1/x%5C", X},
    {"only.paths.org", "GET", "/v1/%252e%252e/admin", X}, /* decoded twice */
    {"only.paths.org", "GET", "/v1/%25252e/admin", X},
    {"only.paths.org", "GET", "/v1/...", X},
    {"only.paths.org", "GET", "/v1/..%20/admin", X},
    {"only.paths.org", "GET", "/v1/..%00/admin", X},              /* NUL truncation */
    {"only.paths.org", "GET", "/v1/%c0%ae%c0%ae/admin", X},       /* overlong UTF-8 */
    {"only.paths.org", "GET", "/v1/%ef%bc%8e%ef%bc%8e/admin", X}, /* fullwidth dots */
    {"only.paths.org", "GET", "/v1/x%EF%BC%8Fy", X},
    {"only.paths.org", "GET", "/v1//admin/x", A}, /* merged: /v1/admin/x */
    {"only.paths.org", "POST", "//v1//admin", M},
    {"only.paths.org", "GET", "/v1/100%25", A},    /* a plain percent sign */
    {"only.paths.org", "GET", "/v1/%e2%82%ac", A}, /* UTF-8 is fine */
    {"only.paths.org", "GET", "/v1/a..b/.x/x.", A},
    {"sub.only.paths.org", "GET", "/v2", P},
    {"docs.org", "GET", "/Guide", A},
    {"docs.org", "GET", "/guide", P},
    {"docs.org", "GET", "/GUIDE/x", P},
    {"127.0.0.1", "GET", "/", A},
    {"127.1", "GET", "/", A},
    {"0x7f000001", "GET", "/", A},
    {"2130706433", "GET", "/", A},
    {"0177.0.0.1", "GET", "/", A},
    {"127.0.0.2", "GET", "/", D},
    {"[::1]", "GET", "/", A},
    {"[::ffff:127.0.0.1]", "GET", "/", D}, /* another address for the rules */
    {"gh.io", "GET", "/a/b", A},
    {"gh.io", "GET", "/a", P},
    {"xn--bcher-kva.example", "GET", "/", A},
    {"git.corp", "GET", "/anything", A},
    {"git.corp", "POST", "/", M},
    {"star.org", "PATCH", "/", A},
};

static void test_match_a(void **state)
{
	run_vectors(cfg_a, vec_a, sizeof(vec_a) / sizeof(vec_a[0]));
}

/* The seed's example: github.com may POST, everything else GET and HEAD. */
static const char cfg_b[] =
    "network: { allowed_domains = (\n"
    "  { domain = \"github.com\"; methods = [ \"GET\", \"HEAD\", \"POST\" ]; },\n"
    "  { domain = \"*\"; methods = [ \"GET\", \"HEAD\" ]; },\n"
    "  \"anthropic.com\",\n"
    "  \"api.github.com/graphql\"\n"
    "); };\n";

static const struct vec vec_b[] = {
    {"github.com", "POST", "/", A},
    {"random.org", "GET", "/", A},
    {"random.org", "HEAD", "/x", A},
    {"random.org", "POST", "/", M},
    {"api.github.com", "POST", "/user", A}, /* only path rules: github.com decides */
    {"api.github.com", "DELETE", "/graphql", A},
    {"api.github.com", "DELETE", "/user", M},
    {"gist.github.com", "POST", "/", A},
    {"anthropic.com", "DELETE", "/", A},
    {"api.anthropic.com", "PUT", "/x", A},
    {"127.0.0.1", "GET", "/", D}, /* "*" never covers IP literals */
    {"[::1]", "GET", "/", D},
    {"10.0.0.1", "GET", "/", D},
    {"notgithub.com", "POST", "/", M},
    {"github.com.attacker.net", "POST", "/", M},
};

static void test_match_b(void **state)
{
	run_vectors(cfg_b, vec_b, sizeof(vec_b) / sizeof(vec_b[0]));
}

static const char cfg_c[] = "network: { allowed_domains = (\n"
                            "  { domain = \"x.com\"; methods = [ \"GET\" ]; },\n"
                            "  \"api.x.com/graphql\",\n"
                            "  { domain = \"*\"; path = \"/public\"; },\n"
                            "  \"a.com/only\"\n"
                            "); };\n";

static const struct vec vec_c[] = {
    {"api.x.com", "GET", "/user", A},
    {"api.x.com", "POST", "/user", M},
    {"api.x.com", "POST", "/graphql", A},
    {"b.com", "GET", "/public/x", A},
    {"b.com", "POST", "/public", A},
    {"b.com", "GET", "/private", P},
    {"a.com", "GET", "/public", A},
    {"a.com", "GET", "/other", P},
    {"a.com", "GET", "/only", A},
    {"x.com", "GET", "/public", A}, /* x.com decides before "*" */
};

static void test_match_c(void **state)
{
	run_vectors(cfg_c, vec_c, sizeof(vec_c) / sizeof(vec_c[0]));
}

static void test_empty_and_absent(void **state)
{
	struct netrules_decision d;
	struct netrules *r = must_parse("network: { allowed_domains = [ ]; };");
	assert_true(r->filtering);
	netrules_match(r, "example.com", "GET", "/", &d);
	assert_int_equal(d.verdict, D);
	assert_null(netrules_domain_candidate(r, "example.com"));
	netrules_free(r);

	r = must_parse("network: { enabled = true; };");
	assert_false(r->filtering);
	netrules_free(r);
	r = must_parse("sandbox: { name = \"x\"; }; plugins: { git: { protect = true; }; };");
	assert_false(r->filtering);
	netrules_free(r);
}

static void test_ports_and_candidates(void **state)
{
	struct netrules *r = must_parse(
	    "network: { allowed_domains = ( \"a.com\", { domain = \"b.com\"; ports = [ 8443 ]; "
	    "allow_private = true; } ); };");
	struct netrules_decision d;
	netrules_match(r, "a.com", "GET", "/", &d);
	assert_true(netrules_port_allowed(d.rule, 443));
	assert_true(netrules_port_allowed(d.rule, 80));
	assert_false(netrules_port_allowed(d.rule, 8080));
	assert_false(d.rule->allow_private);
	netrules_match(r, "x.b.com", "GET", "/", &d);
	assert_true(netrules_port_allowed(d.rule, 8443));
	assert_false(netrules_port_allowed(d.rule, 443));
	assert_true(d.rule->allow_private);
	assert_true(netrules_host_port_allowed(r, "b.com", 8443));
	assert_false(netrules_host_port_allowed(r, "b.com", 22));
	assert_non_null(netrules_domain_candidate(r, "x.a.com"));
	assert_null(netrules_domain_candidate(r, "c.com"));
	netrules_free(r);
}

static void test_path_normalize(void **state)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
	    {"/", "/"},           {"/a//b", "/a/b"},    {"/a/%62", "/a/b"},
	    {"/a?x=../", "/a"},   {"/a%2Fb", "/a/b"},   {"/%7Euser", "/~user"},
	    {"/a%2fb", "/a/b"},   {"/a%3fb", "/a%3Fb"}, {"/a%2F%2Fb", "/a/b"},
	    {"/a#frag", "/a"},    {"/a/", "/a/"},       {"/..a", "/..a"},
	    {"/a.b/c", "/a.b/c"}, {"///", "/"},
	};
	static const char *const bad[] = {"/a/..%2Fb", "/a/%2e%2e%2fb", "/a/../b", "/a/%2e%2E/b",
	                                  "/a/./b",    "/a%zz",         "/a/b/..", "/.",
	                                  "/%2e",      "a/b",           "",        "/a%2",
	                                  "/a\\b",     "/a%5Cb",        "/a%252e", "/a/.../b",
	                                  "/a%00",     "/a%c0%ae"};
	char out[256];
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_true(netrules_path_normalize(ok[i].in, strlen(ok[i].in), out, sizeof(out)) >
		            0);
		assert_string_equal(out, ok[i].out);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (netrules_path_normalize(bad[i], strlen(bad[i]), out, sizeof(out)) != -EINVAL)
			fail_msg("\"%s\" should be refused", bad[i]);
	assert_int_equal(netrules_path_normalize("/abcdef", 7, out, 4), -ENAMETOOLONG);
}

static void test_path_readings(void **state)
{
	static struct netrules_paths p;
	assert_int_equal(netrules_path_readings("/a/b?x=%2F;", 11, &p), 0);
	assert_int_equal(p.n, 1); /* the query does not count */
	assert_string_equal(p.p[0], "/a/b");
	assert_int_equal(netrules_path_readings("/a%2Fb;c/d", 10, &p), 0);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.p[0], "/a/b;c/d");
	assert_string_equal(p.p[1], "/a%2Fb;c/d");
	assert_string_equal(p.p[2], "/a/b/d");
	assert_string_equal(p.p[3], "/a%2Fb/d");
	assert_int_equal(netrules_path_readings("/a\\b", 4, &p), -EILSEQ);
	assert_int_equal(netrules_path_readings("/a/..;/b", 8, &p), -EILSEQ);
	assert_int_equal(netrules_path_normalize("/a/..;/b", 8, p.buf[0], 64), 8); /* reading 0 */
	assert_int_equal(netrules_path_readings("/a%zz", 5, &p), -EINVAL);
}

static void expect_error(const char *text, const char *needle)
{
	char err[512] = "";
	struct netrules *r = parse(text, err, sizeof(err));
	if (r) {
		netrules_free(r);
		fail_msg("accepted: %s", text);
	}
	if (!strstr(err, needle))
		fail_msg("error \"%s\" lacks \"%s\"", err, needle);
}

static void test_config_errors(void **state)
{
	expect_error("network: {\n colour = 1;\n};", "<config>:2: unknown key \"colour\"");
	expect_error("network: {\n allowed_domains = \"a.com\";\n};",
	             ":2: allowed_domains must be");
	expect_error("network: { allowed_domains = (\n 5 ); };", ":2:");
	expect_error("network: { allowed_domains = ( { domain = \"a.com\";\n colour = 1; } ); };",
	             ":2: unknown key \"colour\"");
	expect_error("network: { allowed_domains = ( { path = \"/x\"; } ); };", "needs a domain");
	expect_error("network: { allowed_domains = ( \"a.com\",\n \"A.com.\" ); };",
	             ":2: duplicate entry");
	expect_error("network: { allowed_domains = ( { domain = \"a.com\"; ports = [ 0 ]; } ); };",
	             "out of range");
	expect_error("network: { allowed_domains = ( \"*.a.com\" ); };", "cover subdomains");
	expect_error("network: { allowed_domains = ( \"bad domain\" ); };", "not a valid domain");
	expect_error("network: { allowed_domains = ( \"a..com\" ); };", "not a valid domain");
	expect_error("network: { allowed_domains = ( { domain = \"a.com\"; path = \"x\"; } ); };",
	             "must start with '/'");
	expect_error("network: { allowed_domains = ( \"a.com/x/../y\" ); };", "dot segments");
	expect_error("network: { allowed_domains = ( \"a.com/x\\\\y\" ); };", "backslash");
	expect_error("network: { allowed_domains = ( \"a.com/x;y\" ); };", "Tomcat");
	expect_error("network: { allowed_domains = ( { domain = \"a.com\"; methods = [ ]; } ); };",
	             "methods is empty");
	expect_error(
	    "network: { allowed_domains = ( { domain = \"a.com\"; methods = [ \"G T\" ]; } "
	    "); };",
	    "not an HTTP method");
	expect_error("network: { allowed_domains = ( { domain = \"a.com\"; methods = 1; } ); };",
	             "methods must be");
	expect_error("network: { allowed_domains = ( { domain = 1; } ); };",
	             "domain must be a string");
	expect_error(
	    "network: { allowed_domains = ( { domain = \"a.com\"; allow_private = 1; } ); };",
	    "allow_private must be a boolean");
	expect_error("network: { host_ports = [ \"a\" ]; };", "host_ports");
	expect_error("network: { enabled = 1; };", "enabled must be a boolean");
	expect_error("network: { unix_sockets = \"no\"; };", "unix_sockets must be a boolean");
	expect_error("network: { published_ports = ( { port = 1; bind = \"x\"; foo = 2; } ); };",
	             "unknown key \"foo\"");
	expect_error("network: { hosts_file = 1; };", "hosts_file must be a string");
	expect_error("network = 5;", "network must be a group");
}

static void test_launcher_keys_and_warnings(void **state)
{
	struct netrules *r = must_parse(
	    "network: { enabled = true; host_ports = [ 5432 ]; unix_sockets = false;\n"
	    " published_ports = ( 3000, { port = 8000; bind = \"0.0.0.0\"; } );\n"
	    " allowed_domains = ( { domain = \"*\"; methods = [ \"GET\", \"HEAD\" ]; },\n"
	    " \"b\xc3\xbc"
	    "cher.de\" );\n"
	    " hosts_file = \"/etc/hosts\"; upstream_ca_file = \"ca.pem\"; };");
	assert_non_null(r->warnings);
	assert_non_null(strstr(r->warnings[0], "\"*\" permits GET, HEAD on every domain"));
	assert_non_null(strstr(r->warnings[1], "not ASCII"));
	assert_null(r->warnings[2]);
	assert_string_equal(r->hosts_file, "/etc/hosts");
	assert_string_equal(r->upstream_ca_file, "ca.pem"); /* no file to be relative to */
	struct netrules_decision d;
	netrules_match(r, "xn--bcher-kva.de", "POST", "/", &d);
	assert_int_equal(d.verdict, M); /* the non-ASCII entry never matches; "*" decides */
	netrules_free(r);
}

static void test_proxy_limits(void **state)
{
	struct netrules *r = must_parse(
	    "network: { allowed_domains = ( ); proxy_limits = { max_connections = 64;\n"
	    " client_buffer = \"64K\"; server_buffer = 1048576; log_max = 0; log_rate = 5;\n"
	    " ca_validity_hours = 24; }; };");
	assert_int_equal(r->limits.max_connections, 64);
	assert_int_equal(r->limits.client_buffer, 64 << 10);
	assert_int_equal(r->limits.server_buffer, 1 << 20);
	assert_true(r->limits.log_max_set);
	assert_int_equal(r->limits.log_max, 0);
	assert_int_equal(r->limits.log_rate, 5);
	assert_int_equal(r->limits.ca_validity_hours, 24);
	netrules_free(r);
	r = must_parse("network: { allowed_domains = ( ); };");
	assert_false(r->limits.log_max_set);
	assert_int_equal(r->limits.max_connections, 0);
	netrules_free(r);
	expect_error("network: { proxy_limits = { max_conns = 5; }; };",
	             ":1: unknown key \"max_conns\" in proxy_limits");
	expect_error("network: { proxy_limits = { client_buffer = \"12Q\"; }; };", "not a size");
	expect_error("network: { proxy_limits = { client_buffer = \"1K\"; }; };", "out of range");
	expect_error("network: { proxy_limits = { log_rate = true; }; };", "not a boolean");
	expect_error("network: { proxy_limits = 5; };", "proxy_limits must be a group");
}

static void test_load_file(void **state)
{
	char dir[] = "/tmp/netrules-test.XXXXXX", path[256], err[512];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.cfg", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("sandbox: { name = \"n\"; whatever = 1; };\nnetwork: {\n  allowed_domains = ( "
	      "\"a.com\" );\n  hosts_file = \"hosts\";\n};\n",
	      f);
	fclose(f);
	struct netrules *r = NULL;
	assert_int_equal(netrules_load_file(path, &r, err, sizeof(err)), 0);
	char want[300];
	snprintf(want, sizeof(want), "%s/hosts", dir);
	assert_string_equal(r->hosts_file, want);
	assert_string_equal(r->rules[0].file, path);
	assert_int_equal(r->rules[0].line, 3);
	netrules_free(r);

	f = fopen(path, "w");
	fputs("network: {\n  allowed_domains = ( \"a.com\" );\n  bogus = true;\n};\n", f);
	fclose(f);
	assert_int_equal(netrules_load_file(path, &r, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: unknown key \"bogus\"", path);
	assert_non_null(strstr(err, want));
	f = fopen(path, "w");
	fputs("network: {\n  allowed_domains = ( \"a.com\" \n};\n", f);
	fclose(f);
	assert_int_equal(netrules_load_file(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":3:"));
	unlink(path);
	assert_int_equal(netrules_load_file(path, &r, err, sizeof(err)), -EINVAL);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match_a),
	    cmocka_unit_test(test_match_b),
	    cmocka_unit_test(test_match_c),
	    cmocka_unit_test(test_empty_and_absent),
	    cmocka_unit_test(test_ports_and_candidates),
	    cmocka_unit_test(test_path_normalize),
	    cmocka_unit_test(test_path_readings),
	    cmocka_unit_test(test_config_errors),
	    cmocka_unit_test(test_launcher_keys_and_warnings),
	    cmocka_unit_test(test_load_file),
	    cmocka_unit_test(test_proxy_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
