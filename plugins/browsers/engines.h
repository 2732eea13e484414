/* SPDX-License-Identifier: MIT */
/* The browser engines the plugin knows, how their browsers and drivers are
 * called on PATH, and what each needs beyond them: the host configuration it
 * reads, the environment variable naming it, and the flags it is started
 * with. Pure data and string building; browsers.c turns it into the plan. */
#ifndef ASB_BROWSERS_ENGINES_H
#define ASB_BROWSERS_ENGINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ENGINE_CHROMIUM, ENGINE_FIREFOX, ENGINE_COUNT };

struct engine {
	const char *name;            /* "chromium": its name in plugins.browsers.engines */
	const char *label;           /* "Chromium or Google Chrome" */
	const char *const *browsers; /* executable names on PATH, preferred first */
	const char *const *drivers;  /* WebDriver drivers */
	const char *bin_env;         /* CHROME_BIN */
	/* Host configuration the browser (or its distribution's wrapper
	 * script) reads, read-only when present. */
	const char *const *etc;
	const char *package_hint; /* what to add to sandbox.packages */
};

extern const struct engine engines[ENGINE_COUNT];

/* The engine called `name`, or -1. */
int engine_lookup(const char *name);

/* The engine an executable on PATH belongs to (by its name there), as a
 * browser (*is_driver false) or a driver; -1 when none. */
int engine_of_exec(const char *name, bool *is_driver);

/* Rank of an executable name among the engine's browsers (0 best), or -1. */
int engine_browser_rank(int engine, const char *name);

/* The flags Chromium should be started with, space-separated, into `out`:
 * none that reach Google on their own (the proxy would log them, no network
 * would make them hang), and the ones the platform forces: --no-sandbox
 * (only when `no_sandbox`), --remote-debugging-pipe (macOS: a listening
 * port would have to be pinned and published). */
int engine_chrome_flags(bool no_sandbox, bool macos, char *out, size_t len);

/* Firefox's user.js for the profile the plugin makes: quiet (no update,
 * telemetry, Safe Browsing or captive-portal checks), headless-friendly,
 * and with `proxy_port` (0: none) set as its HTTP and HTTPS proxy. A new
 * string, or NULL. */
char *engine_firefox_user_js(uint16_t proxy_port);

/* profiles.ini naming that profile (`dir`, relative) the default. */
char *engine_firefox_profiles_ini(const char *dir);

#endif
