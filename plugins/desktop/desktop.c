/* SPDX-License-Identifier: MIT */
/*
 * desktop: the user's desktop session, one deliberate opening at a time.
 *
 *   gui           (--allow-gui) the display: the Wayland socket, or the X11
 *                 socket and its Xauthority (plugins.desktop.display picks:
 *                 "auto" = Wayland where the session has it, else X11;
 *                 "wayland", "x11", "both"); the user's fonts, themes, icons
 *                 and GTK settings read-only. X11 lets every client read and
 *                 inject input in every window of the display: a warning
 *                 says so. GL needs --allow-gpu (plugins/devices).
 *   audio         (--allow-audio) the PulseAudio socket (and cookie) and the
 *                 PipeWire socket, where the session has them. No /dev/snd.
 *   notifications (--allow-notifications) xdg-dbus-proxy in front of the
 *                 session bus: talking to org.freedesktop.Notifications is
 *                 all that passes (the bus's own name aside); notify-send
 *                 on PATH.
 *   clipboard     (--allow-clipboard) wl-copy/wl-paste (Wayland) or xclip
 *                 (X11) on PATH, with the display socket they need. The
 *                 agent then reads whatever you copy.
 *
 * Inside, /run/user/UID is an empty private directory holding only the
 * sockets asked for, and XDG_RUNTIME_DIR points there; the X11 socket is at
 * /tmp/.X11-unix/XN as usual. Every socket needs AF_UNIX: the plugin lifts
 * "unix_sockets" (named in launch.log and --show-config). COLORTERM and
 * TERM already pass through (core/layout.c).
 */
#include "display.h"

#include "exec.h"
#include "helper.h"
#include "rundir.h"
#include "shown.h"
#include "util.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define NOTIFICATIONS "org.freedesktop.Notifications"

struct desktop {
	bool gui, audio, notify, clip, dry_run;
	const char *mode; /* plugins.desktop.display */
	const char *home;
	char runtime[PATH_MAX]; /* the host's XDG_RUNTIME_DIR, or "" */
	char inside[64];        /* /run/user/UID */
	bool runtime_planned, sockets;
	char wayland[PATH_MAX + 32];
	char wayland_name[NAME_MAX + 1];
	bool x11;
	unsigned x11_n;
	char xauth[PATH_MAX];
	char pulse[PATH_MAX + 32], pipewire[PATH_MAX + 32];
	const char *bus_address;
	char *proxy_bin;
	struct rundir run;
	struct helper proxy;
	struct strv shown;
};

static int desk_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct desktop *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->run = (struct rundir)RUNDIR_INIT;
	d->proxy = (struct helper)HELPER_INIT;
	*data = d;
	return 0;
}

static void stop(struct desktop *d)
{
	helper_stop(&d->proxy, 1000);
	rundir_remove(&d->run);
}

static void desk_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct desktop *d = data;
	if (!d)
		return;
	stop(d);
	free(d->proxy_bin);
	strv_clear(&d->shown);
	free(d);
}

static bool is_socket(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* A missing piece: an error in a launch, a warning in a dry run. */
static int missing(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d,
                   const char *what)
{
	host->log(ctx, d->dry_run ? ASB_LOG_WARN : ASB_LOG_ERROR, "%s", what);
	return d->dry_run ? 0 : -ENOENT;
}

/* Which display sockets the session offers, as plugins.desktop.display asks. */
static int find_display(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	const char *w = getenv("WAYLAND_DISPLAY"), *x = getenv("DISPLAY");
	bool want_w = strcmp(d->mode, "x11") != 0, want_x = strcmp(d->mode, "wayland") != 0;
	if (want_w && w &&
	    display_wayland_socket(w, d->runtime, d->wayland, sizeof(d->wayland)) == 0 &&
	    is_socket(d->wayland)) {
		const char *base = strrchr(d->wayland, '/') + 1;
		snprintf(d->wayland_name, sizeof(d->wayland_name), "%s", base);
	} else {
		d->wayland[0] = '\0';
	}
	if (strcmp(d->mode, "auto") == 0 && d->wayland[0])
		want_x = false;
	if (want_x && x && display_x11_number(x, &d->x11_n) == 0) {
		char sock[64];
		snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%u", d->x11_n);
		d->x11 = is_socket(sock);
		const char *xa = getenv("XAUTHORITY");
		if (xa && xa[0] == '/')
			snprintf(d->xauth, sizeof(d->xauth), "%s", xa);
		else
			snprintf(d->xauth, sizeof(d->xauth), "%s/.Xauthority", d->home);
		struct stat st;
		if (stat(d->xauth, &st) < 0)
			d->xauth[0] = '\0';
	}
	if (strcmp(d->mode, "both") == 0 && (!d->wayland[0] || !d->x11))
		return missing(host, ctx, d,
		               "plugins.desktop.display = \"both\": this session lacks the Wayland "
		               "or the X11 socket");
	if (strcmp(d->mode, "wayland") == 0 && !d->wayland[0])
		return missing(host, ctx, d, "no Wayland socket (WAYLAND_DISPLAY) in this session");
	if (strcmp(d->mode, "x11") == 0 && !d->x11)
		return missing(host, ctx, d,
		               "no local X11 socket for DISPLAY (a TCP display is not supported)");
	if (!d->wayland[0] && !d->x11)
		return missing(
		    host, ctx, d,
		    "no display: neither WAYLAND_DISPLAY nor a local X11 DISPLAY is set");
	if (d->x11)
		host->log(ctx, ASB_LOG_WARN,
		          "X11 display :%u inside: every X11 client can read and inject input in "
		          "every window of the display (your terminal too); prefer Wayland, or a "
		          "nested server (Xephyr, Xpra)",
		          d->x11_n);
	return 0;
}

static int desk_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct desktop *d = data;
	int b = 0, r;
	int64_t v = 0;
	bool *flags[] = {&d->gui, &d->audio, &d->notify, &d->clip};
	const char *keys[] = {"gui", "audio", "notifications", "clipboard"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if ((r = host->config_bool(ctx, keys[i], &b)) < 0)
			return r;
		*flags[i] = r == 1 && b;
	}
	d->mode = "auto";
	if ((r = host->config_string(ctx, "display", &d->mode)) < 0)
		return r;
	if (strcmp(d->mode, "auto") && strcmp(d->mode, "wayland") && strcmp(d->mode, "x11") &&
	    strcmp(d->mode, "both"))
		return host->config_error(
		    ctx, "display", "\"%s\": \"auto\", \"wayland\", \"x11\" or \"both\"", d->mode);
	d->dry_run = host->policy_int(ctx, "dry_run", &v) >= 0 && v;
	d->home = host->policy_string(ctx, "home");
	if (!d->home || host->policy_int(ctx, "uid", &v) < 0)
		return -EINVAL;
	snprintf(d->inside, sizeof(d->inside), "/run/user/%lld", (long long)v);
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	if (rt && rt[0] == '/')
		snprintf(d->runtime, sizeof(d->runtime), "%s", rt);
	else if (stat(d->inside, &st) == 0)
		snprintf(d->runtime, sizeof(d->runtime), "%s", d->inside);

	if ((d->gui || d->clip) && (r = find_display(host, ctx, d)) < 0)
		return r;
	if (d->audio) {
		const char *ps = getenv("PULSE_SERVER");
		if (ps && display_pulse_path(ps, d->pulse, sizeof(d->pulse)) < 0)
			return missing(host, ctx, d, "PULSE_SERVER is not a local socket");
		if (!ps && d->runtime[0])
			snprintf(d->pulse, sizeof(d->pulse), "%s/pulse/native", d->runtime);
		if (!is_socket(d->pulse))
			d->pulse[0] = '\0';
		if (d->runtime[0])
			snprintf(d->pipewire, sizeof(d->pipewire), "%s/pipewire-0", d->runtime);
		if (!is_socket(d->pipewire))
			d->pipewire[0] = '\0';
		if (!d->pulse[0] && !d->pipewire[0] &&
		    (r = missing(
		         host, ctx, d,
		         "--allow-audio: no PulseAudio or PipeWire socket in this session")) < 0)
			return r;
	}
	if (d->notify) {
		char path[PATH_MAX];
		static char fallback[PATH_MAX + 16];
		d->bus_address = getenv("DBUS_SESSION_BUS_ADDRESS");
		if (!d->bus_address && d->runtime[0]) {
			snprintf(fallback, sizeof(fallback), "unix:path=%s/bus", d->runtime);
			d->bus_address = fallback;
		}
		if (!d->bus_address ||
		    (display_dbus_path(d->bus_address, path, sizeof(path)) == 0 &&
		     !is_socket(path)))
			return missing(host, ctx, d,
			               "--allow-notifications: no session bus "
			               "(DBUS_SESSION_BUS_ADDRESS)");
		if (exec_find_system("xdg-dbus-proxy", &d->proxy_bin) < 0)
			return missing(
			    host, ctx, d,
			    "--allow-notifications needs xdg-dbus-proxy (apt-get install "
			    "xdg-dbus-proxy) to keep the rest of the bus out");
	}
	return 0;
}

static int runtime_dir(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	if (d->runtime_planned)
		return 0;
	struct asb_entry e = {.struct_size = sizeof(e),
	                      .type = ASB_ENTRY_EPHEMERAL,
	                      .mode = 0700,
	                      .fd = -1,
	                      .dest = d->inside};
	int r = host->plan_entry(ctx, &e);
	d->runtime_planned = r >= 0;
	return r < 0
	           ? r
	           : shown_add(&d->shown, "mount",
	                       "%s: an empty private directory ($XDG_RUNTIME_DIR; only the sockets "
	                       "below)",
	                       d->inside);
}

static int bind(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d,
                const char *src, const char *dest, uint32_t flags, const char *why)
{
	int r = host->plan_path(ctx, ASB_ENTRY_READ, src, dest, flags);
	if (r < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot expose %s: %s", src, strerror(-r));
		return r;
	}
	return dest && strcmp(src, dest) != 0
	           ? shown_add(&d->shown, "mount", "%s: read-only, from %s (%s)", dest, src, why)
	           : shown_add(&d->shown, "mount", "%s: read-only (%s)", src, why);
}

static int socket_in_runtime(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d,
                             const char *src, const char *rel, const char *why)
{
	_cleanup_free_ char *dest = str_printf("%s/%s", d->inside, rel);
	int r = dest ? runtime_dir(host, ctx, d) : -ENOMEM;
	if (r >= 0 && (r = bind(host, ctx, d, src, dest, 0, why)) >= 0)
		d->sockets = true;
	return r;
}

static int plan_display(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	int r;
	if (d->wayland[0] && (r = socket_in_runtime(host, ctx, d, d->wayland, d->wayland_name,
	                                            "the Wayland socket")) < 0)
		return r;
	if (d->x11) {
		char sock[64];
		snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%u", d->x11_n);
		if ((r = bind(host, ctx, d, sock, NULL, 0, "the X11 socket")) < 0)
			return r;
		d->sockets = true;
		if (d->xauth[0]) {
			if (str_has_prefix(d->xauth, d->inside) &&
			    (r = runtime_dir(host, ctx, d)) < 0)
				return r;
			if ((r = bind(host, ctx, d, d->xauth, NULL, 0, "the X11 cookie")) < 0)
				return r;
		}
	}
	return 0;
}

static int plan_looks(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	static const char *const rel[] = {".fonts",
	                                  ".local/share/fonts",
	                                  ".config/fontconfig",
	                                  ".themes",
	                                  ".local/share/themes",
	                                  ".icons",
	                                  ".local/share/icons",
	                                  ".config/gtk-3.0",
	                                  ".config/gtk-4.0",
	                                  ".Xresources",
	                                  NULL};
	int r;
	for (const char *const *p = rel; *p; p++) {
		_cleanup_free_ char *path = str_printf("%s/%s", d->home, *p);
		struct stat st;
		if (!path)
			return -ENOMEM;
		if (stat(path, &st) == 0 &&
		    (r = bind(host, ctx, d, path, NULL, ASB_ENTRY_F_TRY, "fonts and themes")) < 0)
			return r;
	}
	struct stat st;
	if (stat("/var/cache/fontconfig", &st) == 0 &&
	    (r = bind(host, ctx, d, "/var/cache/fontconfig", NULL, ASB_ENTRY_F_TRY,
	              "fontconfig's caches")) < 0)
		return r;
	return 0;
}

static int plan_audio(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	int r;
	if (d->pulse[0]) {
		if ((r = socket_in_runtime(host, ctx, d, d->pulse, "pulse/native",
		                           "the PulseAudio socket")) < 0)
			return r;
		_cleanup_free_ char *cookie = str_printf("%s/.config/pulse/cookie", d->home);
		struct stat st;
		if (!cookie)
			return -ENOMEM;
		if (stat(cookie, &st) == 0 && (r = bind(host, ctx, d, cookie, NULL, ASB_ENTRY_F_TRY,
		                                        "PulseAudio's cookie")) < 0)
			return r;
	}
	if (d->pipewire[0] && (r = socket_in_runtime(host, ctx, d, d->pipewire, "pipewire-0",
	                                             "the PipeWire socket")) < 0)
		return r;
	return 0;
}

static int plan_notify(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	const char *session = host->policy_string(ctx, "session_dir");
	_cleanup_free_ char *parent = rundir_parent_of(session);
	int r;
	if (!parent)
		return -EINVAL;
	if ((r = rundir_create(&d->run, parent, "dbus")) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot make the bus proxy's directory in %s: %s",
		          parent, strerror(-r));
		return r;
	}
	_cleanup_free_ char *dir = str_printf("%s/socket", d->run.dir);
	_cleanup_free_ char *sock = str_printf("%s/socket/bus", d->run.dir);
	if (!dir || !sock)
		return -ENOMEM;
	if (mkdir(dir, 0700) < 0)
		return -errno;
	if (!d->dry_run) {
		const char *argv[] = {d->proxy_bin, d->bus_address,          sock,
		                      "--filter",   "--talk=" NOTIFICATIONS, NULL};
		if ((r = helper_start(&d->proxy, argv, NULL, NULL, 0, "--fd=%d", STDERR_FILENO)) <
		        0 ||
		    (r = helper_wait_ready(&d->proxy, 5000)) < 0) {
			host->log(ctx, ASB_LOG_ERROR, "xdg-dbus-proxy did not start: %s",
			          strerror(-r));
			return r;
		}
		host->log(ctx, ASB_LOG_INFO,
		          "xdg-dbus-proxy (pid %d) in front of %s: only " NOTIFICATIONS " is "
		          "reachable",
		          (int)d->proxy.pid, d->bus_address);
	}
	if ((r = socket_in_runtime(
	         host, ctx, d, dir, "dbus-proxy",
	         "xdg-dbus-proxy's socket: the session bus, filtered to " NOTIFICATIONS)) < 0)
		return r;
	char path[PATH_MAX];
	if (host->find_executable(ctx, "notify-send", path, sizeof(path)) == 0 &&
	    ((r = host->plan_add_executable(ctx, "notify-send", path)) < 0 ||
	     (r = shown_add(&d->shown, "executable", "notify-send (%s)", path)) < 0))
		return r;
	return 0;
}

static int plan_clipboard(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d)
{
	static const char *const wayland[] = {"wl-copy", "wl-paste", NULL};
	static const char *const x11[] = {"xclip", "xsel", NULL};
	const char *const *tools = d->wayland[0] ? wayland : x11;
	int found = 0, r;
	for (const char *const *t = tools; *t; t++) {
		char path[PATH_MAX];
		if (host->find_executable(ctx, *t, path, sizeof(path)) < 0)
			continue;
		if ((r = host->plan_add_executable(ctx, *t, path)) < 0 ||
		    (r = shown_add(&d->shown, "executable", "%s (%s): the clipboard", *t, path)) <
		        0)
			return r;
		found++;
	}
	if (!found)
		return missing(host, ctx, d,
		               d->wayland[0] ? "--allow-clipboard needs wl-clipboard (wl-copy, "
		                               "wl-paste) on the host"
		                             : "--allow-clipboard needs xclip or xsel on the host");
	host->log(ctx, ASB_LOG_WARN,
	          "--allow-clipboard: the agent can read whatever you copy, and replace it");
	return 0;
}

static int desk_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct desktop *d = data;
	int r;
	if ((d->gui || d->clip) && (r = plan_display(host, ctx, d)) < 0)
		return r;
	if (d->gui && (r = plan_looks(host, ctx, d)) < 0)
		return r;
	if (d->audio && (r = plan_audio(host, ctx, d)) < 0)
		return r;
	if (d->notify && d->bus_address && d->proxy_bin && (r = plan_notify(host, ctx, d)) < 0)
		return r;
	if (d->clip && (r = plan_clipboard(host, ctx, d)) < 0)
		return r;
	if (d->sockets &&
	    ((r = host->plan_seccomp_allow(ctx, "unix_sockets")) < 0 ||
	     (r = shown_add(
	          &d->shown, "seccomp",
	          "unix_sockets lifted: the display, audio and bus clients connect to the "
	          "sockets above; the filter cannot allow those paths only")) < 0))
		return r;
	return 0;
}

static int set(const struct asb_host *host, struct asb_ctx *ctx, struct desktop *d, const char *key,
               const char *value)
{
	int r = host->plan_setenv(ctx, key, value);
	return r < 0 ? r : shown_add(&d->shown, "env", "%s=%s", key, value);
}

static int desk_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct desktop *d = data;
	char buf[PATH_MAX + 64];
	int r;
	if (d->runtime_planned && (r = set(host, ctx, d, "XDG_RUNTIME_DIR", d->inside)) < 0)
		return r;
	if ((d->gui || d->clip) && d->wayland[0] &&
	    ((r = set(host, ctx, d, "WAYLAND_DISPLAY", d->wayland_name)) < 0 ||
	     (r = set(host, ctx, d, "XDG_SESSION_TYPE", "wayland")) < 0))
		return r;
	if ((d->gui || d->clip) && d->x11) {
		snprintf(buf, sizeof(buf), ":%u", d->x11_n);
		if ((r = set(host, ctx, d, "DISPLAY", buf)) < 0)
			return r;
		if (d->xauth[0] && (r = set(host, ctx, d, "XAUTHORITY", d->xauth)) < 0)
			return r;
		/* MIT-SHM is System V shared memory: the sandbox's own IPC
		 * namespace keeps the server from attaching it. */
		if ((r = set(host, ctx, d, "QT_X11_NO_MITSHM", "1")) < 0 ||
		    (!d->wayland[0] && (r = set(host, ctx, d, "XDG_SESSION_TYPE", "x11")) < 0))
			return r;
	}
	if (d->audio && d->pulse[0]) {
		snprintf(buf, sizeof(buf), "unix:%s/pulse/native", d->inside);
		if ((r = set(host, ctx, d, "PULSE_SERVER", buf)) < 0)
			return r;
	}
	if (d->notify && d->run.dir) {
		snprintf(buf, sizeof(buf), "unix:path=%s/dbus-proxy/bus", d->inside);
		if ((r = set(host, ctx, d, "DBUS_SESSION_BUS_ADDRESS", buf)) < 0)
			return r;
	}
	return 0;
}

static int desk_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct desktop *d = data;
	char buf[128];
	int r;
	const char *keys[] = {"gui", "audio", "notifications", "clipboard"};
	bool on[] = {d->gui, d->audio, d->notify, d->clip};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(buf, sizeof(buf), "%s", on[i] ? "true" : "false");
		if ((r = host->describe(ctx, keys[i], buf)) < 0)
			return r;
	}
	if ((d->gui || d->clip) &&
	    (r = host->describe(ctx, "display",
	                        d->wayland[0] && d->x11 ? "wayland and x11"
	                        : d->wayland[0]         ? "wayland"
	                        : d->x11                ? "x11 (every client sees every window)"
	                                                : "(none found)")) < 0)
		return r;
	if (d->notify && (r = host->describe(ctx, "bus",
	                                     "xdg-dbus-proxy --filter --talk=" NOTIFICATIONS
	                                     ": nothing else on the session bus")) < 0)
		return r;
	return shown_describe(host, ctx, &d->shown);
}

static void desk_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status)
{
	(void)host;
	(void)ctx;
	(void)status;
	stop(data);
}

static const struct asb_hooks desk_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = desk_configure,
    .pre_mount = desk_pre_mount,
    .env = desk_env,
    .post_exit = desk_post_exit,
    .describe = desk_describe,
};

static const char *const desk_config_keys[] = {"gui",       "audio",   "notifications",
                                               "clipboard", "display", NULL};

#define OPT(k, f, e, h)                                                                            \
	{                                                                                          \
		.struct_size = sizeof(struct asb_option), .type = ASB_OPT_BOOL, .key = (k),        \
		.flag = (f), .env = (e), .help = (h)                                               \
	}

static const struct asb_option desk_options[] = {
    OPT("gui", "allow-gui", "ALLOW_GUI",
        "the display (Wayland, or X11 with a warning) and your fonts and themes"),
    OPT("audio", "allow-audio", "ALLOW_AUDIO", "the PulseAudio and PipeWire sockets"),
    OPT("notifications", "allow-notifications", "ALLOW_NOTIFICATIONS",
        "notify-send reaches your notification service, nothing else on the session bus"),
    OPT("clipboard", "allow-clipboard", "ALLOW_CLIPBOARD",
        "wl-copy/wl-paste or xclip: the agent reads and sets your clipboard"),
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_STRING,
     .key = "display",
     .flag = "gui-display",
     .env = "GUI_DISPLAY",
     .help = "auto (Wayland where there is one, else X11), wayland, x11 or both",
     .values = "auto wayland x11 both"},
    {0},
};

static const struct asb_plugin desk_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "desktop",
    .version = "0.1.0",
    .description = "the display, audio, notifications and the clipboard, each on request",
    .config_keys = desk_config_keys,
    .options = desk_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = desk_init,
    .fini = desk_fini,
    .hooks = &desk_hooks,
};

ASB_PLUGIN_DEFINE(desk_plugin)
