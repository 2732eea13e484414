/* SPDX-License-Identifier: MIT */
/* The host function table: the only way plugins reach the core. Everything a
 * plugin passes in is copied; what goes out is borrowed for the call. */
#include "config.h"
#include "exec.h"
#include "hardening.h"
#include "launch.h"
#include "layout.h"
#include "log.h"
#include "seccomp_groups.h"
#include "spawn.h"
#include "tty.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct launch *L(struct asb_ctx *ctx)
{
	return ctx->launch;
}

static const char *pname(struct asb_ctx *ctx)
{
	return ctx->plugin ? ctx->plugin->name : "core";
}

__attribute__((format(printf, 3, 4))) static void h_log(struct asb_ctx *ctx, int level,
                                                        const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = str_vprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return;
	if (level >= ASB_LOG_ERROR) {
		/* An ERROR from a plugin is what the user must read: make it the
		 * launch's error unless a deeper one was set already. */
		err_set("%s: %s", pname(ctx), msg);
		log_msg(LOG_INFO, "%s: error: %s", pname(ctx), msg);
		return;
	}
	log_msg(level <= ASB_LOG_DEBUG  ? LOG_DEBUG
	        : level == ASB_LOG_INFO ? LOG_INFO
	                                : LOG_WARN,
	        "%s: %s", pname(ctx), msg);
}

static int h_describe(struct asb_ctx *ctx, const char *key, const char *value)
{
	return strv_push_take(&L(ctx)->describe,
	                      str_printf("%s\t%s\t%s", pname(ctx), key, value ? value : ""));
}

static config_setting_t *member(struct asb_ctx *ctx, const char *key)
{
	config_setting_t *g = ctx->plugin ? ctx->plugin->group : NULL;
	return g ? config_setting_get_member(g, key) : NULL;
}

static const struct plugin_override * override(struct asb_ctx *ctx, const char *key, uint32_t type)
{
	const struct plugin_override *o = policy_override(L(ctx)->policy, pname(ctx), key);
	return o && o->type == type ? o : NULL;
}

static int h_config_bool(struct asb_ctx *ctx, const char *key, int *out)
{
	const struct plugin_override *o = override(ctx, key, ASB_OPT_BOOL);
	if (o) {
		*out = o->value;
		return 1;
	}
	config_setting_t *s = member(ctx, key);
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		err_set("%s: plugins.%s.%s must be a boolean (true or false)", config_where(s),
		        pname(ctx), key);
		return -EINVAL;
	}
	*out = config_setting_get_bool(s);
	return 1;
}

static int h_config_int(struct asb_ctx *ctx, const char *key, int64_t *out)
{
	const struct plugin_override *o = override(ctx, key, ASB_OPT_STRING);
	if (o && o->values.n == 1) {
		char *end;
		errno = 0;
		long long v = strtoll(o->values.v[0], &end, 10);
		if (errno || end == o->values.v[0] || *end) {
			err_set("%s %s: not an integer", o->given, o->values.v[0]);
			return -EINVAL;
		}
		*out = v;
		return 1;
	}
	config_setting_t *s = member(ctx, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) {
		err_set("%s: plugins.%s.%s must be an integer", config_where(s), pname(ctx), key);
		return -EINVAL;
	}
	*out = t == CONFIG_TYPE_INT ? config_setting_get_int(s) : config_setting_get_int64(s);
	return 1;
}

static int h_config_string(struct asb_ctx *ctx, const char *key, const char **out)
{
	const struct plugin_override *o = override(ctx, key, ASB_OPT_STRING);
	if (o && o->values.n == 1) {
		*out = o->values.v[0];
		return 1;
	}
	config_setting_t *s = member(ctx, key);
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		err_set("%s: plugins.%s.%s must be a string", config_where(s), pname(ctx), key);
		return -EINVAL;
	}
	*out = config_setting_get_string(s);
	return 1;
}

static int h_config_list_count(struct asb_ctx *ctx, const char *key)
{
	const struct plugin_override *o = override(ctx, key, ASB_OPT_LIST);
	if (o)
		return (int)o->values.n;
	config_setting_t *s = member(ctx, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
		err_set("%s: plugins.%s.%s must be a list of strings [ \"...\" ]", config_where(s),
		        pname(ctx), key);
		return -EINVAL;
	}
	int n = config_setting_length(s);
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			err_set("%s: plugins.%s.%s[%d] must be a string", config_where(e),
			        pname(ctx), key, i);
			return -EINVAL;
		}
	}
	return n;
}

static int h_config_list_string(struct asb_ctx *ctx, const char *key, uint32_t index,
                                const char **out)
{
	int n = h_config_list_count(ctx, key);
	if (n < 0)
		return n;
	if (index >= (uint32_t)n)
		return -ERANGE;
	const struct plugin_override *o = override(ctx, key, ASB_OPT_LIST);
	*out = o ? o->values.v[index]
	         : config_setting_get_string(config_setting_get_elem(member(ctx, key), index));
	return 0;
}

__attribute__((format(printf, 3, 4))) static int
h_config_error(struct asb_ctx *ctx, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = str_vprintf(fmt, ap);
	va_end(ap);
	const struct plugin_override *o = policy_override(L(ctx)->policy, pname(ctx), key);
	if (o) {
		err_set("%s: %s", o->given, msg ? msg : "invalid");
		return -EINVAL;
	}
	config_setting_t *s = member(ctx, key);
	const char *where = s                             ? config_where(s)
	                    : L(ctx)->policy->config_file ? L(ctx)->policy->config_file
	                                                  : "(config)";
	err_set("%s: plugins.%s.%s: %s", where, pname(ctx), key, msg ? msg : "invalid");
	return -EINVAL;
}

static const char *h_policy_string(struct asb_ctx *ctx, const char *key)
{
	struct launch *l = L(ctx);
	const struct policy *p = l->policy;
	if (strcmp(key, "workspace") == 0)
		return p->workspace.value;
	if (strcmp(key, "home") == 0)
		return p->home;
	if (strcmp(key, "user") == 0)
		return p->user;
	if (strcmp(key, "launch_dir") == 0)
		return p->launch_dir;
	if (strcmp(key, "config_file") == 0)
		return p->config_file;
	/* Reserved before configure (created from prepare on; a dry run's is
	 * ".../<session>"). */
	if (strcmp(key, "session_dir") == 0)
		return l->session.dir;
	if (strcmp(key, "session_id") == 0)
		return l->session.dir ? l->session.id : NULL;
	if (strcmp(key, "private_dir") == 0) {
		if (!ctx->plugin)
			return NULL;
		/* Made for the plugins that ask (launch_make_private_dir). */
		ctx->plugin->private_wanted = true;
		if (launch_make_private_dir(l, ctx->plugin) < 0)
			return NULL;
		return ctx->plugin->private_dir;
	}
	if (strcmp(key, "name") == 0)
		return p->name.value;
	if (strcmp(key, "command") == 0)
		return p->command.value;
	if (strcmp(key, "backend") == 0)
		return p->backend.value;
	return NULL;
}

static int h_policy_int(struct asb_ctx *ctx, const char *key, int64_t *out)
{
	const struct launch *l = L(ctx);
	const struct policy *p = l->policy;
	if (strcmp(key, "unix_sockets") == 0)
		*out = p->unix_sockets.value;
	else if (strcmp(key, "is_root") == 0)
		*out = p->uid == 0;
	else if (strcmp(key, "uid") == 0)
		*out = p->uid;
	else if (strcmp(key, "gid") == 0)
		*out = p->gid;
	else if (strcmp(key, "dry_run") == 0)
		*out = l->dry_run;
	else if (strcmp(key, "hold") == 0)
		*out = l->hold;
	else if (strcmp(key, "backend_caps") == 0)
		*out = (int64_t)l->caps;
	else
		return -ENOENT;
	return 0;
}

static const struct plist *policy_list(struct asb_ctx *ctx, const char *key)
{
	const struct policy *p = L(ctx)->policy;
	if (strcmp(key, "packages") == 0)
		return &p->packages;
	if (strcmp(key, "rw_dirs") == 0)
		return &p->rw_dirs;
	if (strcmp(key, "rw_files") == 0)
		return &p->rw_files;
	if (strcmp(key, "ro_dirs") == 0)
		return &p->ro_dirs;
	if (strcmp(key, "ro_files") == 0)
		return &p->ro_files;
	if (strcmp(key, "args") == 0)
		return &p->args;
	return NULL;
}

static int h_policy_list_count(struct asb_ctx *ctx, const char *key)
{
	const struct plist *l = policy_list(ctx, key);
	return l ? (int)l->items.n : -ENOENT;
}

static const char *h_policy_list_get(struct asb_ctx *ctx, const char *key, uint32_t index)
{
	const struct plist *l = policy_list(ctx, key);
	return l && index < l->items.n ? l->items.v[index] : NULL;
}

static int h_confirm(struct asb_ctx *ctx, const char *question)
{
	(void)ctx;
	return tty_confirm(question);
}

static int h_find_executable(struct asb_ctx *ctx, const char *name, char *out, size_t out_len)
{
	(void)ctx;
	_cleanup_free_ char *path = NULL;
	int r = exec_find(name, getenv("PATH"), false, &path);
	if (r < 0)
		return r;
	if (strlen(path) >= out_len)
		return -ENAMETOOLONG;
	memcpy(out, path, strlen(path) + 1);
	return 0;
}

/* Plan changes: until the plan is final, and never under the core's own
 * directory. A late change fails the launch loudly. */
static int may_change(struct asb_ctx *ctx, const char *dest, const char *what)
{
	struct launch *l = L(ctx);
	if (l->stage > STAGE_PLANNING || l->plan.final) {
		err_set("plugin %s: %s after the plan is final (the plan is made in configure, "
		        "pre_mount and env)",
		        pname(ctx), what);
		return -EBUSY;
	}
	if (dest && path_is_within(dest, PLAN_RUN_DIR)) {
		err_set("plugin %s: %s at %s: %s belongs to the core", pname(ctx), what, dest,
		        PLAN_RUN_DIR);
		return -EPERM;
	}
	return 0;
}

static int h_plan_path(struct asb_ctx *ctx, uint32_t type, const char *host_path, const char *dest,
                       uint32_t flags)
{
	int r = may_change(ctx, dest ? dest : host_path, "a path");
	if (r < 0)
		return r;
	if (!host_path || host_path[0] != '/')
		return -EINVAL;
	return plan_path(&L(ctx)->plan, type, host_path, dest,
	                 flags & (ASB_ENTRY_F_TRY | ASB_ENTRY_F_EXEC), pname(ctx));
}

static int h_plan_entry(struct asb_ctx *ctx, const struct asb_entry *e)
{
	if (!e || e->struct_size < offsetof(struct asb_entry, data_len) + sizeof(e->data_len))
		return -EINVAL;
	int r = may_change(ctx, e->dest, "an entry");
	if (r < 0)
		return r;
	if (e->type == ASB_ENTRY_READ || e->type == ASB_ENTRY_WRITE || e->type == ASB_ENTRY_DEVICE)
		return h_plan_path(ctx, e->type, e->host_path, e->dest, e->flags);
	if (e->data_len > 16 * 1024 * 1024)
		return -E2BIG;
	return plan_entry(&L(ctx)->plan, e->type, e->flags, e->mode, e->host_path, e->dest, e->data,
	                  (size_t)e->data_len, pname(ctx));
}

static int h_plan_add_executable(struct asb_ctx *ctx, const char *name, const char *host_path)
{
	int r = may_change(ctx, NULL, "an executable");
	if (r < 0)
		return r;
	if (!host_path || host_path[0] != '/')
		return -EINVAL;
	return layout_add_executable(&L(ctx)->plan, L(ctx)->policy, name, host_path, pname(ctx));
}

static int h_plan_setenv(struct asb_ctx *ctx, const char *key, const char *value)
{
	int r = may_change(ctx, NULL, "an environment variable");
	return r < 0 ? r : plan_setenv(&L(ctx)->plan, key, value);
}

static int h_plan_unsetenv(struct asb_ctx *ctx, const char *key)
{
	int r = may_change(ctx, NULL, "an environment variable");
	return r < 0 ? r : plan_unsetenv(&L(ctx)->plan, key);
}

static int h_plan_seccomp_allow(struct asb_ctx *ctx, const char *group)
{
	if (!group || seccomp_group_lookup(group) < 0)
		return -ENOENT;
	int r = may_change(ctx, NULL, "a seccomp exception");
	if (r < 0)
		return r;
	struct plan *plan = &L(ctx)->plan;
	if (!plan_seccomp_allowed(plan, group))
		log_msg(LOG_INFO, "seccomp: %s lifts the \"%s\" group (%s)", pname(ctx), group,
		        seccomp_group_what(seccomp_group_lookup(group)));
	return plan_seccomp_allow(plan, group, pname(ctx));
}

static int h_plan_entry_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.n_entries;
}

/* Copy `full` into a caller's struct that may be older (shorter). */
#define FILL_OUT(out, full)                                                                        \
	do {                                                                                       \
		uint32_t _size = (out)->struct_size;                                               \
		if (_size > sizeof(full))                                                          \
			_size = sizeof(full);                                                      \
		(full).struct_size = _size;                                                        \
		memcpy((out), &(full), _size);                                                     \
	} while (0)

static int h_plan_entry_get(struct asb_ctx *ctx, uint32_t index, struct asb_entry *out)
{
	const struct plan *plan = &L(ctx)->plan;
	if (!out || out->struct_size < offsetof(struct asb_entry, origin) + sizeof(void *))
		return -EINVAL;
	if (index >= plan->n_entries)
		return -ERANGE;
	const struct plan_entry *e = &plan->entries[index];
	struct asb_entry full = {
	    .type = e->type,
	    .flags = e->flags,
	    .mode = e->mode,
	    .fd = e->fd,
	    .host_path = e->host_path,
	    .dest = e->dest,
	    .origin = e->origin,
	    .data = e->data,
	    .data_len = e->data_len,
	};
	FILL_OUT(out, full);
	return 0;
}

static int h_plan_exec_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.n_execs;
}

static int h_plan_exec_get(struct asb_ctx *ctx, uint32_t index, struct asb_exec *out)
{
	const struct plan *plan = &L(ctx)->plan;
	if (!out || out->struct_size < offsetof(struct asb_exec, host_path) + sizeof(void *))
		return -EINVAL;
	if (index >= plan->n_execs)
		return -ERANGE;
	struct asb_exec full = {
	    .name = plan->execs[index].name,
	    .host_path = plan->execs[index].target,
	    .origin = plan->execs[index].origin,
	};
	FILL_OUT(out, full);
	return 0;
}

static int h_plan_env_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.n_env;
}

static int h_plan_env_get(struct asb_ctx *ctx, uint32_t index, const char **key, const char **value)
{
	const struct plan *plan = &L(ctx)->plan;
	if (index >= plan->n_env)
		return -ERANGE;
	*key = plan->env[index].key;
	*value = plan->env[index].value;
	return 0;
}

static int h_plan_argv_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.argv.n;
}

static const char *h_plan_argv_get(struct asb_ctx *ctx, uint32_t index)
{
	const struct plan *plan = &L(ctx)->plan;
	return index < plan->argv.n ? plan->argv.v[index] : NULL;
}

static const char *h_plan_chdir(struct asb_ctx *ctx)
{
	return L(ctx)->plan.chdir;
}

static int h_plan_network(struct asb_ctx *ctx, struct asb_network *out)
{
	const struct plan *plan = &L(ctx)->plan;
	if (!out || out->struct_size < offsetof(struct asb_network, proxy_port) + 2)
		return -EINVAL;
	struct asb_network full = {
	    .mode = plan->net_mode,
	    .flags = plan->net_flags,
	    .proxy_port = plan->proxy_port,
	    .n_host_ports = (uint32_t)plan->n_host_ports,
	    .n_published_ports = (uint32_t)plan->n_published_ports,
	    .host_ports = plan->host_ports,
	    .published_ports = plan->published_ports,
	};
	FILL_OUT(out, full);
	return 0;
}

static uint32_t h_plan_hardening(struct asb_ctx *ctx)
{
	return L(ctx)->plan.hardening;
}

static int h_plan_limit_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.n_limits;
}

static int h_plan_limit_get(struct asb_ctx *ctx, uint32_t index, struct asb_limit *out)
{
	const struct plan *plan = &L(ctx)->plan;
	if (!out || out->struct_size < sizeof(struct asb_limit))
		return -EINVAL;
	if (index >= plan->n_limits)
		return -ERANGE;
	struct asb_limit full = plan->limits[index];
	FILL_OUT(out, full);
	return 0;
}

static int h_plan_seccomp_group_count(struct asb_ctx *ctx)
{
	(void)ctx;
	return SECCOMP_G_COUNT;
}

static int h_plan_seccomp_group_get(struct asb_ctx *ctx, uint32_t index,
                                    struct asb_seccomp_group *out)
{
	const struct plan *plan = &L(ctx)->plan;
	if (!out ||
	    out->struct_size < offsetof(struct asb_seccomp_group, lifted_by) + sizeof(void *))
		return -EINVAL;
	if (index >= SECCOMP_G_COUNT)
		return -ERANGE;
	const char *by = hardening_group_lifted_by(L(ctx), (int)index);
	struct asb_seccomp_group full = {
	    .denied = !(plan->seccomp_lifted & (1u << index)),
	    .name = seccomp_group_name((int)index),
	    .what = seccomp_group_what((int)index),
	    .lifted_by = by,
	};
	FILL_OUT(out, full);
	return 0;
}

static bool is_building(struct asb_ctx *ctx)
{
	return ctx->plugin == L(ctx)->backend && L(ctx)->stage == STAGE_BUILDING;
}

static int h_out_arg(struct asb_ctx *ctx, const char *arg)
{
	if (!is_building(ctx))
		return -EBUSY;
	return strv_push(&L(ctx)->out_argv, arg);
}

static int h_out_keep_fd(struct asb_ctx *ctx, int fd)
{
	struct launch *l = L(ctx);
	if (!is_building(ctx))
		return -EBUSY;
	if (fd < 0)
		return -EBADF;
	for (size_t i = 0; i < l->n_keep_fds; i++)
		if (l->keep_fds[i] == fd)
			return 0;
	int *n = realloc(l->keep_fds, (l->n_keep_fds + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->keep_fds = n;
	n[l->n_keep_fds++] = fd;
	return 0;
}

static int h_out_artifact(struct asb_ctx *ctx, const char *name, const char *data, size_t len)
{
	struct launch *l = L(ctx);
	if (!is_building(ctx))
		return -EBUSY;
	if (!name || !*name || strchr(name, '/') || name[0] == '.' ||
	    strcmp(name, "launch.log") == 0 || strcmp(name, "private") == 0)
		return -EINVAL;
	struct artifact *n = realloc(l->artifacts, (l->n_artifacts + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->artifacts = n;
	struct artifact a = {strdup(name), malloc(len + 1), len};
	if (!a.name || !a.data) {
		free(a.name);
		free(a.data);
		return -ENOMEM;
	}
	memcpy(a.data, data, len);
	a.data[len] = '\0';
	l->artifacts[l->n_artifacts++] = a;
	return 0;
}

static int h_sandbox_started(struct asb_ctx *ctx, const struct asb_sandbox *sb)
{
	struct launch *l = L(ctx);
	if (ctx->plugin != l->backend || l->stage != STAGE_RUNNING)
		return -EBUSY;
	if (!sb || sb->struct_size < offsetof(struct asb_sandbox, netns_fd) + sizeof(int32_t) ||
	    sb->pid <= 0)
		return -EINVAL;
	if (l->sandbox_netns_fd >= 0)
		close(l->sandbox_netns_fd);
	l->sandbox_netns_fd = -1;
	if (sb->netns_fd >= 0 &&
	    (l->sandbox_netns_fd = fcntl(sb->netns_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	l->sandbox_pid = (pid_t)sb->pid;
	l->sandbox_known = true;
	log_msg(LOG_INFO, "sandbox pid %d", (int)l->sandbox_pid);
	return 0;
}

static int h_sandbox_pid(struct asb_ctx *ctx, int64_t *out)
{
	if (!L(ctx)->sandbox_known)
		return -ESRCH;
	*out = L(ctx)->sandbox_pid;
	return 0;
}

static int h_run_program(struct asb_ctx *ctx, const char *const *argv, const char *const *envp,
                         int *wstatus, char *out, size_t out_len)
{
	(void)ctx;
	if (!argv || !argv[0] || argv[0][0] != '/' || !wstatus)
		return -EINVAL;
	return spawn_run(argv, envp, log_fd() >= 0, wstatus, out, out_len);
}

static int h_spawn_program(struct asb_ctx *ctx, const char *const *argv, const char *const *envp,
                           const int *keep_fds, uint32_t n_keep_fds, int64_t *pid)
{
	struct launch *l = L(ctx);
	if (ctx->plugin != l->backend || l->stage != STAGE_RUNNING || !pid)
		return -EBUSY;
	struct limits_set set;
	int r = limits_resolve(l->policy, &set);
	if (r < 0)
		return r;
	struct spawn_opts o = {.keep_fds = keep_fds,
	                       .n_keep_fds = n_keep_fds,
	                       .limits = &set,
	                       .no_new_privs = true,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .term = &l->term};
	pid_t p;
	if ((r = spawn_exec(argv, envp, &o, &p)) < 0)
		return r;
	l->term_given = true;
	*pid = p;
	return 0;
}

static int h_net_namespace_new(struct asb_ctx *ctx, int *fd)
{
	(void)ctx;
	return fd ? platform_netns_new(fd) : -EINVAL;
}

static const struct asb_host table = {
    .struct_size = sizeof(struct asb_host),
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .log = h_log,
    .describe = h_describe,
    .config_bool = h_config_bool,
    .config_int = h_config_int,
    .config_string = h_config_string,
    .config_list_count = h_config_list_count,
    .config_list_string = h_config_list_string,
    .config_error = h_config_error,
    .policy_string = h_policy_string,
    .policy_int = h_policy_int,
    .policy_list_count = h_policy_list_count,
    .policy_list_get = h_policy_list_get,
    .confirm = h_confirm,
    .find_executable = h_find_executable,
    .plan_path = h_plan_path,
    .plan_entry = h_plan_entry,
    .plan_add_executable = h_plan_add_executable,
    .plan_setenv = h_plan_setenv,
    .plan_unsetenv = h_plan_unsetenv,
    .plan_seccomp_allow = h_plan_seccomp_allow,
    .plan_entry_count = h_plan_entry_count,
    .plan_entry_get = h_plan_entry_get,
    .plan_exec_count = h_plan_exec_count,
    .plan_exec_get = h_plan_exec_get,
    .plan_env_count = h_plan_env_count,
    .plan_env_get = h_plan_env_get,
    .plan_argv_count = h_plan_argv_count,
    .plan_argv_get = h_plan_argv_get,
    .plan_chdir = h_plan_chdir,
    .plan_network = h_plan_network,
    .plan_hardening = h_plan_hardening,
    .plan_limit_count = h_plan_limit_count,
    .plan_limit_get = h_plan_limit_get,
    .plan_seccomp_group_count = h_plan_seccomp_group_count,
    .plan_seccomp_group_get = h_plan_seccomp_group_get,
    .out_arg = h_out_arg,
    .out_keep_fd = h_out_keep_fd,
    .out_artifact = h_out_artifact,
    .sandbox_started = h_sandbox_started,
    .sandbox_pid = h_sandbox_pid,
    .run_program = h_run_program,
    .spawn_program = h_spawn_program,
    .net_namespace_new = h_net_namespace_new,
};

const struct asb_host *host_table(void)
{
	return &table;
}
