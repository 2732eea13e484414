/* SPDX-License-Identifier: MIT */
#include "supervisor.h"

#include "log.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

struct sup {
	pid_t child;
	pid_t *sandbox_init;
	int info_fd;
	int status;
	bool exited;
	ev_io sig_watcher;
	ev_child child_watcher;
};

void supervisor_signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
}

int supervisor_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}

/* The sandbox's pid 1 is bubblewrap's reaper, which does not pass signals
 * on: deliver them to its children (the agent) directly. */
static int forward_to_children(pid_t parent, int sig)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	int sent = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		_cleanup_free_ char *stat = NULL;
		if (read_file(path, &stat, NULL) < 0)
			continue;
		/* The comm field may hold spaces and parens: parse after the last ')'. */
		char *rp = strrchr(stat, ')');
		int ppid = 0;
		if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
			continue;
		if (ppid == parent && kill((pid_t)pid, sig) == 0)
			sent++;
	}
	closedir(d);
	return sent;
}

static void learn_sandbox_pid(struct sup *s)
{
	if (*s->sandbox_init > 0 || s->info_fd < 0)
		return;
	*s->sandbox_init = supervisor_read_sandbox_pid(s->info_fd);
	s->info_fd = -1; /* read to the end: once is all there is */
	if (*s->sandbox_init > 0)
		log_msg(LOG_INFO, "sandbox pid %d", (int)*s->sandbox_init);
}

pid_t supervisor_read_sandbox_pid(int fd)
{
	char buf[512];
	size_t len = 0;
	for (;;) {
		ssize_t r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len >= sizeof(buf) - 1)
			break;
	}
	buf[len] = '\0';
	const char *k = strstr(buf, "\"child-pid\"");
	if (!k)
		return -1;
	k = strchr(k, ':');
	return k ? (pid_t)strtol(k + 1, NULL, 10) : -1;
}

static void on_signal(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup *s = w->data;
	struct signalfd_siginfo si;
	(void)loop;
	(void)revents;
	while (read(w->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;
		/* Keys typed at the terminal (^C, ^\) already reached the whole
		 * foreground process group, the agent included. */
		if (si.ssi_code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT)) {
			log_msg(LOG_INFO, "signal %s from the terminal", strsignal(sig));
			continue;
		}
		log_msg(LOG_INFO, "forwarding signal %s to the agent", strsignal(sig));
		learn_sandbox_pid(s);
		int sent = *s->sandbox_init > 0 ? forward_to_children(*s->sandbox_init, sig) : 0;
		if (sent <= 0)
			kill(s->child, sig);
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

int supervisor_prepare(void)
{
	return ev_default_loop(EVFLAG_AUTO | EVFLAG_NOSIGMASK) ? 0 : -ENOMEM;
}

int supervisor_run(pid_t child, pid_t *sandbox_init, int info_fd, int signal_fd)
{
	struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!loop)
		return -ENOMEM;
	struct sup s = {.child = child, .sandbox_init = sandbox_init, .info_fd = info_fd};
	ev_io_init(&s.sig_watcher, on_signal, signal_fd, EV_READ);
	s.sig_watcher.data = &s;
	ev_io_start(loop, &s.sig_watcher);
	ev_child_init(&s.child_watcher, on_child, child, 0);
	s.child_watcher.data = &s;
	ev_child_start(loop, &s.child_watcher);
	/* The child may have exited before the watcher existed: libev reaps on
	 * SIGCHLD, which is pending in that case, so the loop still sees it. */
	ev_run(loop, 0);
	ev_io_stop(loop, &s.sig_watcher);
	ev_child_stop(loop, &s.child_watcher);
	if (!s.exited)
		return -ECHILD;
	learn_sandbox_pid(&s);
	return s.status;
}
