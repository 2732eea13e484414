/* SPDX-License-Identifier: MIT */
/*
 * git plugin: the agent can use git, but cannot leave code behind that the
 * host runs. Every repository the sandbox exposes gets its hooks, config,
 * attributes, alternates and pointer files bound read-only (masked when they do
 * not exist yet), and commits need a declared identity.
 */
#include <agentsandbox/plugin.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "aftercare.h"
#include "repo_scan.h"
#include "spares.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_REPOS 128
#define DEFAULT_MAX_DEPTH 8
#define DEFAULT_MAX_DIRS  20000

/* Per launch, from init to fini. */
struct git_state {
	int protect;
	int quarantine; /* repositories born inside: quarantine.h */
	struct rs_limits limits;
	int scanned; /* 1 ok, < 0 failed */
	int applied; /* pre_mount added the mounts */
	struct rs_options opt;
	char *workspace, *home;
	char **rw_paths;
	struct rs_result scan;
	struct placeholders placeholders;
	struct spares spares;       /* mount points kept between sessions (spares.h) */
	struct dirlist_cache *dirs; /* listings kept across scans and launches (dirlist.h) */
	char *dirs_file;            /* where they are kept between launches */
};

static void state_reset(struct git_state *g)
{
	rs_result_free(&g->scan);
	placeholders_free(&g->placeholders);
	spares_close(&g->spares);
	for (char **p = g->rw_paths; p && *p; p++)
		free(*p);
	free(g->rw_paths);
	free(g->workspace);
	free(g->home);
	dirlist_cache_free(g->dirs);
	free(g->dirs_file);
	*g = (struct git_state){0};
}

static int git_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	return (*data = calloc(1, sizeof(struct git_state))) ? 0 : -ENOMEM;
}

static void git_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	if (data)
		state_reset(data);
	free(data);
}

static int read_limit(const struct asb_host *host, struct asb_ctx *ctx, const char *key,
                      unsigned *out)
{
	int64_t v;
	int r = host->config_int(ctx, key, &v);
	if (r <= 0)
		return r;
	if (v < 1 || v > 1000000)
		return host->config_error(ctx, key, "must be between 1 and 1000000, not %" PRId64,
		                          v);
	*out = (unsigned)v;
	return 0;
}

static int git_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct git_state *g = data;
	state_reset(g);
	g->protect = 1;
	g->limits = (struct rs_limits){
	    .max_repos = DEFAULT_MAX_REPOS,
	    .max_depth = DEFAULT_MAX_DEPTH,
	    .max_dirs = DEFAULT_MAX_DIRS,
	};
	int v, r = host->config_bool(ctx, "protect", &v);
	if (r < 0)
		return r;
	if (r > 0)
		g->protect = !!v;
	g->quarantine = 1;
	if ((r = host->config_bool(ctx, "quarantine", &v)) < 0)
		return r;
	if (r > 0)
		g->quarantine = !!v;
	if ((r = read_limit(host, ctx, "max_repos", &g->limits.max_repos)) < 0 ||
	    (r = read_limit(host, ctx, "max_depth", &g->limits.max_depth)) < 0 ||
	    (r = read_limit(host, ctx, "max_dirs", &g->limits.max_dirs)) < 0)
		return r;
	if (!g->protect)
		host->log(ctx, ASB_LOG_WARN,
		          "git protection is off: the agent can write git hooks and config that "
		          "run on the host at your next git command");
	else if (!g->quarantine)
		host->log(ctx, ASB_LOG_WARN,
		          "git quarantine is off: repositories created inside keep their hooks and "
		          "config after exit (a warning names each)");
	return 0;
}

static int collect_rw_paths(const struct asb_host *host, struct asb_ctx *ctx, struct git_state *g)
{
	static const char *const lists[] = {"rw_dirs", "rw_files"};
	size_t n = 0;
	for (size_t l = 0; l < 2; l++) {
		int c = host->policy_list_count(ctx, lists[l]);
		n += c > 0 ? (size_t)c : 0;
	}
	g->rw_paths = calloc(n + 1, sizeof(char *));
	if (!g->rw_paths)
		return -ENOMEM;
	size_t w = 0;
	for (size_t l = 0; l < 2; l++) {
		int c = host->policy_list_count(ctx, lists[l]);
		for (int i = 0; i < c && w < n; i++) {
			const char *p = host->policy_list_get(ctx, lists[l], (uint32_t)i);
			if (p && p[0] == '/' && !(g->rw_paths[w++] = strdup(p)))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Scan once; describe and pre_mount share the result. */
static int ensure_scanned(const struct asb_host *host, struct asb_ctx *ctx, struct git_state *g)
{
	if (g->scanned)
		return g->scanned < 0 ? g->scanned : 0;
	const char *ws = host->policy_string(ctx, "workspace");
	const char *home = host->policy_string(ctx, "home");
	if (!ws || ws[0] != '/') {
		host->log(ctx, ASB_LOG_ERROR, "no absolute workspace to protect");
		return g->scanned = -EINVAL;
	}
	int r = collect_rw_paths(host, ctx, g);
	if (r < 0)
		return g->scanned = r;
	g->workspace = strdup(ws);
	g->home = home ? strdup(home) : NULL;
	if (!g->workspace || (home && !g->home))
		return g->scanned = -ENOMEM;
	/* A launch reuses the listings an earlier one kept, and keeps them for
	 * its audit and the next launch; without memory for them, each scan
	 * reads every directory. */
	int64_t dry_run = 0;
	(void)host->policy_int(ctx, "dry_run", &dry_run);
	if (!dry_run && !g->dirs) {
		g->dirs_file =
		    state_sibling(host->policy_string(ctx, "session_dir"), "git", "dirs");
		g->dirs = dirlist_cache_load(g->dirs_file);
	}
	g->opt = (struct rs_options){
	    .workspace = g->workspace,
	    .home = g->home,
	    .rw_paths = (const char *const *)g->rw_paths,
	    .limits = g->limits,
	    .dirs = g->dirs,
	};
	r = rs_scan(&g->opt, &g->scan);
	if (r < 0) {
		host->log(ctx, ASB_LOG_ERROR,
		          "cannot protect %s (%s): refusing to launch; git protection can be "
		          "turned off with --no-git-protection",
		          g->scan.error_path ? g->scan.error_path : ws,
		          r == -ELOOP ? "it is a symlink, which a read-only mount cannot pin"
		                      : strerror(-r));
		return g->scanned = r;
	}
	return g->scanned = 1, 0;
}

static void log_scan(const struct asb_host *host, struct asb_ctx *ctx, const struct git_state *g)
{
	const struct rs_result *s = &g->scan;
	if (s->tree_root)
		host->log(ctx, ASB_LOG_INFO,
		          "working-tree root %s exposed read-only (workspace %s stays writable)",
		          s->tree_root, g->workspace);
	if (s->skipped_root)
		host->log(ctx, ASB_LOG_WARN,
		          "the workspace is inside the working tree %s, which is not exposed "
		          "(it is /, a top-level directory or holds $HOME); git will not see that "
		          "repository",
		          s->skipped_root);
	for (size_t i = 0; i < s->n_repos; i++) {
		const struct rs_repo *r = &s->repos[i];
		if (r->exposed)
			host->log(ctx, ASB_LOG_INFO, "%s %s (git dir %s)", rs_kind_name(r->kind),
			          r->worktree ? r->worktree : r->gitdir, r->gitdir);
		else
			host->log(ctx, ASB_LOG_INFO,
			          "%s %s: its git dir %s is outside the workspace and not "
			          "exposed; its pointer file is read-only",
			          rs_kind_name(r->kind), r->worktree, r->gitdir);
	}
	size_t kept, read;
	dirlist_counts(g->dirs, &kept, &read);
	host->log(ctx, ASB_LOG_INFO,
	          "scanned %u directories (%zu listings read, %zu unchanged since an earlier "
	          "launch), %zu repositories, %zu git dirs",
	          s->dirs_scanned, read, kept, s->n_repos, s->n_gitdirs);
	if (s->limits_hit)
		host->log(ctx, ASB_LOG_WARN,
		          "repository scan stopped at its limits (%s%s%s max_repos=%u "
		          "max_depth=%u max_dirs=%u): repositories beyond are not protected; raise "
		          "plugins.git.max_* to cover them",
		          s->limits_hit & RS_LIMIT_REPOS ? "repos " : "",
		          s->limits_hit & RS_LIMIT_DEPTH ? "depth " : "",
		          s->limits_hit & RS_LIMIT_DIRS ? "dirs " : "", g->limits.max_repos,
		          g->limits.max_depth, g->limits.max_dirs);
}

static int apply_mount(const struct asb_host *host, struct asb_ctx *ctx, const struct rs_mount *m)
{
	struct asb_entry e = {.struct_size = sizeof(e), .fd = -1, .dest = m->path};
	switch (m->op) {
	case RS_BIND_RO:
		return host->plan_path(ctx, ASB_ENTRY_READ, m->path, NULL, 0);
	case RS_BIND_RW:
		return host->plan_path(ctx, ASB_ENTRY_WRITE, m->path, NULL, ASB_ENTRY_F_EXEC);
	case RS_MASK_FILE:
		e.type = ASB_ENTRY_MASK;
		return host->plan_entry(ctx, &e);
	case RS_MASK_DIR:
		e.type = ASB_ENTRY_MASK;
		e.flags = ASB_ENTRY_F_DIR;
		return host->plan_entry(ctx, &e);
	case RS_TMPFS:
		e.type = ASB_ENTRY_EPHEMERAL;
		e.mode = 0755;
		return host->plan_entry(ctx, &e);
	}
	return -EINVAL;
}

static int git_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct git_state *g = data;
	if (!g->protect)
		return 0;
	int64_t dry_run = 0;
	(void)host->policy_int(ctx, "dry_run", &dry_run);
	_cleanup_free_ char *journals =
	    dry_run ? NULL
	            : placeholders_journal_dir(host->policy_string(ctx, "session_dir"), "git");
	/* First what a killed launch left, so the scan sees those paths missing
	 * again (and masks them anew) instead of taking them for the user's. */
	if (journals)
		placeholders_reap(journals, placeholders_log_to_host,
		                  &(struct placeholders_to_host){host, ctx});
	int r = ensure_scanned(host, ctx, g);
	if (r < 0)
		return r;
	log_scan(host, ctx, g);
	unsigned pinned = 0;
	for (size_t i = 0; i < g->scan.n_mounts; i++) {
		const struct rs_mount *m = &g->scan.mounts[i];
		r = apply_mount(host, ctx, m);
		if (r < 0) {
			host->log(ctx, ASB_LOG_ERROR, "cannot add %s of %s: %s", rs_op_name(m->op),
			          m->path, strerror(-r));
			return r;
		}
		if (m->placeholder) {
			r = placeholders_add(&g->placeholders, m->path, m->op != RS_MASK_FILE);
			if (r < 0) {
				host->log(ctx, ASB_LOG_ERROR, "cannot lock the parent of %s: %s",
				          m->path, strerror(-r));
				return r;
			}
		}
		if (m->op == RS_BIND_RW && strcmp(m->why, "pinned") == 0) {
			pinned++;
			continue;
		}
		if (m->op == RS_BIND_RW)
			host->log(ctx, ASB_LOG_INFO, "writable %s (%s)", m->path, m->why);
		else if (m->op == RS_BIND_RO)
			host->log(ctx, ASB_LOG_INFO, "read-only %s (%s)", m->path, m->why);
		else if (m->op == RS_TMPFS)
			host->log(ctx, ASB_LOG_INFO,
			          "%s is missing: an empty writable directory in the sandbox (%s)",
			          m->path, m->why);
		else
			host->log(ctx, ASB_LOG_INFO,
			          "%s is missing: masked by an empty read-only %s (%s)%s", m->path,
			          m->op == RS_MASK_DIR ? "directory" : "file", m->why,
			          m->placeholder ? "; its mount point is removed after exit" : "");
	}
	if (pinned)
		host->log(ctx, ASB_LOG_INFO,
		          "%u directories bound over themselves so that they cannot be renamed "
		          "away with the protections inside",
		          pinned);
	const char *id = host->policy_string(ctx, "session_id");
	if (journals && id && (r = placeholders_journal(&g->placeholders, journals, id)) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot record the placeholders in %s: %s", journals,
		          strerror(-r));
		return r;
	}
	/* Journaled now: the mount points can be put in place. */
	if (journals && id && g->placeholders.n)
		spares_put_in_place(&g->spares, &g->placeholders, host, ctx, "git");
	g->applied = 1;
	return 0;
}

/* With no declared identity git must fail, not invent one from the passwd
 * entry and host name: user.useConfigOnly, appended to any GIT_CONFIG_*
 * the policy already sets. */
static int git_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	const struct git_state *g = data;
	if (!g->protect)
		return 0;
	long count = 0;
	int n = host->plan_env_count(ctx);
	for (int i = 0; i < n; i++) {
		const char *k = NULL, *v = NULL;
		if (host->plan_env_get(ctx, (uint32_t)i, &k, &v) < 0 || !k || !v)
			continue;
		if (strcmp(k, "GIT_CONFIG_COUNT") == 0) {
			char *end;
			count = strtol(v, &end, 10);
			if (*end || count < 0 || count > 1000) {
				host->log(ctx, ASB_LOG_WARN,
				          "GIT_CONFIG_COUNT=%s is not a count; user.useConfigOnly "
				          "not set",
				          v);
				return 0;
			}
		}
	}
	char key[64], val[32];
	snprintf(key, sizeof(key), "GIT_CONFIG_KEY_%ld", count);
	int r = host->plan_setenv(ctx, key, "user.useConfigOnly");
	snprintf(key, sizeof(key), "GIT_CONFIG_VALUE_%ld", count);
	if (r >= 0)
		r = host->plan_setenv(ctx, key, "true");
	snprintf(val, sizeof(val), "%ld", count + 1);
	if (r >= 0)
		r = host->plan_setenv(ctx, "GIT_CONFIG_COUNT", val);
	return r;
}

static int git_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct git_state *g = data;
	if (!g->protect)
		return host->describe(ctx, "protect", "false (git hooks and config are writable)");
	int r = host->describe(ctx, "protect", "true");
	if (r >= 0)
		r = host->describe(ctx, "quarantine",
		                   g->quarantine
		                       ? "true (hooks and executable config of "
		                         "repositories made inside are moved aside at exit)"
		                       : "false (repositories made inside are only reported)");
	if (r < 0)
		return r;
	if ((r = ensure_scanned(host, ctx, g)) < 0)
		return r;
	char buf[128];
	snprintf(buf, sizeof(buf), "%zu repositories, %u directories scanned%s", g->scan.n_repos,
	         g->scan.dirs_scanned, g->scan.limits_hit ? " (limit hit)" : "");
	if ((r = host->describe(ctx, "scan", buf)) < 0)
		return r;
	if (g->scan.tree_root && (r = host->describe(ctx, "tree_root", g->scan.tree_root)) < 0)
		return r;
	for (size_t i = 0; i < g->scan.n_repos && r >= 0; i++)
		if (g->scan.repos[i].exposed)
			r = host->describe(ctx, rs_kind_name(g->scan.repos[i].kind),
			                   g->scan.repos[i].worktree ? g->scan.repos[i].worktree
			                                             : g->scan.repos[i].gitdir);
	for (size_t i = 0; i < g->scan.n_mounts && r >= 0; i++) {
		const struct rs_mount *m = &g->scan.mounts[i];
		if (m->op == RS_BIND_RO || m->op == RS_MASK_FILE || m->op == RS_MASK_DIR)
			r = host->describe(ctx, m->op == RS_BIND_RO ? "read_only" : "masked",
			                   m->path);
	}
	return r;
}

static void git_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status)
{
	struct git_state *g = data;
	int64_t dry_run = 0;
	(void)host->policy_int(ctx, "dry_run", &dry_run);
	if (g->protect && g->applied) {
		spares_keep(&g->spares, &g->placeholders, placeholders_log_to_host,
		            &(struct placeholders_to_host){host, ctx});
		placeholders_cleanup(&g->placeholders, placeholders_log_to_host,
		                     &(struct placeholders_to_host){host, ctx});
		if (!dry_run && status >= 0) /* the agent ran */
			audit_after_exit(host, ctx, &g->opt, &g->scan, g->quarantine);
		int r = g->dirs_file ? dirlist_cache_save(g->dirs, g->dirs_file) : 0;
		if (r < 0)
			host->log(ctx, ASB_LOG_INFO, "cannot keep the directory listings in %s: %s",
			          g->dirs_file, strerror(-r));
	}
	state_reset(g);
}

static const struct asb_hooks git_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = git_configure,
    .pre_mount = git_pre_mount,
    .env = git_env,
    .post_exit = git_post_exit,
    .describe = git_describe,
};

static const char *const git_config_keys[] = {"protect",   "quarantine", "max_repos",
                                              "max_depth", "max_dirs",   NULL};

static const struct asb_option git_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "protect",
     .flag = "git-protection",
     .negative = "no-git-protection",
     .env = "GIT_PROTECTION",
     .help = "git hooks, config and pointer files read-only (default: on; off is warned)"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "quarantine",
     .flag = "git-quarantine",
     .negative = "no-git-quarantine",
     .env = "GIT_QUARANTINE",
     .help = "after exit, move aside the hooks and executable config of repositories "
             "made inside (default: on)"},
    {0},
};

static const struct asb_plugin git_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "git",
    .version = "0.1.0",
    .description = "git protection: hooks, config and pointer files read-only in every "
                   "repository of the workspace",
    .config_keys = git_config_keys,
    .options = git_options,
    .load = ASB_LOAD_DEFAULT,
    .init = git_init,
    .fini = git_fini,
    .hooks = &git_hooks,
};

ASB_PLUGIN_DEFINE(git_plugin)
