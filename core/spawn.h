/* SPDX-License-Identifier: MIT */
/* Starting programs: the backend's command (the sandbox) and helper
 * programs. Only fds 0-2 and the ones named are inherited; the sandbox gets
 * the launch's limits and no_new_privs; everything dies with the launcher. */
#ifndef ASB_CORE_SPAWN_H
#define ASB_CORE_SPAWN_H

#include "rlimits.h"
#include "terminal.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct netns_at_spawn; /* platform.h */

struct spawn_opts {
	const int *keep_fds;
	size_t n_keep_fds;
	const struct limits_set *limits; /* NULL: leave them */
	bool no_new_privs;
	bool quiet_stdin;                   /* stdin from /dev/null */
	int stdout_fd, stderr_fd;           /* -1: inherited */
	bool own_group;                     /* its own process group (helpers: ^C is the agent's) */
	const char *cwd;                    /* chdir there first (NULL: stay) */
	const struct terminal *term;        /* the sandbox: its session and terminal */
	const struct netns_at_spawn *netns; /* start it in a new network namespace */
	char *why;                          /* NULL, or where a failure in the child is told */
	size_t why_len;
};

/* Start argv[0] (vfork where it can, fork where a relay must stay above
 * it, see spawn.c); *pid on success. What the child could not do before
 * its program ran (the directory, the limits, the exec) is this call's
 * -errno, told in o->why, and that child is reaped; only where a pty
 * relay sits above it does the child say so on its stderr and exit 125. */
int spawn_exec(const char *const *argv, const char *const *envp, const struct spawn_opts *o,
               pid_t *pid);

/* A process spawn_exec started with `o`, given up on before it was used
 * (what it should have sent did not come): ended and reaped. Under a
 * relay the child that failed ends first, so that it is not left behind
 * unreaped. */
void spawn_abandon(pid_t pid, const struct spawn_opts *o);

/* Run to completion; stdout captured into out (NUL-terminated, truncated),
 * stderr into launch.log line by line, escaped (or discarded). Waits for
 * exactly that child. */
int spawn_run(const char *const *argv, const char *const *envp, bool stderr_to_log, int *wstatus,
              char *out, size_t out_len);

#endif
