/* SPDX-License-Identifier: MIT */
/* openat2(2) with no symlink followed (RESOLVE_NO_SYMLINKS, magic links
 * included), for the launcher's pins (platform.c) and agentsandbox-init's
 * walks (init/mounts.c). Defined here, not taken from <linux/openat2.h>:
 * the kernel may have it where the build's headers do not. */
#ifndef ASB_LINUX_NOSYMLINKS_H
#define ASB_LINUX_NOSYMLINKS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define RESOLVE_NO_MAGICLINKS_ 0x02ull
#define RESOLVE_NO_SYMLINKS_   0x04ull
#define RESOLVE_BENEATH_       0x08ull

struct open_how_ {
	uint64_t flags, mode, resolve;
};

/* An O_PATH | O_CLOEXEC fd on what `path` (from dirfd) names, reached
 * through no symlink, with `resolve` added (RESOLVE_BENEATH_); or -errno:
 * -ELOOP at a symlink, -ENOSYS on a kernel without openat2. */
static inline int open_nosymlinks(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how_ how = {.flags = O_PATH | O_CLOEXEC,
	                        .resolve = resolve | RESOLVE_NO_SYMLINKS_ | RESOLVE_NO_MAGICLINKS_};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	return fd >= 0 ? (int)fd : -errno;
}

#endif
