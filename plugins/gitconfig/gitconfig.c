/* SPDX-License-Identifier: MIT */
/*
 * gitconfig: the user's own git configuration inside, read-only.
 *
 * plugins.gitconfig.allow = true (--allow-git) binds ~/.gitconfig and
 * ${XDG_CONFIG_HOME:-~/.config}/git/{config,ignore,attributes} read-only
 * (the XDG ones at ~/.config/git inside, where git looks there): identity,
 * aliases, signing and credential helper settings. Files they include
 * elsewhere are not followed. The credentials themselves (~/.git-credentials,
 * ${XDG_CONFIG_HOME}/git/credentials, plain-text tokens of the "store"
 * helper) stay out unless plugins.gitconfig.credentials = true
 * (--allow-git-credentials), which binds them read-only with a warning:
 * every token in them is then the agent's. The filtering proxy can inject
 * a token per domain instead (network.allowed_domains).
 */
#include "util.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct gitconfig {
	bool allow, credentials;
	struct strv shown;
};

static int gc_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	*data = calloc(1, sizeof(struct gitconfig));
	return *data ? 0 : -ENOMEM;
}

static void gc_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct gitconfig *g = data;
	if (g)
		strv_clear(&g->shown);
	free(g);
}

static int gc_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gitconfig *g = data;
	int b = 0, r;
	if ((r = host->config_bool(ctx, "allow", &b)) < 0)
		return r;
	g->allow = r == 1 && b;
	if ((r = host->config_bool(ctx, "credentials", &b)) < 0)
		return r;
	g->credentials = r == 1 && b;
	if (g->credentials && !g->allow) {
		host->log(ctx, ASB_LOG_ERROR,
		          "--allow-git-credentials needs --allow-git (plugins.gitconfig.allow)");
		return -EINVAL;
	}
	if (g->credentials)
		host->log(ctx, ASB_LOG_WARN,
		          "--allow-git-credentials: every token in ~/.git-credentials is readable "
		          "by the agent (the filtering proxy can inject one per domain instead)");
	return 0;
}

static int bind(const struct asb_host *host, struct asb_ctx *ctx, struct gitconfig *g,
                const char *src, const char *dest, const char *why)
{
	struct stat st;
	if (stat(src, &st) < 0)
		return 0;
	int r = host->plan_path(ctx, ASB_ENTRY_READ, src, dest, ASB_ENTRY_F_TRY);
	if (r < 0)
		return r;
	char *line = dest && strcmp(src, dest) != 0
	                 ? str_printf("mount\t%s: read-only, from %s (%s)", dest, src, why)
	                 : str_printf("mount\t%s: read-only (%s)", src, why);
	return strv_push_take(&g->shown, line);
}

static int gc_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gitconfig *g = data;
	if (!g->allow)
		return 0;
	const char *home = host->policy_string(ctx, "home");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (!home)
		return -EINVAL;
	char hxdg[PATH_MAX], src[PATH_MAX + 64], dest[PATH_MAX + 64];
	snprintf(hxdg, sizeof(hxdg), "%s", xdg && xdg[0] == '/' ? xdg : "");
	if (!hxdg[0])
		snprintf(hxdg, sizeof(hxdg), "%s/.config", home);
	int r;
	snprintf(src, sizeof(src), "%s/.gitconfig", home);
	if ((r = bind(host, ctx, g, src, NULL, "git's global configuration")) < 0)
		return r;
	static const char *const xdg_files[] = {"config", "ignore", "attributes", NULL};
	for (const char *const *f = xdg_files; *f; f++) {
		snprintf(src, sizeof(src), "%s/git/%s", hxdg, *f);
		snprintf(dest, sizeof(dest), "%s/.config/git/%s", home, *f);
		if ((r = bind(host, ctx, g, src, dest, "git's XDG configuration")) < 0)
			return r;
	}
	if (!g->credentials)
		return strv_push(&g->shown, "credentials\tnot bound (--allow-git-credentials)");
	snprintf(src, sizeof(src), "%s/.git-credentials", home);
	if ((r = bind(host, ctx, g, src, NULL, "the store helper's tokens: the agent's now")) < 0)
		return r;
	snprintf(src, sizeof(src), "%s/git/credentials", hxdg);
	snprintf(dest, sizeof(dest), "%s/.config/git/credentials", home);
	return bind(host, ctx, g, src, dest, "the store helper's tokens: the agent's now");
}

static int gc_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct gitconfig *g = data;
	int r = host->describe(ctx, "allow", g->allow ? "true" : "false (--allow-git)");
	for (size_t i = 0; r >= 0 && i < g->shown.n; i++) {
		char *tab = strchr(g->shown.v[i], '\t');
		if (!tab)
			continue;
		*tab = '\0';
		r = host->describe(ctx, g->shown.v[i], tab + 1);
		*tab = '\t';
	}
	return r;
}

static const struct asb_hooks gc_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = gc_configure,
    .pre_mount = gc_pre_mount,
    .describe = gc_describe,
};

static const char *const gc_config_keys[] = {"allow", "credentials", NULL};

static const struct asb_option gc_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow",
     .flag = "allow-git",
     .env = "ALLOW_GIT",
     .help = "your git configuration read-only (~/.gitconfig, ~/.config/git/config, "
             "ignore, attributes)"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "credentials",
     .flag = "allow-git-credentials",
     .env = "ALLOW_GIT_CREDENTIALS",
     .help = "also ~/.git-credentials read-only (its tokens become the agent's)"},
    {0},
};

static const struct asb_plugin gc_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "gitconfig",
    .version = "0.1.0",
    .description = "your git configuration, read-only",
    .config_keys = gc_config_keys,
    .options = gc_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = gc_init,
    .fini = gc_fini,
    .hooks = &gc_hooks,
};

ASB_PLUGIN_DEFINE(gc_plugin)
