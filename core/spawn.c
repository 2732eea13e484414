/* SPDX-License-Identifier: MIT */
#include "spawn.h"

#include "platform.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

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

int spawn_run(const char *const *argv, const char *const *envp, int stderr_fd, int *wstatus,
              char *out, size_t out_len)
{
	int fds[2];
	int r = pipe_cloexec(fds);
	if (r < 0)
		return r;
	struct spawn_opts o = {
	    .quiet_stdin = true, .stdout_fd = fds[1], .stderr_fd = stderr_fd, .own_group = true};
	_cleanup_close_ int null = -1;
	if (stderr_fd < 0) {
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		o.stderr_fd = null;
	}
	pid_t pid;
	r = spawn_exec(argv, envp, &o, &pid);
	close(fds[1]);
	if (r < 0) {
		close(fds[0]);
		return r;
	}
	size_t len = 0;
	char sink[512];
	for (;;) {
		char *dst = out && len + 1 < out_len ? out + len : sink;
		size_t room = out && len + 1 < out_len ? out_len - 1 - len : sizeof(sink);
		ssize_t n = read(fds[0], dst, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (dst != sink)
			len += (size_t)n;
	}
	close(fds[0]);
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
