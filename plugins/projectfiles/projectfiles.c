/* SPDX-License-Identifier: MIT */
/*
 * projectfiles plugin: the agent cannot leave behind, in the project, files
 * that host programs execute or trust without being asked to run the project
 * (list.c: editor tasks and settings, direnv/mise/asdf files, MCP configs,
 * agents' own settings and hooks, hook managers). Under every writable root
 * they are read-only when present; at the workspace root the ones whose
 * tools run them unasked are masked when missing; every directory between a
 * root and a protected path is pinned. After exit, those that appeared
 * deeper are moved aside (or, for tools that ask first, reported).
 * Loaded by default, like git protection.
 */
#include <agentsandbox/plugin.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "list.h"
#include "placeholders.h"
#include "scan.h"
#include "spares.h"
#include "util.h"

#define NAME "projectfiles"

struct pf_state {
	int protect;
	struct strv writable;    /* entries left writable (the user's opt-out) */
	struct strv extra_paths; /* plugins.projectfiles.extra, as given */
	struct pf_entry *list;   /* what is protected: default less writable, plus extra */
	struct pf_root *roots;
	size_t n_roots;
	struct strv root_strings; /* host, dest pairs the roots point into */
	unsigned max_depth, max_dirs;
	struct pf_result scan;
	int scanned;
	struct placeholders placeholders;
	struct spares spares;       /* mount points kept between sessions (spare.c) */
	char *exclude;              /* the git exclude file extended for masked files, or NULL */
	struct dirlist_cache *dirs; /* listings kept across scans and launches (dirlist.h) */
	char *dirs_file;            /* where they are kept between launches */
	int dry_run;
	bool files;     /* the backend places generated files anywhere (ASB_CAP_FILES) */
	bool ephemeral; /* ... and empty writable directories (ASB_CAP_EPHEMERAL) */
};

static void state_reset(struct pf_state *g)
{
	strv_clear(&g->writable);
	strv_clear(&g->extra_paths);
	free(g->list);
	free(g->roots);
	strv_clear(&g->root_strings);
	pf_result_free(&g->scan);
	placeholders_free(&g->placeholders);
	spares_close(&g->spares);
	free(g->exclude);
	dirlist_cache_free(g->dirs);
	free(g->dirs_file);
	*g = (struct pf_state){0};
}

static int pf_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	return (*data = calloc(1, sizeof(struct pf_state))) ? 0 : -ENOMEM;
}

static void pf_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	if (data)
		state_reset(data);
	free(data);
}

static int read_list(const struct asb_host *host, struct asb_ctx *ctx, const char *key,
                     struct strv *out)
{
	int n = host->config_list_count(ctx, key);
	for (int i = 0; i < n; i++) {
		const char *v = NULL;
		int r = host->config_list_string(ctx, key, (uint32_t)i, &v);
		if (r < 0 || (r = strv_push(out, v)) < 0)
			return r;
	}
	return n < 0 ? n : 0;
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

/* An extra path: relative, at most one directory deep, no "..". */
static int check_extra(const struct asb_host *host, struct asb_ctx *ctx, const char *p)
{
	size_t len = strlen(p);
	int slashes = 0;
	for (const char *c = p; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return host->config_error(ctx, "extra", "\"%s\" has a control character",
			                          p);
		if (*c == '/' && c[1])
			slashes++;
	}
	if (!len || p[0] == '/' || strstr(p, "..") || slashes > 1 || strcmp(p, "/") == 0)
		return host->config_error(ctx, "extra",
		                          "\"%s\" must be a relative path at most one directory "
		                          "deep (\".myide/\", \".tool/config.json\")",
		                          p);
	return 0;
}

static int build_list(const struct asb_host *host, struct asb_ctx *ctx, struct pf_state *g)
{
	size_t n = 0;
	for (const struct pf_entry *e = pf_default_list; e->path; e++)
		n++;
	g->list = calloc(n + g->extra_paths.n + 1, sizeof(*g->list));
	if (!g->list)
		return -ENOMEM;
	size_t w = 0;
	for (const struct pf_entry *e = pf_default_list; e->path; e++)
		if (!strv_contains(&g->writable, e->path))
			g->list[w++] = *e;
	for (size_t i = 0; i < g->extra_paths.n; i++) {
		char *p = g->extra_paths.v[i];
		int r = check_extra(host, ctx, p);
		if (r < 0)
			return r;
		size_t len = strlen(p);
		bool dir = p[len - 1] == '/';
		if (dir)
			p[len - 1] = '\0';
		if (pf_find(g->list, p) || strv_contains(&g->writable, p))
			continue;
		g->list[w++] = (struct pf_entry){p, dir ? PF_DIR : PF_FILE, PF_MASK,
		                                 "plugins.projectfiles.extra"};
	}
	for (size_t i = 0; i < g->writable.n; i++)
		if (!pf_find(pf_default_list, g->writable.v[i]) &&
		    !strv_contains(&g->extra_paths, g->writable.v[i]))
			return host->config_error(ctx, "writable",
			                          "\"%s\" is not on the list (see --show-config or "
			                          "plugins/projectfiles/README.md)",
			                          g->writable.v[i]);
	return 0;
}

static int pf_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct pf_state *g = data;
	state_reset(g);
	g->protect = 1;
	g->max_depth = 8;
	g->max_dirs = 20000;
	int64_t dry = 0;
	(void)host->policy_int(ctx, "dry_run", &dry);
	g->dry_run = (int)dry;
	int v, r = host->config_bool(ctx, "protect", &v);
	if (r < 0)
		return r;
	if (r > 0)
		g->protect = !!v;
	if ((r = read_list(host, ctx, "writable", &g->writable)) < 0 ||
	    (r = read_list(host, ctx, "extra", &g->extra_paths)) < 0 ||
	    (r = read_limit(host, ctx, "max_depth", &g->max_depth)) < 0 ||
	    (r = read_limit(host, ctx, "max_dirs", &g->max_dirs)) < 0)
		return r;
	if ((r = build_list(host, ctx, g)) < 0)
		return r;
	if (!g->protect)
		host->log(ctx, ASB_LOG_WARN,
		          "project-file protection is off: the agent can write editor tasks, "
		          "direnv/mise files, MCP configs and agent hooks that host programs run");
	for (size_t i = 0; g->protect && i < g->writable.n; i++)
		host->log(ctx, ASB_LOG_INFO, "left writable on request: %s", g->writable.v[i]);
	return 0;
}

/* The writable directories the core declared: the workspace, rw_dirs, and
 * --mount ones (possibly elsewhere inside). */
/* `path` is $HOME/.something or below it. */
static bool in_hidden_home_dir(const struct asb_host *host, struct asb_ctx *ctx, const char *path)
{
	const char *home = host->policy_string(ctx, "home");
	size_t n = home ? strlen(home) : 0;
	return n > 1 && strncmp(path, home, n) == 0 && path[n] == '/' && path[n + 1] == '.';
}

static int collect_roots(const struct asb_host *host, struct asb_ctx *ctx, struct pf_state *g)
{
	int n = host->plan_entry_count(ctx);
	g->roots = calloc(n > 0 ? (size_t)n : 1, sizeof(*g->roots));
	if (!g->roots)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		if (host->plan_entry_get(ctx, (uint32_t)i, &e) < 0)
			continue;
		if (e.type != ASB_ENTRY_WRITE || !(e.flags & ASB_ENTRY_F_DIR) || !e.host_path ||
		    !e.origin ||
		    (strcmp(e.origin, "workspace") != 0 &&
		     strcmp(e.origin, "sandbox.rw_dirs") != 0 && strcmp(e.origin, "--mount") != 0))
			continue;
		if (strcmp(e.origin, "sandbox.rw_dirs") == 0 &&
		    in_hidden_home_dir(host, ctx, e.host_path)) {
			/* ~/.config/opencode holds opencode.jsonc, which opencode
			 * itself writes there: a tool's own state is not a project
			 * (README: what this does not protect against). */
			host->log(ctx, ASB_LOG_INFO,
			          "%s: a tool's own state directory (under a hidden directory of "
			          "$HOME), not scanned for project files",
			          e.host_path);
			continue;
		}
		int r;
		if ((r = strv_push(&g->root_strings, e.host_path)) < 0 ||
		    (r = strv_push(&g->root_strings, e.dest)) < 0)
			return r;
		g->roots[g->n_roots++] =
		    (struct pf_root){.workspace = strcmp(e.origin, "workspace") == 0};
	}
	/* The strings moved while the vector grew: point at them now. */
	for (size_t i = 0; i < g->n_roots; i++) {
		g->roots[i].host = g->root_strings.v[2 * i];
		g->roots[i].dest = g->root_strings.v[2 * i + 1];
	}
	return 0;
}

static int scan_now(const struct asb_host *host, struct asb_ctx *ctx, struct pf_state *g, int audit,
                    struct pf_result *out)
{
	struct pf_options o = {.roots = g->roots,
	                       .n_roots = g->n_roots,
	                       .list = g->list,
	                       .writable = (const char *const *)g->writable.v,
	                       .max_depth = g->max_depth,
	                       .max_dirs = g->max_dirs,
	                       .audit = audit,
	                       .dirs = g->dirs};
	int r = pf_scan(&o, out);
	if (r < 0 && !audit)
		host->log(ctx, ASB_LOG_ERROR,
		          "cannot protect %s (%s): refusing to launch. Replace it with what it "
		          "points to, or leave it writable: plugins.projectfiles.writable = "
		          "[ \"<its entry>\" ] (or --no-project-protection)",
		          out->error_path ? out->error_path : "?",
		          r == -ELOOP ? "a symlink, which no read-only mount can pin"
		                      : strerror(-r));
	return r;
}

static bool already_pinned(const struct asb_host *host, struct asb_ctx *ctx, const char *dest)
{
	int n = host->plan_entry_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		if (host->plan_entry_get(ctx, (uint32_t)i, &e) == 0 && e.type == ASB_ENTRY_WRITE &&
		    e.dest && strcmp(e.dest, dest) == 0 && e.host_path &&
		    strcmp(e.host_path, dest) == 0)
			return true;
	}
	return false;
}

/* A non-empty file, a symlink, or a directory holding one. */
static bool has_content(const char *path, int depth)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return false;
	if (S_ISLNK(st.st_mode) || (!S_ISDIR(st.st_mode) && st.st_size > 0))
		return true;
	if (!S_ISDIR(st.st_mode))
		return false;
	if (depth > 8)
		return true;
	DIR *d = opendir(path);
	if (!d)
		return true;
	bool found = false;
	unsigned n = 0;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++n > 1000) {
			found = true;
			break;
		}
		_cleanup_free_ char *child = str_printf("%s/%s", path, de->d_name);
		found = !child || has_content(child, depth + 1);
	}
	closedir(d);
	return found;
}

static bool is_root_child(const struct asb_host *host, struct asb_ctx *ctx, const char *path)
{
	const char *ws = host->policy_string(ctx, "workspace");
	const char *slash = strrchr(path, '/');
	return ws && slash && (size_t)(slash - path) == strlen(ws) &&
	       strncmp(path, ws, strlen(ws)) == 0;
}

static bool is_json(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && strcmp(path + n - 5, ".json") == 0) ||
	       (n > 6 && strcmp(path + n - 6, ".jsonc") == 0);
}

/* A missing directory is an empty one that is writable inside and gone at
 * exit, where the backend can make one: tools find the directory that the
 * mask makes appear, and some write there at start (opencode writes
 * .opencode/.gitignore and fails when it cannot); nothing written there
 * reaches the host's tree. (A file in its place would keep out just as well,
 * but Claude Code and opencode fail on ENOTDIR.) */
static bool ephemeral_dir(const struct pf_state *g, const struct pf_action *a)
{
	return a->op == PF_OP_MASK_DIR && g->ephemeral;
}

static int apply(const struct asb_host *host, struct asb_ctx *ctx, struct pf_state *g,
                 const struct pf_action *a)
{
	struct asb_entry e = {.struct_size = sizeof(e), .fd = -1, .dest = a->dest};
	int r;
	switch (a->op) {
	case PF_OP_RO:
		return host->plan_path(ctx, ASB_ENTRY_READ, a->host, a->dest, 0);
	case PF_OP_MKDIR_PIN:
		if (g->dry_run)
			return 0;
		if (mkdir(a->host, 0755) < 0 && errno != EEXIST)
			return -errno;
		if ((r = placeholders_add(&g->placeholders, a->host, 1)) < 0)
			return r;
		__attribute__((fallthrough));
	case PF_OP_PIN:
		/* An empty .claude/ at the root may be another sandbox's mount
		 * point: removed after exit if still empty, like ours. */
		if (a->op == PF_OP_PIN && !g->dry_run && is_root_child(host, ctx, a->host) &&
		    !has_content(a->host, 0)) {
			if ((r = placeholders_add(&g->placeholders, a->host, 1)) < 0)
				return r;
			/* That sandbox may have removed it between the scan and
			 * the lock just taken, which now keeps it. */
			if (mkdir(a->host, 0755) < 0 && errno != EEXIST)
				return -errno;
		}
		if (already_pinned(host, ctx, a->dest))
			return 0;
		return host->plan_path(ctx, ASB_ENTRY_WRITE, a->host, a->dest, ASB_ENTRY_F_EXEC);
	case PF_OP_MASK_DIR:
	case PF_OP_MASK_FILE:
		e.type = ASB_ENTRY_MASK;
		e.flags = a->op == PF_OP_MASK_DIR ? ASB_ENTRY_F_DIR : 0;
		if (ephemeral_dir(g, a)) {
			e.type = ASB_ENTRY_EPHEMERAL;
			e.flags = 0;
			e.mode = 0755;
		}
		if (a->op == PF_OP_MASK_FILE && is_json(a->host) && g->files) {
			/* An empty file is not JSON: the agent inside would report its
			 * own settings as broken. An empty object reads as "nothing". */
			e.type = ASB_ENTRY_FILE;
			e.mode = 0444;
			e.data = "{}\n";
			e.data_len = 3;
		}
		if ((r = host->plan_entry(ctx, &e)) < 0)
			return r;
		return a->placeholder && !g->dry_run
		           ? placeholders_add(&g->placeholders, a->host, a->op == PF_OP_MASK_DIR)
		           : 0;
	}
	return -EINVAL;
}

/* `dir`/.git's common git dir, where git reads info/exclude: the .git
 * directory, or for a worktree or submodule where its .git file points (and
 * that one's commondir). NULL when there is no usable one. */
static char *read_pointer(const char *base, const char *file, const char *prefix)
{
	_cleanup_free_ char *path = str_printf("%s/%s", base, file);
	_cleanup_free_ char *text = NULL;
	if (!path || read_file(path, &text, NULL) < 0)
		return NULL;
	text[strcspn(text, "\r\n")] = '\0';
	size_t n = strlen(prefix);
	if (strncmp(text, prefix, n) != 0)
		return NULL;
	const char *t = text + n;
	_cleanup_free_ char *joined = t[0] == '/' ? strdup(t) : str_printf("%s/%s", base, t);
	return joined ? path_real(joined, NULL) : NULL;
}

static char *git_dir_of(const char *dir)
{
	_cleanup_free_ char *dotgit = str_printf("%s/.git", dir);
	struct stat st;
	if (!dotgit || lstat(dotgit, &st) < 0)
		return NULL;
	if (S_ISDIR(st.st_mode))
		return TAKE_PTR(dotgit);
	if (!S_ISREG(st.st_mode))
		return NULL;
	_cleanup_free_ char *gitdir = read_pointer(dir, ".git", "gitdir: ");
	if (!gitdir)
		return NULL;
	char *common = read_pointer(gitdir, "commondir", "");
	return common ? common : TAKE_PTR(gitdir);
}

/* A glob-safe, anchored pattern for one path of the work tree. */
static char *exclude_pattern(const char *rel)
{
	size_t n = strlen(rel);
	char *out = malloc(2 * n + 3);
	if (!out)
		return NULL;
	char *w = out;
	*w++ = '/';
	for (const char *c = rel; *c; c++) {
		if (strchr("\\*?[!#", *c))
			*w++ = '\\';
		*w++ = *c;
	}
	*w = '\0';
	return out;
}

/* Masked files, and what is written into the directories that are gone at
 * exit, would show in `git status` inside, and be committed by an agent's
 * `git add -A`: the work tree's exclude file gets them for this session
 * (inside only; the host's file is unchanged). */
static int hide_from_git(const struct asb_host *host, struct asb_ctx *ctx, struct pf_state *g)
{
	const char *ws = host->policy_string(ctx, "workspace");
	if (!ws)
		return 0;
	struct strv lines = {0};
	for (size_t i = 0; i < g->scan.n; i++) {
		const struct pf_action *a = &g->scan.v[i];
		if ((a->op == PF_OP_MASK_FILE || ephemeral_dir(g, a)) && a->placeholder &&
		    path_is_within(a->host, ws))
			(void)strv_push(&lines, a->host);
	}
	if (!lines.n)
		return 0;
	/* The work tree the workspace is in: the nearest directory with a .git. */
	_cleanup_free_ char *top = strdup(ws);
	_cleanup_free_ char *gitdir = NULL;
	while (top && !(gitdir = git_dir_of(top))) {
		char *slash = strrchr(top, '/');
		if (!slash || slash == top) {
			free(top);
			top = NULL;
			break;
		}
		*slash = '\0';
	}
	if (!top || !gitdir) {
		strv_clear(&lines);
		return 0;
	}
	_cleanup_free_ char *info = str_printf("%s/info", gitdir);
	_cleanup_free_ char *path = str_printf("%s/info/exclude", gitdir);
	_cleanup_free_ char *old = NULL;
	if (!info || !path) {
		strv_clear(&lines);
		return -ENOMEM;
	}
	struct stat st;
	bool had_info = lstat(info, &st) == 0, had_file = lstat(path, &st) == 0;
	if (had_file && (!S_ISREG(st.st_mode) || read_file(path, &old, NULL) < 0)) {
		host->log(ctx, ASB_LOG_INFO, "%s cannot be read: masked files show in git status",
		          path);
		strv_clear(&lines);
		return 0;
	}
	_cleanup_free_ char *text = str_printf(
	    "%s%s# agentsandbox: project files masked for this session (projectfiles plugin)\n",
	    old ? old : "", old && old[0] && old[strlen(old) - 1] != '\n' ? "\n" : "");
	for (size_t i = 0; text && i < lines.n; i++) {
		_cleanup_free_ char *pat = exclude_pattern(lines.v[i] + strlen(top) + 1);
		char *t = pat ? str_printf("%s%s\n", text, pat) : NULL;
		free(text);
		text = t;
	}
	strv_clear(&lines);
	if (!text)
		return -ENOMEM;
	struct asb_entry e = {.struct_size = sizeof(e),
	                      .type = ASB_ENTRY_FILE,
	                      .mode = 0444,
	                      .fd = -1,
	                      .dest = path,
	                      .data = text,
	                      .data_len = strlen(text)};
	int r = host->plan_entry(ctx, &e);
	if (r < 0)
		return r;
	if (!g->dry_run && !had_info && (r = placeholders_add(&g->placeholders, info, 1)) < 0)
		return r;
	if (!g->dry_run && !had_file && (r = placeholders_add(&g->placeholders, path, 0)) < 0)
		return r;
	g->exclude = TAKE_PTR(path);
	host->log(ctx, ASB_LOG_INFO, "%s lists the masked files inside (git status stays clean)",
	          g->exclude);
	return 0;
}

static void log_action(const struct asb_host *host, struct asb_ctx *ctx, const struct pf_state *g,
                       const struct pf_action *a)
{
	switch (a->op) {
	case PF_OP_RO:
		host->log(ctx, ASB_LOG_INFO, "read-only %s (%s)", a->host, a->entry->tool);
		break;
	case PF_OP_MASK_FILE:
	case PF_OP_MASK_DIR:
		host->log(ctx, ASB_LOG_INFO,
		          "%s is missing: masked by an empty %s (%s); its mount point is "
		          "removed after exit",
		          a->host,
		          a->op == PF_OP_MASK_FILE ? "read-only file"
		          : ephemeral_dir(g, a) ? "directory, writable inside and discarded at exit"
		                                : "read-only directory",
		          a->entry->tool);
		break;
	default:
		break;
	}
}

static int pf_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct pf_state *g = data;
	if (!g->protect)
		return 0;
	int64_t caps = 0;
	g->files = host->policy_int(ctx, "backend_caps", &caps) == 0 && (caps & ASB_CAP_FILES);
	g->ephemeral = g->files && (caps & ASB_CAP_EPHEMERAL);
	_cleanup_free_ char *journals =
	    g->dry_run
	        ? NULL
	        : placeholders_journal_dir(host->policy_string(ctx, "session_dir"), "projectfiles");
	/* First what a killed launch left, so the scan sees those paths
	 * missing again (and masks them anew) instead of taking them for the
	 * user's. */
	if (journals)
		placeholders_reap(journals, placeholders_log_to_host,
		                  &(struct placeholders_to_host){host, ctx});
	int r = collect_roots(host, ctx, g);
	/* The listings an earlier launch kept, kept again for the audit and the
	 * next launch; without memory for them, each scan reads every
	 * directory. */
	if (!g->dry_run && !g->dirs) {
		g->dirs_file = state_sibling(host->policy_string(ctx, "session_dir"), NAME, "dirs");
		g->dirs = dirlist_cache_load(g->dirs_file);
	}
	if (r < 0 || (r = scan_now(host, ctx, g, 0, &g->scan)) < 0)
		return r;
	g->scanned = 1;
	unsigned pins = 0;
	for (size_t i = 0; i < g->scan.n; i++) {
		const struct pf_action *a = &g->scan.v[i];
		if ((r = apply(host, ctx, g, a)) < 0) {
			host->log(ctx, ASB_LOG_ERROR, "cannot protect %s (%s): %s", a->host,
			          pf_op_name(a->op), strerror(-r));
			return r;
		}
		pins += a->op == PF_OP_PIN || a->op == PF_OP_MKDIR_PIN;
		log_action(host, ctx, g, a);
	}
	if (pins)
		host->log(ctx, ASB_LOG_INFO,
		          "%u directories bound over themselves so that protected project files "
		          "cannot be renamed away with them",
		          pins);
	size_t kept, read;
	dirlist_counts(g->dirs, &kept, &read);
	host->log(ctx, ASB_LOG_INFO,
	          "scanned %u directories under %zu writable roots (%zu listings read, %zu "
	          "unchanged since an earlier launch)%s",
	          g->scan.dirs_scanned, g->n_roots, read, kept,
	          g->scan.limits_hit ? " (stopped at plugins.projectfiles.max_depth/max_dirs: "
	                               "deeper project files are not protected)"
	                             : "");
	if (g->scan.limits_hit)
		host->log(ctx, ASB_LOG_WARN,
		          "project-file scan stopped at its limits (max_depth=%u, max_dirs=%u): "
		          "deeper files are not protected",
		          g->max_depth, g->max_dirs);
	/* A backend of rules (seatbelt) masks without mount points, and places
	 * no generated file there: nothing for git to see, nothing to add. */
	if (g->files && (r = hide_from_git(host, ctx, g)) < 0)
		return r;
	const char *id = host->policy_string(ctx, "session_id");
	if (journals && id && (r = placeholders_journal(&g->placeholders, journals, id)) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "cannot record the placeholders in %s: %s", journals,
		          strerror(-r));
		return r;
	}
	/* Journaled now: the mount points can be put in place. */
	if (journals && id && g->placeholders.n)
		spares_put_in_place(&g->spares, &g->placeholders, host, ctx, NAME);
	return 0;
}

static int pf_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct pf_state *g = data;
	if (!g->protect)
		return host->describe(ctx, "protect",
		                      "false (editor tasks, direnv files, MCP configs, agent hooks "
		                      "are writable)");
	int r = host->describe(ctx, "protect", "true");
	for (size_t i = 0; r >= 0 && i < g->writable.n; i++)
		r = host->describe(ctx, "writable", g->writable.v[i]);
	for (size_t i = 0; r >= 0 && i < g->scan.n; i++) {
		const struct pf_action *a = &g->scan.v[i];
		if (a->op == PF_OP_RO)
			r = host->describe(ctx, "read_only", a->host);
		else if (a->op == PF_OP_MASK_DIR || a->op == PF_OP_MASK_FILE)
			r = host->describe(ctx, "masked", a->host);
	}
	char buf[128];
	snprintf(buf, sizeof(buf), "%u directories%s", g->scan.dirs_scanned,
	         g->scan.limits_hit ? " (limit hit)" : "");
	if (r >= 0 && g->scanned)
		r = host->describe(ctx, "scan", buf);
	return r;
}

static bool was_there(const struct pf_state *g, const char *path)
{
	for (size_t i = 0; i < g->scan.n; i++)
		if (strcmp(g->scan.v[i].host, path) == 0)
			return true;
	return placeholders_has(&g->placeholders, path);
}

static char *shell_quote(const char *s)
{
	size_t n = 3;
	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	char *out = malloc(n);
	if (!out)
		return NULL;
	char *w = out;
	*w++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(w, "'\\''", 4);
			w += 4;
		} else {
			*w++ = *c;
		}
	}
	*w++ = '\'';
	*w = '\0';
	return out;
}

/* What appeared during the session where nothing was protected (below the
 * workspace root, in an rw dir): moved aside when its tool runs it unasked,
 * else reported. */
static void audit(const struct asb_host *host, struct asb_ctx *ctx, struct pf_state *g)
{
	struct pf_result now;
	size_t kept0, read0, kept, read;
	dirlist_counts(g->dirs, &kept0, &read0);
	if (scan_now(host, ctx, g, 1, &now) < 0) {
		host->log(ctx, ASB_LOG_WARN, "post-exit check of the project files failed");
		pf_result_free(&now);
		return;
	}
	dirlist_counts(g->dirs, &kept, &read);
	host->log(ctx, ASB_LOG_INFO,
	          "post-exit check of the project files: %zu directories read, %zu unchanged "
	          "since last read",
	          read - read0, kept - kept0);
	const char *sid = host->policy_string(ctx, "session_id");
	for (size_t i = 0; i < now.n; i++) {
		const struct pf_action *a = &now.v[i];
		/* Empty ones run nothing (and may be another sandbox's mount
		 * points on this directory). */
		if (a->op != PF_OP_RO || was_there(g, a->host) || !has_content(a->host, 0))
			continue;
		if (a->entry->missing != PF_MASK) {
			host->log(ctx, ASB_LOG_WARN,
			          "%s was made inside the sandbox (%s): review it before that tool "
			          "uses it",
			          a->host, a->entry->tool);
			continue;
		}
		_cleanup_free_ char *to =
		    str_printf("%s.agentsandbox-quarantine-%s", a->host, sid ? sid : "session");
		if (!to)
			continue;
		if (rename(a->host, to) < 0) {
			host->log(
			    ctx, ASB_LOG_WARN,
			    "%s was made inside the sandbox (%s) and could not be moved aside "
			    "(%s): review it before that tool runs it",
			    a->host, a->entry->tool, strerror(errno));
			continue;
		}
		_cleanup_free_ char *qa = shell_quote(to), *qb = shell_quote(a->host);
		host->log(
		    ctx, ASB_LOG_WARN,
		    "%s was made inside the sandbox (%s): moved to %s; to restore it: mv %s %s",
		    a->host, a->entry->tool, to, qa ? qa : "", qb ? qb : "");
	}
	if (now.limits_hit)
		host->log(ctx, ASB_LOG_WARN,
		          "post-exit check of the project files stopped at its limits; deeper ones "
		          "were not checked");
	pf_result_free(&now);
}

static void pf_post_exit(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status)
{
	struct pf_state *g = data;
	if (g->protect && g->scanned) {
		spares_keep(&g->spares, &g->placeholders, placeholders_log_to_host,
		            &(struct placeholders_to_host){host, ctx});
		placeholders_cleanup(&g->placeholders, placeholders_log_to_host,
		                     &(struct placeholders_to_host){host, ctx});
		if (!g->dry_run && status >= 0) /* the agent ran */
			audit(host, ctx, g);
		int r = g->dirs_file ? dirlist_cache_save(g->dirs, g->dirs_file) : 0;
		if (r < 0)
			host->log(ctx, ASB_LOG_INFO, "cannot keep the directory listings in %s: %s",
			          g->dirs_file, strerror(-r));
	}
	state_reset(g);
}

static const struct asb_hooks pf_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = pf_configure,
    .pre_mount = pf_pre_mount,
    .post_exit = pf_post_exit,
    .describe = pf_describe,
};

static const char *const pf_config_keys[] = {"protect",   "writable", "extra",
                                             "max_depth", "max_dirs", NULL};

static const struct asb_option pf_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "protect",
     .flag = "project-protection",
     .negative = "no-project-protection",
     .env = "PROJECT_PROTECTION",
     .help = "editor tasks, direnv/mise files, MCP configs, agent settings and hooks in the "
             "project read-only (default: on; off is warned)"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_LIST,
     .key = "writable",
     .flag = "project-writable",
     .env = "PROJECT_WRITABLE",
     .help = "entries of that list the agent may write (.vscode,.claude/commands)",
     .values = ".vscode .idea .zed .mcp.json .claude/settings.json .claude/settings.local.json "
               ".claude/commands .claude/agents .claude/skills .claude/hooks .codex .gemini "
               ".cursor .opencode opencode.json .tool-versions .envrc .mise.toml "
               ".pre-commit-config.yaml .husky"},
    {0},
};

static const struct asb_plugin pf_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = NAME,
    .version = "0.1.0",
    .description = "project files host tools run (editor tasks, direnv/mise, MCP configs, "
                   "agent settings and hooks) read-only",
    .config_keys = pf_config_keys,
    .options = pf_options,
    .load = ASB_LOAD_DEFAULT,
    .init = pf_init,
    .fini = pf_fini,
    .hooks = &pf_hooks,
};

ASB_PLUGIN_DEFINE(pf_plugin)
