/* SPDX-License-Identifier: MIT */
/* Store closures: which /nix/store paths a package needs, by asking
 * `nix-store -qR`, and store-path arithmetic. */
#ifndef ASB_NIX_CLOSURE_H
#define ASB_NIX_CLOSURE_H

#include "util.h"

#include <stddef.h>

#define NIX_STORE_DIR "/nix/store"

/* "/nix/store/<hash>-<name>[/anything]" -> length of the store path part
 * ("/nix/store/<hash>-<name>"), or 0 when `path` is not inside the store. */
size_t nix_store_path_len(const char *path);

/* Append the closure of `store_path` (itself included) to `out`, skipping
 * entries already there. Runs `nix_store_bin -qR store_path` with `envp`. */
int nix_closure_add(const char *nix_store_bin, const char *store_path, char *const *envp,
                    struct strv *out, char *err, size_t err_len);

int nix_strv_add_unique(struct strv *s, const char *str, size_t len);

#endif
