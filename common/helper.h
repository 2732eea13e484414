/* SPDX-License-Identifier: MIT */
/* Long-running helpers that an in-tree plugin starts for the length of one
 * launch (the brokers of plugins/ssh, gpg, docker; xdg-dbus-proxy): a fresh
 * program image (exec, never a fork of the launcher's memory), only the
 * named descriptors inherited (as 3, 4, ... in order), stdin from
 * /dev/null, stdout and stderr into `log_fd`, its own process group (^C at
 * the terminal is the agent's), and death with the launcher through the
 * sync pipe: the helper gets its write end, writes one byte once it serves,
 * and leaves when the read end (the launcher's, close-on-exec, closed by
 * the kernel however the launcher ends) is gone: POLLERR on its end
 * (agentsandbox-broker, xdg-dbus-proxy --fd). Portable: no pidfd, no
 * PR_SET_PDEATHSIG (common/ is checked by tests/portable-core.sh). */
#ifndef ASB_COMMON_HELPER_H
#define ASB_COMMON_HELPER_H

#include <stddef.h>
#include <sys/types.h>

struct helper {
	pid_t pid; /* 0: none */
	int sync;  /* the launcher's end of the sync pipe, or -1 */
};

#define HELPER_INIT                                                                                \
	{                                                                                          \
		.pid = 0, .sync = -1                                                               \
	}

/* Start argv[0] (absolute). With `sync_fd_arg` set ("--sync-fd=%d" or
 * "--fd=%d"), a sync pipe is made, its write end becomes the helper's
 * descriptor 3 + n_fds and the formatted argument is appended to argv.
 * `envp` NULL: an empty environment. */
int helper_start(struct helper *h, const char *const *argv, const char *const *envp, const int *fds,
                 size_t n_fds, const char *sync_fd_arg, int log_fd);

/* Wait up to timeout_ms for the helper's ready byte: 0, -ETIMEDOUT, or
 * -ECHILD when it ended first (its reason is in its log). */
int helper_wait_ready(struct helper *h, int timeout_ms);

/* SIGTERM, up to timeout_ms for it to end, then SIGKILL; reaped. One the
 * supervisor's loop reaped already is left alone (never a reused pid). */
void helper_stop(struct helper *h, int timeout_ms);

/* agentsandbox-broker MODE --upstream UPSTREAM --log LOG [extra...], serving
 * `listen_fd`, stderr to the launcher's; returns once it serves (up to 5 s). */
int helper_start_broker(struct helper *h, const char *mode, const char *upstream, const char *log,
                        const char *const *extra, int listen_fd);

/* A listening unix stream socket at dir/name, mode 0600 (fd, close-on-exec;
 * -ENAMETOOLONG where the path does not fit a socket address and the
 * platform has no short way to name the directory). */
int helper_listen_unix(const char *dir, const char *name, int *fd);

#endif
