/* SPDX-License-Identifier: MIT */
#include "seccomp_groups.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name;
	const char *what;
} groups[SECCOMP_G_COUNT] = {
    [SECCOMP_G_UNIX] = {"unix_sockets", "AF_UNIX socket(), socketpair(AF_UNIX, SOCK_DGRAM)"},
    [SECCOMP_G_FAMILIES] = {"socket_families",
                            "socket families other than inet, inet6, unix, netlink route"},
    [SECCOMP_G_TTY] = {"tty_injection", "ioctl TIOCSTI, TIOCLINUX (low 32 bits compared)"},
    [SECCOMP_G_USERNS] = {"userns",
                          "new user, pid, network and IPC namespaces (unshare, clone flags)"},
    [SECCOMP_G_MOUNT] = {"mount", "mount, umount, pivot_root, the new mount API"},
    [SECCOMP_G_KEYRING] = {"keyring", "add_key, keyctl, request_key"},
    [SECCOMP_G_BPF] = {"bpf", "bpf"},
    [SECCOMP_G_PERF] = {"perf", "perf_event_open"},
    [SECCOMP_G_USERFAULTFD] = {"userfaultfd", "userfaultfd"},
    [SECCOMP_G_IO_URING] = {"io_uring", "io_uring_setup, io_uring_enter, io_uring_register"},
    [SECCOMP_G_PTRACE] = {"ptrace", "ptrace, process_vm_readv/writev, kcmp, pidfd_getfd"},
    [SECCOMP_G_KERNEL] = {"kernel", "modules, kexec, reboot, swap, acct, quotactl, syslog, setting "
                                    "the clock, open_by_handle_at, iopl/ioperm"},
    [SECCOMP_G_PERSONALITY] = {"personality",
                               "personality() other than PER_LINUX, PER_LINUX32, UNAME26 "
                               "and the query"},
    [SECCOMP_G_UNIX_PAIRS] = {"unix_pairs", "socketpair(AF_UNIX, SOCK_SEQPACKET): a connected "
                                            "pair, which reaches nothing but itself"},
    [SECCOMP_G_NAMESPACES] = {"namespaces",
                              "new mount, UTS, cgroup and time namespaces (unshare, clone "
                              "flags), and clone3, whose flags the filter cannot read"},
    [SECCOMP_G_SETNS] = {"setns", "setns: joining another namespace"},
    [SECCOMP_G_CHROOT] = {"chroot", "chroot"},
    [SECCOMP_G_UNIX_SEQPACKET] = {"unix_seqpacket",
                                  "AF_UNIX socket(SOCK_SEQPACKET): a listener of its own (an "
                                  "abstract name is the sandbox's network namespace's) or a "
                                  "seqpacket socket in its view"},
};

const char *seccomp_group_name(int group)
{
	return group >= 0 && group < SECCOMP_G_COUNT ? groups[group].name : "?";
}

const char *seccomp_group_what(int group)
{
	return group >= 0 && group < SECCOMP_G_COUNT ? groups[group].what : "?";
}

int seccomp_group_lookup(const char *name)
{
	for (int g = 0; g < SECCOMP_G_COUNT; g++)
		if (strcmp(groups[g].name, name) == 0)
			return g;
	return -ENOENT;
}
