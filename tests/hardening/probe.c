/* SPDX-License-Identifier: MIT */
/* Test helper run inside the sandbox: attempts each operation the seccomp
 * filter denies and prints "NAME RESULT" per line, RESULT being "ok", an
 * errno name (EPERM), or "killed:SIGSYS" for calls made in a child through
 * another ABI. Never run it outside a sandbox as root: the calls are chosen
 * to be harmless where they fail, not where they succeed.
 *
 *   probe all        every operation
 *   probe NAME...    those
 *   probe tiocsti-stdin TEXT   push TEXT into the terminal on stdin */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <linux/nsfs.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

static long rc(long r)
{
	return r < 0 ? -errno : r;
}

static int pty(void)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	return fd;
}

static long op_socket_unix(void)
{
	return rc(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
}
static long op_socket_unix_dgram(void)
{
	return rc(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
}
static long op_socket_unix_seqpacket(void)
{
	return rc(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
}
/* What CUDA's runtime does at start: a seqpacket listener on an abstract
 * name (its network namespace's). */
static long op_seqpacket_listen_abstract(void)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "asb-probe-%d", (int)getpid());
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	long r = bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, 8) < 0 ? -errno : 0;
	close(fd);
	return r;
}
static long op_socket_unix_hibit(void)
{
	return rc(syscall(SYS_socket, 0x100000000UL | AF_UNIX, SOCK_STREAM, 0));
}
static long op_socketpair(int type)
{
	int sv[2];
	return rc(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv));
}
static long op_socketpair_stream(void)
{
	return op_socketpair(SOCK_STREAM);
}
static long op_socketpair_dgram(void)
{
	return op_socketpair(SOCK_DGRAM);
}
static long op_socketpair_seqpacket(void)
{
	return op_socketpair(SOCK_SEQPACKET);
}
static long op_socket_inet(void)
{
	return rc(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
}
/* The sandbox's network namespace, reconfigured from inside: loopback
 * taken down (harmless where it works: only the sandbox loses it). */
static long op_netdev_down(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return rc(s);
	struct ifreq ifr = {0};
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	long r = rc(ioctl(s, SIOCGIFFLAGS, &ifr));
	if (r == 0) {
		ifr.ifr_flags &= ~IFF_UP;
		r = rc(ioctl(s, SIOCSIFFLAGS, &ifr));
	}
	close(s);
	return r;
}
/* The user namespace that owns the sandbox's network namespace: out of
 * reach from inside (it is an ancestor of the sandbox's own). */
static long op_netns_owner(void)
{
	int net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (net < 0)
		return rc(net);
	long r = rc(ioctl(net, NS_GET_USERNS));
	close(net);
	return r;
}
/* The open mode's persistent tap0, attached from inside (the engine's
 * device: a second reader would see and inject the sandbox's frames). */
static long op_tap_attach(void)
{
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return rc(fd);
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "tap0");
	long r = rc(ioctl(fd, TUNSETIFF, &ifr));
	close(fd);
	return r;
}
static long op_socket_inet6(void)
{
	return rc(socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0));
}
static long op_socket_netlink_route(void)
{
	return rc(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0));
}
static long op_socket_netlink_audit(void)
{
	return rc(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 9 /* NETLINK_AUDIT */));
}
static long op_socket_packet(void)
{
	return rc(socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
}
static long op_socket_vsock(void)
{
	return rc(socket(40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0));
}
static long op_socket_alg(void)
{
	return rc(socket(38 /* AF_ALG */, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
}
static long op_tiocsti(void)
{
	int fd = pty();
	char c = 'x';
	return fd < 0 ? -errno : rc(ioctl(fd, TIOCSTI, &c));
}
static long op_tiocsti_hibit(void)
{
	int fd = pty();
	char c = 'x';
	return fd < 0 ? -errno : rc(syscall(SYS_ioctl, fd, 0x100000000UL | TIOCSTI, &c));
}
static long op_tioclinux(void)
{
	int fd = pty();
	char c = 0;
	return fd < 0 ? -errno : rc(ioctl(fd, TIOCLINUX, &c));
}
static long op_unshare_user(void)
{
	return rc(unshare(CLONE_NEWUSER));
}
static long op_unshare_net(void)
{
	return rc(unshare(CLONE_NEWNET));
}
static long op_unshare_mount(void)
{
	return rc(unshare(CLONE_NEWNS));
}
static long op_clone_newuser(void)
{
	long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return rc(r);
}
static long op_clone3(void)
{
	struct clone_args a = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
	long r = syscall(SYS_clone3, &a, sizeof(a));
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return rc(r);
}
static long op_setns(void)
{
	int fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : rc(setns(fd, 0));
}
static long op_mount(void)
{
	return rc(mount("none", "/tmp", "tmpfs", 0, NULL));
}
static long op_umount2(void)
{
	return rc(umount2("/tmp", MNT_DETACH));
}
static long op_pivot_root(void)
{
	return rc(syscall(SYS_pivot_root, "/tmp", "/tmp"));
}
static long op_chroot(void)
{
	return rc(chroot("/tmp"));
}
static long op_open_tree(void)
{
	return rc(syscall(428 /* open_tree */, AT_FDCWD, "/tmp", 1 /* OPEN_TREE_CLONE */));
}
static long op_fsopen(void)
{
	return rc(syscall(430 /* fsopen */, "tmpfs", 0));
}
static long op_move_mount(void)
{
	return rc(syscall(429 /* move_mount */, -1, "", -1, "", 0));
}
static long op_mount_setattr(void)
{
	return rc(syscall(442 /* mount_setattr */, -1, "", 0, NULL, 0));
}
static long op_add_key(void)
{
	return rc(syscall(SYS_add_key, "user", "asb", "x", 1, -2 /* session */));
}
static long op_keyctl(void)
{
	return rc(syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -2, 0));
}
static long op_request_key(void)
{
	return rc(syscall(SYS_request_key, "user", "asb", NULL, 0));
}
static long op_bpf(void)
{
	return rc(syscall(SYS_bpf, 0, NULL, 0));
}
static long op_perf_event_open(void)
{
	return rc(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
}
static long op_userfaultfd(void)
{
	return rc(syscall(SYS_userfaultfd, O_CLOEXEC));
}
static long op_io_uring_setup(void)
{
	char params[120] = {0};
	return rc(syscall(425 /* io_uring_setup */, 1, params));
}
static long op_ptrace(void)
{
	return rc(syscall(SYS_ptrace, 0 /* TRACEME */, 0, 0, 0));
}
static long op_process_vm_readv(void)
{
	char a[4], b[4] = "abc";
	struct iovec l = {a, 4}, r = {b, 4};
	return rc(process_vm_readv(getpid(), &l, 1, &r, 1, 0));
}
static long op_kcmp(void)
{
	return rc(syscall(SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, 0, 0));
}
static long op_pidfd_getfd(void)
{
	int pfd = (int)syscall(434 /* pidfd_open */, getpid(), 0);
	return pfd < 0 ? -errno : rc(syscall(438 /* pidfd_getfd */, pfd, 0, 0));
}
static long op_init_module(void)
{
	return rc(syscall(SYS_init_module, NULL, 0, ""));
}
static long op_delete_module(void)
{
	return rc(syscall(SYS_delete_module, "asb_no_such_module", O_NONBLOCK));
}
static long op_kexec_load(void)
{
	return rc(syscall(SYS_kexec_load, 0, 0, NULL, 0xdead0000UL));
}
static long op_reboot(void)
{
	return rc(syscall(SYS_reboot, 0, 0, 0, NULL)); /* bad magic */
}
static long op_swapon(void)
{
	return rc(syscall(SYS_swapon, "/asb-no-such-swap", 0));
}
static long op_acct(void)
{
	return rc(syscall(SYS_acct, "/asb-no-such-file"));
}
static long op_quotactl(void)
{
	return rc(syscall(SYS_quotactl, 0, NULL, 0, NULL));
}
static long op_syslog(void)
{
	return rc(syscall(SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0));
}
static long op_settimeofday(void)
{
	return rc(syscall(SYS_settimeofday, NULL, NULL));
}
static long op_clock_settime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return rc(clock_settime(CLOCK_REALTIME, &ts));
}
static long op_open_by_handle_at(void)
{
	return rc(syscall(SYS_open_by_handle_at, AT_FDCWD, NULL, 0));
}
static long op_iopl(void)
{
	return rc(syscall(SYS_iopl, 3));
}
static long op_personality_no_aslr(void)
{
	long r = rc(syscall(SYS_personality, ADDR_NO_RANDOMIZE));
	if (r >= 0)
		syscall(SYS_personality, 0);
	return r;
}
static long op_personality_no_aslr_hibit(void)
{
	long r = rc(syscall(SYS_personality, 0x100000000UL | READ_IMPLIES_EXEC));
	if (r >= 0)
		syscall(SYS_personality, 0);
	return r;
}
static long op_personality_query(void)
{
	return rc(syscall(SYS_personality, 0xffffffffUL));
}
static long op_personality_linux32(void)
{
	long r = rc(syscall(SYS_personality, PER_LINUX32));
	syscall(SYS_personality, 0);
	return r;
}

/* A blocked call through another ABI, in a child: -SIGSYS when the filter
 * killed it, else its result. */
static long in_child(void (*fn)(void))
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fn();
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		return -1000 - WTERMSIG(st);
	return WEXITSTATUS(st) ? -WEXITSTATUS(st) : 0;
}
static void i386_unshare(void)
{
#if defined(__x86_64__)
	long ret;
	/* i386 unshare is 310; int $0x80 enters through the 32-bit table. */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(310L), "b"((long)CLONE_NEWUSER) : "memory");
	_exit(ret < 0 ? (int)-ret : 0);
#endif
}
static void i386_getpid(void)
{
#if defined(__x86_64__)
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	_exit(ret < 0 ? (int)-ret : 0);
#endif
}
static void x32_unshare(void)
{
	long r = syscall(0x40000000L | SYS_unshare, CLONE_NEWUSER);
	_exit(r < 0 ? errno : 0);
}
static long op_i386_unshare(void)
{
	return in_child(i386_unshare);
}
static long op_i386_getpid(void)
{
	return in_child(i386_getpid);
}
static long op_x32_unshare(void)
{
	return in_child(x32_unshare);
}
/* A second filter that allows everything, stacked by the process itself:
 * the kernel runs every filter and the most restrictive answer wins. */
static void stacked(void)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {1, allow};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		_exit(100);
	if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || unshare(CLONE_NEWUSER) == 0)
		_exit(101);
	_exit(errno);
}
static long op_stacked_filter(void)
{
	return in_child(stacked);
}

/* In a user namespace of its own first (what a browser's sandbox does),
 * where the kernel would allow the rest: only the filter can refuse it. In
 * a child; EPERM when even the user namespace is refused. */
static void nested_userns(void)
{
	if (unshare(CLONE_NEWUSER) < 0)
		_exit(errno);
}
static void nested_pid_net_ipc(void)
{
	nested_userns();
	_exit(unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC) < 0 ? errno : 0);
}
static void nested_mountns(void)
{
	nested_userns();
	_exit(unshare(CLONE_NEWNS) < 0 ? errno : 0);
}
static void nested_utsns(void)
{
	nested_userns();
	_exit(unshare(CLONE_NEWUTS) < 0 ? errno : 0);
}
static void nested_chroot(void)
{
	nested_userns();
	_exit(chroot("/") < 0 ? errno : 0);
}
/* Back into a network namespace this user namespace owns. */
static void nested_setns(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		_exit(errno);
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || unshare(CLONE_NEWNET) < 0)
		_exit(errno);
	_exit(setns(fd, CLONE_NEWNET) < 0 ? errno : 0);
}
static long op_nested_pid_net_ipc(void)
{
	return in_child(nested_pid_net_ipc);
}
static long op_nested_mountns(void)
{
	return in_child(nested_mountns);
}
static long op_nested_utsns(void)
{
	return in_child(nested_utsns);
}
static long op_nested_chroot(void)
{
	return in_child(nested_chroot);
}
static long op_nested_setns(void)
{
	return in_child(nested_setns);
}

static const struct {
	const char *name;
	long (*fn)(void);
} ops[] = {
#define OP(n)                                                                                      \
	{                                                                                          \
#n, op_##n                                                                         \
	}
    OP(socket_unix),
    OP(socket_unix_dgram),
    OP(socket_unix_seqpacket),
    OP(seqpacket_listen_abstract),
    OP(socket_unix_hibit),
    OP(socketpair_stream),
    OP(socketpair_dgram),
    OP(socketpair_seqpacket),
    OP(socket_inet),
    OP(socket_inet6),
    OP(netdev_down),
    OP(netns_owner),
    OP(tap_attach),
    OP(socket_netlink_route),
    OP(socket_netlink_audit),
    OP(socket_packet),
    OP(socket_vsock),
    OP(socket_alg),
    OP(tiocsti),
    OP(tiocsti_hibit),
    OP(tioclinux),
    OP(unshare_user),
    OP(unshare_net),
    OP(unshare_mount),
    OP(clone_newuser),
    OP(clone3),
    OP(setns),
    OP(mount),
    OP(umount2),
    OP(pivot_root),
    OP(chroot),
    OP(open_tree),
    OP(fsopen),
    OP(move_mount),
    OP(mount_setattr),
    OP(add_key),
    OP(keyctl),
    OP(request_key),
    OP(bpf),
    OP(perf_event_open),
    OP(userfaultfd),
    OP(io_uring_setup),
    OP(ptrace),
    OP(process_vm_readv),
    OP(kcmp),
    OP(pidfd_getfd),
    OP(init_module),
    OP(delete_module),
    OP(kexec_load),
    OP(reboot),
    OP(swapon),
    OP(acct),
    OP(quotactl),
    OP(syslog),
    OP(settimeofday),
    OP(clock_settime),
    OP(open_by_handle_at),
    OP(iopl),
    OP(personality_no_aslr),
    OP(personality_no_aslr_hibit),
    OP(personality_query),
    OP(personality_linux32),
    OP(i386_unshare),
    OP(i386_getpid),
    OP(x32_unshare),
    OP(stacked_filter),
    OP(nested_pid_net_ipc),
    OP(nested_mountns),
    OP(nested_utsns),
    OP(nested_chroot),
    OP(nested_setns),
#undef OP
};

static void report(const char *name, long r)
{
	if (r <= -1000)
		printf("%s killed:%s\n", name, sigabbrev_np((int)(-r - 1000)));
	else if (r < 0)
		printf("%s %s\n", name, strerrorname_np((int)-r) ? strerrorname_np((int)-r) : "E?");
	else
		printf("%s ok\n", name);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "tiocsti-stdin") == 0) {
		int failed = 0;
		for (const char *c = argv[2]; *c; c++)
			if (ioctl(0, TIOCSTI, c) < 0) {
				printf("tiocsti-stdin %s\n", strerrorname_np(errno));
				failed = 1;
				break;
			}
		if (!failed)
			printf("tiocsti-stdin ok\n");
		return 0;
	}
	bool all = argc < 2 || strcmp(argv[1], "all") == 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		bool want = all;
		for (int a = 1; a < argc && !want; a++)
			want = strcmp(argv[a], ops[i].name) == 0;
		if (want)
			report(ops[i].name, ops[i].fn());
	}
	return 0;
}
