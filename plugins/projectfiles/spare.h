/* SPDX-License-Identifier: MIT */
/* Spare mount points: the empty directories a session's masks left at the
 * workspace root (placeholders.h) are moved into a directory of the state
 * root after exit, and the next session moves them back into place before
 * the sandbox starts, instead of removing each and having the backend make
 * it again. Removing a directory frees its block, which costs ~0.2 ms per
 * directory on ext4 mounted with discard and no journal; a rename frees
 * nothing. Only where the state root is on the workspace's file system,
 * and only where the kernel renames without replacing (RENAME_NOREPLACE). */
#ifndef ASB_PROJECTFILES_SPARE_H
#define ASB_PROJECTFILES_SPARE_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "placeholders.h"
#include "util.h"

struct pf_spares {
	int fd; /* the spare directory (0700, ours); 0: none, nothing is pooled */
	dev_t dev;
	struct strv names; /* its entries when opened, the next to take at taken */
	size_t taken, kept;
	char *id; /* the session's, for the names of what it keeps */
};

/* Open (make) `dir`, and list what it holds. */
void spares_open(struct pf_spares *s, const char *dir, const char *id);
/* Each directory placeholder still missing: moved into place from the
 * spares, never over anything (the backend makes the others). Run once
 * they are in the journal, so that a launch killed now leaves none that the
 * next one does not remove. */
void spares_place(struct pf_spares *s, const struct placeholders *p);
/* Before placeholders_cleanup: each directory placeholder it would remove
 * (its directory's lock held alone, the placeholder empty) moved to the
 * spares instead, logged as removed; what is left, cleanup removes. */
void spares_keep(struct pf_spares *s, struct placeholders *p, placeholders_log_fn log, void *ud);
void spares_close(struct pf_spares *s);

#endif
