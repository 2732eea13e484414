/* Is an address the host's own? Asked of the routing table over rtnetlink. */
#include "hostaddr.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int nl_fd = -1;
static uint32_t nl_seq;

int hostaddr_init(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	struct timeval tv = {.tv_sec = 1}; /* the kernel answers at once; never hang the loop */
	int fd;

	if (nl_fd >= 0)
		return 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	nl_fd = fd;
	return 0;
}

/* RTM_GETROUTE for one destination: 1 delivered locally, 0 not, -errno. */
static int route_is_local(int family, const void *addr, size_t alen)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} resp;

	if (nl_fd < 0)
		return -ENOTCONN;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = ++nl_seq;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	struct rtattr *rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = RTA_DST;
	rta->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), addr, alen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);

	if (send(nl_fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t got = recv(nl_fd, &resp, sizeof(resp), 0);
		if (got < 0)
			return errno == EINTR ? -EAGAIN : -errno;
		char *p = resp.buf;
		size_t left = (size_t)got;
		while (left >= sizeof(struct nlmsghdr)) {
			struct nlmsghdr *h = (struct nlmsghdr *)(void *)p;
			if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > left)
				break;
			size_t step = NLMSG_ALIGN(h->nlmsg_len);
			p += step;
			left = step < left ? left - step : 0;
			if (h->nlmsg_seq != nl_seq)
				continue; /* a late answer to a question that timed out */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				/* No route at all: nothing answers there, the host included. */
				if (e->error == -ENETUNREACH || e->error == -EHOSTUNREACH)
					return 0;
				return e->error ? e->error : -EPROTO;
			}
			if (h->nlmsg_type != RTM_NEWROUTE)
				return -EPROTO;
			const struct rtmsg *rt = NLMSG_DATA(h);
			return rt->rtm_type == RTN_LOCAL || rt->rtm_type == RTN_BROADCAST ||
			       rt->rtm_type == RTN_ANYCAST || rt->rtm_type == RTN_MULTICAST;
		}
	}
}

int hostaddr_is_local(const struct host_addr *a)
{
	struct in_addr v4;
	int rc;

	if (a->family == AF_INET)
		return route_is_local(AF_INET, &a->v4, sizeof(a->v4));
	if (host_addr_embedded_v4(a, &v4) && (rc = route_is_local(AF_INET, &v4, sizeof(v4))) != 0)
		return rc;
	return route_is_local(AF_INET6, &a->v6, sizeof(a->v6));
}
