/* SPDX-License-Identifier: MIT */
/* The host function table: the only way plugins reach the core. Everything a
 * plugin passes in is copied; what goes out is borrowed for the call. */
#include "config.h"
#include "launch.h"
#include "layout.h"
#include "log.h"
#include "syscall_filter.h"

#include <errno.h>
#include <fcntl.h>
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

static config_setting_t *member(struct asb_ctx *ctx, const char *key)
{
	config_setting_t *g = ctx->plugin ? ctx->plugin->group : NULL;
	return g ? config_setting_get_member(g, key) : NULL;
}

static int h_config_bool(struct asb_ctx *ctx, const char *key, int *out)
{
	int v = policy_plugin_override(L(ctx)->policy, pname(ctx), key, NULL);
	if (v >= 0) {
		*out = v;
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
	*out = config_setting_get_string(config_setting_get_elem(member(ctx, key), index));
	return 0;
}

__attribute__((format(printf, 3, 4))) static int
h_config_error(struct asb_ctx *ctx, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = str_vprintf(fmt, ap);
	va_end(ap);
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
	if (strcmp(key, "session_dir") == 0)
		return l->have_session ? l->session.dir : NULL;
	if (strcmp(key, "session_id") == 0)
		return l->have_session ? l->session.id : NULL;
	if (strcmp(key, "name") == 0)
		return p->name.value;
	if (strcmp(key, "command") == 0)
		return p->command.value;
	if (strcmp(key, "backend") == 0)
		return p->backend.value;
	if (strcmp(key, "tmpdir") == 0)
		return "/tmp";
	return NULL;
}

static int h_policy_int(struct asb_ctx *ctx, const char *key, int64_t *out)
{
	const struct policy *p = L(ctx)->policy;
	if (strcmp(key, "unix_sockets") == 0)
		*out = p->unix_sockets.value;
	else if (strcmp(key, "network_enabled") == 0)
		*out = p->network_enabled.value;
	else if (strcmp(key, "is_root") == 0)
		*out = p->uid == 0;
	else if (strcmp(key, "uid") == 0)
		*out = p->uid;
	else if (strcmp(key, "gid") == 0)
		*out = p->gid;
	else if (strcmp(key, "dry_run") == 0)
		*out = L(ctx)->dry_run;
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

static int h_plan_add_mount(struct asb_ctx *ctx, const struct asb_mount *m)
{
	if (!m || m->struct_size < offsetof(struct asb_mount, origin))
		return -EINVAL;
	return plan_add_mount(&L(ctx)->plan, m->type, m->flags, m->mode, m->fd, m->source, m->dest,
	                      pname(ctx));
}

static int h_plan_bind(struct asb_ctx *ctx, uint32_t type, const char *host_path, const char *dest,
                       uint32_t flags)
{
	if (!host_path || host_path[0] != '/')
		return -EINVAL;
	return plan_bind(&L(ctx)->plan, type, host_path, dest, flags, pname(ctx));
}

static int h_plan_add_data(struct asb_ctx *ctx, const char *dest, const void *data, size_t len,
                           uint32_t mode)
{
	return plan_add_data(&L(ctx)->plan, dest, data, len, mode, pname(ctx));
}

static int h_plan_setenv(struct asb_ctx *ctx, const char *key, const char *value)
{
	return plan_setenv(&L(ctx)->plan, key, value);
}

static int h_plan_unsetenv(struct asb_ctx *ctx, const char *key)
{
	return plan_unsetenv(&L(ctx)->plan, key);
}

static int h_plan_add_executable(struct asb_ctx *ctx, const char *name, const char *host_path)
{
	if (!host_path || host_path[0] != '/')
		return -EINVAL;
	return layout_add_executable(&L(ctx)->plan, L(ctx)->policy, name, host_path, pname(ctx));
}

static int h_describe(struct asb_ctx *ctx, const char *key, const char *value)
{
	return strv_push_take(&L(ctx)->describe,
	                      str_printf("%s\t%s\t%s", pname(ctx), key, value ? value : ""));
}

static int h_plan_mount_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.n_mounts;
}

static int h_plan_mount_get(struct asb_ctx *ctx, uint32_t index, struct asb_mount *out)
{
	const struct plan *plan = &L(ctx)->plan;
	if (!out || out->struct_size < offsetof(struct asb_mount, origin))
		return -EINVAL;
	if (index >= plan->n_mounts)
		return -ERANGE;
	const struct plan_mount *m = &plan->mounts[index];
	uint32_t size = out->struct_size;
	if (size > sizeof(*out))
		size = sizeof(*out);
	struct asb_mount full = {
	    .struct_size = size,
	    .type = m->type,
	    .flags = m->flags,
	    .mode = m->mode,
	    .fd = m->fd,
	    .source = m->source,
	    .dest = m->dest,
	    .origin = m->origin,
	};
	memcpy(out, &full, size);
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

static uint32_t h_plan_flags(struct asb_ctx *ctx)
{
	return L(ctx)->plan.flags;
}

static int h_runtime_fd(struct asb_ctx *ctx, const char *name)
{
	struct launch *l = L(ctx);
	if (strcmp(name, "info") == 0 && l->info_fd >= 0)
		return l->info_fd;
	if (strcmp(name, "block") == 0 && l->block_fd >= 0)
		return l->block_fd;
	return -ENOENT;
}

static int h_out_arg(struct asb_ctx *ctx, const char *arg)
{
	return strv_push(&L(ctx)->out_argv, arg);
}

static int h_out_keep_fd(struct asb_ctx *ctx, int fd)
{
	struct launch *l = L(ctx);
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
	if (!name || !*name || strchr(name, '/') || name[0] == '.')
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

static int h_sandbox_pid(struct asb_ctx *ctx, int64_t *out)
{
	if (L(ctx)->sandbox_pid <= 0)
		return -ESRCH;
	*out = L(ctx)->sandbox_pid;
	return 0;
}

static int h_plan_seccomp_allow(struct asb_ctx *ctx, const char *group)
{
	struct plan *plan = &L(ctx)->plan;
	if (!group || seccomp_group_lookup(group) < 0)
		return -ENOENT;
	if (plan->finished || plan->n_seccomp_fds > 0)
		return -EBUSY;
	if (!plan_seccomp_allowed(plan, group))
		log_msg(LOG_INFO, "seccomp: %s lifts the \"%s\" group (%s)", pname(ctx), group,
		        seccomp_group_what(seccomp_group_lookup(group)));
	return plan_seccomp_allow(plan, group, pname(ctx));
}

static int h_plan_seccomp_count(struct asb_ctx *ctx)
{
	return (int)L(ctx)->plan.n_seccomp_fds;
}

static int h_plan_seccomp_fd(struct asb_ctx *ctx, uint32_t index)
{
	const struct plan *plan = &L(ctx)->plan;
	return index < plan->n_seccomp_fds ? plan->seccomp_fds[index] : -ERANGE;
}

static const struct asb_host table = {
    .struct_size = sizeof(struct asb_host),
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .log = h_log,
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
    .plan_add_mount = h_plan_add_mount,
    .plan_bind = h_plan_bind,
    .plan_add_data = h_plan_add_data,
    .plan_setenv = h_plan_setenv,
    .plan_unsetenv = h_plan_unsetenv,
    .plan_add_executable = h_plan_add_executable,
    .describe = h_describe,
    .plan_mount_count = h_plan_mount_count,
    .plan_mount_get = h_plan_mount_get,
    .plan_env_count = h_plan_env_count,
    .plan_env_get = h_plan_env_get,
    .plan_argv_count = h_plan_argv_count,
    .plan_argv_get = h_plan_argv_get,
    .plan_chdir = h_plan_chdir,
    .plan_flags = h_plan_flags,
    .runtime_fd = h_runtime_fd,
    .out_arg = h_out_arg,
    .out_keep_fd = h_out_keep_fd,
    .out_artifact = h_out_artifact,
    .sandbox_pid = h_sandbox_pid,
    .plan_seccomp_allow = h_plan_seccomp_allow,
    .plan_seccomp_count = h_plan_seccomp_count,
    .plan_seccomp_fd = h_plan_seccomp_fd,
};

const struct asb_host *host_table(void)
{
	return &table;
}
