/* SPDX-License-Identifier: MIT */
/* core/platform.h on Linux: pidfds, PR_SET_PDEATHSIG and no_new_privs,
 * O_PATH pins (reached through no symlink, or checked through
 * /proc/self/fd), sealed memfds, and the kernel hardening carried out by the
 * init helper (seccomp, Landlock). The network namespace helper is
 * linux/netns.c, the open-mode engine linux/slirp.c. */
#include "exec.h"
#include "landlock.h"
#include "nosymlinks.h"
#include "platform.h"
#include "seccomp_groups.h"
#include "syscall_filter.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

const char *platform_name(void)
{
	return "linux";
}

void child_track(struct child *c, pid_t pid)
{
	c->pid = pid;
	c->handle = (int)syscall(SYS_pidfd_open, pid, 0);
}

static bool child_wait(struct child *c, int timeout_ms)
{
	if (c->handle < 0)
		return false;
	struct pollfd p = {.fd = c->handle, .events = POLLIN};
	int r;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	return r == 1;
}

void child_signal(struct child *c, int sig)
{
	if (c->handle >= 0)
		(void)syscall(SYS_pidfd_send_signal, c->handle, sig, NULL, 0);
	/* Without a pidfd (old kernels) the pid is all there is. */
	else if (c->pid > 0)
		kill(c->pid, sig);
}

void child_stop(struct child *c, int sig, int timeout_ms)
{
	if (c->pid <= 0)
		return;
	if (sig)
		child_signal(c, sig);
	if (!child_wait(c, timeout_ms)) {
		child_signal(c, SIGKILL);
		(void)child_wait(c, 1000);
	}
	/* Reap it unless the event loop already did. */
	(void)waitpid(c->pid, NULL, c->handle >= 0 ? WNOHANG : 0);
	if (c->handle >= 0)
		close(c->handle);
	*c = CHILD_NONE;
}

void child_forget(struct child *c)
{
	if (c->handle >= 0)
		close(c->handle);
	*c = CHILD_NONE;
}

int platform_child_prepare(pid_t parent, const struct limits_set *limits, bool no_new_privs)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -errno;
	/* The launcher may have died before the line above: no signal then. */
	if (getppid() != parent)
		raise(SIGKILL);
	for (int w = 0; limits && w < LIMIT_COUNT; w++)
		if (setrlimit(limits_resource(w), &limits->lim[w]) < 0)
			return -errno;
	const struct rlimit none = {0, 0};
	if (setrlimit(RLIMIT_CORE, &none) < 0)
		return -errno;
	if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return 0;
}

void platform_harden_self(void)
{
	const struct rlimit none = {0, 0};
	(void)setrlimit(RLIMIT_CORE, &none);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void platform_adopt_orphans(void)
{
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* /proc/PID/NAME, whole (NUL-terminated). */
static int read_proc(long pid, const char *name, char **out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	return read_file(path, out, NULL);
}

/* How many pid namespaces deep `pid` is, seen from this one: the fields of
 * its NSpid line; 0 when it cannot be read. */
static int pidns_depth(long pid)
{
	_cleanup_free_ char *text = NULL;
	if (read_proc(pid, "status", &text) < 0)
		return 0;
	const char *line = strstr(text, "\nNSpid:");
	if (!line)
		return 0;
	int depth = 0;
	for (const char *p = line + strlen("\nNSpid:"); *p && *p != '\n';) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		depth++;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return depth;
}

void platform_kill_adopted_sandboxes(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	_cleanup_free_ char *list = NULL;
	int own = pidns_depth(getpid());
	if (own <= 0 || read_file(path, &list, NULL) < 0)
		return;
	char *save = NULL;
	for (char *tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		long pid = strtol(tok, NULL, 10);
		/* The proxy, the engine and the helper are in this namespace. */
		if (pid <= 0 || pidns_depth(pid) <= own)
			continue;
		struct child c;
		child_track(&c, (pid_t)pid);
		child_stop(&c, SIGKILL, 2000);
	}
}

/* close_range(2): Linux 5.9, CLOSE_RANGE_CLOEXEC from 5.11; ENOSYS or EINVAL
 * before, and the callers walk the descriptors instead. */
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1u << 2)
#endif
static int close_fd_range(unsigned first, unsigned last, unsigned flags)
{
#ifdef SYS_close_range
	return syscall(SYS_close_range, first, last, flags) < 0 ? -errno : 0;
#else
	(void)first;
	(void)last;
	(void)flags;
	return -ENOSYS;
#endif
}

int platform_fds_cloexec_from(int lowfd)
{
	if (lowfd >= 0 && close_fd_range((unsigned)lowfd, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	return fds_cloexec_from(lowfd);
}

/* Each gap between the kept fds closed in one call; false where the kernel
 * cannot (what was closed stays closed: the walk does the rest). */
static bool close_gaps(int lowfd, const int *keep, size_t n_keep)
{
	/* Sorted in a copy on the stack: a forked child must not allocate. */
	int sorted[64];
	if (lowfd < 0 || n_keep > ARRAY_SIZE(sorted))
		return false;
	size_t n = 0;
	for (size_t i = 0; i < n_keep; i++) {
		if (keep[i] < lowfd)
			continue;
		size_t j = n++;
		for (; j > 0 && sorted[j - 1] > keep[i]; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = keep[i];
	}
	unsigned from = (unsigned)lowfd;
	for (size_t i = 0; i < n; i++) {
		unsigned kept = (unsigned)sorted[i];
		if (kept > from && close_fd_range(from, kept - 1, 0) < 0)
			return false;
		if (kept >= from)
			from = kept + 1;
	}
	return close_fd_range(from, ~0u, 0) == 0;
}

int platform_fds_close_except(int lowfd, const int *keep, size_t n_keep)
{
	return close_gaps(lowfd, keep, n_keep) ? 0 : fds_close_except(lowfd, keep, n_keep);
}

/* What the kernel reached through no symlink, by a path spelt as its
 * canonical name is (absolute, no ".", ".." or empty component, no trailing
 * slash), is named by that very path: no /proc readlink (a lookup and a
 * d_path), no lstat to see that the name still leads to it. */
static int pin_canonical(const char *path, struct stat *st)
{
	char norm[PATH_MAX];
	size_t len = strlen(path);
	if (path[0] != '/' || len >= sizeof(norm) || path_normalize(norm, path) != len ||
	    strstr(path, "/../") || (len >= 3 && strcmp(path + len - 3, "/..") == 0))
		return -EINVAL;
	_cleanup_close_ int fd = open_nosymlinks(AT_FDCWD, path, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		return -errno;
	return TAKE_FD(fd);
}

int platform_pin_path(const char *path, char *real, struct stat *st, int *out)
{
	int pinned = pin_canonical(path, st);
	if (pinned >= 0) {
		memcpy(real, path, strlen(path) + 1);
		*out = pinned;
		return 0;
	}
	if (pinned == -ENOENT)
		return pinned; /* missing before any symlink: so it is for open() too */
	/* A symlink on the way, another spelling, or no openat2: the kernel
	 * resolves the path once, and the pinned object's own name is its
	 * canonical path: no realpath() (a readlink per component), and no
	 * window between what was resolved and what was opened. */
	_cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(proc, real, PATH_MAX - 1);
	if (len < 0)
		return -errno;
	if (len >= PATH_MAX - 1)
		return -ENAMETOOLONG;
	real[len] = '\0';
	/* An object deleted or out of reach meanwhile reads as a name that is
	 * not its path ("... (deleted)", "(unreachable)..."). */
	struct stat seen;
	if (fstat(fd, st) < 0)
		return -errno;
	if (real[0] != '/' || lstat(real, &seen) < 0 || seen.st_dev != st->st_dev ||
	    seen.st_ino != st->st_ino)
		return -EXDEV;
	*out = TAKE_FD(fd);
	return 0;
}

int platform_data_fd(const void *data, size_t len, int *out)
{
	_cleanup_close_ int fd = memfd_create("asb-data", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	int r = len ? write_all(fd, data, len) : 0;
	if (r < 0)
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	*out = TAKE_FD(fd);
	return 0;
}

int platform_seccomp_available(void)
{
	return seccomp_available();
}

const char *platform_seccomp_arch(void)
{
	return seccomp_arch_summary();
}

int platform_landlock_abi(void)
{
	return landlock_abi();
}

/* The compiled filter as a FILE entry for the init helper. */
static int add_filter(struct plan *plan, uint32_t lifted)
{
	_cleanup_free_ struct sock_filter *prog = NULL;
	size_t n = 0;
	int r = seccomp_program(lifted, true, &prog, &n, NULL);
	if (r < 0)
		return r;
	return plan_file(plan, PLAN_SECCOMP, prog, n * sizeof(*prog), 0444, "core");
}

int platform_hardening_plan(struct plan *plan, const struct hardening_intent *h, uint32_t *applied)
{
	*applied = 0;
	bool landlock = h->landlock && (h->landlock_required || landlock_abi() > 0);
	if (!h->seccomp && !landlock)
		return 0;
	_cleanup_free_ char *init = NULL;
	int r = exec_find_helper("agentsandbox-init", &init);
	if (r < 0)
		return r;
	struct strv opts = {0};
	if (landlock) {
		r = strv_push(&opts, "--landlock");
		if (r >= 0)
			r = landlock_rules(plan, h->home, h->landlock_required, &opts);
		if (r >= 0)
			*applied |= ASB_HARD_LANDLOCK;
	}
	if (r >= 0 && h->seccomp) {
		if ((r = add_filter(plan, h->lifted)) >= 0 &&
		    (r = strv_push(&opts, "--seccomp")) >= 0)
			r = strv_push(&opts, PLAN_SECCOMP);
		if (r >= 0)
			*applied |= ASB_HARD_SECCOMP;
	}
	/* Runs from the system's view of the helper: read-only, executable. */
	if (r >= 0)
		r = plan_path(plan, ASB_ENTRY_READ, init, PLAN_INIT, ASB_ENTRY_F_EXEC, "core");
	if (r >= 0)
		r = plan_prefix_argv(plan, PLAN_INIT, &opts);
	strv_clear(&opts);
	if (r < 0)
		*applied = 0;
	return r;
}

/* The state field of /proc/PID/stat ('T', 't': stopped), after the last ')'. */
static int proc_state(long pid)
{
	_cleanup_free_ char *stat = NULL;
	if (read_proc(pid, "stat", &stat) < 0)
		return 0;
	const char *rp = strrchr(stat, ')');
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

int platform_agent_stopped(pid_t pid)
{
	int st = proc_state(pid);
	if (st == 'T' || st == 't')
		return 1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	_cleanup_free_ char *kids = NULL;
	if (read_file(path, &kids, NULL) < 0)
		return 0; /* gone, or a kernel without CONFIG_PROC_CHILDREN */
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(kids, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		st = proc_state(strtol(tok, NULL, 10));
		if (st != 'T' && st != 't')
			return 0;
		n++;
	}
	return n > 0;
}
