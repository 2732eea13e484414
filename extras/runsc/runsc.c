/* SPDX-License-Identifier: MIT */
/* agentsandbox backend for gVisor (runsc), built the way a third party
 * would: against <agentsandbox/plugin.h> and libc alone. See README.md for
 * what it gives, what it refuses and why. */
#include "runsc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUNSC_PLUGIN_VERSION "0.1.0"

/* What gVisor gives, each proved by tests/conformance.sh: */
#define RUNSC_CAPS                                                                                 \
	(ASB_CAP_FS_VIEW | ASB_CAP_REMAP | ASB_CAP_EPHEMERAL | ASB_CAP_FILES | ASB_CAP_MASKS |     \
	 ASB_CAP_PID_NS | ASB_CAP_NETNS | ASB_CAP_SECCOMP | ASB_CAP_LIMITS |                       \
	 ASB_CAP_NO_NEW_PRIVS | ASB_CAP_HOLD | ASB_CAP_FD_BINDS)
/* FD_BINDS without binding fds: runsc's gofer opens mount sources by name,
 * in its own pid namespace (a /proc/self/fd path names its fds, not ours),
 * so pins.c checks, before the agent runs, that each pinned path is inside
 * the very object the core checked, and stops the launch otherwise.
 * Not: FS_RULES (a view, not a profile), NET_RULES (the core wires our
 * network namespace),
 * LANDLOCK (ENOSYS in gVisor), UNIX_RULES (the seccomp filter does it). */

static const char *const runsc_dirs[] = {"/usr/bin",
                                         "/usr/sbin",
                                         "/usr/local/bin",
                                         "/usr/local/sbin",
                                         "/bin",
                                         "/sbin",
                                         "/run/current-system/sw/bin",
                                         NULL};
static const char *const sh_dirs[] = {"/bin", "/usr/bin", NULL};
static const char *const flock_dirs[] = {"/usr/bin", "/bin", "/run/current-system/sw/bin", NULL};
static const char *const platforms[] = {"ptrace", "kvm", "systrap", NULL};

static int runsc_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct runsc *rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	rs->ready_fd = rs->netns_fd = -1;
	snprintf(rs->platform, sizeof(rs->platform), "ptrace");
	*data = rs;
	return 0;
}

static void free_argv(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void runsc_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct runsc *rs = data;
	if (!rs)
		return;
	close_fd(&rs->ready_fd);
	close_fd(&rs->netns_fd);
	view_free(&rs->view);
	free(rs->spec);
	free_argv(rs->base_argv);
	free(rs->dir);
	free(rs);
}

static int runsc_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct runsc *rs = data;
	const char *platform = NULL;
	int r = host->config_string(ctx, "platform", &platform);
	if (r < 0)
		return r;
	if (r == 0)
		return 0;
	for (const char *const *p = platforms; *p; p++)
		if (strcmp(*p, platform) == 0) {
			snprintf(rs->platform, sizeof(rs->platform), "%s", platform);
			return 0;
		}
	return host->config_error(
	    ctx, "platform", "unknown gVisor platform \"%s\" (ptrace, kvm or systrap)", platform);
}

static int read_long(const char *path, long *out)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int ok = fscanf(f, "%ld", out) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

/* runsc --version: "runsc version 0.0~20221219.0\nspec: 1.0.2-dev\n". */
static int read_version(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs)
{
	const char *argv[] = {rs->runsc, "--version", NULL};
	char out[256] = "";
	int st = 0;
	int r = host->run_program(ctx, argv, NULL, &st, out, sizeof(out));
	if (r < 0)
		return r;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -EIO;
	out[strcspn(out, "\n")] = '\0';
	const char *v = strncmp(out, "runsc version ", 14) == 0 ? out + 14 : out;
	snprintf(rs->version, sizeof(rs->version), "%.63s", v);
	return 0;
}

/* gVisor before 2023-02-21 (its commit 7a0c4b574, "Ignore AT_NO_AUTOMOUNT
 * flag in statx() calls") refuses statx() with AT_NO_AUTOMOUNT: coreutils'
 * ls and stat fail inside. Versions: "release-20221219.0", "0.0~20221219.0". */
static const char statx_note[] = "this gVisor refuses statx(AT_NO_AUTOMOUNT), so coreutils' ls "
                                 "and stat fail inside with EINVAL (releases after 2023-02-21 "
                                 "accept it)";

static bool statx_broken(const char *version)
{
	for (const char *c = version; *c; c++) {
		char *end;
		unsigned long date = strtoul(c, &end, 10);
		if (end - c == 8)
			return date < 20230222;
		if (end > c)
			c = end - 1;
	}
	return false;
}

static int runsc_probe(const struct asb_host *host, struct asb_ctx *ctx, void *data, uint64_t *caps,
                       char *why, size_t why_len)
{
	struct runsc *rs = data;
	int r = runsc_find_trusted("runsc", runsc_dirs, rs->runsc, sizeof(rs->runsc), why, why_len);
	if (r == -ENOENT)
		snprintf(why, why_len,
		         "runsc (gVisor) is not installed; install it (apt-get install "
		         "runsc, or https://gvisor.dev/docs/user_guide/install/)");
	if (r < 0)
		return r;
	if ((r = runsc_find_trusted("sh", sh_dirs, rs->sh, sizeof(rs->sh), why, why_len)) < 0)
		return r;
	char flock_why[256];
	if (runsc_find_trusted("flock", flock_dirs, rs->flock, sizeof(rs->flock), flock_why,
	                       sizeof(flock_why)) < 0) {
		/* The hold needs flock(1): without it, only launches that need
		 * no hold (no network to wire, no plugin hook in between). */
		host->log(ctx, ASB_LOG_INFO, "runsc: cannot hold the sandbox: %s", flock_why);
		rs->flock[0] = '\0';
		*caps &= ~(ASB_CAP_HOLD | ASB_CAP_FD_BINDS);
	}
	int64_t v = 0;
	(void)host->policy_int(ctx, "is_root", &v);
	rs->is_root = v;
	(void)host->policy_int(ctx, "uid", &rs->uid);
	(void)host->policy_int(ctx, "gid", &rs->gid);
	if (!rs->is_root) {
		/* Unprivileged, runsc runs as root of a user namespace. */
		long n;
		if ((read_long("/proc/sys/user/max_user_namespaces", &n) == 0 && n == 0) ||
		    (read_long("/proc/sys/kernel/unprivileged_userns_clone", &n) == 0 && n == 0)) {
			snprintf(why, why_len,
			         "runsc needs user namespaces for an unprivileged user, "
			         "and this kernel has them disabled");
			return -EPERM;
		}
		if (read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &n) == 0 &&
		    n != 0) {
			snprintf(why, why_len,
			         "AppArmor restricts unprivileged user namespaces here "
			         "(kernel.apparmor_restrict_unprivileged_userns = 1): runsc cannot "
			         "run as %s",
			         host->policy_string(ctx, "user") ? host->policy_string(ctx, "user")
			                                          : "this user");
			return -EPERM;
		}
	}
	if (strcmp(rs->platform, "kvm") == 0 && access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(why, why_len,
		         "plugins.runsc.platform = \"kvm\" but /dev/kvm is not usable: %s",
		         strerror(errno));
		return -ENODEV;
	}
	if ((r = read_version(host, ctx, rs)) < 0) {
		snprintf(why, why_len, "%s --version failed", rs->runsc);
		return r;
	}
	if (statx_broken(rs->version))
		host->log(ctx, ASB_LOG_INFO, "runsc %s: %s", rs->version, statx_note);
	host->log(ctx, ASB_LOG_INFO, "using %s, runsc %s (root-owned, not writable by others)%s",
	          rs->runsc, rs->version, rs->is_root ? "" : ", as root of a user namespace");
	return 0;
}

/* What the launch needs, from the plan and the policy; also in dry runs,
 * where there is no private directory yet. */
static int settle(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs)
{
	const char *dir = host->policy_string(ctx, "private_dir");
	const char *sid = host->policy_string(ctx, "session_id");
	if (!dir)
		return -EINVAL;
	free(rs->dir);
	if (!(rs->dir = strdup(dir)))
		return -ENOMEM;
	/* runsc's container ids: letters, digits, "-", "_", "." */
	snprintf(rs->id, sizeof(rs->id), "asb-%s", sid ? sid : "session");
	for (char *c = rs->id; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			*c = '_';
	struct asb_network net = {.struct_size = sizeof(net)};
	int r = host->plan_network(ctx, &net);
	if (r < 0)
		return r;
	rs->use_netns = net.mode != ASB_NET_OFF || net.n_host_ports || net.n_published_ports;
	int64_t hold = 0;
	(void)host->policy_int(ctx, "hold", &hold);
	rs->hold = hold;
	/* Held also when the core does not ask: the pinned paths are checked
	 * then (pins.c), and spawn releases the sandbox itself. */
	rs->hooked = rs->flock[0] != '\0';
	if (rs->hold && !rs->hooked)
		return -EOPNOTSUPP; /* the core refused this already (no ASB_CAP_HOLD) */
	return 0;
}

static int mkdir_in(const struct runsc *rs, const char *name, mode_t mode)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", rs->dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return mkdir(path, mode) < 0 ? -errno : 0;
}

static int runsc_prepare(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct runsc *rs = data;
	int r = settle(host, ctx, rs);
	if (r < 0)
		return r;
	static const struct {
		const char *name;
		mode_t mode;
	} dirs[] = {{RUNSC_BUNDLE, 0700},
	            {RUNSC_ROOTFS, 0755},
	            {RUNSC_STATE, 0700},
	            {RUNSC_FILES, 0700},
	            {RUNSC_DIRS, 0700}};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((r = mkdir_in(rs, dirs[i].name, dirs[i].mode)) < 0)
			return r;
	char path[PATH_MAX];
	if (rs->hooked) {
		snprintf(path, sizeof(path), "%s/" RUNSC_READY, rs->dir);
		if (mkfifo(path, 0600) < 0)
			return -errno;
		if ((rs->ready_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			return -errno;
	}
	if (rs->use_netns) {
		if (!ASB_HAS(host, struct asb_host, net_namespace_new))
			return -EOPNOTSUPP;
		if ((r = host->net_namespace_new(ctx, &rs->netns_fd)) < 0) {
			host->log(ctx, ASB_LOG_ERROR,
			          "runsc: cannot make the sandbox's network namespace: %s",
			          strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The agent's stdio is the user's. gVisor gives the container a terminal
 * only as a whole (runsc's stdin is its tty, output included): when 0, 1
 * and 2 are one terminal. Otherwise plain descriptors (no tty inside). */
static bool one_terminal(void)
{
	struct stat st[3];
	for (int fd = 0; fd < 3; fd++)
		if (!isatty(fd) || fstat(fd, &st[fd]) < 0)
			return false;
	return st[0].st_rdev == st[1].st_rdev && st[1].st_rdev == st[2].st_rdev;
}

static int base_argv(struct runsc *rs)
{
	char root[PATH_MAX + 16], platform[48];
	if (snprintf(root, sizeof(root), "--root=%s/" RUNSC_STATE, rs->dir) >= (int)sizeof(root))
		return -ENAMETOOLONG;
	snprintf(platform, sizeof(platform), "--platform=%s", rs->platform);
	/* Unprivileged without a network to wire: runsc's own rootless mode
	 * (gVisor's netstack, loopback only). Otherwise runsc runs as root
	 * (of our user namespace, unprivileged) in the network namespace the
	 * core wires, using it as gVisor's host network. */
	bool rootless = !rs->is_root && !rs->use_netns;
	const char *v[] = {rs->runsc,
	                   root,
	                   "--ignore-cgroups",
	                   rs->use_netns ? "--network=host" : "--network=none",
	                   platform,
	                   rootless ? "--rootless" : NULL,
	                   NULL};
	free_argv(rs->base_argv);
	size_t n = 0;
	while (v[n])
		n++;
	if (!(rs->base_argv = calloc(n + 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(rs->base_argv[i] = strdup(v[i])))
			return -ENOMEM;
	return 0;
}

static int runsc_build(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct runsc *rs = data;
	int r;
	if ((r = settle(host, ctx, rs)) < 0 || (r = base_argv(rs)) < 0)
		return r;
	rs->terminal = one_terminal();
	if ((r = view_build(host, ctx, &rs->view)) < 0)
		return r;
	free(rs->spec);
	rs->spec = NULL;
	if ((r = spec_render(host, ctx, rs, false, &rs->spec, &rs->spec_len)) < 0)
		return r;
	char *record = NULL;
	size_t len = 0;
	if ((r = spec_render(host, ctx, rs, true, &record, &len)) < 0)
		return r;
	r = host->out_artifact(ctx, "runsc.json", record, len);
	free(record);
	if (r < 0)
		return r;
	for (char **a = rs->base_argv; *a; a++)
		if ((r = host->out_arg(ctx, *a)) < 0)
			return r;
	char bundle[PATH_MAX];
	snprintf(bundle, sizeof(bundle), "%s/" RUNSC_BUNDLE, rs->dir);
	const char *tail[] = {"run", "--bundle", bundle, rs->id, NULL};
	for (const char *const *a = tail; *a; a++)
		if ((r = host->out_arg(ctx, *a)) < 0)
			return r;
	return 0;
}

static int runsc_spawn(const struct asb_host *host, struct asb_ctx *ctx, void *data, int64_t *pid)
{
	return keeper_spawn(host, ctx, data, pid);
}

static int runsc_await_start(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	return keeper_await_start(host, ctx, data);
}

static int runsc_release(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	return keeper_release(host, ctx, data);
}

static int runsc_wait(const struct asb_host *host, struct asb_ctx *ctx, void *data, int wstatus)
{
	return keeper_wait(host, ctx, data, wstatus);
}

static void runsc_cleanup(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	keeper_cleanup(host, ctx, data);
}

static int runsc_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct runsc *rs = data;
	int r = host->describe(ctx, "path", rs->runsc[0] ? rs->runsc : "(not found)");
	if (r >= 0)
		r = host->describe(ctx, "version", rs->version[0] ? rs->version : "unknown");
	if (r >= 0)
		r = host->describe(ctx, "platform", rs->platform);
	if (r >= 0 && statx_broken(rs->version))
		r = host->describe(ctx, "known_issue", statx_note);
	if (r >= 0)
		r = host->describe(ctx, "runs_as",
		                   rs->is_root
		                       ? "root"
		                       : "root of a user namespace mapped to you (the agent "
		                         "is uid 0 inside gVisor, with no capabilities)");
	return r;
}

static const struct asb_hooks hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = runsc_configure,
    .describe = runsc_describe,
};

static const struct asb_backend_ops ops = {
    .struct_size = sizeof(struct asb_backend_ops),
    .caps = RUNSC_CAPS,
    .probe = runsc_probe,
    .prepare = runsc_prepare,
    .build = runsc_build,
    .spawn = runsc_spawn,
    .await_start = runsc_await_start,
    .release = runsc_release,
    /* signal: NULL: the core signals the keeper, which relays. */
    .wait = runsc_wait,
    .cleanup = runsc_cleanup,
};

static const char *const config_keys[] = {"platform", NULL};

static const struct asb_option options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_STRING,
     .key = "platform",
     .flag = "runsc-platform",
     .env = "RUNSC_PLATFORM",
     .help = "gVisor platform: ptrace (default), kvm or systrap"},
    {.struct_size = sizeof(struct asb_option)},
};

static const struct asb_plugin descriptor = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_BACKEND,
    .name = "runsc",
    .version = RUNSC_PLUGIN_VERSION,
    .description = "Linux backend: gVisor (runsc), a user-space kernel between the agent and "
                   "the host",
    .config_keys = config_keys,
    .options = options,
    .init = runsc_init,
    .fini = runsc_fini,
    .hooks = &hooks,
    .backend = &ops,
};

ASB_PLUGIN_DEFINE(descriptor)
