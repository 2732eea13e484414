/* SPDX-License-Identifier: MIT */
#include "terminal.h"

#include "log.h"
#include "platform.h"
#include "supervisor.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define CHUNK    65536
#define POLL_S   0.2  /* how often the agent's stops are looked for */
#define FENCE_MS 1500 /* the longest wait for its last answers (slow link, busy host) */

int terminal_open(struct terminal *t, bool filter, uint32_t allow)
{
	*t = (struct terminal){.mode = TERM_NONE, .master = -1, .slave = -1, .tty_fd = -1};
	termfilter_init(&t->filter, allow);
	if (!filter) {
		t->mode = TERM_DIRECT;
		return 0;
	}
	int tty = isatty(STDOUT_FILENO)   ? STDOUT_FILENO
	          : isatty(STDERR_FILENO) ? STDERR_FILENO
	          : isatty(STDIN_FILENO)  ? STDIN_FILENO
	                                  : -1;
	if (tty < 0) {
		t->mode = TERM_DETACHED;
		return 0;
	}
	for (int fd = 0; fd <= 2; fd++)
		if (isatty(fd))
			t->std_mask |= 1u << fd;
	t->input = isatty(STDIN_FILENO);
	t->tty_fd = fcntl(tty, F_DUPFD_CLOEXEC, 3);
	if (t->tty_fd < 0)
		return -errno;
	int r = 0;
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	const char *name = NULL;
	if (t->master < 0 || fcntl(t->master, F_SETFD, FD_CLOEXEC) < 0 || grantpt(t->master) < 0 ||
	    unlockpt(t->master) < 0 || !(name = ptsname(t->master)))
		r = -errno;
	if (r >= 0 && (t->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		r = -errno;
	if (r < 0) {
		terminal_close(t);
		return r ? r : -EIO;
	}
	/* The agent's terminal starts as the user's: settings and size. */
	if (tcgetattr(t->tty_fd, &t->saved) == 0) {
		t->have_saved = true;
		(void)tcsetattr(t->slave, TCSANOW, &t->saved);
	}
	struct winsize ws;
	if (ioctl(t->tty_fd, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
	(void)fcntl(t->master, F_SETFL, fcntl(t->master, F_GETFL) | O_NONBLOCK);
	t->obuf_cap = termfilter_out_max(CHUNK);
	if (!(t->obuf = malloc(t->obuf_cap + CHUNK))) {
		terminal_close(t);
		return -ENOMEM;
	}
	t->mode = TERM_FILTERED;
	return 0;
}

void terminal_child(const struct terminal *t)
{
	if (t->mode != TERM_FILTERED && t->mode != TERM_DETACHED)
		return;
	/* A session of its own: the user's terminal is no longer its
	 * controlling terminal (/dev/tty inside does not reach it). */
	(void)setsid();
	if (t->mode != TERM_FILTERED)
		return;
#ifdef TIOCSCTTY
	(void)ioctl(t->slave, TIOCSCTTY, 0);
#endif
	for (int fd = 0; fd <= 2; fd++)
		if (t->std_mask & (1u << fd))
			(void)dup2(t->slave, fd);
}

bool terminal_child_needs_leader(const struct terminal *t)
{
	return t->mode == TERM_FILTERED;
}

void terminal_child_foreground(const struct terminal *t)
{
	(void)setpgid(0, 0);
	/* Asking for the foreground from the background is SIGTTOU's case. */
	sigset_t ttou, old;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	(void)sigprocmask(SIG_BLOCK, &ttou, &old);
	(void)tcsetpgrp(t->slave, getpid());
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
}

void terminal_spawned(struct terminal *t, pid_t pid)
{
	t->leader = pid;
	/* The master reports the end of the agent's output once no slave is
	 * open any more: the launcher keeps none. */
	if (t->slave >= 0)
		close(t->slave);
	t->slave = -1;
}

static void copy_size(struct terminal *t)
{
	struct winsize ws;
	if (t->mode == TERM_FILTERED && ioctl(t->tty_fd, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
}

static void make_raw(struct terminal *t)
{
	if (!t->input || !t->have_saved || t->raw)
		return;
	struct termios raw = t->saved;
	raw.c_iflag &=
	    ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	raw.c_oflag &= ~(tcflag_t)OPOST;
	raw.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	raw.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	raw.c_cflag |= CS8;
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(t->tty_fd, TCSADRAIN, &raw) == 0)
		t->raw = true;
}

static void make_cooked(struct terminal *t)
{
	if (t->raw && t->have_saved)
		(void)tcsetattr(t->tty_fd, TCSADRAIN, &t->saved);
	t->raw = false;
}

static void to_tty(struct terminal *t, const void *data, size_t len)
{
	if (len && t->tty_fd >= 0 && write_all(t->tty_fd, data, len) < 0 && errno != EINTR) {
		/* The terminal is gone: the agent's output still drains. */
		close(t->tty_fd);
		t->tty_fd = -1;
	}
}

/* One read of the agent's output, filtered, written: > 0, 0 at its end
 * (no slave open any more), -EAGAIN when there is nothing now. */
static ssize_t pump(struct terminal *t)
{
	unsigned char *in = t->obuf + t->obuf_cap;
	/* A pty hands out what one write put in (a few KiB): gather what is
	 * there, then one filter pass and one write. */
	size_t got = 0;
	ssize_t n = 0;
	while (got < CHUNK && (n = read(t->master, in + got, CHUNK - got)) > 0)
		got += (size_t)n;
	if (got == 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR) ? -EAGAIN
		                                                    : 0; /* EIO: the end */
	size_t m = termfilter_feed(&t->filter, in, got, t->obuf);
	to_tty(t, t->obuf, m);
	return (ssize_t)got;
}

static void on_output(struct ev_loop *loop, ev_io *w, int revents)
{
	struct terminal *t = w->data;
	(void)revents;
	if (pump(t) == 0)
		ev_io_stop(loop, w);
}

static void on_input(struct ev_loop *loop, ev_io *w, int revents);

static void on_master_writable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct terminal *t = w->data;
	(void)revents;
	ssize_t n = write(t->master, t->ibuf + t->ibuf_off, t->ibuf_len - t->ibuf_off);
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		ev_io_stop(loop, w); /* the pty is gone */
		return;
	}
	if (n > 0)
		t->ibuf_off += (size_t)n;
	if (t->ibuf_off == t->ibuf_len) {
		t->ibuf_off = t->ibuf_len = 0;
		ev_io_stop(loop, w);
		ev_io_start(loop, &t->w_in);
	}
}

/* Keystrokes, as they come: one read, one write. */
static void on_input(struct ev_loop *loop, ev_io *w, int revents)
{
	struct terminal *t = w->data;
	(void)revents;
	ssize_t n = read(STDIN_FILENO, t->ibuf, sizeof(t->ibuf));
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			ev_io_stop(loop, w);
		return;
	}
	ssize_t m = write(t->master, t->ibuf, (size_t)n);
	if (m == n)
		return;
	/* The agent reads slower than we type: hold the rest. */
	t->ibuf_len = (size_t)n;
	t->ibuf_off = m > 0 ? (size_t)m : 0;
	ev_io_stop(loop, w);
	ev_io_start(loop, &t->w_master_w);
}

static void drain(struct terminal *t)
{
	if (t->mode != TERM_FILTERED)
		return;
	for (int i = 0; i < 4096 && pump(t) > 0; i++)
		;
}

/* Back to the terminal the user had (modes the agent set, settings). */
static void hand_back(struct terminal *t)
{
	if (t->mode != TERM_FILTERED)
		return;
	char seq[1024];
	size_t n = termfilter_restore(&t->filter, seq, sizeof(seq));
	to_tty(t, seq, n);
	t->suspended = n > 0;
	make_cooked(t);
}

static void take_again(struct terminal *t)
{
	if (t->mode != TERM_FILTERED)
		return;
	/* What the shell left may differ from what we saved: the new base. */
	if (!t->raw && t->have_saved)
		(void)tcgetattr(t->tty_fd, &t->saved);
	make_raw(t);
	copy_size(t);
	if (t->suspended) {
		char seq[1024];
		size_t n = termfilter_reapply(&t->filter, seq, sizeof(seq));
		to_tty(t, seq, n);
		t->suspended = false;
	}
}

static void agent_signal(struct terminal *t, int sig)
{
	if (t->mode == TERM_FILTERED) {
		pid_t pg = tcgetpgrp(t->master);
		if (pg > 0)
			(void)kill(-pg, sig); /* the pty's foreground job, as a terminal would */
	}
	/* Without the pty's session leader the agent's process group is
	 * orphaned: the kernel discards SIGTSTP there, not SIGSTOP. */
	if (t->signal)
		t->signal(t->userdata, sig == SIGTSTP && t->mode != TERM_FILTERED ? SIGSTOP : sig);
}

/* The agent stopped (or is to stop): give the terminal back, stop the
 * launcher so the shell gets its prompt; on `fg`, take it again. */
static void suspend(struct terminal *t, bool asked)
{
	if (asked)
		agent_signal(t, SIGTSTP);
	drain(t);
	hand_back(t);
	log_msg(LOG_INFO, "the agent stopped: the session is suspended");
	supervisor_stop_self();
	log_msg(LOG_INFO, "the session resumes");
	take_again(t);
	agent_signal(t, SIGCONT);
	t->awaiting_cont = true;
}

static void on_poll(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct terminal *t = w->data;
	(void)revents;
	int s = platform_agent_stopped(t->sandbox_pid);
	if (s < 0) {
		ev_timer_stop(loop, w); /* this platform cannot tell */
		return;
	}
	if (s == 0) {
		t->awaiting_cont = false;
		return;
	}
	if (!t->awaiting_cont)
		suspend(t, false);
}

int terminal_start(struct terminal *t, struct ev_loop *loop, pid_t sandbox_pid,
                   terminal_signal_fn signal, void *userdata)
{
	t->loop = loop;
	t->sandbox_pid = sandbox_pid;
	t->signal = signal;
	t->userdata = userdata;
	if (t->mode == TERM_FILTERED) {
		ev_io_init(&t->w_out, on_output, t->master, EV_READ);
		t->w_out.data = t;
		ev_io_start(loop, &t->w_out);
		ev_io_init(&t->w_master_w, on_master_writable, t->master, EV_WRITE);
		t->w_master_w.data = t;
		if (t->input) {
			make_raw(t);
			ev_io_init(&t->w_in, on_input, STDIN_FILENO, EV_READ);
			t->w_in.data = t;
			ev_io_start(loop, &t->w_in);
		}
	}
	/* Stops matter where there is a terminal to hand back. */
	if (sandbox_pid > 0 &&
	    (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO))) {
		ev_timer_init(&t->w_poll, on_poll, POLL_S, POLL_S);
		t->w_poll.data = t;
		ev_timer_start(loop, &t->w_poll);
	}
	return 0;
}

void terminal_on_signal(struct terminal *t, int sig)
{
	if (t->finished)
		return;
	if (sig == SIGINT || sig == SIGQUIT) {
		/* The whole job, as a terminal does: a shell waiting for its
		 * child exits only when the child dies of it too. */
		pid_t pg = t->mode == TERM_FILTERED ? tcgetpgrp(t->master) : t->leader;
		if (pg > 0)
			(void)kill(-pg, sig);
		else if (t->signal)
			t->signal(t->userdata, sig);
	} else if (sig == SIGWINCH) {
		copy_size(t);
	} else if (sig == SIGTSTP) {
		suspend(t, true);
	} else if (sig == SIGCONT) {
		/* Stopped by something else (a background read, SIGSTOP): the
		 * shell restored our settings; sizes may have changed. */
		take_again(t);
		if (t->signal)
			t->signal(t->userdata, SIGCONT);
	}
}

const int *terminal_signals(const struct terminal *t, size_t *n)
{
	static const int filtered[] = {SIGWINCH, SIGTSTP, SIGCONT};
	static const int detached[] = {SIGTSTP, SIGCONT};
	static const int direct[] = {SIGCONT};
	switch (t->mode) {
	case TERM_FILTERED:
		*n = ARRAY_SIZE(filtered);
		return filtered;
	case TERM_DETACHED:
		*n = ARRAY_SIZE(detached);
		return detached;
	case TERM_DIRECT:
		*n = ARRAY_SIZE(direct);
		return direct;
	}
	*n = 0;
	return NULL;
}

bool terminal_own_session(const struct terminal *t)
{
	return t->mode == TERM_FILTERED || t->mode == TERM_DETACHED;
}

/* The terminal answers the agent's queries (DA, CPR...) into the input; an
 * answer still on its way when the agent exits would be typed into the
 * shell. Ask once more and discard everything up to that answer. */
static void fence(struct terminal *t)
{
	static const char da[] = "\x1b[c";
	to_tty(t, da, sizeof(da) - 1);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	char buf[512];
	int state = 0; /* 0: looking for ESC [ ?, 3: inside the answer */
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = FENCE_MS - ((now.tv_sec - start.tv_sec) * 1000 +
		                        (now.tv_nsec - start.tv_nsec) / 1000000);
		struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
		if (left <= 0)
			break;
		/* A signal (the sandbox's last processes reaped) is no reason to
		 * stop waiting: the answer would reach the shell. */
		int ready = poll(&p, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			break;
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			if (state == 0 && c == 0x1b)
				state = 1;
			else if (state == 1)
				state = c == '[' ? 2 : c == 0x1b ? 1 : 0;
			else if (state == 2)
				state = c == '?' ? 3 : 0;
			else if (state == 3 && c == 'c')
				return; /* our answer: everything before it is gone too */
			else if (state == 3 && !((c >= '0' && c <= '9') || c == ';'))
				state = 0;
		}
	}
}

void terminal_finish(struct terminal *t)
{
	if (t->finished || t->mode == TERM_NONE)
		return;
	t->finished = true;
	if (t->loop) {
		ev_io_stop(t->loop, &t->w_out);
		ev_io_stop(t->loop, &t->w_in);
		ev_io_stop(t->loop, &t->w_master_w);
		ev_timer_stop(t->loop, &t->w_poll);
	}
	if (t->mode != TERM_FILTERED)
		return;
	drain(t);
	unsigned char tail[16];
	to_tty(t, tail, termfilter_finish(&t->filter, tail));
	char seq[1024];
	to_tty(t, seq, termfilter_restore(&t->filter, seq, sizeof(seq)));
	if (t->input && t->raw && t->filter.queried && t->tty_fd >= 0)
		fence(t);
	make_cooked(t);
	char what[512] = "";
	size_t len = 0;
	for (unsigned i = 0; i <= TF_NCLASSES; i++)
		if (t->filter.dropped[i] && len < sizeof(what) - 64)
			len += (size_t)snprintf(
			    what + len, sizeof(what) - len, "%s%llu %s", len ? ", " : "",
			    (unsigned long long)t->filter.dropped[i], termfilter_class_name(i));
	if (len)
		log_msg(LOG_INFO,
		        "filtered terminal: dropped %s sequence(s) from the agent's output", what);
}

void terminal_unused(struct terminal *t)
{
	if (t->mode == TERM_NONE || t->mode == TERM_DIRECT)
		return;
	terminal_close(t);
	t->mode = TERM_DIRECT;
}

void terminal_close(struct terminal *t)
{
	if (t->master >= 0)
		close(t->master);
	if (t->slave >= 0)
		close(t->slave);
	if (t->tty_fd >= 0)
		close(t->tty_fd);
	free(t->obuf);
	t->master = t->slave = t->tty_fd = -1;
	t->obuf = NULL;
}
