/* SPDX-License-Identifier: MIT */
/*
 * Which repositories the sandbox sees, and which of their paths the host would
 * later execute or trust: those are bound read-only (or masked when missing).
 *
 * Two facts shape the mount list:
 *  - a mount follows its dentry, so renaming a parent directory carries the
 *    protection away and lets the agent build a fresh one in its place. Every
 *    directory between the workspace and a protected path is therefore bound
 *    over itself: a mount point cannot be renamed or removed (EBUSY);
 *  - mounts apply in order, so parents come before children (sorted paths).
 */
#include "repo_scan.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

#include "name_fold.h"
#include "util.h"

/* Directories scanned only after everything else (they rarely hold repos). */
static const char *const heavy_dirs[] = {
    "node_modules", "target", "dist",    "build",   ".venv",       "venv", "__pycache__",
    ".cache",       ".tox",   ".gradle", ".direnv", ".mypy_cache", NULL,
};

struct qitem {
	char *path;
	unsigned depth;
};

struct queue {
	struct qitem *items;
	size_t head, n, cap;
};

struct scan {
	const struct rs_options *opt;
	struct rs_result *r;
	const char *ws;
	unsigned n_gitdirs_counted;
	bool stop;
	/* nlink_exact()'s answer for the last file system it was asked about */
	dev_t nlink_dev;
	bool nlink_known, nlink_trusted;
};

static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p = reallocarray(*arr, ncap, elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* dirname() that never modifies its input and maps "/x" to "/". */
static char *path_parent(const char *p)
{
	const char *slash = strrchr(p, '/');
	if (!slash)
		return NULL;
	if (slash == p)
		return strdup("/");
	return strndup(p, (size_t)(slash - p));
}

/* 'd' directory, 'f' regular file, 'l' symlink, 'o' other, 0 missing, or -errno. */
static int path_kind(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return 'd';
	if (S_ISREG(st.st_mode))
		return 'f';
	if (S_ISLNK(st.st_mode))
		return 'l';
	return 'o';
}

static int add_mount(struct scan *s, int op, const char *path, int placeholder, const char *why)
{
	struct rs_result *r = s->r;
	if (s->opt->audit)
		return 0;
	int ret = grow(&r->mounts, &r->cap_mounts, r->n_mounts, sizeof(*r->mounts));
	if (ret < 0)
		return ret;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	r->mounts[r->n_mounts++] =
	    (struct rs_mount){.op = op, .placeholder = placeholder, .path = copy, .why = why};
	return 0;
}

static int refuse(struct scan *s, const char *path, int err)
{
	if (s->opt->audit)
		return 0;
	free(s->r->error_path);
	s->r->error_path = strdup(path);
	return err;
}

/* Read a small pointer file ("gitdir: X", a commondir) without its newline. */
static int read_small(const char *path, char **out)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -errno;
	char buf[PATH_MAX + 16];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof(buf) - 1)
			return -EFBIG;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	if (memchr(buf, '\0', len))
		return -EINVAL;
	char *copy = strdup(buf);
	if (!copy)
		return -ENOMEM;
	*out = copy;
	return 0;
}

/* Resolve `target` (absolute, or relative to `base`) to a real directory. */
static int resolve_dir(const char *base, const char *target, char **out)
{
	_cleanup_free_ char *joined = target[0] == '/' ? strdup(target) : path_join(base, target);
	if (!joined)
		return -ENOMEM;
	char *real = path_real(joined, NULL);
	if (!real)
		return -errno;
	struct stat st;
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return -ENOTDIR;
	}
	*out = real;
	return 0;
}

/* The directory a git dir's `commondir` file names, or NULL when it has none. */
static int read_commondir(const char *gitdir, char **out)
{
	_cleanup_free_ char *file = path_join(gitdir, "commondir");
	_cleanup_free_ char *content = NULL;
	if (!file)
		return -ENOMEM;
	int ret = read_small(file, &content);
	if (ret == -ENOENT) {
		*out = NULL;
		return 0;
	}
	if (ret < 0)
		return ret;
	return resolve_dir(gitdir, content, out);
}

/* A path the host trusts: bound read-only, or masked when it does not exist. */
/* Can this user create an entry in `dir`? When not (a root-owned git dir,
 * a read-only file system), nothing inside can either, and a mask there
 * would make the backend fail creating its mount point: none is needed. */
static bool creatable_in(const char *dir)
{
	return access(dir, W_OK) == 0 || (errno != EACCES && errno != EROFS && errno != EPERM);
}

/* `path` (in `dir`), of kind k (path_kind's); `missing`: the mask for a
 * path that does not exist (RS_MASK_*). */
static int protect_kind(struct scan *s, const char *dir, const char *path, int k, int missing,
                        const char *why)
{
	if (k < 0)
		return refuse(s, path, k);
	if (k == 0 && !creatable_in(dir))
		return 0;
	if (k == 0)
		return add_mount(s, missing, path, 1, why);
	if (k == 'l')
		return refuse(s, path, -ELOOP); /* a mount cannot pin a symlink */
	return add_mount(s, RS_BIND_RO, path, 0, why);
}

static int protect_path(struct scan *s, const char *dir, const char *name, int missing,
                        const char *why)
{
	_cleanup_free_ char *path = path_join(dir, name);
	if (!path)
		return -ENOMEM;
	return protect_kind(s, dir, path, path_kind(path), missing, why);
}

/* A directory (of kind k, path_kind's) bound over itself: writable, but no
 * longer renamable. */
static int pin_kind(struct scan *s, const char *path, int k, const char *why)
{
	if (k < 0)
		return refuse(s, path, k);
	if (k == 0)
		return 0;
	if (k != 'd')
		return refuse(s, path, k == 'l' ? -ELOOP : -ENOTDIR);
	return add_mount(s, RS_BIND_RW, path, 0, why);
}

static int pin_dir(struct scan *s, const char *path, const char *why)
{
	return pin_kind(s, path, path_kind(path), why);
}

/* `rel` = "a/b/file" below `dir`: intermediate directories are pinned; from
 * the first missing one on, a writable tmpfs holds the masked file, so the
 * only trace on the host is that one empty directory. */
static int protect_nested(struct scan *s, const char *dir, const char *rel, int missing,
                          const char *why)
{
	_cleanup_free_ char *cur = strdup(dir);
	if (!cur)
		return -ENOMEM;
	const char *p = rel;
	for (const char *slash; (slash = strchr(p, '/')); p = slash + 1) {
		_cleanup_free_ char *comp = strndup(p, (size_t)(slash - p));
		_cleanup_free_ char *next = comp ? path_join(cur, comp) : NULL;
		if (!next)
			return -ENOMEM;
		int k = path_kind(next);
		if (k < 0)
			return refuse(s, next, k);
		if (k == 0 && !creatable_in(cur))
			return 0;
		if (k == 0) {
			_cleanup_free_ char *full = path_join(dir, rel);
			if (!full)
				return -ENOMEM;
			int ret = add_mount(s, RS_TMPFS, next, 1, "holds a masked path");
			return ret < 0 ? ret : add_mount(s, missing, full, 0, why);
		}
		if (k == 'l')
			return refuse(s, next, -ELOOP);
		if (k != 'd') /* git cannot use it either; keep it as it is */
			return add_mount(s, RS_BIND_RO, next, 0, why);
		int ret = pin_kind(s, next, k, "pinned");
		if (ret < 0)
			return ret;
		free(cur);
		cur = TAKE_PTR(next);
	}
	return protect_path(s, cur, p, missing, why);
}

long rs_find_gitdir(const struct rs_result *r, const char *path)
{
	for (size_t i = 0; i < r->n_gitdirs; i++)
		if (strcmp(r->gitdirs[i].path, path) == 0)
			return (long)i;
	return -1;
}

static int add_gitdir(struct scan *s, const char *path, bool worktree_admin);

/* Open a directory of the git dir to walk it, and pin it (a mount point
 * cannot be renamed away). A missing one is no error: *out stays NULL. */
static int open_pinned(struct scan *s, const char *dir, DIR **out)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d)
		return -errno;
	fd = -1;
	int ret = pin_dir(s, dir, "pinned");
	if (ret < 0) {
		closedir(d);
		return ret;
	}
	*out = d;
	return 0;
}

/* modules/<name>/ (names may contain '/'): every directory with a HEAD is a
 * submodule's full git dir. */
static int scan_modules(struct scan *s, const char *dir, unsigned depth)
{
	if (depth > 8)
		return 0;
	_cleanup_closedir_ DIR *d = NULL;
	int ret = open_pinned(s, dir, &d);
	if (ret < 0 || !d)
		return ret;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		_cleanup_free_ char *sub = path_join(dir, de->d_name);
		_cleanup_free_ char *head = sub ? path_join(sub, "HEAD") : NULL;
		if (!head)
			return -ENOMEM;
		if (path_kind(sub) != 'd')
			continue;
		ret = path_kind(head) == 'f' ? add_gitdir(s, sub, false)
		                             : scan_modules(s, sub, depth + 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int scan_worktrees(struct scan *s, const char *dir)
{
	_cleanup_closedir_ DIR *d = NULL;
	int ret = open_pinned(s, dir, &d);
	if (ret < 0 || !d)
		return ret;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *sub = path_join(dir, de->d_name);
		if (!sub)
			return -ENOMEM;
		if (path_kind(sub) != 'd')
			continue;
		ret = add_gitdir(s, sub, true);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Protect one git dir: a full one (main .git, bare repo, modules/<name>) or
 * a linked worktree's administrative directory (worktrees/<name>). */
static int add_gitdir(struct scan *s, const char *path, bool worktree_admin)
{
	struct rs_result *r = s->r;
	if (rs_find_gitdir(r, path) >= 0)
		return 0;
	if (!worktree_admin) {
		if (s->n_gitdirs_counted >= s->opt->limits.max_repos) {
			r->limits_hit |= RS_LIMIT_REPOS;
			s->stop = true;
			return 0;
		}
		s->n_gitdirs_counted++;
	}
	int ret = grow(&r->gitdirs, &r->cap_gitdirs, r->n_gitdirs, sizeof(*r->gitdirs));
	if (ret < 0)
		return ret;
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_free_ char *cd = path_join(path, "commondir");
	_cleanup_free_ char *cw = path_join(path, "config.worktree");
	if (!copy || !cd || !cw)
		return -ENOMEM;
	int cw_kind = path_kind(cw);
	r->gitdirs[r->n_gitdirs++] = (struct rs_gitdir){
	    .path = TAKE_PTR(copy),
	    .worktree_admin = worktree_admin,
	    .had_commondir = path_kind(cd) > 0,
	    .had_worktree_config = cw_kind > 0,
	};
	if (s->opt->audit)
		goto children;

	ret = pin_dir(s, path, worktree_admin ? "worktree git dir" : "git dir");
	if (ret < 0)
		return ret;
	if (worktree_admin) {
		if ((ret = protect_path(s, path, "gitdir", RS_MASK_FILE, "worktree pointer")) < 0 ||
		    (ret = protect_path(s, path, "commondir", RS_MASK_FILE, "worktree pointer")) <
		        0 ||
		    (ret = protect_kind(s, path, cw, cw_kind, RS_MASK_FILE, "config")) < 0)
			return ret;
	} else {
		if ((ret = protect_path(s, path, "hooks", RS_MASK_DIR, "hooks")) < 0 ||
		    (ret = protect_path(s, path, "config", RS_MASK_FILE, "config")) < 0 ||
		    (ret = protect_kind(s, path, cw, cw_kind, RS_MASK_FILE, "config")) < 0 ||
		    (ret = protect_nested(s, path, "info/attributes", RS_MASK_FILE, "attributes")) <
		        0 ||
		    (ret = protect_nested(s, path, "objects/info/alternates", RS_MASK_FILE,
		                          "alternates")) < 0)
			return ret;
		/* A missing commondir cannot be masked: git refuses to run with an
		 * empty one, and the host would see that placeholder. The
		 * post-exit audit removes one the agent created. */
		if (r->gitdirs[r->n_gitdirs - 1].had_commondir &&
		    (ret = protect_path(s, path, "commondir", RS_MASK_FILE, "commondir")) < 0)
			return ret;
	}
children:;
	_cleanup_free_ char *modules = path_join(path, "modules");
	if (!modules)
		return -ENOMEM;
	ret = scan_modules(s, modules, 0);
	if (ret < 0 || worktree_admin)
		return ret;
	_cleanup_free_ char *worktrees = path_join(path, "worktrees");
	if (!worktrees)
		return -ENOMEM;
	return scan_worktrees(s, worktrees);
}

static bool visible(struct scan *s, const char *path)
{
	return path_is_within(path, s->ws) ||
	       (s->r->tree_root && path_is_within(path, s->r->tree_root));
}

static int add_repo(struct scan *s, int kind, bool exposed, const char *worktree,
                    const char *gitdir, const char *commondir)
{
	struct rs_result *r = s->r;
	int ret = grow(&r->repos, &r->cap_repos, r->n_repos, sizeof(*r->repos));
	if (ret < 0)
		return ret;
	struct rs_repo repo = {.kind = kind, .exposed = exposed};
	repo.worktree = worktree ? strdup(worktree) : NULL;
	repo.gitdir = strdup(gitdir);
	repo.commondir = strdup(commondir ? commondir : gitdir);
	if ((worktree && !repo.worktree) || !repo.gitdir || !repo.commondir) {
		free(repo.worktree);
		free(repo.gitdir);
		free(repo.commondir);
		return -ENOMEM;
	}
	r->repos[r->n_repos++] = repo;
	return 0;
}

/* A working tree at `dir` (its .git exists). `own`: the workspace's own
 * repository, whose git dir is exposed even when it lives elsewhere. */
static int add_repo_at(struct scan *s, const char *dir, bool own)
{
	_cleanup_free_ char *dotgit = path_join(dir, ".git");
	if (!dotgit)
		return -ENOMEM;
	int k = path_kind(dotgit);
	if (k <= 0)
		return k;
	if (k == 'l') {
		/* git follows it; no mount can pin it: refused before, and after
		 * exit reported (the agent made it) for the quarantine. */
		if (s->opt->audit)
			return add_repo(s, RS_REPO_LINK, 0, dir, dotgit, NULL);
		return refuse(s, dotgit, -ELOOP);
	}
	if (k == 'd') {
		_cleanup_free_ char *common = NULL;
		int ret = read_commondir(dotgit, &common);
		if (ret < 0 && !s->opt->audit)
			return refuse(s, dotgit, ret);
		ret = add_gitdir(s, dotgit, false);
		if (ret >= 0 && common && visible(s, common))
			ret = add_gitdir(s, common, false);
		if (ret < 0 || s->stop)
			return ret;
		return add_repo(s, RS_REPO_DIR, 1, dir, dotgit, common);
	}
	if (k != 'f')
		return 0;

	/* A pointer file: a linked worktree or a submodule. */
	int ret = protect_path(s, dir, ".git", RS_MASK_FILE, "git dir pointer");
	if (ret < 0)
		return ret;
	_cleanup_free_ char *content = NULL, *gitdir = NULL, *common = NULL;
	ret = read_small(dotgit, &content);
	if (ret >= 0 && strncmp(content, "gitdir: ", 8) != 0)
		ret = -EINVAL;
	if (ret >= 0)
		ret = resolve_dir(dir, content + 8, &gitdir);
	if (ret >= 0)
		ret = read_commondir(gitdir, &common);
	if (ret < 0) /* broken pointer: git cannot use it; the file itself is pinned */
		return 0;
	int kind = common ? RS_REPO_WORKTREE : RS_REPO_SUBMODULE;
	const char *full = common ? common : gitdir;
	bool exposed = own || visible(s, full);
	if (exposed) {
		ret = add_gitdir(s, full, false);
		if (ret >= 0 && common)
			ret = add_gitdir(s, gitdir, true);
		if (ret < 0 || s->stop)
			return ret;
	}
	return add_repo(s, kind, exposed, dir, gitdir, common);
}

/* The working tree the workspace sits in, found the way git finds it. */
static int find_tree_root(const char *ws, char **out)
{
	_cleanup_free_ char *cur = strdup(ws);
	if (!cur)
		return -ENOMEM;
	while (strcmp(cur, "/") != 0) {
		char *parent = path_parent(cur);
		if (!parent)
			return -ENOMEM;
		free(cur);
		cur = parent;
		_cleanup_free_ char *dotgit = path_join(cur, ".git");
		if (!dotgit)
			return -ENOMEM;
		struct stat st;
		if (stat(dotgit, &st) == 0) {
			*out = TAKE_PTR(cur);
			return 1;
		}
	}
	return 0;
}

/* Exposing "/", a top-level directory, or anything holding $HOME would undo
 * the rest of the sandbox. */
static bool root_allowed(const char *root, const char *home)
{
	if (strcmp(root, "/") == 0 || strchr(root + 1, '/') == NULL)
		return false;
	return !(home && home[0] == '/' && path_is_within(home, root));
}

static int scan_enclosing(struct scan *s)
{
	struct rs_result *r = s->r;
	_cleanup_free_ char *own = path_join(s->ws, ".git");
	if (!own)
		return -ENOMEM;
	if (path_kind(own) != 0)
		return 0; /* the workspace is a working-tree root itself */
	_cleanup_free_ char *root = NULL;
	int ret = find_tree_root(s->ws, &root);
	if (ret <= 0)
		return ret;
	if (!root_allowed(root, s->opt->home)) {
		r->skipped_root = TAKE_PTR(root);
		return 0;
	}
	r->tree_root = TAKE_PTR(root);
	if (!s->opt->audit) {
		if ((ret = add_mount(s, RS_BIND_RO, r->tree_root, 0, "working-tree root")) < 0 ||
		    (ret = add_mount(s, RS_BIND_RW, s->ws, 0, "workspace")) < 0)
			return ret;
		for (const char *const *p = s->opt->rw_paths; p && *p; p++) {
			if ((path_is_within(*p, r->tree_root) && strcmp(*p, r->tree_root) != 0) &&
			    !path_is_within(*p, s->ws) && path_kind(*p) > 0 &&
			    (ret = add_mount(s, RS_BIND_RW, *p, 0, "declared")) < 0)
				return ret;
		}
	}
	return add_repo_at(s, r->tree_root, true);
}

static int queue_push(struct queue *q, char *path, unsigned depth)
{
	int ret = grow(&q->items, &q->cap, q->n, sizeof(*q->items));
	if (ret < 0) {
		free(path);
		return ret;
	}
	q->items[q->n++] = (struct qitem){.path = path, .depth = depth};
	return 0;
}

static void queue_free(struct queue *q)
{
	for (size_t i = q->head; i < q->n; i++)
		free(q->items[i].path);
	free(q->items);
	*q = (struct queue){0};
}

static bool is_heavy(const char *name)
{
	for (const char *const *h = heavy_dirs; *h; h++)
		if (strcmp(name, *h) == 0)
			return true;
	return false;
}

/* Does a directory's link count say whether it has subdirectories (2: none)?
 * On ext2/3/4, xfs and tmpfs it does; btrfs and overlayfs report 1, and
 * elsewhere we do not know, so there every directory is read. */
static bool nlink_exact(struct scan *s, int dfd, const char *dir, dev_t dev)
{
#ifdef __linux__
	if (s->nlink_known && s->nlink_dev == dev)
		return s->nlink_trusted;
	/* The directory open, else (its listing kept) by path. */
	struct statfs fs;
	s->nlink_trusted = (dfd >= 0 ? fstatfs(dfd, &fs) : statfs(dir, &fs)) == 0 &&
	                   (fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == XFS_SUPER_MAGIC ||
	                    fs.f_type == TMPFS_MAGIC);
	s->nlink_dev = dev;
	s->nlink_known = true;
	return s->nlink_trusted;
#else
	(void)s, (void)dfd, (void)dir, (void)dev;
	return false;
#endif
}

/* A subdirectory with no subdirectory of its own can be neither a bare git
 * dir (objects/, refs/) nor hold one: only a .git entry in it matters, and
 * two stats say there is none, where reading it takes five system calls. */
static bool plain_leaf(struct scan *s, int dfd, const char *dir, const struct stat *parent,
                       const char *name)
{
	if (!nlink_exact(s, dfd, dir, parent->st_dev))
		return false;
	/* Relative to the directory when it was opened, else by path. */
	_cleanup_free_ char *sub = dfd < 0 ? path_join(dir, name) : NULL;
	if (dfd < 0 && !sub)
		return false;
	int at = dfd < 0 ? AT_FDCWD : dfd;
	const char *rel = dfd < 0 ? sub : name;
	struct stat st, git;
	if (fstatat(at, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_dev != parent->st_dev || st.st_nlink != 2)
		return false;
	/* Unchanged since a check found none (a .git made would change it). */
	if (dirlist_known_absent(s->opt->dirs, dfd, &st, ".git"))
		return true;
	_cleanup_free_ char *dotgit = path_join(rel, ".git");
	if (!dotgit || fstatat(at, dotgit, &git, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return false;
	dirlist_note_absent(s->opt->dirs, dfd, &st, ".git");
	return true;
}

/* Read one directory: note a .git or a bare git dir, queue subdirectories. */
static int scan_one(struct scan *s, const char *path, unsigned depth, struct queue *q,
                    struct queue *later)
{
	/* Unchanged since its listing was kept: that listing, without opening
	 * it (two system calls fewer a directory). */
	struct dirlist l;
	struct stat self;
	_cleanup_close_ int dfd = -1;
	int ret = 0;
	if (lstat(path, &self) < 0 || !dirlist_kept(s->opt->dirs, &self, &l)) {
		dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (dfd < 0)
			return 0; /* unreadable: the agent cannot read it either */
		if ((ret = dirlist_read(s->opt->dirs, dfd, &l, NULL, &self)) < 0)
			return ret;
	}
	s->r->dirs_scanned++;

	bool has_git = false, has_head = false, has_objects = false, has_refs = false;
	struct queue subs = {0};
	for (size_t i = 0; i < l.n; i++) {
		const char *n = dirlist_name(&l, i);
		unsigned char t = l.types[i];
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		/* As git finds them: on a case-insensitive file system ".GIT"
		 * is the .git it opens (name_fold.h). */
		if (name_resolves_to(dfd, path, n, ".git")) {
			has_git = true;
			continue;
		}
		if (t == DT_REG && name_resolves_to(dfd, path, n, "HEAD"))
			has_head = true;
		if (t != DT_DIR)
			continue;
		if (name_resolves_to(dfd, path, n, "objects"))
			has_objects = true;
		else if (name_resolves_to(dfd, path, n, "refs"))
			has_refs = true;
		char *sub = strdup(n);
		if (!sub || (ret = queue_push(&subs, sub, 0)) < 0) {
			ret = ret < 0 ? ret : -ENOMEM;
			goto out;
		}
	}
	if (has_head && has_objects && has_refs && !has_git) {
		/* A git dir in the working area (bare repo): the host pushes to it
		 * and runs its hooks. Its insides are not a working tree. */
		ret = add_gitdir(s, path, false);
		if (ret >= 0 && !s->stop)
			ret = add_repo(s, RS_REPO_BARE, 1, NULL, path, NULL);
		goto out;
	}
	if (has_git && (ret = add_repo_at(s, path, depth == 0)) < 0)
		goto out;
	for (size_t i = 0; i < subs.n && !s->stop; i++) {
		if (depth + 1 > s->opt->limits.max_depth) {
			s->r->limits_hit |= RS_LIMIT_DEPTH;
			break;
		}
		if (s->r->dirs_scanned < s->opt->limits.max_dirs &&
		    plain_leaf(s, dfd, path, &self, subs.items[i].path)) {
			s->r->dirs_scanned++;
			continue;
		}
		char *full = path_join(path, subs.items[i].path);
		if (!full) {
			ret = -ENOMEM;
			goto out;
		}
		ret = queue_push(is_heavy(subs.items[i].path) ? later : q, full, depth + 1);
		if (ret < 0)
			goto out;
	}
out:
	queue_free(&subs);
	dirlist_release(&l);
	return ret;
}

/* Breadth first, heavy directories last: shallow repositories are found
 * before a deep dependency tree can use up the budget. */
static int scan_workspace(struct scan *s)
{
	struct queue q = {0}, later = {0};
	char *root = strdup(s->ws);
	int ret = root ? queue_push(&q, root, 0) : -ENOMEM;
	while (ret >= 0 && !s->stop) {
		struct queue *cur = q.head < q.n ? &q : later.head < later.n ? &later : NULL;
		if (!cur)
			break;
		if (s->r->dirs_scanned >= s->opt->limits.max_dirs) {
			s->r->limits_hit |= RS_LIMIT_DIRS;
			break;
		}
		struct qitem it = cur->items[cur->head++];
		ret = scan_one(s, it.path, it.depth, &q, &later);
		free(it.path);
	}
	queue_free(&q);
	queue_free(&later);
	return ret;
}

/* Every directory between the workspace and a mount inside it is pinned. */
static int pin_ancestors(struct scan *s)
{
	size_t n = s->r->n_mounts;
	for (size_t i = 0; i < n; i++) {
		const struct rs_mount *m = &s->r->mounts[i];
		if (m->op == RS_MASK_FILE && !m->placeholder)
			continue; /* inside a tmpfs of ours */
		if (!(path_is_within(m->path, s->ws) && strcmp(m->path, s->ws) != 0))
			continue;
		_cleanup_free_ char *p = path_parent(m->path);
		while (p && (path_is_within(p, s->ws) && strcmp(p, s->ws) != 0)) {
			int ret = add_mount(s, RS_BIND_RW, p, 0, "pinned");
			if (ret < 0)
				return ret;
			char *up = path_parent(p);
			free(p);
			p = up;
		}
	}
	return 0;
}

static int op_rank(int op)
{
	return op == RS_BIND_RW ? 2 : op == RS_TMPFS ? 1 : 0;
}

static int mount_cmp(const void *a, const void *b)
{
	const struct rs_mount *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : op_rank(x->op) - op_rank(y->op);
}

/* Parents before children; one mount per path, the strictest. */
static void sort_mounts(struct rs_result *r)
{
	if (r->n_mounts == 0)
		return;
	if (r->n_mounts > 1)
		qsort(r->mounts, r->n_mounts, sizeof(*r->mounts), mount_cmp);
	size_t w = 0;
	for (size_t i = 0; i < r->n_mounts; i++) {
		if (w > 0 && strcmp(r->mounts[w - 1].path, r->mounts[i].path) == 0) {
			free(r->mounts[i].path);
			continue;
		}
		r->mounts[w++] = r->mounts[i];
	}
	r->n_mounts = w;
}

void rs_result_free(struct rs_result *r)
{
	for (size_t i = 0; i < r->n_mounts; i++)
		free(r->mounts[i].path);
	for (size_t i = 0; i < r->n_repos; i++) {
		free(r->repos[i].worktree);
		free(r->repos[i].gitdir);
		free(r->repos[i].commondir);
	}
	for (size_t i = 0; i < r->n_gitdirs; i++)
		free(r->gitdirs[i].path);
	free(r->mounts);
	free(r->repos);
	free(r->gitdirs);
	free(r->tree_root);
	free(r->skipped_root);
	free(r->error_path);
	*r = (struct rs_result){0};
}

int rs_scan(const struct rs_options *opt, struct rs_result *out)
{
	*out = (struct rs_result){0};
	if (!opt->workspace || opt->workspace[0] != '/')
		return -EINVAL;
	_cleanup_free_ char *ws = strdup(opt->workspace);
	if (!ws)
		return -ENOMEM;
	for (size_t n = strlen(ws); n > 1 && ws[n - 1] == '/'; n--)
		ws[n - 1] = '\0';
	struct scan s = {.opt = opt, .r = out, .ws = ws};
	int ret = scan_enclosing(&s);
	if (ret >= 0 && !s.stop)
		ret = scan_workspace(&s);
	if (ret >= 0 && !opt->audit)
		ret = pin_ancestors(&s);
	if (ret < 0) {
		char *err = TAKE_PTR(out->error_path);
		rs_result_free(out);
		out->error_path = err;
		return ret;
	}
	sort_mounts(out);
	return 0;
}

const char *rs_op_name(int op)
{
	switch (op) {
	case RS_BIND_RO:
		return "ro-bind";
	case RS_BIND_RW:
		return "bind";
	case RS_MASK_FILE:
		return "mask-file";
	case RS_MASK_DIR:
		return "mask-dir";
	case RS_TMPFS:
		return "tmpfs";
	}
	return "?";
}

const char *rs_kind_name(int kind)
{
	switch (kind) {
	case RS_REPO_DIR:
		return "repository";
	case RS_REPO_WORKTREE:
		return "worktree";
	case RS_REPO_SUBMODULE:
		return "submodule";
	case RS_REPO_BARE:
		return "bare repository";
	case RS_REPO_LINK:
		return "symlinked .git";
	}
	return "?";
}
