/* SPDX-License-Identifier: MIT */
/* agentsandbox-init --sandbox: the sandbox made by init itself, without
 * bubblewrap (the bwrap backend's builder = init). It reads the options of
 * bubblewrap's that the backend renders (bwrap_args.c), with bubblewrap's
 * meaning, and makes what bubblewrap would:
 *
 *   this process (the monitor) reports the sandbox's pid 1 on --info-fd
 *   and exits with its status; pid 1, in new user, mount, pid, ipc, uts,
 *   cgroup and network namespaces, makes the root (a tmpfs, the host's root
 *   reached only to take the sources from), then, on a second user
 *   namespace where bubblewrap makes one, forks the sandbox's first
 *   process and reaps until it ends. That process waits on --block-fd and
 *   runs init's own main (no exec: init is this program) or execs the
 *   command.
 *
 * What differs, on purpose: binds are made with the mount API (a recursive
 * read-only bind is one mount_setattr, where bubblewrap re-reads the mount
 * table per mount below it); a source path is resolved under the host's
 * root as the launcher saw it (RESOLVE_IN_ROOT), a --bind-fd by its fd's
 * path and then checked to be that very object, and a destination under
 * the new root, whatever its symlinks say; pid 1 ends with the first
 * process, which ends the rest (bubblewrap's monitor does the same), and
 * is no stronger than it: no capability, no_new_privs, not dumpable.
 *
 * Every failure is fatal, reported on stderr, exit status 1. */
#include "sandbox.h"

#include "../loopback.h"
#include "init.h"
#include "mount_api.h"
#include "mounts.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pivot_root
#define SYS_pivot_root 155
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#define RESOLVE_NO_MAGICLINKS_ 0x02ull
#define RESOLVE_IN_ROOT_       0x10ull

#define SETENV_MAX 8

enum kind {
	K_BIND,
	K_RO_BIND,
	K_DEV_BIND,
	K_TMPFS,
	K_DIR,
	K_SYMLINK,
	K_FILE,
	K_RO_BIND_DATA,
	K_PROC,
	K_DEV,
	K_REMOUNT_RO,
};

struct op {
	enum kind kind;
	const char *src;  /* binds: the host path; symlinks: the target */
	const char *dest; /* inside */
	int fd;           /* --*-bind-fd: the object checked; --file, --ro-bind-data: data */
	int mode;         /* --perms, or -1 */
	bool try_;
};

struct sandbox {
	unsigned long clone_flags;
	bool cgroup_try, die_with_parent, disable_userns;
	uint64_t caps_kept; /* --cap-add's; everything else goes */
	const char *chdir;
	int info_fd, block_fd;
	struct op *ops;
	size_t n_ops;
	const char *setenv[2 * SETENV_MAX]; /* name, value pairs */
	size_t n_setenv;
	char **cmd;
	int cmd_argc;
	char tty[PATH_MAX]; /* stdout's terminal, bound as /dev/console */
	uid_t uid;
	gid_t gid;
	/* pid 1's, while it sets up */
	int proc;    /* the host's /proc: the maps, the user namespace limit */
	int oldroot; /* the host's root, where sources are resolved */
	int newroot; /* the sandbox's root, where destinations are */
	unsigned n_data;
	mode_t parent_mode; /* of the directories made on the way to a dest */
};

static const char *self = "agentsandbox-init";

static int fail(const char *what, const char *path, int err)
{
	fprintf(stderr, "%s: %s%s%s: %s\n", self, what, path ? " " : "", path ? path : "",
	        strerror(err));
	return -err;
}

/* As fail(), for a process's exit status. */
static int fail_status(const char *what, const char *path, int err)
{
	(void)fail(what, path, err);
	return 1;
}

static int number(const char *s, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int fd_arg(const char *s, int *out)
{
	long v;
	if (number(s, INT_MAX, &v) < 0 || v < 3 || fcntl((int)v, F_GETFD) < 0)
		return -EBADF;
	*out = (int)v;
	return 0;
}

static const struct {
	const char *name;
	int cap;
} cap_names[] = {
    {"CAP_SYS_ADMIN", CAP_SYS_ADMIN},
    {"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE},
    {"CAP_SETPCAP", CAP_SETPCAP},
};

/* The option `opt` with `n` operands at argv[*i + 1...]. */
static int operands(int argc, char **argv, int *i, int n)
{
	if (*i + n >= argc) {
		fprintf(stderr, "%s: %s needs %d operand%s\n", self, argv[*i], n, n > 1 ? "s" : "");
		return -EINVAL;
	}
	return 0;
}

/* What --perms may come before: an op that makes a file or directory. */
static bool takes_perms(enum kind kind)
{
	return kind == K_DIR || kind == K_TMPFS || kind == K_FILE || kind == K_RO_BIND_DATA;
}

/* A new op, with the pending --perms when it takes them (else they stay
 * pending, which parse() refuses as bubblewrap does). */
static struct op *add_op(struct sandbox *sb, enum kind kind, int *perms)
{
	struct op *n = realloc(sb->ops, (sb->n_ops + 1) * sizeof(*n));
	if (!n)
		return NULL;
	sb->ops = n;
	struct op *op = &n[sb->n_ops++];
	*op = (struct op){.kind = kind, .fd = -1, .mode = -1};
	if (takes_perms(kind)) {
		op->mode = *perms;
		*perms = -1;
	}
	return op;
}

/* The path of the object behind fd, as this process (the host's root)
 * sees it: bound again from there, then checked to be that object. */
static int fd_path(int fd, const char **out)
{
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	/* Not a path (a pipe, a socket): nothing to bind. A deleted object
	 * reads "PATH (deleted)", which names nothing, or something else,
	 * which the check after opening it refuses. */
	if (target[0] != '/')
		return -ENOENT;
	char *copy = strdup(target);
	if (!copy)
		return -ENOMEM;
	*out = copy;
	return 0;
}

/* The namespace an --unshare-* option asks for (cgroup's is -try: made
 * where the kernel can), or 0. */
static long unshare_flag(const char *opt)
{
	static const struct {
		const char *name;
		long flag;
	} flags[] = {
	    {"--unshare-user", CLONE_NEWUSER}, {"--unshare-ipc", CLONE_NEWIPC},
	    {"--unshare-pid", CLONE_NEWPID},   {"--unshare-uts", CLONE_NEWUTS},
	    {"--unshare-net", CLONE_NEWNET},   {"--unshare-cgroup-try", CLONE_NEWCGROUP},
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(opt, flags[i].name) == 0)
			return flags[i].flag;
	return 0;
}

static int parse(struct sandbox *sb, int argc, char **argv)
{
	int perms = -1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		struct op *op = NULL;
		long v;
		int r;
		if (strcmp(a, "--") == 0) {
			if (perms >= 0) {
				fprintf(stderr, "%s: --perms before -- applies to nothing\n", self);
				return -EINVAL;
			}
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: --sandbox: no command after --\n", self);
				return -EINVAL;
			}
			sb->cmd = argv + i + 1;
			sb->cmd_argc = argc - i - 1;
			return 0;
		} else if ((v = unshare_flag(a)) != 0) {
			sb->clone_flags |= (unsigned long)v;
			sb->cgroup_try |= v == CLONE_NEWCGROUP;
		} else if (strcmp(a, "--die-with-parent") == 0) {
			sb->die_with_parent = true;
		} else if (strcmp(a, "--disable-userns") == 0) {
			sb->disable_userns = true;
		} else if (strcmp(a, "--cap-drop") == 0) {
			if ((r = operands(argc, argv, &i, 1)) < 0)
				return r;
			if (strcmp(argv[++i], "ALL") != 0) {
				fprintf(stderr, "%s: --cap-drop: only ALL is taken\n", self);
				return -EINVAL;
			}
			sb->caps_kept = 0;
		} else if (strcmp(a, "--cap-add") == 0) {
			if ((r = operands(argc, argv, &i, 1)) < 0)
				return r;
			const char *name = argv[++i];
			size_t k = 0;
			while (k < sizeof(cap_names) / sizeof(cap_names[0]) &&
			       strcmp(cap_names[k].name, name) != 0)
				k++;
			if (k == sizeof(cap_names) / sizeof(cap_names[0])) {
				fprintf(stderr, "%s: --cap-add %s: not one init's mounts need\n",
				        self, name);
				return -EINVAL;
			}
			sb->caps_kept |= 1ull << cap_names[k].cap;
		} else if (strcmp(a, "--perms") == 0) {
			if ((r = operands(argc, argv, &i, 1)) < 0)
				return r;
			char *end;
			errno = 0;
			v = strtol(argv[++i], &end, 8);
			if (errno || *end || end == argv[i] || v < 0 || v > 07777) {
				fprintf(stderr, "%s: --perms %s: not an octal mode\n", self,
				        argv[i]);
				return -EINVAL;
			}
			perms = (int)v;
		} else if (strcmp(a, "--chdir") == 0) {
			if ((r = operands(argc, argv, &i, 1)) < 0)
				return r;
			sb->chdir = argv[++i];
		} else if (strcmp(a, "--info-fd") == 0 || strcmp(a, "--block-fd") == 0) {
			if ((r = operands(argc, argv, &i, 1)) < 0)
				return r;
			int *fd = a[2] == 'i' ? &sb->info_fd : &sb->block_fd;
			if (*fd >= 0) {
				fprintf(stderr, "%s: %s given twice\n", self, a);
				return -EINVAL;
			}
			if (fd_arg(argv[++i], fd) < 0)
				return fail(a, argv[i], EBADF);
		} else if (strcmp(a, "--setenv") == 0) {
			if ((r = operands(argc, argv, &i, 2)) < 0)
				return r;
			if (sb->n_setenv == SETENV_MAX) {
				fprintf(stderr, "%s: --setenv: at most %d\n", self, SETENV_MAX);
				return -E2BIG;
			}
			sb->setenv[2 * sb->n_setenv] = argv[i + 1];
			sb->setenv[2 * sb->n_setenv++ + 1] = argv[i + 2];
			i += 2;
		} else if (strcmp(a, "--bind") == 0 || strcmp(a, "--bind-try") == 0 ||
		           strcmp(a, "--ro-bind") == 0 || strcmp(a, "--ro-bind-try") == 0 ||
		           strcmp(a, "--dev-bind") == 0 || strcmp(a, "--symlink") == 0) {
			if ((r = operands(argc, argv, &i, 2)) < 0)
				return r;
			enum kind k = strncmp(a, "--bind", 6) == 0      ? K_BIND
			              : strncmp(a, "--ro-bind", 9) == 0 ? K_RO_BIND
			              : strcmp(a, "--dev-bind") == 0    ? K_DEV_BIND
			                                                : K_SYMLINK;
			if (!(op = add_op(sb, k, &perms)))
				return -ENOMEM;
			op->try_ = strstr(a, "-try") != NULL;
			op->src = argv[i + 1];
			op->dest = argv[i + 2];
			i += 2;
		} else if (strcmp(a, "--bind-fd") == 0 || strcmp(a, "--ro-bind-fd") == 0 ||
		           strcmp(a, "--file") == 0 || strcmp(a, "--ro-bind-data") == 0) {
			if ((r = operands(argc, argv, &i, 2)) < 0)
				return r;
			enum kind k = strcmp(a, "--bind-fd") == 0      ? K_BIND
			              : strcmp(a, "--ro-bind-fd") == 0 ? K_RO_BIND
			              : strcmp(a, "--file") == 0       ? K_FILE
			                                               : K_RO_BIND_DATA;
			if (!(op = add_op(sb, k, &perms)))
				return -ENOMEM;
			if (fd_arg(argv[i + 1], &op->fd) < 0)
				return fail(a, argv[i + 1], EBADF);
			op->dest = argv[i + 2];
			if ((k == K_BIND || k == K_RO_BIND) && (r = fd_path(op->fd, &op->src)) < 0)
				return fail(a, argv[i + 1], -r);
			i += 2;
		} else if (strcmp(a, "--tmpfs") == 0 || strcmp(a, "--dir") == 0 ||
		           strcmp(a, "--proc") == 0 || strcmp(a, "--dev") == 0 ||
		           strcmp(a, "--remount-ro") == 0) {
			if ((r = operands(argc, argv, &i, 1)) < 0)
				return r;
			enum kind k = strcmp(a, "--tmpfs") == 0  ? K_TMPFS
			              : strcmp(a, "--proc") == 0 ? K_PROC
			              : strcmp(a, "--dir") == 0  ? K_DIR
			              : strcmp(a, "--dev") == 0  ? K_DEV
			                                         : K_REMOUNT_RO;
			if (!(op = add_op(sb, k, &perms)))
				return -ENOMEM;
			op->dest = argv[++i];
		} else {
			fprintf(stderr, "%s: --sandbox: unknown option %s\n", self, a);
			return -EINVAL;
		}
		if (perms >= 0 && strcmp(a, "--perms") != 0) {
			fprintf(stderr,
			        "%s: --perms must come before an option that makes a file "
			        "or directory, not %s\n",
			        self, a);
			return -EINVAL;
		}
		if (op && op->dest[0] != '/') {
			fprintf(stderr, "%s: %s %s: not an absolute path\n", self, a, op->dest);
			return -EINVAL;
		}
	}
	fprintf(stderr, "%s: --sandbox: no command (-- COMMAND...)\n", self);
	return -EINVAL;
}

static int write_at(int dirfd, const char *path, const char *text)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int e = errno;
	close(fd);
	return n == (ssize_t)len ? 0 : n < 0 ? -e : -EIO;
}

/* This process's user namespace maps `inside` to the one above's `outside`. */
static int map_ids(const struct sandbox *sb, uid_t uid_in, uid_t uid_out, gid_t gid_in,
                   gid_t gid_out, bool deny_groups)
{
	char line[64];
	int r = 0;
	if (deny_groups && (r = write_at(sb->proc, "self/setgroups", "deny")) < 0)
		return fail("writing", "/proc/self/setgroups", -r);
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)uid_in, (unsigned)uid_out);
	if ((r = write_at(sb->proc, "self/uid_map", line)) < 0)
		return fail("writing", "/proc/self/uid_map", -r);
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gid_in, (unsigned)gid_out);
	if ((r = write_at(sb->proc, "self/gid_map", line)) < 0)
		return fail("writing", "/proc/self/gid_map", -r);
	return 0;
}

static int open_in_root(int root, const char *path)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT_ | RESOLVE_NO_MAGICLINKS_};
	long fd = syscall(SYS_openat2, root, path, &how, sizeof(how));
	return fd >= 0 ? (int)fd : -errno;
}

/* `path`'s parent directory into parent[PATH_MAX] ("/" for a top-level
 * name) and its last name, which must be a name. */
static int split_path(const char *path, char parent[PATH_MAX], const char **name)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	if (!slash || len >= PATH_MAX)
		return slash ? -ENAMETOOLONG : -EINVAL;
	memcpy(parent, path, len);
	strcpy(parent + len, len ? "" : "/");
	*name = slash + 1;
	if (!**name || strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0)
		return -EINVAL;
	return 0;
}

/* An O_PATH fd on `path` under the new root, made (with its missing
 * parents, sb->parent_mode) when missing: a directory, or an empty file of
 * `mode`. */
static int ensure(struct sandbox *sb, const char *path, bool dir, mode_t mode)
{
	int fd = open_in_root(sb->newroot, path);
	if (fd != -ENOENT)
		return fd;
	char parent[PATH_MAX];
	const char *name;
	int r = split_path(path, parent, &name);
	if (r < 0)
		return r;
	_autoclose_ int pfd = ensure(sb, parent, true, sb->parent_mode);
	if (pfd < 0)
		return pfd;
	if (dir) {
		if (mkdirat(pfd, name, mode) < 0 && errno != EEXIST)
			return -errno;
	} else {
		int f =
		    openat(pfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode);
		if (f < 0 && errno != EEXIST)
			return -errno;
		if (f >= 0)
			close(f);
	}
	return open_in_root(sb->newroot, path);
}

/* The parent directory of `path` (made if missing) and its last name. */
static int ensure_parent(struct sandbox *sb, const char *path, const char **name)
{
	char parent[PATH_MAX];
	int r = split_path(path, parent, name);
	return r < 0 ? r : ensure(sb, parent, true, sb->parent_mode);
}

static int set_attr(int tree, uint64_t attrs, bool recursive)
{
	struct mount_attr_ attr = {.attr_set = attrs};
	return syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE_ : 0),
	               &attr, sizeof(attr)) < 0
	           ? -errno
	           : 0;
}

/* A clone of the tree at fd (or at name beneath it), recursive. */
static int clone_tree(int fd, const char *name)
{
	long t = syscall(SYS_open_tree, fd, name,
	                 OPEN_TREE_CLONE_ | OPEN_TREE_CLOEXEC_ | AT_RECURSIVE_ |
	                     (*name ? 0 : AT_EMPTY_PATH));
	return t >= 0 ? (int)t : -errno;
}

static int attach(int tree, int dirfd, const char *name)
{
	return syscall(SYS_move_mount, tree, "", dirfd, name,
	               MOVE_MOUNT_F_EMPTY_ | (*name ? 0 : MOVE_MOUNT_T_EMPTY_)) < 0
	           ? -errno
	           : 0;
}

/* A new mount of `type` (tmpfs, proc, devpts), named after it as mount(8)
 * and bubblewrap name theirs, with options as key, value pairs. */
static int new_mount(const char *type, const char *const *opts, uint64_t attrs)
{
	_autoclose_ int fs = (int)syscall(SYS_fsopen, type, FSOPEN_CLOEXEC_);
	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING_, "source", type, 0) < 0)
		return -errno;
	for (size_t i = 0; opts && opts[i]; i += 2)
		if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING_, opts[i], opts[i + 1], 0) < 0)
			return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE_, NULL, NULL, 0) < 0)
		return -errno;
	long m = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC_, attrs);
	return m >= 0 ? (int)m : -errno;
}

static int tmpfs_at(int dirfd, const char *name, int mode)
{
	char m[16];
	snprintf(m, sizeof(m), "0%o", mode);
	const char *opts[] = {"mode", m, NULL};
	_autoclose_ int mnt = new_mount("tmpfs", opts, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_);
	if (mnt < 0)
		return mnt;
	return attach(mnt, dirfd, name);
}

static int copy_data(int from, int to)
{
	static char buf[65536];
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			off += w;
		}
	}
}

static int bind_op(struct sandbox *sb, struct op *op)
{
	_autoclose_ int src = open_in_root(sb->oldroot, op->src);
	if (src == -ENOENT && op->try_)
		return 0;
	if (src < 0)
		return fail("cannot find source path", op->src, -src);
	struct stat st;
	if (fstat(src, &st) < 0)
		return fail("stat", op->src, errno);
	if (op->fd >= 0) {
		/* Bound by its path again: it must still be the object checked. */
		struct stat want;
		if (fstat(op->fd, &want) < 0)
			return fail("stat of the descriptor for", op->dest, errno);
		if (want.st_dev != st.st_dev || want.st_ino != st.st_ino)
			return fail("replaced since it was checked:", op->src, ESTALE);
	}
	_autoclose_ int tree = clone_tree(src, "");
	if (tree < 0)
		return fail("cannot bind", op->src, -tree);
	uint64_t attrs = MOUNT_ATTR_NOSUID_ | (op->kind == K_DEV_BIND ? 0 : MOUNT_ATTR_NODEV_) |
	                 (op->kind == K_RO_BIND ? MOUNT_ATTR_RDONLY_ : 0);
	int r = set_attr(tree, attrs, true);
	if (r < 0)
		return fail("cannot set the mount flags of", op->src, -r);
	bool dir = S_ISDIR(st.st_mode);
	/* Mount points as bubblewrap makes them. */
	_autoclose_ int dest = ensure(sb, op->dest, dir, dir ? 0755 : 0444);
	if (dest < 0)
		return fail(dir ? "cannot make the directory" : "cannot make the file", op->dest,
		            -dest);
	if ((r = attach(tree, dest, "")) < 0)
		return fail("cannot bind on", op->dest, -r);
	return 0;
}

/* The data on op->fd in a file of its own (in the setup root, outside the
 * new one), bound read-only on dest. */
static int bind_data(struct sandbox *sb, struct op *op)
{
	char name[32];
	snprintf(name, sizeof(name), "/data-%u", sb->n_data++);
	int f = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, op->mode >= 0 ? op->mode : 0600);
	if (f < 0)
		return fail("cannot make the data file for", op->dest, errno);
	int r = copy_data(op->fd, f);
	close(f);
	if (r < 0)
		return fail("cannot copy the data for", op->dest, -r);
	_autoclose_ int tree = clone_tree(AT_FDCWD, name);
	if (tree < 0 ||
	    (r = set_attr(tree, MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_,
	                  false)) < 0)
		return fail("cannot bind the data for", op->dest, tree < 0 ? -tree : -r);
	_autoclose_ int dest = ensure(sb, op->dest, false, 0444);
	if (dest < 0)
		return fail("cannot make the file", op->dest, -dest);
	if ((r = attach(tree, dest, "")) < 0)
		return fail("cannot bind on", op->dest, -r);
	return 0;
}

static int file_op(struct sandbox *sb, struct op *op)
{
	const char *name;
	_autoclose_ int dir = ensure_parent(sb, op->dest, &name);
	if (dir < 0)
		return fail("cannot make the parent of", op->dest, -dir);
	/* A new file: never one that is there already (a host file, in a
	 * directory bound from the host). */
	int f = openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW,
	               op->mode >= 0 ? op->mode : 0666);
	if (f < 0)
		return fail("cannot make the file", op->dest, errno);
	int r = copy_data(op->fd, f);
	close(f);
	return r < 0 ? fail("cannot copy the data for", op->dest, -r) : 0;
}

static int symlink_op(struct sandbox *sb, struct op *op)
{
	const char *name;
	_autoclose_ int dir = ensure_parent(sb, op->dest, &name);
	if (dir < 0)
		return fail("cannot make the parent of", op->dest, -dir);
	if (symlinkat(op->src, dir, name) == 0)
		return 0;
	/* bubblewrap takes the very same link where it is already. */
	char have[PATH_MAX];
	ssize_t n = errno == EEXIST ? readlinkat(dir, name, have, sizeof(have) - 1) : -1;
	if (n >= 0) {
		have[n] = '\0';
		if (strcmp(have, op->src) == 0)
			return 0;
		errno = EEXIST;
	}
	return fail("cannot make the symlink", op->dest, errno);
}

/* bubblewrap's /proc: its own, with the old knobs (sys, sysrq-trigger,
 * irq, bus) read-only where they are writable. */
static int proc_op(struct sandbox *sb, struct op *op)
{
	_autoclose_ int dest = ensure(sb, op->dest, true, 0755);
	if (dest < 0)
		return fail("cannot make the directory", op->dest, -dest);
	_autoclose_ int mnt =
	    new_mount("proc", NULL, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | MOUNT_ATTR_NOEXEC_);
	int r = mnt < 0 ? mnt : attach(mnt, dest, "");
	if (r < 0)
		return fail("cannot mount proc on", op->dest, -r);
	/* Where access(W_OK) says so, as bubblewrap: never for /proc/sys,
	 * which the backend covers with an op of its own (bwrap_args.c). */
	static const char *const covered[] = {"sys", "sysrq-trigger", "irq", "bus"};
	for (size_t i = 0; i < sizeof(covered) / sizeof(covered[0]); i++) {
		if (faccessat(mnt, covered[i], W_OK, 0) < 0) {
			if (errno == EACCES || errno == ENOENT || errno == EROFS)
				continue;
			return fail("cannot check /proc's", covered[i], errno);
		}
		_autoclose_ int tree = clone_tree(mnt, covered[i]);
		if (tree < 0 ||
		    (r = set_attr(tree, MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_,
		                  true)) < 0 ||
		    (r = attach(tree, mnt, covered[i])) < 0)
			return fail("cannot make read-only: /proc's", covered[i],
			            tree < 0 ? -tree : -r);
	}
	return 0;
}

/* bubblewrap's /dev: a tmpfs with the harmless nodes bound from the host,
 * the stdio links, a devpts of its own, an empty shm, and stdout's
 * terminal as the console. */
static int dev_op(struct sandbox *sb, struct op *op)
{
	_autoclose_ int dest = ensure(sb, op->dest, true, 0755);
	if (dest < 0)
		return fail("cannot make the directory", op->dest, -dest);
	const char *mode[] = {"mode", "0755", NULL};
	_autoclose_ int dev = new_mount("tmpfs", mode, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_);
	int r = dev < 0 ? dev : attach(dev, dest, "");
	if (r < 0)
		return fail("cannot mount a tmpfs on", op->dest, -r);
	static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
	char host[32];
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(host, sizeof(host), "dev/%s", nodes[i]);
		int f = openat(dev, nodes[i], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444);
		if (f < 0)
			return fail("cannot make the file /dev/", nodes[i], errno);
		close(f);
		_autoclose_ int tree = clone_tree(sb->oldroot, host);
		if (tree < 0 || (r = set_attr(tree, MOUNT_ATTR_NOSUID_, false)) < 0 ||
		    (r = attach(tree, dev, nodes[i])) < 0)
			return fail("cannot bind the host's /dev/", nodes[i],
			            tree < 0 ? -tree : -r);
	}
	static const char *const links[][2] = {
	    {"stdin", "/proc/self/fd/0"},  {"stdout", "/proc/self/fd/1"},
	    {"stderr", "/proc/self/fd/2"}, {"fd", "/proc/self/fd"},
	    {"core", "/proc/kcore"},       {"ptmx", "pts/ptmx"},
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlinkat(links[i][1], dev, links[i][0]) < 0)
			return fail("cannot make the symlink /dev/", links[i][0], errno);
	if (mkdirat(dev, "shm", 0755) < 0 || mkdirat(dev, "pts", 0755) < 0)
		return fail("cannot make the directories of", op->dest, errno);
	/* A new instance, as every devpts mount is since Linux 4.7. */
	const char *pts_opts[] = {"ptmxmode", "0666", "mode", "620", NULL};
	_autoclose_ int pts =
	    new_mount("devpts", pts_opts, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NOEXEC_);
	if ((r = pts < 0 ? pts : attach(pts, dev, "pts")) < 0)
		return fail("cannot mount devpts on /dev/", "pts", -r);
	if (sb->tty[0]) {
		int f = openat(dev, "console", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444);
		if (f < 0)
			return fail("cannot make the file /dev/", "console", errno);
		close(f);
		_autoclose_ int tree = clone_tree(sb->oldroot, sb->tty + 1);
		if (tree < 0 || (r = set_attr(tree, MOUNT_ATTR_NOSUID_, false)) < 0 ||
		    (r = attach(tree, dev, "console")) < 0)
			return fail("cannot bind the terminal", sb->tty, tree < 0 ? -tree : -r);
	}
	return 0;
}

static int run_op(struct sandbox *sb, struct op *op)
{
	int r;
	switch (op->kind) {
	case K_BIND:
	case K_RO_BIND:
	case K_DEV_BIND:
		return bind_op(sb, op);
	case K_RO_BIND_DATA:
		return bind_data(sb, op);
	case K_FILE:
		return file_op(sb, op);
	case K_SYMLINK:
		return symlink_op(sb, op);
	case K_PROC:
		return proc_op(sb, op);
	case K_DEV:
		return dev_op(sb, op);
	case K_DIR: {
		_autoclose_ int fd = ensure(sb, op->dest, true, op->mode >= 0 ? op->mode : 0755);
		return fd < 0 ? fail("cannot make the directory", op->dest, -fd) : 0;
	}
	case K_TMPFS: {
		_autoclose_ int fd = ensure(sb, op->dest, true, 0755);
		if (fd < 0)
			return fail("cannot make the directory", op->dest, -fd);
		r = tmpfs_at(fd, "", op->mode >= 0 ? op->mode : 0755);
		return r < 0 ? fail("cannot mount a tmpfs on", op->dest, -r) : 0;
	}
	case K_REMOUNT_RO: {
		_autoclose_ int fd = open_in_root(sb->newroot, op->dest);
		r = fd < 0 ? fd : set_attr(fd, MOUNT_ATTR_RDONLY_, false);
		return r < 0 ? fail("cannot make read-only", op->dest, -r) : 0;
	}
	}
	return -EINVAL;
}

static int pivot_root(const char *new_root, const char *put_old)
{
	return syscall(SYS_pivot_root, new_root, put_old) < 0 ? -errno : 0;
}

/* The host's root out of reach, the new root in its place (bubblewrap's
 * way: a tmpfs to build in, over /tmp, then pivot_root twice). */
static int enter_setup_root(struct sandbox *sb)
{
	if (mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return fail("cannot make / a slave", NULL, errno);
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return fail("cannot mount the setup tmpfs on", "/tmp", errno);
	if (chdir("/tmp") < 0 || mkdir("newroot", 0755) < 0 || mkdir("oldroot", 0755) < 0)
		return fail("cannot make the setup root", NULL, errno);
	int r = pivot_root(".", "oldroot");
	if (r < 0)
		return fail("pivot_root", NULL, -r);
	if (chdir("/") < 0)
		return fail("chdir", "/", errno);
	if (mount("tmpfs", "/newroot", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return fail("cannot mount the new root", NULL, errno);
	sb->oldroot = open("/oldroot", O_PATH | O_DIRECTORY | O_CLOEXEC);
	sb->newroot = open("/newroot", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb->oldroot < 0 || sb->newroot < 0)
		return fail("cannot open the roots", NULL, errno);
	return 0;
}

static int enter_new_root(struct sandbox *sb)
{
	close(sb->oldroot);
	close(sb->newroot);
	sb->oldroot = sb->newroot = -1;
	/* No unmount event may reach the host's namespace. */
	if (mount(NULL, "/oldroot", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return fail("cannot make the old root private", NULL, errno);
	if (umount2("/oldroot", MNT_DETACH) < 0)
		return fail("cannot detach the old root", NULL, errno);
	_autoclose_ int setup = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (setup < 0 || chdir("/newroot") < 0)
		return fail("cannot enter the new root", NULL, errno);
	int r = pivot_root(".", ".");
	if (r < 0)
		return fail("pivot_root", "/newroot", -r);
	if (fchdir(setup) < 0 || umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return fail("cannot detach the setup root", NULL, errno);
	return 0;
}

/* The sandbox's uid and gid are the user's again, in a user namespace
 * under the first (which maps the user to root, for devpts). With
 * --disable-userns, the first allows no more user namespaces, and this
 * one counts as the last. */
static int enter_user_ns(struct sandbox *sb)
{
	if (sb->disable_userns) {
		int r = write_at(sb->proc, "sys/user/max_user_namespaces", "1");
		if (r < 0)
			return fail("sysctl user.max_user_namespaces = 1", NULL, -r);
	}
	if (sb->disable_userns || sb->uid || sb->gid) {
		if (unshare(CLONE_NEWUSER) < 0)
			return fail("unshare", "CLONE_NEWUSER", errno);
		int r = map_ids(sb, sb->uid, 0, sb->gid, 0, false);
		if (r < 0)
			return r;
	}
	if (sb->disable_userns && unshare(CLONE_NEWUSER) == 0) {
		fprintf(stderr, "%s: new user namespaces were not disabled\n", self);
		return -EPERM;
	}
	return 0;
}

/* Every capability but --cap-add's, in every set; none at all without. */
static int narrow_caps(const struct sandbox *sb)
{
	const char *what;
	int r;
	if (!sb->caps_kept) {
		if ((r = init_drop_caps(&what)) < 0)
			return fail(what, NULL, -r);
		return 0;
	}
	for (int cap = 0; cap < 64; cap++) {
		if (sb->caps_kept & (1ull << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			return fail("cannot drop a capability from the bounding set", NULL, errno);
		}
	}
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	for (int i = 0; i < 2; i++)
		data[i].effective = data[i].permitted = (uint32_t)(sb->caps_kept >> (32 * i));
	if (syscall(SYS_capset, &hdr, data) < 0)
		return fail("capset", NULL, errno);
	return 0;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

/* Capabilities kept are for init's mounts, which drops them after (as
 * pid 1 does): never for a command that would keep them, and with
 * CAP_SETPCAP, which dropping the bounding set takes. */
static bool caps_for_init_mounts(const struct sandbox *sb)
{
	if (!sb->caps_kept)
		return true;
	if (!(sb->caps_kept & (1ull << CAP_SETPCAP)) || strcmp(sb->cmd[0], ASB_INIT_PATH) != 0)
		return false;
	for (int i = 1; i < sb->cmd_argc && strcmp(sb->cmd[i], "--") != 0; i++)
		if (strcmp(sb->cmd[i], "--mounts-fd") == 0)
			return true;
	return false;
}

/* The first process: init's own main, or the command. */
static int run_command(struct sandbox *sb)
{
	if (strcmp(sb->cmd[0], ASB_INIT_PATH) == 0)
		return init_main(sb->cmd_argc, sb->cmd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail_status("PR_SET_NO_NEW_PRIVS", NULL, errno);
	execvp(sb->cmd[0], sb->cmd);
	int e = errno;
	fail("cannot run", sb->cmd[0], e);
	return e == ENOENT ? 127 : 126;
}

/* Pid 1: set up, start the first process, reap until it ends. */
static int sandbox_pid1(struct sandbox *sb, int monitor_alive)
{
	int r;
	if (sb->die_with_parent) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
			return 1;
		/* The monitor may have died before that: its end of the pipe
		 * is closed then. */
		char c;
		int fl = fcntl(monitor_alive, F_GETFL);
		if (fl < 0 || fcntl(monitor_alive, F_SETFL, fl | O_NONBLOCK) < 0 ||
		    read(monitor_alive, &c, 1) == 0)
			return 1;
	}
	close(monitor_alive);
	/* The monitor reports the pid: nothing inside may write there. */
	if (sb->info_fd >= 0)
		close(sb->info_fd);
	sb->proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb->proc < 0)
		return fail_status("cannot open", "/proc", errno);
	if (map_ids(sb, 0, sb->uid, 0, sb->gid, true) < 0)
		return 1;
	if ((sb->clone_flags & CLONE_NEWNET) && (r = loopback_up()) < 0)
		return fail_status("cannot bring up the loopback", NULL, -r);
	mode_t old_umask = umask(0);
	if (enter_setup_root(sb) < 0)
		return 1;
	for (size_t i = 0; i < sb->n_ops; i++) {
		/* As bubblewrap: the parents made for something the group or
		 * others may not read are not readable by them either. */
		int perms = sb->ops[i].mode;
		sb->parent_mode = 0755;
		if (perms >= 0 && !(perms & 0070))
			sb->parent_mode &= ~0050u;
		if (perms >= 0 && !(perms & 0007))
			sb->parent_mode &= ~0005u;
		if (run_op(sb, &sb->ops[i]) < 0)
			return 1;
		if (sb->ops[i].fd >= 0) {
			close(sb->ops[i].fd);
			sb->ops[i].fd = -1;
		}
	}
	if (enter_new_root(sb) < 0 || enter_user_ns(sb) < 0)
		return 1;
	close(sb->proc);
	sb->proc = -1;
	if (narrow_caps(sb) < 0)
		return 1;
	if (sb->block_fd >= 0) {
		char c;
		while (read(sb->block_fd, &c, 1) < 0 && errno == EINTR)
			;
		close(sb->block_fd);
	}
	umask(old_umask);
	const char *cwd = sb->chdir ? sb->chdir : "/";
	if (chdir(cwd) < 0)
		return fail_status("cannot change directory to", cwd, errno);
	if (setenv("PWD", cwd, 1) < 0)
		return fail_status("setenv", "PWD", errno);
	for (size_t i = 0; i < sb->n_setenv; i++)
		if (setenv(sb->setenv[2 * i], sb->setenv[2 * i + 1], 1) < 0)
			return fail_status("setenv", sb->setenv[2 * i], errno);

	pid_t first = fork();
	if (first < 0)
		return fail_status("cannot fork the first process", NULL, errno);
	if (first == 0)
		_exit(run_command(sb));
	/* Pid 1 holds nothing and can do nothing: it only waits. */
	syscall(SYS_close_range, 3, ~0u, 0);
	/* What the first process keeps for init's mounts, pid 1 does not, in
	 * any set: the agent, a process of the same user, could otherwise
	 * make pid 1 run its code with them (or with no seccomp filter: not
	 * dumpable, so that nothing inside can trace it or open its memory). */
	const char *what;
	if (sb->caps_kept && (r = init_drop_caps(&what)) < 0)
		return fail_status(what, NULL, -r);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return fail_status("PR_SET_DUMPABLE", NULL, errno);
	for (;;) {
		int status;
		pid_t p = waitpid(-1, &status, 0);
		if (p == first)
			return exit_code(status); /* the kernel ends the rest */
		if (p < 0 && errno != EINTR)
			return 1;
	}
}

int sandbox_main(int argc, char **argv)
{
	struct sandbox sb = {
	    .info_fd = -1, .block_fd = -1, .proc = -1, .oldroot = -1, .newroot = -1};
	if (parse(&sb, argc, argv) < 0)
		return 1;
	if (!(sb.clone_flags & CLONE_NEWUSER) || !(sb.clone_flags & CLONE_NEWPID)) {
		fprintf(stderr, "%s: --sandbox needs --unshare-user and --unshare-pid\n", self);
		return 1;
	}
	if (!caps_for_init_mounts(&sb)) {
		fprintf(stderr, "%s: --cap-add is for %s --mounts-fd alone, with CAP_SETPCAP\n",
		        self, ASB_INIT_PATH);
		return 1;
	}
	/* Exec'd through its fd (/proc/self/fd/N), this process would be
	 * named N: named for what it is, in ps on the host and inside. */
	(void)prctl(PR_SET_NAME, "asb-sandbox", 0, 0, 0);
	sb.uid = getuid();
	sb.gid = getgid();
	if (isatty(STDOUT_FILENO) && ttyname_r(STDOUT_FILENO, sb.tty, sizeof(sb.tty)) != 0)
		sb.tty[0] = '\0';
	if (sb.tty[0] != '/')
		sb.tty[0] = '\0';
	/* As bubblewrap: nothing in the sandbox gains privileges by exec,
	 * pid 1 included. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail_status("PR_SET_NO_NEW_PRIVS", NULL, errno);
	if (sb.die_with_parent) {
		pid_t parent = getppid();
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
			return 1;
	}
	int alive[2];
	if (pipe2(alive, O_CLOEXEC) < 0)
		return fail_status("pipe", NULL, errno);
	/* A mount namespace always, as bubblewrap makes. */
	unsigned long flags = sb.clone_flags | CLONE_NEWNS | SIGCHLD;
	long pid = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0 && errno == EINVAL && sb.cgroup_try) {
		flags &= ~(unsigned long)CLONE_NEWCGROUP;
		pid = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	}
	if (pid < 0)
		return fail_status("cannot make the namespaces (clone)", NULL, errno);
	if (pid == 0) {
		close(alive[1]);
		_exit(sandbox_pid1(&sb, alive[0]));
	}
	close(alive[0]);
	if (sb.info_fd >= 0) {
		dprintf(sb.info_fd, "{\n    \"child-pid\": %ld\n}\n", pid);
		close(sb.info_fd);
	}
	/* The monitor keeps nothing of the sandbox's but its end of `alive`. */
	if (alive[1] > 3)
		syscall(SYS_close_range, 3, alive[1] - 1, 0);
	syscall(SYS_close_range, alive[1] + 1, ~0u, 0);
	for (;;) {
		int status;
		if (waitpid((pid_t)pid, &status, 0) == pid)
			return exit_code(status);
		if (errno != EINTR)
			return 1;
	}
}
