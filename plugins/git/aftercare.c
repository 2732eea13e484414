/* SPDX-License-Identifier: MIT */
#include "aftercare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "util.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int open_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return -EINVAL;
	_cleanup_free_ char *parent =
	    slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
	if (!parent)
		return -ENOMEM;
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int placeholders_add(struct placeholders *p, const char *path, int is_dir)
{
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 8;
		struct placeholder *items = reallocarray(p->items, ncap, sizeof(*items));
		if (!items)
			return -ENOMEM;
		p->items = items;
		p->cap = ncap;
	}
	_cleanup_close_ int fd = open_parent(path);
	if (fd < 0)
		return fd;
	/* Shared: every sandbox that masks here holds it; cleanup wants it alone. */
	if (flock(fd, LOCK_SH) < 0)
		return -errno;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	p->items[p->n++] = (struct placeholder){.path = copy, .parent_fd = fd, .is_dir = is_dir};
	fd = -1;
	return 0;
}

void placeholders_free(struct placeholders *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->items[i].path);
		if (p->items[i].parent_fd >= 0)
			close(p->items[i].parent_fd);
	}
	free(p->items);
	*p = (struct placeholders){0};
}

static void remove_one(const struct asb_host *host, struct asb_ctx *ctx, struct placeholder *ph)
{
	const char *name = base_name(ph->path);
	struct stat st;
	if (fstatat(ph->parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return; /* never created (launch failed early) or already gone */
	if (flock(ph->parent_fd, LOCK_EX | LOCK_NB) < 0) {
		host->log(ctx, ASB_LOG_INFO,
		          "git: placeholder %s left in place: another sandbox uses this repository",
		          ph->path);
		return;
	}
	int r;
	if (ph->is_dir && S_ISDIR(st.st_mode))
		r = unlinkat(ph->parent_fd, name, AT_REMOVEDIR);
	else if (!ph->is_dir && S_ISREG(st.st_mode) && st.st_size == 0)
		r = unlinkat(ph->parent_fd, name, 0);
	else
		r = -1, errno = ENOTEMPTY;
	if (r == 0)
		host->log(ctx, ASB_LOG_INFO, "git: removed placeholder %s", ph->path);
	else
		host->log(ctx, ASB_LOG_INFO, "git: placeholder %s left in place: %s", ph->path,
		          strerror(errno));
	/* Back to shared until close, so a sandbox racing us sees it held. */
	(void)flock(ph->parent_fd, LOCK_SH);
}

void placeholders_cleanup(const struct asb_host *host, struct asb_ctx *ctx, struct placeholders *p)
{
	/* Newest first: a masked file sits inside a placeholder directory. */
	for (size_t i = p->n; i-- > 0;)
		remove_one(host, ctx, &p->items[i]);
}

/* A commondir the agent created in a git dir that had none: it would point
 * the host's git at config and hooks of the agent's choosing. */
static void remove_planted_commondir(const struct asb_host *host, struct asb_ctx *ctx,
                                     const char *gitdir)
{
	_cleanup_close_ int fd = open(gitdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	struct stat st;
	if (fstatat(fd, "commondir", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode) && unlinkat(fd, "commondir", 0) == 0)
		host->log(ctx, ASB_LOG_WARN,
		          "git: removed %s/commondir, created inside the sandbox: it would have "
		          "redirected git's config and hooks",
		          gitdir);
	else
		host->log(ctx, ASB_LOG_WARN,
		          "git: %s/commondir was created inside the sandbox and could not be "
		          "removed: do not run git in that repository before deleting it",
		          gitdir);
}

void audit_after_exit(const struct asb_host *host, struct asb_ctx *ctx,
                      const struct rs_options *opt, const struct rs_result *before)
{
	struct rs_options aopt = *opt;
	aopt.audit = 1;
	struct rs_result now;
	if (rs_scan(&aopt, &now) < 0) {
		host->log(ctx, ASB_LOG_WARN, "git: post-exit audit of %s failed", opt->workspace);
		rs_result_free(&now);
		return;
	}
	for (size_t i = 0; i < before->n_gitdirs; i++) {
		const struct rs_gitdir *g = &before->gitdirs[i];
		if (g->worktree_admin || g->had_commondir)
			continue;
		_cleanup_free_ char *cd = NULL;
		struct stat st;
		if (asprintf(&cd, "%s/commondir", g->path) >= 0 && lstat(cd, &st) == 0)
			remove_planted_commondir(host, ctx, g->path);
	}
	for (size_t i = 0; i < now.n_gitdirs; i++) {
		const struct rs_gitdir *g = &now.gitdirs[i];
		if (rs_find_gitdir(before, g->path) >= 0)
			continue;
		if (!g->worktree_admin)
			host->log(
			    ctx, ASB_LOG_WARN,
			    "git: %s was created inside the sandbox; its hooks and config were "
			    "writable there: review them before running git in it",
			    g->path);
		else if (g->had_worktree_config)
			host->log(ctx, ASB_LOG_WARN,
			          "git: worktree %s was added inside the sandbox with a "
			          "config.worktree: review it before running git in that worktree",
			          g->path);
		else
			host->log(ctx, ASB_LOG_INFO,
			          "git: worktree %s was added inside the sandbox", g->path);
	}
	if (now.limits_hit)
		host->log(ctx, ASB_LOG_WARN,
		          "git: post-exit audit stopped at its scan limits; repositories created "
		          "deeper were not checked");
	rs_result_free(&now);
}
