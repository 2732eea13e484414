/* SPDX-License-Identifier: MIT */
/* The copies of a directory (copies.c: /etc's single files, and the mount
 * points init binds the host's directories on) kept between sessions as one
 * host directory, bound read-only in place of the tmpfs bubblewrap would
 * fill op by op: one bind instead of ~25 files written and ~10 directories
 * made at every launch (~1 ms).
 *
 * Its content is a function of what it copies: the name is a hash of every
 * member's path and mode, and of each host file's identity as the copy saw
 * it (device, inode, size, modification and change times), or of the
 * generated file's bytes. Any write, rename over or chmod of a host file
 * moves its change time to "now", which no process can set back, so a
 * changed file never matches an old copy. A file changed in the last
 * SETTLED_S seconds is copied by bubblewrap as before (no change in the
 * same clock tick can hide behind a record).
 *
 * It lies in the state directory, which every sandbox sees read-only
 * (core/selfconfig.c); even so, it is used only when it is this user's,
 * writable by nobody else, and holds exactly the members, each of its
 * type, mode and size. A launch holds a shared lock on it for its whole
 * session; the pruning of old ones takes it exclusively, so a directory a
 * sandbox has bound is never emptied under it. Anything else (an entry
 * that is no copy, a file just changed, any error): the caller renders the
 * copies one op each. */
#include "bwrap.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What a launch keeps of other plans' and older files' copies: enough for
 * the few configurations one user runs side by side. */
#define CACHE_KEEP 8
/* A host file changed this recently is copied by bubblewrap instead. */
#define SETTLED_S 2

enum { M_DIR, M_FILE };

struct member {
	int kind;
	const char *rel; /* below the directory: "passwd", "default/locale" */
	char *owned;     /* rel, when made here (a parent directory) */
	uint32_t mode;
	int src; /* M_FILE: read from offset 0 */
	uint64_t size;
	const char *parent; /* the directory holding it, NULL at the top */
};

struct members {
	struct member *v;
	size_t n, cap;
};

static void members_free(struct members *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free(ms->v[i].owned);
	free(ms->v);
	*ms = (struct members){0};
}

static struct member *find(const struct members *ms, const char *rel, size_t len)
{
	for (size_t i = 0; i < ms->n; i++)
		if (strlen(ms->v[i].rel) == len && strncmp(ms->v[i].rel, rel, len) == 0)
			return &ms->v[i];
	return NULL;
}

static int push(struct members *ms, struct member m)
{
	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 32;
		struct member *v = realloc(ms->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ms->v = v;
		ms->cap = cap;
	}
	ms->v[ms->n++] = m;
	return 0;
}

/* Made below the directory and nowhere else: no empty, "." or ".."
 * component. */
static bool plain_relative(const char *rel)
{
	for (const char *c = rel;;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[n])
			return true;
		c += n + 1;
	}
}

/* rel's parent directories first, 0755 as bubblewrap makes them. Each
 * member's parent points at its parent's rel. */
static int push_with_parents(struct members *ms, struct member m)
{
	if (!plain_relative(m.rel))
		return -EINVAL;
	if (find(ms, m.rel, strlen(m.rel)))
		return -EEXIST; /* twice at one place: left to bubblewrap */
	const char *parent = NULL;
	for (const char *s = strchr(m.rel, '/'); s; s = strchr(s + 1, '/')) {
		size_t len = (size_t)(s - m.rel);
		struct member *p = find(ms, m.rel, len);
		if (p && p->kind != M_DIR)
			return -ENOTDIR;
		if (!p) {
			char *rel = strndup(m.rel, len);
			if (!rel)
				return -ENOMEM;
			int r = push(ms, (struct member){.kind = M_DIR,
			                                 .rel = rel,
			                                 .owned = rel,
			                                 .mode = 0755,
			                                 .src = -1,
			                                 .parent = parent});
			if (r < 0) {
				free(rel);
				return r;
			}
			p = &ms->v[ms->n - 1];
		}
		parent = p->rel;
	}
	m.parent = parent;
	return push(ms, m);
}

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
	return hash_bytes(h, &v, sizeof(v));
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return hash_bytes(h, s, strlen(s) + 1);
}

/* fd's bytes from offset 0, chunk by chunk, to each(); their count, or
 * -errno. pread: the fd's own offset, from which bubblewrap reads it when
 * no kept copy is used, stays where it is. */
static int64_t each_chunk(int fd, int (*each)(void *arg, const void *buf, size_t n), void *arg)
{
	char buf[16384];
	uint64_t at = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return (int64_t)at;
		int r = each(arg, buf, (size_t)n);
		if (r < 0)
			return r;
		at += (uint64_t)n;
	}
}

static int hash_chunk(void *arg, const void *buf, size_t n)
{
	uint64_t *h = arg;
	*h = hash_bytes(*h, buf, n);
	return 0;
}

/* A generated file's bytes into the hash, and its size. */
static int hash_data(int fd, uint64_t *h, uint64_t *size)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 || st.st_size > (1 << 20))
		return -EINVAL;
	int64_t len = each_chunk(fd, hash_chunk, h);
	if (len < 0)
		return (int)len;
	if (len != st.st_size)
		return -EAGAIN;
	*h = hash_u64(*h, (uint64_t)len);
	*size = (uint64_t)len;
	return 0;
}

/* Every entry under copy_dirs[d] as a member, and the key naming them:
 * -EOPNOTSUPP where one cannot be (then nothing of d is cached). */
static int gather(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                  const struct init_mounts *m, size_t d, struct members *ms, uint64_t *key)
{
	const char *dir = b->copy_dirs[d];
	size_t dir_len = strlen(dir);
	uint64_t h = hash_str(hash_str(HASH_SEED, "asb-copy-cache 1"), dir);
	h = hash_u64(h, (uint64_t)geteuid());
	time_t now = time(NULL);
	int n = host->plan_entry_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		int r = host->plan_entry_get(ctx, (uint32_t)i, &e);
		if (r < 0)
			return r;
		if (bwrap_copy_dir_of(b, e.dest) != (int)d)
			continue;
		const struct bwrap_copy *c = (size_t)i < b->n_copies ? &b->copies[i] : NULL;
		struct member mb = {.rel = e.dest + dir_len + 1, .src = -1};
		if (init_mounts_staged(m, (uint32_t)i)) {
			/* init binds the host's directory here. */
			mb.kind = M_DIR;
			mb.mode = 0755;
		} else if (init_mounts_delegated(m, (uint32_t)i)) {
			return -EOPNOTSUPP; /* init would make its mount point here */
		} else if (c && c->state == COPY_GONE) {
			continue;
		} else if (c && c->state == COPY_FILE) {
			const struct stat *st = &c->st;
			if (st->st_ctim.tv_sec >= now - SETTLED_S || st->st_ctim.tv_sec < 0)
				return -EAGAIN;
			mb.kind = M_FILE;
			mb.mode = c->mode ? c->mode : 0400;
			mb.src = c->fd;
			mb.size = (uint64_t)st->st_size;
			h = hash_u64(h, (uint64_t)st->st_dev);
			h = hash_u64(h, (uint64_t)st->st_ino);
			h = hash_u64(h, (uint64_t)st->st_size);
			h = hash_u64(h, (uint64_t)st->st_mtim.tv_sec);
			h = hash_u64(h, (uint64_t)st->st_mtim.tv_nsec);
			h = hash_u64(h, (uint64_t)st->st_ctim.tv_sec);
			h = hash_u64(h, (uint64_t)st->st_ctim.tv_nsec);
		} else if (e.type == ASB_ENTRY_FILE && e.fd >= 0) {
			mb.kind = M_FILE;
			mb.mode = e.mode ? e.mode : 0444;
			mb.src = e.fd;
			if ((r = hash_data(e.fd, &h, &mb.size)) < 0)
				return r;
		} else {
			return -EOPNOTSUPP; /* a bind or a symlink: bubblewrap's */
		}
		h = hash_u64(hash_u64(hash_str(h, mb.rel), (uint64_t)mb.kind), mb.mode);
		if ((r = push_with_parents(ms, mb)) < 0)
			return r == -ENOMEM ? r : -EOPNOTSUPP;
	}
	*key = h;
	return ms->n ? 0 : -ENOENT;
}

static char *cache_root(const struct asb_host *host, struct asb_ctx *ctx)
{
	return state_sibling(host->policy_string(ctx, "session_dir"), "bwrap", "copies");
}

static char *cache_path(const char *root, const char *dir, uint64_t key)
{
	/* "/etc" → "etc-<key>": one path component. */
	char name[64];
	size_t i = 0;
	for (const char *s = dir + 1; *s && i < 40; s++)
		name[i++] = *s == '/' ? '_' : *s;
	name[i] = '\0';
	return str_printf("%s/%s-%016llx", root, name, (unsigned long long)key);
}

/* Exactly the members, each of its type, mode and size, in a directory of
 * this user's that nobody else can write. 0, or -ESTALE. */
static int verify(int dfd, const struct members *ms)
{
	uid_t uid = geteuid();
	struct stat st;
	if (fstat(dfd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != uid || (st.st_mode & 07777) != 0755)
		return -ESTALE;
	size_t at_top = 0;
	for (size_t i = 0; i < ms->n; i++) {
		const struct member *mb = &ms->v[i];
		if (fstatat(dfd, mb->rel, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != uid ||
		    (st.st_mode & 07777) != mb->mode ||
		    (mb->kind == M_DIR ? !S_ISDIR(st.st_mode)
		                       : !S_ISREG(st.st_mode) || (uint64_t)st.st_size != mb->size))
			return -ESTALE;
		at_top += !mb->parent;
	}
	/* Nothing else: each directory holding members lists as many entries
	 * as it holds members (all of which were just found in it). */
	for (size_t i = 0; i <= ms->n; i++) {
		const char *holder = i < ms->n ? ms->v[i].rel : NULL;
		size_t want = 0;
		if (holder) {
			for (size_t j = 0; j < ms->n; j++)
				want += ms->v[j].parent == holder;
			if (!want)
				continue; /* a mount point: covered by init's bind */
		} else {
			want = at_top;
		}
		int fd = holder
		             ? openat(dfd, holder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		             : fcntl(dfd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		DIR *dh = fdopendir(fd);
		if (!dh) {
			int e = errno;
			close(fd);
			return -e;
		}
		size_t seen = 0;
		for (struct dirent *de; (de = readdir(dh));)
			seen += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
		closedir(dh);
		if (seen != want)
			return -ESTALE;
	}
	return 0;
}

static int write_chunk(void *arg, const void *buf, size_t n)
{
	return write_all(*(int *)arg, buf, n);
}

static int copy_into(int dfd, const struct member *mb)
{
	_cleanup_close_ int fd =
	    openat(dfd, mb->rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int64_t len = each_chunk(mb->src, write_chunk, &fd);
	if (len < 0)
		return (int)len;
	/* Changed while it was read: its record no longer says what it is. */
	if ((uint64_t)len != mb->size)
		return -EAGAIN;
	return fchmod(fd, mb->mode) < 0 ? -errno : 0;
}

/* Made beside its final name, then renamed into place: a reader sees the
 * whole directory or none (a concurrent launch may win the rename). */
static int create(const char *root, const char *path, const struct members *ms)
{
	_cleanup_free_ char *tmp = str_printf("%s/.tmp-XXXXXX", root);
	if (!tmp)
		return -ENOMEM;
	if (!mkdtemp(tmp))
		return -errno;
	_cleanup_close_ int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r = dfd < 0 ? -errno : 0;
	for (size_t i = 0; r >= 0 && i < ms->n; i++) {
		const struct member *mb = &ms->v[i];
		if (mb->kind == M_FILE)
			r = copy_into(dfd, mb);
		else if (mkdirat(dfd, mb->rel, 0700) < 0 || fchmodat(dfd, mb->rel, mb->mode, 0) < 0)
			r = -errno;
	}
	if (r >= 0 && fchmod(dfd, 0755) < 0)
		r = -errno;
	if (r >= 0 && rename(tmp, path) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		r = -errno;
	(void)rm_rf(tmp); /* gone after a rename; what is left after a failure */
	return r;
}

struct aged {
	char *name;
	struct timespec mtime;
};

static int cmp_aged(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : x->mtime.tv_nsec > y->mtime.tv_nsec;
}

/* Beyond CACHE_KEEP, the oldest that no session holds: renamed away under
 * an exclusive lock (a launch that opened it first finds it wrong), then
 * removed. Best effort. */
static void prune(const char *root)
{
	_cleanup_closedir_ DIR *d = opendir(root);
	if (!d)
		return;
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	time_t now = time(NULL);
	for (struct dirent *de; (de = readdir(d));) {
		struct stat st;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (de->d_name[0] == '.') {
			/* What a launch that died while making or pruning one left. */
			_cleanup_free_ char *left = str_printf("%s/%s", root, de->d_name);
			if (left && st.st_mtim.tv_sec < now - 3600)
				(void)rm_rf(left);
			continue;
		}
		if (n == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct aged *nv = realloc(v, c * sizeof(*nv));
			if (!nv)
				break;
			v = nv;
			cap = c;
		}
		if (!(v[n].name = strdup(de->d_name)))
			break;
		v[n++].mtime = st.st_mtim;
	}
	if (n > CACHE_KEEP)
		qsort(v, n, sizeof(*v), cmp_aged);
	for (size_t i = 0; n > CACHE_KEEP && i < n - CACHE_KEEP; i++) {
		_cleanup_close_ int fd =
		    openat(dirfd(d), v[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue;
		_cleanup_free_ char *from = str_printf("%s/%s", root, v[i].name);
		_cleanup_free_ char *to = str_printf("%s/.gone-%s", root, v[i].name);
		if (from && to && rename(from, to) == 0)
			(void)rm_rf(to);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* copy_dirs[d] as its kept copy: found or made, locked shared, checked. */
static int open_one(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                    const struct init_mounts *m, size_t d, int *fd_out)
{
	struct members ms = {0};
	uint64_t key = 0;
	int r = gather(host, ctx, b, m, d, &ms, &key);
	_cleanup_free_ char *root = r >= 0 ? cache_root(host, ctx) : NULL;
	_cleanup_free_ char *path = root ? cache_path(root, b->copy_dirs[d], key) : NULL;
	if (r >= 0 && !path)
		r = -ENOMEM;
	if (r >= 0 && mkdir(root, 0700) < 0 && errno != EEXIST)
		r = -errno;
	bool made = false;
	int fd = -1;
	if (r >= 0) {
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			if ((r = create(root, path, &ms)) >= 0) {
				made = true;
				fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			}
		}
		if (r >= 0 && fd < 0)
			r = -errno;
	}
	/* Shared before the check: pruning (exclusive) cannot empty it after. */
	if (r >= 0 && flock(fd, LOCK_SH) < 0)
		r = -errno;
	if (r >= 0)
		r = verify(fd, &ms);
	members_free(&ms);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (made)
		prune(root);
	*fd_out = fd;
	return 0;
}

int bwrap_copy_cache_open(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b,
                          const struct init_mounts *m)
{
	for (size_t d = 0; d < b->n_copy_dirs; d++) {
		int fd = -1;
		int r = open_one(host, ctx, b, m, d, &fd);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			if (r != -EAGAIN && r != -EOPNOTSUPP && r != -ENOENT)
				host->log(ctx, ASB_LOG_INFO, "%s: one copy op per file (%s)",
				          b->copy_dirs[d], strerror(-r));
			continue;
		}
		b->cache_fd[d] = fd;
		/* What it holds is read: the host files' fds are no longer needed. */
		for (size_t i = 0; i < b->n_copies; i++)
			if (b->copies[i].fd >= 0 && b->copies[i].dir == (int)d) {
				close(b->copies[i].fd);
				b->copies[i].fd = -1;
			}
	}
	return 0;
}

int bwrap_copy_cache_find(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b,
                          const struct init_mounts *m)
{
	for (size_t d = 0; d < b->n_copy_dirs; d++) {
		struct members ms = {0};
		uint64_t key = 0;
		int r = gather(host, ctx, b, m, d, &ms, &key);
		members_free(&ms);
		if (r == -ENOMEM)
			return r;
		_cleanup_free_ char *root = r >= 0 ? cache_root(host, ctx) : NULL;
		char *path = root ? cache_path(root, b->copy_dirs[d], key) : NULL;
		struct stat st;
		if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			b->cache_path[d] = path;
		else
			free(path);
	}
	return 0;
}
