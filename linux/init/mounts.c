/* SPDX-License-Identifier: MIT */
/* Mounts made inside the sandbox by agentsandbox-init, so that a launch with
 * hundreds of them (git protection of many repositories) does not pay
 * bubblewrap's re-read of /proc/self/mountinfo per bind. The backend runs
 * init with CAP_SYS_ADMIN and CAP_SETPCAP in the sandbox's user namespace;
 * init makes these mounts in a mount namespace of its own (bubblewrap's
 * mounts become locked beneath it), then drops every capability.
 *
 * The list (--mounts-fd), text with one record a line, after the line
 * "asb-init-mounts 1":
 *
 *   ro DEV INO PATH       bind PATH over itself read-only (nosuid, nodev,
 *   rw DEV INO PATH       recursive); what is at PATH must be DEV:INO
 *   tmpfs MODE PATH       an empty directory of MODE (nosuid, nodev), its own
 *                         mount, on the directory PATH
 *   rotmpfs MODE PATH     the same, read-only
 *   file MODE LEN PATH    a read-only file of LEN bytes (the next LEN bytes
 *                         of the list, then a newline) bound on the file PATH
 *   stage PATH            where the backend bound host directories for init
 *                         (a directory under ASB_RUN_DIR; before any record
 *                         that makes a mount): init's staging tmpfs is
 *                         stacked there, and at the end both are covered by
 *                         an empty read-only tmpfs
 *   rohost DEV INO PATH   bind the host's directory PATH, at stage/PATH,
 *                         read-only on the directory PATH; it must be DEV:INO
 *   readonly PATH         the mount at PATH read-only (not those below it):
 *                         after every other record (bubblewrap's
 *                         --remount-ro, without its re-read of the mount
 *                         table)
 *
 * PATH is absolute and canonical: no symlink is followed on the way to it
 * (one planted since the launcher checked is an error, never a detour).
 * Every failure is fatal; nothing is skipped. */
#include "mounts.h"

#include "../nosymlinks.h"
#include "mount_api.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_LIST    (64u << 20)
#define MAX_RECORDS 65536u

enum op { OP_RO, OP_RW, OP_TMPFS, OP_ROTMPFS, OP_FILE, OP_STAGE, OP_ROHOST, OP_READONLY };

struct record {
	enum op op;
	unsigned long long dev, ino;
	unsigned mode;
	const char *data;
	size_t len;
	char *path;
};

static int read_all(int fd, char **out, size_t *len_out)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= MAX_LIST) {
				free(buf);
				return -EFBIG;
			}
			char *n = realloc(buf, cap * 2);
			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*len_out = len;
	return 0;
}

/* A decimal (base 10) or octal (base 8) number and the one space after it. */
static int number(char **p, int base, unsigned long long max, unsigned long long *out)
{
	char *s = *p, *end;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s || *end != ' ' || v > max)
		return -EINVAL;
	*p = end + 1;
	*out = v;
	return 0;
}

/* Absolute, not "/", no empty, "." or ".." component, no trailing slash. */
static bool canonical(const char *path)
{
	if (path[0] != '/' || !path[1])
		return false;
	for (const char *c = path; *c;) {
		const char *comp = ++c;
		while (*c && *c != '/')
			c++;
		size_t n = (size_t)(c - comp);
		if (n == 0 || n >= NAME_MAX + 1 || (n == 1 && comp[0] == '.') ||
		    (n == 2 && comp[0] == '.' && comp[1] == '.'))
			return false;
	}
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	return strlen(path) < PATH_MAX;
}

static int parse(char *buf, size_t len, struct record **out, size_t *n_out)
{
	static const char header[] = "asb-init-mounts 1\n";
	if (len < sizeof(header) - 1 || memcmp(buf, header, sizeof(header) - 1) != 0)
		return -EINVAL;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	struct record *recs = NULL;
	size_t n = 0, cap = 0;
	char *p = buf + sizeof(header) - 1, *end = buf + len;
	while (p < end) {
		if (n == MAX_RECORDS)
			goto bad;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			struct record *r = realloc(recs, cap * sizeof(*recs));
			if (!r) {
				free(recs);
				return -ENOMEM;
			}
			recs = r;
		}
		struct record *r = &recs[n];
		*r = (struct record){0};
		char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			goto bad;
		size_t wl = (size_t)(sp - p);
#define WORD(w) (wl == sizeof(w) - 1 && memcmp(p, w, wl) == 0)
		if (WORD("ro"))
			r->op = OP_RO;
		else if (WORD("rw"))
			r->op = OP_RW;
		else if (WORD("tmpfs"))
			r->op = OP_TMPFS;
		else if (WORD("rotmpfs"))
			r->op = OP_ROTMPFS;
		else if (WORD("file"))
			r->op = OP_FILE;
		else if (WORD("stage"))
			r->op = OP_STAGE;
		else if (WORD("rohost"))
			r->op = OP_ROHOST;
		else if (WORD("readonly"))
			r->op = OP_READONLY;
		else
			goto bad;
#undef WORD
		p = sp + 1;
		unsigned long long v;
		if (r->op == OP_STAGE || r->op == OP_READONLY) {
			/* the path alone */
		} else if (r->op == OP_RO || r->op == OP_RW || r->op == OP_ROHOST) {
			if (number(&p, 10, ULLONG_MAX, &r->dev) < 0 ||
			    number(&p, 10, ULLONG_MAX, &r->ino) < 0)
				goto bad;
		} else {
			if (number(&p, 8, 07777, &v) < 0)
				goto bad;
			r->mode = (unsigned)v;
			if (r->op == OP_FILE) {
				if (number(&p, 10, MAX_LIST, &v) < 0)
					goto bad;
				r->len = (size_t)v;
			}
		}
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			goto bad;
		*nl = '\0';
		r->path = p;
		if (!canonical(r->path))
			goto bad;
		p = nl + 1;
		if (r->op == OP_FILE) {
			if ((size_t)(end - p) < r->len + 1 || p[r->len] != '\n')
				goto bad;
			r->data = p;
			p += r->len + 1;
		}
		n++;
	}
	*out = recs;
	*n_out = n;
	return 0;
bad:
	free(recs);
	return -EINVAL;
}

/* Walk to path (absolute: from the root; relative: from dirfd) one
 * component at a time, never through a symlink nor "..": for a kernel
 * without openat2. */
static int walk_nofollow(int dirfd, const char *path)
{
	int fd = path[0] == '/' ? openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC)
	                        : fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	char comp[NAME_MAX + 1];
	for (const char *c = path + (path[0] == '/'); *c;) {
		size_t n = strcspn(c, "/");
		memcpy(comp, c, n);
		comp[n] = '\0';
		c += n + (c[n] == '/');
		int next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (next < 0)
			return -e;
		struct stat st;
		if (fstat(next, &st) < 0) {
			e = errno;
			close(next);
			return -e;
		}
		if (S_ISLNK(st.st_mode) || (*c && !S_ISDIR(st.st_mode))) {
			close(next);
			return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
		}
		fd = next;
	}
	return fd;
}

/* A newer system call that is not there (ENOSYS), or that a seccomp filter
 * denies (a container's answers EPERM): the older way instead. Only for
 * calls that check no permission of their own on what they are given
 * here (openat2 for O_PATH; open_tree and mount_setattr on init's own
 * clones, with CAP_SYS_ADMIN held), so EPERM can be nothing else. */
static bool unavailable(int err)
{
	return err == ENOSYS || err == EPERM;
}

/* An O_PATH fd on what is at path (the top of any mounts stacked there),
 * no symlink followed. */
static int resolve(const char *path)
{
	int fd = open_nosymlinks(AT_FDCWD, path, 0);
	return fd < 0 && unavailable(-fd) ? walk_nofollow(AT_FDCWD, path) : fd;
}

/* As resolve(), for the relative path rel beneath the directory dirfd. */
static int resolve_beneath(int dirfd, const char *rel)
{
	int fd = open_nosymlinks(dirfd, rel, RESOLVE_BENEATH_);
	return fd < 0 && unavailable(-fd) ? walk_nofollow(dirfd, rel) : fd;
}

/* As resolve(), making what is missing as bubblewrap does for its mount
 * points: directories 0755, then the last component of type `type`. */
static int resolve_or_make(const char *path, mode_t type)
{
	int fd = resolve(path);
	if (fd != -ENOENT)
		return fd;
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	int parent = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0)
		return -errno;
	for (char *c = buf + 1;;) {
		char *slash = strchr(c, '/');
		bool last = !slash;
		if (slash)
			*slash = '\0';
		int next = resolve(buf);
		if (next == -ENOENT) {
			int e = 0;
			if (!last || type == S_IFDIR) {
				e = mkdirat(parent, c, 0755) < 0 && errno != EEXIST ? -errno : 0;
			} else {
				int f = openat(parent, c,
				               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				               0444);
				e = f < 0 && errno != EEXIST ? -errno : 0;
				if (f >= 0)
					close(f);
			}
			next = e < 0 ? e : resolve(buf);
		}
		close(parent);
		if (next < 0 || last)
			return next;
		parent = next;
		*slash = '/';
		c = slash + 1;
	}
}

static const char *fd_path(int fd, char buf[32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
	return buf;
}

/* mount(2) flags for MS_REMOUNT: those of the mount now (a lock on any of
 * them, from a more privileged namespace, would fail the remount) plus
 * what the record asks. */
static int remount(int fd, unsigned long flags)
{
	struct statvfs sv;
	if (fstatvfs(fd, &sv) < 0)
		return -errno;
	static const struct {
		unsigned long st, ms;
	} map[] = {{ST_RDONLY, MS_RDONLY},    {ST_NOSUID, MS_NOSUID},
	           {ST_NODEV, MS_NODEV},      {ST_NOEXEC, MS_NOEXEC},
	           {ST_NOATIME, MS_NOATIME},  {ST_NODIRATIME, MS_NODIRATIME},
	           {ST_RELATIME, MS_RELATIME}};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sv.f_flag & map[i].st)
			flags |= map[i].ms;
	char p[32];
	if (mount(NULL, fd_path(fd, p), NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0)
		return -errno;
	return 0;
}

/* Bind what src is on dest (both O_PATH fds), recursively, with attrs. */
static int bind(int src, int dest, const char *dest_path, bool ro, bool legacy)
{
	uint64_t attrs = MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | (ro ? MOUNT_ATTR_RDONLY_ : 0);
	if (!legacy) {
		long tree = syscall(SYS_open_tree, src, "",
		                    OPEN_TREE_CLONE_ | O_CLOEXEC | AT_RECURSIVE_ | AT_EMPTY_PATH);
		if (tree >= 0) {
			_autoclose_ int t = (int)tree;
			struct mount_attr_ attr = {.attr_set = attrs};
			if (syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH | AT_RECURSIVE_, &attr,
			            sizeof(attr)) < 0) {
				if (!unavailable(errno))
					return -errno;
				/* The clone is not attached: legacy from the start. */
			} else {
				if (syscall(SYS_move_mount, t, "", dest, "",
				            MOVE_MOUNT_F_EMPTY_ | MOVE_MOUNT_T_EMPTY_) < 0)
					return -errno;
				return 0;
			}
		} else if (!unavailable(errno)) {
			return -errno;
		}
	}
	char s[32], d[32];
	if (mount(fd_path(src, s), fd_path(dest, d), NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	/* The fd is on what was covered: reopen to reach the new mount. */
	_autoclose_ int top = resolve(dest_path);
	if (top < 0)
		return top;
	return remount(top, MS_NOSUID | MS_NODEV | (ro ? MS_RDONLY : 0));
}

static int stat_is(int fd, mode_t type)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	return (st.st_mode & S_IFMT) == type ? 0 : type == S_IFDIR ? -ENOTDIR : -EISDIR;
}

/* An O_PATH fd on the mount point at path, made where missing, which must
 * be of `type` (a directory for a tmpfs, a file for a file). */
static int mount_point(const char *path, mode_t type)
{
	int fd = resolve_or_make(path, type);
	if (fd < 0)
		return fd;
	int e = stat_is(fd, type);
	if (e < 0) {
		close(fd);
		return e;
	}
	return fd;
}

static int bind_self(const struct record *r, bool legacy)
{
	_autoclose_ int fd = resolve(r->path);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* The very object the launcher checked, as bubblewrap's --bind-fd
	 * checks after its mount. */
	if ((unsigned long long)st.st_dev != r->dev || (unsigned long long)st.st_ino != r->ino)
		return -ESTALE;
	return bind(fd, fd, r->path, r->op == OP_RO, legacy);
}

/* The stage record: the directory where the backend bound host directories
 * (under ASB_RUN_DIR, opened before init's staging tmpfs covers it). */
struct host_stage {
	int fd; /* or -1 */
	const char *path;
};

/* The files' contents and the tmpfs directories live on one tmpfs; their
 * binds keep it alive once nothing reaches it. It is stacked on the host's
 * stage where the list has one, and covered with it at the end: detaching
 * it instead (umount) waits for an RCU grace period, ~0.05 ms on an idle
 * machine, ~1 ms and more on a loaded one. Without a stage, it is stacked
 * over ASB_RUN_DIR while the mounts are made, and detached. */
struct staging {
	int fd; /* its root, or -1 */
	const struct host_stage *host;
	bool detach; /* over ASB_RUN_DIR: detached at the end */
	unsigned next;
	/* The last file staged (an O_PATH fd, or -1) and its record: the
	 * next file record of the same mode and contents is bound from it.
	 * Git protection's masks are a hundred empty read-only files; each a
	 * file of its own cost four system calls more, and no mask can be
	 * written through (every one is a read-only mount). */
	int last_file;
	const struct record *last;
};

static int stage_open(struct staging *s)
{
	bool on_stage = s->host->fd >= 0;
	const char *at = on_stage ? s->host->path : ASB_RUN_DIR;
	_autoclose_ int under = on_stage ? fcntl(s->host->fd, F_DUPFD_CLOEXEC, 3) : resolve(at);
	if (under < 0)
		return on_stage ? -errno : under;
	char p[32];
	if (mount("tmpfs", fd_path(under, p), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0)
		return -errno;
	s->detach = !on_stage;
	/* By name: the top of what is stacked there, the tmpfs just made. */
	s->fd = resolve(at);
	return s->fd < 0 ? s->fd : 0;
}

/* Done with the staging tmpfs: detached when over ASB_RUN_DIR; on the
 * stage, left for host_stage_close to cover. */
static int stage_close(struct staging *s)
{
	if (s->last_file >= 0)
		close(s->last_file);
	s->last_file = -1;
	s->last = NULL;
	if (s->fd < 0)
		return 0;
	char p[32];
	int r = s->detach && umount2(fd_path(s->fd, p), MNT_DETACH) < 0 ? -errno : 0;
	close(s->fd);
	s->fd = -1;
	return r;
}

/* The mount point at r's path (of `type`), and in `name` the staging
 * tmpfs's next entry (the tmpfs made on first use). */
static int stage_next(struct staging *s, const struct record *r, mode_t type, char name[16])
{
	int dest = mount_point(r->path, type);
	if (dest < 0)
		return dest;
	int e;
	if (s->fd < 0 && (e = stage_open(s)) < 0) {
		close(dest);
		return e;
	}
	snprintf(name, 16, "%u", s->next++);
	return dest;
}

static bool same_file(const struct record *a, const struct record *b)
{
	return a && a->mode == b->mode && a->len == b->len &&
	       (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static int file(struct staging *s, const struct record *r, bool legacy)
{
	char name[16];
	_autoclose_ int dest = stage_next(s, r, S_IFREG, name);
	if (dest < 0)
		return dest;
	if (s->last_file >= 0 && same_file(s->last, r))
		return bind(s->last_file, dest, r->path, true, legacy);
	_autoclose_ int w =
	    openat(s->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w < 0)
		return -errno;
	for (size_t off = 0; off < r->len;) {
		ssize_t n = write(w, r->data + off, r->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	if (fchmod(w, r->mode) < 0)
		return -errno;
	int src = openat(s->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0)
		return -errno;
	if (s->last_file >= 0)
		close(s->last_file);
	s->last_file = src;
	s->last = r;
	return bind(src, dest, r->path, true, legacy);
}

/* A directory of the staging tmpfs bound on the directory at path: one
 * tmpfs for every ephemeral directory and directory mask, not a superblock
 * made and torn down for each. Nothing reaches the staging root once it is
 * detached: each directory is the root of its own mount. */
static int tmpfs(struct staging *s, const struct record *r, bool legacy)
{
	char name[16];
	_autoclose_ int dest = stage_next(s, r, S_IFDIR, name);
	if (dest < 0)
		return dest;
	if (mkdirat(s->fd, name, 0700) < 0)
		return -errno;
	_autoclose_ int src = openat(s->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0)
		return -errno;
	if (fchmod(src, r->mode) < 0)
		return -errno;
	return bind(src, dest, r->path, r->op == OP_ROTMPFS, legacy);
}

static int host_stage_open(struct host_stage *h, const struct staging *s, const struct record *r)
{
	static const char under[] = ASB_RUN_DIR "/";
	if (h->fd >= 0 || s->fd >= 0 || strncmp(r->path, under, sizeof(under) - 1) != 0)
		return -EINVAL;
	int fd = resolve(r->path);
	if (fd < 0)
		return fd;
	int e = stat_is(fd, S_IFDIR);
	if (e < 0) {
		close(fd);
		return e;
	}
	h->fd = fd;
	h->path = r->path;
	return 0;
}

/* The host's directory at stage/PATH, the one checked, read-only on PATH. */
static int bind_host(const struct host_stage *h, const struct record *r, bool legacy)
{
	if (h->fd < 0)
		return -EINVAL;
	_autoclose_ int src = resolve_beneath(h->fd, r->path + 1);
	if (src < 0)
		return src;
	struct stat st;
	if (fstat(src, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || (unsigned long long)st.st_dev != r->dev ||
	    (unsigned long long)st.st_ino != r->ino)
		return -ESTALE;
	_autoclose_ int dest = mount_point(r->path, S_IFDIR);
	if (dest < 0)
		return dest;
	return bind(src, dest, r->path, true, legacy);
}

/* The mount at the record's path read-only, not those below it: a writable
 * bind declared inside (an rw_dirs entry under /etc) stays writable, as
 * with bubblewrap's --remount-ro. */
static int make_readonly(const struct record *r)
{
	_autoclose_ int fd = resolve(r->path);
	return fd < 0 ? fd : remount(fd, MS_RDONLY);
}

/* Nothing of the host's stage is reachable, nor init's staging tmpfs
 * stacked there: an empty read-only tmpfs over both. bubblewrap's mounts
 * are locked beneath init's namespace (a second user namespace owns it),
 * so its bind there cannot be detached, only covered, as the masks cover
 * what they hide. */
static int host_stage_close(struct host_stage *h)
{
	if (h->fd < 0)
		return 0;
	close(h->fd);
	h->fd = -1;
	/* By name: on top of the stack there, whatever mount(2) would do
	 * with the covered directory's fd. */
	_autoclose_ int top = resolve(h->path);
	if (top < 0)
		return top;
	char p[32];
	return mount("tmpfs", fd_path(top, p), "tmpfs",
	             MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555,size=4k") < 0
	           ? -errno
	           : 0;
}

int init_mounts_apply(int fd, bool legacy, const char **what)
{
	static char failed_path[PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	struct record *recs = NULL;
	size_t n = 0;
	*what = "reading the mount list";
	int r = read_all(fd, &buf, &len);
	close(fd);
	if (r < 0)
		return r;
	*what = "the mount list: not in the expected format";
	if ((r = parse(buf, len, &recs, &n)) < 0) {
		free(buf);
		return r;
	}
	/* Mounts of our own, under which bubblewrap's are locked. */
	*what = "unshare(CLONE_NEWNS)";
	if (unshare(CLONE_NEWNS) < 0) {
		r = -errno;
		goto out;
	}
	struct host_stage host = {.fd = -1};
	struct staging stage = {.fd = -1, .host = &host, .last_file = -1};
	for (size_t i = 0; i < n && r >= 0; i++) {
		/* A copy: the list is freed before the caller reports it. */
		snprintf(failed_path, sizeof(failed_path), "%s", recs[i].path);
		*what = failed_path;
		switch (recs[i].op) {
		case OP_RO:
		case OP_RW:
			r = bind_self(&recs[i], legacy);
			break;
		case OP_TMPFS:
		case OP_ROTMPFS:
			r = tmpfs(&stage, &recs[i], legacy);
			break;
		case OP_FILE:
			r = file(&stage, &recs[i], legacy);
			break;
		case OP_STAGE:
			r = host_stage_open(&host, &stage, &recs[i]);
			break;
		case OP_ROHOST:
			r = bind_host(&host, &recs[i], legacy);
			break;
		case OP_READONLY:
			break; /* below, last */
		}
	}
	if (r >= 0) {
		*what = "detaching the staging tmpfs";
		r = stage_close(&stage);
	} else {
		(void)stage_close(&stage);
	}
	if (r >= 0) {
		*what = "covering the host's stage";
		r = host_stage_close(&host);
	} else if (host.fd >= 0) {
		close(host.fd);
	}
	for (size_t i = 0; i < n && r >= 0; i++)
		if (recs[i].op == OP_READONLY) {
			snprintf(failed_path, sizeof(failed_path), "%s", recs[i].path);
			*what = failed_path;
			r = make_readonly(&recs[i]);
		}
out:
	free(recs);
	free(buf);
	return r;
}

int init_drop_caps(const char **what)
{
	*what = "clearing the ambient capabilities";
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	/* Read first, drop what is there (bubblewrap left a few), and read
	 * again: every capability's state is checked, not assumed, with a
	 * third of the system calls of dropping and re-reading them all. */
	*what = "clearing the capability bounding set";
	int last = 0;
	for (int cap = 0; cap < 64; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (in < 0 && errno == EINVAL)
			break;
		if (in != 0 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -errno;
		if (in != 0 && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0)
			return -EPERM;
		last = cap;
	}
	/* Root inside gets nothing back on exec, and this cannot be undone. */
	*what = "setting securebits";
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	                     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return -errno;
	*what = "capset";
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	/* Checked, not assumed. */
	*what = "capabilities left after dropping them";
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (int i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return -EPERM;
	for (int cap = 0; cap <= last; cap++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) > 0)
			return -EPERM;
	return 0;
}
