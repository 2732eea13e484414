/* SPDX-License-Identifier: MIT */
/* plugins/browsers' pure logic: engines and their executables, Chromium's
 * flags, Firefox's prefs, the macOS notes. */
#include "engines.h"
#include "notes.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void test_engines(void **state)
{
	(void)state;
	bool driver = true;
	assert_int_equal(engine_lookup("chromium"), ENGINE_CHROMIUM);
	assert_int_equal(engine_lookup("firefox"), ENGINE_FIREFOX);
	assert_int_equal(engine_lookup("chrome"), -1);
	assert_int_equal(engine_of_exec("google-chrome-stable", &driver), ENGINE_CHROMIUM);
	assert_false(driver);
	assert_int_equal(engine_of_exec("chromedriver", &driver), ENGINE_CHROMIUM);
	assert_true(driver);
	assert_int_equal(engine_of_exec("firefox-esr", &driver), ENGINE_FIREFOX);
	assert_false(driver);
	assert_int_equal(engine_of_exec("geckodriver", &driver), ENGINE_FIREFOX);
	assert_true(driver);
	assert_int_equal(engine_of_exec("bash", &driver), -1);
	/* Declared both ways: the browser's own name wins over Chrome's. */
	assert_true(engine_browser_rank(ENGINE_CHROMIUM, "chromium") <
	            engine_browser_rank(ENGINE_CHROMIUM, "chrome"));
	assert_int_equal(engine_browser_rank(ENGINE_FIREFOX, "chromium"), -1);
}

static void test_chrome_flags(void **state)
{
	(void)state;
	char f[1024];
	assert_int_equal(engine_chrome_flags(false, false, f, sizeof(f)), 0);
	assert_non_null(strstr(f, "--disable-background-networking"));
	assert_non_null(strstr(f, "--disable-component-update"));
	assert_non_null(strstr(f, "--no-first-run"));
	assert_null(strstr(f, "--no-sandbox"));
	assert_null(strstr(f, "--remote-debugging-pipe"));
	assert_null(strstr(f, "certificate"));
	/* One --disable-features: Chromium reads only the last. */
	const char *d = strstr(f, "--disable-features=");
	assert_non_null(d);
	assert_null(strstr(d + 1, "--disable-features="));
	assert_int_equal(engine_chrome_flags(true, true, f, sizeof(f)), 0);
	assert_non_null(strstr(f, "--no-sandbox"));
	assert_non_null(strstr(f, "--remote-debugging-pipe"));
	assert_int_equal(engine_chrome_flags(false, false, f, 20), -1);
}

static void test_firefox_prefs(void **state)
{
	(void)state;
	char *js = engine_firefox_user_js(0);
	assert_non_null(js);
	assert_null(strstr(js, "network.proxy"));
	assert_non_null(strstr(js, "\"app.update.auto\", false"));
	free(js);
	js = engine_firefox_user_js(3128);
	assert_non_null(strstr(js, "user_pref(\"network.proxy.type\", 1);"));
	assert_non_null(strstr(js, "user_pref(\"network.proxy.ssl_port\", 3128);"));
	assert_non_null(strstr(js, "\"network.proxy.allow_hijacking_localhost\", false"));
	free(js);
	char *ini = engine_firefox_profiles_ini("agentsandbox");
	assert_non_null(strstr(ini, "Path=agentsandbox\nDefault=1\n"));
	free(ini);
}

struct notes {
	char text[8192];
	int warnings;
};

static int collect(void *ud, const char *key, const char *line, bool warn)
{
	struct notes *n = ud;
	size_t used = strlen(n->text);
	snprintf(n->text + used, sizeof(n->text) - used, "%s: %s\n", key, line);
	n->warnings += warn;
	return 0;
}

static void test_notes(void **state)
{
	(void)state;
	uint16_t listed[] = {9515, 4444, 2828, 9222};
	struct asb_network net = {.struct_size = sizeof(net),
	                          .mode = ASB_NET_FILTERED,
	                          .proxy_port = 41234,
	                          .n_host_ports = 4,
	                          .host_ports = listed,
	                          .n_published_ports = 1,
	                          .published_ports = listed};
	struct notes n = {.text = ""};
	assert_int_equal(notes_macos(&net, true, true, collect, &n), 0);
	assert_non_null(strstr(n.text, "sslProxy = 127.0.0.1:41234"));
	assert_non_null(strstr(n.text, "accept_insecure_certs: true"));
	assert_non_null(strstr(n.text, "chrome_flags: --no-sandbox --remote-debugging-pipe"));
	/* Filtered: a port must be published too; 9515 is. */
	assert_non_null(strstr(n.text, "not listed in the policy: 4444 (published_ports), 2828 "
	                               "(published_ports), 9222 (published_ports)"));
	assert_int_equal(n.warnings, 1);

	net.mode = ASB_NET_OPEN;
	net.n_host_ports = 1;
	memset(&n, 0, sizeof(n));
	assert_int_equal(notes_macos(&net, false, true, collect, &n), 0);
	assert_non_null(strstr(n.text, "accept_insecure_certs: false"));
	assert_non_null(strstr(n.text, "proxy_capability: none"));
	assert_null(strstr(n.text, "chrome_flags"));
	assert_non_null(strstr(n.text, "4444 (host_ports)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_engines),
	    cmocka_unit_test(test_chrome_flags),
	    cmocka_unit_test(test_firefox_prefs),
	    cmocka_unit_test(test_notes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
