/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/socket.h>

int strv_push_take(struct strv *s, char *str)
{
	if (!str)
		return -ENOMEM;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			free(str);
			return -ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

int strv_push(struct strv *s, const char *str)
{
	return strv_push_take(s, strdup(str));
}

bool strv_contains(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

void strv_clear(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct strv){0};
}

char *str_vprintf(const char *fmt, va_list ap)
{
	char *out = NULL;
	if (vasprintf(&out, fmt, ap) < 0)
		return NULL;
	return out;
}

char *str_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = str_vprintf(fmt, ap);
	va_end(ap);
	return out;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool path_is_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	size_t slash = a > 0 && dir[a - 1] == '/' ? 0 : 1;
	char *p = malloc(a + slash + b + 1);
	if (!p)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + slash, name, b + 1);
	return p;
}

/* '/' before every other byte (and the end before '/'): a path's
 * descendants sort right after it. */
static int path_order(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;
	for (;; x++, y++) {
		int cx = *x == '/' ? 1 : *x ? *x + 1 : 0, cy = *y == '/' ? 1 : *y ? *y + 1 : 0;
		if (cx != cy || !cx)
			return cx - cy;
	}
}

void strv_keep_outermost(struct strv *paths)
{
	if (paths->n > 1)
		qsort(paths->v, paths->n, sizeof(*paths->v), path_order);
	size_t kept = 0;
	for (size_t i = 0; i < paths->n; i++) {
		if (kept && path_is_within(paths->v[i], paths->v[kept - 1]))
			free(paths->v[i]);
		else
			paths->v[kept++] = paths->v[i];
	}
	paths->n = kept;
	if (paths->v)
		paths->v[kept] = NULL;
}

size_t path_normalize(char *dst, const char *src)
{
	size_t n = 0;
	for (const char *s = src; *s;) {
		if (*s != '/') {
			dst[n++] = *s++;
			continue;
		}
		while (*s == '/')
			s++;
		/* A "." component is the directory it is in. */
		if (s[0] == '.' && (s[1] == '/' || s[1] == '\0'))
			s++;
		else if (*s || n == 0)
			dst[n++] = '/';
	}
	if (n == 0 && src[0] == '/')
		dst[n++] = '/'; /* "/.": nothing was written, src[0] is intact */
	dst[n] = '\0';
	return n;
}

size_t path_depth(const char *path)
{
	size_t depth = 0;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			depth++;
	return depth;
}

char *path_real(const char *path, char *resolved)
{
#if defined(__linux__) && defined(O_PATH)
	int fd = path ? open(path, O_PATH | O_CLOEXEC) : -1;
	/* open's errno is realpath's (ENOENT, EACCES, ELOOP...), except for
	 * the descriptor it needed. */
	if (fd < 0 && path && errno != EMFILE && errno != ENFILE)
		return NULL;
	if (fd >= 0) {
		char link[32], name[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, name, sizeof(name));
		close(fd);
		/* Not absolute: unreachable from this root; " (deleted)": removed
		 * since (or so named); either way realpath says. */
		static const char deleted[] = " (deleted)";
		size_t dl = sizeof(deleted) - 1;
		if (n > 0 && (size_t)n < sizeof(name) && name[0] == '/' &&
		    !((size_t)n >= dl && memcmp(name + n - dl, deleted, dl) == 0)) {
			name[n] = '\0';
			if (!resolved)
				return strdup(name);
			memcpy(resolved, name, (size_t)n + 1);
			return resolved;
		}
	}
#endif
	return realpath(path, resolved);
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int write_file_replace(const char *path, const void *buf, size_t len)
{
	_cleanup_free_ char *tmp = str_printf("%s.%d.tmp", path, (int)getpid());
	if (!tmp)
		return -ENOMEM;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, buf, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && unlink(path) < 0 && errno != ENOENT)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int read_file(const char *path, char **out, size_t *len_out)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	_cleanup_free_ char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				return -ENOMEM;
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	*out = TAKE_PTR(buf);
	return 0;
}

int read_regular_fd(int fd, size_t max, char **out, size_t *len_out)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if ((unsigned long long)st.st_size > max)
		return -EFBIG;
	char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	size_t len = 0;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return 0;
}

static int rm_rf_at(int dirfd, const char *name)
{
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* A directory made read-only (by its owner: us) cannot be listed
		 * or emptied until it is writable again. */
		if (fchmodat(dirfd, name, 0700, 0) < 0)
			return -EACCES;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
		return errno == ENOENT ? 0 : -errno;
	}
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dup_fd < 0)
		return -errno;
	DIR *d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -errno;
	}
	int r = 0;
	struct stat st;
	/* Entries of a read-only directory cannot be removed either. */
	if (fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700)
		(void)!fchmod(fd, (st.st_mode & 07777) | 0700);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		int k = rm_rf_at(fd, de->d_name);
		if (k < 0 && r == 0)
			r = k;
	}
	closedir(d);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

int rm_rf(const char *path)
{
	return rm_rf_at(AT_FDCWD, path);
}

int mkdir_p(const char *path, unsigned mode)
{
	_cleanup_free_ char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int pipe_cloexec(int fds[2])
{
#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
#else
	if (pipe(fds) < 0)
		return -errno;
	(void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

__attribute__((unused)) static int set_flags(int fd, bool nonblock)
{
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	if (nonblock && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int socket_cloexec(int domain, int type, bool nonblock)
{
#ifdef SOCK_CLOEXEC
	int fd = socket(domain, type | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	return fd < 0 ? -errno : fd;
#else
	int fd = socket(domain, type, 0);
	if (fd < 0)
		return -errno;
	int r = set_flags(fd, nonblock);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
#endif
}

int accept_cloexec(int lfd, bool nonblock)
{
#if defined(__linux__) || defined(__FreeBSD__)
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0));
	return fd < 0 ? -errno : fd;
#else
	int fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return -errno;
	int r = set_flags(fd, nonblock);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
#endif
}

int fds_cloexec_from(int lowfd)
{
	/* Walk the open descriptors rather than every possible number. */
#if defined(__APPLE__)
	const char *dir = "/dev/fd";
#else
	const char *dir = "/proc/self/fd";
#endif
	DIR *d = opendir(dir);
	if (!d) {
		long max = sysconf(_SC_OPEN_MAX);
		for (int fd = lowfd; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		return 0;
	}
	int self = dirfd(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (*end || fd < lowfd || fd == self)
			continue;
		int flags = fcntl((int)fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			(void)fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
	}
	closedir(d);
	return 0;
}

static bool fd_kept(int fd, const int *keep, size_t n_keep)
{
	for (size_t i = 0; i < n_keep; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

int fds_close_except(int lowfd, const int *keep, size_t n_keep)
{
#if defined(__APPLE__)
	const char *dir = "/dev/fd";
#else
	const char *dir = "/proc/self/fd";
#endif
	DIR *d = opendir(dir);
	if (!d) {
		long max = sysconf(_SC_OPEN_MAX);
		for (int fd = lowfd; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			if (!fd_kept(fd, keep, n_keep))
				(void)close(fd);
		return 0;
	}
	/* Collect first: closing while the directory is read would change it. */
	int found[256];
	size_t n = 0;
	bool more = false;
	int self = dirfd(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (*end || fd < lowfd || fd == self || fd_kept((int)fd, keep, n_keep))
			continue;
		if (n == ARRAY_SIZE(found)) {
			more = true;
			break;
		}
		found[n++] = (int)fd;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++)
		(void)close(found[i]);
	return more ? fds_close_except(lowfd, keep, n_keep) : 0;
}

char *state_sibling(const char *session_dir, const char *plugin, const char *kind)
{
	const char *slash = session_dir ? strrchr(session_dir, '/') : NULL;
	if (!slash)
		return NULL;
	return str_printf("%.*s/.%s-%s", (int)(slash - session_dir), session_dir, plugin, kind);
}
