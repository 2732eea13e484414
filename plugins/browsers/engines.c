/* SPDX-License-Identifier: MIT */
#include "engines.h"

#include "util.h"

#include <stdio.h>
#include <string.h>

static const char *const chromium_browsers[] = {
    "chromium",           "chromium-browser",       "google-chrome", "google-chrome-stable",
    "google-chrome-beta", "google-chrome-unstable", "chrome",        NULL};
static const char *const chromium_drivers[] = {"chromedriver", NULL};
/* Debian's /usr/bin/chromium sources /etc/chromium.d; Chromium reads its
 * policies from /etc/chromium, Google Chrome from /etc/opt/chrome. */
static const char *const chromium_etc[] = {"/etc/chromium.d", "/etc/chromium", "/etc/opt/chrome",
                                           NULL};

static const char *const firefox_browsers[] = {"firefox", "firefox-esr", NULL};
static const char *const firefox_drivers[] = {"geckodriver", NULL};
/* Debian's system-wide preferences (firefox-esr.js) and policies. */
static const char *const firefox_etc[] = {"/etc/firefox-esr", "/etc/firefox", NULL};

const struct engine engines[ENGINE_COUNT] = {
    [ENGINE_CHROMIUM] = {.name = "chromium",
                         .label = "Chromium or Google Chrome",
                         .browsers = chromium_browsers,
                         .drivers = chromium_drivers,
                         .bin_env = "CHROME_BIN",
                         .etc = chromium_etc,
                         .package_hint = "\"chromium\" and \"chromedriver\" (Debian: apt-get "
                                         "install chromium chromium-driver), a Nix store "
                                         "path, or \"/opt/google/chrome/chrome\""},
    [ENGINE_FIREFOX] = {.name = "firefox",
                        .label = "Firefox",
                        .browsers = firefox_browsers,
                        .drivers = firefox_drivers,
                        .bin_env = "FIREFOX_BIN",
                        .etc = firefox_etc,
                        .package_hint = "\"firefox-esr\" (Debian: apt-get install firefox-esr) "
                                        "or \"firefox\", and \"geckodriver\" where there is "
                                        "one"},
};

int engine_lookup(const char *name)
{
	for (int e = 0; e < ENGINE_COUNT; e++)
		if (strcmp(engines[e].name, name) == 0)
			return e;
	return -1;
}

static int rank_in(const char *const *names, const char *name)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int engine_browser_rank(int engine, const char *name)
{
	return engine >= 0 && engine < ENGINE_COUNT ? rank_in(engines[engine].browsers, name) : -1;
}

int engine_of_exec(const char *name, bool *is_driver)
{
	for (int e = 0; e < ENGINE_COUNT; e++) {
		if (rank_in(engines[e].browsers, name) >= 0) {
			*is_driver = false;
			return e;
		}
		if (rank_in(engines[e].drivers, name) >= 0) {
			*is_driver = true;
			return e;
		}
	}
	return -1;
}

int engine_chrome_flags(bool no_sandbox, bool macos, char *out, size_t len)
{
	/* What puppeteer and chromedriver users pass to keep Chrome from
	 * calling home: component and variations updates, sync, metrics,
	 * Safe Browsing, the first-run and default-browser prompts, the
	 * desktop keyring (there is no D-Bus inside). */
	int n =
	    snprintf(out, len,
	             "--disable-background-networking --disable-component-update "
	             "--disable-sync --disable-default-apps --disable-domain-reliability "
	             "--disable-client-side-phishing-detection "
	             "--disable-features=MediaRouter,NetworkTimeServiceQuerying,OptimizationHints,"
	             "Translate "
	             "--metrics-recording-only --no-first-run --no-default-browser-check "
	             "--password-store=basic%s%s",
	             macos ? " --use-mock-keychain --remote-debugging-pipe" : "",
	             no_sandbox ? " --no-sandbox" : "");
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

char *engine_firefox_user_js(uint16_t proxy_port)
{
	static const char quiet[] =
	    "// agentsandbox (plugins/browsers): written for this session, gone at exit.\n"
	    "user_pref(\"app.update.auto\", false);\n"
	    "user_pref(\"app.update.checkInstallTime\", false);\n"
	    "user_pref(\"app.normandy.enabled\", false);\n"
	    "user_pref(\"browser.shell.checkDefaultBrowser\", false);\n"
	    "user_pref(\"browser.startup.homepage_override.mstone\", \"ignore\");\n"
	    "user_pref(\"browser.startup.page\", 0);\n"
	    "user_pref(\"browser.newtabpage.enabled\", false);\n"
	    "user_pref(\"browser.aboutwelcome.enabled\", false);\n"
	    "user_pref(\"browser.safebrowsing.malware.enabled\", false);\n"
	    "user_pref(\"browser.safebrowsing.phishing.enabled\", false);\n"
	    "user_pref(\"browser.safebrowsing.downloads.enabled\", false);\n"
	    "user_pref(\"browser.safebrowsing.update.enabled\", false);\n"
	    "user_pref(\"browser.region.update.enabled\", false);\n"
	    "user_pref(\"browser.region.network.url\", \"\");\n"
	    "user_pref(\"datareporting.policy.dataSubmissionEnabled\", false);\n"
	    "user_pref(\"datareporting.healthreport.uploadEnabled\", false);\n"
	    "user_pref(\"toolkit.telemetry.enabled\", false);\n"
	    "user_pref(\"toolkit.telemetry.unified\", false);\n"
	    "user_pref(\"extensions.update.enabled\", false);\n"
	    "user_pref(\"extensions.getAddons.cache.enabled\", false);\n"
	    "user_pref(\"network.captive-portal-service.enabled\", false);\n"
	    "user_pref(\"network.connectivity-service.enabled\", false);\n"
	    "user_pref(\"network.dns.disablePrefetch\", true);\n"
	    "user_pref(\"network.prefetch-next\", false);\n"
	    "user_pref(\"network.trr.mode\", 5);\n"
	    /* Honoured with MOZ_REMOTE_SETTINGS_DEVTOOLS=1 (browsers.c sets it). */
	    "user_pref(\"services.settings.server\", \"data:,#remote-settings-dummy/v1\");\n";
	if (!proxy_port)
		return str_printf("%s", quiet);
	/* The filtering proxy for http and https; the sandbox's own loopback
	 * stays direct (network.proxy.allow_hijacking_localhost is false). */
	return str_printf("%s"
	                  "user_pref(\"network.proxy.type\", 1);\n"
	                  "user_pref(\"network.proxy.http\", \"127.0.0.1\");\n"
	                  "user_pref(\"network.proxy.http_port\", %u);\n"
	                  "user_pref(\"network.proxy.ssl\", \"127.0.0.1\");\n"
	                  "user_pref(\"network.proxy.ssl_port\", %u);\n"
	                  "user_pref(\"network.proxy.no_proxies_on\", \"localhost, 127.0.0.1, "
	                  "[::1]\");\n"
	                  "user_pref(\"network.proxy.allow_hijacking_localhost\", false);\n",
	                  quiet, (unsigned)proxy_port, (unsigned)proxy_port);
}

char *engine_firefox_profiles_ini(const char *dir)
{
	return str_printf("[Profile0]\nName=%s\nIsRelative=1\nPath=%s\nDefault=1\n\n"
	                  "[General]\nStartWithLastProfile=1\nVersion=2\n",
	                  dir, dir);
}
