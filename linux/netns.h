/* SPDX-License-Identifier: MIT */
/* What the open mode's engine (slirp.c) asks of the netns helper, beyond
 * core/platform.h. */
#ifndef ASB_LINUX_NETNS_H
#define ASB_LINUX_NETNS_H

struct netns_link;

/* The open mode's engine's device in the namespace. */
#define NETNS_TAP_NAME "tap0"

/* A persistent tap device `name` in the helper's network namespace. */
int netns_make_tap(struct netns_link *l, const char *name);

#endif
