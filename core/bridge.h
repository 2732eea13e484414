/* SPDX-License-Identifier: MIT */
/* Port bridges on the supervisor's libev loop: a listening socket on one
 * side, and for each accepted connection a connection made on the other
 * side, the two spliced with bounded buffers and backpressure both ways.
 * Closing either side closes the other once what was in flight is written. */
#ifndef ASB_CORE_BRIDGE_H
#define ASB_CORE_BRIDGE_H

#include <ev.h>
#include <stdint.h>

/* Make the far side of one accepted connection: a non-blocking socket whose
 * connect may be in progress, or -errno. */
typedef int (*bridge_dial_fn)(void *userdata);

struct bridge_listener;

/* Start accepting on `listen_fd` (owned from now on). `name` is for logs. */
int bridge_listen(struct ev_loop *loop, int listen_fd, bridge_dial_fn dial, void *userdata,
                  const char *name, struct bridge_listener **out);

/* Stop accepting and close every connection of this listener. */
void bridge_close(struct bridge_listener *l);

/* Live connections (for tests and logs). */
unsigned bridge_active(const struct bridge_listener *l);

#endif
