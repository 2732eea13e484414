/* SPDX-License-Identifier: MIT */
/* One descriptor over a unix socket (SCM_RIGHTS), with the bytes it comes
 * with: how a process hands a socket it made (in another namespace, or
 * before the other end needed it) to one that serves it. */
#ifndef ASB_COMMON_FDPASS_H
#define ASB_COMMON_FDPASS_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Send the n_iov buffers, and `fd` beside them unless it is negative.
 * 0 or -errno (never SIGPIPE). */
int fd_send(int sock, const struct iovec *iov, size_t n_iov, int fd);

/* Receive up to `len` bytes and at most one descriptor, close-on-exec:
 * *fd_out is -1 when none came (any extra is closed). Returns the bytes
 * read (0: the other end closed) or -errno. */
ssize_t fd_recv(int sock, void *buf, size_t len, int *fd_out);

#endif
