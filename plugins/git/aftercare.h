/* SPDX-License-Identifier: MIT */
/* After the sandbox exits: audit what the agent left in the git dirs (the
 * placeholders the masks created are common/placeholders.h's). */
#ifndef ASB_GIT_AFTERCARE_H
#define ASB_GIT_AFTERCARE_H

#include <agentsandbox/plugin.h>

#include <sys/types.h>

#include "placeholders.h"
#include "repo_scan.h"

/* Re-scan the workspace: quarantine what the host's git would run in
 * repositories that appeared during the session (quarantine.h; with
 * `quarantine` off, only warn), and remove a `commondir` the agent planted
 * in a protected git dir (it would redirect config and hooks). */
void audit_after_exit(const struct asb_host *host, struct asb_ctx *ctx,
                      const struct rs_options *opt, const struct rs_result *before, int quarantine);

#endif
