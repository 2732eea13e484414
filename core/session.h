/* SPDX-License-Identifier: MIT */
/* Session directories: ${XDG_STATE_HOME:-~/.local/state}/agentsandbox/
 * <timestamp>-<pid>-<name>/, locked while the sandbox runs, newest N kept. */
#ifndef ASB_CORE_SESSION_H
#define ASB_CORE_SESSION_H

#include "util.h"

#define SESSION_KEEP 25

struct session {
	char *root; /* .../agentsandbox */
	char *dir;  /* the session's own directory */
	char id[37];
	int lock_fd; /* flock held while the sandbox runs */
};

/* The state root for this user (not created). */
int session_root(const char *xdg_state_home, const char *home, char **out);

/* Choose the session's directory (root/<timestamp>-<pid>-<name>) and id;
 * nothing is created yet, so plugins can know their paths while planning. */
int session_reserve(struct session *s, const char *root, const char *name);
/* Create and lock the reserved directory. It appears under its final name
 * only once locked, so a concurrent prune can never take it. The one
 * session_prepare made is taken when there is one (no mkdir, no new file on
 * the way to the sandbox). */
int session_create(struct session *s);
/* Make the next launch's directory (root/.ready, with its .lock), unless
 * there is one: run once the sandbox is starting. */
void session_prepare(const char *root);

/* Remove all but the newest `keep` session directories, never one whose
 * lock is held. Returns the number removed. */
int session_prune(const char *root, size_t keep);

/* Write a file into the session directory (0600). */
int session_write(const struct session *s, const char *name, const void *data, size_t len);
/* Open a file in the session directory for appending. */
int session_open(const struct session *s, const char *name);

void session_close(struct session *s);

#endif
