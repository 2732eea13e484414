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
#include <sys/types.h>

struct bwrap {
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
	/* The mounts agentsandbox-init makes instead (init_mounts.c). */
	struct init_mounts mounts;
	bool prepared;     /* prepare ran: a real launch, not a dry run */
	pid_t sandbox_pid; /* bubblewrap's pid 1 inside, once read from info */
	bool info_done;
};

/* Render the plan as bubblewrap arguments through host->out_arg. Pure: no
 * fork, no exec, no filesystem changes. */
int bwrap_render(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b);

/* Where the directory for this plan's executables is kept (its content is
 * a function of the plan's list alone), and that directory made or found
 * and checked, as an fd to bind. 0, or -errno (the caller then renders a
 * symlink op per executable). */
int bwrap_bin_dir_path(const struct asb_host *host, struct asb_ctx *ctx, char *out, size_t len);
int bwrap_bin_dir(const struct asb_host *host, struct asb_ctx *ctx, int *fd_out);

#endif
