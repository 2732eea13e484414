/* SPDX-License-Identifier: MIT */
#include "spawn.h"

#include "log.h"
#include "platform.h"
#include "util.h"

#include <signal.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* The session leader above a sandbox with a pty (terminal.h): it passes on
 * the signals the launcher sends and ends as the sandbox did. */
static volatile pid_t relay_to;

static void relay_signal(int sig)
{
	if (relay_to > 0)
		(void)kill(relay_to, sig);
}

static void relay(pid_t child, pid_t launcher) __attribute__((noreturn));
static void relay(pid_t child, pid_t launcher)
{
	(void)platform_child_prepare(launcher, NULL, false);
	/* Nothing of the sandbox's: its pipes must see their end when it ends. */
	(void)fds_close_except(STDERR_FILENO + 1, NULL, 0);
	relay_to = child;
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = relay_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		(void)sigaction(sigs[i], &sa, NULL);
	int st = 0;
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			_exit(125);
	if (WIFSIGNALED(st)) {
		signal(WTERMSIG(st), SIG_DFL);
		(void)kill(getpid(), WTERMSIG(st));
		_exit(128 + WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

int spawn_exec(const char *const *argv, const char *const *envp, const struct spawn_opts *o,
               pid_t *pid_out)
{
	static const char *const empty[] = {NULL};
	if (!argv || !argv[0] || argv[0][0] != '/')
		return -EINVAL;
	/* A setuid program would lose its privileges under no_new_privs. */
	struct stat st;
	bool nnp = o->no_new_privs && !(stat(argv[0], &st) == 0 && (st.st_mode & S_ISUID));
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		for (size_t i = 0; i < o->n_keep_fds; i++) {
			int flags = fcntl(o->keep_fds[i], F_GETFD);
			if (flags >= 0)
				fcntl(o->keep_fds[i], F_SETFD, flags & ~FD_CLOEXEC);
		}
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if (o->term)
			terminal_child(o->term);
		if (o->term && terminal_child_needs_leader(o->term)) {
			pid_t g = fork();
			if (g < 0)
				_exit(125);
			if (g > 0)
				relay(g, parent);
			parent = getppid();
			terminal_child_foreground(o->term);
		}
		if (o->quiet_stdin) {
			int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (null >= 0)
				dup2(null, STDIN_FILENO);
		}
		if (o->stdout_fd >= 0)
			dup2(o->stdout_fd, STDOUT_FILENO);
		if (o->stderr_fd >= 0)
			dup2(o->stderr_fd, STDERR_FILENO);
		if (o->own_group)
			setpgid(0, 0);
		if (o->cwd && chdir(o->cwd) < 0) {
			dprintf(STDERR_FILENO, "agentsandbox: cannot enter %s: %s\n", o->cwd,
			        strerror(errno));
			_exit(125);
		}
		int r = platform_child_prepare(parent, o->limits, nnp);
		if (r < 0) {
			dprintf(STDERR_FILENO, "agentsandbox: cannot set limits: %s\n",
			        strerror(-r));
			_exit(125);
		}
		execve(argv[0], (char *const *)argv, (char *const *)(envp ? envp : empty));
		dprintf(STDERR_FILENO, "agentsandbox: cannot run %s: %s\n", argv[0],
		        strerror(errno));
		_exit(125);
	}
	*pid_out = pid;
	return 0;
}

/* A helper's stderr, line by line into launch.log, escaped like every
 * other line there: what it prints may name files the agent made. */
struct err_lines {
	const char *who;
	char buf[1024];
	size_t len;
};

static void err_flush(struct err_lines *e)
{
	if (e->len) {
		e->buf[e->len] = '\0';
		log_msg(LOG_INFO, "%s: %s", e->who, e->buf);
	}
	e->len = 0;
}

static void err_take(struct err_lines *e, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n' || e->len == sizeof(e->buf) - 1)
			err_flush(e);
		if (data[i] != '\n')
			e->buf[e->len++] = data[i];
	}
}

int spawn_run(const char *const *argv, const char *const *envp, bool stderr_to_log, int *wstatus,
              char *out, size_t out_len)
{
	int fds[2], errp[2] = {-1, -1};
	int r = pipe_cloexec(fds);
	if (r < 0)
		return r;
	if (stderr_to_log && (r = pipe_cloexec(errp)) < 0) {
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	struct spawn_opts o = {
	    .quiet_stdin = true, .stdout_fd = fds[1], .stderr_fd = errp[1], .own_group = true};
	_cleanup_close_ int null = -1;
	if (!stderr_to_log) {
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		o.stderr_fd = null;
	}
	pid_t pid;
	r = spawn_exec(argv, envp, &o, &pid);
	close(fds[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (r < 0) {
		close(fds[0]);
		if (errp[0] >= 0)
			close(errp[0]);
		return r;
	}
	const char *slash = strrchr(argv[0], '/');
	struct err_lines el = {.who = slash ? slash + 1 : argv[0]};
	size_t len = 0;
	char sink[512];
	struct pollfd pfd[2] = {{.fd = fds[0], .events = POLLIN},
	                        {.fd = errp[0], .events = POLLIN}};
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].fd >= 0 && pfd[1].revents) {
			ssize_t n = read(pfd[1].fd, sink, sizeof(sink));
			if (n > 0) {
				err_take(&el, sink, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(pfd[1].fd);
				pfd[1].fd = -1;
			}
		}
		if (pfd[0].fd >= 0 && pfd[0].revents) {
			char *dst = out && len + 1 < out_len ? out + len : sink;
			size_t room = out && len + 1 < out_len ? out_len - 1 - len : sizeof(sink);
			ssize_t n = read(pfd[0].fd, dst, room);
			if (n > 0) {
				if (dst != sink)
					len += (size_t)n;
			} else if (n == 0 || errno != EINTR) {
				close(pfd[0].fd);
				pfd[0].fd = -1;
			}
		}
	}
	err_flush(&el);
	if (out && out_len)
		out[len] = '\0';
	int st = 0;
	pid_t w;
	do
		w = waitpid(pid, &st, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	*wstatus = st;
	return 0;
}
