/* SPDX-License-Identifier: MIT */
/*
 * nix: Nix inside the sandbox.
 *
 * allow = true exposes the host's nix-daemon socket and the whole store
 * (read-only), after two questions about the daemon: is this user one of its
 * trusted users (root-equivalent: refuse), and does it sandbox builds (if
 * not, builds run outside this sandbox: ask on /dev/tty). Both answers come
 * from the daemon itself or its own configuration files, never from the
 * caller's NIX_CONFIG / NIX_CONF_DIR / nix.conf, which the daemon never read.
 *
 * Without allow, declared packages that live in /nix/store expose only their
 * closure (`nix-store -qR`); the rest of the store stays hidden.
 */
#include "closure.h"
#include "errbuf.h"
#include "daemon_conf.h"
#include "daemon_proto.h"

#include <agentsandbox/plugin.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NIX_SYSCONF_DIR
#define NIX_SYSCONF_DIR "/etc/nix"
#endif
#define NIX_DEFAULT_SOCKET   "/nix/var/nix/daemon-socket/socket"
#define NIX_QUERY_TIMEOUT_MS 5000

extern char **environ;

/* Client programs put on PATH with allow = true, when the host has them. */
static const char *const nix_tools[] = {"nix",       "nix-store",        "nix-instantiate",
                                        "nix-build", "nix-shell",        "nix-env",
                                        "nix-hash",  "nix-prefetch-url", NULL};

/* Per launch, from init to fini. */
struct nix_state {
	int allow;
	int accept_unsandboxed;
	int dry_run;
	char socket[PATH_MAX];
	int custom_socket;
	char trust[320];
	char sandbox[320];
	struct strv closure; /* store paths bound without allow */
	size_t closure_roots;
};

static void state_reset(struct nix_state *st)
{
	strv_clear(&st->closure);
	memset(st, 0, sizeof(*st));
}

static int nix_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	return (*data = calloc(1, sizeof(struct nix_state))) ? 0 : -ENOMEM;
}

static void nix_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	if (data)
		state_reset(data);
	free(data);
}

/* nix_conf_read_fn over the real file system. */
static int read_text(void *ud, const char *path, char **out)
{
	struct stat sb;
	(void)ud;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0)
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EINVAL;
	if (sb.st_size > (1 << 20))
		return -EFBIG;
	_cleanup_free_ char *buf = malloc((size_t)sb.st_size + 1);
	if (buf == NULL)
		return -ENOMEM;
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, (size_t)sb.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 || (len += (size_t)n) == (size_t)sb.st_size)
			break;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	return 0;
}

/* The daemon's configuration files, in the order the daemon applies them:
 * its nix.conf (with includes), then the XDG system and user files of the
 * user it runs as. */
static int load_daemon_conf(const struct asb_host *host, struct asb_ctx *ctx,
                            const struct nix_daemon_info *info, struct nix_daemon_conf *conf)
{
	char err[512] = "";
	int r;

#ifdef __linux__
	r = nix_daemon_conf_init(conf, 1);
#else
	r = nix_daemon_conf_init(conf, 0);
#endif
	if (r < 0)
		return r;
	r = nix_daemon_conf_apply_file(conf, NIX_SYSCONF_DIR "/nix.conf", 1, read_text, NULL, err,
	                               sizeof(err));
	if (r >= 0)
		r = nix_daemon_conf_apply_file(conf, "/etc/xdg/nix/nix.conf", 1, read_text, NULL,
		                               err, sizeof(err));
	if (r >= 0 && info->have_daemon_uid) {
		struct passwd pw, *res = NULL;
		char buf[4096];
		if (getpwuid_r(info->daemon_uid, &pw, buf, sizeof(buf), &res) == 0 && res != NULL &&
		    pw.pw_dir != NULL && pw.pw_dir[0] == '/') {
			_cleanup_free_ char *user_conf = NULL;
			if (asprintf(&user_conf, "%s/.config/nix/nix.conf", pw.pw_dir) < 0)
				return -ENOMEM;
			r = nix_daemon_conf_apply_file(conf, user_conf, 1, read_text, NULL, err,
			                               sizeof(err));
			if (r == -EACCES) {
				/* A private home (root's is 0700) hides it from us; only
				 * its owner can write it. */
				host->log(ctx, ASB_LOG_INFO,
				          "%s is not readable; settings there are not checked",
				          user_conf);
				r = 0;
			}
		}
	}
	if (r < 0) {
		host->log(ctx, ASB_LOG_ERROR,
		          "cannot read nix-daemon's configuration (%s), so it cannot be asked "
		          "whether you are a trusted user or whether it sandboxes builds; refusing "
		          "allow = true",
		          err[0] ? err : strerror(-r));
		nix_daemon_conf_free(conf);
		return -EPERM;
	}
	return 0;
}

/* The user's name and every group name it belongs to, as the daemon would
 * see them. */
static int user_groups(uid_t uid, char **name_out, char ***groups_out)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	gid_t gids[256];
	int ngids = 256;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return -ENOENT;
	if (getgrouplist(pw.pw_name, pw.pw_gid, gids, &ngids) < 0)
		return -E2BIG;
	char **groups = calloc((size_t)ngids + 1, sizeof(*groups));
	if (groups == NULL)
		return -ENOMEM;
	size_t n = 0;
	for (int i = 0; i < ngids; i++) {
		struct group gr, *gres = NULL;
		char gbuf[8192];
		if (getgrgid_r(gids[i], &gr, gbuf, sizeof(gbuf), &gres) == 0 && gres != NULL)
			if ((groups[n] = strdup(gr.gr_name)) != NULL)
				n++;
	}
	*name_out = strdup(pw.pw_name);
	*groups_out = groups;
	return *name_out == NULL ? -ENOMEM : 0;
}

static void free_groups(char **groups)
{
	for (size_t i = 0; groups != NULL && groups[i] != NULL; i++)
		free(groups[i]);
	free(groups);
}

static int refuse_trusted(const struct asb_host *host, struct asb_ctx *ctx, const char *how)
{
	host->log(ctx, ASB_LOG_ERROR,
	          "refusing allow = true: %s. The sandbox keeps your uid and the daemon "
	          "trusts by uid, so the agent would be a trusted user too, which is "
	          "root-equivalent (a trusted client can change daemon settings such as sandbox "
	          "and builders). Remove yourself from trusted-users, or launch without Nix",
	          how);
	return -EPERM;
}

static int check_trust(const struct asb_host *host, struct asb_ctx *ctx, struct nix_state *st,
                       uid_t uid, const struct nix_daemon_info *info,
                       const struct nix_daemon_conf *conf)
{
	_cleanup_free_ char *user = NULL;
	char **groups = NULL;
	const char *why = NULL;
	int r, trusted;

	if (info->trust == NIX_TRUST_TRUSTED)
		return refuse_trusted(host, ctx, "nix-daemon reports you as a trusted user");
	if (info->trust == NIX_TRUST_NOT) {
		snprintf(st->trust, sizeof(st->trust), "not trusted (reported by nix-daemon %s)",
		         info->version);
		return 0;
	}
	r = user_groups(uid, &user, &groups);
	if (r < 0) {
		host->log(ctx, ASB_LOG_ERROR,
		          "cannot look up uid %u to ask whether it is a trusted user of "
		          "nix-daemon: %s; refusing allow = true",
		          (unsigned)uid, strerror(-r));
		free_groups(groups);
		return -EPERM;
	}
	trusted =
	    nix_daemon_conf_match(&conf->trusted_users, user, (const char *const *)groups, &why);
	free_groups(groups);
	if (trusted) {
		_cleanup_free_ char *how = NULL;
		if (asprintf(
		        &how,
		        "user %s is a trusted user of nix-daemon (trusted-users entry \"%s\"%s%s)",
		        user, why, conf->trusted_users_origin[0] ? " in " : ", the default",
		        conf->trusted_users_origin) < 0)
			return -ENOMEM;
		return refuse_trusted(host, ctx, how);
	}
	snprintf(st->trust, sizeof(st->trust), "not trusted (trusted-users from %s)",
	         conf->trusted_users_origin[0] ? conf->trusted_users_origin : "the default");
	return 0;
}

static int check_sandbox(const struct asb_host *host, struct asb_ctx *ctx, struct nix_state *st,
                         const struct nix_daemon_conf *conf)
{
	const char *mode = nix_sandbox_name(conf->sandbox);
	const char *origin =
	    conf->sandbox_origin[0] ? conf->sandbox_origin : "the platform default";
	char question[1024];
	int r;

	if (conf->sandbox == NIX_SANDBOX_TRUE) {
		snprintf(st->sandbox, sizeof(st->sandbox), "true (from %s)", origin);
		return 0;
	}
	snprintf(st->sandbox, sizeof(st->sandbox), "%s (from %s)", mode, origin);
	const char *risk = conf->sandbox == NIX_SANDBOX_FALSE
	                       ? "builds run outside this sandbox, with the build user's access to "
	                         "the host file system"
	                       : "any derivation can opt out of the build sandbox, and the agent "
	                         "is the one writing derivations";
	if (st->accept_unsandboxed) {
		host->log(ctx, ASB_LOG_WARN,
		          "nix-daemon has sandbox = %s (%s): %s; accepted by "
		          "accept_unsandboxed_builds",
		          mode, origin, risk);
		strncat(st->sandbox, ", accepted by accept_unsandboxed_builds",
		        sizeof(st->sandbox) - strlen(st->sandbox) - 1);
		return 0;
	}
	if (st->dry_run) {
		host->log(ctx, ASB_LOG_WARN,
		          "nix-daemon has sandbox = %s (%s): %s; a launch will ask on /dev/tty",
		          mode, origin, risk);
		strncat(st->sandbox, ", a launch asks on /dev/tty",
		        sizeof(st->sandbox) - strlen(st->sandbox) - 1);
		return 0;
	}
	snprintf(question, sizeof(question),
	         "agentsandbox: nix-daemon does not sandbox its builds (sandbox = %s, from %s):\n"
	         "  %s.\n"
	         "  Set sandbox = true in the host's nix.conf and restart nix-daemon to stop this "
	         "question.\n"
	         "Expose Nix to the agent anyway?",
	         mode, origin, risk);
	r = host->confirm(ctx, question);
	if (r < 0) {
		host->log(
		    ctx, ASB_LOG_ERROR,
		    "nix-daemon does not sandbox its builds (sandbox = %s, from %s): %s. "
		    "There is no terminal to confirm on (/dev/tty: %s); set sandbox = true for "
		    "the daemon, or accept the risk with --nix-accept-unsandboxed-builds",
		    mode, origin, risk, strerror(-r));
		return -EPERM;
	}
	if (r == 0) {
		host->log(ctx, ASB_LOG_ERROR,
		          "not confirmed: nix-daemon does not sandbox its builds (sandbox = %s)",
		          mode);
		return -EPERM;
	}
	host->log(ctx, ASB_LOG_WARN,
	          "unsandboxed nix-daemon builds (sandbox = %s) confirmed on /dev/tty", mode);
	strncat(st->sandbox, ", confirmed on /dev/tty",
	        sizeof(st->sandbox) - strlen(st->sandbox) - 1);
	return 0;
}

static int nix_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct nix_state *st = data;
	struct nix_daemon_info info;
	struct nix_daemon_conf conf;
	struct stat sb;
	char err[512] = "";
	int64_t v = 0;
	int b, r;

	state_reset(st);
	if ((r = host->config_bool(ctx, "allow", &b)) < 0)
		return r;
	st->allow = r == 1 && b;
	if ((r = host->config_bool(ctx, "accept_unsandboxed_builds", &b)) < 0)
		return r;
	st->accept_unsandboxed = r == 1 && b;
	if (host->policy_int(ctx, "dry_run", &v) >= 0)
		st->dry_run = v != 0;
	if (!st->allow)
		return 0;

	if (host->policy_int(ctx, "is_root", &v) >= 0 && v != 0)
		return refuse_trusted(host, ctx,
		                      "you are root, and root is always trusted by nix-daemon");
	v = 0;
	if (host->policy_int(ctx, "unix_sockets", &v) < 0 || v == 0) {
		host->log(ctx, ASB_LOG_ERROR,
		          "allow = true needs unix sockets: the agent reaches nix-daemon over its "
		          "unix socket. Add network.unix_sockets = true (or --allow-unix-sockets)");
		return -EPERM;
	}

	const char *sock = getenv("NIX_DAEMON_SOCKET_PATH");
	st->custom_socket = sock != NULL && sock[0] != '\0';
	if (!st->custom_socket)
		sock = NIX_DEFAULT_SOCKET;
	if (sock[0] != '/' || strlen(sock) >= sizeof(st->socket)) {
		host->log(ctx, ASB_LOG_ERROR,
		          "NIX_DAEMON_SOCKET_PATH must be an absolute path, got \"%s\"", sock);
		return -EINVAL;
	}
	memcpy(st->socket, sock, strlen(sock) + 1);
	if (stat(st->socket, &sb) < 0 || !S_ISSOCK(sb.st_mode)) {
		host->log(ctx, ASB_LOG_ERROR,
		          "no nix-daemon socket at %s: allow = true needs a multi-user Nix "
		          "install with nix-daemon running. Single-user installs cannot be "
		          "supported: building without a daemon needs the store writable, which "
		          "would let the agent rewrite any package the host runs",
		          st->socket);
		return -ENOENT;
	}
	if (stat(NIX_STORE_DIR, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		host->log(ctx, ASB_LOG_ERROR, "no Nix store at " NIX_STORE_DIR);
		return -ENOENT;
	}

	r = nix_daemon_query(st->socket, NIX_QUERY_TIMEOUT_MS, &info, err, sizeof(err));
	if (r < 0) {
		_cleanup_free_ char *how = NULL;
		if (asprintf(&how,
		             "nix-daemon at %s cannot be asked whether you are a trusted user (%s)",
		             st->socket, err[0] ? err : strerror(-r)) < 0)
			return -ENOMEM;
		return refuse_trusted(host, ctx, how);
	}
	host->log(ctx, ASB_LOG_INFO, "daemon at %s speaks protocol %u.%u%s%s", st->socket,
	          info.proto_major, info.proto_minor, info.version[0] ? ", Nix " : "",
	          info.version);

	if ((r = load_daemon_conf(host, ctx, &info, &conf)) < 0)
		return r;
	if (host->policy_int(ctx, "uid", &v) < 0)
		v = (int64_t)getuid();
	r = check_trust(host, ctx, st, (uid_t)v, &info, &conf);
	if (r >= 0)
		r = check_sandbox(host, ctx, st, &conf);
	nix_daemon_conf_free(&conf);
	return r;
}

/* `name` on the launcher's PATH, as an absolute path (new string). */
static char *find_on_path(const struct asb_host *host, struct asb_ctx *ctx, const char *name)
{
	char path[PATH_MAX];
	return host->find_executable(ctx, name, path, sizeof(path)) == 0 ? strdup(path) : NULL;
}

static char *find_nix_store(const struct asb_host *host, struct asb_ctx *ctx)
{
	static const char *const fallbacks[] = {"/nix/var/nix/profiles/default/bin/nix-store",
	                                        "/run/current-system/sw/bin/nix-store", NULL};
	char *p = find_on_path(host, ctx, "nix-store");

	for (const char *const *f = fallbacks; p == NULL && *f != NULL; f++)
		if (access(*f, X_OK) == 0)
			p = strdup(*f);
	return p;
}

/* A store directory declared as a package: every executable in its bin/. */
static int add_store_bins(const struct asb_host *host, struct asb_ctx *ctx, const char *dir)
{
	_cleanup_free_ char *bin = NULL;
	struct dirent *de;
	int r;

	if (asprintf(&bin, "%s/bin", dir) < 0)
		return -ENOMEM;
	__attribute__((cleanup(closedirp))) DIR *d = opendir(bin);
	if (d == NULL)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)) != NULL) {
		_cleanup_free_ char *exe = NULL;
		struct stat sb;
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&exe, "%s/%s", bin, de->d_name) < 0)
			return -ENOMEM;
		if (stat(exe, &sb) < 0 || !S_ISREG(sb.st_mode) || access(exe, X_OK) < 0)
			continue;
		if ((r = host->plan_add_executable(ctx, de->d_name, exe)) < 0)
			return r;
	}
	return 0;
}

/* The store path a declared package (name on PATH, absolute path, or store
 * directory) lives in, or NULL when it is not in the store. */
static char *package_store_path(const struct asb_host *host, struct asb_ctx *ctx, const char *entry,
                                int *is_dir)
{
	char real[PATH_MAX];
	struct stat sb;
	_cleanup_free_ char *found = NULL;
	const char *p = entry;

	*is_dir = 0;
	if (strchr(entry, '/') == NULL) {
		found = find_on_path(host, ctx, entry);
		if (found == NULL)
			return NULL;
		p = found;
	}
	if (p[0] != '/' || realpath(p, real) == NULL)
		return NULL;
	size_t len = nix_store_path_len(real);
	if (len == 0)
		return NULL;
	*is_dir = stat(real, &sb) == 0 && S_ISDIR(sb.st_mode) && real[len] == '\0';
	return strndup(real, len);
}

static int expose_closures(const struct asb_host *host, struct asb_ctx *ctx, struct nix_state *st)
{
	struct strv roots = {0};
	_cleanup_free_ char *nix_store = NULL;
	char err[512] = "";
	int n, r = 0;

	n = host->policy_list_count(ctx, "packages");
	for (int i = -1; i < n && r >= 0; i++) {
		const char *entry = i < 0 ? host->policy_string(ctx, "command")
		                          : host->policy_list_get(ctx, "packages", (uint32_t)i);
		int is_dir;
		if (entry == NULL)
			continue;
		_cleanup_free_ char *sp = package_store_path(host, ctx, entry, &is_dir);
		if (sp == NULL)
			continue;
		r = nix_strv_add_unique(&roots, sp, strlen(sp));
		if (r >= 0 && is_dir && i >= 0)
			r = add_store_bins(host, ctx, sp);
	}
	if (r < 0 || roots.n == 0 || st->allow)
		goto out; /* allow = true binds the whole store */
	nix_store = find_nix_store(host, ctx);
	if (nix_store == NULL) {
		host->log(ctx, ASB_LOG_ERROR,
		          "%s lives in the Nix store, but nix-store (to list its closure) is "
		          "not on PATH",
		          roots.v[0]);
		r = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < roots.n && r >= 0; i++) {
		r = nix_closure_add(nix_store, roots.v[i], environ, &st->closure, err, sizeof(err));
		if (r < 0)
			host->log(ctx, ASB_LOG_ERROR, "cannot list the closure of %s: %s",
			          roots.v[i], err[0] ? err : strerror(-r));
	}
	for (size_t i = 0; i < st->closure.n && r >= 0; i++)
		r = host->plan_path(ctx, ASB_ENTRY_READ, st->closure.v[i], NULL, 0);
	st->closure_roots = roots.n;
out:
	strv_clear(&roots);
	return r;
}

static int nix_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct nix_state *st = data;
	int r;

	if ((r = expose_closures(host, ctx, st)) < 0 || !st->allow)
		return r;
	if ((r = host->plan_path(ctx, ASB_ENTRY_READ, NIX_STORE_DIR, NULL, 0)) < 0)
		return r;
	/* The socket's directory, read-only: connecting needs no write access
	 * to the mount, and the agent cannot replace the socket. */
	_cleanup_free_ char *dir = strdup(st->socket);
	if (dir == NULL)
		return -ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		return -EINVAL;
	*slash = '\0';
	if ((r = host->plan_path(ctx, ASB_ENTRY_READ, dir, NULL, 0)) < 0)
		return r;
	for (const char *const *t = nix_tools; *t != NULL; t++) {
		_cleanup_free_ char *exe = find_on_path(host, ctx, *t);
		if (exe != NULL && (r = host->plan_add_executable(ctx, *t, exe)) < 0)
			return r;
	}
	return 0;
}

static int nix_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	const struct nix_state *st = data;
	int r;

	if (!st->allow)
		return 0;
	if ((r = host->plan_setenv(ctx, "NIX_REMOTE", "daemon")) < 0)
		return r;
	if (st->custom_socket)
		return host->plan_setenv(ctx, "NIX_DAEMON_SOCKET_PATH", st->socket);
	return 0;
}

static int nix_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	const struct nix_state *st = data;
	char buf[128];

	host->describe(ctx, "allow", st->allow ? "true" : "false");
	if (st->allow) {
		host->describe(ctx, "store", NIX_STORE_DIR " (read-only, whole store)");
		host->describe(ctx, "daemon_socket", st->socket);
		host->describe(ctx, "trusted_user", st->trust);
		host->describe(ctx, "build_sandbox", st->sandbox);
		host->describe(ctx, "env", "NIX_REMOTE=daemon");
	} else if (st->closure.n > 0) {
		snprintf(buf, sizeof(buf),
		         "closures of %zu package(s): %zu store path(s), read-only",
		         st->closure_roots, st->closure.n);
		host->describe(ctx, "store", buf);
	} else {
		host->describe(ctx, "store", "hidden");
	}
	return 0;
}

static void nix_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status)
{
	state_reset(data);
}

static const struct asb_hooks nix_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = nix_configure,
    .pre_mount = nix_pre_mount,
    .env = nix_env,
    .post_exit = nix_post_exit,
    .describe = nix_describe,
};

static const char *const nix_config_keys[] = {"allow", "accept_unsandboxed_builds", NULL};

static const struct asb_option nix_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow",
     .flag = "allow-nix",
     .env = "ALLOW_NIX",
     .help = "expose the Nix daemon and store (refused for trusted users)"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "accept_unsandboxed_builds",
     .flag = "nix-accept-unsandboxed-builds",
     .env = "NIX_ACCEPT_UNSANDBOXED_BUILDS",
     .help = "do not ask about a daemon that does not sandbox its builds"},
    {0},
};

static const struct asb_plugin nix_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "nix",
    .version = "0.1.0",
    .description = "Nix daemon and store inside the sandbox, with trust checks; store "
                   "closures for declared packages",
    .config_keys = nix_config_keys,
    .options = nix_options,
    /* On a Nix host it narrows declared store packages to their closures. */
    .load = ASB_LOAD_IF_EXISTS,
    .load_path = NIX_STORE_DIR,
    .init = nix_init,
    .fini = nix_fini,
    .hooks = &nix_hooks,
};

ASB_PLUGIN_DEFINE(nix_plugin)
