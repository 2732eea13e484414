/* SPDX-License-Identifier: MIT */
/*
 * The nix-daemon's configuration, read the way the daemon reads it:
 * `name = value` lines, `#` comments, `include` / `!include` relative to the
 * including file, `extra-NAME` appending to lists, later lines winning.
 * Only the settings that decide what the sandbox may trust are kept.
 * Pure logic: files are read through a callback, so tests feed it text.
 */
#ifndef ASB_NIX_DAEMON_CONF_H
#define ASB_NIX_DAEMON_CONF_H

#include "util.h"

#include <stddef.h>

#define NIX_SANDBOX_FALSE   0
#define NIX_SANDBOX_TRUE    1
#define NIX_SANDBOX_RELAXED 2

struct nix_daemon_conf {
	struct strv trusted_users; /* default: root */
	struct strv allowed_users; /* default: * */
	int sandbox;               /* NIX_SANDBOX_* */
	/* Where trusted-users / sandbox were last set ("" = default), for
	 * messages that tell the user which file to edit. */
	char *trusted_users_origin;
	char *sandbox_origin;
};

/* Read `path` into a NUL-terminated malloc'd buffer: 0, -ENOENT when it does
 * not exist, another -errno when it exists but cannot be read. */
typedef int (*nix_conf_read_fn)(void *userdata, const char *path, char **out);

/* Defaults as the daemon has them: sandbox is true on Linux, false
 * elsewhere (`linux_defaults`). */
int nix_daemon_conf_init(struct nix_daemon_conf *c, int linux_defaults);
void nix_daemon_conf_free(struct nix_daemon_conf *c);

/* Apply one configuration file. A missing file is fine when `optional`
 * (the daemon ignores a missing nix.conf); any other read error, a malformed
 * line, an unknown `sandbox` value or a missing non-`!` include is an error
 * (-EINVAL / -errno) described in `err`. */
int nix_daemon_conf_apply_file(struct nix_daemon_conf *c, const char *path, int optional,
                               nix_conf_read_fn read_fn, void *userdata, char *err, size_t err_len);

/* Apply configuration text as if it came from `path` (for relative
 * includes). */
int nix_daemon_conf_apply_text(struct nix_daemon_conf *c, const char *text, const char *path,
                               nix_conf_read_fn read_fn, void *userdata, char *err, size_t err_len);

/* Does `list` (trusted-users or allowed-users) match this user? As the
 * daemon matches: `*`, the user name, or `@group` naming one of `groups`
 * (NULL-terminated: the user's primary and supplementary groups).
 * Returns 1 and the matching entry in *why (borrowed), or 0. */
int nix_daemon_conf_match(const struct strv *list, const char *user, const char *const *groups,
                          const char **why);

/* "true", "false" or "relaxed". */
const char *nix_sandbox_name(int mode);

#endif
