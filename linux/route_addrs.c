/* SPDX-License-Identifier: MIT */
/* A network namespace's addresses, read over a route (rtnetlink) socket
 * made in it: "IFACE ADDR" a line, IPv4 then IPv6 in the kernel's order, as
 * getifaddrs(3) would list them there. The socket may be used from another
 * namespace: a dump answers for the namespace it was made in. */
#include "platform.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* A sandbox's namespace has a handful of interfaces; more are named by
 * their index. */
#define MAX_LINKS 32

struct link_name {
	int index;
	char name[IF_NAMESIZE];
};

struct dump {
	struct link_name links[MAX_LINKS];
	size_t n_links;
	FILE *text; /* open_memstream */
};

static void on_link(struct dump *d, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)IFLA_PAYLOAD(h);
	for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_IFNAME && d->n_links < MAX_LINKS) {
			struct link_name *l = &d->links[d->n_links++];
			l->index = ifi->ifi_index;
			snprintf(l->name, sizeof(l->name), "%.*s", (int)RTA_PAYLOAD(a),
			         (const char *)RTA_DATA(a));
		}
}

static int on_addr(struct dump *d, const struct nlmsghdr *h)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 0;
	/* IPv4: IFA_LOCAL is the interface's own (IFA_ADDRESS the peer's on a
	 * point-to-point link); IPv6 has IFA_ADDRESS only. */
	const void *local = NULL, *address = NULL;
	int len = (int)IFA_PAYLOAD(h);
	for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t want = ifa->ifa_family == AF_INET ? 4 : 16;
		if (RTA_PAYLOAD(a) < want)
			continue;
		if (a->rta_type == IFA_LOCAL)
			local = RTA_DATA(a);
		else if (a->rta_type == IFA_ADDRESS)
			address = RTA_DATA(a);
	}
	const void *addr = local ? local : address;
	if (!addr)
		return 0;
	char text[INET6_ADDRSTRLEN];
	if (!inet_ntop(ifa->ifa_family, addr, text, sizeof(text)))
		return -errno;
	char index[IF_NAMESIZE];
	const char *name = NULL;
	for (size_t i = 0; i < d->n_links && !name; i++)
		if (d->links[i].index == (int)ifa->ifa_index)
			name = d->links[i].name;
	if (!name) {
		snprintf(index, sizeof(index), "if%u", ifa->ifa_index);
		name = index;
	}
	return fprintf(d->text, "%s %s\n", name, text) < 0 ? -ENOMEM : 0;
}

/* One dump request (RTM_GETLINK or RTM_GETADDR), its answers handled. */
static int dump(int sock, uint16_t type, uint32_t seq, struct dump *d)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
	} req = {.h = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtgenmsg)),
	               .nlmsg_type = type,
	               .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
	               .nlmsg_seq = seq},
	         .g = {.rtgen_family = AF_UNSPEC}};
	if (send(sock, &req, req.h.nlmsg_len, MSG_NOSIGNAL) < 0)
		return -errno;
	long buf[8192 / sizeof(long)]; /* aligned for the headers read in place */
	for (;;) {
		ssize_t n = recv(sock, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		unsigned int left = (unsigned int)n;
		for (const struct nlmsghdr *h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				return e->error ? e->error : -EIO;
			}
			if (h->nlmsg_type == RTM_NEWLINK)
				on_link(d, h);
			else if (h->nlmsg_type == RTM_NEWADDR) {
				int r = on_addr(d, h);
				if (r < 0)
					return r;
			}
		}
	}
}

int platform_route_describe(int route_sock, char **out)
{
	char *text = NULL;
	size_t len = 0;
	struct dump d = {.text = open_memstream(&text, &len)};
	if (!d.text)
		return -ENOMEM;
	int r = dump(route_sock, RTM_GETLINK, 1, &d);
	if (r == 0)
		r = dump(route_sock, RTM_GETADDR, 2, &d);
	if (fclose(d.text) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(text);
		return r;
	}
	*out = text;
	return 0;
}
