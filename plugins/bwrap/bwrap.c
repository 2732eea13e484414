/* SPDX-License-Identifier: MIT */
/* The Linux backend: bubblewrap. Finds a bwrap it can trust (absolute path,
 * owned by root, not writable by anyone else), checks that user namespaces
 * work here, and renders the plan as its command line. */
#include "bwrap.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ASB_BWRAP_PATH
#define ASB_BWRAP_PATH ""
#endif

static char bwrap_path[PATH_MAX];
static char bwrap_version[64];

static int find_bwrap(char *out, size_t len)
{
	const char *configured = ASB_BWRAP_PATH;
	if (configured[0]) {
		snprintf(out, len, "%s", configured);
		return access(out, X_OK) == 0 ? 0 : -errno;
	}
	/* The search path is fixed, not the caller's PATH: a writable directory
	 * early in PATH must not decide which binary builds the sandbox. */
	static const char *const dirs[] = {
	    "/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/run/current-system/sw/bin", NULL};
	for (const char *const *d = dirs; *d; d++) {
		snprintf(out, len, "%s/bwrap", *d);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Root-owned and writable by root alone, the file and every directory above. */
static int check_trust(const char *path, char *why, size_t why_len)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return -errno;
	char walk[PATH_MAX];
	snprintf(walk, sizeof(walk), "%s", real);
	for (;;) {
		struct stat st;
		if (stat(walk, &st) < 0)
			return -errno;
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			snprintf(why_len ? why : NULL, why_len,
			         "%s is %s; bwrap must be owned by root and writable by root only",
			         walk,
			         st.st_uid != 0 ? "not owned by root" : "group/other-writable");
			return -EPERM;
		}
		char *slash = strrchr(walk, '/');
		if (!slash || slash == walk) {
			if (strcmp(walk, "/") == 0)
				break;
			walk[1] = '\0';
			continue;
		}
		*slash = '\0';
	}
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
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int ok = fscanf(f, "%ld", out) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

static int bwrap_probe(const struct asb_host *host, struct asb_ctx *ctx, char *why, size_t why_len)
{
	int r = find_bwrap(bwrap_path, sizeof(bwrap_path));
	if (r < 0) {
		snprintf(why, why_len,
		         "bwrap (bubblewrap) is not installed; install it "
		         "(apt-get install bubblewrap)");
		return r;
	}
	if ((r = check_trust(bwrap_path, why, why_len)) < 0)
		return r;
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
	if ((r = cached_version(host, ctx, bwrap_path, bwrap_version, sizeof(bwrap_version))) < 0) {

		snprintf(why, why_len, "%s --version failed", bwrap_path);
		return r;
	}
	unsigned major = 0, minor = 0;
	sscanf(bwrap_version, "%u.%u", &major, &minor);
	bwrap_set_version(major, minor);
	if (major == 0 && minor < 7) {
		snprintf(why, why_len, "bwrap %s is too old: --ro-bind-fd needs 0.7 or newer",
		         bwrap_version);
		return -ENOTSUP;
	}
	host->log(ctx, ASB_LOG_INFO, "using %s, bubblewrap %s (root-owned, not writable by others)",
	          bwrap_path, bwrap_version);
	return 0;
}

static int bwrap_build(const struct asb_host *host, struct asb_ctx *ctx)
{
	if (!bwrap_path[0]) {
		int r = find_bwrap(bwrap_path, sizeof(bwrap_path));
		if (r < 0)
			return r;
	}
	return bwrap_render(host, ctx, bwrap_path);
}

static int bwrap_describe(const struct asb_host *host, struct asb_ctx *ctx)
{
	int r = host->describe(ctx, "path", bwrap_path[0] ? bwrap_path : "(not found)");
	if (r >= 0)
		r = host->describe(ctx, "version", bwrap_version[0] ? bwrap_version : "unknown");
	return r;
}

static const struct asb_hooks hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .describe = bwrap_describe,
};

static const struct asb_backend_ops ops = {
    .struct_size = sizeof(struct asb_backend_ops),
    .probe = bwrap_probe,
    .build = bwrap_build,
};

static const char *const no_keys[] = {NULL};

static const struct asb_plugin descriptor = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_BACKEND,
    .name = "bwrap",
    .version = "0.1.0",
    .description = "Linux backend: bubblewrap namespaces and bind mounts",
    .config_keys = no_keys,
    .hooks = &hooks,
    .backend = &ops,
};

ASB_PLUGIN_DEFINE(descriptor)
