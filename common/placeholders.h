/* SPDX-License-Identifier: MIT */
/* Mount points a sandbox leaves on the host. A mask (or a generated file)
 * placed where nothing exists yet, inside a directory bound from the host,
 * needs an empty file or directory there: a spare put in place (spares.h),
 * else one made by the launcher (placeholders_make), else by the backend.
 * The plugin that asked records each such path, holds a shared flock on
 * its parent for the whole session (a concurrent sandbox using the same
 * directory keeps its mounts: removing a mount point on the host detaches
 * the mounts on it elsewhere), and after exit removes those still empty,
 * once it holds the lock alone. Shared by the git and projectfiles plugins. */
#ifndef ASB_COMMON_PLACEHOLDERS_H
#define ASB_COMMON_PLACEHOLDERS_H

#include <agentsandbox/plugin.h>

#include <stddef.h>
#include <sys/types.h>

struct placeholder {
	char *path;
	int parent_fd; /* borrowed from locks */
	size_t lock;
	int is_dir;
	int gone;   /* moved away already (spares_keep): nothing left to remove */
	int placed; /* a spare put in place (spares_place): nothing to make */
};

/* One open file description per directory: flock() locks held through two
 * descriptions of the same directory conflict even within one process. */
struct dir_lock {
	int fd;
	char *dir; /* its path, as recorded */
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
	int journal_fd; /* 0: none */
	char *journal;
};

/* What the cleanup did, one line each (the caller logs it). */
typedef void (*placeholders_log_fn)(void *userdata, const char *line);
/* The usual one: each line at INFO through the plugin's host->log, with a
 * struct placeholders_to_host as its userdata. */
struct placeholders_to_host {
	const struct asb_host *host;
	struct asb_ctx *ctx;
};
void placeholders_log_to_host(void *userdata, const char *line);

/* Record `path` (missing now; absolute and canonical) and lock its parent,
 * opened without following a symlink anywhere (-ELOOP or -ENOTDIR). */
int placeholders_add(struct placeholders *p, const char *path, int is_dir);
/* Each placeholder still missing, made here as the backend would make its
 * mount point (a directory 0755, an empty file 0444), never over anything;
 * once journaled. The launcher may write where the sandbox's user namespace
 * may not: root's override of file permissions inside reaches only the
 * files of the users mapped there, so root in a project another user owns
 * cannot make the mount point inside. What fails here is logged, and left
 * to the backend. */
void placeholders_make(const struct placeholders *p, placeholders_log_fn log, void *userdata);
/* Is `path` recorded? */
int placeholders_has(const struct placeholders *p, const char *path);
/* Where `plugin`'s journals live: ".PLUGIN-placeholders" beside the session
 * directory `session_dir` (malloc'd; NULL without memory or a parent). */
char *placeholders_journal_dir(const char *session_dir, const char *plugin);
/* Write the journal of the placeholders recorded so far into `dir`
 * (created 0700), named after `id`, and hold it locked. */
int placeholders_journal(struct placeholders *p, const char *dir, const char *id);
/* Remove what killed launches left: for every journal in `dir` that no
 * living launcher holds, each listed path that is still an empty file or
 * directory, when no sandbox uses its directory (the parent's lock); then
 * the journal, once nothing it lists is left. */
void placeholders_reap(const char *dir, placeholders_log_fn log, void *userdata);
/* Remove those still empty, newest first, but for those already gone;
 * drop the journal when none is left (what another sandbox still uses, a
 * later launch reaps). */
void placeholders_cleanup(struct placeholders *p, placeholders_log_fn log, void *userdata);
void placeholders_free(struct placeholders *p);

#endif
