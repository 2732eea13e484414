/* SPDX-License-Identifier: MIT */
/* The Linux backend: bubblewrap. Finds a bwrap it can trust (in the fixed
 * system directories, owned by root, not writable by anyone else), checks
 * that user namespaces work here, renders the plan as its op list
 * (bwrap_args.c), and runs the sandbox: bubblewrap reports its pid 1 on an
 * info pipe and, when the core must wire the network first, waits on a
 * block pipe until released. */
#include "bwrap.h"

#include "exec.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#ifndef ASB_BWRAP_PATH
#define ASB_BWRAP_PATH ""
#endif

static int find_bwrap(char *out, size_t len)
{
	const char *configured = ASB_BWRAP_PATH;
	if (configured[0]) {
		snprintf(out, len, "%s", configured);
		return access(out, X_OK) == 0 ? 0 : -errno;
	}
	/* Fixed directories, not the caller's PATH: a writable directory early
	 * in PATH must not decide which binary builds the sandbox. */
	_cleanup_free_ char *found = NULL;
	int r = exec_find_system("bwrap", &found);
	if (r < 0)
		return r;
	snprintf(out, len, "%s", found);
	return 0;
}

static int read_version(const char *path, char *out, size_t len)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		char *argv[] = {(char *)path, (char *)"--version", NULL};
		char *envp[] = {NULL};
		execve(path, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	char buf[128] = {0};
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	const char *v = strrchr(buf, ' ');
	snprintf(out, len, "%s", v ? v + 1 : buf);
	return 0;
}

/* `bwrap --version` costs a fork and exec per launch; remember the answer
 * per binary (device, inode, size, mtime) in the state directory. */
static void version_cache_path(const struct asb_host *host, struct asb_ctx *ctx, char *out,
                               size_t len)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = host->policy_string(ctx, "home");
	if (state && state[0] == '/')
		snprintf(out, len, "%s/agentsandbox/.bwrap-version", state);
	else if (home)
		snprintf(out, len, "%s/.local/state/agentsandbox/.bwrap-version", home);
	else
		out[0] = '\0';
}

static int cached_version(const struct asb_host *host, struct asb_ctx *ctx, const char *path,
                          char *out, size_t len)
{
	struct stat st;
	char cache[PATH_MAX], key[PATH_MAX + 128], line[PATH_MAX + 256];
	if (stat(path, &st) < 0)
		return -errno;
	snprintf(key, sizeof(key), "%s %llu %llu %lld %lld.%09ld", path,
	         (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	         (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	version_cache_path(host, ctx, cache, sizeof(cache));
	FILE *f = cache[0] ? fopen(cache, "re") : NULL;
	if (f) {
		bool hit = fgets(line, sizeof(line), f) && strncmp(line, key, strlen(key)) == 0 &&
		           line[strlen(key)] == ' ';
		fclose(f);
		if (hit) {
			snprintf(out, len, "%s", line + strlen(key) + 1);
			out[strcspn(out, "\n")] = '\0';
			return 0;
		}
	}
	int r = read_version(path, out, len);
	if (r < 0 || !cache[0])
		return r;
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.%d", cache, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	char *slash = strrchr(cache, '/');
	if (fd < 0 && errno == ENOENT && slash) {
		/* A user's first launch: the state directory, so that the next
		 * one need not ask bubblewrap again. */
		*slash = '\0';
		int made = mkdir_p(cache, 0700);
		*slash = '/';
		if (made == 0)
			fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd >= 0) {
		dprintf(fd, "%s %s\n", key, out);
		close(fd);
		if (rename(tmp, cache) < 0)
			unlink(tmp);
	}
	return 0;
}

static int read_int_file(const char *path, long *out)
{
	_cleanup_free_ char *text = NULL;
	int r = read_file(path, &text, NULL);
	if (r < 0)
		return r;
	char *end;
	errno = 0;
	*out = strtol(text, &end, 10);
	return errno || end == text ? -EIO : 0;
}

/* Launched as root, the agent is uid 0 of a user namespace where only uid
 * and gid 0 are mapped, without capabilities: another user's files are
 * others' to it, whatever root may do on the host. Say so when that leaves
 * it a workspace it cannot write into. */
static void warn_foreign_workspace(const struct asb_host *host, struct asb_ctx *ctx)
{
	int64_t is_root = 0;
	const char *ws = host->policy_string(ctx, "workspace");
	struct stat st;
	if (host->policy_int(ctx, "is_root", &is_root) < 0 || !is_root || !ws ||
	    stat(ws, &st) < 0 || st.st_uid == 0)
		return;
	bool writable = (st.st_gid == 0 && (st.st_mode & S_IWGRP)) || (st.st_mode & S_IWOTH);
	if (!writable)
		host->log(ctx, ASB_LOG_WARN,
		          "the workspace %s belongs to uid %u: root inside the sandbox is not root "
		          "on the host and cannot write into it; run agentsandbox as that user",
		          ws, (unsigned)st.st_uid);
}

static const char *const builder_names[] = {
    [BUILDER_AUTO] = "auto", [BUILDER_BUBBLEWRAP] = "bubblewrap", [BUILDER_INIT] = "init"};

/* plugins.bwrap.builder: auto (the default), bubblewrap or init; anything
 * else is a config error at its file:line, flag or variable. */
static int read_builder(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b)
{
	const char *builder = NULL;
	(void)host->config_string(ctx, "builder", &builder);
	b->builder = BUILDER_AUTO;
	if (!builder)
		return 0;
	for (size_t i = 0; i < sizeof(builder_names) / sizeof(builder_names[0]); i++)
		if (strcmp(builder, builder_names[i]) == 0) {
			b->builder = (enum bwrap_builder)i;
			return 0;
		}
	return host->config_error(ctx, "builder", "\"%s\": \"auto\", \"bubblewrap\" or \"init\"",
	                          builder);
}

/* The user namespaces the sandbox needs, whichever makes it. */
static int check_userns(const struct asb_host *host, struct asb_ctx *ctx, char *why, size_t why_len)
{
	int64_t is_root = 0;
	(void)host->policy_int(ctx, "is_root", &is_root);
	long v;
	if (read_int_file("/proc/sys/user/max_user_namespaces", &v) == 0 && v == 0) {
		snprintf(why, why_len,
		         "user namespaces are disabled (user.max_user_namespaces = 0)");
		return -EPERM;
	}
	if (!is_root && read_int_file("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 &&
	    v == 0) {
		snprintf(why, why_len,
		         "unprivileged user namespaces are disabled "
		         "(kernel.unprivileged_userns_clone = 0)");
		return -EPERM;
	}
	return 0;
}

/* builder = init (or auto): the mount API that agentsandbox-init builds
 * with, and a user namespace it may make. */
static int probe_native(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                        char *why, size_t why_len)
{
	int r = check_userns(host, ctx, why, why_len);
	if (r < 0)
		return r;
	int64_t is_root = 0;
	(void)host->policy_int(ctx, "is_root", &is_root);
	long v;
	if (!is_root &&
	    read_int_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 &&
	    v != 0) {
		snprintf(why, why_len,
		         "builder = init: AppArmor lets only the programs it names make user "
		         "namespaces here (kernel.apparmor_restrict_unprivileged_userns = 1); "
		         "builder = bubblewrap works (its profile names it)");
		return -EPERM;
	}
	/* An fd of -1: EBADF where the call exists. */
	if (syscall(SYS_mount_setattr, -1, "", 0, NULL, 0) < 0 && errno == ENOSYS) {
		snprintf(why, why_len,
		         "builder = init needs Linux 5.12 or newer (mount_setattr); "
		         "builder = bubblewrap works here");
		return -ENOSYS;
	}
	/* A container's seccomp filter may deny the mount API and openat2,
	 * which bubblewrap does without (Docker's, for one). Given no arguments, each fails on
	 * them where it is reachable (EINVAL, EFAULT), before any capability
	 * is checked: EPERM, EACCES or ENOSYS is the filter's answer. */
	static const struct {
		long nr;
		const char *name;
	} mount_api[] = {{SYS_mount_setattr, "mount_setattr"},
	                 {SYS_open_tree, "open_tree"},
	                 {SYS_fsconfig, "fsconfig"},
	                 {SYS_openat2, "openat2"}};
	for (size_t i = 0; i < sizeof(mount_api) / sizeof(mount_api[0]); i++) {
		if (syscall(mount_api[i].nr, -1, 0, 0, 0, 0) == 0 ||
		    (errno != EPERM && errno != ENOSYS && errno != EACCES))
			continue;
		int e = errno;
		snprintf(why, why_len,
		         "builder = init: %s is denied here (%s: a seccomp filter?); "
		         "builder = bubblewrap works without it",
		         mount_api[i].name, strerror(e));
		return -e;
	}
	host->log(ctx, ASB_LOG_INFO, "builder = %s: agentsandbox-init makes the sandbox",
	          builder_names[b->builder]);
	warn_foreign_workspace(host, ctx);
	return 0;
}

static int bwrap_probe(const struct asb_host *host, struct asb_ctx *ctx, void *data, uint64_t *caps,
                       char *why, size_t why_len)
{
	struct bwrap *b = data;
	int r = read_builder(host, ctx, b);
	if (r < 0)
		return r;
	/* auto: init where the kernel and the LSM let it, else bubblewrap,
	 * saying why in launch.log. */
	b->native = false;
	if (b->builder != BUILDER_BUBBLEWRAP) {
		char native_why[256] = "";
		bool must = b->builder == BUILDER_INIT;
		r = probe_native(host, ctx, b, must ? why : native_why,
		                 must ? why_len : sizeof(native_why));
		if (r >= 0 || must) {
			b->native = r >= 0;
			return r;
		}
		host->log(ctx, ASB_LOG_INFO, "builder = auto: bubblewrap makes the sandbox (%s)",
		          native_why);
	}
	r = find_bwrap(b->path, sizeof(b->path));
	if (r < 0) {
		snprintf(why, why_len,
		         "bwrap (bubblewrap) is not installed; install it "
		         "(apt-get install bubblewrap)");
		return r;
	}
	if ((r = exec_check_trusted(b->path, why, why_len)) < 0)
		return r;
	/* A setuid bubblewrap started in a namespace's user namespace would
	 * lose its privileges there: it makes its own network namespace. */
	struct stat st;
	if (stat(b->path, &st) == 0 && (st.st_mode & S_ISUID))
		*caps &= ~ASB_CAP_NETNS_INHERIT;
	if ((r = check_userns(host, ctx, why, why_len)) < 0)
		return r;
	if ((r = cached_version(host, ctx, b->path, b->version, sizeof(b->version))) < 0) {
		snprintf(why, why_len, "%s --version failed", b->path);
		return r;
	}
	sscanf(b->version, "%u.%u", &b->major, &b->minor);
	if (b->major == 0 && b->minor < 7) {
		snprintf(why, why_len, "bwrap %s is too old: --ro-bind-fd needs 0.7 or newer",
		         b->version);
		return -ENOTSUP;
	}
	host->log(ctx, ASB_LOG_INFO, "using %s, bubblewrap %s (root-owned, not writable by others)",
	          b->path, b->version);
	/* Here, so that --check says it too. */
	warn_foreign_workspace(host, ctx);
	return 0;
}

static int bwrap_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct bwrap *b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->info[0] = b->info[1] = b->block[0] = b->block[1] = b->status[0] = b->status[1] = -1;
	b->bin_fd = -1;
	for (size_t d = 0; d < BWRAP_COPY_DIRS_MAX; d++)
		b->cache_fd[d] = -1;
	b->mounts = (struct init_mounts)INIT_MOUNTS_INIT;
	*data = b;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void bwrap_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct bwrap *b = data;
	if (!b)
		return;
	close_fd(&b->info[0]);
	close_fd(&b->info[1]);
	close_fd(&b->block[0]);
	close_fd(&b->block[1]);
	close_fd(&b->status[0]);
	close_fd(&b->status[1]);
	close_fd(&b->bin_fd);
	bwrap_copies_close(b);
	init_mounts_clear(&b->mounts);
	free(b);
}

/* A setuid bubblewrap takes --cap-add from root only: then bubblewrap
 * makes every mount itself. */
bool bwrap_may_add_caps(const struct bwrap *b)
{
	struct stat st;
	return b->native || geteuid() == 0 ||
	       (b->path[0] && stat(b->path, &st) == 0 && !(st.st_mode & S_ISUID));
}

static int bwrap_prepare(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct bwrap *b = data;
	int64_t hold = 0;
	(void)host->policy_int(ctx, "hold", &hold);
	b->prepared = true;
	int r = pipe_cloexec(b->info);
	/* Holding the sandbox costs a round trip: only when the core needs it. */
	if (r >= 0 && hold)
		r = pipe_cloexec(b->block);
	/* The init helper runs first inside: it tells whether the agent's
	 * command was reached (setup failures are told apart from its status). */
	if (r >= 0 && (host->plan_hardening(ctx) & (ASB_HARD_SECCOMP | ASB_HARD_LANDLOCK)))
		r = pipe_cloexec(b->status);
	/* Not fatal: without it, the same view is made one symlink at a time. */
	if (r >= 0 && host->plan_exec_count(ctx) > 0) {
		int e = bwrap_bin_dir(host, ctx, &b->bin_fd);
		if (e < 0)
			host->log(ctx, ASB_LOG_INFO,
			          "PATH directory: one symlink op per executable (%s)",
			          strerror(-e));
	}
	return r;
}

static int bwrap_build(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct bwrap *b = data;
	int r;
	/* Which builder: as probe chose. */
	if (!b->native && !b->path[0] && (r = find_bwrap(b->path, sizeof(b->path))) < 0)
		return r;
	r = bwrap_copies_open(host, ctx, b);
	/* After the copies: init makes their directories read-only too. */
	if (r >= 0 && b->prepared) {
		init_mounts_clear(&b->mounts);
		if ((r = bwrap_plan_init_mounts(host, ctx, b, &b->mounts)) >= 0 &&
		    b->mounts.n_delegated)
			r = init_mounts_seal(&b->mounts);
		/* Which mount points init binds on is known now. */
		if (r >= 0)
			r = bwrap_copy_cache_open(host, ctx, b, &b->mounts);
	} else if (r >= 0) {
		struct init_mounts m;
		if ((r = bwrap_plan_init_mounts(host, ctx, b, &m)) >= 0)
			r = bwrap_copy_cache_find(host, ctx, b, &m);
		init_mounts_clear(&m);
	}
	return r < 0 ? r : bwrap_render(host, ctx, b);
}

/* bubblewrap writes {"child-pid": N} on the info fd and closes it; read to
 * the end (once). */
static void read_info(struct bwrap *b)
{
	if (b->info_done || b->info[0] < 0)
		return;
	b->info_done = true;
	close_fd(&b->info[1]);
	char buf[512];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(b->info[0], buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len >= sizeof(buf) - 1)
			break;
	}
	buf[len] = '\0';
	close_fd(&b->info[0]);
	const char *k = strstr(buf, "\"child-pid\"");
	if (k && (k = strchr(k, ':')))
		b->sandbox_pid = (pid_t)strtol(k + 1, NULL, 10);
}

static int bwrap_await_start(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct bwrap *b = data;
	close_fd(&b->block[0]);
	read_info(b);
	if (b->sandbox_pid <= 0)
		return -ECHILD;
	struct asb_sandbox sb = {.struct_size = sizeof(sb), .pid = b->sandbox_pid, .netns_fd = -1};
	return host->sandbox_started(ctx, &sb);
}

static int bwrap_release(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct bwrap *b = data;
	if (b->block[1] < 0)
		return 0;
	/* bubblewrap may have failed setting up already: no SIGPIPE for that
	 * (the launcher would die of it); wait() tells the user what happened. */
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	int r = write_all(b->block[1], "x", 1);
	if (r == -EPIPE) {
		struct timespec none = {0, 0};
		(void)sigtimedwait(&pipe_set, NULL, &none);
		r = 0;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close_fd(&b->block[1]);
	return r;
}

/* bubblewrap's pid 1 is a reaper that does not pass signals on: deliver
 * them to its children (the agent) directly. */
static int forward_to_children(pid_t parent, int sig)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
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
	return sent;
}

static int bwrap_signal(const struct asb_host *host, struct asb_ctx *ctx, void *data, int sig)
{
	(void)host;
	(void)ctx;
	struct bwrap *b = data;
	close_fd(&b->block[0]);
	read_info(b);
	return b->sandbox_pid > 0 && forward_to_children(b->sandbox_pid, sig) > 0 ? 0 : -ESRCH;
}

/* What the init helper reported (ASB_INIT_STATUS_ENV): 1 it reached the
 * agent's command, 0 it did not, -errno the exec of the command failed. */
static int read_status(struct bwrap *b)
{
	close_fd(&b->status[1]);
	/* The sandbox has ended: what it wrote is there; never wait for more. */
	int fl = fcntl(b->status[0], F_GETFL);
	if (fl >= 0)
		(void)fcntl(b->status[0], F_SETFL, fl | O_NONBLOCK);
	char buf[32];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(b->status[0], buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len >= sizeof(buf) - 1)
			break;
	}
	buf[len] = '\0';
	close_fd(&b->status[0]);
	if (buf[0] != 'R')
		return 0;
	if (buf[1] == 'E') {
		int e = atoi(buf + 2);
		return e > 0 ? -e : -ENOEXEC;
	}
	return 1;
}

/* Where agentsandbox-init was making the sandbox, how to have bubblewrap
 * make it instead: appended to the one error the user reads (the first a
 * plugin logs is the launch's). */
static void native_hint(const struct bwrap *b, char *buf, size_t len)
{
	buf[0] = '\0';
	if (b->native)
		snprintf(buf, len,
		         "; agentsandbox-init was making it (plugins.bwrap.builder = %s): with "
		         "--bwrap-builder bubblewrap, bubblewrap makes it",
		         builder_names[b->builder]);
}

static int bwrap_wait(const struct asb_host *host, struct asb_ctx *ctx, void *data, int wstatus)
{
	struct bwrap *b = data;
	read_info(b);
	char hint[256];
	native_hint(b, hint, sizeof(hint));
	/* No pid reported: the maker failed before the sandbox existed. */
	if (b->sandbox_pid <= 0) {
		if (hint[0])
			host->log(ctx, ASB_LOG_ERROR, "the sandbox could not be made%s", hint);
		return -EIO;
	}
	if (b->status[0] >= 0) {
		int reached = read_status(b);
		if (reached == 0) {
			host->log(
			    ctx, ASB_LOG_ERROR,
			    "the sandbox failed while it was being set up, before the agent's "
			    "command ran (bubblewrap's or agentsandbox-init's message above "
			    "says why; `agentsandbox --check` checks the config)%s",
			    hint);
			return -EIO;
		}
		if (reached < 0) {
			int argc = host->plan_argv_count(ctx);
			const char *cmd = "the agent's command";
			for (int i = 0; i + 1 < argc; i++)
				if (strcmp(host->plan_argv_get(ctx, (uint32_t)i), "--") == 0) {
					cmd = host->plan_argv_get(ctx, (uint32_t)i + 1);
					break;
				}
			host->log(ctx, ASB_LOG_ERROR, "cannot run %s inside the sandbox: %s%s", cmd,
			          strerror(-reached),
			          reached == -ENOENT
			              ? " (a script whose interpreter, e.g. node, is "
			                "not in sandbox.packages?)"
			              : "");
			return reached;
		}
	}
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : -EIO;
}

static int bwrap_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	const struct bwrap *b = data;
	if (b->native)
		return host->describe(ctx, "builder", "init (agentsandbox-init makes the sandbox)");
	int r = host->describe(ctx, "path", b->path[0] ? b->path : "(not found)");
	if (r >= 0)
		r = host->describe(ctx, "version", b->version[0] ? b->version : "unknown");
	return r;
}

static const struct asb_hooks hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .describe = bwrap_describe,
};

static const struct asb_backend_ops ops = {
    .struct_size = sizeof(struct asb_backend_ops),
    .caps = ASB_CAP_FS_VIEW | ASB_CAP_FD_BINDS | ASB_CAP_REMAP | ASB_CAP_EPHEMERAL | ASB_CAP_FILES |
            ASB_CAP_MASKS | ASB_CAP_PID_NS | ASB_CAP_NETNS | ASB_CAP_SECCOMP | ASB_CAP_LANDLOCK |
            ASB_CAP_LIMITS | ASB_CAP_NO_NEW_PRIVS | ASB_CAP_HOLD | ASB_CAP_NETNS_INHERIT,
    .probe = bwrap_probe,
    .prepare = bwrap_prepare,
    .build = bwrap_build,
    .await_start = bwrap_await_start,
    .release = bwrap_release,
    .signal = bwrap_signal,
    .wait = bwrap_wait,
};

static const char *const bwrap_keys[] = {"init_mounts", "builder", NULL};

static const struct asb_option bwrap_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_STRING,
     .key = "init_mounts",
     .flag = "bwrap-init-mounts",
     .env = "BWRAP_INIT_MOUNTS",
     .help = "which mounts agentsandbox-init makes instead of bubblewrap: auto (eight or "
             "more it can take), always, never",
     .values = "auto always never"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_STRING,
     .key = "builder",
     .flag = "bwrap-builder",
     .env = "BWRAP_BUILDER",
     .help = "what makes the sandbox from the same options: auto (init where the kernel "
             "and AppArmor let it, else bubblewrap), bubblewrap, or init (agentsandbox-init "
             "itself: no bubblewrap process, a faster launch)",
     .values = "auto bubblewrap init"},
    {0},
};

static const struct asb_plugin descriptor = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_BACKEND,
    .name = "bwrap",
    .version = "0.2.0",
    .description = "Linux backend: bubblewrap namespaces and bind mounts",
    .config_keys = bwrap_keys,
    .options = bwrap_options,
    .init = bwrap_init,
    .fini = bwrap_fini,
    .hooks = &hooks,
    .backend = &ops,
};

ASB_PLUGIN_DEFINE(descriptor)
