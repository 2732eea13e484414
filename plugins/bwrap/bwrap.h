/* SPDX-License-Identifier: MIT */
/* The bubblewrap backend's state and its two halves: the binary it trusts
 * and runs (bwrap.c), and the plan rendered as bubblewrap's op list
 * (bwrap_args.c). */
#ifndef ASB_BWRAP_H
#define ASB_BWRAP_H

#include "init_mounts.h"

#include <agentsandbox/plugin.h>

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#define BWRAP_COPY_DIRS_MAX 4

enum { COPY_NONE, COPY_FILE, COPY_GONE };
struct bwrap_copy {
	int state; /* COPY_NONE: rendered as the plan says; COPY_GONE: skipped */
	int fd;    /* COPY_FILE: the host file, read by bubblewrap */
	uint32_t mode;
	int dir;        /* COPY_FILE: its index in copy_dirs */
	struct stat st; /* COPY_FILE: the file's, when opened */
};

/* plugins.bwrap.builder: what makes the sandbox from the op list. */
enum bwrap_builder {
	BUILDER_AUTO,       /* init where it can, else bubblewrap (the default) */
	BUILDER_BUBBLEWRAP, /* bubblewrap */
	BUILDER_INIT,       /* agentsandbox-init itself, or the launch fails */
};

struct bwrap {
	enum bwrap_builder builder;
	/* Which one probe chose: agentsandbox-init makes the sandbox from
	 * the same options (linux/init/sandbox.c), and path is unused. */
	bool native;
	char path[PATH_MAX];
	char version[64];
	unsigned major, minor;
	/* Runtime (from prepare): bubblewrap reports the sandbox's pid on
	 * info and waits on block until released. [0] read end, [1] write end. */
	int info[2];
	int block[2];
	/* The init helper's report that it reached the agent's command
	 * (ASB_INIT_STATUS_ENV), when the plan runs it. */
	int status[2];
	/* The executables on PATH as one checked directory (bin_dir.c), or -1:
	 * a symlink op each. */
	int bin_fd;
	/* The plan's system files copied instead of bound (copies.c): per
	 * entry, by index; and the top-level directories made a read-only
	 * tmpfs to hold them. */
	struct bwrap_copy *copies;
	size_t n_copies;
	char copy_dirs[BWRAP_COPY_DIRS_MAX][64];
	size_t n_copy_dirs;
	/* Each copy dir as a kept, checked directory of its copies, bound in
	 * its place (copy_cache.c): the fd (a real launch, locked shared until
	 * the end), or the path when one exists (a dry run); else -1 / NULL. */
	int cache_fd[BWRAP_COPY_DIRS_MAX];
	char *cache_path[BWRAP_COPY_DIRS_MAX];
	/* The mounts agentsandbox-init makes instead (init_mounts.c). */
	struct init_mounts mounts;
	bool prepared;     /* prepare ran: a real launch, not a dry run */
	pid_t sandbox_pid; /* bubblewrap's pid 1 inside, once read from info */
	bool info_done;
};

/* Render the plan as bubblewrap arguments through host->out_arg. Pure: no
 * fork, no exec, no filesystem changes. */
bool bwrap_may_add_caps(const struct bwrap *b);
int bwrap_render(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b);
/* Which mounts init makes (init_mounts_plan), with the directories made
 * read-only at the end: the copies' and ASB_RUN_DIR. After
 * bwrap_copies_open. */
int bwrap_plan_init_mounts(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                           struct init_mounts *m);

/* Where the directory for this plan's executables is kept (its content is
 * a function of the plan's list alone), and that directory made or found
 * and checked, as an fd to bind. 0, or -errno (the caller then renders a
 * symlink op per executable). */
int bwrap_bin_dir_path(const struct asb_host *host, struct asb_ctx *ctx, char *out, size_t len);
int bwrap_bin_dir(const struct asb_host *host, struct asb_ctx *ctx, int *fd_out);

/* Open the plan's system files that can be copies (before rendering);
 * close them. */
int bwrap_copies_open(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b);
void bwrap_copies_close(struct bwrap *b);
/* The index in copy_dirs of dest's top-level directory, or -1. */
int bwrap_copy_dir_of(const struct bwrap *b, const char *dest);

/* The copy dirs as kept directories of their copies (copy_cache.c), after
 * bwrap_copies_open and the init mounts' plan. open (a real launch): found
 * or made, checked and locked, into cache_fd; find (a dry run): the path
 * of one that exists, into cache_path. A copy dir that cannot be (an entry
 * no copy, a file just changed) stays one op per file. 0, or -ENOMEM. */
int bwrap_copy_cache_open(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b,
                          const struct init_mounts *m);
int bwrap_copy_cache_find(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b,
                          const struct init_mounts *m);

#endif
