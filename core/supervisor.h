/* SPDX-License-Identifier: MIT */
/* The supervisor: one libev loop that owns the backend process, forwards
 * signals to the agent and returns its wait status. */
#ifndef ASB_CORE_SUPERVISOR_H
#define ASB_CORE_SUPERVISOR_H

#include <signal.h>
#include <sys/types.h>

/* Signals forwarded to the agent (blocked in the launcher, read through a
 * signalfd; the child gets them unblocked). */
void supervisor_signal_set(sigset_t *set);

/* Create the event loop (and its SIGCHLD handling) before forking, so an
 * early exit of the child is never missed. */
int supervisor_prepare(void);

/* Run until `child` exits; forward signals to the processes whose parent is
 * *sandbox_init (the sandbox's pid 1 seen from here), or to `child` when
 * that is unknown. When *sandbox_init is not known yet (<= 0) and info_fd
 * is open, it is read from there when first needed, and at the latest once
 * the child exited. Returns the wait status, or -errno. */
int supervisor_run(pid_t child, pid_t *sandbox_init, int info_fd, int signal_fd);

/* Read bubblewrap-style info ({"child-pid": N}) until the writer closes;
 * -1 when there is none (the backend failed before the sandbox existed). */
pid_t supervisor_read_sandbox_pid(int fd);

/* Exit code for a wait status: the code, or 128 + signal. */
int supervisor_exit_code(int wstatus);

#endif
