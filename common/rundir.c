/* SPDX-License-Identifier: MIT */
#include "rundir.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_NAME ".lock"

static void prune(const char *parent, const char *prefix)
{
	_cleanup_closedir_ DIR *d = opendir(parent);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		struct stat st;
		if (!str_has_prefix(de->d_name, prefix) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || st.st_mtime > time(NULL) - 60)
			continue;
		_cleanup_free_ char *lock = str_printf("%s/%s/" LOCK_NAME, parent, de->d_name);
		if (!lock)
			return;
		_cleanup_close_ int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue;
		_cleanup_free_ char *path = str_printf("%s/%s", parent, de->d_name);
		if (path)
			(void)rm_rf(path);
	}
}

int rundir_create(struct rundir *d, const char *parent, const char *name)
{
	int r = mkdir_p(parent, 0700);
	if (r < 0)
		return r;
	_cleanup_free_ char *prefix = str_printf(".%s-", name);
	_cleanup_free_ char *tmpl = str_printf("%s/.%s-XXXXXX", parent, name);
	if (!prefix || !tmpl)
		return -ENOMEM;
	prune(parent, prefix);
	if (!mkdtemp(tmpl))
		return -errno;
	_cleanup_free_ char *lock = str_printf("%s/" LOCK_NAME, tmpl);
	int fd = lock ? open(lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = lock ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		(void)rm_rf(tmpl);
		return r;
	}
	d->dir = TAKE_PTR(tmpl);
	d->lock_fd = fd;
	return 0;
}

char *rundir_parent_of(const char *session_dir)
{
	char *parent = session_dir ? strdup(session_dir) : NULL;
	char *slash = parent ? strrchr(parent, '/') : NULL;
	if (!slash || slash == parent) {
		free(parent);
		return NULL;
	}
	*slash = '\0';
	return parent;
}

void rundir_remove(struct rundir *d)
{
	if (d->dir)
		(void)rm_rf(d->dir);
	free(d->dir);
	d->dir = NULL;
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
}
