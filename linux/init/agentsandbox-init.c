/* SPDX-License-Identifier: MIT */
/* agentsandbox-init: the first program inside the sandbox. It applies a
 * Landlock ruleset (the second layer under the mount namespace) and the
 * seccomp filter the launcher compiled, then execs the agent. Rules come as
 * arguments, so the backend's record of its command shows them:
 *
 *   agentsandbox-init [--landlock [--require] [--scope] [--write PATH]
 *                     [--write-files PATH] [--exec PATH]...]
 *                     [--seccomp FILE] [--mounts-fd FD [--legacy-mounts]]
 *                     -- COMMAND [ARGS...]
 *   agentsandbox-init --sandbox [bubblewrap's options] -- COMMAND [ARGS...]
 *
 *   --landlock          apply a Landlock ruleset with the rules that follow
 *   --write PATH        create, remove, write beneath PATH (a file: write it)
 *   --write-files PATH  write existing files beneath PATH (devices, /proc)
 *   --exec PATH         execute PATH (a file) or anything beneath it
 *   --scope             signals and abstract unix sockets stay inside (ABI >= 6)
 *   --require           no Landlock in this kernel is an error, not a no-op
 *   --seccomp FILE      install the BPF program in FILE (struct sock_filter[])
 *   --mounts-fd FD      make the mounts listed on FD (mounts.c), then drop
 *                       every capability: the backend ran init with
 *                       CAP_SYS_ADMIN and CAP_SETPCAP for them
 *   --legacy-mounts     with mount(2) only, as without the new mount API
 *   --sandbox           first make the sandbox, as bubblewrap would, from
 *                       the options of bubblewrap's that follow (sandbox.c)
 *
 * A path that does not exist inside is skipped: nothing is allowed there.
 * The mounts come first, then the capabilities go, then no_new_privs is set,
 * before Landlock and seccomp. Exit status 125 when a protection cannot
 * be applied. With AGENTSANDBOX_INIT_STATUS_FD=N in the environment it
 * reports on fd N that it reached the command ("R") and, if exec failed,
 * why ("E<errno>"): include/agentsandbox/plugin.h, ASB_INIT_STATUS_ENV. */
#include "init.h"
#include "mounts.h"
#include "sandbox.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule       445
#define SYS_landlock_restrict_self  446
#endif

/* The uapi as of ABI 6; Debian 12's headers stop at ABI 2. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH      1

#define FS_EXECUTE     (1ULL << 0)
#define FS_WRITE_FILE  (1ULL << 1)
#define FS_READ_FILE   (1ULL << 2)
#define FS_REMOVE_DIR  (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR   (1ULL << 6)
#define FS_MAKE_DIR    (1ULL << 7)
#define FS_MAKE_REG    (1ULL << 8)
#define FS_MAKE_SOCK   (1ULL << 9)
#define FS_MAKE_FIFO   (1ULL << 10)
#define FS_MAKE_BLOCK  (1ULL << 11)
#define FS_MAKE_SYM    (1ULL << 12)
#define FS_REFER       (1ULL << 13) /* ABI 2 */
#define FS_TRUNCATE    (1ULL << 14) /* ABI 3 */
#define FS_IOCTL_DEV   (1ULL << 15) /* ABI 5 */

#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL        (1ULL << 1)

#define FS_WRITE_DIR                                                                               \
	(FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR |             \
	 FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER |      \
	 FS_TRUNCATE)
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

enum kind { K_WRITE, K_WRITE_FILES, K_EXEC };

static const char *self = "agentsandbox-init";

static int die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", self, what, strerror(err));
	return 125;
}

static int add_path(int ruleset, uint64_t handled, enum kind kind, const char *path)
{
	/* openat, not open: musl's open follows O_CLOEXEC with an fcntl (for
	 * kernels that ignored it), one system call per rule for nothing. */
	int fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not there inside: nothing to allow */
	uint64_t access = kind == K_EXEC    ? FS_EXECUTE
	                  : kind == K_WRITE ? FS_WRITE_DIR
	                                    : FS_WRITE_FILE | FS_TRUNCATE;
	/* Only a directory takes rights beyond a file's: an --exec rule (one
	 * per allowed executable, ~100) needs no fstat to know its rights. */
	if (access & ~FS_FILE_RIGHTS) {
		struct stat st;
		if (fstat(fd, &st) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (!S_ISDIR(st.st_mode))
			access &= FS_FILE_RIGHTS;
	}
	struct ll_path_beneath_attr attr = {.allowed_access = access & handled, .parent_fd = fd};
	int r = 0;
	if (attr.allowed_access &&
	    syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &attr, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Read the filter (at most BPF_MAXINSNS instructions) and install it. */
static int install_seccomp(const char *path)
{
	static struct sock_filter prog[BPF_MAXINSNS];
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return die(path, errno);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, (char *)prog + len, sizeof(prog) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return die(path, e);
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof(prog))
			break;
	}
	close(fd);
	if (len == 0 || len % sizeof(prog[0]))
		return die("seccomp filter: not a BPF program", EINVAL);
	struct sock_fprog fprog = {.len = (unsigned short)(len / sizeof(prog[0])), .filter = prog};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) < 0)
		return die("installing the seccomp filter", errno);
	return 0;
}

static int apply_landlock(int first, int sep, char **argv)
{
	int require = 0, scope = 0;
	for (int i = first; i < sep; i++) {
		if (strcmp(argv[i], "--require") == 0)
			require = 1;
		else if (strcmp(argv[i], "--scope") == 0)
			scope = 1;
	}
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi < 1)
		return require ? die("Landlock is required but not available in this kernel",
		                     errno ? errno : ENOSYS)
		               : 0;

	uint64_t handled = FS_EXECUTE | FS_WRITE_DIR;
	if (abi < 2)
		handled &= ~FS_REFER;
	if (abi < 3)
		handled &= ~FS_TRUNCATE;
	struct ll_ruleset_attr attr = {.handled_access_fs = handled};
	if (scope && abi >= 6)
		attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return die("landlock_create_ruleset", errno);

	for (int i = first; i < sep; i++) {
		const char *opt = argv[i];
		enum kind kind;
		if (strcmp(opt, "--write") == 0)
			kind = K_WRITE;
		else if (strcmp(opt, "--write-files") == 0)
			kind = K_WRITE_FILES;
		else if (strcmp(opt, "--exec") == 0)
			kind = K_EXEC;
		else if (strcmp(opt, "--seccomp") == 0) {
			i++;
			continue;
		} else
			continue;
		int r = add_path(ruleset, handled, kind, argv[++i]);
		if (r < 0)
			return die(argv[i], -r);
	}
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return die("landlock_restrict_self", errno);
	close(ruleset);
	return 0;
}

/* The fd a backend asked for the status on (ASB_INIT_STATUS_ENV), or -1;
 * close-on-exec from here on, and the variable gone from the agent's view. */
static int status_fd(void)
{
	const char *v = getenv(ASB_INIT_STATUS_ENV);
	if (!v)
		return -1;
	char *end;
	long fd = strtol(v, &end, 10);
	int valid = !*end && end != v && fd >= 3 && fd <= 65535;
	/* Only now: where --sandbox set it, unsetenv frees the string that v
	 * and end point into. */
	unsetenv(ASB_INIT_STATUS_ENV);
	if (!valid || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return (int)fd;
}

static void report(int fd, const char *what)
{
	if (fd >= 0)
		while (write(fd, what, strlen(what)) < 0 && errno == EINTR)
			;
}

/* The mounts listed on fd `num`, then no capability left, whatever
 * happened: the agent never runs with one. */
static int make_mounts(const char *num, int legacy)
{
	char *end;
	long fd = strtol(num, &end, 10);
	if (*end || end == num || fd < 3 || fd > 65535 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		return die("--mounts-fd: not an open descriptor", EBADF);
	const char *what;
	int r = init_mounts_apply((int)fd, legacy, &what);
	/* The mounts' paths are resolved following no symbolic link: ELOOP
	 * means one is on the way, which the C library's words for it ("Too
	 * many levels of symbolic links", "Symbolic link loop") do not say. */
	if (r == -ELOOP) {
		fprintf(stderr, "%s: %s: a symbolic link on the way (init follows none)\n", self,
		        what);
		return 125;
	}
	if (r < 0)
		return die(what, -r);
	if ((r = init_drop_caps(&what)) < 0)
		return die(what, -r);
	return 0;
}

int init_main(int argc, char **argv)
{
	int status = status_fd();
	int sep = -1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (sep < 0 || sep + 1 >= argc) {
		fprintf(stderr, "usage: %s [rules...] -- COMMAND [ARGS...]\n", self);
		return 125;
	}
	int landlock = 0, legacy = 0;
	const char *seccomp = NULL, *mounts = NULL;
	for (int i = 1; i < sep; i++) {
		const char *opt = argv[i];
		if (strcmp(opt, "--landlock") == 0) {
			landlock = 1;
		} else if (strcmp(opt, "--require") == 0 || strcmp(opt, "--scope") == 0) {
			continue;
		} else if (strcmp(opt, "--legacy-mounts") == 0) {
			legacy = 1;
		} else if (strcmp(opt, "--write") == 0 || strcmp(opt, "--write-files") == 0 ||
		           strcmp(opt, "--exec") == 0 || strcmp(opt, "--seccomp") == 0 ||
		           strcmp(opt, "--mounts-fd") == 0) {
			if (i + 1 >= sep) {
				fprintf(stderr, "%s: %s needs an operand\n", self, opt);
				return 125;
			}
			if (strcmp(opt, "--seccomp") == 0)
				seccomp = argv[i + 1];
			else if (strcmp(opt, "--mounts-fd") == 0)
				mounts = argv[i + 1];
			i++;
		} else {
			fprintf(stderr, "%s: unknown option %s\n", self, opt);
			return 125;
		}
	}
	int r;
	if (mounts && (r = make_mounts(mounts, legacy)) != 0)
		return r;
	/* Both need it; the backend may have set it already. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return die("PR_SET_NO_NEW_PRIVS", errno);
	if (landlock && (r = apply_landlock(1, sep, argv)) != 0)
		return r;
	/* Last: the filter may deny what setting up Landlock needed. */
	if (seccomp && (r = install_seccomp(seccomp)) != 0)
		return r;
	report(status, "R");
	execv(argv[sep + 1], argv + sep + 1);
	int e = errno;
	char why[16];
	snprintf(why, sizeof(why), "E%d", e);
	report(status, why);
	fprintf(stderr, "%s: cannot run %s: %s\n", self, argv[sep + 1], strerror(e));
	return e == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
	/* The bwrap backend's builder = init: make the sandbox, then be init
	 * in its first process. */
	if (argc > 1 && strcmp(argv[1], "--sandbox") == 0)
		return sandbox_main(argc - 2, argv + 2);
	return init_main(argc, argv);
}
