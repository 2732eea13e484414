/* SPDX-License-Identifier: MIT */
/*
 * ssh: the agent uses the user's ssh keys without seeing them.
 *
 * plugins.ssh.allow = true (--allow-ssh) starts agentsandbox-broker in front
 * of the user's ssh-agent ($SSH_AUTH_SOCK where agentsandbox is launched):
 * its socket is the only thing in a read-only directory bound at
 * /run/ssh-agent, SSH_AUTH_SOCK points there, and it forwards listing
 * identities and signing only (optionally only with the keys listed in
 * plugins.ssh.keys, as ssh-add -l prints their SHA256 fingerprints), never
 * adding, removing or locking keys. Each signature is a line in the
 * session's ssh-agent.log. ~/.ssh/config, config.d, known_hosts and the
 * public keys are read-only; no private key file is bound. `ssh` goes on
 * PATH when the host has it.
 *
 * Connecting to the broker needs AF_UNIX sockets, which the seccomp filter
 * denies: the plugin lifts the "unix_sockets" group, named in launch.log
 * and --show-config (the filter cannot tell one socket path from another;
 * what a socket can reach inside is what the sandbox's view holds).
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

#define DEST_DIR  "/run/ssh-agent"
#define SOCK_NAME "agent.sock"

struct ssh {
	bool allow, dry_run;
	const char *upstream; /* $SSH_AUTH_SOCK */
	struct strv keys;
	struct rundir run;
	int listen_fd;
	struct helper broker;
	char *log_path;
	struct strv shown;
};

static int ssh_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct ssh *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->run = (struct rundir)RUNDIR_INIT;
	s->broker = (struct helper)HELPER_INIT;
	s->listen_fd = -1;
	*data = s;
	return 0;
}

static void stop(struct ssh *s)
{
	helper_stop(&s->broker, 1000);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	rundir_remove(&s->run);
}

static void ssh_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct ssh *s = data;
	if (!s)
		return;
	stop(s);
	strv_clear(&s->keys);
	strv_clear(&s->shown);
	free(s->log_path);
	free(s);
}

static bool valid_fingerprint(const char *fp)
{
	if (!str_has_prefix(fp, "SHA256:") || strlen(fp) != 7 + 43)
		return false;
	for (const char *c = fp + 7; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '+' || *c == '/'))
			return false;
	return true;
}

static int ssh_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct ssh *s = data;
	int b = 0, r = 0;
	int64_t v;
	if ((r = host->config_bool(ctx, "allow", &b)) < 0)
		return r;
	s->allow = r == 1 && b;
	s->dry_run = host->policy_int(ctx, "dry_run", &v) >= 0 && v;
	int n = host->config_list_count(ctx, "keys");
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const char *k = NULL;
		if ((r = host->config_list_string(ctx, "keys", (uint32_t)i, &k)) < 0)
			return r;
		if (!valid_fingerprint(k))
			return host->config_error(
			    ctx, "keys",
			    "\"%s\" is not a SHA256 fingerprint (SHA256: and 43 "
			    "base64 characters, as ssh-add -l prints)",
			    k);
		if ((r = strv_push(&s->keys, k)) < 0)
			return r;
	}
	if (!s->allow) {
		if (n > 0)
			host->log(ctx, ASB_LOG_WARN,
			          "plugins.ssh.keys is set but ssh is not allowed (--allow-ssh)");
		return 0;
	}
	const char *sock = getenv("SSH_AUTH_SOCK");
	struct stat st;
	if (!sock || sock[0] != '/' || stat(sock, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		if (s->dry_run) {
			host->log(ctx, ASB_LOG_WARN, "no ssh-agent here (SSH_AUTH_SOCK %s)",
			          sock ? "is not a socket" : "is unset");
			return 0;
		}
		host->log(ctx, ASB_LOG_ERROR,
		          "--allow-ssh needs your ssh-agent, and SSH_AUTH_SOCK %s; start one "
		          "(eval \"$(ssh-agent)\"; ssh-add) or drop --allow-ssh",
		          !sock ? "is unset" : "is not a unix socket");
		return -ENOENT;
	}
	s->upstream = sock;
	return 0;
}

static int bind_home(const struct asb_host *host, struct asb_ctx *ctx, struct ssh *s,
                     const char *home, const char *rel, const char *why)
{
	_cleanup_free_ char *path = str_printf("%s/.ssh/%s", home, rel);
	struct stat st;
	if (!path)
		return -ENOMEM;
	if (stat(path, &st) < 0)
		return 0;
	int r = host->plan_path(ctx, ASB_ENTRY_READ, path, NULL, ASB_ENTRY_F_TRY);
	return r < 0 ? r : shown_add(&s->shown, "mount", "%s: read-only (%s)", path, why);
}

static int bind_public_keys(const struct asb_host *host, struct asb_ctx *ctx, struct ssh *s,
                            const char *home)
{
	_cleanup_free_ char *dir = str_printf("%s/.ssh", home);
	_cleanup_closedir_ DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n < 5 || strcmp(de->d_name + n - 4, ".pub") != 0)
			continue;
		int r = bind_home(host, ctx, s, home, de->d_name,
		                  "a public key: ssh picks the agent's key by it");
		if (r < 0)
			return r;
	}
	return 0;
}

static int start_broker(const struct asb_host *host, struct asb_ctx *ctx, struct ssh *s)
{
	struct strv extra = {0};
	int r = 0;
	for (size_t i = 0; r >= 0 && i < s->keys.n; i++)
		if ((r = strv_push(&extra, "--key")) >= 0)
			r = strv_push(&extra, s->keys.v[i]);
	if (r >= 0)
		r = helper_start_broker(&s->broker, "ssh-agent", s->upstream, s->log_path,
		                        (const char *const *)extra.v, s->listen_fd);
	strv_clear(&extra);
	if (r < 0)
		host->log(ctx, ASB_LOG_ERROR, "the ssh-agent broker did not start: %s%s",
		          strerror(-r),
		          r == -ENOENT ? " (agentsandbox-broker is not installed)" : "");
	else
		host->log(ctx, ASB_LOG_INFO,
		          "ssh-agent broker (pid %d) at " DEST_DIR "/" SOCK_NAME
		          " -> %s: list and sign only, keys: %s",
		          (int)s->broker.pid, s->upstream, s->keys.n ? "as listed" : "all");
	return r;
}

static int ssh_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct ssh *s = data;
	int r;
	if (!s->allow)
		return 0;
	const char *home = host->policy_string(ctx, "home");
	const char *session = host->policy_string(ctx, "session_dir");
	_cleanup_free_ char *parent = rundir_parent_of(session);
	if (!home || !parent)
		return -EINVAL;
	if (!(s->log_path = str_printf("%s/ssh-agent.log", session)))
		return -ENOMEM;
	if ((r = rundir_create(&s->run, parent, "ssh")) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot make the broker's directory in %s: %s",
		          parent, strerror(-r));
		return r;
	}
	/* A directory of its own: the socket is all the sandbox sees there. */
	_cleanup_free_ char *dir = str_printf("%s/socket", s->run.dir);
	if (!dir)
		return -ENOMEM;
	if (mkdir(dir, 0700) < 0 || (r = helper_listen_unix(dir, SOCK_NAME, &s->listen_fd)) < 0) {
		r = r < 0 ? r : -errno;
		host->log(ctx, ASB_LOG_ERROR, "cannot make the broker's socket in %s: %s", dir,
		          strerror(-r));
		return r;
	}
	if ((r = host->plan_path(ctx, ASB_ENTRY_READ, dir, DEST_DIR, 0)) < 0 ||
	    (r = shown_add(&s->shown, "mount",
	                   DEST_DIR ": read-only, from %s (the broker's socket " SOCK_NAME
	                            " alone)",
	                   dir)) < 0)
		return r;
	if ((r = bind_home(host, ctx, s, home, "config", "ssh's configuration")) < 0 ||
	    (r = bind_home(host, ctx, s, home, "config.d", "included configuration")) < 0 ||
	    (r = bind_home(host, ctx, s, home, "known_hosts", "known host keys")) < 0 ||
	    (r = bind_home(host, ctx, s, home, "known_hosts2", "known host keys")) < 0 ||
	    (r = bind_public_keys(host, ctx, s, home)) < 0)
		return r;
	char path[PATH_MAX];
	if (host->find_executable(ctx, "ssh", path, sizeof(path)) == 0) {
		if ((r = host->plan_add_executable(ctx, "ssh", path)) < 0 ||
		    (r = shown_add(&s->shown, "executable", "ssh (%s)", path)) < 0)
			return r;
	}
	if ((r = host->plan_seccomp_allow(ctx, "unix_sockets")) < 0 ||
	    (r = shown_add(&s->shown, "seccomp",
	                   "unix_sockets lifted: ssh connects to the broker's socket "
	                   "(" DEST_DIR "/" SOCK_NAME "); the filter cannot allow one path only")) <
	        0)
		return r;
	if (s->dry_run || !s->upstream)
		return 0;
	return start_broker(host, ctx, s);
}

static int ssh_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct ssh *s = data;
	if (!s->allow)
		return 0;
	int r = host->plan_setenv(ctx, "SSH_AUTH_SOCK", DEST_DIR "/" SOCK_NAME);
	return r < 0 ? r : shown_add(&s->shown, "env", "SSH_AUTH_SOCK=" DEST_DIR "/" SOCK_NAME);
}

static int ssh_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct ssh *s = data;
	int r;
	if (!s->allow)
		return host->describe(ctx, "allow", "false (--allow-ssh)");
	if ((r = host->describe(ctx, "allow", "true: the ssh-agent broker")) < 0)
		return r;
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s -> " DEST_DIR "/" SOCK_NAME,
	         s->upstream ? s->upstream : "(none)");
	if ((r = host->describe(ctx, "agent", buf)) < 0)
		return r;
	if ((r = host->describe(ctx, "policy",
	                        "list identities and sign; add, remove, lock, unlock, smartcards "
	                        "and extensions other than session-bind refused")) < 0)
		return r;
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->keys.n && w < sizeof(buf); i++)
		w +=
		    (size_t)snprintf(buf + w, sizeof(buf) - w, "%s%s", i ? ", " : "", s->keys.v[i]);
	if ((r = host->describe(ctx, "keys", s->keys.n ? buf : "all the agent holds")) < 0)
		return r;
	if ((r = host->describe(ctx, "log", s->log_path ? s->log_path : "ssh-agent.log")) < 0)
		return r;
	return shown_describe(host, ctx, &s->shown);
}

static void ssh_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status)
{
	(void)host;
	(void)ctx;
	(void)status;
	stop(data);
}

static const struct asb_hooks ssh_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = ssh_configure,
    .pre_mount = ssh_pre_mount,
    .env = ssh_env,
    .post_exit = ssh_post_exit,
    .describe = ssh_describe,
};

static const char *const ssh_config_keys[] = {"allow", "keys", NULL};

static const struct asb_option ssh_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow",
     .flag = "allow-ssh",
     .env = "ALLOW_SSH",
     .help = "your ssh-agent through a broker (list and sign only); ~/.ssh config, "
             "known_hosts, *.pub read-only"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_LIST,
     .key = "keys",
     .flag = "ssh-keys",
     .env = "SSH_KEYS",
     .help = "only these keys (SHA256:... fingerprints, as ssh-add -l prints)"},
    {0},
};

static const struct asb_plugin ssh_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "ssh",
    .version = "0.1.0",
    .description = "your ssh keys through an ssh-agent broker, never the key files",
    .config_keys = ssh_config_keys,
    .options = ssh_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = ssh_init,
    .fini = ssh_fini,
    .hooks = &ssh_hooks,
};

ASB_PLUGIN_DEFINE(ssh_plugin)
