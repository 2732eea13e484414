/* SPDX-License-Identifier: MIT */
#include "mock_host.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ASB_PRINTF(3, 4) static void m_log(struct asb_ctx *ctx, int level, const char *fmt, ...)
{
	size_t used = strlen(ctx->log);
	va_list ap;
	va_start(ap, fmt);
	snprintf(ctx->log + used, sizeof(ctx->log) - used, "%d: ", level);
	used = strlen(ctx->log);
	vsnprintf(ctx->log + used, sizeof(ctx->log) - used, fmt, ap);
	va_end(ap);
	used = strlen(ctx->log);
	snprintf(ctx->log + used, sizeof(ctx->log) - used, "\n");
}

static int m_describe(struct asb_ctx *ctx, const char *key, const char *value)
{
	(void)ctx;
	(void)key;
	(void)value;
	return 0;
}

static int m_config_string(struct asb_ctx *ctx, const char *key, const char **out)
{
	if (strcmp(key, "platform") == 0 && ctx->config_platform) {
		*out = ctx->config_platform;
		return 1;
	}
	return 0;
}

ASB_PRINTF(3, 4)
static int m_config_error(struct asb_ctx *ctx, const char *key, const char *fmt, ...)
{
	(void)key;
	(void)fmt;
	m_log(ctx, ASB_LOG_ERROR, "config error");
	return -EINVAL;
}

static const char *m_policy_string(struct asb_ctx *ctx, const char *key)
{
	if (strcmp(key, "private_dir") == 0)
		return ctx->private_dir;
	if (strcmp(key, "session_id") == 0)
		return ctx->session_id;
	return NULL;
}

static int m_policy_int(struct asb_ctx *ctx, const char *key, int64_t *out)
{
	if (strcmp(key, "uid") == 0)
		*out = ctx->uid;
	else if (strcmp(key, "gid") == 0)
		*out = ctx->gid;
	else if (strcmp(key, "is_root") == 0)
		*out = ctx->is_root;
	else if (strcmp(key, "hold") == 0)
		*out = ctx->hold;
	else if (strcmp(key, "dry_run") == 0)
		*out = ctx->dry_run;
	else
		return -ENOENT;
	return 0;
}

static int m_entry_count(struct asb_ctx *ctx)
{
	return (int)ctx->n_entries;
}

static int m_entry_get(struct asb_ctx *ctx, uint32_t i, struct asb_entry *out)
{
	if (i >= ctx->n_entries)
		return -ENOENT;
	*out = ctx->entries[i];
	return 0;
}

static int m_exec_count(struct asb_ctx *ctx)
{
	return (int)ctx->n_execs;
}

static int m_exec_get(struct asb_ctx *ctx, uint32_t i, struct asb_exec *out)
{
	if (i >= ctx->n_execs)
		return -ENOENT;
	*out = ctx->execs[i];
	return 0;
}

static int m_env_count(struct asb_ctx *ctx)
{
	return (int)ctx->n_env;
}

static int m_env_get(struct asb_ctx *ctx, uint32_t i, const char **k, const char **v)
{
	if (i >= ctx->n_env)
		return -ENOENT;
	*k = ctx->env_keys[i];
	*v = ctx->env_values[i];
	return 0;
}

static int m_argv_count(struct asb_ctx *ctx)
{
	return (int)ctx->n_argv;
}

static const char *m_argv_get(struct asb_ctx *ctx, uint32_t i)
{
	return i < ctx->n_argv ? ctx->argv[i] : NULL;
}

static const char *m_chdir(struct asb_ctx *ctx)
{
	return ctx->chdir;
}

static int m_network(struct asb_ctx *ctx, struct asb_network *out)
{
	*out = ctx->net;
	out->struct_size = sizeof(*out);
	return 0;
}

static int m_limit_count(struct asb_ctx *ctx)
{
	return (int)ctx->n_limits;
}

static int m_limit_get(struct asb_ctx *ctx, uint32_t i, struct asb_limit *out)
{
	if (i >= ctx->n_limits)
		return -ENOENT;
	*out = ctx->limits[i];
	return 0;
}

static int m_out_arg(struct asb_ctx *ctx, const char *arg)
{
	if (ctx->n_args >= 256)
		return -E2BIG;
	ctx->args[ctx->n_args++] = strdup(arg);
	return 0;
}

static int m_out_artifact(struct asb_ctx *ctx, const char *name, const char *data, size_t len)
{
	(void)name;
	free(ctx->artifact);
	ctx->artifact = malloc(len + 1);
	memcpy(ctx->artifact, data, len);
	ctx->artifact[len] = '\0';
	ctx->artifact_len = len;
	return 0;
}

static const struct asb_host table = {
    .struct_size = sizeof(struct asb_host),
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .log = m_log,
    .describe = m_describe,
    .config_string = m_config_string,
    .config_error = m_config_error,
    .policy_string = m_policy_string,
    .policy_int = m_policy_int,
    .plan_entry_count = m_entry_count,
    .plan_entry_get = m_entry_get,
    .plan_exec_count = m_exec_count,
    .plan_exec_get = m_exec_get,
    .plan_env_count = m_env_count,
    .plan_env_get = m_env_get,
    .plan_argv_count = m_argv_count,
    .plan_argv_get = m_argv_get,
    .plan_chdir = m_chdir,
    .plan_network = m_network,
    .plan_limit_count = m_limit_count,
    .plan_limit_get = m_limit_get,
    .out_arg = m_out_arg,
    .out_artifact = m_out_artifact,
};

const struct asb_host *mock_host(void)
{
	return &table;
}

void mock_free(struct asb_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_args; i++)
		free(ctx->args[i]);
	free(ctx->artifact);
	memset(ctx, 0, sizeof(*ctx));
}

void mock_reset(struct asb_ctx *ctx)
{
	mock_free(ctx);
	ctx->private_dir = "/priv";
	ctx->session_id = "0000-1111";
	ctx->is_root = 1;
	ctx->argv[ctx->n_argv++] = "/run/agentsandbox/bin/bash";
	ctx->net.mode = ASB_NET_OFF;
}

void mock_entry(struct asb_ctx *ctx, uint32_t type, const char *host_path, const char *dest,
                uint32_t flags)
{
	struct asb_entry *e = &ctx->entries[ctx->n_entries++];
	memset(e, 0, sizeof(*e));
	e->struct_size = sizeof(*e);
	e->type = type;
	e->flags = flags;
	e->fd = -1;
	e->host_path = host_path;
	e->dest = dest;
	e->origin = "test";
}
