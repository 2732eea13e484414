/* SPDX-License-Identifier: MIT */
/* The open mode's engine: slirp4netns attached to the sandbox's network
 * namespace through descriptors it inherits (the namespace and the user
 * namespace that owns it, as /proc/self/fd paths: no process has to stay
 * put in them), with the host's loopback cut off, its own seccomp filter
 * and, as root, its own mount sandbox. Why not pasta: README "Network". */
#include "exec.h"
#include "netns.h"
#include "platform.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/nsfs.h>

#define READY_TIMEOUT_MS 10000

/* The CPUs this process may use, narrowed to the one it runs on for a
 * fork, so that the child starts there. The scheduler places a new process
 * on the other CPU, where bubblewrap's child is busy building the sandbox
 * at this point, and the child waited there for it (1.0-1.4 ms in 3 of 7
 * open launches, sched events) while this CPU went idle: the launcher only
 * waits for the engine next. The launcher takes its own set back right
 * after the fork, and gives the engine the whole set once it is ready (the
 * child doing so itself before its exec moved it back to the busy CPU).
 * Where none can be set, nothing is pinned. */
struct cpu_pin {
	cpu_set_t all;
	bool pinned;
};

struct net_engine {
	struct child proc;
	int exit_fd;  /* slirp4netns exits when this closes */
	int ready_fd; /* until it said it is ready (-1 after) */
	struct cpu_pin pin;
	char *args;
};

static const struct engine_layout slirp_layout = {
    .address = "10.0.2.100/24",
    .gateway = "10.0.2.2",
    .resolver = "10.0.2.3",
};

const struct engine_layout *platform_engine_layout(void)
{
	return &slirp_layout;
}

static int wait_ready(int fd, pid_t pid)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r;
	do
		r = poll(&pfd, 1, READY_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	char c;
	ssize_t n = r == 1 ? read(fd, &c, 1) : -1;
	if (n == 1)
		return 0;
	/* Its end closed without a byte: it exited (or is exiting). */
	int status;
	return n == 0 || waitpid(pid, &status, WNOHANG) == pid ? -ECHILD : -ETIMEDOUT;
}

static char *join_args(char **argv)
{
	size_t len = 1;
	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	char *out = calloc(1, len);
	for (char **a = argv; out && *a; a++) {
		if (a != argv)
			strcat(out, " ");
		strcat(out, *a);
	}
	return out;
}

#ifndef ASB_SLIRP4NETNS_PATH
#define ASB_SLIRP4NETNS_PATH ""
#endif

/* The one the build was told to trust (-Dslirp4netns), else the first in
 * the fixed system directories: never the caller's PATH. */
static int find_slirp(char **out)
{
	const char *configured = ASB_SLIRP4NETNS_PATH;
	if (configured[0]) {
		if (access(configured, X_OK) < 0)
			return -errno;
		return (*out = strdup(configured)) ? 0 : -ENOMEM;
	}
	return exec_find_system("slirp4netns", out) < 0 ? -ENOENT : 0;
}

const char *platform_engine_pinned(void)
{
	return ASB_SLIRP4NETNS_PATH[0] ? ASB_SLIRP4NETNS_PATH : NULL;
}

int platform_engine_usable(void)
{
	_cleanup_free_ char *slirp = NULL;
	int r = find_slirp(&slirp);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOENT;
	/* Unprivileged slirp4netns opens /dev/net/tun itself. */
	if (geteuid() != 0 && access("/dev/net/tun", R_OK | W_OK) < 0)
		return -EACCES;
	return 0;
}

static void cpu_pin_here(struct cpu_pin *p)
{
	p->pinned = false;
	int cpu = sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(p->all), &p->all) < 0 ||
	    !CPU_ISSET(cpu, &p->all) || CPU_COUNT(&p->all) < 2)
		return;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	p->pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
}

/* `pid` (0: this process) given the whole set back. */
static void cpu_unpin(const struct cpu_pin *p, pid_t pid)
{
	if (p->pinned)
		(void)sched_setaffinity(pid, sizeof(p->all), &p->all);
}

int platform_engine_start(struct net_engine **out, struct netns_link *l, int netns_fd,
                          const struct engine_opts *opts)
{
	int usable = platform_engine_usable();
	if (usable < 0)
		return usable;
	_cleanup_free_ char *slirp = NULL;
	if (find_slirp(&slirp) < 0)
		return -ENOENT;
	/* The namespaces as descriptors it inherits: nothing to look up by
	 * pid, no process that must stay put in them. */
	_cleanup_close_ int user_fd = ioctl(netns_fd, NS_GET_USERNS);
	if (user_fd < 0)
		return -errno;
	struct net_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->proc = CHILD_NONE;
	e->exit_fd = e->ready_fd = -1;
	int ready[2], exitp[2];
	if (pipe_cloexec(ready) < 0) {
		free(e);
		return -errno;
	}
	if (pipe_cloexec(exitp) < 0) {
		close(ready[0]);
		close(ready[1]);
		free(e);
		return -errno;
	}
	char ready_s[32], exit_s[32], userns[64], netns[64];
	snprintf(ready_s, sizeof(ready_s), "--ready-fd=%d", ready[1]);
	snprintf(exit_s, sizeof(exit_s), "--exit-fd=%d", exitp[0]);
	snprintf(userns, sizeof(userns), "--userns-path=/proc/self/fd/%d", user_fd);
	snprintf(netns, sizeof(netns), "/proc/self/fd/%d", netns_fd);
	char *argv[16];
	size_t a = 0;
	argv[a++] = slirp;
	argv[a++] = (char *)"--configure";
	argv[a++] = (char *)"--mtu=65520";
	if (!opts->all_host_ports)
		argv[a++] = (char *)"--disable-host-loopback";
	/* Its own mount-namespace sandbox needs root (it switches to gid 0);
	 * its seccomp filter works for everyone. */
	if (geteuid() == 0)
		argv[a++] = (char *)"--enable-sandbox";
	argv[a++] = (char *)"--enable-seccomp";
	argv[a++] = ready_s;
	argv[a++] = exit_s;
	argv[a++] = userns;
	argv[a++] = (char *)"--netns-type=path";
	argv[a++] = netns;
	argv[a++] = (char *)NETNS_TAP_NAME;
	argv[a] = NULL;
	e->args = join_args(argv);
	/* Persistent, made by the helper (or with the namespace): slirp4netns's
	 * exit then costs no unregistering of the device. Failing that, it
	 * makes its own. */
	if (l)
		(void)netns_make_tap(l, NETNS_TAP_NAME);

	_cleanup_close_ int log_fd =
	    opts->log_path
	        ? open(opts->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600)
	        : -1;
	pid_t parent = getpid();
	cpu_pin_here(&e->pin);
	pid_t pid = fork();
	if (pid != 0)
		cpu_unpin(&e->pin, 0);
	if (pid < 0) {
		int r = -errno;
		close(ready[0]);
		close(ready[1]);
		close(exitp[0]);
		close(exitp[1]);
		free(e->args);
		free(e);
		return r;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			raise(SIGKILL);
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		fcntl(ready[1], F_SETFD, 0);
		fcntl(exitp[0], F_SETFD, 0);
		fcntl(user_fd, F_SETFD, 0);
		fcntl(netns_fd, F_SETFD, 0);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		if (log_fd >= 0) {
			dup2(log_fd, STDOUT_FILENO);
			dup2(log_fd, STDERR_FILENO);
		}
		/* Its own process group: a ^C at the terminal is the agent's. */
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	child_track(&e->proc, pid);
	close(ready[1]);
	close(exitp[0]);
	e->exit_fd = exitp[1];
	e->ready_fd = ready[0];
	*out = e;
	return 0;
}

int platform_engine_await(struct net_engine *e)
{
	if (e->ready_fd < 0)
		return 0;
	int r = wait_ready(e->ready_fd, e->proc.pid);
	cpu_unpin(&e->pin, e->proc.pid);
	close(e->ready_fd);
	e->ready_fd = -1;
	return r;
}

const char *platform_engine_name(const struct net_engine *e)
{
	(void)e;
	return "slirp4netns";
}

pid_t platform_engine_pid(const struct net_engine *e)
{
	return e->proc.pid;
}

const char *platform_engine_args(const struct net_engine *e)
{
	return e->args ? e->args : "";
}

void platform_engine_ask_stop(struct net_engine *e)
{
	if (e && e->exit_fd >= 0) {
		close(e->exit_fd); /* slirp4netns exits on its own */
		e->exit_fd = -1;
	}
}

void platform_engine_stop(struct net_engine *e)
{
	if (!e)
		return;
	platform_engine_ask_stop(e);
	child_stop(&e->proc, SIGTERM, 1000);
	if (e->ready_fd >= 0)
		close(e->ready_fd);
	free(e->args);
	free(e);
}
