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
 * symlinks.
 *
 * The check reads every symlink back (~90, 0.2 ms of each launch). Once a
 * check passed on a directory whose ctime had settled (common/dirlist.h:
 * any later change of its entries gives it a new ctime), a stamp beside it
 * says so: its device, inode and ctime and the very list checked. A launch
 * whose directory and list are those of the stamp needs no readlink. */
#include "bwrap.h"

#include "dirlist.h"
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

/* The directory at dfd holds exactly the symlinks of xs (sorted by name). */
static int read_back(int dfd, const struct asb_exec *xs, int n)
{
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

/* What a stamp holds: the directory as `st` describes it, then each
 * (name, target) of the sorted list, NUL-terminated. NULL without memory. */
static char *stamp_text(const struct stat *st, const struct asb_exec *xs, int n, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		return NULL;
	fprintf(f, "asb-bin-checked 1 %llu %llu %lld %ld\n", (unsigned long long)st->st_dev,
	        (unsigned long long)st->st_ino, (long long)st->st_ctim.tv_sec,
	        (long)st->st_ctim.tv_nsec);
	for (int i = 0; i < n; i++) {
		fwrite(xs[i].name, 1, strlen(xs[i].name) + 1, f);
		fwrite(xs[i].host_path, 1, strlen(xs[i].host_path) + 1, f);
	}
	bool bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		free(text);
		return NULL;
	}
	return text;
}

/* Was this check made before, on this very directory as it is now? */
static bool stamped(const char *stamp, const char *want, size_t want_len)
{
	_cleanup_close_ int fd = open(stamp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	_cleanup_free_ char *have = NULL;
	size_t len = 0;
	return fd >= 0 && read_regular_fd(fd, want_len, &have, &len) == 0 && len == want_len &&
	       memcmp(have, want, len) == 0;
}

/* Exactly the plan's symlinks, nothing else, in a directory of ours that
 * nobody else can write: as its stamp (the path `stamp`) says, else read
 * back (and stamped when its ctime has settled). 0, or -ESTALE. */
static int verify(const struct asb_host *host, struct asb_ctx *ctx, int dfd, const char *stamp)
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
	size_t want_len = 0;
	_cleanup_free_ char *want = stamp_text(&st, xs, n, &want_len);
	if (want && stamped(stamp, want, want_len))
		return 0;
	int r = read_back(dfd, xs, n);
	/* Unchanged while it was read, and any change from now on shows. */
	struct stat after;
	if (r == 0 && want && fstat(dfd, &after) == 0 &&
	    after.st_ctim.tv_sec == st.st_ctim.tv_sec &&
	    after.st_ctim.tv_nsec == st.st_ctim.tv_nsec && dirlist_ctime_settled(dfd, &st))
		(void)write_file_replace(stamp, want, want_len);
	return r;
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
	char stamp[PATH_MAX + 16];
	snprintf(stamp, sizeof(stamp), "%s.checked", path);
	if ((r = verify(host, ctx, fd, stamp)) < 0) {
		close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}
