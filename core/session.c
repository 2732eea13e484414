/* SPDX-License-Identifier: MIT */
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <uuid/uuid.h>

#define LOCK_NAME  ".lock"
#define READY_NAME ".ready"

int session_root(const char *xdg_state_home, const char *home, char **out)
{
	if (xdg_state_home && xdg_state_home[0] == '/')
		*out = str_printf("%s/agentsandbox", xdg_state_home);
	else if (home && home[0] == '/')
		*out = str_printf("%s/.local/state/agentsandbox", home);
	else
		return -ENOENT;
	return *out ? 0 : -ENOMEM;
}

static void sanitize_name(char *s)
{
	for (; *s; s++)
		if (*s == '/' || *s == '.' || (unsigned char)*s < 0x20 || *s == ' ')
			*s = '_';
}

int session_reserve(struct session *s, const char *root, const char *name)
{
	*s = (struct session){.lock_fd = -1};
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	char stamp[64];
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	_cleanup_free_ char *clean = strdup(name && *name ? name : "sandbox");
	if (!clean)
		return -ENOMEM;
	sanitize_name(clean);
	s->root = strdup(root);
	s->dir = str_printf("%s/%s.%03ldZ-%d-%s", root, stamp, ts.tv_nsec / 1000000L, (int)getpid(),
	                    clean);
	if (!s->root || !s->dir)
		return -ENOMEM;
	uuid_t uu;
	uuid_generate(uu);
	uuid_unparse_lower(uu, s->id);
	return 0;
}

/* The directory an earlier launch made for this one (session_prepare):
 * locked, then renamed to its final name, as a new one would be. */
static int take_ready(struct session *s)
{
	_cleanup_free_ char *ready = str_printf("%s/" READY_NAME, s->root);
	if (!ready)
		return -ENOMEM;
	_cleanup_close_ int dfd = open(ready, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st, now;
	if (dfd < 0 || fstat(dfd, &st) < 0)
		return -errno;
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	int fd = openat(dfd, LOCK_NAME, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Another launch takes it (its lock), or took it already and it is
	 * that session's now: only the one locked and still named .ready,
	 * which no other launch can move while this one holds the lock. */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || lstat(ready, &now) < 0 || now.st_ino != st.st_ino ||
	    now.st_dev != st.st_dev || lstat(s->dir, &now) == 0 || rename(ready, s->dir) < 0) {
		close(fd);
		return -EAGAIN;
	}
	s->lock_fd = fd;
	return 0;
}

int session_create(struct session *s)
{
	if (!s->root || !s->dir)
		return -EINVAL;
	if (take_ready(s) == 0)
		return 0;
	int r = mkdir_p(s->root, 0700);
	if (r < 0)
		return r;
	_cleanup_free_ char *tmp = str_printf("%s/.new-%d-XXXXXX", s->root, (int)getpid());
	if (!tmp)
		return -ENOMEM;
	if (!mkdtemp(tmp))
		return -errno;
	_cleanup_free_ char *lock_path = str_printf("%s/" LOCK_NAME, tmp);
	if (!lock_path) {
		rm_rf(tmp);
		return -ENOMEM;
	}
	int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		rm_rf(tmp);
		return r;
	}
	/* Never over an existing one: the name is this process's. */
	struct stat st;
	if (lstat(s->dir, &st) == 0 || rename(tmp, s->dir) < 0) {
		r = errno ? -errno : -EEXIST;
		close(fd);
		rm_rf(tmp);
		return r;
	}
	s->lock_fd = fd;
	return 0;
}

void session_prepare(const char *root)
{
	_cleanup_free_ char *ready = str_printf("%s/" READY_NAME, root);
	_cleanup_free_ char *tmp = str_printf("%s/.new-%d-XXXXXX", root, (int)getpid());
	struct stat st;
	if (!ready || !tmp || lstat(ready, &st) == 0 || !mkdtemp(tmp))
		return;
	_cleanup_free_ char *lock = str_printf("%s/" LOCK_NAME, tmp);
	int fd = lock ? open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
	if (fd >= 0)
		close(fd);
	/* Never over another one: a directory with its .lock is not empty. */
	if (fd < 0 || rename(tmp, ready) < 0)
		(void)rm_rf(tmp);
}

static int cmp_names_desc(const void *a, const void *b)
{
	return -strcmp(*(char *const *)a, *(char *const *)b);
}

/* Half-created directories of crashed launches are named ".new-PID-*". */
static bool stale_new_dir(const char *root, const char *name)
{
	int pid = 0;
	if (sscanf(name, ".new-%d-", &pid) != 1 || pid <= 0)
		return false;
	if (kill(pid, 0) == 0 || errno == EPERM)
		return false;
	(void)root;
	return true;
}

int session_prune(const char *root, size_t keep)
{
	DIR *d = opendir(root);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	struct strv names = {0};
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') {
			if (stale_new_dir(root, de->d_name)) {
				_cleanup_free_ char *p = str_printf("%s/%s", root, de->d_name);
				if (p)
					(void)rm_rf(p);
			}
			continue;
		}
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if ((r = strv_push(&names, de->d_name)) < 0)
			break;
	}
	closedir(d);
	if (r < 0) {
		strv_clear(&names);
		return r;
	}
	/* Names start with a UTC timestamp: newest sort first. */
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(char *), cmp_names_desc);
	int removed = 0;
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *dir = str_printf("%s/%s", root, names.v[i]);
		_cleanup_free_ char *lock = str_printf("%s/%s/" LOCK_NAME, root, names.v[i]);
		_cleanup_free_ char *priv = str_printf("%s/%s/private", root, names.v[i]);
		if (!dir || !lock || !priv)
			continue;
		/* A kept one matters only with private directories (bundles,
		 * runtime state): its sandbox runs, or a launcher killed
		 * outright left them. Most have none: one lstat each. */
		struct stat st;
		if (i < keep && lstat(priv, &st) < 0)
			continue;
		_cleanup_close_ int fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue; /* its sandbox still runs */
		if (i >= keep) {
			if (rm_rf(dir) == 0)
				removed++;
		} else {
			(void)rm_rf(priv);
		}
	}
	strv_clear(&names);
	return removed;
}

int session_open(const struct session *s, const char *name)
{
	_cleanup_free_ char *path = str_printf("%s/%s", s->dir, name);
	if (!path)
		return -ENOMEM;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	return fd < 0 ? -errno : fd;
}

int session_write(const struct session *s, const char *name, const void *data, size_t len)
{
	_cleanup_free_ char *path = str_printf("%s/%s", s->dir, name);
	if (!path)
		return -ENOMEM;
	_cleanup_close_ int fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	return write_all(fd, data, len);
}

void session_close(struct session *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->root);
	free(s->dir);
	*s = (struct session){.lock_fd = -1};
}
