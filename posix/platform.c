/* SPDX-License-Identifier: MIT */
/* core/platform.h for everything that is not Linux (macOS, and the portable
 * build that proves the core needs nothing Linux-only): plain pids, rlimits,
 * pins checked by device and inode, unlinked temporary files for generated
 * content. There are no namespaces, seccomp or Landlock here: a backend on
 * such a system gives its own protections (the seatbelt profile) and says
 * so in its capabilities. */
#include "platform.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

const char *platform_name(void)
{
	return "posix";
}

void child_track(struct child *c, pid_t pid)
{
	c->pid = pid;
	c->handle = -1;
}

void child_signal(struct child *c, int sig)
{
	if (c->pid > 0)
		kill(c->pid, sig);
}

void child_stop(struct child *c, int sig, int timeout_ms)
{
	if (c->pid <= 0)
		return;
	if (sig)
		child_signal(c, sig);
	for (int waited = 0; waited < timeout_ms; waited += 10) {
		pid_t r = waitpid(c->pid, NULL, WNOHANG);
		if (r == c->pid || (r < 0 && errno == ECHILD)) {
			*c = CHILD_NONE;
			return;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill(c->pid, SIGKILL);
	(void)waitpid(c->pid, NULL, 0);
	*c = CHILD_NONE;
}

void child_forget(struct child *c)
{
	*c = CHILD_NONE;
}

int platform_child_prepare(pid_t parent, const struct limits_set *limits, bool no_new_privs)
{
	(void)parent;       /* no parent-death signal here */
	(void)no_new_privs; /* no such switch here: the backend's caps say so */
	for (int w = 0; limits && w < LIMIT_COUNT; w++)
		if (setrlimit(limits_resource(w), &limits->lim[w]) < 0)
			return -errno;
	const struct rlimit none = {0, 0};
	return setrlimit(RLIMIT_CORE, &none) < 0 ? -errno : 0;
}

int platform_child_new_netns(const struct netns_at_spawn *s)
{
	(void)s;
	return -EOPNOTSUPP;
}

bool platform_netns_at_spawn_usable(void)
{
	return false;
}

void platform_harden_self(void)
{
	const struct rlimit none = {0, 0};
	(void)setrlimit(RLIMIT_CORE, &none);
}

int platform_fds_cloexec_from(int lowfd)
{
	return fds_cloexec_from(lowfd);
}

int platform_fds_close_except(int lowfd, const int *keep, size_t n_keep)
{
	return fds_close_except(lowfd, keep, n_keep);
}

void platform_adopt_orphans(void)
{
	/* No portable way: a killed sandbox may still be ending on return. */
}

void platform_kill_adopted_sandboxes(void)
{
	/* Nothing is adopted here (platform_adopt_orphans). */
}

int platform_pin_path(const char *path, char *real, struct stat *st, int *out)
{
	if (!realpath(path, real))
		return -errno;
	struct stat want;
	if (lstat(real, &want) < 0)
		return -errno;
	if (S_ISLNK(want.st_mode))
		return -EXDEV;
	int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	_cleanup_close_ int fd = open(real, flags | (S_ISDIR(want.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		return -errno;
	if (st->st_dev != want.st_dev || st->st_ino != want.st_ino)
		return -EXDEV;
	*out = TAKE_FD(fd);
	return 0;
}

int platform_data_fd(const void *data, size_t len, int *out)
{
	const char *tmp = getenv("TMPDIR");
	_cleanup_free_ char *path =
	    str_printf("%s/asb-data-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!path)
		return -ENOMEM;
	_cleanup_close_ int fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	int r = len ? write_all(fd, data, len) : 0;
	/* Handed out read-only: no holder can change what the others read (as
	 * Linux's seals keep it). */
	int ro = r < 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (r == 0 && ro < 0)
		r = -errno;
	(void)unlink(path);
	if (r < 0)
		return r;
	*out = ro;
	return 0;
}

int platform_seccomp_available(void)
{
	return -EOPNOTSUPP;
}

const char *platform_seccomp_arch(void)
{
	return "none (no seccomp on this platform)";
}

int platform_landlock_abi(void)
{
	return -ENOSYS;
}

int platform_hardening_plan(struct plan *plan, const struct hardening_intent *h, uint32_t *applied)
{
	(void)plan;
	*applied = 0;
	return h->landlock_required ? -EOPNOTSUPP : 0;
}

int platform_netns_prefork(struct netns_link **out)
{
	(void)out;
	return -EOPNOTSUPP;
}

int platform_netns_attach(struct netns_link **out, pid_t pid, int netns_fd)
{
	(void)out;
	(void)pid;
	(void)netns_fd;
	return -EOPNOTSUPP;
}

int platform_netns_listen(struct netns_link *l, uint16_t port)
{
	(void)l;
	(void)port;
	return -EOPNOTSUPP;
}

int platform_netns_connect(struct netns_link *l, uint16_t port)
{
	(void)l;
	(void)port;
	return -EOPNOTSUPP;
}

int platform_netns_describe(struct netns_link *l, char **out)
{
	(void)l;
	(void)out;
	return -EOPNOTSUPP;
}

int platform_route_describe(int route_sock, char **out)
{
	(void)route_sock;
	(void)out;
	return -EOPNOTSUPP;
}

int platform_netns_fd(const struct netns_link *l)
{
	(void)l;
	return -1;
}

void platform_netns_close(struct netns_link *l)
{
	(void)l;
}

void platform_netns_detach(struct netns_link *l)
{
	(void)l;
}

int platform_netns_new(int *fd)
{
	(void)fd;
	return -EOPNOTSUPP;
}

int platform_engine_start(struct net_engine **out, struct netns_link *l, int netns_fd,
                          const struct engine_opts *opts)
{
	(void)out;
	(void)l;
	(void)netns_fd;
	(void)opts;
	return -EOPNOTSUPP;
}

int platform_engine_await(struct net_engine *e)
{
	(void)e;
	return -EOPNOTSUPP;
}

int platform_engine_usable(void)
{
	return -EOPNOTSUPP;
}

const char *platform_engine_pinned(void)
{
	return NULL;
}

const char *platform_engine_name(const struct net_engine *e)
{
	(void)e;
	return "none";
}

pid_t platform_engine_pid(const struct net_engine *e)
{
	(void)e;
	return -1;
}

const char *platform_engine_args(const struct net_engine *e)
{
	(void)e;
	return "";
}

void platform_engine_ask_stop(struct net_engine *e)
{
	(void)e;
}

void platform_engine_stop(struct net_engine *e)
{
	(void)e;
}

const struct engine_layout *platform_engine_layout(void)
{
	static const struct engine_layout none = {"", "", ""};
	return &none;
}

int platform_agent_stopped(pid_t pid)
{
	(void)pid;
	return -ENOSYS; /* no portable way to read another process's state */
}
