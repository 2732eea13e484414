/* SPDX-License-Identifier: MIT */
/* Which of the plan's mounts agentsandbox-init makes instead of bubblewrap
 * (bubblewrap re-reads /proc/self/mountinfo for every bind it makes, so
 * hundreds of git protections cost hundreds of milliseconds), and the list
 * handed to it: linux/init/mounts.c reads it. */
#ifndef ASB_BWRAP_INIT_MOUNTS_H
#define ASB_BWRAP_INIT_MOUNTS_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where bubblewrap binds the host's staged top-level directories (the
 * host's /etc at INIT_HOST_STAGE/etc) for init, which covers them (and its
 * own staging tmpfs, stacked there) once its mounts are made. */
#define INIT_HOST_STAGE ASB_RUN_DIR "/.host"
/* The one top-level directory staged: the plan's system entries in /etc
 * (what a user declares elsewhere stays bubblewrap's). */
#define INIT_STAGED_TOP "/etc"

enum { INIT_MOUNT_SELF = 1, INIT_MOUNT_STAGED = 2 };

struct init_mounts {
	uint8_t *delegated; /* per plan entry: 0, or INIT_MOUNT_*: init makes it */
	uint32_t n_entries, n_delegated;
	uint32_t n_staged; /* of those, binds from the host's staged /etc */
	char *list;        /* what init reads, the files' contents included */
	size_t list_len;
	char *shown; /* the same without the contents: --show-config, the session */
	size_t shown_len;
	int fd; /* the list, sealed (a real launch), or -1 */
};

#define INIT_MOUNTS_INIT                                                                           \
	{                                                                                          \
		.fd = -1                                                                           \
	}

/* Decide and write the list (none when there is little to gain, so the
 * common launch runs as before, or when bubblewrap may not hand init the
 * capabilities: !caps_allowed). Pure: reads the plan, fstat's its fds,
 * lstat's the host directories it would stage. */
int init_mounts_plan(const struct asb_host *host, struct asb_ctx *ctx, bool caps_allowed,
                     const char *const *ro_dirs, size_t n_ro, struct init_mounts *m);
/* The list in a sealed memfd for init to read (m->fd). */
int init_mounts_seal(struct init_mounts *m);
void init_mounts_clear(struct init_mounts *m);

static inline bool init_mounts_delegated(const struct init_mounts *m, uint32_t i)
{
	return i < m->n_entries && m->delegated && m->delegated[i];
}

static inline bool init_mounts_staged(const struct init_mounts *m, uint32_t i)
{
	return init_mounts_delegated(m, i) && m->delegated[i] == INIT_MOUNT_STAGED;
}

#endif
