/* SPDX-License-Identifier: MIT */
#include "quarantine.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util.h"

#define QDIR_NAME  "agentsandbox-quarantine"
#define LIST_LIMIT (1u << 20)

/* Keys that only say what the repository is and where it syncs: data, not
 * programs. A whitelist, so that keys git adds later are quarantined until
 * someone decides otherwise. */
static const char *const kept_keys[] = {"core.repositoryformatversion",
                                        "core.filemode",
                                        "core.bare",
                                        "core.logallrefupdates",
                                        "core.ignorecase",
                                        "core.precomposeunicode",
                                        "core.symlinks",
                                        "core.autocrlf",
                                        "core.eol",
                                        "core.safecrlf",
                                        "core.quotepath",
                                        "core.sharedrepository",
                                        "core.sparsecheckout",
                                        "core.sparsecheckoutcone",
                                        "core.untrackedcache",
                                        "core.splitindex",
                                        "core.commitgraph",
                                        "core.multipackindex",
                                        "core.abbrev",
                                        "user.name",
                                        "user.email",
                                        "init.defaultbranch",
                                        "pull.rebase",
                                        "pull.ff",
                                        "push.default",
                                        "push.autosetupremote",
                                        "fetch.prune",
                                        "fetch.prunetags",
                                        "lfs.repositoryformatversion",
                                        NULL};

/* section.<subsection>.name */
static const struct {
	const char *section;
	const char *const names[16];
} kept_sub[] = {
    {"remote",
     {"url", "pushurl", "fetch", "push", "mirror", "tagopt", "prune", "prunetags", "promisor",
      "partialclonefilter", "skipdefaultupdate", "skipfetchall", NULL}},
    {"branch", {"remote", "pushremote", "merge", "rebase", "description", NULL}},
    {"submodule", {"url", "active", "branch", "shallow", "ignore", NULL}},
};

int qr_key_kept(const char *key)
{
	const char *dot = strchr(key, '.');
	const char *last = strrchr(key, '.');
	if (!dot || !last || last[1] == '\0')
		return 0;
	size_t sec_len = (size_t)(dot - key);
	if (dot == last) {
		if (sec_len == 10 && strncmp(key, "extensions", 10) == 0)
			return 1; /* objectformat, worktreeconfig, refstorage: the format */
		for (const char *const *k = kept_keys; *k; k++)
			if (strcmp(*k, key) == 0)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kept_sub); i++) {
		if (strlen(kept_sub[i].section) != sec_len ||
		    strncmp(kept_sub[i].section, key, sec_len) != 0)
			continue;
		for (const char *const *n = kept_sub[i].names; *n; n++)
			if (strcmp(*n, last + 1) == 0)
				return 1;
	}
	return 0;
}

static void put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (!*buf)
		return;
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap + n + 1) * 2;
		char *b = realloc(*buf, ncap);
		if (!b) {
			free(*buf);
			*buf = NULL;
			return;
		}
		*buf = b;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void put_quoted(char **buf, size_t *len, size_t *cap, const char *s, size_t n, bool value)
{
	put(buf, len, cap, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', c};
			put(buf, len, cap, esc, 2);
		} else if (value && c == '\n') {
			put(buf, len, cap, "\\n", 2);
		} else if (value && c == '\t') {
			put(buf, len, cap, "\\t", 2);
		} else if (value && c == '\b') {
			put(buf, len, cap, "\\b", 2);
		} else {
			put(buf, len, cap, &c, 1);
		}
	}
	put(buf, len, cap, "\"", 1);
}

char *qr_render_config(const char *const *keys, const char *const *values, size_t n)
{
	size_t len = 0, cap = 256;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	buf[0] = '\0';
	const char *prev = NULL;
	size_t prev_len = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[i];
		const char *dot = strchr(k, '.');
		const char *last = strrchr(k, '.');
		if (!dot || !last)
			continue;
		/* A new [section "sub"] header when section or subsection changes. */
		size_t head_len = (size_t)(last - k);
		if (!prev || prev_len != head_len || strncmp(prev, k, head_len) != 0) {
			put(&buf, &len, &cap, "[", 1);
			put(&buf, &len, &cap, k, (size_t)(dot - k));
			if (dot != last) {
				put(&buf, &len, &cap, " ", 1);
				put_quoted(&buf, &len, &cap, dot + 1, (size_t)(last - dot - 1),
				           false);
			}
			put(&buf, &len, &cap, "]\n", 2);
			prev = k;
			prev_len = head_len;
		}
		put(&buf, &len, &cap, "\t", 1);
		put(&buf, &len, &cap, last + 1, strlen(last + 1));
		if (values[i]) {
			put(&buf, &len, &cap, " = ", 3);
			put_quoted(&buf, &len, &cap, values[i], strlen(values[i]), true);
		}
		put(&buf, &len, &cap, "\n", 1);
	}
	return buf;
}

/* ------------------------------------------------------------ the host side */

struct qr {
	const struct asb_host *host;
	struct asb_ctx *ctx;
	const struct rs_options *opt;
	const char *session;
	char git[PATH_MAX]; /* the host's git, "" when there is none */
};

/* 'name' as a shell word for the restore commands we print. */
static char *shell_quote(const char *s)
{
	size_t n = 2;
	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	char *out = malloc(n + 1);
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

static char *join(const char *a, const char *b)
{
	return str_printf("%s/%s", a, b);
}

/* `git config --file PATH --list -z`, parsed: 0, or -errno (no git, git
 * refused the file, too large). The agent wrote the file: git only parses
 * it here (no includes, no system or global config, no hooks). */
static int list_config(struct qr *q, const char *path, struct strv *keys, struct strv *values,
                       bool *valueless)
{
	if (!q->git[0])
		return -ENOENT;
	const char *argv[] = {q->git,          "config", "--file", path,
	                      "--no-includes", "--list", "-z",     NULL};
	const char *envp[] = {"PATH=/usr/bin:/bin",
	                      "HOME=/nonexistent",
	                      "LC_ALL=C",
	                      "GIT_CONFIG_NOSYSTEM=1",
	                      "GIT_CONFIG_GLOBAL=/dev/null",
	                      "GIT_CONFIG_COUNT=0",
	                      NULL};
	_cleanup_free_ char *out = malloc(LIST_LIMIT);
	if (!out)
		return -ENOMEM;
	int st = 0;
	int r = q->host->run_program(q->ctx, argv, envp, &st, out, LIST_LIMIT);
	if (r < 0)
		return r;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -EINVAL;
	size_t len = strlen(out);
	if (len >= LIST_LIMIT - 1)
		return -EFBIG;
	/* -z: "key\nvalue\0", or "key\0" for a key without a value. */
	for (char *e = out; *e;) {
		char *end = e + strlen(e);
		char *nl = strchr(e, '\n');
		if (nl)
			*nl = '\0';
		if ((r = strv_push(keys, e)) < 0 || (r = strv_push(values, nl ? nl + 1 : "")) < 0)
			return r;
		valueless[keys->n - 1] = !nl;
		e = end + 1;
		if (keys->n >= 4096)
			return -EFBIG;
	}
	return 0;
}

static int write_new(const char *path, const char *text, mode_t mode)
{
	_cleanup_free_ char *tmp = str_printf("%s.agentsandbox-new", path);
	if (!tmp)
		return -ENOMEM;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 0666);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, text, strlen(text));
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	if (r >= 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

/* core.worktree in a submodule's git dir points at its working tree: kept
 * when that lies in the workspace, else it is quarantined like the rest. */
static bool worktree_inside(const struct qr *q, const char *gitdir, const char *value)
{
	_cleanup_free_ char *p = value[0] == '/' ? strdup(value) : join(gitdir, value);
	char real[PATH_MAX];
	return p && path_real(p, real) && path_is_within(real, q->opt->workspace);
}

static int ensure_qdir(struct qr *q, const char *gitdir, char **qdir)
{
	if (*qdir)
		return 0;
	_cleanup_free_ char *top = join(gitdir, QDIR_NAME);
	char *d = top ? str_printf("%s/%s", top, q->session) : NULL;
	if (!d)
		return -ENOMEM;
	if ((mkdir(top, 0700) < 0 && errno != EEXIST) || (mkdir(d, 0700) < 0 && errno != EEXIST)) {
		int r = -errno;
		free(d);
		return r;
	}
	*qdir = d;
	return 0;
}

/* The entries of a config, and which of them stay. */
struct cfg_entries {
	struct strv keys, values; /* values: "\x01" for a key without one */
	struct strv kept_k, kept_v;
	char *dropped; /* "core.fsmonitor, alias.x" */
	bool unreadable;
};

static void cfg_entries_free(struct cfg_entries *c)
{
	strv_clear(&c->keys);
	strv_clear(&c->values);
	strv_clear(&c->kept_k);
	strv_clear(&c->kept_v);
	free(c->dropped);
}

static int classify(struct qr *q, const char *gitdir, const char *path, struct cfg_entries *c)
{
	bool *valueless = calloc(4097, sizeof(bool));
	if (!valueless || !(c->dropped = strdup("")))
		return free(valueless), -ENOMEM;
	int r = list_config(q, path, &c->keys, &c->values, valueless);
	c->unreadable = r < 0;
	for (size_t i = 0; !c->unreadable && i < c->keys.n; i++) {
		const char *k = c->keys.v[i];
		bool keep = qr_key_kept(k) || (strcmp(k, "core.worktree") == 0 &&
		                               worktree_inside(q, gitdir, c->values.v[i]));
		if (keep) {
			if (strv_push(&c->kept_k, k) < 0 ||
			    strv_push(&c->kept_v, valueless[i] ? "\x01" : c->values.v[i]) < 0) {
				free(valueless);
				return -ENOMEM;
			}
			continue;
		}
		char *d = str_printf("%s%s%s", c->dropped, c->dropped[0] ? ", " : "", k);
		if (!d) {
			free(valueless);
			return -ENOMEM;
		}
		free(c->dropped);
		c->dropped = d;
	}
	free(valueless);
	return 0;
}

static char *render_kept(const struct cfg_entries *c, bool minimal)
{
	if (minimal)
		return strdup("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = "
		              "false\n");
	const char **vals = calloc(c->kept_k.n + 1, sizeof(char *));
	if (!vals)
		return NULL;
	for (size_t i = 0; i < c->kept_k.n; i++)
		vals[i] = strcmp(c->kept_v.v[i], "\x01") == 0 ? NULL : c->kept_v.v[i];
	char *text = qr_render_config((const char *const *)c->kept_k.v, vals, c->kept_k.n);
	free(vals);
	return text;
}

/* A config (config, config.worktree) without what git would execute: the
 * original goes to the quarantine, the rest is written back. One git cannot
 * read at all is quarantined whole (a minimal one replaces `config`). */
static int sanitize_config(struct qr *q, const char *gitdir, const char *name, char **qdir,
                           struct strv *moved, struct strv *restore)
{
	_cleanup_free_ char *path = join(gitdir, name);
	_cleanup_free_ char *to = NULL, *text = NULL, *qa = NULL, *qb = NULL;
	struct cfg_entries c = {0};
	struct stat st;
	if (!path)
		return -ENOMEM;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	int r = S_ISREG(st.st_mode) ? classify(q, gitdir, path, &c) : (c.unreadable = true, 0);
	if (r >= 0 && !c.unreadable && c.dropped && !c.dropped[0]) {
		cfg_entries_free(&c);
		return 0; /* nothing executable: the config stays as it is */
	}
	if (r >= 0)
		r = ensure_qdir(q, gitdir, qdir);
	if (r >= 0 && !(to = join(*qdir, name)))
		r = -ENOMEM;
	if (r >= 0 && rename(path, to) < 0)
		r = -errno;
	/* An unreadable config.worktree is only moved: nothing needs it. */
	bool minimal = c.unreadable && strcmp(name, "config") == 0;
	if (r >= 0 && (!c.unreadable || minimal)) {
		text = render_kept(&c, minimal);
		r = text ? write_new(path, text, S_ISREG(st.st_mode) ? st.st_mode : 0644) : -ENOMEM;
	}
	if (r >= 0) {
		(void)strv_push_take(moved, c.unreadable
		                                ? str_printf("%s (git could not read it)", name)
		                                : str_printf("%s: %s", name, c.dropped));
		qa = shell_quote(to);
		qb = shell_quote(path);
		(void)strv_push_take(restore,
		                     str_printf("mv -f %s %s", qa ? qa : "", qb ? qb : ""));
	}
	cfg_entries_free(&c);
	return r;
}

/* hooks/ with anything but git's own samples in it. */
static bool hooks_armed(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) < 0)
		return false;
	if (!S_ISDIR(st.st_mode))
		return true; /* a symlink or file where hooks/ should be */
	_cleanup_closedir_ DIR *d = opendir(dir);
	if (!d)
		return true;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		size_t len = strlen(n);
		if (len <= 7 || strcmp(n + len - 7, ".sample") != 0)
			return true;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

static int move_aside(struct qr *q, const char *gitdir, const char *name, char **qdir,
                      struct strv *moved, struct strv *restore)
{
	_cleanup_free_ char *path = join(gitdir, name);
	int r = path ? ensure_qdir(q, gitdir, qdir) : -ENOMEM;
	if (r < 0)
		return r;
	_cleanup_free_ char *to = join(*qdir, name);
	if (!to)
		return -ENOMEM;
	if (rename(path, to) < 0)
		return -errno;
	(void)strv_push(moved, name);
	_cleanup_free_ char *qa = shell_quote(to), *qb = shell_quote(path);
	(void)strv_push_take(restore, str_printf("mv %s %s", qa ? qa : "", qb ? qb : ""));
	return 0;
}

static char *joined(const struct strv *v, const char *sep)
{
	char *out = strdup("");
	for (size_t i = 0; out && i < v->n; i++) {
		char *n = str_printf("%s%s%s", out, i ? sep : "", v->v[i]);
		free(out);
		out = n;
	}
	return out;
}

static void report(struct qr *q, const char *what, const char *where, char *qdir,
                   const struct strv *moved, const struct strv *restore, int err)
{
	if (err < 0)
		q->host->log(q->ctx, ASB_LOG_WARN,
		             "%s %s was made inside the sandbox and could not be quarantined (%s): "
		             "do not run git there before reviewing its hooks and config",
		             what, where, strerror(-err));
	if (moved->n) {
		_cleanup_free_ char *m = joined(moved, "; ");
		_cleanup_free_ char *how = joined(restore, " && ");
		q->host->log(q->ctx, ASB_LOG_WARN,
		             "%s %s was made inside the sandbox: quarantined what the host's git "
		             "would run (%s) into %s; to restore it: %s",
		             what, where, m ? m : "", qdir ? qdir : where, how ? how : "");
	} else if (err >= 0) {
		q->host->log(
		    q->ctx, ASB_LOG_INFO,
		    "%s %s was made inside the sandbox: no hooks or executable config in it", what,
		    where);
	}
	if (qdir) {
		/* Nothing moved after all (a failure): no empty directories left. */
		(void)rmdir(qdir);
		char *slash = strrchr(qdir, '/');
		if (slash) {
			*slash = '\0';
			(void)rmdir(qdir);
		}
	}
	free(qdir);
}

/* A git dir made inside: hooks, config, config.worktree, commondir. */
static void quarantine_gitdir(struct qr *q, const struct rs_gitdir *g,
                              const struct rs_result *before)
{
	char *qdir = NULL;
	struct strv moved = {0}, restore = {0};
	int r = 0;
	_cleanup_free_ char *hooks = join(g->path, "hooks");
	if (!g->worktree_admin && hooks && hooks_armed(hooks))
		r = move_aside(q, g->path, "hooks", &qdir, &moved, &restore);
	if (r >= 0 && !g->worktree_admin)
		r = sanitize_config(q, g->path, "config", &qdir, &moved, &restore);
	if (r >= 0)
		r = sanitize_config(q, g->path, "config.worktree", &qdir, &moved, &restore);
	/* A commondir sends git to another dir's config and hooks: kept only when
	 * that dir was protected during the session. */
	_cleanup_free_ char *cd = join(g->path, "commondir");
	struct stat st;
	if (r >= 0 && cd && lstat(cd, &st) == 0) {
		_cleanup_free_ char *content = NULL;
		char real[PATH_MAX];
		bool known = false;
		if (read_file(cd, &content, NULL) >= 0) {
			content[strcspn(content, "\n")] = '\0';
			_cleanup_free_ char *target =
			    content[0] == '/' ? strdup(content) : join(g->path, content);
			known =
			    target && path_real(target, real) && rs_find_gitdir(before, real) >= 0;
		}
		if (!known)
			r = move_aside(q, g->path, "commondir", &qdir, &moved, &restore);
	}
	report(q, g->worktree_admin ? "worktree git dir" : "repository", g->path, qdir, &moved,
	       &restore, r);
	strv_clear(&moved);
	strv_clear(&restore);
}

static bool repo_known(const struct rs_result *r, const char *worktree)
{
	for (size_t i = 0; i < r->n_repos; i++)
		if (r->repos[i].worktree && strcmp(r->repos[i].worktree, worktree) == 0)
			return true;
	return false;
}

/* A .git pointer file or symlink made inside, leading to a git dir that was
 * not protected (outside the workspace: an rw dir, anywhere): moved aside
 * next to itself, so the host's git does not treat the directory as a
 * repository at all. */
static void quarantine_pointer(struct qr *q, const struct rs_repo *repo,
                               const struct rs_result *before, const struct rs_result *now)
{
	const char *target = repo->commondir ? repo->commondir : repo->gitdir;
	char link[PATH_MAX];
	ssize_t n =
	    repo->kind == RS_REPO_LINK ? readlink(repo->gitdir, link, sizeof(link) - 1) : -1;
	if (n >= 0) {
		link[n] = '\0';
		target = link;
	}
	if (repo->kind != RS_REPO_LINK &&
	    (rs_find_gitdir(before, target) >= 0 || rs_find_gitdir(now, target) >= 0))
		return; /* protected all along, or quarantined as a new git dir */
	_cleanup_free_ char *dotgit = join(repo->worktree, ".git");
	_cleanup_free_ char *to =
	    dotgit ? str_printf("%s.agentsandbox-quarantine-%s", dotgit, q->session) : NULL;
	if (!to)
		return;
	if (rename(dotgit, to) < 0) {
		q->host->log(q->ctx, ASB_LOG_WARN,
		             "%s (made inside the sandbox, leading to %s) could not be moved aside "
		             "(%s): do not run git in %s",
		             dotgit, target, strerror(errno), repo->worktree);
		return;
	}
	_cleanup_free_ char *qa = shell_quote(to), *qb = shell_quote(dotgit);
	q->host->log(q->ctx, ASB_LOG_WARN,
	             "%s was made inside the sandbox and leads to %s, whose hooks and config were "
	             "not protected: moved to %s; to restore it: mv %s %s",
	             dotgit, target, to, qa ? qa : "", qb ? qb : "");
}

void qr_after_exit(const struct asb_host *host, struct asb_ctx *ctx, const struct rs_options *opt,
                   const struct rs_result *before, const struct rs_result *now)
{
	const char *sid = host->policy_string(ctx, "session_id");
	struct qr q = {.host = host, .ctx = ctx, .opt = opt, .session = sid ? sid : "session"};
	if (host->find_executable(ctx, "git", q.git, sizeof(q.git)) < 0)
		q.git[0] = '\0';
	for (size_t i = 0; i < now->n_gitdirs; i++)
		if (rs_find_gitdir(before, now->gitdirs[i].path) < 0)
			quarantine_gitdir(&q, &now->gitdirs[i], before);
	for (size_t i = 0; i < now->n_repos; i++) {
		const struct rs_repo *repo = &now->repos[i];
		if (!repo->worktree || repo_known(before, repo->worktree))
			continue;
		if (repo->kind == RS_REPO_WORKTREE || repo->kind == RS_REPO_SUBMODULE ||
		    repo->kind == RS_REPO_LINK)
			quarantine_pointer(&q, repo, before, now);
	}
}
