/* SPDX-License-Identifier: MIT */
/* The seccomp filter's groups: the policy's vocabulary for what the filter
 * denies (portable: plugins lift groups by name on every platform, --check
 * lists them); linux/syscall_filter.c compiles them into BPF. */
#ifndef ASB_CORE_SECCOMP_GROUPS_H
#define ASB_CORE_SECCOMP_GROUPS_H

enum seccomp_group {
	SECCOMP_G_UNIX,        /* AF_UNIX socket(), socketpair(DGRAM|SEQPACKET) */
	SECCOMP_G_FAMILIES,    /* socket families beyond inet, inet6, unix, netlink-route */
	SECCOMP_G_TTY,         /* TIOCSTI, TIOCLINUX */
	SECCOMP_G_USERNS,      /* new user, pid, net, ipc namespaces (unshare/clone flags) */
	SECCOMP_G_MOUNT,       /* mount API, pivot_root */
	SECCOMP_G_KEYRING,     /* add_key, keyctl, request_key */
	SECCOMP_G_BPF,         /* bpf */
	SECCOMP_G_PERF,        /* perf_event_open */
	SECCOMP_G_USERFAULTFD, /* userfaultfd */
	SECCOMP_G_IO_URING,    /* io_uring_* (can create sockets behind the filter's back) */
	SECCOMP_G_PTRACE,      /* ptrace, process_vm_*, kcmp, pidfd_getfd */
	SECCOMP_G_KERNEL,      /* modules, kexec, reboot, swap, acct, quota, syslog, clock */
	SECCOMP_G_PERSONALITY, /* personality() other than the usual ones */
	/* Split off the groups above so that a browser's own sandbox can have
	 * what it uses (plugins/browsers) and nothing next to it. */
	SECCOMP_G_UNIX_PAIRS, /* socketpair(AF_UNIX, SOCK_SEQPACKET) */
	SECCOMP_G_NAMESPACES, /* new mount, uts, cgroup, time namespaces; clone3 */
	SECCOMP_G_SETNS,      /* setns */
	SECCOMP_G_CHROOT,     /* chroot */
	/* Split off SECCOMP_G_UNIX so that CUDA's runtime can have what it
	 * uses (plugins/devices) and nothing next to it; lifted with it. */
	SECCOMP_G_UNIX_SEQPACKET, /* socket(AF_UNIX, SOCK_SEQPACKET) */
	SECCOMP_G_COUNT,
};

/* Short name ("userns") and a line for --check/--show-config. */
const char *seccomp_group_name(int group);
const char *seccomp_group_what(int group);
/* The group's index, or -ENOENT. */
int seccomp_group_lookup(const char *name);

#endif
