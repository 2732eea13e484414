/* SPDX-License-Identifier: MIT */
#include "launch.h"

#include "config.h"
#include "hardening.h"
#include "layout.h"
#include "log.h"
#include "mountpoints.h"
#include "selfconfig.h"
#include "spawn.h"
#include "supervisor.h"
#include "tty.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#ifdef __APPLE__
#define DEFAULT_BACKEND "seatbelt"
#else
#define DEFAULT_BACKEND "bwrap"
#endif

void launch_init(struct launch *l, struct policy *p, struct catalog *catalog, bool shell,
                 bool dry_run)
{
	*l = (struct launch){0};
	l->policy = p;
	l->catalog = catalog;
	l->shell = shell;
	l->dry_run = dry_run;
	l->session.lock_fd = -1;
	l->spawned = CHILD_NONE;
	l->sandbox_netns_fd = -1;
	l->term = (struct terminal){.master = -1, .slave = -1, .tty_fd = -1};
	network_init(&l->net);
}

static void fini_plugins(struct launch *l)
{
	const struct asb_host *host = host_table();
	for (size_t i = l->n_plugins; i-- > 0;) {
		struct loaded_plugin *lp = &l->plugins[i];
		if (lp->initialized && lp->desc->fini)
			lp->desc->fini(host, &lp->ctx, lp->data);
		lp->data = NULL;
	}
}

void launch_free(struct launch *l)
{
	fini_plugins(l);
	for (size_t i = 0; i < l->n_plugins; i++)
		loader_release(&l->plugins[i]);
	free(l->plugins);
	plan_free(&l->plan);
	strv_clear(&l->out_argv);
	free(l->keep_fds);
	for (size_t i = 0; i < l->n_artifacts; i++) {
		free(l->artifacts[i].name);
		free(l->artifacts[i].data);
	}
	free(l->artifacts);
	strv_clear(&l->describe);
	strv_clear(&l->self_paths);
	strv_clear(&l->self_protected);
	if (l->sandbox_netns_fd >= 0)
		close(l->sandbox_netns_fd);
	network_stop(&l->net);
	terminal_close(&l->term);
	session_close(&l->session);
	*l = (struct launch){0};
}

static int check_plugin_keys(struct loaded_plugin *lp)
{
	config_setting_t *g = lp->group;
	if (!g)
		return 0;
	int n = config_setting_length(g);
	for (int i = 0; i < n; i++) {
		config_setting_t *c = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(c);
		bool known = false;
		for (const char *const *k = lp->desc->config_keys; k && *k; k++)
			if (strcmp(*k, key) == 0)
				known = true;
		if (!known) {
			err_set("%s: unknown key 'plugins.%s.%s'", config_where(c), lp->name, key);
			return -EINVAL;
		}
	}
	return 0;
}

static int add_plugin(struct launch *l, const char *name, bool must_be_backend)
{
	for (size_t i = 0; i < l->n_plugins; i++)
		if (strcmp(l->plugins[i].name, name) == 0)
			return 0;
	struct loaded_plugin *n = realloc(l->plugins, (l->n_plugins + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->plugins = n;
	/* Contexts point into the array: refresh them after it moved. */
	for (size_t i = 0; i < l->n_plugins; i++)
		l->plugins[i].ctx.plugin = &l->plugins[i];
	if (l->backend)
		l->backend = &l->plugins[0];
	struct loaded_plugin *lp = &l->plugins[l->n_plugins];
	int r = loader_take(l->catalog, name, &l->policy->plugin_dirs, lp);
	if (r < 0) {
		if (must_be_backend && r == -ENOENT) {
			err_clear();
			if (l->policy->backend.source == SRC_FILE && l->policy->config_file)
				err_set("%s:%d: sandbox.backend: backend \"%s\" was not found (see "
				        "`agentsandbox plugins`)",
				        l->policy->config_file, l->policy->backend.line, name);
			else
				err_set("backend \"%s\" was not found (see `agentsandbox plugins`)",
				        name);
		}
		return r;
	}
	l->n_plugins++;
	lp->ctx.plugin = lp;
	lp->ctx.launch = l;
	lp->group = l->policy->plugins ? config_setting_get_member(l->policy->plugins, name) : NULL;
	if (must_be_backend && !(lp->desc->kind & ASB_KIND_BACKEND)) {
		err_set("backend \"%s\" (%s) is not a backend plugin", name, lp->path);
		return -EINVAL;
	}
	if (!must_be_backend && lp->desc->kind == ASB_KIND_BACKEND) {
		err_set("plugins.%s: %s is a backend; select it with sandbox.backend or --backend",
		        name, name);
		return -EINVAL;
	}
	return check_plugin_keys(lp);
}

/* The plugin's load rule (struct asb_plugin.load), the config and flags. */
static bool wants_loading(const struct launch *l, const struct found_plugin *f)
{
	const struct policy *p = l->policy;
	if (!f->desc || (f->desc->kind & ASB_KIND_BACKEND))
		return false;
	if (p->plugins && config_setting_get_member(p->plugins, f->name))
		return true;
	if (policy_plugin_named(p, f->name))
		return true;
	struct stat st;
	switch (f->desc->load) {
	case ASB_LOAD_DEFAULT:
		return true;
	case ASB_LOAD_IF_EXISTS:
		return stat(f->desc->load_path, &st) == 0;
	}
	return false;
}

int launch_load_plugins(struct launch *l)
{
	struct policy *p = l->policy;
	int r;
	if (!p->backend.value && !(p->backend.value = strdup(DEFAULT_BACKEND)))
		return -ENOMEM;
	if ((r = add_plugin(l, p->backend.value, true)) < 0)
		return r;
	l->backend = &l->plugins[0];

	/* A plugins.<name> group names a plugin that must exist. */
	if (p->plugins) {
		int n = config_setting_length(p->plugins);
		for (int i = 0; i < n; i++) {
			const config_setting_t *g =
			    config_setting_get_elem(p->plugins, (unsigned)i);
			const char *name = config_setting_name(g);
			if (strcmp(name, p->backend.value) == 0)
				continue;
			const struct found_plugin *f = catalog_find(l->catalog, name);
			if (!f || !f->desc) {
				int e = add_plugin(l, name, false);
				err_prefix("%s: plugins.%s", config_where(g), name);
				return e < 0 ? e : -ENOENT;
			}
		}
	}
	for (size_t i = 0; i < l->catalog->n; i++) {
		const struct found_plugin *f = &l->catalog->v[i];
		if (strcmp(f->name, p->backend.value) == 0 || !wants_loading(l, f))
			continue;
		if ((r = add_plugin(l, f->name, false)) < 0)
			return r;
	}

	const struct asb_host *host = host_table();
	for (size_t i = 0; i < l->n_plugins; i++) {
		struct loaded_plugin *lp = &l->plugins[i];
		lp->initialized = true; /* from here on, never dlclose */
		if (lp->desc->init && (r = lp->desc->init(host, &lp->ctx, &lp->data)) < 0) {
			err_set("plugin %s: init failed: %s", lp->name, strerror(-r));
			return r;
		}
		log_msg(LOG_INFO, "plugin %s %s loaded from %s (ABI %u.%u)", lp->name,
		        lp->desc->version ? lp->desc->version : "?", lp->path, lp->desc->abi_major,
		        lp->desc->abi_minor);
	}
	return 0;
}

#define HOOK(lp, member)                                                                           \
	(ASB_HAS((lp)->desc->hooks, struct asb_hooks, member) ? (lp)->desc->hooks->member : NULL)
#define OP(l, member)                                                                              \
	(ASB_HAS((l)->backend->desc->backend, struct asb_backend_ops, member)                      \
	     ? (l)->backend->desc->backend->member                                                 \
	     : NULL)

static int run_hook(struct launch *l, const char *what, size_t offset)
{
	const struct asb_host *host = host_table();
	for (size_t i = 0; i < l->n_plugins; i++) {
		struct loaded_plugin *lp = &l->plugins[i];
		const struct asb_hooks *h = lp->desc->hooks;
		if (offset == offsetof(struct asb_hooks, configure))
			lp->configured = true;
		if (!h || h->struct_size < offset + sizeof(asb_hook_fn))
			continue;
		asb_hook_fn fn = *(const asb_hook_fn *)((const char *)h + offset);
		if (!fn)
			continue;
		int r = fn(host, &lp->ctx, lp->data);
		if (r < 0) {
			err_set("plugin %s: %s failed: %s", lp->name, what, strerror(-r));
			return r;
		}
	}
	return 0;
}

void launch_post_exit(struct launch *l, int status)
{
	const struct asb_host *host = host_table();
	for (size_t i = l->n_plugins; i-- > 0;) {
		struct loaded_plugin *lp = &l->plugins[i];
		if (!lp->configured)
			continue;
		lp->configured = false; /* once */
		if (HOOK(lp, post_exit))
			lp->desc->hooks->post_exit(host, &lp->ctx, lp->data, status);
	}
}

int launch_describe(struct launch *l)
{
	return run_hook(l, "describe", offsetof(struct asb_hooks, describe));
}

/* Does anything act between "the sandbox exists" and "the agent runs"? */
static bool needs_hold(const struct launch *l)
{
	for (size_t i = 0; i < l->n_plugins; i++) {
		const struct loaded_plugin *lp = &l->plugins[i];
		if ((HOOK(lp, network) || HOOK(lp, pre_exec)) &&
		    !(lp->desc->hooks->flags & ASB_HOOKS_F_ONLY_IF_HELD))
			return true;
	}
	return network_needs_wiring(&l->net);
}

static int probe_backend(struct launch *l)
{
	const struct asb_host *host = host_table();
	const struct asb_backend_ops *ops = l->backend->desc->backend;
	char why[512] = "";
	/* The core's own spawn makes the namespace the sandbox inherits: not
	 * for a backend that starts its command itself. */
	uint64_t declared = ops->caps & ~(OP(l, spawn) ? ASB_CAP_NETNS_INHERIT : 0);
	l->caps = declared;
	int r = 0;
	if (ops->probe)
		r = ops->probe(host, &l->backend->ctx, l->backend->data, &l->caps, why,
		               sizeof(why));
	l->caps &= declared; /* probe only narrows */
	if (r >= 0)
		return 0;
	snprintf(l->probe_error, sizeof(l->probe_error), "%s", why[0] ? why : strerror(-r));
	if (l->dry_run) {
		/* --show-config shows what it would run; --check says it cannot. */
		log_msg(LOG_WARN, "backend %s cannot run here: %s", l->backend->name,
		        l->probe_error);
		l->caps = declared;
		return 0;
	}
	err_set("backend %s cannot run here: %s", l->backend->name, l->probe_error);
	return r;
}

static int reserve_session(struct launch *l)
{
	const struct policy *p = l->policy;
	_cleanup_free_ char *root = NULL;
	int r = session_root(getenv("XDG_STATE_HOME"), p->home, &root);
	if (r < 0) {
		err_set("cannot place the session directory: $HOME and $XDG_STATE_HOME unset");
		return r;
	}
	if ((r = session_reserve(&l->session, root, p->name.value)) < 0)
		return r;
	if (l->dry_run) {
		free(l->session.dir);
		if (!(l->session.dir = str_printf("%s/<session>", root)))
			return -ENOMEM;
		snprintf(l->session.id, sizeof(l->session.id), "<session-id>");
	}
	for (size_t i = 0; i < l->n_plugins; i++) {
		struct loaded_plugin *lp = &l->plugins[i];
		free(lp->private_dir);
		if (!(lp->private_dir = str_printf("%s/private/%s", l->session.dir, lp->name)))
			return -ENOMEM;
	}
	return 0;
}

static int build_backend(struct launch *l)
{
	const struct asb_host *host = host_table();
	l->stage = STAGE_BUILDING;
	strv_clear(&l->out_argv);
	int r = l->backend->desc->backend->build(host, &l->backend->ctx, l->backend->data);
	if (r < 0) {
		err_set("backend %s: cannot build the sandbox command: %s", l->backend->name,
		        strerror(-r));
		return r;
	}
	if (l->out_argv.n == 0 || l->out_argv.v[0][0] != '/') {
		err_set("backend %s produced no absolute command", l->backend->name);
		return -EINVAL;
	}
	return 0;
}

/* A file that shapes this launch, changed since an earlier session could
 * write it: say so, and run only when the user confirms (or passed
 * --accept-config-change). */
static int check_self_config(struct launch *l)
{
	struct policy *p = l->policy;
	int r = selfconfig_collect(p, &l->net, &l->self_paths);
	if (r < 0)
		return r;
	_cleanup_free_ char *root = NULL, *why = NULL;
	r = session_root(getenv("XDG_STATE_HOME"), p->home, &root) < 0
	        ? 0
	        : selfconfig_check(root, &l->self_paths, l->self_records, &why);
	/* The last check that reads them. */
	if (l->self_records)
		selfconfig_records_free(l->self_records);
	if (r <= 0)
		return r;
	if (l->dry_run) {
		log_msg(LOG_WARN, "%s", why);
		return 0;
	}
	bool yes = p->accept_config_change;
	if (!yes) {
		_cleanup_free_ char *clean = log_escape(why);
		_cleanup_free_ char *q = str_printf(
		    "agentsandbox: %s.\nCheck it before you go on. Run with it as it is now?",
		    clean ? clean : why);
		yes = q && tty_confirm(q) == 1;
	}
	if (!yes) {
		err_set("%s. Check it, then run with --accept-config-change", why);
		return -EPERM;
	}
	log_msg(LOG_WARN, "%s; accepted (%s)", why,
	        p->accept_config_change ? "--accept-config-change" : "on the terminal");
	return selfconfig_accept(root, &l->self_paths);
}

int launch_plan(struct launch *l)
{
	struct policy *p = l->policy;
	int r;

	for (size_t i = 0; i < l->n_plugins; i++)
		l->plugins[i].configured = false;
	if ((r = protections_check_names(l)) < 0)
		return r;
	/* Paths known from configure on (plugins plan with them); created in
	 * launch_run. A dry run shows them as <session>. */
	if ((r = reserve_session(l)) < 0)
		return r;
	if ((r = run_hook(l, "configure", offsetof(struct asb_hooks, configure))) < 0)
		return r;
	if ((r = network_configure(&l->net, p)) < 0)
		return r;
	if ((r = check_self_config(l)) < 0)
		return r;
	if ((r = probe_backend(l)) < 0)
		return r;
	struct home_exposure he;
	if (!p->allow_home.value && !l->dry_run && layout_home_exposure(p, &he)) {
		_cleanup_free_ char *what = layout_home_exposure_text(p, &he);
		err_set("%s: the agent would see all of it. %s, or pass --allow-home",
		        what ? what : "a declared path contains your home directory",
		        strcmp(he.what, "the workspace") == 0 ? "Launch from a project directory"
		                                              : "Declare a directory inside it");
		return -EPERM;
	}
	/* The proxy's start-up (OpenSSL, its CA) runs beside the rest. */
	if (!l->dry_run && (r = network_start_early(&l->net, p, l->session.dir, l->caps)) < 0)
		return r;
	if (!l->dry_run && (r = layout_create_rw_dirs(p)) < 0)
		return r;
	if (!l->dry_run && (r = network_bind_published(&l->net)) < 0)
		return r;

	l->stage = STAGE_PLANNING;
	if ((r = layout_build(&l->plan, p, l->shell, expand_lookup_environ, NULL)) < 0)
		return r;
	_cleanup_free_ char *state_root = NULL;
	if (!l->dry_run && (r = session_root(getenv("XDG_STATE_HOME"), p->home, &state_root)) < 0) {
		err_set("cannot place the session directory: $HOME and $XDG_STATE_HOME unset");
		return r;
	}
	if ((r = network_plan(&l->net, &l->plan, state_root, l->session.dir, l->caps)) < 0) {
		if (!err_get())
			err_set("cannot prepare the sandbox's network: %s", strerror(-r));
		return r;
	}
	/* An engine that cannot start fails here, before anything runs, with
	 * the message --check gives too. */
	if ((r = network_engine_check(&l->net)) < 0) {
		if (!l->dry_run)
			return r;
		snprintf(l->network_error, sizeof(l->network_error), "%s", err_get());
		log_msg(LOG_WARN, "%s", l->network_error);
		err_clear();
	}
	if ((r = run_hook(l, "pre_mount", offsetof(struct asb_hooks, pre_mount))) < 0)
		return r;
	if ((r = run_hook(l, "env", offsetof(struct asb_hooks, env))) < 0)
		return r;
	if ((r = network_plan_credentials(&l->net, &l->plan, p, state_root, l->caps)) < 0)
		return r;
	/* What shapes the sandbox is read-only inside when it lies in a
	 * writable place (the plugins' entries included). */
	if ((r = selfconfig_protect(&l->plan, &l->self_paths, &l->self_protected)) < 0) {
		err_set("cannot make the sandbox's own configuration read-only inside: %s",
		        strerror(-r));
		return r;
	}
	if ((r = hardening_plan(l)) < 0)
		return r;
	plan_set_final(&l->plan);
	l->stage = STAGE_FINAL;
	l->hold = needs_hold(l);
	if (l->hold && !(l->caps & ASB_CAP_HOLD)) {
		err_set("backend %s cannot hold the sandbox until its network is wired (and the "
		        "plugins' network/pre_exec hooks ran)",
		        l->backend->name);
		return -EOPNOTSUPP;
	}
	/* What would make the backend fail halfway through building the view,
	 * refused before anything starts (--check says it too). */
	if ((l->caps & ASB_CAP_FS_VIEW) && (r = mountpoints_check(&l->plan, p)) < 0) {
		if (!l->dry_run)
			return r;
		snprintf(l->view_error, sizeof(l->view_error), "%s", err_get());
		log_msg(LOG_WARN, "%s", l->view_error);
		err_clear();
	}
	if ((r = protections_evaluate(l)) < 0 && !l->dry_run)
		return r;
	if (l->dry_run) {
		err_clear();
		return build_backend(l);
	}
	return 0;
}

/* A readable account of the policy for launch.log (no secrets). */
static void log_policy(const struct launch *l)
{
	const struct policy *p = l->policy;
	log_msg(LOG_INFO, "agentsandbox %s, session %s", ASB_VERSION, l->session.id);
	log_msg(LOG_INFO, "config: %s", p->config_file ? p->config_file : "(none)");
	/* The command's name for `agentsandbox sessions`; its arguments may
	 * carry what the user would not want in a record. */
	log_msg(LOG_INFO, "command: %s", l->shell ? "bash (--shell)" : p->command.value);
	log_msg(LOG_INFO, "user %s (uid %d), home %s, launched from %s", p->user, (int)p->uid,
	        p->home, p->launch_dir);
	log_msg(LOG_INFO, "workspace: %s [%s]", p->workspace.value,
	        source_name(p->workspace.source));
	log_msg(LOG_INFO, "backend: %s, platform %s", l->backend->name, platform_name());
	const struct {
		const char *k;
		const struct plist *v;
	} lists[] = {{"packages", &p->packages},
	             {"rw_dirs", &p->rw_dirs},
	             {"rw_files", &p->rw_files},
	             {"ro_dirs", &p->ro_dirs},
	             {"ro_files", &p->ro_files}};
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		for (size_t j = 0; j < lists[i].v->items.n; j++)
			log_msg(LOG_INFO, "%s: %s", lists[i].k, lists[i].v->items.v[j]);
	for (size_t i = 0; i < p->n_mounts; i++)
		log_msg(LOG_INFO, "--mount %s%s -> %s", p->mounts[i].read_only ? "ro:" : "",
		        p->mounts[i].source, p->mounts[i].dest);
	for (size_t i = 0; i < p->n_env; i++)
		log_msg(LOG_INFO, "env %s: %s [%s]", p->env[i].key,
		        p->env[i].value ? "set (value not recorded)" : "unset: empty",
		        source_name(p->env[i].source));
	for (size_t i = 0; i < l->describe.n; i++) {
		_cleanup_free_ char *line = strdup(l->describe.v[i]);
		char *key = line ? strchr(line, '\t') : NULL;
		char *value = key ? strchr(key + 1, '\t') : NULL;
		if (value) {
			*key++ = '\0';
			*value++ = '\0';
			log_msg(LOG_INFO, "%s: %s: %s", line, key, value);
		}
	}
}

static int write_backend_args(struct launch *l)
{
	/* One argument per line: a newline in one (an agent argument) is
	 * written as \x0a, like every control character. */
	struct strv clean = {0};
	size_t len = 0;
	for (size_t i = 0; i < l->out_argv.n; i++) {
		int r = strv_push_take(&clean, log_escape(l->out_argv.v[i]));
		if (r < 0) {
			strv_clear(&clean);
			return r;
		}
		len += strlen(clean.v[i]) + 1;
	}
	_cleanup_free_ char *buf = malloc(len + 1);
	if (!buf) {
		strv_clear(&clean);
		return -ENOMEM;
	}
	char *w = buf;
	for (size_t i = 0; i < clean.n; i++) {
		size_t n = strlen(clean.v[i]);
		memcpy(w, clean.v[i], n);
		w[n] = '\n';
		w += n + 1;
	}
	strv_clear(&clean);
	_cleanup_free_ char *name = str_printf("%s.args", l->backend->name);
	if (!name)
		return -ENOMEM;
	return session_write(&l->session, name, buf, len);
}

static char **build_envp(const struct plan *plan)
{
	char **envp = calloc(plan->n_env + 1, sizeof(char *));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < plan->n_env; i++) {
		envp[i] = str_printf("%s=%s", plan->env[i].key, plan->env[i].value);
		if (!envp[i]) {
			for (size_t j = 0; j < i; j++)
				free(envp[j]);
			free(envp);
			return NULL;
		}
	}
	return envp;
}

static void free_envp(char **envp)
{
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
}

/* The core's default spawn: the built command with the plan's environment
 * (secrets reach the backend this way, never on its argv). */
static int default_spawn(struct launch *l, pid_t *pid)
{
	struct limits_set set;
	int r = limits_resolve(l->policy, &set);
	if (r < 0)
		return r;
	/* The sandbox's network namespace, made by the command's own start
	 * (ASB_NET_F_IN_NAMESPACE): its fd comes back over this pair. */
	_cleanup_close_ int report = -1, report_theirs = -1;
	struct netns_at_spawn at_spawn;
	if (l->net.made_at_spawn) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
			return -errno;
		report = sv[0];
		report_theirs = sv[1];
		network_at_spawn(&l->net, report_theirs, &at_spawn);
	}
	char **envp = build_envp(&l->plan);
	if (!envp)
		return -ENOMEM;
	/* A backend whose sandbox keeps the host's paths (a profile) starts in
	 * the working directory; one with its own view chdirs inside. */
	char why[PATH_MAX + 128] = "";
	struct spawn_opts o = {.keep_fds = l->keep_fds,
	                       .n_keep_fds = l->n_keep_fds,
	                       .limits = &set,
	                       .no_new_privs = true,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .cwd = l->plan.chdir,
	                       .term = &l->term,
	                       .netns = report >= 0 ? &at_spawn : NULL,
	                       .why = why,
	                       .why_len = sizeof(why)};
	r = spawn_exec((const char *const *)l->out_argv.v, (const char *const *)envp, &o, pid);
	free_envp(envp);
	if (r < 0 && why[0])
		err_set("cannot start the %s sandbox: %s", l->backend->name, why);
	if (r >= 0 && report >= 0) {
		/* Sent before its exec, which spawn_exec waited for. */
		close(TAKE_FD(report_theirs));
		if (network_take_spawned(&l->net, report) < 0) {
			err_set("the %s sandbox started without the network namespace made for it",
			        l->backend->name);
			spawn_abandon(*pid, &o);
			return -EIO;
		}
	}
	return r;
}

static int spawn_sandbox(struct launch *l)
{
	const struct asb_host *host = host_table();
	int64_t pid64 = 0;
	pid_t pid = 0;
	int r;
	int (*spawn)(const struct asb_host *, struct asb_ctx *, void *, int64_t *) = OP(l, spawn);
	if (spawn) {
		r = spawn(host, &l->backend->ctx, l->backend->data, &pid64);
		pid = (pid_t)pid64;
		if (r >= 0 && pid <= 0)
			r = -ECHILD;
	} else {
		r = default_spawn(l, &pid);
		l->term_given = true;
	}
	if (r >= 0 && !l->term_given && l->term.mode != TERM_DIRECT && l->term.mode != TERM_NONE) {
		/* Its own process holds the user's terminal (not spawn_program):
		 * reading it here would take its keys away. */
		if (l->term.mode == TERM_FILTERED)
			log_msg(LOG_WARN,
			        "backend %s started its sandbox itself: the agent has your "
			        "terminal, unfiltered",
			        l->backend->name);
		terminal_unused(&l->term);
	}
	if (r < 0) {
		if (!err_get())
			err_set("cannot start the %s sandbox: %s", l->backend->name, strerror(-r));
		return r;
	}
	child_track(&l->spawned, pid);
	terminal_spawned(&l->term, pid);
	/* A backend without await_start: the spawned process is the sandbox. */
	if (!OP(l, await_start) && !l->sandbox_known) {
		l->sandbox_pid = pid;
		l->sandbox_known = true;
	}
	return 0;
}

static void forward_signal(void *userdata, int sig)
{
	struct launch *l = userdata;
	int (*signal_op)(const struct asb_host *, struct asb_ctx *, void *, int) = OP(l, signal);
	if (signal_op && signal_op(host_table(), &l->backend->ctx, l->backend->data, sig) >= 0)
		return;
	if (l->spawned.pid > 0)
		kill(l->spawned.pid, sig);
}

/* Held: the sandbox exists and waits; wire it, run the hooks, release it. */
static int wire_and_release(struct launch *l)
{
	const struct asb_host *host = host_table();
	int r;
	network_prepare_wiring(&l->net);
	asb_hook_fn await = OP(l, await_start);
	if (await && (r = await(host, &l->backend->ctx, l->backend->data)) < 0) {
		if (!err_get())
			err_set("the %s sandbox failed before it started", l->backend->name);
		return r;
	}
	if (!l->sandbox_known) {
		err_set("backend %s did not report the sandbox (sandbox_started)",
		        l->backend->name);
		return -ESRCH;
	}
	log_msg(LOG_INFO, "network: %s", network_mode_name(l->net.mode));
	if (network_needs_wiring(&l->net) &&
	    (r = network_wire(&l->net, l->session.dir, l->sandbox_pid, l->sandbox_netns_fd)) < 0)
		return r;
	if ((r = run_hook(l, "network", offsetof(struct asb_hooks, network))) < 0 ||
	    (r = run_hook(l, "pre_exec", offsetof(struct asb_hooks, pre_exec))) < 0)
		return r;
	asb_hook_fn release = OP(l, release);
	if (release && (r = release(host, &l->backend->ctx, l->backend->data)) < 0) {
		if (!err_get())
			err_set("backend %s: cannot release the sandbox: %s", l->backend->name,
			        strerror(-r));
		return r;
	}
	return 0;
}

/* The sandbox's own process (its pid 1), once the backend's process has
 * ended: known (asking the backend now does not wait), and not that one. */
static bool sandbox_apart(struct launch *l)
{
	/* Not asked yet (no terminal needed it). */
	asb_hook_fn await = OP(l, await_start);
	if (!l->sandbox_known && await)
		(void)await(host_table(), &l->backend->ctx, l->backend->data);
	return l->sandbox_known && l->sandbox_pid > 0 && l->sandbox_pid != l->spawned.pid;
}

/* The sandbox's pid 1 outlives the backend's process: bubblewrap returns
 * the agent's status as soon as its pid 1 has it, and pid 1 then kills
 * what else runs inside. Orphaned, it is the launcher's child
 * (platform_adopt_orphans): waited for (killed after ms) and reaped. False
 * when it is not this process's child: reaped already by the supervisor's
 * loop, or never adopted (then its pid may name another process by now). */
static bool reap_adopted_sandbox(struct launch *l, int ms)
{
	siginfo_t si;
	if (!sandbox_apart(l) ||
	    waitid(P_PID, (id_t)l->sandbox_pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return false;
	struct child c;
	child_track(&c, l->sandbox_pid);
	child_stop(&c, 0, ms);
	return true;
}

/* A sandbox that was killed: its pid 1 may still be ending (killing what
 * runs in it) after the backend's own process returned. Wait, up to ms,
 * until it is reaped or gone, so that nothing of the session outlives the
 * launcher. */
static void await_sandbox_gone(struct launch *l, int ms)
{
	if (!sandbox_apart(l) || reap_adopted_sandbox(l, ms))
		return;
	for (int waited = 0; waited < ms; waited += 5) {
		pid_t w = waitpid(l->sandbox_pid, NULL, WNOHANG);
		if (w == l->sandbox_pid ||
		    (w < 0 && errno == ECHILD && kill(l->sandbox_pid, 0) < 0 && errno == ESRCH))
			return;
		struct timespec ts = {.tv_nsec = 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void kill_sandbox(struct launch *l)
{
	/* The sandbox itself first: a backend's child may still wait for its
	 * parent and not notice it dying. */
	if (l->sandbox_known && l->sandbox_pid > 0 && l->sandbox_pid != l->spawned.pid)
		kill(l->sandbox_pid, SIGKILL);
	child_stop(&l->spawned, SIGKILL, 1000);
	await_sandbox_gone(l, 2000);
	/* Killed before it said which pid its sandbox has, the backend's
	 * process may have left that pid 1 to us, still setting up. */
	platform_kill_adopted_sandboxes();
}

static void backend_cleanup(struct launch *l)
{
	void (*cleanup)(const struct asb_host *, struct asb_ctx *, void *) = OP(l, cleanup);
	if (cleanup)
		cleanup(host_table(), &l->backend->ctx, l->backend->data);
}

/* A plugin's private directory: inside the session, removed at the end
 * (bundles and runtime state may hold what a session record must not).
 * Made only for a plugin that asked for it (host.c): most have none to
 * keep, and each directory costs a mkdir now and a removal later. */
int launch_make_private_dir(struct launch *l, struct loaded_plugin *lp)
{
	if (!l->have_session || l->dry_run || !lp->private_dir)
		return 0;
	_cleanup_free_ char *root = str_printf("%s/private", l->session.dir);
	if (!root)
		return -ENOMEM;
	if (mkdir(root, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (mkdir(lp->private_dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int make_private_dirs(struct launch *l)
{
	for (size_t i = 0; i < l->n_plugins; i++) {
		struct loaded_plugin *lp = &l->plugins[i];
		int r = lp->private_wanted ? launch_make_private_dir(l, lp) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

static void remove_private_dirs(struct launch *l)
{
	if (!l->have_session)
		return;
	_cleanup_free_ char *root = str_printf("%s/private", l->session.dir);
	if (root)
		(void)rm_rf(root);
}

static const char *const terminal_modes[] = {"none", "filtered (a pty of its own)",
                                             "detached (no controlling terminal)",
                                             "direct (the user's terminal itself)"};

static int open_terminal(struct launch *l)
{
	const struct policy *p = l->policy;
	uint32_t allow = 0;
	for (size_t i = 0; i < p->terminal_allow.items.n; i++)
		allow |= termfilter_class(p->terminal_allow.items.v[i]);
	int r = terminal_open(&l->term, p->terminal_filter.value, allow);
	if (r < 0) {
		err_set(
		    "cannot open a pty for the filtered terminal: %s (--no-terminal-filter gives "
		    "the agent your terminal itself)",
		    strerror(-r));
		return r;
	}
	size_t n = 0;
	const int *sigs = terminal_signals(&l->term, &n);
	if ((r = supervisor_catch(sigs, n)) < 0)
		return r;
	log_msg(LOG_INFO, "terminal: %s%s", terminal_modes[l->term.mode],
	        l->term.mode == TERM_DIRECT ? ": escape sequences reach it unfiltered" : "");
	for (size_t i = 0; l->term.mode == TERM_FILTERED && i < p->terminal_allow.items.n; i++)
		log_msg(LOG_INFO, "terminal: %s sequences let through",
		        p->terminal_allow.items.v[i]);
	return 0;
}

static int start(struct launch *l, char **root_out)
{
	struct policy *p = l->policy;
	const struct asb_host *host = host_table();
	int r;
	if (!(*root_out = strdup(l->session.root)))
		return -ENOMEM;
	if ((r = session_create(&l->session)) < 0) {
		err_set("cannot create a session directory under %s: %s", *root_out, strerror(-r));
		return r;
	}
	l->have_session = true;
	if ((r = make_private_dirs(l)) < 0) {
		err_set("cannot create the session's private directories: %s", strerror(-r));
		return r;
	}
	l->stage = STAGE_BUILDING;
	asb_hook_fn prepare = OP(l, prepare);
	if (prepare && (r = prepare(host, &l->backend->ctx, l->backend->data)) < 0) {
		if (!err_get())
			err_set("backend %s: prepare failed: %s", l->backend->name, strerror(-r));
		return r;
	}
	if ((r = build_backend(l)) < 0)
		return r;
	/* Artifacts first: the command may read them (a profile). */
	for (size_t i = 0; i < l->n_artifacts; i++)
		if ((r = session_write(&l->session, l->artifacts[i].name, l->artifacts[i].data,
		                       l->artifacts[i].len)) < 0) {
			err_set("cannot write %s into the session: %s", l->artifacts[i].name,
			        strerror(-r));
			return r;
		}
	/* The proxy (started in launch_plan for a backend with its own
	 * namespace, its listener follows) gets its secrets; or starts here. */
	if ((r = network_start_host(&l->net, p, l->session.dir)) < 0)
		return r;
	platform_adopt_orphans();
	if ((r = supervisor_prepare()) < 0)
		return r;
	if ((r = open_terminal(l)) < 0)
		return r;
	l->stage = STAGE_RUNNING;
	selfconfig_start_time(&l->self_start);
	r = spawn_sandbox(l);
	/* Only now: the command's start writes its own /proc/self files (the
	 * user namespace's maps), which a process that is not dumpable cannot. */
	platform_harden_self();
	/* Its network namespace exists already (made as it started): wired
	 * from here on, while the backend sets the sandbox up. */
	if (r >= 0 && l->net.spawn_netns_fd >= 0 &&
	    (r = network_wire_start(&l->net, l->session.dir)) < 0)
		kill_sandbox(l);
	return r;
}

/* After the sandbox: the plugins' post_exit, the backend's cleanup, the
 * private directories; what they log is written in one go at the end. */
static void end_session(struct launch *l, int status)
{
	(void)log_hold(true);
	launch_post_exit(l, status);
	backend_cleanup(l);
	remove_private_dirs(l);
	(void)log_hold(false);
	log_detach();
}

/* Has pid exited within ms? A sandbox that failed on its own can still be
 * exiting when wiring it fails (its namespaces already gone): wait a little
 * for it, so that its own reason is the one reported. */
static bool reaped_within(pid_t pid, int *status, int ms)
{
	for (int waited = 0;; waited += 10) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return true;
		if (w < 0 && errno != EINTR)
			return false;
		if (waited >= ms)
			return false;
		struct timespec ts = {.tv_nsec = 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int launch_run(struct launch *l)
{
	_cleanup_free_ char *root = NULL;
	_cleanup_close_ int log_fd = -1;
	(void)log_hold(true);
	int r = start(l, &root);
	if (l->have_session)
		log_fd = session_open(&l->session, "launch.log");
	if (log_fd >= 0)
		log_attach_file(log_fd);
	if (r < 0)
		goto fail;

	/* What this session may write is on record before its agent can run
	 * (core/selfconfig.h); the policy's lines open launch.log. */
	r = selfconfig_record(&l->session, &l->self_start, &l->plan, &l->self_protected,
	                      &l->self_paths);
	if (r < 0)
		log_msg(LOG_WARN, "cannot record what this session may write: %s", strerror(-r));
	l->self_exposed = r > 0;
	log_policy(l);
	protections_log(l);
	hardening_log(l);
	log_msg(LOG_INFO, "started %s (pid %d)", l->out_argv.v[0], (int)l->spawned.pid);

	/* A held sandbox waits for its network: wired and released before the
	 * rest, which is done while it starts (the pruning alone can take
	 * longer than the sandbox's set-up). */
	if (l->hold && (r = wire_and_release(l)) < 0) {
		/* The sandbox may have failed on its own first (a mount bubblewrap
		 * could not make): then that is the cause, as wait() tells it. */
		int st;
		int (*wait_op)(const struct asb_host *, struct asb_ctx *, void *, int) =
		    OP(l, wait);
		if (wait_op && l->spawned.pid > 0 && reaped_within(l->spawned.pid, &st, 500)) {
			child_forget(&l->spawned);
			const char *first = err_get();
			_cleanup_free_ char *saved = first ? strdup(first) : NULL;
			err_clear();
			if (wait_op(host_table(), &l->backend->ctx, l->backend->data, st) >= 0 ||
			    !err_get()) {
				err_clear();
				err_set("%s", saved ? saved : strerror(-r));
			}
		}
		kill_sandbox(l);
		goto fail;
	}
	if (l->hold && network_needs_wiring(&l->net))
		network_record(&l->net, l->session.dir);
	if ((r = write_backend_args(l)) < 0)
		log_msg(LOG_WARN, "cannot write %s.args: %s", l->backend->name, strerror(-r));
	int removed = session_prune(root, SESSION_KEEP);
	if (removed > 0)
		log_msg(LOG_INFO, "pruned %d old session director%s", removed,
		        removed == 1 ? "y" : "ies");
	session_prepare(root);
	(void)log_hold(false);

	/* Job control needs the agent's process: where the sandbox was not
	 * held, ask the backend now (the agent already runs). */
	asb_hook_fn await = OP(l, await_start);
	if (!l->sandbox_known && await && l->term.mode != TERM_NONE &&
	    (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO)))
		(void)await(host_table(), &l->backend->ctx, l->backend->data);
	(void)terminal_start(&l->term, EV_DEFAULT, l->sandbox_known ? l->sandbox_pid : 0,
	                     forward_signal, l);

	int wstatus = supervisor_run(l->spawned.pid, forward_signal, l, &l->term);
	terminal_finish(&l->term);
	supervisor_release();
	/* Waited for in launch_free, after the plugins' post-exit work. */
	network_stop_begin(&l->net);
	/* Nothing of the sandbox runs any more when the session is recorded as
	 * ended and the post-exit checks look at what it left: what the agent
	 * left running inside would otherwise have until its pid 1 kills it. */
	if (wstatus >= 0)
		(void)reap_adopted_sandbox(l, 2000);
	selfconfig_record_end(&l->session, l->self_exposed);
	int code;
	int (*wait_op)(const struct asb_host *, struct asb_ctx *, void *, int) = OP(l, wait);
	if (wstatus < 0)
		code = wstatus;
	else if (wait_op)
		code = wait_op(host_table(), &l->backend->ctx, l->backend->data, wstatus);
	else
		code = supervisor_exit_code(wstatus);
	if (wstatus >= 0)
		child_forget(&l->spawned);
	else
		child_stop(&l->spawned, SIGKILL, 1000);
	if (code < 0) {
		/* The backend failed before the agent ran: a setup error. */
		log_msg(LOG_ERROR, "the %s sandbox failed before the agent started (%s)",
		        l->backend->name, strerror(-code));
		/* The backend's own account (an ERROR it logged), else this. */
		if (!err_get())
			err_set("the %s sandbox failed before the agent started (see its message "
			        "above)",
			        l->backend->name);
		end_session(l, -EIO);
		return 125;
	}
	/* Killed (a signal, or the grace period after a hangup): a pid 1 that
	 * was not adopted may still be taking the rest down. */
	if (WIFSIGNALED(wstatus) || (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) > 128))
		await_sandbox_gone(l, 2000);
	(void)log_hold(true);
	if (WIFSIGNALED(wstatus))
		log_msg(LOG_INFO, "sandbox ended by signal %s: exit status %d",
		        strsignal(WTERMSIG(wstatus)), code);
	else
		log_msg(LOG_INFO, "exit status %d", code);
	end_session(l, code);
	return code;
fail:
	(void)log_hold(false);
	terminal_finish(&l->term); /* what the backend said on the pty */
	log_msg(LOG_ERROR, "launch failed: %s", err_get() ? err_get() : strerror(-r));
	supervisor_release();
	network_stop(&l->net);
	end_session(l, r);
	return 125;
}
