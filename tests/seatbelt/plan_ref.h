/* SPDX-License-Identifier: MIT */
/*
 * What a plan grants, computed straight from the entries: the oracle the
 * tests and the fuzzer hold a profile to ("the profile never grants more
 * than the plan"). Written apart from the generator: it walks the plan the
 * way the plan is defined (the last entry whose dest covers a path decides,
 * plugin.h) and adds, by name, what the seatbelt backend grants besides the
 * entries (README.md, "What the profile grants beyond the plan"):
 *
 *   - "/" itself is readable (its listing, not below);
 *   - stat() of every directory above a granted path, of /private, /etc,
 *     /tmp, /var, /dev and /dev/std*, and of symlinks the plan leaves as
 *     they are on the host;
 *   - the private directories that stand in for EPHEMERAL entries
 *     (anything inside them);
 *   - the executables' links and files (read, execute), the link
 *     directory (read), /usr/bin/env when the command starts through it;
 *   - the agent's terminal (read, write);
 *   - DEVFS: /dev/null, zero, dtracehelper, tty (read, write), random,
 *     urandom (read), /dev/fd (read, write);
 *   - open network: mDNSResponder's socket, AF_UNIX sockets to reach it.
 *
 * Credential paths in $HOME (plugins/seatbelt/credentials.c) are denied
 * after all entries, then the entries at or below them apply again.
 */
#ifndef ASB_TESTS_PLAN_REF_H
#define ASB_TESTS_PLAN_REF_H

#include "sbpl.h"

#include <stdbool.h>

#define REF_READ         1 /* file-read-data */
#define REF_STAT         2 /* file-read-metadata, file-test-existence */
#define REF_MAP          3 /* file-map-executable */
#define REF_WRITE        4 /* file-write-data */
#define REF_CREATE       5 /* file-write-create */
#define REF_UNLINK       6 /* file-write-unlink */
#define REF_LINK         7 /* file-link */
#define REF_EXEC         8 /* process-exec */
#define REF_UNIX_CONNECT 9
#define REF_UNIX_BIND    10
#define REF_N_OPS        10

/* The SBPL operation the evaluator is asked for each REF_* (not the unix
 * ones). */
const char *ref_op_name(int op);

/* 1 granted, 0 not. The layout gives the private directories. */
int ref_file(const struct sbpl_input *in, const struct sbpl_layout *lay, const char *path, int op);
int ref_connect(const struct sbpl_input *in, const char *addr, unsigned port, int proto);
int ref_bind(const struct sbpl_input *in, const char *addr, unsigned port, int proto);

/* Does the plan let unix sockets be used at all? */
bool ref_unix_ok(const struct sbpl_input *in);

#endif /* ASB_TESTS_PLAN_REF_H */
