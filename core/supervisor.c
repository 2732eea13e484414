/* SPDX-License-Identifier: MIT */
#include "supervisor.h"

#include "log.h"
#include "terminal.h"
#include "util.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

struct sigmsg {
	int sig;
	int from_terminal;
};

static int pipe_fds[2] = {-1, -1};
static pid_t launcher_pid;
static int extra[8];
static size_t n_extra;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* A forked child between fork and exec shares the pipe: not ours. */
	if (getpid() != launcher_pid)
		return;
	int saved = errno;
#ifdef SI_KERNEL
	int term = si && si->si_code == SI_KERNEL;
#else
	int term = si && si->si_code != SI_USER && si->si_code != SI_QUEUE;
#endif
	struct sigmsg m = {sig, term};
	(void)!write(pipe_fds[1], &m, sizeof(m));
	errno = saved;
}

int supervisor_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}

int supervisor_prepare(void)
{
	if (!ev_default_loop(EVFLAG_AUTO | EVFLAG_NOSIGMASK))
		return -ENOMEM;
	if (pipe_fds[0] < 0) {
		int r = pipe_cloexec(pipe_fds);
		if (r < 0)
			return r;
		fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
		fcntl(pipe_fds[1], F_SETFL, O_NONBLOCK);
	}
	launcher_pid = getpid();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++) {
		struct sigaction old;
		/* Started under nohup: a hangup is not ours to act on. */
		if (forwarded[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(forwarded[i], &sa, NULL) < 0)
			return -errno;
	}
	return 0;
}

int supervisor_catch(const int *sigs, size_t n)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < n && n_extra < ARRAY_SIZE(extra); i++) {
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
		extra[n_extra++] = sigs[i];
	}
	return 0;
}

void supervisor_stop_self(void)
{
	struct sigaction dfl, old;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	(void)sigaction(SIGTSTP, &dfl, &old);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGTSTP);
	(void)sigprocmask(SIG_UNBLOCK, &s, NULL);
	(void)raise(SIGTSTP); /* stopped here until SIGCONT */
	(void)sigaction(SIGTSTP, &old, NULL);
}

void supervisor_release(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		(void)sigaction(forwarded[i], &sa, NULL);
	for (size_t i = 0; i < n_extra; i++)
		(void)sigaction(extra[i], &sa, NULL);
	n_extra = 0;
}

struct sup {
	supervisor_forward_fn forward;
	void *userdata;
	struct terminal *term;
	int status;
	bool exited;
	ev_io sig_watcher;
	ev_child child_watcher;
	ev_timer grace; /* after a hangup or SIGTERM: then SIGKILL */
};

/* How long an agent that a hangup or SIGTERM did not end may take before
 * it is killed: the launcher itself would have died of either, and a
 * sandbox that outlives its terminal is a stray nobody sees. */
#define GRACE_SECONDS 5.0

static void on_grace(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sup *s = w->data;
	(void)loop;
	(void)revents;
	log_msg(LOG_WARN,
	        "the agent did not exit within %.0f s of the hangup or SIGTERM: killing it",
	        GRACE_SECONDS);
	s->forward(s->userdata, SIGKILL);
}

static void on_signal(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup *s = w->data;
	(void)revents;
	struct sigmsg m;
	while (read(w->fd, &m, sizeof(m)) == (ssize_t)sizeof(m)) {
		if (s->term && (m.sig == SIGWINCH || m.sig == SIGTSTP || m.sig == SIGCONT)) {
			terminal_on_signal(s->term, m.sig);
			continue;
		}
		/* Keys typed at the terminal (^C, ^\) already reached the whole
		 * foreground process group, the agent included, unless it has a
		 * session of its own. */
		if (m.from_terminal && (m.sig == SIGINT || m.sig == SIGQUIT) && s->term &&
		    terminal_own_session(s->term)) {
			log_msg(LOG_INFO, "signal %s from the terminal, to the agent's job",
			        strsignal(m.sig));
			terminal_on_signal(s->term, m.sig);
			continue;
		}
		if (m.from_terminal && (m.sig == SIGINT || m.sig == SIGQUIT)) {
			log_msg(LOG_INFO, "signal %s from the terminal", strsignal(m.sig));
			continue;
		}
		log_msg(LOG_INFO, "forwarding signal %s to the agent", strsignal(m.sig));
		s->forward(s->userdata, m.sig);
		if ((m.sig == SIGHUP || m.sig == SIGTERM) && !ev_is_active(&s->grace))
			ev_timer_start(loop, &s->grace);
	}
}

static void on_child(struct ev_loop *loop, ev_child *w, int revents)
{
	struct sup *s = w->data;
	(void)revents;
	s->status = w->rstatus;
	s->exited = true;
	ev_break(loop, EVBREAK_ALL);
}

int supervisor_run(pid_t child, supervisor_forward_fn forward, void *userdata,
                   struct terminal *term)
{
	struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!loop || pipe_fds[0] < 0)
		return -ENOMEM;
	struct sup s = {.forward = forward, .userdata = userdata, .term = term};
	ev_io_init(&s.sig_watcher, on_signal, pipe_fds[0], EV_READ);
	s.sig_watcher.data = &s;
	ev_io_start(loop, &s.sig_watcher);
	ev_child_init(&s.child_watcher, on_child, child, 0);
	s.child_watcher.data = &s;
	ev_child_start(loop, &s.child_watcher);
	ev_timer_init(&s.grace, on_grace, GRACE_SECONDS, 0.);
	s.grace.data = &s;
	/* The child may have exited before the watcher existed: libev reaps on
	 * SIGCHLD, which is pending in that case, so the loop still sees it. */
	ev_run(loop, 0);
	ev_io_stop(loop, &s.sig_watcher);
	ev_child_stop(loop, &s.child_watcher);
	ev_timer_stop(loop, &s.grace);
	return s.exited ? s.status : -ECHILD;
}
