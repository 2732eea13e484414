/* SPDX-License-Identifier: MIT */
/*
 * Asking nix-daemon itself, over its socket: the worker protocol handshake.
 * Daemons speaking protocol 1.35 or later (Nix 2.15+) say whether they trust
 * the connecting user; older ones only prove they are there and accept us.
 */
#ifndef ASB_NIX_DAEMON_PROTO_H
#define ASB_NIX_DAEMON_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NIX_TRUST_UNKNOWN 0 /* daemon too old to say */
#define NIX_TRUST_TRUSTED 1
#define NIX_TRUST_NOT     2

struct nix_daemon_info {
	unsigned proto_major;
	unsigned proto_minor;
	int trust;        /* NIX_TRUST_* */
	char version[64]; /* daemon's Nix version, "" before protocol 1.33 */
	uid_t daemon_uid; /* from SO_PEERCRED */
	int have_daemon_uid;
};

/* Handshake over an already connected stream `fd` (tests use a socketpair).
 * -EPROTO on a reply that is not the Nix worker protocol, -ECONNRESET when
 * the daemon hangs up (it does for users outside allowed-users), -EACCES
 * when it reports an error; `err` says which. */
int nix_daemon_handshake(int fd, struct nix_daemon_info *info, char *err, size_t err_len);

/* Connect to the daemon socket at `path` (with a timeout) and handshake. */
int nix_daemon_query(const char *path, int timeout_ms, struct nix_daemon_info *info, char *err,
                     size_t err_len);

#endif
