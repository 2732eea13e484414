/* SPDX-License-Identifier: MIT */
#include "syscall_filter.h"

#include "seccomp_groups.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define SOCK_TYPE_MASK 0xf

/* Every namespace flag and its group: "userns" has what a browser's own
 * sandbox uses to have less (plugins/browsers), "namespaces" the rest.
 * CLONE_NEWTIME shares its bit with clone()'s exit signal, so it is checked
 * for unshare() only. */
static const struct {
	uint64_t flag;
	int group;
} ns_flags[] = {
    {CLONE_NEWUSER, SECCOMP_G_USERNS},    {CLONE_NEWPID, SECCOMP_G_USERNS},
    {CLONE_NEWNET, SECCOMP_G_USERNS},     {CLONE_NEWIPC, SECCOMP_G_USERNS},
    {CLONE_NEWNS, SECCOMP_G_NAMESPACES},  {CLONE_NEWCGROUP, SECCOMP_G_NAMESPACES},
    {CLONE_NEWUTS, SECCOMP_G_NAMESPACES}, {CLONE_NEWTIME, SECCOMP_G_NAMESPACES},
};

/* libseccomp's SCMP_A0() leaves datum_b out for two-operand comparisons,
 * which clang's -Wmissing-field-initializers rejects: spell them out. */
#define CMP(n, cmp, a)                                                                             \
	((struct scmp_arg_cmp){.arg = (n), .op = (cmp), .datum_a = (a), .datum_b = 0})
#define MASKED(n, mask, v)                                                                         \
	((struct scmp_arg_cmp){                                                                    \
	    .arg = (n), .op = SCMP_CMP_MASKED_EQ, .datum_a = (mask), .datum_b = (v)})

struct compiler {
	scmp_filter_ctx ctx;
	uint32_t allowed;
};

/* A syscall libseccomp does not know on this architecture is skipped: it
 * cannot be called here either. */
static int deny(struct compiler *c, int group, const char *name, int err, unsigned n,
                const struct scmp_arg_cmp *args)
{
	if (c->allowed & (1u << group))
		return 0;
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR || nr < 0)
		return 0;
	return seccomp_rule_add_array(c->ctx, SCMP_ACT_ERRNO((uint32_t)err), nr, n, args);
}

#define DENY(group, name, err) deny(c, group, name, err, 0, NULL)
#define DENY_IF(group, name, err, ...)                                                             \
	deny(c, group, name, err, ARRAY_SIZE(((struct scmp_arg_cmp[]){__VA_ARGS__})),              \
	     (struct scmp_arg_cmp[]){__VA_ARGS__})

static int add_sockets(struct compiler *c)
{
	int r;
	/* socket(): the family is an int; any high bit set lands in the "> 16"
	 * rule, so equality on the full 64 bits cannot be sidestepped. */
	if ((r = DENY_IF(SECCOMP_G_UNIX, "socket", EPERM, CMP(0, SCMP_CMP_EQ, AF_UNIX))) < 0)
		return r;
	if ((r = DENY_IF(SECCOMP_G_FAMILIES, "socket", EAFNOSUPPORT,
	                 CMP(0, SCMP_CMP_GT, AF_NETLINK))) < 0)
		return r;
	for (uint64_t fam = 0; fam < AF_NETLINK; fam++) {
		if (fam == AF_UNIX || fam == AF_INET || fam == AF_INET6)
			continue;
		if ((r = DENY_IF(SECCOMP_G_FAMILIES, "socket", EAFNOSUPPORT,
		                 CMP(0, SCMP_CMP_EQ, fam))) < 0)
			return r;
	}
	if ((r = DENY_IF(SECCOMP_G_FAMILIES, "socket", EPROTONOSUPPORT,
	                 CMP(0, SCMP_CMP_EQ, AF_NETLINK), CMP(2, SCMP_CMP_NE, 0))) < 0)
		return r;
	/* socketpair(): only AF_UNIX makes sense; its stream pairs stay (libuv
	 * and Python use them for child stdio), datagram and seqpacket go. A
	 * datagram socket can still sendto() any named socket, a seqpacket one
	 * cannot: their own groups. */
	if ((r = DENY_IF(SECCOMP_G_FAMILIES, "socketpair", EAFNOSUPPORT,
	                 CMP(0, SCMP_CMP_NE, AF_UNIX))) < 0)
		return r;
	static const struct {
		uint64_t type;
		int group;
	} pairs[] = {{SOCK_DGRAM, SECCOMP_G_UNIX}, {SOCK_SEQPACKET, SECCOMP_G_UNIX_PAIRS}};
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		if ((r = DENY_IF(pairs[i].group, "socketpair", EPERM, CMP(0, SCMP_CMP_EQ, AF_UNIX),
		                 MASKED(1, SOCK_TYPE_MASK, pairs[i].type))) < 0)
			return r;
	return 0;
}

static int add_tty(struct compiler *c)
{
	/* The request is an unsigned int to the kernel: compare the low 32 bits
	 * only, so 0x100005412 is caught as TIOCSTI too. */
	static const uint64_t reqs[] = {TIOCSTI, TIOCLINUX};
	for (size_t i = 0; i < ARRAY_SIZE(reqs); i++) {
		int r = DENY_IF(SECCOMP_G_TTY, "ioctl", EPERM, MASKED(1, 0xffffffffu, reqs[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_userns(struct compiler *c)
{
	int r;
	for (size_t i = 0; i < ARRAY_SIZE(ns_flags); i++) {
		uint64_t f = ns_flags[i].flag;
		int g = ns_flags[i].group;
		if ((r = DENY_IF(g, "unshare", EPERM, MASKED(0, f, f))) < 0)
			return r;
		if (f != CLONE_NEWTIME && (r = DENY_IF(g, "clone", EPERM, MASKED(0, f, f))) < 0)
			return r;
	}
	/* clone3's flags live in memory the filter cannot read: ENOSYS makes
	 * glibc fall back to clone(), which is checked above. Lifting it lifts
	 * every namespace, so it goes with the broader group. */
	if ((r = DENY(SECCOMP_G_NAMESPACES, "clone3", ENOSYS)) < 0 ||
	    (r = DENY(SECCOMP_G_SETNS, "setns", EPERM)) < 0)
		return r;
	return 0;
}

struct plain {
	int group;
	const char *name;
	int err;
};

static const struct plain plain[] = {
    {SECCOMP_G_MOUNT, "mount", EPERM},
    {SECCOMP_G_MOUNT, "umount", EPERM},
    {SECCOMP_G_MOUNT, "umount2", EPERM},
    {SECCOMP_G_MOUNT, "pivot_root", EPERM},
    {SECCOMP_G_CHROOT, "chroot", EPERM},
    {SECCOMP_G_MOUNT, "open_tree", EPERM},
    {SECCOMP_G_MOUNT, "move_mount", EPERM},
    {SECCOMP_G_MOUNT, "fsopen", EPERM},
    {SECCOMP_G_MOUNT, "fsconfig", EPERM},
    {SECCOMP_G_MOUNT, "fsmount", EPERM},
    {SECCOMP_G_MOUNT, "fspick", EPERM},
    {SECCOMP_G_MOUNT, "mount_setattr", EPERM},
    {SECCOMP_G_KEYRING, "add_key", EPERM},
    {SECCOMP_G_KEYRING, "keyctl", EPERM},
    {SECCOMP_G_KEYRING, "request_key", EPERM},
    {SECCOMP_G_BPF, "bpf", EPERM},
    {SECCOMP_G_PERF, "perf_event_open", EPERM},
    {SECCOMP_G_USERFAULTFD, "userfaultfd", EPERM},
    /* ENOSYS: libuv and liburing treat it as "no io_uring" and fall back. */
    {SECCOMP_G_IO_URING, "io_uring_setup", ENOSYS},
    {SECCOMP_G_IO_URING, "io_uring_enter", ENOSYS},
    {SECCOMP_G_IO_URING, "io_uring_register", ENOSYS},
    {SECCOMP_G_PTRACE, "ptrace", EPERM},
    {SECCOMP_G_PTRACE, "process_vm_readv", EPERM},
    {SECCOMP_G_PTRACE, "process_vm_writev", EPERM},
    {SECCOMP_G_PTRACE, "kcmp", EPERM},
    {SECCOMP_G_PTRACE, "pidfd_getfd", EPERM},
    {SECCOMP_G_KERNEL, "init_module", EPERM},
    {SECCOMP_G_KERNEL, "finit_module", EPERM},
    {SECCOMP_G_KERNEL, "delete_module", EPERM},
    {SECCOMP_G_KERNEL, "create_module", EPERM},
    {SECCOMP_G_KERNEL, "kexec_load", EPERM},
    {SECCOMP_G_KERNEL, "kexec_file_load", EPERM},
    {SECCOMP_G_KERNEL, "reboot", EPERM},
    {SECCOMP_G_KERNEL, "swapon", EPERM},
    {SECCOMP_G_KERNEL, "swapoff", EPERM},
    {SECCOMP_G_KERNEL, "acct", EPERM},
    {SECCOMP_G_KERNEL, "quotactl", EPERM},
    {SECCOMP_G_KERNEL, "quotactl_fd", EPERM},
    {SECCOMP_G_KERNEL, "syslog", EPERM},
    {SECCOMP_G_KERNEL, "settimeofday", EPERM},
    {SECCOMP_G_KERNEL, "stime", EPERM},
    {SECCOMP_G_KERNEL, "clock_settime", EPERM},
    {SECCOMP_G_KERNEL, "clock_settime64", EPERM},
    {SECCOMP_G_KERNEL, "lookup_dcookie", EPERM},
    {SECCOMP_G_KERNEL, "open_by_handle_at", EPERM},
    {SECCOMP_G_KERNEL, "iopl", EPERM},
    {SECCOMP_G_KERNEL, "ioperm", EPERM},
    {SECCOMP_G_KERNEL, "vhangup", EPERM},
    {SECCOMP_G_KERNEL, "nfsservctl", EPERM},
};

/* personality(): the argument is an unsigned int; allowed are 0 (PER_LINUX),
 * PER_LINUX32, UNAME26, both, and 0xffffffff (the query). libseccomp cannot
 * say "none of these" in one rule, so this check is a few hand-written BPF
 * instructions placed in front of its program; they jump into it for every
 * other call (jumps are relative, so the program is unchanged). */
#define PERSONALITY_OK_BITS 0x00020008u

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LO (offsetof(struct seccomp_data, args[0]) + 4)
#endif

static size_t personality_prefix(struct sock_filter *out, uint32_t audit_arch, int nr)
{
	/* Jump targets are counted from the next instruction. */
	const struct sock_filter prog[] = {
	    /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit_arch, 0, 8),
	    /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 6),
	    /* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
	    /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 3, 0),
	    /* 6 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~PERSONALITY_OK_BITS),
	    /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
	    /* 8 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    /* 9 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    /* 10: libseccomp's program */
	};
	memcpy(out, prog, sizeof(prog));
	return ARRAY_SIZE(prog);
}

static void ctx_release(scmp_filter_ctx *c)
{
	if (*c)
		seccomp_release(*c);
}

int seccomp_compile(uint32_t lifted, int *out_fd)
{
	__attribute__((cleanup(ctx_release))) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	struct compiler cc = {ctx, lifted};
	struct compiler *c = &cc;
	int r;
	/* Only the native architecture is in the filter: a system call made
	 * through another ABI (int $0x80, the x32 bit) kills the process. */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0)
		return r;
	if ((r = add_sockets(c)) < 0 || (r = add_tty(c)) < 0 || (r = add_userns(c)) < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if ((r = DENY(plain[i].group, plain[i].name, plain[i].err)) < 0)
			return r;

	_cleanup_close_ int tmp = memfd_create("asb-seccomp-tmp", MFD_CLOEXEC);
	if (tmp < 0)
		return -errno;
	if ((r = seccomp_export_bpf(ctx, tmp)) < 0)
		return r;
	struct stat st;
	if (fstat(tmp, &st) < 0)
		return -errno;
	size_t n_lib = (size_t)st.st_size / sizeof(struct sock_filter);
	size_t prefix_max = 16;
	_cleanup_free_ struct sock_filter *prog = calloc(n_lib + prefix_max, sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	size_t n_pre = 0;
	int pers = seccomp_syscall_resolve_name("personality");
	if (!(c->allowed & (1u << SECCOMP_G_PERSONALITY)) && pers >= 0)
		n_pre = personality_prefix(prog, seccomp_arch_native(), pers);
	if (pread(tmp, prog + n_pre, n_lib * sizeof(*prog), 0) != (ssize_t)(n_lib * sizeof(*prog)))
		return -EIO;
	if (n_pre + n_lib > BPF_MAXINSNS)
		return -E2BIG;

	_cleanup_close_ int fd = memfd_create("asb-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if ((r = write_all(fd, prog, (n_pre + n_lib) * sizeof(*prog))) < 0)
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
		return -errno;
	*out_fd = TAKE_FD(fd);
	return 0;
}

int seccomp_available(void)
{
	/* Filters with the actions the program uses (Linux >= 4.14 can say). */
	static const uint32_t actions[] = {SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS};
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &actions[i]) < 0)
			return -errno;
	return 0;
}

const char *seccomp_arch_summary(void)
{
	switch (seccomp_arch_native()) {
	case SCMP_ARCH_X86_64:
		return "x86_64 filtered; i386 (int $0x80) and x32 system calls kill the process";
	case SCMP_ARCH_AARCH64:
		return "aarch64 filtered; 32-bit arm system calls kill the process";
	default:
		return "native architecture filtered; other ABIs kill the process";
	}
}
