/* SPDX-License-Identifier: MIT */
/* A plugin's runtime directory for one launch, beside the session
 * directories (what a plugin must bind at pre_mount, before the session's
 * own private directory exists): ".NAME-XXXXXX", 0700, the user's own. It
 * holds a lock while the launch lives; one that a killed launch left behind
 * (its lock free, older than a minute) goes at the next rundir_create of
 * the same NAME. Removed at exit without following a link left in it
 * (plugins/browsers keeps its profiles in one). */
#ifndef ASB_COMMON_RUNDIR_H
#define ASB_COMMON_RUNDIR_H

struct rundir {
	char *dir; /* NULL until made */
	int lock_fd;
};

#define RUNDIR_INIT                                                                                \
	{                                                                                          \
		.dir = NULL, .lock_fd = -1                                                         \
	}

/* Make it in `parent` (made 0700 when missing). */
int rundir_create(struct rundir *d, const char *parent, const char *name);
/* The parent of a session directory ("<session>" in a dry run is fine). */
char *rundir_parent_of(const char *session_dir);
void rundir_remove(struct rundir *d);

#endif
