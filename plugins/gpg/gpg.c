/* SPDX-License-Identifier: MIT */
/*
 * gpg: the agent signs (git commit -S) with the user's gpg keys without
 * seeing them.
 *
 * plugins.gpg.allow = true (--allow-gpg) asks the host's gpgconf for
 * gpg-agent's restricted socket (agent-extra-socket: the one gpg-agent
 * offers for forwarding to other hosts, which already refuses key export,
 * import, deletion and passphrase presets) and starts agentsandbox-broker
 * in front of it, which passes only what signing needs and logs each
 * PKSIGN in the session's gpg-agent.log. Inside, ~/.gnupg is an empty
 * private directory holding the public keyring and trust database
 * read-only (pubring.kbx, pubring.gpg, trustdb.gpg, gpg.conf, common.conf)
 * and the broker's socket as S.gpg-agent; private-keys-v1.d, secring.gpg
 * and everything else of the host's ~/.gnupg stay out. `gpg` goes on PATH.
 * Connecting needs AF_UNIX: the plugin lifts "unix_sockets" (named).
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
#include <sys/wait.h>

#define SOCK_NAME "S.gpg-agent"

struct gpg {
	bool allow, dry_run;
	char gnupghome[PATH_MAX]; /* the host's */
	char extra[PATH_MAX];     /* agent-extra-socket */
	char inside[PATH_MAX];    /* ~/.gnupg inside */
	struct rundir run;
	int listen_fd;
	struct helper broker;
	char *log_path;
	struct strv shown;
};

static int gpg_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct gpg *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->run = (struct rundir)RUNDIR_INIT;
	g->broker = (struct helper)HELPER_INIT;
	g->listen_fd = -1;
	*data = g;
	return 0;
}

static void stop(struct gpg *g)
{
	helper_stop(&g->broker, 1000);
	if (g->listen_fd >= 0)
		close(g->listen_fd);
	g->listen_fd = -1;
	rundir_remove(&g->run);
}

static void gpg_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct gpg *g = data;
	if (!g)
		return;
	stop(g);
	strv_clear(&g->shown);
	free(g->log_path);
	free(g);
}

/* gpgconf on the host, with the launching HOME and GNUPGHOME. */
static int gpgconf(const struct asb_host *host, struct asb_ctx *ctx, const char *tool,
                   const char *const *args, char *out, size_t out_len)
{
	const char *argv[8] = {tool};
	size_t n = 1;
	for (; args[n - 1] && n < ARRAY_SIZE(argv) - 1; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	_cleanup_free_ char *home = str_printf("HOME=%s", host->policy_string(ctx, "home"));
	_cleanup_free_ char *gh =
	    getenv("GNUPGHOME") ? str_printf("GNUPGHOME=%s", getenv("GNUPGHOME")) : NULL;
	const char *envp[] = {home, gh, NULL};
	int wstatus = 0;
	int r = host->run_program(ctx, argv, envp, &wstatus, out, out_len);
	if (r < 0)
		return r;
	return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? 0 : -EIO;
}

static int gpg_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gpg *g = data;
	int b = 0, r;
	int64_t v;
	if ((r = host->config_bool(ctx, "allow", &b)) < 0)
		return r;
	g->allow = r == 1 && b;
	g->dry_run = host->policy_int(ctx, "dry_run", &v) >= 0 && v;
	if (!g->allow)
		return 0;
	const char *home = host->policy_string(ctx, "home");
	const char *gh = getenv("GNUPGHOME");
	if (!home)
		return -EINVAL;
	snprintf(g->gnupghome, sizeof(g->gnupghome), "%s", gh && gh[0] == '/' ? gh : "");
	if (!g->gnupghome[0])
		snprintf(g->gnupghome, sizeof(g->gnupghome), "%s/.gnupg", home);
	snprintf(g->inside, sizeof(g->inside), "%s/.gnupg", home);

	char tool[PATH_MAX], out[PATH_MAX + 16] = "";
	if (host->find_executable(ctx, "gpgconf", tool, sizeof(tool)) < 0) {
		host->log(ctx, g->dry_run ? ASB_LOG_WARN : ASB_LOG_ERROR,
		          "--allow-gpg needs gnupg on the host (gpgconf was not found)");
		return g->dry_run ? 0 : -ENOENT;
	}
	/* The agent may not run yet: gpg starts it on demand, so do we. */
	const char *const launch[] = {"--launch", "gpg-agent", NULL};
	const char *const list[] = {"--list-dirs", "agent-extra-socket", NULL};
	if (!g->dry_run && gpgconf(host, ctx, tool, launch, NULL, 0) < 0)
		host->log(ctx, ASB_LOG_WARN, "gpgconf --launch gpg-agent failed");
	r = gpgconf(host, ctx, tool, list, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	struct stat st;
	if (r < 0 || out[0] != '/' || stat(out, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		host->log(
		    ctx, g->dry_run ? ASB_LOG_WARN : ASB_LOG_ERROR,
		    "--allow-gpg: gpg-agent's restricted socket (agent-extra-socket%s%s) is not "
		    "there; is gpg-agent running with its extra-socket?",
		    out[0] ? ": " : "", out);
		return g->dry_run ? 0 : -ENOENT;
	}
	snprintf(g->extra, sizeof(g->extra), "%s", out);
	return 0;
}

static int bind_read(const struct asb_host *host, struct asb_ctx *ctx, struct gpg *g,
                     const char *name, const char *why)
{
	_cleanup_free_ char *src = str_printf("%s/%s", g->gnupghome, name);
	_cleanup_free_ char *dest = str_printf("%s/%s", g->inside, name);
	struct stat st;
	if (!src || !dest)
		return -ENOMEM;
	if (stat(src, &st) < 0)
		return 0;
	int r = host->plan_path(ctx, ASB_ENTRY_READ, src, dest, ASB_ENTRY_F_TRY);
	return r < 0 ? r
	             : shown_add(&g->shown, "mount", "%s: read-only, from %s (%s)", dest, src, why);
}

static int gpg_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gpg *g = data;
	int r;
	if (!g->allow)
		return 0;
	const char *session = host->policy_string(ctx, "session_dir");
	_cleanup_free_ char *parent = rundir_parent_of(session);
	if (!parent)
		return -EINVAL;
	if (!(g->log_path = str_printf("%s/gpg-agent.log", session)))
		return -ENOMEM;
	if ((r = rundir_create(&g->run, parent, "gpg")) < 0 ||
	    (r = helper_listen_unix(g->run.dir, SOCK_NAME, &g->listen_fd)) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot make the broker's socket in %s: %s", parent,
		          strerror(-r));
		return r;
	}
	struct asb_entry e = {.struct_size = sizeof(e),
	                      .type = ASB_ENTRY_EPHEMERAL,
	                      .mode = 0700,
	                      .fd = -1,
	                      .dest = g->inside};
	if ((r = host->plan_entry(ctx, &e)) < 0 ||
	    (r = shown_add(&g->shown, "mount",
	                   "%s: an empty private directory (nothing of the host's but what "
	                   "follows; no private-keys-v1.d, no secring.gpg)",
	                   g->inside)) < 0)
		return r;
	if ((r = bind_read(host, ctx, g, "pubring.kbx", "the public keyring")) < 0 ||
	    (r = bind_read(host, ctx, g, "pubring.gpg", "the public keyring (old format)")) < 0 ||
	    (r = bind_read(host, ctx, g, "trustdb.gpg", "the trust database")) < 0 ||
	    (r = bind_read(host, ctx, g, "gpg.conf", "gpg's options")) < 0 ||
	    (r = bind_read(host, ctx, g, "common.conf", "gnupg's common options")) < 0)
		return r;
	_cleanup_free_ char *sock = str_printf("%s/" SOCK_NAME, g->run.dir);
	_cleanup_free_ char *dest = str_printf("%s/" SOCK_NAME, g->inside);
	if (!sock || !dest)
		return -ENOMEM;
	if ((r = host->plan_path(ctx, ASB_ENTRY_READ, sock, dest, 0)) < 0 ||
	    (r = shown_add(&g->shown, "mount", "%s: the broker's socket (read-only bind)", dest)) <
	        0)
		return r;
	char path[PATH_MAX];
	if (host->find_executable(ctx, "gpg", path, sizeof(path)) == 0 &&
	    ((r = host->plan_add_executable(ctx, "gpg", path)) < 0 ||
	     (r = shown_add(&g->shown, "executable", "gpg (%s)", path)) < 0))
		return r;
	if ((r = host->plan_seccomp_allow(ctx, "unix_sockets")) < 0 ||
	    (r = shown_add(
	         &g->shown, "seccomp",
	         "unix_sockets lifted: gpg connects to the broker's socket (%s); the filter "
	         "cannot allow one path only",
	         dest)) < 0)
		return r;
	if (g->dry_run || !g->extra[0])
		return 0;
	if ((r = helper_start_broker(&g->broker, "gpg-agent", g->extra, g->log_path, NULL,
	                             g->listen_fd)) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "the gpg-agent broker did not start: %s",
		          strerror(-r));
		return r;
	}
	host->log(ctx, ASB_LOG_INFO,
	          "gpg-agent broker (pid %d) at %s -> %s: signing only, each PKSIGN logged",
	          (int)g->broker.pid, dest, g->extra);
	return 0;
}

static int gpg_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gpg *g = data;
	if (!g->allow)
		return 0;
	int r = host->plan_setenv(ctx, "GNUPGHOME", g->inside);
	return r < 0 ? r : shown_add(&g->shown, "env", "GNUPGHOME=%s", g->inside);
}

static int gpg_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gpg *g = data;
	int r;
	if (!g->allow)
		return host->describe(ctx, "allow", "false (--allow-gpg)");
	if ((r = host->describe(ctx, "allow", "true: the gpg-agent broker")) < 0)
		return r;
	char buf[PATH_MAX * 2 + 16];
	snprintf(buf, sizeof(buf), "%s -> %s/" SOCK_NAME, g->extra[0] ? g->extra : "(none)",
	         g->inside);
	if ((r = host->describe(ctx, "agent", buf)) < 0 ||
	    (r = host->describe(ctx, "policy",
	                        "the restricted socket, and of it only what signing needs "
	                        "(KEYINFO, HAVEKEY, READKEY, SIGKEY, SETHASH, PKSIGN, ...); no "
	                        "decryption, no key import/export/deletion, no putenv")) < 0 ||
	    (r = host->describe(ctx, "log", g->log_path ? g->log_path : "gpg-agent.log")) < 0)
		return r;
	return shown_describe(host, ctx, &g->shown);
}

static void gpg_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status)
{
	(void)host;
	(void)ctx;
	(void)status;
	stop(data);
}

static const struct asb_hooks gpg_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = gpg_configure,
    .pre_mount = gpg_pre_mount,
    .env = gpg_env,
    .post_exit = gpg_post_exit,
    .describe = gpg_describe,
};

static const char *const gpg_config_keys[] = {"allow", NULL};

static const struct asb_option gpg_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow",
     .flag = "allow-gpg",
     .env = "ALLOW_GPG",
     .help = "gpg signing through a broker on gpg-agent's restricted socket; the public "
             "keyring read-only, no secret keys"},
    {0},
};

static const struct asb_plugin gpg_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "gpg",
    .version = "0.1.0",
    .description = "gpg signing through a gpg-agent broker, never the secret keys",
    .config_keys = gpg_config_keys,
    .options = gpg_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = gpg_init,
    .fini = gpg_fini,
    .hooks = &gpg_hooks,
};

ASB_PLUGIN_DEFINE(gpg_plugin)
