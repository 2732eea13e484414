/* The host itself as a destination. A name that resolves to one of the host's own
 * addresses (any interface, v4 or v6, or a range routed locally) dials the host's
 * services just as loopback does, whatever class the address has; so does an IPv6
 * address embedding such an IPv4 address (hostcheck's host_addr_embedded_v4).
 *
 * Rather than a list of interface addresses that goes stale, the kernel's routing
 * table is asked at each dial (one rtnetlink round trip per address): a route of
 * type local, broadcast, anycast or multicast means the host delivers it itself. */
#pragma once

#include "hostcheck.h"

int hostaddr_init(void);
/* 1: the host's own address (or embeds one), 0: not, -errno: cannot tell (the
 * caller treats that as the host's own). */
int hostaddr_is_local(const struct host_addr *a);
