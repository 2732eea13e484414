/* SPDX-License-Identifier: MIT */
#include "profiles.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A dot name: the core's pruning of session directories passes it by. */
#define PREFIX    ".browsers-"
#define LOCK_NAME ".lock"

/* Ours, a real directory, a minute old, and nobody holds its lock: a launch
 * that was killed before its post_exit (a younger one may be a launch that
 * has not taken its lock yet). */
static void prune(const char *parent)
{
	_cleanup_closedir_ DIR *d = opendir(parent);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (!str_has_prefix(de->d_name, PREFIX) ||
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

int profiles_create(struct profiles *p, const char *parent)
{
	int r = mkdir_p(parent, 0700);
	if (r < 0)
		return r;
	prune(parent);
	_cleanup_free_ char *tmpl = str_printf("%s/" PREFIX "XXXXXX", parent);
	if (!tmpl)
		return -ENOMEM;
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
	p->dir = TAKE_PTR(tmpl);
	p->lock_fd = fd;
	return 0;
}

char *profiles_path(const struct profiles *p, const char *rel, bool mkdir_it)
{
	if (!p->dir)
		return NULL;
	char *path = str_printf("%s/%s", p->dir, rel);
	if (path && mkdir_it && mkdir_p(path, 0700) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

int profiles_write(const struct profiles *p, const char *rel, const char *text)
{
	_cleanup_free_ char *path = profiles_path(p, rel, false);
	if (!path)
		return -ENOMEM;
	_cleanup_close_ int fd =
	    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	return write_all(fd, text, strlen(text));
}

void profiles_remove(struct profiles *p)
{
	/* rm_rf opens every level O_NOFOLLOW: what the agent left in the
	 * bound subdirectories (links included) is removed, never followed. */
	if (p->dir)
		(void)rm_rf(p->dir);
	free(p->dir);
	p->dir = NULL;
	if (p->lock_fd >= 0)
		close(p->lock_fd);
	p->lock_fd = -1;
}

static int certutil(const struct asb_host *host, struct asb_ctx *ctx, const char *const *argv)
{
	int wstatus = 0;
	int r = host->run_program(ctx, argv, NULL, &wstatus, NULL, 0);
	if (r < 0)
		return r;
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
		host->log(ctx, ASB_LOG_ERROR, "%s %s failed (%s %d; its output is in launch.log)",
		          argv[0], argv[1], WIFEXITED(wstatus) ? "status" : "signal",
		          WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
		return -EIO;
	}
	return 0;
}

int nssdb_trust_ca(const struct asb_host *host, struct asb_ctx *ctx, const char *tool,
                   const char *dir, const char *ca)
{
	_cleanup_free_ char *db = str_printf("sql:%s", dir);
	if (!db)
		return -ENOMEM;
	/* An empty password: the browser opens it without asking. "C,,": a CA
	 * for server certificates (not mail, not code signing). */
	const char *const create[] = {tool, "-N", "-d", db, "--empty-password", NULL};
	const char *const add[] = {tool, "-A",  "-d", db,   "-n", "agentsandbox session CA",
	                           "-t", "C,,", "-a", "-i", ca,   NULL};
	int r = certutil(host, ctx, create);
	return r < 0 ? r : certutil(host, ctx, add);
}
