/* SPDX-License-Identifier: MIT */
/* The seccomp filter: compiled with libseccomp at each launch, exported as
 * BPF into a sealed memfd that the backend hands to the sandbox (bwrap
 * --add-seccomp-fd). A deny list, grouped so that a plugin can lift one group
 * (e.g. "userns" for Chromium's own sandbox) and --check can report each. */
#ifndef ASB_CORE_SYSCALL_FILTER_H
#define ASB_CORE_SYSCALL_FILTER_H

#include <stdbool.h>
#include <stdint.h>

enum seccomp_group {
	SECCOMP_G_UNIX,        /* AF_UNIX socket(), socketpair(DGRAM|SEQPACKET) */
	SECCOMP_G_FAMILIES,    /* socket families beyond inet, inet6, unix, netlink-route */
	SECCOMP_G_TTY,         /* TIOCSTI, TIOCLINUX */
	SECCOMP_G_USERNS,      /* new namespaces (unshare/clone flags, clone3), setns */
	SECCOMP_G_MOUNT,       /* mount API, pivot_root, chroot */
	SECCOMP_G_KEYRING,     /* add_key, keyctl, request_key */
	SECCOMP_G_BPF,         /* bpf */
	SECCOMP_G_PERF,        /* perf_event_open */
	SECCOMP_G_USERFAULTFD, /* userfaultfd */
	SECCOMP_G_IO_URING,    /* io_uring_* (can create sockets behind the filter's back) */
	SECCOMP_G_PTRACE,      /* ptrace, process_vm_*, kcmp, pidfd_getfd */
	SECCOMP_G_KERNEL,      /* modules, kexec, reboot, swap, acct, quota, syslog, clock */
	SECCOMP_G_PERSONALITY, /* personality() other than the usual ones */
	SECCOMP_G_COUNT,
};

/* Short name ("userns") and a line for --check/--show-config. */
const char *seccomp_group_name(int group);
const char *seccomp_group_what(int group);
/* The group's index, or -ENOENT. */
int seccomp_group_lookup(const char *name);

/* What to compile: a bit per group (1u << SECCOMP_G_*) that is lifted. */
struct seccomp_opts {
	uint32_t allowed;
};

/* Compile the filter for the native architecture (every other architecture
 * the kernel runs — i386 and x32 on x86_64, arm on aarch64 — is killed) and
 * return a sealed memfd holding the BPF program, positioned at 0. */
int seccomp_compile(const struct seccomp_opts *opts, int *out_fd);

/* The kernel can filter (seccomp mode 2 built in)? 0 or -errno. */
int seccomp_available(void);

/* The native architecture's name ("x86_64") and the killed ones. */
const char *seccomp_arch_summary(void);

#endif
