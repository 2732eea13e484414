/* Host names and addresses: normalisation, IP literal parsing, classification.
 * Pure functions, no I/O; shared with the rules parser. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define HOST_MAX 254 /* 253 characters plus NUL */

struct host_addr {
	int family; /* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

/* Lowercase, drop one trailing dot, strip IPv6 brackets. Refuses non-ASCII
 * (-EILSEQ), characters no DNS name or IP literal has, empty labels (-EINVAL).
 * A name whose last label is numeric is parsed as an IPv4 literal in any form
 * (dotted, decimal, octal, hex, short) and, when valid, written in canonical
 * dotted form; *is_ip tells which. Invalid numeric forms give -EINVAL. */
int host_normalize(const char *in, size_t len, char *out, size_t outlen, bool *is_ip);

/* Parse a canonical literal as written by host_normalize. 1 = IP, 0 = a name. */
int host_parse_ip(const char *host, struct host_addr *out);

enum addr_class {
	ADDR_PUBLIC = 0,
	ADDR_LOOPBACK,
	ADDR_PRIVATE, /* RFC 1918, ULA */
	ADDR_LINKLOCAL,
	ADDR_CGNAT, /* 100.64/10 */
	ADDR_MULTICAST,
	ADDR_UNSPECIFIED,
	ADDR_RESERVED, /* this-network, benchmarking, documentation, class E, broadcast, site-local
	                */
};

/* Classify an address; v4-mapped, v4-compatible, SIIT (::ffff:0:a.b.c.d), NAT64
 * (64:ff9b::/96) and 6to4 forms are classified by the IPv4 address they embed, ISATAP
 * interface ids by theirs when it is not public. */
enum addr_class host_addr_classify(const struct host_addr *a);

/* The IPv4 address an IPv6 address embeds in one of those forms; false if none. */
bool host_addr_embedded_v4(const struct host_addr *a, struct in_addr *out);

const char *host_addr_class_name(enum addr_class c);

int host_addr_from_sockaddr(const struct sockaddr *sa, struct host_addr *out);
