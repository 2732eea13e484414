/* SPDX-License-Identifier: MIT */
#include "ci_lookup.h"

#include "name_fold.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ci_lookup_root;

/* The C library's names with and without the large-file suffix: glibc's
 * headers pick one by _FILE_OFFSET_BITS; both are wrapped. */
int __real_lstat(const char *path, struct stat *st);
int __real_lstat64(const char *path, struct stat *st);
int __real_stat(const char *path, struct stat *st);
int __real_stat64(const char *path, struct stat *st);
int __real_fstatat(int dfd, const char *path, struct stat *st, int flags);
int __real_fstatat64(int dfd, const char *path, struct stat *st, int flags);
int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_access(const char *path, int mode);
DIR *__real_opendir(const char *path);

/* `path` (relative to dfd) with each missing component below the root
 * replaced by an entry of its directory that folds to it; 0 if it changed. */
static int fold_path(int dfd, const char *path, char *out, size_t n)
{
	char abs[2 * PATH_MAX + 2];
	if (!ci_lookup_root)
		return -1;
	if (path[0] == '/' || dfd == AT_FDCWD) {
		snprintf(abs, sizeof(abs), "%s", path);
	} else {
		char link[64], dir[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
		ssize_t k = readlink(link, dir, sizeof(dir) - 1);
		if (k <= 0)
			return -1;
		dir[k] = '\0';
		snprintf(abs, sizeof(abs), "%s/%s", dir, path);
	}
	size_t rl = strlen(ci_lookup_root);
	if (abs[0] != '/' || strncmp(abs, ci_lookup_root, rl) != 0 || abs[rl] != '/')
		return -1;
	snprintf(out, n, "%s", ci_lookup_root);
	int changed = 0;
	char rest[sizeof(abs)];
	snprintf(rest, sizeof(rest), "%s", abs + rl + 1);
	for (char *save = NULL, *c = strtok_r(rest, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		size_t used = strlen(out);
		snprintf(out + used, n - used, "/%s", c);
		struct stat st;
		if (__real_lstat(out, &st) == 0 || errno != ENOENT)
			continue;
		out[used] = '\0';
		DIR *d = __real_opendir(out);
		const char *hit = NULL;
		for (struct dirent *de; d && (de = readdir(d));)
			if (name_folds_equal(de->d_name, c)) {
				hit = de->d_name;
				break;
			}
		snprintf(out + used, n - used, "/%s", hit ? hit : c);
		changed |= hit != NULL;
		if (d)
			closedir(d);
	}
	return changed ? 0 : -1;
}

/* The call as asked; where it found nothing, again with the path folded
 * onto what the directories hold. */
#define RETRY(dfd, call_real, call_folded)                                                         \
	do {                                                                                       \
		int r_ = (call_real);                                                              \
		if (r_ >= 0 || errno != ENOENT)                                                    \
			return r_;                                                                 \
		char f_[PATH_MAX];                                                                 \
		if (fold_path((dfd), path, f_, sizeof(f_)) < 0) {                                  \
			errno = ENOENT;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		return (call_folded);                                                              \
	} while (0)

#define WRAP_STAT(name)                                                                            \
	int __wrap_##name(const char *path, struct stat *st);                                      \
	int __wrap_##name(const char *path, struct stat *st)                                       \
	{                                                                                          \
		RETRY(AT_FDCWD, __real_##name(path, st), __real_##name(f_, st));                   \
	}
WRAP_STAT(lstat)
WRAP_STAT(lstat64)
WRAP_STAT(stat)
WRAP_STAT(stat64)

int __wrap_access(const char *path, int mode);
int __wrap_access(const char *path, int mode)
{
	RETRY(AT_FDCWD, __real_access(path, mode), __real_access(f_, mode));
}

#define WRAP_OPEN(name)                                                                            \
	int __wrap_##name(const char *path, int flags, ...);                                       \
	int __wrap_##name(const char *path, int flags, ...)                                        \
	{                                                                                          \
		va_list ap;                                                                        \
		va_start(ap, flags);                                                               \
		mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;            \
		va_end(ap);                                                                        \
		RETRY(AT_FDCWD, __real_##name(path, flags, mode), __real_##name(f_, flags, mode)); \
	}
WRAP_OPEN(open)
WRAP_OPEN(open64)

/* The folded path is absolute: the directory's descriptor is not used. */
#define WRAP_FSTATAT(name)                                                                         \
	int __wrap_##name(int dfd, const char *path, struct stat *st, int flags);                  \
	int __wrap_##name(int dfd, const char *path, struct stat *st, int flags)                   \
	{                                                                                          \
		if (path[0] == '\0')                                                               \
			return __real_##name(dfd, path, st, flags);                                \
		RETRY(dfd, __real_##name(dfd, path, st, flags),                                    \
		      __real_##name(AT_FDCWD, f_, st, flags));                                     \
	}
WRAP_FSTATAT(fstatat)
WRAP_FSTATAT(fstatat64)

DIR *__wrap_opendir(const char *path);
DIR *__wrap_opendir(const char *path)
{
	DIR *d = __real_opendir(path);
	char f[PATH_MAX];
	if (d || errno != ENOENT || fold_path(AT_FDCWD, path, f, sizeof(f)) < 0)
		return d;
	return __real_opendir(f);
}
