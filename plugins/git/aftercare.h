/* SPDX-License-Identifier: MIT */
/* After the sandbox exits: remove the placeholders the masks created on the
 * host, and audit what the agent left in the git dirs. */
#ifndef ASB_GIT_AFTERCARE_H
#define ASB_GIT_AFTERCARE_H

#include <agentsandbox/plugin.h>

#include <sys/types.h>

#include "repo_scan.h"

/* A path that did not exist on the host and that a mask creates there. The
 * launcher holds a shared flock on its parent directory for the whole session,
 * so that a concurrent sandbox using the same repository keeps its mounts:
 * removing a mount point on the host detaches the mounts on it elsewhere. */
struct placeholder {
	char *path;
	int parent_fd; /* borrowed from locks */
	size_t lock;
	int is_dir;
};

/* One open file description per directory: flock() locks held through two
 * descriptions of the same directory conflict even within one process. */
struct dir_lock {
	int fd;
	dev_t dev;
	ino_t ino;
	int exclusive;
};

struct placeholders {
	struct placeholder *items;
	size_t n, cap;
	struct dir_lock *locks;
	size_t n_locks, cap_locks;
	/* The journal: the paths, one per line, in a file of the state
	 * directory that this launcher holds an exclusive flock on for its
	 * whole life. A launcher killed outright (SIGKILL) cannot remove its
	 * placeholders; its lock goes with it, and the next launch that finds
	 * an unlocked journal removes what it lists (placeholders_reap). */
	int journal_fd;
	char *journal;
};

/* Record `path` (from rs_result.mounts, placeholder set) and lock its parent. */
int placeholders_add(struct placeholders *p, const char *path, int is_dir);
/* Write the journal of the placeholders recorded so far into `dir`
 * (created 0700), named after `id`, and hold it locked. */
int placeholders_journal(struct placeholders *p, const char *dir, const char *id);
/* Remove what killed launches left: for every journal in `dir` that no
 * living launcher holds, each listed path that is still an empty file or
 * directory, when no sandbox uses its repository (the parent's lock);
 * then the journal, once nothing it lists is left. */
void placeholders_reap(const struct asb_host *host, struct asb_ctx *ctx, const char *dir);
/* Remove those still empty, newest first; log what was done; drop the
 * journal when none is left. */
void placeholders_cleanup(const struct asb_host *host, struct asb_ctx *ctx, struct placeholders *p);
void placeholders_free(struct placeholders *p);

/* Re-scan the workspace: warn about git dirs that appeared during the session
 * (their hooks and config were writable inside) and remove a `commondir` the
 * agent planted in a protected git dir (it would redirect config and hooks). */
void audit_after_exit(const struct asb_host *host, struct asb_ctx *ctx,
                      const struct rs_options *opt, const struct rs_result *before);

#endif
