/* SPDX-License-Identifier: MIT */
/* What a plugin gathers for its describe hook (--show-config) while it
 * configures and plans: "key\tvalue" lines in a strv, shown in order. */
#ifndef ASB_COMMON_SHOWN_H
#define ASB_COMMON_SHOWN_H

#include <agentsandbox/plugin.h>

#include "util.h"

/* Add one line; -ENOMEM. */
int shown_add(struct strv *shown, const char *key, const char *fmt, ...) _printf_(3, 4);
/* Hand every line to host->describe; its first error. */
int shown_describe(const struct asb_host *host, struct asb_ctx *ctx, const struct strv *shown);

#endif
