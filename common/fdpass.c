/* SPDX-License-Identifier: MIT */
#include "fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE is the callers' concern */
#endif
#ifndef MSG_CMSG_CLOEXEC
#define MSG_CMSG_CLOEXEC 0 /* set right after receiving instead */
#endif

union fd_cmsg {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

int fd_send(int sock, const struct iovec *iov, size_t n_iov, int fd)
{
	union fd_cmsg u;
	struct msghdr msg = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (int)n_iov};
	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t n;
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

ssize_t fd_recv(int sock, void *buf, size_t len, int *fd_out)
{
	union fd_cmsg u;
	struct iovec iov = {buf, len};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = u.buf,
	                     .msg_controllen = sizeof(u.buf)};
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd_out = -1;
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n_fds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n_fds; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd_out < 0) {
				*fd_out = fd;
				if (!MSG_CMSG_CLOEXEC)
					(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
			} else {
				close(fd);
			}
		}
	}
	return n;
}
