/* SPDX-License-Identifier: MIT */
/* The host directory behind what the browsers keep in the ephemeral home:
 * Firefox's profile and Chromium's NSS database, beside the session
 * directories (on disk, the user's own). The plan binds its
 * subdirectories, so it is made at pre_mount; the network hook fills the
 * NSS databases once the proxy's CA exists (the sandbox exists then, the
 * agent has not started, and the plan is final: only directories it
 * already binds can change); it is removed at exit without following a
 * link the agent left in it. It holds a lock while the launch lives: a
 * directory a killed launch left behind (its lock free) goes at the next
 * launch's pre_mount. */
#ifndef ASB_BROWSERS_PROFILES_H
#define ASB_BROWSERS_PROFILES_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>
#include <stddef.h>

#include "rundir.h"

/* A common/rundir.h runtime directory named "browsers" (.browsers-XXXXXX). */
struct profiles {
	struct rundir run;
};

#define PROFILES_INIT                                                                              \
	{                                                                                          \
		.run = RUNDIR_INIT                                                                 \
	}

/* Make it (0700) in `parent` (made if missing), after removing what killed
 * launches left there. */
int profiles_create(struct profiles *p, const char *parent);

/* DIR/rel as a new string (made as a directory, 0700, with `mkdir`). */
char *profiles_path(const struct profiles *p, const char *rel, bool mkdir_it);

/* Write `text` to DIR/rel (a new file, 0600). */
int profiles_write(const struct profiles *p, const char *rel, const char *text);

void profiles_remove(struct profiles *p);

/* An NSS database (sql:) in `dir` with the PEM certificate `ca` trusted to
 * issue server certificates, made by `certutil` on the host. -errno, with
 * certutil's exit status logged. */
int nssdb_trust_ca(const struct asb_host *host, struct asb_ctx *ctx, const char *certutil,
                   const char *dir, const char *ca);

#endif
