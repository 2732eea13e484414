/* SPDX-License-Identifier: MIT */
/* Spare mount points: the empty directories and files a session's masks
 * left on the host (placeholders.h) are moved into a directory of the state
 * root after exit, and the next session moves them back into place before
 * the sandbox starts, instead of removing each and having the backend make
 * it again. Removing a directory frees its block (~0.2 ms on ext4 mounted
 * with discard); making a file or directory allocates an inode, which on an
 * ext4 without a journal skips every recently freed one (more the more
 * launches ran in the last seconds); a rename does neither. Only where the
 * state root is on the placeholder's file system, and only where the kernel
 * renames without replacing (RENAME_NOREPLACE). Shared by the projectfiles
 * and git plugins, each with a pool of its own. */
#ifndef ASB_COMMON_SPARES_H
#define ASB_COMMON_SPARES_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "placeholders.h"
#include "util.h"

struct spares {
	int fd; /* the spare directory (0700, ours); 0: none, nothing is pooled */
	dev_t dev;
	uid_t uid; /* this process's effective uid: what is taken or kept is its own */
	/* Its entries when opened, directories and files apart, the next to
	 * take of each at taken. */
	struct strv dirs, files;
	size_t dirs_taken, files_taken, kept;
	char *id; /* the session's, for the names of what it keeps */
};

/* "<state root>/.PLUGIN-spare", beside the session directory (malloc'd;
 * NULL without memory or a parent). */
char *spares_dir(const char *session_dir, const char *plugin);
/* Open (make) `dir`, and list what it holds. */
void spares_open(struct spares *s, const char *dir, const char *id);
/* Each placeholder still missing: moved into place from the spares of its
 * kind, never over anything, and marked placed (placeholders_make makes the
 * others). Run once they are in the journal, so that a launch killed now
 * leaves none that the next one does not remove. */
void spares_place(struct spares *s, struct placeholders *p);
/* The journaled placeholders put in place, once per launch: the spares of
 * `plugin`'s pool (opened here), then, for a backend that mounts over them
 * (ASB_CAP_FS_VIEW), the rest made by placeholders_make. A backend of
 * rules needs no mount point: nothing is made for it. */
void spares_put_in_place(struct spares *s, struct placeholders *p, const struct asb_host *host,
                         struct asb_ctx *ctx, const char *plugin);
/* Before placeholders_cleanup: each placeholder it would remove (its
 * directory's lock held alone, the placeholder empty) moved to the spares
 * instead, logged as removed; what is left, cleanup removes. */
void spares_keep(struct spares *s, struct placeholders *p, placeholders_log_fn log, void *ud);
void spares_close(struct spares *s);

#endif
