/* SPDX-License-Identifier: MIT */
/* One launch: policy → plugins → plan → backend command → supervised run. */
#ifndef ASB_CORE_LAUNCH_H
#define ASB_CORE_LAUNCH_H

#include "loader.h"
#include "network.h"
#include "plan.h"
#include "policy.h"
#include "session.h"

#include <sys/types.h>

struct artifact {
	char *name;
	char *data;
	size_t len;
};

struct launch {
	struct policy *policy;
	bool shell;
	bool dry_run; /* --show-config / --check: nothing is created */
	struct plan plan;
	struct session session;
	bool have_session;

	struct loaded_plugin *plugins; /* load order: backend first */
	size_t n_plugins;
	struct loaded_plugin *backend;

	struct strv out_argv;
	int *keep_fds;
	size_t n_keep_fds;
	struct artifact *artifacts;
	size_t n_artifacts;
	struct strv describe; /* "plugin\tkey\tvalue" */

	int info_fd; /* child's ends, -1 when not running */
	int block_fd;
	int info_read_fd; /* the launcher's ends */
	int block_write_fd;
	pid_t sandbox_pid;
	struct network net;
};

void launch_init(struct launch *l, struct policy *p, bool shell, bool dry_run);
void launch_free(struct launch *l);

/* Load the backend and feature plugins, run init and configure. */
int launch_load_plugins(struct launch *l);
/* Build the plan (core layout, pre_mount, env) and the backend command. */
int launch_build(struct launch *l);
/* Create the session, run the sandbox under supervision; returns the exit
 * status to exit with (the agent's, or 125). post_exit always runs. */
int launch_run(struct launch *l);
/* Run post_exit hooks in reverse order (idempotent). */
void launch_post_exit(struct launch *l, int status);

/* Host function table handed to plugins. */
const struct asb_host *host_table(void);

#endif
