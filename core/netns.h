/* SPDX-License-Identifier: MIT */
/* Sockets inside the sandbox's network namespace, without shell bridges: a
 * helper process joins the sandbox's user and network namespaces and hands
 * back, on request, listening or connecting sockets created there. It lives
 * as long as the launcher (it dies with it) and serves requests in order. */
#ifndef ASB_CORE_NETNS_H
#define ASB_CORE_NETNS_H

#include "util.h"

#include <stdint.h>
#include <sys/types.h>

struct netns_helper {
	struct child proc;
	int sock; /* the launcher's end of the request channel */
};

/* Start the helper for the namespaces of `sandbox_pid`. */
int netns_helper_start(struct netns_helper *h, pid_t sandbox_pid);

/* A listening TCP socket on 127.0.0.1:port inside (SOCK_NONBLOCK|CLOEXEC). */
int netns_listen(struct netns_helper *h, uint16_t port);

/* A non-blocking TCP socket connecting to 127.0.0.1:port inside (the
 * connection may still be in progress). */
int netns_connect(struct netns_helper *h, uint16_t port);

/* Read the sandbox's addresses and routes (for network.json): text, new. */
int netns_describe(struct netns_helper *h, char **out);

void netns_helper_stop(struct netns_helper *h);

#endif
