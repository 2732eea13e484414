/* SPDX-License-Identifier: MIT */
/* The files in a project directory that host programs execute or trust
 * without being asked to run the project: on folder open, on cd, when an
 * editor or an agent starts, at a git commit. Which tool reads each and why
 * it is on the list (or, in README.md, why similar ones are not). */
#ifndef ASB_PROJECTFILES_LIST_H
#define ASB_PROJECTFILES_LIST_H

#include <stddef.h>

#define PF_FILE 1
#define PF_DIR  2

/* When the entry is missing at the workspace root. */
#define PF_MASK 1 /* masked: its tool runs it unasked (or one it trusts) */
#define PF_KEEP 2 /* left alone: its tool asks first; reported if it appears */

struct pf_entry {
	const char *path; /* relative; "a/b" at most one level deep */
	int kind;         /* PF_FILE, PF_DIR */
	int missing;      /* PF_MASK, PF_KEEP */
	const char *tool; /* who runs it, and when */
};

/* The default list, NULL-terminated (path == NULL). */
extern const struct pf_entry pf_default_list[];

/* The entry for `path`, or NULL. */
const struct pf_entry *pf_find(const struct pf_entry *list, const char *path);

#endif
