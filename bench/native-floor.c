/* SPDX-License-Identifier: MIT */
/* The yardstick's sandbox built without bubblewrap (bench/native-floor.sh
 * builds and times this against it): what the kernel's part of a launch
 * costs when the launching process makes the namespaces and the mounts
 * itself, so how much of the yardstick is bubblewrap's own process (its
 * exec, its C library's start, its argument list, its monitor process).
 *
 *   native-floor WORKSPACE HOME COMMAND...
 *
 * The same view as bench/launch-common.sh's bench_raw: every namespace
 * (user, mount, pid, ipc, uts, net, cgroup), /usr and /etc read-only, the
 * /bin, /lib and /lib64 links, /proc, a /dev of its own, a tmpfs home and
 * the workspace bound read-write, COMMAND run in it as pid 2 under a pid 1
 * that waits for it. Read-only binds are made with the mount API
 * (open_tree, mount_setattr, move_mount), which needs no mount table. A
 * measurement, not a sandbox: no seccomp, no capability drop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("native-floor: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	_exit(125);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("%s", path);
	close(fd);
}

/* A copy of src's mounts, detached (read-only if asked), opened before the
 * new root's tmpfs hides any host path. */
static int tree_of(const char *src, int rdonly)
{
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src,
	                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0)
		die("open_tree %s", src);
	if (rdonly) {
		struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
		if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
		            sizeof(attr)) < 0)
			die("mount_setattr %s", src);
	}
	return tree;
}

static void attach_at(int root, int tree, const char *dest)
{
	if (syscall(SYS_move_mount, tree, "", root, dest + 1, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die("move_mount %s", dest);
	close(tree);
}

static void mkdir_at(int root, const char *dest, mode_t mode)
{
	if (mkdirat(root, dest + 1, mode) < 0 && errno != EEXIST)
		die("mkdir %s", dest);
}

/* Each directory of an absolute path under the new root. */
static void mkdirs_at(int root, const char *dest)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", dest);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir_at(root, buf, 0755);
			*p = '/';
		}
	mkdir_at(root, buf, 0755);
}

static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
#define N_DEV_NODES (sizeof(dev_nodes) / sizeof(*dev_nodes))

static void dev_node(int root, const char *name, int tree)
{
	char dest[64];
	snprintf(dest, sizeof(dest), "/dev/%s", name);
	int fd = openat(root, dest + 1, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0)
		die("%s", dest);
	close(fd);
	attach_at(root, tree, dest);
}

/* In the new namespaces, as their pid 1. */
static int sandbox(const char *ws, const char *home, char **argv, uid_t uid, gid_t gid)
{
	char map[64];
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	write_file("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		die("making / a slave");
	int usr = tree_of("/usr", 1), etc = tree_of("/etc", 1), wst = tree_of(ws, 0);
	int nodes[N_DEV_NODES];
	for (size_t i = 0; i < N_DEV_NODES; i++) {
		char src[64];
		snprintf(src, sizeof(src), "/dev/%s", dev_nodes[i]);
		nodes[i] = tree_of(src, 0);
	}
	/* The new root: a tmpfs, filled while the old root is still there. */
	const char *base = "/tmp";
	if (mount("tmpfs", base, "tmpfs", MS_NODEV | MS_NOSUID, "mode=0755") < 0)
		die("tmpfs at %s", base);
	int root = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		die("%s", base);
	mkdir_at(root, "/usr", 0755);
	attach_at(root, usr, "/usr");
	if (symlinkat("usr/bin", root, "bin") < 0 || symlinkat("usr/lib", root, "lib") < 0 ||
	    symlinkat("usr/lib64", root, "lib64") < 0)
		die("symlinks");
	mkdir_at(root, "/etc", 0755);
	attach_at(root, etc, "/etc");
	mkdir_at(root, "/proc", 0755);
	mkdir_at(root, "/dev", 0755);
	if (mount("tmpfs", "/tmp/dev", "tmpfs", MS_NOSUID, "mode=0755") < 0)
		die("/dev");
	for (size_t i = 0; i < N_DEV_NODES; i++)
		dev_node(root, dev_nodes[i], nodes[i]);
	mkdir_at(root, "/dev/pts", 0755);
	if (mount("devpts", "/tmp/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	          "newinstance,ptmxmode=0666,mode=620") < 0)
		die("/dev/pts");
	if (symlinkat("pts/ptmx", root, "dev/ptmx") < 0)
		die("/dev/ptmx");
	mkdir_at(root, "/dev/shm", 01777);
	char at_home[4096];
	mkdirs_at(root, home);
	snprintf(at_home, sizeof(at_home), "%s%s", base, home);
	if (mount("tmpfs", at_home, "tmpfs", MS_NODEV | MS_NOSUID, "mode=0700") < 0)
		die("%s", home);
	mkdirs_at(root, ws);
	attach_at(root, wst, ws);
	/* While the host's /proc is still visible (the kernel's condition for
	 * a new one in a user namespace). */
	if (mount("proc", "/tmp/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die("/proc");
	/* Into it; the old root detached. */
	if (chdir(base) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		die("pivot_root");
	if (chdir(ws) < 0)
		die("chdir %s", ws);
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		execvp(argv[0], argv);
		die("%s", argv[0]);
	}
	int status;
	for (;;) {
		pid_t w = wait(&status);
		if (w == child)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (w < 0 && errno != EINTR)
			die("wait");
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: native-floor WORKSPACE HOME COMMAND...\n");
		return 2;
	}
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t pid = (pid_t)syscall(SYS_clone,
	                           CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
	                               CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWCGROUP | SIGCHLD,
	                           NULL, NULL, NULL, NULL);
	if (pid < 0)
		die("clone");
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			die("PR_SET_PDEATHSIG");
		_exit(sandbox(argv[1], argv[2], argv + 3, uid, gid));
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
