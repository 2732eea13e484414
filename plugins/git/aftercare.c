/* SPDX-License-Identifier: MIT */
#include "aftercare.h"

#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "quarantine.h"
#include "util.h"

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
		          "removed %s/commondir, created inside the sandbox: it would have "
		          "redirected git's config and hooks",
		          gitdir);
	else
		host->log(ctx, ASB_LOG_WARN,
		          "%s/commondir was created inside the sandbox and could not be "
		          "removed: do not run git in that repository before deleting it",
		          gitdir);
}

void audit_after_exit(const struct asb_host *host, struct asb_ctx *ctx,
                      const struct rs_options *opt, const struct rs_result *before, int quarantine)
{
	struct rs_options aopt = *opt;
	aopt.audit = 1;
	struct rs_result now;
	size_t kept0, read0, kept, read;
	dirlist_counts(opt->dirs, &kept0, &read0);
	if (rs_scan(&aopt, &now) < 0) {
		host->log(ctx, ASB_LOG_WARN, "post-exit audit of %s failed", opt->workspace);
		rs_result_free(&now);
		return;
	}
	dirlist_counts(opt->dirs, &kept, &read);
	host->log(ctx, ASB_LOG_INFO,
	          "post-exit audit of %s: %zu directories read, %zu unchanged since last read",
	          opt->workspace, read - read0, kept - kept0);
	for (size_t i = 0; i < before->n_gitdirs; i++) {
		const struct rs_gitdir *g = &before->gitdirs[i];
		if (g->worktree_admin || g->had_commondir)
			continue;
		_cleanup_free_ char *cd = NULL;
		struct stat st;
		if (asprintf(&cd, "%s/commondir", g->path) >= 0 && lstat(cd, &st) == 0)
			remove_planted_commondir(host, ctx, g->path);
	}
	if (quarantine)
		qr_after_exit(host, ctx, opt, before, &now);
	for (size_t i = 0; !quarantine && i < now.n_gitdirs; i++) {
		const struct rs_gitdir *g = &now.gitdirs[i];
		if (rs_find_gitdir(before, g->path) >= 0)
			continue;
		if (!g->worktree_admin)
			host->log(ctx, ASB_LOG_WARN,
			          "%s was created inside the sandbox; its hooks and config were "
			          "writable there and git quarantine is off: review them before "
			          "running git in it",
			          g->path);
		else if (g->had_worktree_config)
			host->log(ctx, ASB_LOG_WARN,
			          "worktree %s was added inside the sandbox with a "
			          "config.worktree: review it before running git in that worktree",
			          g->path);
		else
			host->log(ctx, ASB_LOG_INFO, "worktree %s was added inside the sandbox",
			          g->path);
	}
	if (now.limits_hit)
		host->log(ctx, ASB_LOG_WARN,
		          "post-exit audit stopped at its scan limits; repositories created "
		          "deeper were not checked");
	rs_result_free(&now);
}
