/* SPDX-License-Identifier: MIT */
/* The supervisor: one libev loop that waits for the spawned sandbox,
 * forwards signals sent to the launcher to the agent (through the backend's
 * signal operation) and returns the sandbox's wait status. Signals reach the
 * loop through a self-pipe (portable; it keeps whether a signal came from
 * the terminal, which already delivered it to the agent's process group). */
#ifndef ASB_CORE_SUPERVISOR_H
#define ASB_CORE_SUPERVISOR_H

#include <stddef.h>
#include <sys/types.h>

/* Deliver `sig` to the agent. */
typedef void (*supervisor_forward_fn)(void *userdata, int sig);

/* Create the event loop and catch the forwarded signals (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) before anything is spawned, so none is
 * lost. */
int supervisor_prepare(void);

struct terminal;

/* Catch these too (the terminal's: SIGWINCH, SIGTSTP, SIGCONT). */
int supervisor_catch(const int *sigs, size_t n);

/* Run until `child` exits; returns its wait status, or -errno. With a
 * terminal, its signals go to it, and SIGINT/SIGQUIT typed at the user's
 * terminal are passed on when the agent has a session of its own. */
int supervisor_run(pid_t child, supervisor_forward_fn forward, void *userdata,
                   struct terminal *term);

/* Stop the launcher as SIGTSTP would (the shell gets its prompt back);
 * returns once continued. */
void supervisor_stop_self(void);

/* Put the default dispositions back. */
void supervisor_release(void);

/* Exit code for a wait status: the code, or 128 + signal. */
int supervisor_exit_code(int wstatus);

#endif
