/* SPDX-License-Identifier: MIT */
/* Where the list's files are under the writable roots, and what keeps each
 * one from being planted or changed: a read-only bind when present, a mask
 * at the workspace root when missing, and every directory between a root
 * and a protected path bound over itself (a mount point cannot be renamed,
 * so the protection cannot be carried away with its parent). Pure
 * filesystem logic, unit-tested on temporary trees. */
#ifndef ASB_PROJECTFILES_SCAN_H
#define ASB_PROJECTFILES_SCAN_H

#include "dirlist.h"
#include "list.h"

#include <stddef.h>

/* A writable directory of the sandbox: its host path and where it appears. */
struct pf_root {
	const char *host;
	const char *dest;
	int workspace; /* masks go here (tools open it as the project) */
};

struct pf_options {
	const struct pf_root *roots;
	size_t n_roots;
	const struct pf_entry *list;  /* what to protect (the default list less
	                               * what the user made writable, plus extras) */
	const char *const *writable;  /* the entries left writable, NULL-terminated */
	unsigned max_depth, max_dirs; /* bounds of the walk */
	int audit;                    /* only record what is present */
	struct dirlist_cache *dirs;   /* listings kept by the scan, reused by the audit
	                               * where unchanged (dirlist.h); may be NULL */
};

#define PF_OP_RO        1 /* present: read-only over itself */
#define PF_OP_MASK_FILE 2 /* missing file: an empty read-only file */
#define PF_OP_MASK_DIR  3 /* missing directory: an empty read-only directory */
#define PF_OP_PIN       4 /* a directory bound over itself, writable */
#define PF_OP_MKDIR_PIN 5 /* a missing directory made (a placeholder), then pinned */

#define PF_LIMIT_DEPTH 0x1u
#define PF_LIMIT_DIRS  0x2u

struct pf_action {
	int op;
	int placeholder; /* the path does not exist on the host: the mount creates it */
	char *host;
	char *dest;
	const struct pf_entry *entry; /* NULL for pins */
};

struct pf_result {
	struct pf_action *v;
	size_t n, cap;
	unsigned dirs_scanned;
	unsigned limits_hit; /* PF_LIMIT_* */
	char *error_path;    /* on failure: what cannot be protected (a symlink) */
};

/* 0, or -errno with error_path set (-ELOOP: a protected path is a symlink,
 * which no mount can pin). Actions are parents first. */
int pf_scan(const struct pf_options *o, struct pf_result *out);
void pf_result_free(struct pf_result *r);
const char *pf_op_name(int op);

#endif
