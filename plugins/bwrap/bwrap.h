/* SPDX-License-Identifier: MIT */
#ifndef ASB_BWRAP_H
#define ASB_BWRAP_H

#include <agentsandbox/plugin.h>

/* Render the plan as bubblewrap arguments through host->out_arg, starting
 * with `bwrap_path`. Pure: no fork, no exec, no filesystem changes. */
int bwrap_render(const struct asb_host *host, struct asb_ctx *ctx, const char *bwrap_path);

/* The bwrap version found by probe (decides optional flags such as
 * --disable-userns, 0.8+). Unknown: none of them. */
void bwrap_set_version(unsigned major, unsigned minor);

#endif
