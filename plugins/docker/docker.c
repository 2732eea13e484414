/* SPDX-License-Identifier: MIT */
/*
 * docker: the agent may use the host's Docker daemon, never its raw socket.
 *
 * The Docker socket is root on the host. plugins.docker.allow = true
 * (--allow-docker) starts agentsandbox-broker in front of it: its socket is
 * the only thing in a read-only directory bound at /run/docker, DOCKER_HOST
 * points there, and broker/docker_policy.h says what passes: containers
 * that are not privileged, share no host namespace, get no devices, no
 * added capabilities and bind only paths the agent may already write (the
 * workspace, rw_dirs, rw_files, resolved on the host), labelled with the
 * session; only those may be started, attached, exec'd into or removed
 * later, and the broker removes them when the session ends. Each decision
 * is a line of the session's docker.log. `docker` goes on PATH when the
 * host has it.
 *
 * What stays open, and the warning says so: the containers run on the
 * host's daemon, outside this sandbox, so their network is the daemon's
 * (not the filtered mode's proxy) and an image pull reaches any registry;
 * and a bind source is checked, then mounted by the daemon, so an agent
 * that swaps a component of it for a link in between can still win that
 * race.
 *
 * Connecting to the broker needs AF_UNIX sockets, which the seccomp filter
 * denies: the plugin lifts the "unix_sockets" group, named in launch.log
 * and --show-config.
 */
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

#define DEST_DIR  "/run/docker"
#define SOCK_NAME "docker.sock"
#define RISK                                                                                       \
	"the agent's containers run on the host's Docker daemon, outside this sandbox: their "     \
	"network is the daemon's (not this sandbox's filter) and pulls reach any registry"

struct docker {
	bool allow, dry_run;
	char *upstream; /* the daemon's socket */
	const char *upstream_from;
	struct strv roots;
	struct rundir run;
	int listen_fd;
	struct helper broker;
	char *log_path;
	struct strv shown;
};

static int docker_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct docker *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->run = (struct rundir)RUNDIR_INIT;
	d->broker = (struct helper)HELPER_INIT;
	d->listen_fd = -1;
	*data = d;
	return 0;
}

static void stop(struct docker *d)
{
	/* SIGTERM: the broker removes the session's containers, then ends. */
	helper_stop(&d->broker, 20000);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	d->listen_fd = -1;
	rundir_remove(&d->run);
}

static void docker_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct docker *d = data;
	if (!d)
		return;
	stop(d);
	strv_clear(&d->roots);
	strv_clear(&d->shown);
	free(d->upstream);
	free(d->log_path);
	free(d);
}

/* plugins.docker.socket, else DOCKER_HOST (unix:// only), else the
 * rootless daemon's, else /var/run/docker.sock. */
static int find_socket(const struct asb_host *host, struct asb_ctx *ctx, struct docker *d)
{
	const char *cfg = NULL;
	int r = host->config_string(ctx, "socket", &cfg);
	if (r < 0)
		return r;
	const char *env = getenv("DOCKER_HOST");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	_cleanup_free_ char *rootless =
	    xdg && xdg[0] == '/' ? str_printf("%s/docker.sock", xdg) : NULL;
	struct stat st;
	if (r == 1 && cfg && *cfg) {
		d->upstream = strdup(cfg);
		d->upstream_from = "plugins.docker.socket";
	} else if (env && *env) {
		if (!str_has_prefix(env, "unix://"))
			return host->config_error(
			    ctx, "socket",
			    "DOCKER_HOST=%s: the filter speaks to a unix socket only "
			    "(unix:///path, or set plugins.docker.socket)",
			    env);
		d->upstream = strdup(env + 7);
		d->upstream_from = "DOCKER_HOST";
	} else if (rootless && stat(rootless, &st) == 0 && S_ISSOCK(st.st_mode)) {
		d->upstream = TAKE_PTR(rootless);
		d->upstream_from = "the rootless daemon's";
	} else {
		d->upstream = strdup("/var/run/docker.sock");
		d->upstream_from = "the default";
	}
	return d->upstream ? 0 : -ENOMEM;
}

static int docker_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct docker *d = data;
	int b = 0, r;
	int64_t v;
	if ((r = host->config_bool(ctx, "allow", &b)) < 0)
		return r;
	d->allow = r == 1 && b;
	d->dry_run = host->policy_int(ctx, "dry_run", &v) >= 0 && v;
	if (!d->allow)
		return 0;
	if ((r = find_socket(host, ctx, d)) < 0)
		return r;
	struct stat st;
	if (d->upstream[0] != '/' || stat(d->upstream, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		host->log(
		    ctx, d->dry_run ? ASB_LOG_WARN : ASB_LOG_ERROR,
		    "--allow-docker: no Docker daemon socket at %s (%s); start the daemon, set "
		    "DOCKER_HOST=unix:///path or plugins.docker.socket, or drop --allow-docker",
		    d->upstream, d->upstream_from);
		if (!d->dry_run)
			return -ENOENT;
	}
	host->log(
	    ctx, ASB_LOG_WARN,
	    "--allow-docker: " RISK "; privileged containers, host namespaces, devices, "
	    "added capabilities and binds outside the workspace and rw paths are refused, and "
	    "the session's containers are removed when it ends");
	return 0;
}

/* What a bind may name: the paths the agent may already write. */
static int add_roots(const struct asb_host *host, struct asb_ctx *ctx, struct docker *d)
{
	const char *ws = host->policy_string(ctx, "workspace");
	int r = ws ? strv_push(&d->roots, ws) : 0;
	static const char *const lists[] = {"rw_dirs", "rw_files"};
	for (size_t l = 0; r >= 0 && l < ARRAY_SIZE(lists); l++) {
		int n = host->policy_list_count(ctx, lists[l]);
		for (int i = 0; r >= 0 && i < n; i++) {
			const char *p = host->policy_list_get(ctx, lists[l], (uint32_t)i);
			if (p)
				r = strv_push(&d->roots, p);
		}
	}
	return r;
}

static int start_broker(const struct asb_host *host, struct asb_ctx *ctx, struct docker *d)
{
	const char *session = host->policy_string(ctx, "session_id");
	struct strv extra = {0};
	int r = session ? strv_push(&extra, "--label") : -EINVAL;
	if (r >= 0)
		r = strv_push(&extra, session);
	for (size_t i = 0; r >= 0 && i < d->roots.n; i++)
		if ((r = strv_push(&extra, "--root")) >= 0)
			r = strv_push(&extra, d->roots.v[i]);
	if (r >= 0)
		r = helper_start_broker(&d->broker, "docker", d->upstream, d->log_path,
		                        (const char *const *)extra.v, d->listen_fd);
	strv_clear(&extra);
	if (r < 0)
		host->log(ctx, ASB_LOG_ERROR, "the docker broker did not start: %s%s", strerror(-r),
		          r == -ENOENT ? " (agentsandbox-broker is not installed)" : "");
	else
		host->log(ctx, ASB_LOG_INFO,
		          "docker broker (pid %d) at " DEST_DIR "/" SOCK_NAME
		          " -> %s: containers labelled agentsandbox.session=%s",
		          (int)d->broker.pid, d->upstream, session);
	return r;
}

static int docker_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct docker *d = data;
	int r;
	if (!d->allow)
		return 0;
	const char *session = host->policy_string(ctx, "session_dir");
	_cleanup_free_ char *parent = rundir_parent_of(session);
	if (!parent)
		return -EINVAL;
	if (!(d->log_path = str_printf("%s/docker.log", session)))
		return -ENOMEM;
	if ((r = add_roots(host, ctx, d)) < 0)
		return r;
	if ((r = rundir_create(&d->run, parent, "docker")) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot make the broker's directory in %s: %s",
		          parent, strerror(-r));
		return r;
	}
	/* A directory of its own: the socket is all the sandbox sees there. */
	_cleanup_free_ char *dir = str_printf("%s/socket", d->run.dir);
	if (!dir)
		return -ENOMEM;
	if (mkdir(dir, 0700) < 0 || (r = helper_listen_unix(dir, SOCK_NAME, &d->listen_fd)) < 0) {
		r = r < 0 ? r : -errno;
		host->log(ctx, ASB_LOG_ERROR, "cannot make the broker's socket in %s: %s", dir,
		          strerror(-r));
		return r;
	}
	if ((r = host->plan_path(ctx, ASB_ENTRY_READ, dir, DEST_DIR, 0)) < 0 ||
	    (r = shown_add(&d->shown, "mount",
	                   DEST_DIR ": read-only, from %s (the broker's socket " SOCK_NAME
	                            " alone)",
	                   dir)) < 0)
		return r;
	char path[PATH_MAX];
	if (host->find_executable(ctx, "docker", path, sizeof(path)) == 0) {
		if ((r = host->plan_add_executable(ctx, "docker", path)) < 0 ||
		    (r = shown_add(&d->shown, "executable", "docker (%s)", path)) < 0)
			return r;
	}
	if ((r = host->plan_seccomp_allow(ctx, "unix_sockets")) < 0 ||
	    (r = shown_add(&d->shown, "seccomp",
	                   "unix_sockets lifted: docker connects to the broker's socket "
	                   "(" DEST_DIR "/" SOCK_NAME "); the filter cannot allow one path only")) <
	        0)
		return r;
	if (d->dry_run)
		return 0;
	return start_broker(host, ctx, d);
}

static int docker_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct docker *d = data;
	if (!d->allow)
		return 0;
	int r = host->plan_setenv(ctx, "DOCKER_HOST", "unix://" DEST_DIR "/" SOCK_NAME);
	return r < 0 ? r
	             : shown_add(&d->shown, "env", "DOCKER_HOST=unix://" DEST_DIR "/" SOCK_NAME);
}

static int docker_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct docker *d = data;
	int r;
	if (!d->allow)
		return host->describe(ctx, "allow", "false (--allow-docker)");
	if ((r = host->describe(ctx, "allow", "true: the Docker API filter")) < 0)
		return r;
	char buf[2048];
	snprintf(buf, sizeof(buf), "%s (%s) -> " DEST_DIR "/" SOCK_NAME,
	         d->upstream ? d->upstream : "(none)", d->upstream_from ? d->upstream_from : "");
	if ((r = host->describe(ctx, "daemon", buf)) < 0)
		return r;
	if ((r = host->describe(ctx, "policy",
	                        "containers without privileges, host namespaces, devices or added "
	                        "capabilities, binding only the paths below; only the session's "
	                        "containers are used, and removed at its end; no builds, tags, "
	                        "volumes, networks or swarm")) < 0)
		return r;
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < d->roots.n && w < sizeof(buf); i++)
		w += (size_t)snprintf(buf + w, sizeof(buf) - w, "%s%s", i ? ", " : "",
		                      d->roots.v[i]);
	if ((r = host->describe(ctx, "binds",
	                        d->roots.n ? buf : "the workspace, rw_dirs, rw_files")) < 0)
		return r;
	if ((r = host->describe(ctx, "risk", RISK)) < 0 ||
	    (r = host->describe(ctx, "log", d->log_path ? d->log_path : "docker.log")) < 0)
		return r;
	return shown_describe(host, ctx, &d->shown);
}

static void docker_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data,
                             int status)
{
	(void)host;
	(void)ctx;
	(void)status;
	stop(data);
}

static const struct asb_hooks docker_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = docker_configure,
    .pre_mount = docker_pre_mount,
    .env = docker_env,
    .post_exit = docker_post_exit,
    .describe = docker_describe,
};

static const char *const docker_config_keys[] = {"allow", "socket", NULL};

static const struct asb_option docker_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow",
     .flag = "allow-docker",
     .env = "ALLOW_DOCKER",
     .help = "the host's Docker daemon through a filter (no privileged containers, host "
             "namespaces, devices, added capabilities, binds outside the writable paths)"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_STRING,
     .key = "socket",
     .flag = "docker-socket",
     .env = "DOCKER_SOCKET",
     .help = "the daemon's socket (default: DOCKER_HOST's unix://, the rootless one, "
             "/var/run/docker.sock)"},
    {0},
};

static const struct asb_plugin docker_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "docker",
    .version = "0.1.0",
    .description = "the host's Docker daemon through a filtering proxy, never its raw socket",
    .config_keys = docker_config_keys,
    .options = docker_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = docker_init,
    .fini = docker_fini,
    .hooks = &docker_hooks,
};

ASB_PLUGIN_DEFINE(docker_plugin)
