/* SPDX-License-Identifier: MIT */
#include "spawn.h"

#include "log.h"
#include "platform.h"
#include "util.h"

#include <signal.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define ABANDON_GRACE_MS 2000 /* a relay whose child failed, until it ends */

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
	(void)platform_fds_close_except(STDERR_FILENO + 1, NULL, 0);
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

/* What the child could not do before its program ran. */
enum child_step { STEP_NONE, STEP_CWD, STEP_LIMITS, STEP_NETNS, STEP_EXEC };

struct child_failure {
	int step; /* enum child_step */
	int err;
};

/* The child's side, up to execve: only async-signal-safe calls, since with
 * vfork it runs on the launcher's memory and stack until the exec. Returns
 * only on failure, saying which step failed. */
static void child_exec(const char *const *argv, const char *const *envp, const struct spawn_opts *o,
                       pid_t parent, bool nnp, volatile struct child_failure *f)
{
	static const char *const empty[] = {NULL};
	/* FD_CLOEXEC is the only descriptor flag: clear it in one call. */
	for (size_t i = 0; i < o->n_keep_fds; i++)
		(void)fcntl(o->keep_fds[i], F_SETFD, 0);
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
		*f = (struct child_failure){STEP_CWD, errno};
		return;
	}
	int r = platform_child_prepare(parent, o->limits, nnp);
	if (r < 0) {
		*f = (struct child_failure){STEP_LIMITS, -r};
		return;
	}
	if (o->netns && (r = platform_child_new_netns(o->netns)) < 0) {
		*f = (struct child_failure){STEP_NETNS, -r};
		return;
	}
	execve(argv[0], (char *const *)argv, (char *const *)(envp ? envp : empty));
	*f = (struct child_failure){STEP_EXEC, errno};
}

static void failure_text(const struct child_failure *f, const char *const *argv,
                         const struct spawn_opts *o, char *buf, size_t len)
{
	if (f->step == STEP_CWD)
		snprintf(buf, len, "cannot enter %s: %s", o->cwd, strerror(f->err));
	else if (f->step == STEP_LIMITS)
		snprintf(buf, len, "cannot set limits: %s", strerror(f->err));
	else if (f->step == STEP_NETNS)
		snprintf(buf, len, "cannot make the sandbox's network namespace: %s",
		         strerror(f->err));
	else
		snprintf(buf, len, "cannot run %s: %s", argv[0], strerror(f->err));
}

/* A pty needs a session leader above the sandbox (relay), which waits for
 * it: that child cannot share the launcher's memory. Sanitizers keep state
 * (shadow stack) the child would change under the launcher. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1 /* gcc */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1 /* clang: it has no __SANITIZE_ADDRESS__ */
#endif
#endif
#if defined(__linux__) && !defined(SANITIZED)
#define HAVE_SHARED_CHILD 1
#else
#define HAVE_SHARED_CHILD 0
#endif

#if HAVE_SHARED_CHILD
/* Every handled signal back to its default, then none blocked: a handler of
 * the launcher's must not run in a child that shares its memory. */
static void child_signals_default(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) < 0 || sa.sa_handler == SIG_IGN ||
		    sa.sa_handler == SIG_DFL)
			continue;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(sig, &sa, NULL);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
#endif

/* fork, and the relay when the terminal needs one. Without a relay the
 * child sends what failed over a pipe that its exec closes, so a failure
 * before the exec is this call's error as with vfork; under a relay it says
 * so itself, on its stderr (the pty), and exits 125. */
static int spawn_forked(const char *const *argv, const char *const *envp,
                        const struct spawn_opts *o, bool nnp, pid_t *pid_out)
{
	bool relayed = o->term && terminal_child_needs_leader(o->term);
	int report[2] = {-1, -1};
	int r = relayed ? 0 : pipe_cloexec(report);
	if (r < 0)
		return r;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		if (!relayed) {
			close(report[0]);
			close(report[1]);
		}
		return -e;
	}
	if (pid == 0) {
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if (o->term)
			terminal_child(o->term);
		if (relayed) {
			pid_t g = fork();
			if (g < 0)
				_exit(125);
			if (g > 0)
				relay(g, parent);
			parent = getppid();
			terminal_child_foreground(o->term);
		}
		struct child_failure f = {0};
		child_exec(argv, envp, o, parent, nnp, &f);
		if (!relayed) {
			(void)write_all(report[1], &f, sizeof(f));
			_exit(125);
		}
		char why[PATH_MAX + 128];
		failure_text(&f, argv, o, why, sizeof(why));
		dprintf(STDERR_FILENO, "agentsandbox: %s\n", why);
		_exit(125);
	}
	if (!relayed) {
		close(report[1]);
		struct child_failure f = {0};
		ssize_t n;
		while ((n = read(report[0], &f, sizeof(f))) < 0 && errno == EINTR)
			;
		close(report[0]);
		if (n == (ssize_t)sizeof(f) && f.step != STEP_NONE) {
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			if (o->why && o->why_len)
				failure_text(&f, argv, o, o->why, o->why_len);
			return f.err > 0 ? -f.err : -EIO;
		}
	}
	*pid_out = pid;
	return 0;
}

int spawn_exec(const char *const *argv, const char *const *envp, const struct spawn_opts *o,
               pid_t *pid_out)
{
	if (!argv || !argv[0] || argv[0][0] != '/')
		return -EINVAL;
	/* A setuid program would lose its privileges under no_new_privs. */
	struct stat st;
	bool nnp = o->no_new_privs && !(stat(argv[0], &st) == 0 && (st.st_mode & S_ISUID));
	if (!HAVE_SHARED_CHILD || (o->term && terminal_child_needs_leader(o->term)))
		return spawn_forked(argv, envp, o, nnp, pid_out);
#if HAVE_SHARED_CHILD
	/* vfork: no copy of the launcher's page tables, and none of its pages
	 * copied on write while it goes on; it waits only until the exec. The
	 * child writes what failed into this shared record. */
	volatile struct child_failure failed = {0};
	pid_t parent = getpid();
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t pid = vfork();
	if (pid == 0) {
		child_signals_default();
		if (o->term)
			terminal_child(o->term);
		child_exec(argv, envp, o, parent, nnp, &failed);
		_exit(125);
	}
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -e;
	if (failed.step != STEP_NONE) {
		/* It has exited: reap it here, and say why. */
		struct child_failure f = {failed.step, failed.err};
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		/* A kernel that lets no process sharing another's memory make
		 * a user namespace (older ones): a forked child can. */
		if (f.step == STEP_NETNS && f.err == EINVAL)
			return spawn_forked(argv, envp, o, nnp, pid_out);
		if (o->why && o->why_len)
			failure_text(&f, argv, o, o->why, o->why_len);
		return f.err > 0 ? -f.err : -EIO;
	}
	*pid_out = pid;
	return 0;
#endif
}

void spawn_abandon(pid_t pid, const struct spawn_opts *o)
{
	/* Under a relay the child that failed is exiting (its descriptors
	 * close before it ends) and the relay ends after it: killed at once,
	 * the relay would leave that child, unreaped, to this process. */
	if (o->term && terminal_child_needs_leader(o->term))
		for (int waited = 0; waited < ABANDON_GRACE_MS; waited += 5) {
			if (waitpid(pid, NULL, WNOHANG) == pid)
				return;
			(void)nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
		}
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
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
	char why[PATH_MAX + 128] = "";
	struct spawn_opts o = {.quiet_stdin = true,
	                       .stdout_fd = fds[1],
	                       .stderr_fd = errp[1],
	                       .own_group = true,
	                       .why = why,
	                       .why_len = sizeof(why)};
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
		if (why[0])
			log_msg(LOG_INFO, "%s", why);
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
