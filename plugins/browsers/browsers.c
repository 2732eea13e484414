/* SPDX-License-Identifier: MIT */
/*
 * browsers: headless Chromium (or Google Chrome) and Firefox inside the
 * sandbox, with their own sandboxes on.
 *
 * plugins.browsers.engines = [ "chromium", "firefox" ] finds each engine's
 * browser and driver among the declared packages, exposes what they read
 * (fonts' caches, their distribution's configuration), gives them a private
 * /dev/shm, a Firefox profile and (filtered network) NSS databases that
 * trust the session CA, and sets CHROME_BIN / FIREFOX_BIN.
 *
 * Their own sandboxes: on Linux both build theirs from new user, pid,
 * network (Firefox: and IPC) namespaces, a chroot into an empty directory
 * and seccomp-bpf, so the plugin lifts the seccomp groups "userns" and
 * "chroot" (and "unix_pairs": their IPC runs over seqpacket socket pairs),
 * nothing else. Where a browser's sandbox cannot run (as root, on macOS, on
 * hosts that restrict user namespaces) the launch is refused unless the
 * user allows running without it (allow_no_sandbox).
 */
#include "engines.h"
#include "notes.h"
#include "profiles.h"

#include "exec.h"
#include "shown.h"
#include "util.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define FIREFOX_PROFILE_NAME "agentsandbox"

/* What each engine's own sandbox gets here. */
enum sandbox_state {
	SANDBOX_ON,      /* all of it */
	SANDBOX_PARTIAL, /* Firefox without its namespace layer: seccomp and broker stay */
	SANDBOX_OFF,     /* allowed by allow_no_sandbox */
};

struct browsers {
	bool want[ENGINE_COUNT];
	bool any;
	bool allow_no_sandbox;
	bool dry_run, is_root, unix_sockets, macos;
	enum sandbox_state sandbox[ENGINE_COUNT];
	char why[ENGINE_COUNT][320];              /* why not SANDBOX_ON */
	char browser[ENGINE_COUNT][NAME_MAX + 1]; /* its name on PATH */
	char browser_path[ENGINE_COUNT][PATH_MAX];
	char driver[ENGINE_COUNT][NAME_MAX + 1];
	struct asb_network net;
	const char *home;
	char *certutil;
	char *chrome_nssdb; /* host directories, under profiles.run.dir */
	char *firefox_dir;
	struct profiles profiles;
	struct strv shown; /* "key\tvalue" lines for describe */
};

static void state_reset(struct browsers *st)
{
	profiles_remove(&st->profiles);
	free(st->certutil);
	free(st->chrome_nssdb);
	free(st->firefox_dir);
	strv_clear(&st->shown);
	memset(st, 0, sizeof(*st));
	st->profiles = (struct profiles)PROFILES_INIT;
}

static int browsers_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct browsers *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->profiles = (struct profiles)PROFILES_INIT;
	*data = st;
	return 0;
}

static void browsers_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	if (data)
		state_reset(data);
	free(data);
}

static int read_int_file(const char *path, long *out)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	return f && fscanf(f, "%ld", out) == 1 ? 0 : -ENOENT;
}

/* --------------------------------------------------------------- configure */

static int refuse_unsandboxed(const struct asb_host *host, struct asb_ctx *ctx, int e,
                              const char *why)
{
	host->log(ctx, ASB_LOG_ERROR,
	          "%s's own sandbox cannot run here: %s. Refusing rather than running it "
	          "without; to accept that (the agentsandbox sandbox still confines it), set "
	          "plugins.browsers.allow_no_sandbox = true (--browsers-allow-no-sandbox)",
	          engines[e].name, why);
	return -EPERM;
}

/* Linux: can each engine's sandbox run inside this one? */
static int decide_linux(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st)
{
	long restrict_userns = 0;
	bool restricted = read_int_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
	                                &restrict_userns) == 0 &&
	                  restrict_userns != 0;
	/* A user namespace can map only its maker's uid, 0 here, and mapping
	 * uid 0 needs CAP_SETFCAP (Linux 5.12). */
	static const char uid0[] = "a user namespace inside would have to map uid 0, which "
	                           "needs CAP_SETFCAP, and the sandbox drops every capability";
	static const char apparmor_why[] =
	    "the host restricts unprivileged user namespaces "
	    "(kernel.apparmor_restrict_unprivileged_userns = 1), so none can be made inside";
	char root_why[256], root_chromium[256];
	snprintf(root_why, sizeof(root_why), "as root, %s", uid0);
	snprintf(root_chromium, sizeof(root_chromium),
	         "as root: Chromium refuses to run its sandbox as uid 0, and %s", uid0);

	if (st->want[ENGINE_CHROMIUM]) {
		const char *why = st->is_root ? root_chromium : restricted ? apparmor_why : NULL;
		if (why) {
			if (!st->allow_no_sandbox)
				return refuse_unsandboxed(host, ctx, ENGINE_CHROMIUM, why);
			st->sandbox[ENGINE_CHROMIUM] = SANDBOX_OFF;
			snprintf(st->why[ENGINE_CHROMIUM], sizeof(st->why[0]), "%s", why);
			host->log(ctx, ASB_LOG_WARN,
			          "chromium runs without its own sandbox (allow_no_sandbox): %s; "
			          "start it with $CHROME_FLAGS (--no-sandbox)",
			          why);
		}
		if (!st->unix_sockets) {
			host->log(ctx, ASB_LOG_ERROR,
			          "chromium needs network.unix_sockets = true (or "
			          "--allow-unix-sockets): it locks its profile with a unix socket "
			          "(ProcessSingleton), and on Linux the filter cannot allow one "
			          "socket path only. Firefox needs no such setting");
			return -EPERM;
		}
	}
	if (st->want[ENGINE_FIREFOX] && (st->is_root || restricted)) {
		/* Firefox checks for user namespaces and goes on without them. */
		st->sandbox[ENGINE_FIREFOX] = SANDBOX_PARTIAL;
		snprintf(st->why[ENGINE_FIREFOX], sizeof(st->why[0]), "%s",
		         st->is_root ? root_why : apparmor_why);
		host->log(ctx, ASB_LOG_WARN,
		          "firefox's content sandbox keeps seccomp-bpf and its file broker but "
		          "not its namespace layer: %s",
		          st->why[ENGINE_FIREFOX]);
	}
	return 0;
}

static int browsers_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct browsers *st = data;
	int64_t v;
	int b, r;

	state_reset(st);
	int n = host->config_list_count(ctx, "engines");
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const char *name = NULL;
		if ((r = host->config_list_string(ctx, "engines", (uint32_t)i, &name)) < 0)
			return r;
		int e = engine_lookup(name);
		if (e < 0)
			return host->config_error(
			    ctx, "engines",
			    "unknown engine \"%s\": \"chromium\" (Chromium and "
			    "Google Chrome) or \"firefox\"",
			    name);
		st->want[e] = st->any = true;
	}
	if ((r = host->config_bool(ctx, "allow_no_sandbox", &b)) < 0)
		return r;
	st->allow_no_sandbox = r == 1 && b;
	st->dry_run = host->policy_int(ctx, "dry_run", &v) >= 0 && v;
	st->is_root = host->policy_int(ctx, "is_root", &v) >= 0 && v;
	st->unix_sockets = host->policy_int(ctx, "unix_sockets", &v) >= 0 && v;
	const char *backend = host->policy_string(ctx, "backend");
	st->macos = backend && strcmp(backend, "seatbelt") == 0;
	if (!st->any) {
		host->log(ctx, ASB_LOG_INFO, "no engines: nothing to do");
		return 0;
	}
	if (!st->macos)
		return decide_linux(host, ctx, st);
	for (int e = 0; e < ENGINE_COUNT; e++) {
		if (!st->want[e])
			continue;
		static const char why[] = "on macOS a browser's sandbox cannot be entered from "
		                          "inside the seatbelt sandbox";
		if (!st->allow_no_sandbox)
			return refuse_unsandboxed(host, ctx, e, why);
		st->sandbox[e] = SANDBOX_OFF;
		snprintf(st->why[e], sizeof(st->why[0]), "%s", why);
	}
	return 0;
}

/* --------------------------------------------------------------- pre_mount */

/* The declared browsers and drivers: the core has put sandbox.packages on
 * PATH before any plugin runs. */
static int find_declared(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st)
{
	int best[ENGINE_COUNT];
	for (int e = 0; e < ENGINE_COUNT; e++)
		best[e] = INT32_MAX;
	int n = host->plan_exec_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_exec x = {.struct_size = sizeof(x)};
		bool is_driver;
		if (host->plan_exec_get(ctx, (uint32_t)i, &x) < 0 || !x.name)
			continue;
		int e = engine_of_exec(x.name, &is_driver);
		if (e < 0 || !st->want[e] || strlen(x.name) > NAME_MAX)
			continue;
		if (is_driver) {
			snprintf(st->driver[e], sizeof(st->driver[e]), "%s", x.name);
			continue;
		}
		int rank = engine_browser_rank(e, x.name);
		if (rank < best[e]) {
			best[e] = rank;
			snprintf(st->browser[e], sizeof(st->browser[e]), "%s", x.name);
			snprintf(st->browser_path[e], sizeof(st->browser_path[e]), "%s",
			         x.host_path ? x.host_path : "?");
		}
	}
	for (int e = 0; e < ENGINE_COUNT; e++) {
		if (!st->want[e])
			continue;
		if (!st->browser[e][0]) {
			char found[PATH_MAX] = "";
			for (const char *const *b = engines[e].browsers; *b && !found[0]; b++)
				if (host->find_executable(ctx, *b, found, sizeof(found)) < 0)
					found[0] = '\0';
			host->log(ctx, ASB_LOG_ERROR,
			          "engine %s: no %s among sandbox.packages%s%s%s; declare %s",
			          engines[e].name, engines[e].label,
			          found[0] ? " (this host has " : "", found, found[0] ? ")" : "",
			          engines[e].package_hint);
			return -ENOENT;
		}
		if (!st->driver[e][0])
			host->log(ctx, ASB_LOG_INFO,
			          "engine %s: no %s among sandbox.packages: WebDriver clients need "
			          "it, clients that talk to the browser directly (CDP, Marionette, "
			          "BiDi) do not",
			          engines[e].name, engines[e].drivers[0]);
	}
	return 0;
}

static int add_read(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st,
                    const char *path, const char *why)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return 0;
	int r = host->plan_path(ctx, ASB_ENTRY_READ, path, NULL, ASB_ENTRY_F_TRY);
	return r < 0 ? r : shown_add(&st->shown, "mount", "%s: read-only (%s)", path, why);
}

static int add_write(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st,
                     const char *host_path, const char *dest, const char *why)
{
	int r = host->plan_path(ctx, ASB_ENTRY_WRITE, host_path, dest, 0);
	return r < 0 ? r
	             : shown_add(&st->shown, "mount", "%s: read-write, from %s (%s)", dest,
	                         host_path, why);
}

static int lift(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st,
                const char *group, const char *why)
{
	int r = host->plan_seccomp_allow(ctx, group);
	return r < 0 ? r : shown_add(&st->shown, "seccomp", "%s lifted: %s", group, why);
}

/* A private /dev/shm: Chromium and Firefox share their rendering buffers
 * through it. A tmpfs of the kernel's default size (half of RAM, like /tmp):
 * the plan has no size for an entry. */
static int add_shm(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st)
{
	struct asb_entry e = {.struct_size = sizeof(e),
	                      .type = ASB_ENTRY_EPHEMERAL,
	                      .mode = 01777,
	                      .fd = -1,
	                      .dest = "/dev/shm"};
	int r = host->plan_entry(ctx, &e);
	return r < 0 ? r
	             : shown_add(&st->shown, "mount",
	                         "/dev/shm: a private tmpfs, mode 1777, the kernel's default size "
	                         "(half of RAM; the plan cannot size it)");
}

static int add_firefox_profile(const struct asb_host *host, struct asb_ctx *ctx,
                               struct browsers *st)
{
	_cleanup_free_ char *user_js =
	    engine_firefox_user_js(st->net.mode == ASB_NET_FILTERED ? st->net.proxy_port : 0);
	_cleanup_free_ char *ini = engine_firefox_profiles_ini(FIREFOX_PROFILE_NAME);
	_cleanup_free_ char *dest = str_printf("%s/.mozilla/firefox", st->home);
	st->firefox_dir = profiles_path(&st->profiles, "firefox/" FIREFOX_PROFILE_NAME, true);
	if (!user_js || !ini || !dest || !st->firefox_dir)
		return -ENOMEM;
	int r = profiles_write(&st->profiles, "firefox/profiles.ini", ini);
	if (r >= 0)
		r = profiles_write(&st->profiles, "firefox/" FIREFOX_PROFILE_NAME "/user.js",
		                   user_js);
	if (r < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot write the Firefox profile in %s: %s",
		          st->profiles.run.dir, strerror(-r));
		return r;
	}
	_cleanup_free_ char *src = profiles_path(&st->profiles, "firefox", false);
	if (!src)
		return -ENOMEM;
	return add_write(host, ctx, st, src, dest,
	                 st->net.mode == ASB_NET_FILTERED
	                     ? "Firefox's profile: quiet prefs, the proxy, the session CA in its "
	                       "NSS database; removed at exit"
	                     : "Firefox's profile: quiet prefs; removed at exit");
}

static int add_chrome_nssdb(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st)
{
	_cleanup_free_ char *dest = str_printf("%s/.pki/nssdb", st->home);
	st->chrome_nssdb = profiles_path(&st->profiles, "nssdb", true);
	if (!dest || !st->chrome_nssdb)
		return -ENOMEM;
	return add_write(host, ctx, st, st->chrome_nssdb, dest,
	                 "Chromium's NSS database, trusting the session CA; removed at exit");
}

static int pre_mount_linux(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st)
{
	bool filtered = st->net.mode == ASB_NET_FILTERED;
	int r;

	if ((r = add_shm(host, ctx, st)) < 0 ||
	    (r = add_read(host, ctx, st, "/var/cache/fontconfig",
	                  "fontconfig's caches; the fonts are under /usr, /etc/fonts is "
	                  "the core's")) < 0)
		return r;
	for (int e = 0; e < ENGINE_COUNT; e++)
		for (const char *const *d = engines[e].etc; st->want[e] && *d; d++)
			if ((r = add_read(host, ctx, st, *d, "the browser's own configuration")) <
			    0)
				return r;
	/* Debian's chromium wrapper sizes /dev/shm with findmnt. */
	char findmnt[PATH_MAX];
	struct stat sb;
	if (st->want[ENGINE_CHROMIUM] && stat("/etc/chromium.d", &sb) == 0 &&
	    host->find_executable(ctx, "findmnt", findmnt, sizeof(findmnt)) == 0) {
		if ((r = host->plan_add_executable(ctx, "findmnt", findmnt)) < 0 ||
		    (r = shown_add(
		         &st->shown, "executable",
		         "findmnt (Debian's chromium wrapper checks the size of /dev/shm)")) < 0)
			return r;
	}

	if (filtered) {
		if (exec_find_system("certutil", &st->certutil) < 0) {
			host->log(
			    ctx, ASB_LOG_ERROR,
			    "the browsers must trust the filtering proxy's session CA, and "
			    "certutil (to write it into their NSS databases) is not installed: "
			    "apt-get install libnss3-tools");
			return -ENOENT;
		}
	}
	if (st->want[ENGINE_FIREFOX] || (st->want[ENGINE_CHROMIUM] && filtered)) {
		/* Beside the session directories: the session's own exists only
		 * once the plan is final. */
		const char *session = host->policy_string(ctx, "session_dir");
		_cleanup_free_ char *parent = session ? strdup(session) : NULL;
		char *slash = parent ? strrchr(parent, '/') : NULL;
		if (!slash || slash == parent)
			return -EINVAL;
		*slash = '\0';
		if ((r = profiles_create(&st->profiles, parent)) < 0) {
			host->log(ctx, ASB_LOG_ERROR,
			          "cannot make a directory for the browsers' profiles: %s",
			          strerror(-r));
			return r;
		}
		host->log(ctx, ASB_LOG_INFO, "profiles in %s (removed at exit)",
		          st->profiles.run.dir);
	}
	if (st->want[ENGINE_FIREFOX] && (r = add_firefox_profile(host, ctx, st)) < 0)
		return r;
	if (st->want[ENGINE_CHROMIUM] && filtered && (r = add_chrome_nssdb(host, ctx, st)) < 0)
		return r;

	/* The browsers' own sandboxes; see the top of this file. */
	bool ns = false;
	for (int e = 0; e < ENGINE_COUNT; e++)
		ns |= st->want[e] && st->sandbox[e] == SANDBOX_ON;
	if (ns && ((r = lift(host, ctx, st, "userns",
	                     "the browsers' sandboxes put each renderer (content process) into "
	                     "new user, pid and network namespaces (Firefox: and IPC); mount, "
	                     "UTS, cgroup and time namespaces and setns stay denied")) < 0 ||
	           (r = lift(host, ctx, st, "chroot",
	                     "each sandboxed process chroots into an empty directory "
	                     "(/proc/self/fdinfo) from inside its own user namespace")) < 0))
		return r;
	if ((r = lift(host, ctx, st, "unix_pairs",
	              "their processes talk over seqpacket socket pairs, which reach nothing "
	              "but each other")) < 0)
		return r;
	if (st->want[ENGINE_CHROMIUM])
		return shown_add(
		    &st->shown, "unix_sockets",
		    "required by chromium (network.unix_sockets = true): its profile lock "
		    "is a unix socket");
	return shown_add(&st->shown, "unix_sockets", "not needed: firefox uses socket pairs only");
}

struct note_ctx {
	struct browsers *st;
	const struct asb_host *host;
	struct asb_ctx *ctx;
};

/* A macOS note goes to launch.log and --show-config. */
static int note(void *ud, const char *key, const char *line, bool warn)
{
	struct note_ctx *n = ud;
	n->host->log(n->ctx, warn ? ASB_LOG_WARN : ASB_LOG_INFO, "macOS: %s: %s", key, line);
	_cleanup_free_ char *k = str_printf("macos.%s", key);
	return k ? shown_add(&n->st->shown, k, "%s", line) : -ENOMEM;
}

static int browsers_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct browsers *st = data;
	int r;

	if (!st->any)
		return 0;
	st->net = (struct asb_network){.struct_size = sizeof(st->net)};
	if ((r = host->plan_network(ctx, &st->net)) < 0)
		return r;
	st->home = host->policy_string(ctx, "home");
	if (!st->home)
		return -EINVAL;
	if ((r = find_declared(host, ctx, st)) < 0)
		return r;
	if (st->macos) {
		struct note_ctx n = {st, host, ctx};
		return notes_macos(&st->net, st->want[ENGINE_CHROMIUM], st->want[ENGINE_FIREFOX],
		                   note, &n);
	}
	return pre_mount_linux(host, ctx, st);
}

/* --------------------------------------------------------------------- env */

static int set(const struct asb_host *host, struct asb_ctx *ctx, struct browsers *st,
               const char *key, const char *value)
{
	int r = host->plan_setenv(ctx, key, value);
	return r < 0 ? r : shown_add(&st->shown, "env", "%s=%s", key, value);
}

static int browsers_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct browsers *st = data;
	char path[PATH_MAX], flags[1024];
	int r;

	if (st->want[ENGINE_CHROMIUM]) {
		snprintf(path, sizeof(path), ASB_BIN_DIR "/%s", st->browser[ENGINE_CHROMIUM]);
		if (engine_chrome_flags(st->sandbox[ENGINE_CHROMIUM] == SANDBOX_OFF, st->macos,
		                        flags, sizeof(flags)) < 0)
			return -ENAMETOOLONG;
		if ((r = set(host, ctx, st, "CHROME_BIN", path)) < 0 ||
		    (r = set(host, ctx, st, "PUPPETEER_EXECUTABLE_PATH", path)) < 0 ||
		    (r = set(host, ctx, st, "CHROME_FLAGS", flags)) < 0)
			return r;
	}
	if (st->want[ENGINE_FIREFOX]) {
		snprintf(path, sizeof(path), ASB_BIN_DIR "/%s", st->browser[ENGINE_FIREFOX]);
		if ((r = set(host, ctx, st, "FIREFOX_BIN", path)) < 0 ||
		    (r = set(host, ctx, st, "MOZ_HEADLESS", "1")) < 0)
			return r;
		if (!st->macos) {
			/* The profile above is the default one, not a new per-install one. */
			_cleanup_free_ char *prof =
			    str_printf("%s/.mozilla/firefox/" FIREFOX_PROFILE_NAME, st->home);
			if (!prof)
				return -ENOMEM;
			/* The profile's remote-settings server (nowhere) is honoured. */
			if ((r = set(host, ctx, st, "FIREFOX_PROFILE", prof)) < 0 ||
			    (r = set(host, ctx, st, "MOZ_LEGACY_PROFILES", "1")) < 0 ||
			    (r = set(host, ctx, st, "MOZ_REMOTE_SETTINGS_DEVTOOLS", "1")) < 0)
				return r;
		}
		if (st->sandbox[ENGINE_FIREFOX] == SANDBOX_OFF) {
			static const char *const off[] = {"MOZ_DISABLE_CONTENT_SANDBOX",
			                                  "MOZ_DISABLE_GMP_SANDBOX",
			                                  "MOZ_DISABLE_RDD_SANDBOX",
			                                  "MOZ_DISABLE_SOCKET_PROCESS_SANDBOX",
			                                  "MOZ_DISABLE_GPU_SANDBOX",
			                                  "MOZ_DISABLE_UTILITY_SANDBOX",
			                                  NULL};
			for (const char *const *k = off; *k; k++)
				if ((r = set(host, ctx, st, *k, "1")) < 0)
					return r;
		}
	}
	return 0;
}

/* ----------------------------------------------------------------- network */

/* The sandbox exists and waits, the proxy has written its CA: trust it in
 * the NSS databases the plan already binds. */
static int browsers_network(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct browsers *st = data;
	if (st->net.mode != ASB_NET_FILTERED || !st->certutil || st->dry_run)
		return 0;
	const char *session = host->policy_string(ctx, "session_dir");
	_cleanup_free_ char *ca = session ? str_printf("%s/ca.pem", session) : NULL;
	if (!ca)
		return -ENOMEM;
	const char *dbs[] = {st->chrome_nssdb, st->firefox_dir};
	for (size_t i = 0; i < ARRAY_SIZE(dbs); i++) {
		if (!dbs[i])
			continue;
		int r = nssdb_trust_ca(host, ctx, st->certutil, dbs[i], ca);
		if (r < 0) {
			host->log(ctx, ASB_LOG_ERROR, "cannot trust the session CA in %s: %s",
			          dbs[i], strerror(-r));
			return r;
		}
		host->log(ctx, ASB_LOG_INFO, "the session CA is trusted in the NSS database %s",
		          dbs[i]);
	}
	return 0;
}

/* ---------------------------------------------------------------- describe */

static const char *sandbox_text(const struct browsers *st, int e, char *buf, size_t len)
{
	static const char *const on[ENGINE_COUNT] = {
	    [ENGINE_CHROMIUM] = "on: its namespace sandbox (user, pid and network namespaces, "
	                        "a chroot) and seccomp-bpf; never --no-sandbox",
	    [ENGINE_FIREFOX] = "on: its content sandbox (seccomp-bpf, the file broker, user, "
	                       "pid, network and IPC namespaces, a chroot)",
	};
	switch (st->sandbox[e]) {
	case SANDBOX_ON:
		return on[e];
	case SANDBOX_PARTIAL:
		snprintf(buf, len, "partial: seccomp-bpf and the file broker, no namespaces (%s)",
		         st->why[e]);
		return buf;
	case SANDBOX_OFF:
		snprintf(buf, len, "off, allowed by allow_no_sandbox (%s)", st->why[e]);
		return buf;
	}
	return "?";
}

static int browsers_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct browsers *st = data;
	char buf[1024];
	int r;

	if (!st->any)
		return host->describe(ctx, "engines", "(none)");
	snprintf(buf, sizeof(buf), "%s%s%s", st->want[ENGINE_CHROMIUM] ? "chromium" : "",
	         st->want[ENGINE_CHROMIUM] && st->want[ENGINE_FIREFOX] ? ", " : "",
	         st->want[ENGINE_FIREFOX] ? "firefox" : "");
	if ((r = host->describe(ctx, "engines", buf)) < 0)
		return r;
	for (int e = 0; e < ENGINE_COUNT; e++) {
		if (!st->want[e])
			continue;
		char key[64], text[512];
		snprintf(key, sizeof(key), "%s.browser", engines[e].name);
		snprintf(text, sizeof(text), "%s -> %s", st->browser[e][0] ? st->browser[e] : "?",
		         st->browser_path[e][0] ? st->browser_path[e] : "(not declared)");
		if ((r = host->describe(ctx, key, text)) < 0)
			return r;
		snprintf(key, sizeof(key), "%s.driver", engines[e].name);
		if ((r = host->describe(ctx, key,
		                        st->driver[e][0] ? st->driver[e] : "(none declared)")) < 0)
			return r;
		snprintf(key, sizeof(key), "%s.sandbox", engines[e].name);
		if ((r = host->describe(ctx, key, sandbox_text(st, e, text, sizeof(text)))) < 0)
			return r;
	}
	return shown_describe(host, ctx, &st->shown);
}

static void browsers_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data,
                               int status)
{
	(void)host;
	(void)ctx;
	(void)status;
	struct browsers *st = data;
	profiles_remove(&st->profiles);
}

/* The network hook matters only in the filtered mode, where the core holds
 * the sandbox anyway to wire it; seatbelt cannot hold one. */
static const struct asb_hooks browsers_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .flags = ASB_HOOKS_F_ONLY_IF_HELD,
    .configure = browsers_configure,
    .pre_mount = browsers_pre_mount,
    .env = browsers_env,
    .network = browsers_network,
    .post_exit = browsers_post_exit,
    .describe = browsers_describe,
};

static const char *const browsers_config_keys[] = {"engines", "allow_no_sandbox", NULL};

static const struct asb_option browsers_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_LIST,
     .key = "engines",
     .flag = "browsers",
     .env = "BROWSERS",
     .help = "headless browsers to make work inside: chromium, firefox",
     .values = "chromium firefox chromium,firefox"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow_no_sandbox",
     .flag = "browsers-allow-no-sandbox",
     .env = "BROWSERS_ALLOW_NO_SANDBOX",
     .help = "run a browser without its own sandbox where that cannot run (root, macOS)"},
    {0},
};

static const struct asb_plugin browsers_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "browsers",
    .version = "0.1.0",
    .description = "headless Chromium, Chrome and Firefox with their own sandboxes on",
    .config_keys = browsers_config_keys,
    .options = browsers_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = browsers_init,
    .fini = browsers_fini,
    .hooks = &browsers_hooks,
};

ASB_PLUGIN_DEFINE(browsers_plugin)
