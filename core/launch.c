/* SPDX-License-Identifier: MIT */
#include "launch.h"

#include "config.h"
#include "hardening.h"
#include "layout.h"
#include "log.h"
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#define DEFAULT_BACKEND "bwrap"

/* Feature plugins that load without a config group (turned off only
 * explicitly, by their own option). */
static const struct {
	const char *name;
	const char *off_key; /* the boolean that disables it */
} default_plugins[] = {
    {"git", "protect"},
};

void launch_init(struct launch *l, struct policy *p, bool shell, bool dry_run)
{
	*l = (struct launch){0};
	l->policy = p;
	l->shell = shell;
	l->dry_run = dry_run;
	l->info_fd = -1;
	l->block_fd = -1;
	l->info_read_fd = -1;
	l->block_write_fd = -1;
	l->session.lock_fd = -1;
	network_init(&l->net);
}

void launch_free(struct launch *l)
{
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
	if (l->info_fd >= 0)
		close(l->info_fd);
	if (l->block_fd >= 0)
		close(l->block_fd);
	if (l->info_read_fd >= 0)
		close(l->info_read_fd);
	if (l->block_write_fd >= 0)
		close(l->block_write_fd);
	network_stop(&l->net);
	if (l->have_session)
		session_close(&l->session);
	*l = (struct launch){0};
}

static bool plugin_listed(const struct strv *names, const char *name)
{
	return strv_contains(names, name);
}

/* Is the plugin's disabling option explicitly off (flag, env or file)? */
static bool default_plugin_disabled(const struct policy *p, const char *name, const char *key)
{
	int v = policy_plugin_override(p, name, key, NULL);
	if (v >= 0)
		return v == 0;
	if (!p->plugins)
		return false;
	config_setting_t *g = config_setting_get_member(p->plugins, name);
	config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
	return s && config_setting_type(s) == CONFIG_TYPE_BOOL && !config_setting_get_bool(s);
}

static bool plugin_available(const struct policy *p, const char *name)
{
	struct strv search = {0};
	if (loader_search_path(&p->plugin_dirs, &search) < 0)
		return false;
	bool found = false;
	for (size_t d = 0; d < search.n && !found; d++) {
		_cleanup_free_ char *path = str_printf("%s/%s" PLUGIN_SUFFIX, search.v[d], name);
		found = path && access(path, R_OK) == 0;
	}
	strv_clear(&search);
	return found;
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
	int r = loader_open(name, &l->policy->plugin_dirs, lp);
	if (r < 0)
		return r;
	l->n_plugins++;
	lp->ctx.plugin = lp;
	lp->ctx.launch = l;
	lp->group = l->policy->plugins ? config_setting_get_member(l->policy->plugins, name) : NULL;
	if (must_be_backend && !(lp->desc->kind & ASB_KIND_BACKEND)) {
		err_set("backend \"%s\" (%s) is not a backend plugin", name, lp->path);
		return -EINVAL;
	}
	return check_plugin_keys(lp);
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

	struct strv names = {0};
	for (size_t i = 0; i < ARRAY_SIZE(default_plugins); i++) {
		const char *name = default_plugins[i].name;
		if (default_plugin_disabled(p, name, default_plugins[i].off_key)) {
			/* Still load it when present so it can say what is off. */
			if (!plugin_available(p, name)) {
				log_msg(LOG_WARN, "%s protection is off (%s = false)", name,
				        default_plugins[i].off_key);
				continue;
			}
		}
		if ((r = strv_push(&names, name)) < 0)
			goto out;
	}
	/* On a Nix host the nix plugin narrows store paths to their closures,
	 * when it is installed; nothing else changes without its group. */
	if (access("/nix/store", F_OK) == 0 && plugin_available(p, "nix") &&
	    (r = strv_push(&names, "nix")) < 0)
		goto out;
	if (p->plugins) {
		int n = config_setting_length(p->plugins);
		for (int i = 0; i < n; i++) {
			const char *name =
			    config_setting_name(config_setting_get_elem(p->plugins, (unsigned)i));
			if (!plugin_listed(&names, name) && (r = strv_push(&names, name)) < 0)
				goto out;
		}
	}
	/* A plugin switched on by a flag or variable loads like one with a group. */
	for (size_t i = 0; i < p->n_overrides; i++)
		if (p->overrides[i].value && !plugin_listed(&names, p->overrides[i].plugin) &&
		    (r = strv_push(&names, p->overrides[i].plugin)) < 0)
			goto out;
	for (size_t i = 0; i < names.n; i++) {
		if (strcmp(names.v[i], p->backend.value) == 0)
			continue;
		if ((r = add_plugin(l, names.v[i], false)) < 0)
			goto out;
		if (l->plugins[l->n_plugins - 1].desc->kind == ASB_KIND_BACKEND) {
			err_set("plugins.%s: %s is a backend; select it with sandbox.backend",
			        names.v[i], names.v[i]);
			r = -EINVAL;
			goto out;
		}
	}

	const struct asb_host *host = host_table();
	for (size_t i = 0; i < l->n_plugins; i++) {
		struct loaded_plugin *lp = &l->plugins[i];
		lp->initialized = true; /* from here on, never dlclose */
		if (lp->desc->init && (r = lp->desc->init(host, &lp->ctx)) < 0) {
			err_set("plugin %s: init failed: %s", lp->name, strerror(-r));
			goto out;
		}
		log_msg(LOG_INFO, "plugin %s %s loaded from %s (ABI %u.%u)", lp->name,
		        lp->desc->version ? lp->desc->version : "?", lp->path, lp->desc->abi_major,
		        lp->desc->abi_minor);
	}
	r = 0;
out:
	strv_clear(&names);
	return r;
}

#define HOOK(lp, member)                                                                           \
	(ASB_HAS((lp)->desc->hooks, struct asb_hooks, member) ? (lp)->desc->hooks->member : NULL)

static int run_hook(struct launch *l, const char *what, size_t offset)
{
	const struct asb_host *host = host_table();
	for (size_t i = 0; i < l->n_plugins; i++) {
		struct loaded_plugin *lp = &l->plugins[i];
		const struct asb_hooks *h = lp->desc->hooks;
		if (!h || h->struct_size < offset + sizeof(asb_hook_fn))
			continue;
		asb_hook_fn fn = *(const asb_hook_fn *)((const char *)h + offset);
		if (offset == offsetof(struct asb_hooks, configure))
			lp->configured = true;
		if (!fn)
			continue;
		int r = fn(host, &lp->ctx);
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
			lp->desc->hooks->post_exit(host, &lp->ctx, status);
	}
}

/* Does any plugin act between "the sandbox exists" and "the agent runs"? */
static bool needs_wiring(const struct launch *l)
{
	for (size_t i = 0; i < l->n_plugins; i++) {
		const struct loaded_plugin *lp = &l->plugins[i];
		if (HOOK(lp, network) || HOOK(lp, pre_exec))
			return true;
	}
	return network_needs_wiring(&l->net);
}

static int pipe_pair(int fds[2])
{
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
}

int launch_build(struct launch *l)
{
	struct policy *p = l->policy;
	const struct asb_host *host = host_table();
	int r;

	for (size_t i = 0; i < l->n_plugins; i++)
		l->plugins[i].configured = false;
	if ((r = run_hook(l, "configure", offsetof(struct asb_hooks, configure))) < 0)
		return r;
	if ((r = network_configure(&l->net, p)) < 0)
		return r;

	char why[512] = "";
	const struct asb_backend_ops *ops = l->backend->desc->backend;
	if (ops->probe && (r = ops->probe(host, &l->backend->ctx, why, sizeof(why))) < 0) {
		err_set("backend %s cannot run here: %s", l->backend->name,
		        why[0] ? why : strerror(-r));
		return r;
	}
	if (layout_workspace_exposes_home(p) && !p->allow_home.value && !l->dry_run) {
		err_set("the workspace %s contains your home directory %s: the agent would see "
		        "all of it. Launch from a project directory, or pass --allow-home",
		        p->workspace.value, p->home);
		return -EPERM;
	}
	if (!l->dry_run && (r = layout_create_rw_dirs(p)) < 0)
		return r;
	if (!l->dry_run && (r = network_bind_published(&l->net)) < 0)
		return r;

	if ((r = layout_build(&l->plan, p, l->shell, expand_lookup_environ, NULL)) < 0)
		return r;
	_cleanup_free_ char *state_root = NULL;
	if (!l->dry_run && (r = session_root(getenv("XDG_STATE_HOME"), p->home, &state_root)) < 0) {
		err_set("cannot place the session directory: $HOME and $XDG_STATE_HOME unset");
		return r;
	}
	if ((r = network_plan(&l->net, &l->plan, state_root)) < 0) {
		if (!err_get())
			err_set("cannot prepare the sandbox's network: %s", strerror(-r));
		return r;
	}
	if ((r = run_hook(l, "pre_mount", offsetof(struct asb_hooks, pre_mount))) < 0)
		return r;
	if ((r = run_hook(l, "env", offsetof(struct asb_hooks, env))) < 0)
		return r;
	if ((r = hardening_plan(l)) < 0 || (r = plan_finish(&l->plan)) < 0)
		return r;

	/* The sandbox reports its pid on `info` and waits on `block` until the
	 * network hooks wired it. The child's ends go to the backend. */
	int info[2], block[2] = {-1, -1};
	if ((r = pipe_pair(info)) < 0)
		return r;
	/* Holding the sandbox costs a round trip: only when a hook needs it. */
	if (needs_wiring(l) && (r = pipe_pair(block)) < 0) {
		close(info[0]);
		close(info[1]);
		return r;
	}
	l->info_fd = info[1];
	l->block_fd = block[0];
	l->info_read_fd = info[0];
	l->block_write_fd = block[1];

	if ((r = ops->build(host, &l->backend->ctx)) < 0) {
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

/* A readable account of the policy for launch.log (no secrets). */
static void log_policy(const struct launch *l)
{
	const struct policy *p = l->policy;
	log_msg(LOG_INFO, "agentsandbox %s, session %s", ASB_VERSION, l->session.id);
	log_msg(LOG_INFO, "config: %s", p->config_file ? p->config_file : "(none)");
	log_msg(LOG_INFO, "user %s (uid %d), home %s, launched from %s", p->user, (int)p->uid,
	        p->home, p->launch_dir);
	log_msg(LOG_INFO, "workspace: %s [%s]", p->workspace.value,
	        source_name(p->workspace.source));
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
		log_msg(LOG_INFO, "env %s = %s (%s)", p->env[i].key, p->env[i].raw,
		        p->env[i].value ? "set, value redacted" : "unset: empty");
	for (size_t i = 0; i < l->describe.n; i++)
		log_msg(LOG_INFO, "describe: %s", l->describe.v[i]);
}

static int write_backend_args(struct launch *l)
{
	size_t len = 0;
	for (size_t i = 0; i < l->out_argv.n; i++)
		len += strlen(l->out_argv.v[i]) + 1;
	_cleanup_free_ char *buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	char *w = buf;
	for (size_t i = 0; i < l->out_argv.n; i++) {
		size_t n = strlen(l->out_argv.v[i]);
		memcpy(w, l->out_argv.v[i], n);
		w[n] = '\n';
		w += n + 1;
	}
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

static int spawn(struct launch *l, char **envp, const sigset_t *blocked, pid_t *out)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Only the fds the backend asked for survive exec. */
		for (size_t i = 0; i < l->n_keep_fds; i++) {
			int flags = fcntl(l->keep_fds[i], F_GETFD);
			if (flags >= 0)
				fcntl(l->keep_fds[i], F_SETFD, flags & ~FD_CLOEXEC);
		}
		sigprocmask(SIG_UNBLOCK, blocked, NULL);
		int r = hardening_child(l);
		if (r < 0) {
			dprintf(STDERR_FILENO, "agentsandbox: cannot set limits: %s\n",
			        strerror(-r));
			_exit(125);
		}
		execve(l->out_argv.v[0], l->out_argv.v, envp);
		dprintf(STDERR_FILENO, "agentsandbox: cannot run %s: %s\n", l->out_argv.v[0],
		        strerror(errno));
		_exit(125);
	}
	*out = pid;
	return 0;
}

int launch_run(struct launch *l)
{
	struct policy *p = l->policy;
	int r;
	_cleanup_free_ char *root = NULL;
	_cleanup_close_ int log_fd = -1;
	_cleanup_close_ int sfd = -1;
	pid_t child = -1;
	if ((r = session_root(getenv("XDG_STATE_HOME"), p->home, &root)) < 0) {
		err_set("cannot place the session directory: $HOME and $XDG_STATE_HOME unset");
		goto fail;
	}
	if ((r = session_create(&l->session, root, p->name.value)) < 0) {
		err_set("cannot create a session directory under %s: %s", root, strerror(-r));
		goto fail;
	}
	l->have_session = true;
	log_fd = session_open(&l->session, "launch.log");
	hardening_self();

	char **envp = build_envp(&l->plan);
	if (!envp) {
		r = -ENOMEM;
		goto fail;
	}
	sigset_t forward;
	supervisor_signal_set(&forward);
	sigprocmask(SIG_BLOCK, &forward, NULL);
	sfd = signalfd(-1, &forward, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || (r = supervisor_prepare()) < 0) {
		r = sfd < 0 ? -errno : r;
		free_envp(envp);
		goto fail;
	}
	r = spawn(l, envp, &forward, &child);
	free_envp(envp);
	if (r < 0) {
		err_set("cannot start %s: %s", l->out_argv.v[0], strerror(-r));
		goto fail;
	}
	close(l->info_fd);
	l->info_fd = -1;
	close(l->block_fd);
	l->block_fd = -1;

	/* The records are written while bubblewrap sets the sandbox up, off the
	 * path to the agent's first instruction. */
	if (log_fd >= 0)
		log_attach_file(log_fd);
	log_policy(l);
	hardening_log(l);
	if ((r = write_backend_args(l)) < 0)
		log_msg(LOG_WARN, "cannot write %s.args: %s", l->backend->name, strerror(-r));
	for (size_t i = 0; i < l->n_artifacts; i++)
		(void)session_write(&l->session, l->artifacts[i].name, l->artifacts[i].data,
		                    l->artifacts[i].len);
	int removed = session_prune(root, SESSION_KEEP);
	if (removed > 0)
		log_msg(LOG_INFO, "pruned %d old session director%s", removed,
		        removed == 1 ? "y" : "ies");
	log_msg(LOG_INFO, "started %s (pid %d)", l->out_argv.v[0], (int)child);

	if (l->block_write_fd >= 0) {
		l->sandbox_pid = supervisor_read_sandbox_pid(l->info_read_fd);
		close(l->info_read_fd);
		l->info_read_fd = -1;
		if (l->sandbox_pid > 0) {
			log_msg(LOG_INFO, "sandbox pid %d", (int)l->sandbox_pid);
			log_msg(LOG_INFO, "network: %s", network_mode_name(l->net.mode));
			r = network_wire(&l->net, p, l->session.dir, l->sandbox_pid);
			if (r >= 0)
				r = run_hook(l, "network", offsetof(struct asb_hooks, network));
			if (r >= 0)
				r = run_hook(l, "pre_exec", offsetof(struct asb_hooks, pre_exec));
			if (r < 0) {
				/* Kill the sandbox itself first: bubblewrap's child may
				 * still wait for its parent and not notice it dying. */
				kill(l->sandbox_pid, SIGKILL);
				kill(child, SIGKILL);
				waitpid(child, NULL, 0);
				goto fail;
			}
			/* Release the sandbox: it runs the agent now. */
			(void)write_all(l->block_write_fd, "x", 1);
		}
		close(l->block_write_fd);
		l->block_write_fd = -1;
	}

	/* Without hooks to run, the pid is read only when needed (a signal to
	 * forward, or to tell a setup failure from the agent's own exit). */
	int wstatus = supervisor_run(child, &l->sandbox_pid, l->info_read_fd, sfd);
	if (l->info_read_fd >= 0) {
		close(l->info_read_fd);
		l->info_read_fd = -1;
	}
	int code = wstatus < 0 ? 125 : supervisor_exit_code(wstatus);
	network_stop(&l->net);
	if (l->sandbox_pid <= 0) {
		/* The backend failed before the sandbox existed: a setup error. */
		log_msg(LOG_ERROR, "%s failed before the sandbox started (exit %d)",
		        l->backend->name, code);
		err_set("%s failed before the sandbox started (see its message above)",
		        l->backend->name);
		launch_post_exit(l, -EIO);
		return 125;
	}
	if (wstatus >= 0 && WIFSIGNALED(wstatus))
		log_msg(LOG_INFO, "sandbox ended by signal %s: exit status %d",
		        strsignal(WTERMSIG(wstatus)), code);
	else
		log_msg(LOG_INFO, "exit status %d", code);
	launch_post_exit(l, code);
	log_detach();
	return code;
fail:
	if (log_fd >= 0)
		log_attach_file(log_fd);
	log_msg(LOG_ERROR, "launch failed: %s", err_get() ? err_get() : strerror(-r));
	network_stop(&l->net);
	launch_post_exit(l, r);
	log_detach();
	return 125;
}
