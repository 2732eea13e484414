/* SPDX-License-Identifier: MIT */
#include "spares.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Spares kept at most in a pool (what concurrent sessions keep may pass it a
 * little): git's file masks are a few per repository. */
#define SPARES_MAX 1024

#ifdef RENAME_NOREPLACE
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static bool dir_empty(DIR *d)
{
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			return false;
	return true;
}

/* The directory `name` of `dfd` (never through a symlink), if it is ours
 * and empty: open, with *st. */
static DIR *open_empty(const struct spares *s, int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return NULL;
	}
	if (fstat(dirfd(d), st) < 0 || st->st_uid != s->uid || st->st_nlink != 2 || !dir_empty(d)) {
		closedir(d);
		return NULL;
	}
	return d;
}

/* The file `name` of `dfd` (never through a symlink), if it is ours, empty
 * and has no other name: true, with *st. One fstatat, not an open, a fstat
 * and a close: git protection moves a hundred of them in and out each
 * launch, and what is moved is checked again after (same_obj). */
static bool empty_file(const struct spares *s, int dfd, const char *name, struct stat *st)
{
	return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == s->uid && st->st_nlink == 1 && st->st_size == 0;
}

/* Is `name` of `dfd` the very object *st is (a file: still empty)? */
static bool same_obj(int dfd, const char *name, const struct stat *st)
{
	struct stat now;
	return fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	       now.st_ino == st->st_ino && (S_ISDIR(now.st_mode) || now.st_size == 0);
}
#endif

char *spares_dir(const char *session_dir, const char *plugin)
{
	return state_sibling(session_dir, plugin, "spare");
}

void spares_open(struct spares *s, const char *dir, const char *id)
{
	*s = (struct spares){0};
#ifdef RENAME_NOREPLACE
	if (!dir || !id || mkdir_p(dir, 0700) < 0 || !(s->id = strdup(id)))
		return;
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	/* Nobody else may put a directory here: what is taken from it lands
	 * in the user's project. */
	s->uid = geteuid();
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != s->uid || (st.st_mode & 077))
		return;
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		unsigned char type = de->d_type;
		struct stat est;
		if (type == DT_UNKNOWN &&
		    fstatat(dirfd(d), de->d_name, &est, AT_SYMLINK_NOFOLLOW) == 0)
			type = S_ISDIR(est.st_mode)   ? DT_DIR
			       : S_ISREG(est.st_mode) ? DT_REG
			                              : DT_UNKNOWN;
		/* Each is checked again when taken. */
		if ((type == DT_DIR && strv_push(&s->dirs, de->d_name) < 0) ||
		    (type == DT_REG && strv_push(&s->files, de->d_name) < 0))
			break;
	}
	closedir(d);
	s->dev = st.st_dev;
	s->fd = TAKE_FD(fd);
#else
	(void)dir;
	(void)id;
#endif
}

#ifdef RENAME_NOREPLACE
/* 1: `spare` is now `name` of `dfd`; 0: it is not (taken by another
 * launch, not an empty directory or file of ours); -1: `name` exists now. */
static int take_one(struct spares *s, const char *spare, int dfd, const char *name, bool is_dir)
{
	struct stat st;
	DIR *d = is_dir ? open_empty(s, s->fd, spare, &st) : NULL;
	if (is_dir ? !d : !empty_file(s, s->fd, spare, &st))
		return 0;
	/* Never over anything: EEXIST is the placeholder's path taken. */
	int r = renameat2(s->fd, spare, dfd, name, RENAME_NOREPLACE) == 0 ? 1
	        : errno == EEXIST                                         ? -1
	                                                                  : 0;
	/* Only this user can write the spares; still, what was moved must be
	 * what was checked. */
	if (r == 1 && !same_obj(dfd, name, &st)) {
		(void)renameat2(dfd, name, s->fd, spare, RENAME_NOREPLACE);
		r = 0;
	}
	if (d)
		closedir(d);
	return r;
}
#endif

void spares_place(struct spares *s, struct placeholders *p)
{
#ifdef RENAME_NOREPLACE
	for (size_t i = 0; s->fd > 0 && i < p->n; i++) {
		struct placeholder *ph = &p->items[i];
		struct strv *pool = ph->is_dir ? &s->dirs : &s->files;
		size_t *taken = ph->is_dir ? &s->dirs_taken : &s->files_taken;
		if (p->locks[ph->lock].dev != s->dev)
			continue;
		/* A placeholder's path is missing (placeholders_add): no check
		 * first; one that exists by now (another sandbox's mount point)
		 * fails the rename, and leaves its spare for the next. */
		int r = 0;
		while (*taken < pool->n && (r = take_one(s, pool->v[*taken], ph->parent_fd,
		                                         base_name(ph->path), ph->is_dir)) >= 0) {
			(*taken)++;
			if (r == 1) {
				ph->placed = 1;
				break;
			}
		}
	}
#else
	(void)s;
	(void)p;
#endif
}

void spares_put_in_place(struct spares *s, struct placeholders *p, const struct asb_host *host,
                         struct asb_ctx *ctx, const char *plugin)
{
	_cleanup_free_ char *dir = spares_dir(host->policy_string(ctx, "session_dir"), plugin);
	spares_open(s, dir, host->policy_string(ctx, "session_id"));
	spares_place(s, p);
	int64_t caps = 0;
	if (host->policy_int(ctx, "backend_caps", &caps) == 0 && (caps & ASB_CAP_FS_VIEW))
		placeholders_make(p, placeholders_log_to_host,
		                  &(struct placeholders_to_host){host, ctx});
}

#ifdef RENAME_NOREPLACE
/* 0 when the placeholder is now a spare. */
static int keep_one(struct spares *s, const struct placeholder *ph, placeholders_log_fn log,
                    void *ud)
{
	const char *name = base_name(ph->path);
	struct stat st;
	DIR *d = ph->is_dir ? open_empty(s, ph->parent_fd, name, &st) : NULL;
	if (ph->is_dir ? !d : !empty_file(s, ph->parent_fd, name, &st))
		return -ENOTEMPTY; /* cleanup says why */
	char spare[128];
	snprintf(spare, sizeof(spare), "%s-%zu", s->id, s->kept);
	int r = renameat2(ph->parent_fd, name, s->fd, spare, RENAME_NOREPLACE) < 0 ? -errno : 0;
	if (r == 0) {
		/* Written into, or replaced, while it was being moved: it goes
		 * back, and cleanup leaves it in place. */
		if (d)
			rewinddir(d);
		if (!same_obj(s->fd, spare, &st) || (d && !dir_empty(d))) {
			r = -ENOTEMPTY;
			if (renameat2(s->fd, spare, ph->parent_fd, name, RENAME_NOREPLACE) < 0 &&
			    log) {
				_cleanup_free_ char *line = str_printf(
				    "placeholder %s was written into while it was removed: what "
				    "it holds is in %s",
				    ph->path, spare);
				if (line)
					log(ud, line);
			}
		}
	}
	if (d)
		closedir(d);
	if (r == 0)
		s->kept++;
	return r;
}
#endif

void spares_keep(struct spares *s, struct placeholders *p, placeholders_log_fn log, void *ud)
{
#ifdef RENAME_NOREPLACE
	if (s->fd <= 0)
		return;
	for (size_t i = 0; i < p->n_locks; i++)
		p->locks[i].exclusive = flock(p->locks[i].fd, LOCK_EX | LOCK_NB) == 0;
	/* Newest first, as cleanup: a placeholder may sit inside another. */
	for (size_t i = p->n; i-- > 0;) {
		struct placeholder *ph = &p->items[i];
		if (s->dirs.n - s->dirs_taken + s->files.n - s->files_taken + s->kept >= SPARES_MAX)
			break;
		if (!p->locks[ph->lock].exclusive || p->locks[ph->lock].dev != s->dev ||
		    keep_one(s, ph, log, ud) < 0)
			continue;
		ph->gone = 1;
		_cleanup_free_ char *line = str_printf("removed placeholder %s", ph->path);
		if (line && log)
			log(ud, line);
	}
#else
	(void)s;
	(void)p;
	(void)log;
	(void)ud;
#endif
}

void spares_close(struct spares *s)
{
	if (s->fd > 0)
		close(s->fd);
	strv_clear(&s->dirs);
	strv_clear(&s->files);
	free(s->id);
	*s = (struct spares){0};
}
