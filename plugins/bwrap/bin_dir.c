/* SPDX-License-Identifier: MIT */
/* The executables on PATH as one host directory of symlinks, bound
 * read-only over ASB_BIN_DIR: one mount instead of a bubblewrap op per
 * executable (~100 with the common tools, ~3 ms of every launch).
 *
 * Its content is a pure function of the plan's (name, target) list, so it
 * is kept between sessions in the state directory, named by a hash of that
 * list, made once atomically (a temporary directory renamed into place).
 * The state directory is read-only to every sandbox (core/selfconfig.c);
 * even so, a directory is used only after it was checked to hold exactly
 * the plan's symlinks and nothing else, and it is bound by the fd that was
 * checked. Anything unexpected: the caller falls back to the per-op
 * symlinks. */
#include "bwrap.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIN_CACHE ".bwrap-bin"

/* With the terminating NUL: ("ab","c") and ("a","bc") differ. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	return hash_bytes(h, s, strlen(s) + 1);
}

static int exec_at(const struct asb_host *host, struct asb_ctx *ctx, int i, struct asb_exec *x)
{
	*x = (struct asb_exec){.struct_size = sizeof(*x)};
	int r = host->plan_exec_get(ctx, (uint32_t)i, x);
	if (r < 0)
		return r;
	/* One path component, as the plan promises: never a way out of the dir. */
	if (!x->name || !x->name[0] || strchr(x->name, '/') || strcmp(x->name, ".") == 0 ||
	    strcmp(x->name, "..") == 0 || !x->host_path)
		return -EINVAL;
	return 0;
}

int bwrap_bin_dir_path(const struct asb_host *host, struct asb_ctx *ctx, char *out, size_t len)
{
	const char *session = host->policy_string(ctx, "session_dir");
	const char *slash = session ? strrchr(session, '/') : NULL;
	if (!slash || slash == session)
		return -ENOENT;
	uint64_t h = HASH_SEED;
	int n = host->plan_exec_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_exec x;
		int r = exec_at(host, ctx, i, &x);
		if (r < 0)
			return r;
		h = hash_str(hash_str(h, x.name), x.host_path);
	}
	if (snprintf(out, len, "%.*s/" BIN_CACHE "/%016llx", (int)(slash - session), session,
	             (unsigned long long)h) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct asb_exec *)a)->name, ((const struct asb_exec *)b)->name);
}

/* Exactly the plan's symlinks, nothing else, in a directory of ours that
 * nobody else can write. 0, or -ESTALE. */
static int verify(const struct asb_host *host, struct asb_ctx *ctx, int dfd)
{
	struct stat st;
	if (fstat(dfd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -ESTALE;
	int n = host->plan_exec_count(ctx);
	_cleanup_free_ struct asb_exec *xs = calloc(n > 0 ? (size_t)n : 1, sizeof(*xs));
	if (!xs)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		int r = exec_at(host, ctx, i, &xs[i]);
		if (r < 0)
			return r;
	}
	qsort(xs, (size_t)n, sizeof(*xs), cmp_name);
	int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (dup_fd < 0)
		return -errno;
	_cleanup_closedir_ DIR *d = fdopendir(dup_fd);
	if (!d) {
		int e = errno;
		close(dup_fd);
		return -e;
	}
	int seen = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		struct asb_exec key = {.name = de->d_name};
		const struct asb_exec *x = bsearch(&key, xs, (size_t)n, sizeof(*xs), cmp_name);
		char target[PATH_MAX];
		ssize_t len = x ? readlinkat(dfd, de->d_name, target, sizeof(target)) : -1;
		if (len < 0 || (size_t)len >= sizeof(target))
			return -ESTALE;
		target[len] = '\0';
		if (strcmp(target, x->host_path) != 0)
			return -ESTALE;
		seen++;
	}
	return seen == n ? 0 : -ESTALE;
}

static void remove_tmp(const char *dir)
{
	(void)rm_rf(dir);
}

/* Made beside its final name, then renamed into place: a reader sees the
 * whole directory or none (a concurrent launch may win the rename). */
static int create(const struct asb_host *host, struct asb_ctx *ctx, const char *path)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (snprintf(tmp, sizeof(tmp), "%.*s/.tmp-XXXXXX", (int)(slash - path), path) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!mkdtemp(tmp))
		return -errno;
	_cleanup_close_ int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r = dfd < 0 ? -errno : 0;
	int n = host->plan_exec_count(ctx);
	for (int i = 0; r >= 0 && i < n; i++) {
		struct asb_exec x;
		if ((r = exec_at(host, ctx, i, &x)) >= 0 && symlinkat(x.host_path, dfd, x.name) < 0)
			r = -errno;
	}
	/* As the tmpfs it replaces showed it: 0755, read-only by its mount. */
	if (r >= 0 && fchmod(dfd, 0755) < 0)
		r = -errno;
	if (r >= 0 && rename(tmp, path) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		r = -errno;
	remove_tmp(tmp); /* gone after a rename; what is left after a failure */
	return r;
}

int bwrap_bin_dir(const struct asb_host *host, struct asb_ctx *ctx, int *fd_out)
{
	char path[PATH_MAX];
	int r = bwrap_bin_dir_path(host, ctx, path, sizeof(path));
	if (r < 0)
		return r;
	char *slash = strrchr(path, '/');
	*slash = '\0';
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	*slash = '/';
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if ((r = create(host, ctx, path)) < 0)
			return r;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if ((r = verify(host, ctx, fd)) < 0) {
		close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}
