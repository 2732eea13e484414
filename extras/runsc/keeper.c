/* SPDX-License-Identifier: MIT */
/* Running the sandbox. `runsc run` creates the sandbox, runs the prestart
 * hook (the hold: spec.c), starts the agent and exits with its status; its
 * sandbox dies with it (runsc runs it --attached).
 *
 * Between the launcher and runsc sits the keeper, a child of ours that
 *  - joins the network namespace the core wires (and, unprivileged, the
 *    user namespace that owns it, where we map the user to root, which
 *    runsc must be: gVisor's own user namespace maps it back);
 *  - runs `runsc run` in a session of its own, so that keys typed at the
 *    terminal do not kill runsc (^C would: Go's default), and relays the
 *    signals it gets itself, from the core or the terminal, with
 *    `runsc kill` (runsc run forwards none);
 *  - dies with the launcher (and runsc with it, and the sandbox with runsc);
 *  - exits with runsc's status, which is the agent's.
 * It is a fork of the launcher that only calls libc: no exec of a helper
 * binary, nothing of the host's. */
#include "runsc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_TIMEOUT_MS 60000

static const char *const runsc_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};

/* Signals the keeper relays; SIGCHLD tells it runsc ended. */
static const int relayed[] = {SIGINT,  SIGTERM,  SIGHUP,  SIGQUIT, SIGUSR1,
                              SIGUSR2, SIGWINCH, SIGTSTP, SIGCONT};

static int private_path(const struct runsc *rs, const char *name, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/%s", rs->dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, (const char *)buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

static int write_config(struct runsc *rs)
{
	char path[PATH_MAX];
	int r = private_path(rs, RUNSC_BUNDLE "/config.json", path, sizeof(path));
	if (r < 0)
		return r;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = write_all(fd, rs->spec, rs->spec_len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* argv: the runsc base (global flags) + `tail`, NULL-terminated. */
static char **argv_with(const struct runsc *rs, const char *const *tail)
{
	size_t n = 0, t = 0;
	while (rs->base_argv[n])
		n++;
	while (tail[t])
		t++;
	char **v = calloc(n + t + 1, sizeof(char *));
	if (!v)
		return NULL;
	memcpy(v, rs->base_argv, n * sizeof(char *));
	memcpy(v + n, tail, t * sizeof(char *));
	return v;
}

/* ----------------------------------------------------------- the keeper */

static void close_from(int lowest)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowest, ~0U, 0) == 0)
		return;
#endif
	struct rlimit rl;
	int max =
	    getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
	for (int fd = lowest; fd < max; fd++)
		close(fd);
}

/* runsc kill, without waiting: while the sandbox is held, runsc's own
 * lock on the container makes it wait for the release, which must not wait
 * for it in turn. One at a time per signal; a signal that comes meanwhile
 * is sent again once the first is through. */
struct relay_state {
	pid_t inflight[NSIG];
	bool again[NSIG], again_all[NSIG];
};

static void relay(char **kill_argv, struct relay_state *st, int sig, bool all)
{
	if (st->inflight[sig] > 0) {
		st->again[sig] = true;
		st->again_all[sig] = st->again_all[sig] || all;
		return;
	}
	char num[16];
	snprintf(num, sizeof(num), "%d", sig);
	/* kill_argv: runsc, its flags, "kill", "--all", the id. */
	char *argv[64];
	size_t n = 0;
	for (; kill_argv[n] && n < 60; n++)
		argv[n] = kill_argv[n];
	if (n < 3)
		return;
	if (!all) {
		argv[n - 2] = argv[n - 1];
		n--;
	}
	argv[n++] = num;
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execve(argv[0], argv, (char *const *)runsc_env);
		_exit(127);
	}
	st->inflight[sig] = pid > 0 ? pid : 0;
}

static void relay_done(char **kill_argv, struct relay_state *st, pid_t pid)
{
	for (int sig = 1; sig < NSIG; sig++) {
		if (st->inflight[sig] != pid)
			continue;
		st->inflight[sig] = 0;
		if (st->again[sig]) {
			bool all = st->again_all[sig];
			st->again[sig] = st->again_all[sig] = false;
			relay(kill_argv, st, sig, all);
		}
	}
}

/* gVisor writes to a regular file on stdout or stderr at an offset of its
 * own, from 0, not the file's: `(echo x; agentsandbox ...) >log` would
 * overwrite what came before, and the caller's next write what the agent
 * wrote. While runsc runs, such a file appends (the flag belongs to the open
 * file, shared with the caller); after, its offset is moved to the end and
 * the flag restored. */
static unsigned set_append(void)
{
	unsigned set = 0;
	for (int fd = 1; fd <= 2; fd++) {
		struct stat st;
		int flags = fcntl(fd, F_GETFL);
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || flags < 0 || (flags & O_APPEND))
			continue;
		if (fcntl(fd, F_SETFL, flags | O_APPEND) == 0)
			set |= 1u << fd;
	}
	return set;
}

static void clear_append(unsigned set)
{
	for (int fd = 1; fd <= 2; fd++) {
		int flags = fcntl(fd, F_GETFL);
		if (!(set & (1u << fd)) || flags < 0)
			continue;
		/* gVisor appended with pwrite, which leaves the offset. */
		lseek(fd, 0, SEEK_END);
		fcntl(fd, F_SETFL, flags & ~O_APPEND);
	}
}

struct keeper_args {
	char **run_argv;
	char **kill_argv;
	const char *lock_path;
	pid_t launcher;
	int userns_fd, netns_fd;
	int to_parent, from_parent; /* unprivileged: the uid map handshake */
};

static __attribute__((noreturn)) void keeper_main(const struct keeper_args *a)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != a->launcher)
		_exit(125);
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(relayed) / sizeof(relayed[0]); i++)
		sigaddset(&set, relayed[i]);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGRTMIN); /* the release, from the launcher */
	sigprocmask(SIG_SETMASK, &set, NULL);
	/* The launcher's handlers are not ours. */
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);

	char c = 0;
	if (a->userns_fd >= 0) {
		if (setns(a->userns_fd, CLONE_NEWUSER) < 0)
			_exit(125);
		/* In; the launcher maps us to root there, then lets us go on.
		 * It writes our /proc files, which a non-dumpable process
		 * (the launcher is, and so are its forks) keeps root's: for
		 * that moment we are dumpable. */
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 || write(a->to_parent, "u", 1) != 1 ||
		    read(a->from_parent, &c, 1) != 1 || c != 'm' ||
		    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
			_exit(125);
	}
	if (a->netns_fd >= 0 && setns(a->netns_fd, CLONE_NEWNET) < 0)
		_exit(125);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(125);
	/* Nothing of the launcher's reaches runsc: not the namespaces' fds,
	 * not the supervisor's pipes. */
	close_from(3);
	/* The hold: the prestart hook waits for this lock to go. Ours alone
	 * (a lock the launcher held would be shared with every process it
	 * forks), released on the launcher's word or with us. */
	int lock = -1;
	if (a->lock_path) {
		lock = open(a->lock_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0)
			_exit(125);
	}

	pid_t keeper = getpid();
	unsigned appending = set_append();
	pid_t run = fork();
	if (run < 0)
		_exit(125);
	if (run == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (setsid() < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != keeper)
			_exit(125);
		execve(a->run_argv[0], a->run_argv, (char *const *)runsc_env);
		_exit(125);
	}
	struct relay_state relays;
	memset(&relays, 0, sizeof(relays));
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);
		if (sig < 0)
			continue;
		if (sig == SIGRTMIN) {
			if (si.si_pid == a->launcher && lock >= 0) {
				close(lock);
				lock = -1;
			}
			continue;
		}
		if (sig != SIGCHLD) {
			/* Keys at the terminal reach the whole foreground job; so
			 * do a resize, a stop and a continue. Signals from the
			 * launcher are for the agent (the sandbox's first
			 * process). */
			bool all = si.si_code == SI_KERNEL || sig == SIGWINCH || sig == SIGTSTP ||
			           sig == SIGCONT;
			relay(a->kill_argv, &relays, sig, all);
			continue;
		}
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			if (w == run) {
				clear_append(appending);
				_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			}
			relay_done(a->kill_argv, &relays, w);
		}
	}
}

/* Unprivileged: map the user to root in the user namespace that owns the
 * sandbox's network namespace (the core made it without a map). */
static int map_root(const struct runsc *rs, pid_t pid)
{
	char path[64], map[64];
	static const char *const files[] = {"setgroups", "uid_map", "gid_map"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		if (i == 0)
			snprintf(map, sizeof(map), "deny");
		else
			snprintf(map, sizeof(map), "0 %lld 1\n",
			         (long long)(i == 1 ? rs->uid : rs->gid));
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		int r = write_all(fd, map, strlen(map));
		close(fd);
		if (r < 0)
			return r;
	}
	return 0;
}

int keeper_spawn(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs, int64_t *pid)
{
	int r;
	if ((r = files_materialize(host, ctx, rs)) < 0)
		return r;
	if ((r = write_config(rs)) < 0) {
		host->log(ctx, ASB_LOG_ERROR, "runsc: cannot write the bundle's config.json: %s",
		          strerror(-r));
		return r;
	}
	char bundle[PATH_MAX];
	if ((r = private_path(rs, RUNSC_BUNDLE, bundle, sizeof(bundle))) < 0)
		return r;
	const char *run_tail[] = {"run", "--bundle", bundle, rs->id, NULL};
	const char *kill_tail[] = {"kill", "--all", rs->id, NULL};
	char lock[PATH_MAX];
	if ((r = private_path(rs, RUNSC_LOCK, lock, sizeof(lock))) < 0)
		return r;
	struct keeper_args a = {.run_argv = argv_with(rs, run_tail),
	                        .kill_argv = argv_with(rs, kill_tail),
	                        .lock_path = rs->hooked ? lock : NULL,
	                        .launcher = getpid(),
	                        .userns_fd = -1,
	                        .netns_fd = rs->use_netns ? rs->netns_fd : -1,
	                        .to_parent = -1,
	                        .from_parent = -1};
	int up[2] = {-1, -1}, down[2] = {-1, -1};
	r = -ENOMEM;
	if (!a.run_argv || !a.kill_argv)
		goto out;
	if (!rs->is_root && rs->use_netns) {
		a.userns_fd = ioctl(rs->netns_fd, NS_GET_USERNS);
		if (a.userns_fd < 0 || pipe2(up, O_CLOEXEC) < 0 || pipe2(down, O_CLOEXEC) < 0) {
			r = -errno;
			goto out;
		}
		a.to_parent = up[1];
		a.from_parent = down[0];
	}
	pid_t child = fork();
	if (child < 0) {
		r = -errno;
		goto out;
	}
	if (child == 0)
		keeper_main(&a);
	rs->keeper = child;
	rs->spawned = true;
	*pid = child;
	r = 0;
	if (a.userns_fd >= 0) {
		char c = 0;
		close(up[1]);
		up[1] = -1;
		r = read(up[0], &c, 1) == 1 && c == 'u' ? map_root(rs, child) : -EIO;
		if (r == 0)
			r = write(down[1], "m", 1) == 1 ? 0 : -errno;
		if (r < 0)
			host->log(
			    ctx, ASB_LOG_ERROR,
			    "runsc: cannot map you to root in the sandbox's user namespace: %s",
			    strerror(-r));
		/* On failure the keeper exits: await_start reports it. */
	}
	if (r == 0 && rs->hooked && !rs->hold) {
		/* Nothing to wire, no plugin to run in between: hold only for
		 * the pinned paths' check, and release at once. */
		if ((r = keeper_await_start(host, ctx, rs)) == 0)
			r = keeper_release(host, ctx, rs);
		if (r < 0) {
			kill(child, SIGKILL);
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
			rs->spawned = false;
		}
	}
out:
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0)
			close(up[i]);
		if (down[i] >= 0)
			close(down[i]);
	}
	if (a.userns_fd >= 0)
		close(a.userns_fd);
	free(a.run_argv);
	free(a.kill_argv);
	return r;
}

/* ------------------------------------------------------ start and after */

static bool keeper_exited(const struct runsc *rs)
{
	siginfo_t si = {0};
	return waitid(P_PID, (id_t)rs->keeper, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	       si.si_pid == rs->keeper;
}

/* runsc's state, one line of JSON: {"ociVersion":…,"pid":N,…}. */
static pid_t state_pid(const char *state)
{
	const char *p = strstr(state, "\"pid\":");
	if (!p)
		return -1;
	char *end;
	long pid = strtol(p + 6, &end, 10);
	return pid > 0 && pid < (1L << 30) ? (pid_t)pid : -1;
}

int keeper_await_start(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs)
{
	char state[4096];
	size_t len = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {.fd = rs->ready_fd, .events = POLLIN};
		int n = poll(&p, 1, 100);
		if (n > 0 && (p.revents & POLLIN)) {
			ssize_t got = read(rs->ready_fd, state + len, sizeof(state) - 1 - len);
			if (got > 0)
				len += (size_t)got;
			state[len] = '\0';
			if (memchr(state, '\n', len) || len == sizeof(state) - 1)
				break;
			continue;
		}
		if (n > 0) {
			/* The hook closed the FIFO with nothing (more) written:
			 * it failed, and runsc is on its way out. */
			struct timespec pause = {0, 50 * 1000 * 1000};
			nanosleep(&pause, NULL);
		}
		if (keeper_exited(rs)) {
			host->log(ctx, ASB_LOG_ERROR,
			          "runsc exited before the sandbox existed (its own message, if "
			          "any, is above)");
			return -ECHILD;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >
		    START_TIMEOUT_MS) {
			host->log(ctx, ASB_LOG_ERROR, "runsc: no sandbox after %d s",
			          START_TIMEOUT_MS / 1000);
			return -ETIMEDOUT;
		}
	}
	rs->sandbox = state_pid(state);
	if (rs->sandbox <= 0) {
		host->log(ctx, ASB_LOG_ERROR, "runsc: its state has no pid");
		return -EPROTO;
	}
	/* runsc has the spec now (and keeps it in its state directory until
	 * the container is deleted): the file with the environment goes. */
	char spec[PATH_MAX];
	if (private_path(rs, RUNSC_BUNDLE "/config.json", spec, sizeof(spec)) == 0)
		(void)unlink(spec);
	int r = pins_verify(host, ctx, rs);
	if (r < 0)
		return r;
	struct asb_sandbox sb = {.struct_size = sizeof(sb),
	                         .pid = rs->sandbox,
	                         .netns_fd = rs->use_netns ? rs->netns_fd : -1};
	return host->sandbox_started(ctx, &sb);
}

int keeper_release(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs)
{
	(void)host;
	(void)ctx;
	char path[PATH_MAX];
	int r = private_path(rs, RUNSC_RELEASED, path, sizeof(path));
	if (r < 0)
		return r;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	/* The keeper drops the lock the hook waits for. */
	union sigval v = {.sival_int = 0};
	return sigqueue(rs->keeper, SIGRTMIN, v) < 0 ? -errno : 0;
}

int keeper_wait(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs, int wstatus)
{
	char path[PATH_MAX];
	int r = private_path(rs, RUNSC_STARTED, path, sizeof(path));
	if (r < 0)
		return r;
	if (access(path, F_OK) < 0) {
		/* runsc said why on stderr; it exits 128 for its own failures. */
		host->log(ctx, ASB_LOG_ERROR, "runsc failed before the agent started");
		return -EIO;
	}
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return -EIO;
}

static int make_removable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR || flag == FTW_DP)
		(void)chmod(path, (st->st_mode & 07777) | S_IRWXU);
	return 0;
}

void keeper_cleanup(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs)
{
	/* The core removes the private directory: ours are read-only (the
	 * executables, masks) and the agent may have made directories in an
	 * ephemeral one that nobody can write to; owners may, once allowed. */
	char path[PATH_MAX];
	static const char *const trees[] = {RUNSC_RUN, RUNSC_DIRS, RUNSC_ROOTFS};
	for (size_t i = 0; rs->dir && i < sizeof(trees) / sizeof(trees[0]); i++)
		if (private_path(rs, trees[i], path, sizeof(path)) == 0)
			(void)nftw(path, make_removable, 16, FTW_PHYS);
	if (rs->spawned && rs->is_root) {
		/* runsc run deletes its container when it ends; this is for one
		 * it left behind (killed while held). Unprivileged, runsc ran in
		 * a user namespace of its own and its sandbox died with it. */
		const char *tail[] = {"delete", "--force", rs->id, NULL};
		char **argv = argv_with(rs, tail);
		int st = 0;
		if (argv)
			(void)host->run_program(ctx, (const char *const *)argv, runsc_env, &st,
			                        NULL, 0);
		free(argv);
	}
	rs->spawned = false;
}
