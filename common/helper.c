/* SPDX-License-Identifier: MIT */
#include "helper.h"

#include "exec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 8

/* Everything from `low` up: closed (the launcher's are close-on-exec
 * anyway; this holds even for one that is not). */
static void close_from(int low)
{
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = low; fd < max; fd++)
		(void)close(fd);
}

/* In the child, before exec: async-signal-safe calls only. */
_Noreturn static void child(pid_t parent, const char *const *argv, const char *const *envp,
                            const int *fds, size_t n, int log_fd)
{
	static const char *const empty[] = {NULL};
	int high[MAX_FDS + 1];
	if (getppid() != parent)
		_exit(127);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setpgid(0, 0);
	/* Out of the way first: a wanted fd may sit where another goes. */
	int base = 3 + (int)n + 1 + (log_fd > 0 ? log_fd : 0);
	for (size_t i = 0; i < n; i++)
		if ((high[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, base + (int)n)) < 0)
			_exit(127);
	int logh = log_fd >= 0 ? fcntl(log_fd, F_DUPFD_CLOEXEC, base + (int)n) : -1;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		_exit(127);
	dup2(null, STDIN_FILENO);
	dup2(logh >= 0 ? logh : null, STDOUT_FILENO);
	dup2(logh >= 0 ? logh : null, STDERR_FILENO);
	for (size_t i = 0; i < n; i++)
		if (dup2(high[i], 3 + (int)i) < 0)
			_exit(127);
	close_from(3 + (int)n);
	execve(argv[0], (char *const *)argv, (char *const *)(envp ? envp : empty));
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int helper_start(struct helper *h, const char *const *argv, const char *const *envp, const int *fds,
                 size_t n_fds, const char *sync_fd_arg, int log_fd)
{
	*h = (struct helper)HELPER_INIT;
	if (!argv || !argv[0] || argv[0][0] != '/' || n_fds >= MAX_FDS)
		return -EINVAL;
	int pipefd[2] = {-1, -1};
	int all[MAX_FDS + 1];
	size_t n = n_fds, argc = 0;
	for (size_t i = 0; i < n_fds; i++)
		all[i] = fds[i];
	while (argv[argc])
		argc++;
	const char **args = calloc(argc + 2, sizeof(*args));
	char arg[64] = "";
	if (!args)
		return -ENOMEM;
	memcpy(args, argv, argc * sizeof(*args));
	int r = 0;
	if (sync_fd_arg) {
		if ((r = pipe_cloexec(pipefd)) < 0) {
			free(args);
			return r;
		}
		all[n++] = pipefd[1];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(arg, sizeof(arg), sync_fd_arg, 3 + (int)n_fds);
#pragma GCC diagnostic pop
		args[argc++] = arg;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		r = -errno;
	} else if (pid == 0) {
		child(parent, args, envp, all, n, log_fd);
	}
	free(args);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (r < 0) {
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		return r;
	}
	h->pid = pid;
	h->sync = pipefd[0];
	return 0;
}

int helper_wait_ready(struct helper *h, int timeout_ms)
{
	if (h->sync < 0)
		return h->pid > 0 ? 0 : -ECHILD;
	struct pollfd p = {.fd = h->sync, .events = POLLIN};
	int r;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -ETIMEDOUT;
	if (r < 0)
		return -errno;
	char c;
	ssize_t n;
	do
		n = read(h->sync, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -ECHILD;
}

/* Ours, not reaped yet (0: its pid cannot have been reused), or gone:
 * reaped now, or by the supervisor's loop before (-1). Nothing reaps while
 * plugins run (the loop runs between the hooks). */
static int still_ours(struct helper *h)
{
	pid_t w;
	do
		w = waitpid(h->pid, NULL, WNOHANG);
	while (w < 0 && errno == EINTR);
	return w == 0 ? 0 : -1;
}

void helper_stop(struct helper *h, int timeout_ms)
{
	if (h->sync >= 0)
		close(h->sync);
	h->sync = -1;
	if (h->pid > 0 && still_ours(h) == 0) {
		(void)kill(h->pid, SIGTERM);
		int waited = 0;
		while (still_ours(h) == 0) {
			if (waited >= timeout_ms) {
				(void)kill(h->pid, SIGKILL);
				(void)waitpid(h->pid, NULL, 0);
				break;
			}
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
			waited += 10;
		}
	}
	*h = (struct helper)HELPER_INIT;
}

int helper_listen_unix(const char *dir, const char *name, int *out)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int dfd = -1;
	int n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
#ifdef __linux__
	/* A long directory is named by a descriptor of it instead. */
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		if ((dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return -errno;
		n = snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dfd, name);
	}
#endif
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	_cleanup_close_ int fd = socket_cloexec(AF_UNIX, SOCK_STREAM, false);
	if (fd < 0)
		return fd;
	(void)unlink(sa.sun_path);
	mode_t old = umask(0177);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(fd, 64) < 0)
		return -errno;
	*out = TAKE_FD(fd);
	return 0;
}

int helper_start_broker(struct helper *h, const char *mode, const char *upstream, const char *log,
                        const char *const *extra, int listen_fd)
{
	_cleanup_free_ char *broker = NULL;
	int r = exec_find_helper("agentsandbox-broker", &broker);
	if (r < 0)
		return r;
	struct strv argv = {0};
	const char *fixed[] = {broker, mode, "--upstream", upstream, "--log", log};
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(fixed); i++)
		r = strv_push(&argv, fixed[i]);
	for (size_t i = 0; r >= 0 && extra && extra[i]; i++)
		r = strv_push(&argv, extra[i]);
	if (r >= 0)
		r = helper_start(h, (const char *const *)argv.v, NULL, &listen_fd, 1,
		                 "--sync-fd=%d", STDERR_FILENO);
	strv_clear(&argv);
	if (r >= 0 && (r = helper_wait_ready(h, 5000)) < 0)
		helper_stop(h, 1000);
	return r;
}
