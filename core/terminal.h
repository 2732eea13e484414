/* SPDX-License-Identifier: MIT */
/* The agent's terminal. By default the sandbox never gets the user's
 * terminal: its whole session is detached from it, and when the launcher's
 * stdout or stderr is a terminal the agent gets a pty of its own instead,
 * whose output reaches the real terminal through core/termfilter.c. Window
 * size, signals, job control and raw mode pass through: the real terminal
 * is put in raw mode and keystrokes go to the pty as they come, one read
 * and one write per chunk, in the supervisor's libev loop. TIOCSTI and
 * TIOCLINUX inside then reach only that pty.
 *
 * Modes (terminal.mode):
 *   TERM_FILTERED  a pty between the agent and the user's terminal
 *   TERM_DETACHED  no terminal on 0-2: the sandbox only loses the
 *                  controlling terminal (no /dev/tty into the user's)
 *   TERM_DIRECT    sandbox.terminal_filter = false: the agent uses the
 *                  user's terminal itself, as any program would
 *
 * Job control, in every mode: when the agent stops itself (a raw-mode TUI's
 * Ctrl-Z), or the user's Ctrl-Z reaches the launcher, the launcher puts the
 * terminal back and stops too, so the shell gets its prompt; `fg` resumes
 * both, with the terminal as the agent had it. */
#ifndef ASB_CORE_TERMINAL_H
#define ASB_CORE_TERMINAL_H

#include "termfilter.h"

#include <ev.h>
#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

enum { TERM_NONE, TERM_FILTERED, TERM_DETACHED, TERM_DIRECT };

/* Deliver a signal to the agent (the launcher's forward function). */
typedef void (*terminal_signal_fn)(void *userdata, int sig);

struct terminal {
	int mode;
	int master, slave; /* FILTERED: the pty; the slave only until spawned */
	int tty_fd;        /* the user's terminal (a dup of stdout or stderr) */
	bool input;        /* stdin is that terminal: keystrokes are forwarded */
	unsigned std_mask; /* which of fds 0-2 get the slave */
	struct termios saved;
	bool have_saved, raw, suspended, finished;
	struct termfilter filter;
	unsigned char *obuf;
	size_t obuf_cap;
	unsigned char ibuf[4096];
	size_t ibuf_len, ibuf_off;
	/* the loop */
	struct ev_loop *loop;
	ev_io w_out, w_in, w_master_w;
	ev_timer w_poll;
	pid_t sandbox_pid;
	pid_t leader;       /* the spawned process: its session's leader */
	bool awaiting_cont; /* resumed: the agent has not been seen running yet */
	terminal_signal_fn signal;
	void *userdata;
};

/* Decide the mode and, for FILTERED, open the pty (the slave gets the real
 * terminal's settings and size). -errno when a pty cannot be had. */
int terminal_open(struct terminal *t, bool filter, uint32_t allow);
/* In the forked child that becomes the sandbox (async-signal-safe): a new
 * session; FILTERED: the slave as controlling terminal and on 0-2. */
void terminal_child(const struct terminal *t);
/* FILTERED: the sandbox runs one fork below that session leader, in a
 * process group of its own that is the pty's foreground: a process group
 * whose members all have their parents in it or outside the session is
 * orphaned, and the kernel discards the stop signals of an orphaned group
 * (Ctrl-Z, a TUI's SIGTSTP to itself would do nothing). */
bool terminal_child_needs_leader(const struct terminal *t);
void terminal_child_foreground(const struct terminal *t);
/* In the launcher, once spawned (`pid`, the session leader): drop its copy
 * of the slave. */
void terminal_spawned(struct terminal *t, pid_t pid);
/* Watch the pty, the keyboard and the agent's stops in `loop`; raw mode. */
int terminal_start(struct terminal *t, struct ev_loop *loop, pid_t sandbox_pid,
                   terminal_signal_fn signal, void *userdata);
/* SIGWINCH, SIGTSTP and SIGCONT sent to the launcher; SIGINT and SIGQUIT
 * typed at the user's terminal (which reach the agent's whole job, as the
 * terminal would have sent them). */
void terminal_on_signal(struct terminal *t, int sig);
/* Signals to the launcher that must be caught in this mode. */
const int *terminal_signals(const struct terminal *t, size_t *n);
/* Does the agent have its own session (terminal-made SIGINT reaches only
 * the launcher, which must pass it on)? */
bool terminal_own_session(const struct terminal *t);
/* The agent is gone: its last output, the terminal's modes and settings
 * put back, late answers to its queries discarded. Idempotent. */
void terminal_finish(struct terminal *t);
void terminal_close(struct terminal *t);
/* A backend that started its sandbox itself, not through the core's
 * spawn: it has the user's terminal; ours steps aside (TERM_DIRECT). */
void terminal_unused(struct terminal *t);

#endif
