/* SPDX-License-Identifier: MIT */
/* agentsandbox-broker MODE --upstream SOCKET [--log FILE] [--key SHA256:...]
 *                     [--root DIR] [--label SESSION] [--sync-fd=N]
 * fd 3: the listening socket (made by the plugin, exposed inside). It ends
 * on SIGTERM or when the launcher is gone (the sync pipe); the docker
 * broker first removes the session's containers. */
#include "broker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#define LISTEN_FD 3

static volatile sig_atomic_t terminated;

static void on_term(int sig)
{
	(void)sig;
	terminated = 1;
}

void blog(const struct broker *b, const char *fmt, ...)
{
	if (!b->log_path)
		return;
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = str_vprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return;
	size_t n = strlen(msg);
	_cleanup_free_ char *line = malloc(n * 4 + 64);
	if (!line)
		return;
	time_t now = time(NULL);
	struct tm tm;
	size_t w = strftime(line, 32, "%Y-%m-%dT%H:%M:%S ", localtime_r(&now, &tm));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)msg[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			line[w++] = (char)c;
		else
			w += (size_t)sprintf(line + w, "\\x%02x", c);
	}
	line[w++] = '\n';
	/* The session directory exists once the agent can connect. */
	_cleanup_close_ int fd =
	    open(b->log_path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		(void)write_all(fd, line, w);
}

int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		got += (size_t)r;
	}
	return 0;
}

int upstream_connect(const struct broker *b)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(b->upstream) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, b->upstream, strlen(b->upstream) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static int usage(void)
{
	fputs("usage: agentsandbox-broker ssh-agent|gpg-agent|docker --upstream SOCKET "
	      "[--log FILE] [--key SHA256:FP]... [--root DIR]... [--label SESSION] [--sync-fd=N]\n"
	      "Serves the listening socket it inherits as fd 3.\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct broker b = {0};
	int sync_fd = -1;
	if (argc < 2)
		return usage();
	b.mode = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (str_has_prefix(a, "--sync-fd=")) {
			sync_fd = atoi(a + 10);
		} else if (strcmp(a, "--upstream") == 0 && v) {
			b.upstream = v, i++;
		} else if (strcmp(a, "--log") == 0 && v) {
			b.log_path = v, i++;
		} else if (strcmp(a, "--key") == 0 && v) {
			if (strv_push(&b.keys, v) < 0)
				return 1;
			i++;
		} else if (strcmp(a, "--root") == 0 && v) {
			if (strv_push(&b.roots, v) < 0)
				return 1;
			i++;
		} else if (strcmp(a, "--label") == 0 && v) {
			b.label = v, i++;
		} else {
			return usage();
		}
	}
	int (*serve)(const struct broker *, int) = NULL;
	if (strcmp(b.mode, "ssh-agent") == 0)
		serve = ssh_agent_serve;
	else if (strcmp(b.mode, "gpg-agent") == 0)
		serve = gpg_agent_serve;
	else if (strcmp(b.mode, "docker") == 0)
		serve = docker_serve;
	if (!serve || !b.upstream || (serve == docker_serve && !b.label))
		return usage();
	int type = 0;
	socklen_t tl = sizeof(type);
	if (getsockopt(LISTEN_FD, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_STREAM) {
		fprintf(stderr, "agentsandbox-broker: fd %d is not a listening socket\n",
		        LISTEN_FD);
		return 1;
	}
	(void)fcntl(LISTEN_FD, F_SETFD, FD_CLOEXEC);
	/* Children are reaped by the kernel; a peer gone is an EPIPE, not a
	 * signal. */
	struct sigaction sa = {.sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT};
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* no SA_RESTART: poll returns, and the loop ends */
	struct sigaction term = {.sa_handler = on_term};
	sigaction(SIGTERM, &term, NULL);
	pid_t self = getpid();
	if (sync_fd >= 0) {
		(void)fcntl(sync_fd, F_SETFD, FD_CLOEXEC);
		if (write_all(sync_fd, "r", 1) < 0)
			return 1;
	}
	blog(&b, "%s broker: serving, upstream %s", b.mode, b.upstream);
	while (!terminated) {
		struct pollfd p[2] = {{.fd = LISTEN_FD, .events = POLLIN},
		                      {.fd = sync_fd, .events = 0}};
		int n = poll(p, sync_fd >= 0 ? 2 : 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		/* The launcher's end of the sync pipe is gone: so is the launch. */
		if (sync_fd >= 0 && (p[1].revents & (POLLERR | POLLHUP)))
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		int c = accept4(LISTEN_FD, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		pid_t pid = fork();
		if (pid == 0) {
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			close(LISTEN_FD);
			if (sync_fd >= 0)
				close(sync_fd);
			signal(SIGTERM, SIG_DFL);
			serve(&b, c);
			_exit(0);
		}
		close(c);
	}
	if (serve == docker_serve)
		(void)docker_reap(&b);
	strv_clear(&b.keys);
	strv_clear(&b.roots);
	return 0;
}
