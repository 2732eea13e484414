/* SPDX-License-Identifier: MIT */
/* The mount API's system calls and flags (open_tree, move_mount,
 * mount_setattr, fsopen/fsconfig/fsmount), for agentsandbox-init's mounts
 * (mounts.c) and the sandbox it makes itself (sandbox.c). Defined here:
 * Debian 12's and musl's headers lack some of them. */
#ifndef ASB_INIT_MOUNT_API_H
#define ASB_INIT_MOUNT_API_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define OPEN_TREE_CLONE_     1u
#define OPEN_TREE_CLOEXEC_   02000000u
#define AT_RECURSIVE_        0x8000
#define MOVE_MOUNT_F_EMPTY_  0x4u
#define MOVE_MOUNT_T_EMPTY_  0x40u
#define MOUNT_ATTR_RDONLY_   0x1ull
#define MOUNT_ATTR_NOSUID_   0x2ull
#define MOUNT_ATTR_NODEV_    0x4ull
#define MOUNT_ATTR_NOEXEC_   0x8ull
#define FSOPEN_CLOEXEC_      1u
#define FSMOUNT_CLOEXEC_     1u
#define FSCONFIG_SET_STRING_ 1u
#define FSCONFIG_CMD_CREATE_ 6u

struct mount_attr_ {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static void closep_(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define _autoclose_ __attribute__((cleanup(closep_)))

#endif
