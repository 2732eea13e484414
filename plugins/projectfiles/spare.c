/* SPDX-License-Identifier: MIT */
#include "spare.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Spares kept at most (what concurrent sessions keep may pass it a little). */
#define SPARES_MAX 64

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
static DIR *open_empty(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return NULL;
	}
	if (fstat(dirfd(d), st) < 0 || st->st_uid != geteuid() || st->st_nlink != 2 ||
	    !dir_empty(d)) {
		closedir(d);
		return NULL;
	}
	return d;
}

/* Is `name` of `dfd` the very directory *st is? */
static bool same_dir(int dfd, const char *name, const struct stat *st)
{
	struct stat now;
	return fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	       now.st_ino == st->st_ino;
}
#endif

void spares_open(struct pf_spares *s, const char *dir, const char *id)
{
	*s = (struct pf_spares){0};
#ifdef RENAME_NOREPLACE
	if (!dir || !id || mkdir_p(dir, 0700) < 0 || !(s->id = strdup(id)))
		return;
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	/* Nobody else may put a directory here: what is taken from it lands
	 * in the user's project. */
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077))
		return;
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strv_push(&s->names, de->d_name) < 0)
			break;
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
 * launch, not an empty directory of ours); -1: `name` exists now. */
static int take_one(struct pf_spares *s, const char *spare, int dfd, const char *name)
{
	struct stat st;
	DIR *d = open_empty(s->fd, spare, &st);
	if (!d)
		return 0;
	int r = renameat2(s->fd, spare, dfd, name, RENAME_NOREPLACE) == 0 ? 1
	        : errno == EEXIST                                         ? -1
	                                                                  : 0;
	/* Only this user can write the spares; still, what was moved must be
	 * what was checked. */
	if (r == 1 && !same_dir(dfd, name, &st)) {
		(void)renameat2(dfd, name, s->fd, spare, RENAME_NOREPLACE);
		r = 0;
	}
	closedir(d);
	return r;
}
#endif

void spares_place(struct pf_spares *s, const struct placeholders *p)
{
#ifdef RENAME_NOREPLACE
	for (size_t i = 0; s->fd > 0 && i < p->n && s->taken < s->names.n; i++) {
		const struct placeholder *ph = &p->items[i];
		struct stat st;
		if (!ph->is_dir || p->locks[ph->lock].dev != s->dev ||
		    fstatat(ph->parent_fd, base_name(ph->path), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    errno != ENOENT)
			continue;
		while (s->taken < s->names.n &&
		       take_one(s, s->names.v[s->taken++], ph->parent_fd, base_name(ph->path)) == 0)
			;
	}
#else
	(void)s;
	(void)p;
#endif
}

#ifdef RENAME_NOREPLACE
/* 0 when the placeholder is now a spare. */
static int keep_one(struct pf_spares *s, const struct placeholder *ph, placeholders_log_fn log,
                    void *ud)
{
	const char *name = base_name(ph->path);
	struct stat st;
	DIR *d = open_empty(ph->parent_fd, name, &st);
	if (!d)
		return -ENOTEMPTY; /* cleanup says why */
	char spare[128];
	snprintf(spare, sizeof(spare), "%s-%zu", s->id, s->kept);
	int r = renameat2(ph->parent_fd, name, s->fd, spare, RENAME_NOREPLACE) < 0 ? -errno : 0;
	if (r == 0) {
		/* Written into, or replaced, while it was being moved: it goes
		 * back, and cleanup leaves it in place. */
		rewinddir(d);
		if (!same_dir(s->fd, spare, &st) || !dir_empty(d)) {
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
	closedir(d);
	if (r == 0)
		s->kept++;
	return r;
}
#endif

void spares_keep(struct pf_spares *s, struct placeholders *p, placeholders_log_fn log, void *ud)
{
#ifdef RENAME_NOREPLACE
	if (s->fd <= 0)
		return;
	for (size_t i = 0; i < p->n_locks; i++)
		p->locks[i].exclusive = flock(p->locks[i].fd, LOCK_EX | LOCK_NB) == 0;
	/* Newest first, as cleanup: a placeholder may sit inside another. */
	for (size_t i = p->n; i-- > 0;) {
		const struct placeholder *ph = &p->items[i];
		if (s->names.n - s->taken + s->kept >= SPARES_MAX)
			break;
		if (!ph->is_dir || !p->locks[ph->lock].exclusive ||
		    p->locks[ph->lock].dev != s->dev || keep_one(s, ph, log, ud) < 0)
			continue;
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

void spares_close(struct pf_spares *s)
{
	if (s->fd > 0)
		close(s->fd);
	strv_clear(&s->names);
	free(s->id);
	*s = (struct pf_spares){0};
}
