/* SPDX-License-Identifier: MIT */
/*
 * Discovery of the git repositories a sandbox exposes, and the mounts that keep
 * what the host would later execute read-only. Pure filesystem logic: nothing
 * here talks to the host API, so it is unit-tested on temporary repositories.
 */
#ifndef ASB_GIT_REPO_SCAN_H
#define ASB_GIT_REPO_SCAN_H

#include <stddef.h>

#include "dirlist.h"

/* Mount operations, in the order they must be applied (rs_result.mounts). */
#define RS_BIND_RO   1 /* existing path bound read-only over itself */
#define RS_BIND_RW   2 /* existing directory bound read-write over itself */
#define RS_MASK_FILE 3 /* missing file: an empty read-only file */
#define RS_MASK_DIR  4 /* missing directory: an empty read-only directory */
#define RS_TMPFS     5 /* missing directory: an empty writable tmpfs (holds a mask) */

/* Why a scan stopped early (rs_result.limits_hit). */
#define RS_LIMIT_REPOS 0x1u
#define RS_LIMIT_DEPTH 0x2u
#define RS_LIMIT_DIRS  0x4u

/* Repository kinds. */
#define RS_REPO_DIR       1 /* working tree with a .git directory */
#define RS_REPO_WORKTREE  2 /* linked worktree: .git file, gitdir has a commondir */
#define RS_REPO_SUBMODULE 3 /* .git file to a full git dir (submodule, --separate-git-dir) */
#define RS_REPO_BARE      4 /* a git directory found as such */
#define RS_REPO_LINK      5 /* audit only: a .git that is a symlink (gitdir: the link) */

struct rs_limits {
	unsigned max_repos; /* repositories and git dirs taken into account */
	unsigned max_depth; /* directory levels below the workspace */
	unsigned max_dirs;  /* directories read while scanning */
};

struct rs_options {
	const char *workspace;       /* absolute */
	const char *home;            /* never exposed as a working-tree root; may be NULL */
	const char *const *rw_paths; /* declared rw paths, re-bound under a read-only root */
	struct rs_limits limits;
	int audit;                  /* post-exit re-scan: record what is there, fail on nothing */
	struct dirlist_cache *dirs; /* listings kept by the scan, reused by the audit where
	                             * unchanged (dirlist.h); may be NULL */
};

struct rs_mount {
	int op;          /* RS_* */
	int placeholder; /* the path is missing on the host: mounting creates it there */
	char *path;
	const char *why; /* static: what the path is */
};

struct rs_repo {
	int kind;       /* RS_REPO_* */
	int exposed;    /* its git dir is visible (and protected) in the sandbox */
	char *worktree; /* working tree root; NULL for a bare git dir */
	char *gitdir;   /* resolved git directory */
	char *commondir;
};

/* A git directory the scan protected: a full one (config, hooks, objects) or
 * a linked worktree's administrative directory. */
struct rs_gitdir {
	char *path;
	int worktree_admin;
	int had_commondir;
	int had_worktree_config;
};

struct rs_result {
	struct rs_mount *mounts;
	size_t n_mounts, cap_mounts;
	struct rs_repo *repos;
	size_t n_repos, cap_repos;
	struct rs_gitdir *gitdirs; /* every full git dir protected */
	size_t n_gitdirs, cap_gitdirs;
	char *tree_root;     /* working-tree root above the workspace, when exposed */
	char *skipped_root;  /* working-tree root above the workspace, not exposed */
	unsigned limits_hit; /* RS_LIMIT_* */
	unsigned dirs_scanned;
	char *error_path; /* on failure: the path that could not be protected */
};

/* Scan the workspace (and the working tree it is in) and compute the mounts.
 * Returns 0, or -errno with error_path set (e.g. -ELOOP for a protected path
 * that is a symlink, which no mount can pin). */
int rs_scan(const struct rs_options *opt, struct rs_result *out);
void rs_result_free(struct rs_result *r);

/* Index of `path` in r->gitdirs, or -1. */
long rs_find_gitdir(const struct rs_result *r, const char *path);

const char *rs_op_name(int op);
const char *rs_kind_name(int kind);

#endif
