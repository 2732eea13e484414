/* SPDX-License-Identifier: MIT */
#include "placeholders.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* How a directory on the way is opened: for walking only (O_PATH needs no
 * read permission, as a lookup needs none), where there is such a flag. */
#if defined(O_PATH)
#define WALK_FLAGS O_PATH
#elif defined(O_SEARCH)
#define WALK_FLAGS O_SEARCH
#else
#define WALK_FLAGS O_RDONLY
#endif

/* `path`'s parent, opened one component at a time, following no symlink
 * anywhere on the way. The paths are canonical (from the resolved
 * workspace), so a symlink there was planted since: a sandbox writing the
 * workspace can swap a nested repository's directory for one between the
 * scan and this open, to make the launcher (root, perhaps) create, rename
 * or remove a mount point's name elsewhere. */
static int open_parent(const char *path, size_t parent_len)
{
	if (path[0] != '/')
		return -EINVAL;
	_cleanup_close_ int dir = open("/", WALK_FLAGS | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	for (size_t at = 1; at < parent_len;) {
		size_t len = strcspn(path + at, "/");
		if (at + len > parent_len)
			len = parent_len - at;
		if (len == 0 || len > NAME_MAX ||
		    (path[at] == '.' && (len == 1 || (len == 2 && path[at + 1] == '.'))))
			return -EINVAL; /* not canonical */
		char name[NAME_MAX + 1];
		memcpy(name, path + at, len);
		name[len] = '\0';
		/* A symlink here fails: ELOOP, or with O_PATH ENOTDIR. */
		int next = openat(dir, name, WALK_FLAGS | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return -errno;
		close(dir);
		dir = next;
		at += len + 1;
	}
	/* Readable, for flock (an O_PATH descriptor has none). */
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	void *p = ncap <= SIZE_MAX / elem ? realloc(*arr, ncap * elem) : NULL;
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* The shared lock on `path`'s parent, taken once per directory. */
static int lock_parent(struct placeholders *p, const char *path, size_t *out)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return -EINVAL;
	size_t parent_len = (size_t)(slash - path);
	for (size_t i = 0; i < p->n_locks; i++)
		if (strlen(p->locks[i].dir) == parent_len &&
		    memcmp(p->locks[i].dir, path, parent_len) == 0) {
			*out = i;
			return 0;
		}
	_cleanup_close_ int fd = open_parent(path, parent_len);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	for (size_t i = 0; i < p->n_locks; i++)
		if (p->locks[i].dev == st.st_dev && p->locks[i].ino == st.st_ino) {
			*out = i;
			return 0;
		}
	int r = grow(&p->locks, &p->cap_locks, p->n_locks, sizeof(*p->locks));
	if (r < 0)
		return r;
	_cleanup_free_ char *dir = strndup(path, parent_len);
	if (!dir)
		return -ENOMEM;
	/* Shared: every sandbox that masks here holds it; cleanup wants it alone. */
	if (flock(fd, LOCK_SH) < 0)
		return -errno;
	p->locks[p->n_locks] = (struct dir_lock){
	    .fd = TAKE_FD(fd), .dir = TAKE_PTR(dir), .dev = st.st_dev, .ino = st.st_ino};
	*out = p->n_locks++;
	return 0;
}

int placeholders_add(struct placeholders *p, const char *path, int is_dir)
{
	int r = grow(&p->items, &p->cap, p->n, sizeof(*p->items));
	if (r < 0)
		return r;
	size_t lock = 0;
	if ((r = lock_parent(p, path, &lock)) < 0)
		return r;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	p->items[p->n++] = (struct placeholder){
	    .path = copy, .parent_fd = p->locks[lock].fd, .lock = lock, .is_dir = is_dir};
	return 0;
}

static void say(placeholders_log_fn log, void *ud, char *line)
{
	if (line && log)
		log(ud, line);
	free(line);
}

void placeholders_make(const struct placeholders *p, placeholders_log_fn log, void *ud)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct placeholder *ph = &p->items[i];
		if (ph->placed)
			continue;
		const char *name = base_name(ph->path);
		/* Neither follows a symlink planted there: EEXIST, as for
		 * anything else in the way (another sandbox's mount point). */
		int r;
		if (ph->is_dir) {
			r = mkdirat(ph->parent_fd, name, 0755);
		} else if ((r = openat(ph->parent_fd, name,
		                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		                       0444)) >= 0) {
			close(r);
		}
		if (r < 0 && errno != EEXIST)
			say(log, ud,
			    str_printf("placeholder %s not made by the launcher: %s", ph->path,
			               strerror(errno)));
	}
}

int placeholders_has(const struct placeholders *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->items[i].path, path) == 0)
			return 1;
	return 0;
}

void placeholders_free(struct placeholders *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->items[i].path);
	for (size_t i = 0; i < p->n_locks; i++) {
		close(p->locks[i].fd);
		free(p->locks[i].dir);
	}
	free(p->items);
	free(p->locks);
	if (p->journal_fd > 0)
		close(p->journal_fd);
	free(p->journal);
	*p = (struct placeholders){0};
}

void placeholders_log_to_host(void *ud, const char *line)
{
	const struct placeholders_to_host *to = ud;
	to->host->log(to->ctx, ASB_LOG_INFO, "%s", line);
}

/* 1 while the placeholder is still to be removed (another sandbox uses its
 * directory); 0 once it is gone, or is no longer empty and so no longer
 * ours to remove. */
static int remove_one(const struct placeholders *p, const struct placeholder *ph,
                      placeholders_log_fn log, void *ud)
{
	const char *name = base_name(ph->path);
	struct stat st;
	if (ph->gone || fstatat(ph->parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* never created (launch failed early) or already gone */
	if (!p->locks[ph->lock].exclusive) {
		say(log, ud,
		    str_printf("placeholder %s left in place: another sandbox uses this directory",
		               ph->path));
		return 1;
	}
	int r;
	if (ph->is_dir && S_ISDIR(st.st_mode))
		r = unlinkat(ph->parent_fd, name, AT_REMOVEDIR);
	else if (!ph->is_dir && S_ISREG(st.st_mode) && st.st_size == 0)
		r = unlinkat(ph->parent_fd, name, 0);
	else
		r = -1, errno = ENOTEMPTY;
	if (r == 0)
		say(log, ud, str_printf("removed placeholder %s", ph->path));
	else
		say(log, ud,
		    str_printf("placeholder %s left in place: %s", ph->path, strerror(errno)));
	return 0;
}

void placeholders_cleanup(struct placeholders *p, placeholders_log_fn log, void *ud)
{
	/* Those spares_keep took alone are held still. */
	for (size_t i = 0; i < p->n_locks; i++)
		if (!p->locks[i].exclusive)
			p->locks[i].exclusive = flock(p->locks[i].fd, LOCK_EX | LOCK_NB) == 0;
	/* Newest first: a masked file sits inside a placeholder directory. */
	bool pending = false;
	for (size_t i = p->n; i-- > 0;)
		pending |= remove_one(p, &p->items[i], log, ud);
	if (p->journal && !pending)
		unlink(p->journal);
}

char *placeholders_journal_dir(const char *session_dir, const char *plugin)
{
	return state_sibling(session_dir, plugin, "placeholders");
}

/* The journal's lines, "d PATH" or "f PATH", in the order recorded. */
static int journal_text(const struct placeholders *p, char **out, size_t *len)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += strlen(p->items[i].path) + 3;
	char *text = malloc(n + 1);
	if (!text)
		return -ENOMEM;
	size_t at = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t l = strlen(p->items[i].path);
		text[at++] = p->items[i].is_dir ? 'd' : 'f';
		text[at++] = ' ';
		memcpy(text + at, p->items[i].path, l);
		at += l;
		text[at++] = '\n';
	}
	text[at] = '\0';
	*out = text;
	*len = at;
	return 0;
}

int placeholders_journal(struct placeholders *p, const char *dir, const char *id)
{
	if (p->n == 0)
		return 0;
	int r = mkdir_p(dir, 0700);
	if (r < 0)
		return r;
	_cleanup_free_ char *tmp = str_printf("%s/.%s.tmp", dir, id);
	char *path = str_printf("%s/%s", dir, id);
	if (!tmp || !path) {
		free(path);
		return -ENOMEM;
	}
	/* Locked before it has its name: a reaper never sees it unlocked. */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	r = fd < 0 ? -errno : 0;
	if (r == 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
		r = -errno;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	if (r == 0)
		r = journal_text(p, &text, &len);
	/* One write for the whole set (a line per path costs a syscall each). */
	if (r == 0)
		r = write_all(fd, text, len);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		if (fd >= 0) {
			unlink(tmp);
			close(fd);
		}
		free(path);
		return r;
	}
	p->journal_fd = fd;
	p->journal = path;
	return 0;
}

/* One journal no launcher holds: 1 when everything it lists is gone. */
static int reap_journal(int dfd, const char *name, placeholders_log_fn log, void *ud)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
		return 0; /* its launcher still runs */
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	FILE *f = dup >= 0 ? fdopen(dup, "r") : NULL;
	if (!f) {
		if (dup >= 0)
			close(dup);
		return 0;
	}
	bool all_gone = true;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if ((line[0] != 'f' && line[0] != 'd') || line[1] != ' ' || line[2] != '/')
			continue;
		struct placeholders one = {0};
		int r = placeholders_add(&one, line + 2, line[0] == 'd');
		if (r < 0) {
			/* Its directory is gone: so is the placeholder. Else the way
			 * there changed (a symlink swapped in): not followed. */
			if (r != -ENOENT)
				say(log, ud,
				    str_printf(
				        "%s: a placeholder left by a launch that was killed, "
				        "not removed: %s",
				        line + 2, strerror(-r)));
			placeholders_free(&one);
			continue;
		}
		one.locks[0].exclusive = flock(one.locks[0].fd, LOCK_EX | LOCK_NB) == 0;
		struct stat st;
		if (fstatat(one.items[0].parent_fd, base_name(line + 2), &st,
		            AT_SYMLINK_NOFOLLOW) == 0) {
			say(log, ud,
			    str_printf("%s: a placeholder left by a launch that was killed",
			               line + 2));
			all_gone &= !remove_one(&one, &one.items[0], log, ud);
		}
		placeholders_free(&one);
	}
	free(line);
	fclose(f);
	return all_gone;
}

void placeholders_reap(const char *dir, placeholders_log_fn log, void *ud)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* also a journal being written */
		if (reap_journal(dirfd(d), de->d_name, log, ud))
			unlinkat(dirfd(d), de->d_name, 0);
	}
}
