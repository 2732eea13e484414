/* SPDX-License-Identifier: MIT */
/* Bring up a new network namespace's loopback: the launcher's namespace
 * helper (netns.c) and agentsandbox-init's own sandbox (init/sandbox.c).
 * No stdio: the caller may be a child sharing the launcher's memory. */
#ifndef ASB_LINUX_LOOPBACK_H
#define ASB_LINUX_LOOPBACK_H

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static inline int loopback_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	struct ifreq ifr = {0};
	memcpy(ifr.ifr_name, "lo", sizeof("lo"));
	int r = 0;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		r = -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (r == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		r = -errno;
	close(s);
	return r;
}

#endif
