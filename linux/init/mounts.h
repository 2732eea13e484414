/* SPDX-License-Identifier: MIT */
/* The mounts a backend hands to agentsandbox-init (plugins/bwrap/init_mounts.c
 * writes them), made in a mount namespace of init's own, and the
 * capabilities that needed dropped for good. */
#ifndef ASB_INIT_MOUNTS_H
#define ASB_INIT_MOUNTS_H

#include <stdbool.h>

/* Read the list from fd (closed), make every mount in order. 0, or -errno
 * with *what naming the path or step that failed. legacy: mount(2) and
 * MS_REMOUNT only, as on a kernel without the mount API (tests). */
int init_mounts_apply(int fd, bool legacy, const char **what);

/* Every capability gone: ambient, bounding set, the rest; securebits that
 * keep root from getting any back. 0, or -errno with *what set. */
int init_drop_caps(const char **what);

#endif
