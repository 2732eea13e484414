/* SPDX-License-Identifier: MIT */
/* Repositories born inside the sandbox (git init, clone, mv, a .git pointer
 * or symlink the agent made): their hooks and config were writable there,
 * so after exit everything in them that the host's git would execute is
 * moved aside, not deleted, into <git dir>/agentsandbox-quarantine/<session>/
 * (a pointer or symlink next to itself), and the user is told where and how
 * to restore it. */
#ifndef ASB_GIT_QUARANTINE_H
#define ASB_GIT_QUARANTINE_H

#include <agentsandbox/plugin.h>

#include "repo_scan.h"

/* Config keys kept in a new repository's config: everything else (hooksPath,
 * fsmonitor, pager, editor, sshCommand, aliases, filters, textconv,
 * credential helpers, includes, and whatever git adds next) goes to the
 * quarantine. `key` as `git config --list` prints it (section and name in
 * lower case). Pure, unit-tested. */
int qr_key_kept(const char *key);

/* Write `n` key/value pairs ("section.sub.name", value or NULL for a
 * valueless key) as a git config file. Pure. Returns a new string. */
char *qr_render_config(const char *const *keys, const char *const *values, size_t n);

/* Quarantine what needs it in the repositories of `now` that `before` did
 * not have. */
void qr_after_exit(const struct asb_host *host, struct asb_ctx *ctx, const struct rs_options *opt,
                   const struct rs_result *before, const struct rs_result *now);

#endif
