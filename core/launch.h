/* SPDX-License-Identifier: MIT */
/* One launch: policy → plugins → plan → protections → session → backend →
 * supervised run → post-exit (DESIGN.md "The pipeline"). */
#ifndef ASB_CORE_LAUNCH_H
#define ASB_CORE_LAUNCH_H

#include "loader.h"
#include "network.h"
#include "plan.h"
#include "platform.h"
#include "policy.h"
#include "protections.h"
#include "session.h"
#include "terminal.h"

#include <sys/types.h>

struct artifact {
	char *name;
	char *data;
	size_t len;
};

enum launch_stage {
	STAGE_LOADING,  /* init, configure */
	STAGE_PLANNING, /* pre_mount, env: the plan may change */
	STAGE_FINAL,    /* the plan is final */
	STAGE_BUILDING, /* prepare, build */
	STAGE_RUNNING,  /* spawned */
};

struct launch {
	struct policy *policy;
	bool shell;
	bool dry_run; /* --show-config / --check: nothing is created */
	struct catalog *catalog;
	struct plan plan;
	int stage;
	struct session session;
	bool have_session;

	struct loaded_plugin *plugins; /* load order: backend first */
	size_t n_plugins;
	struct loaded_plugin *backend;
	uint64_t caps;           /* the backend's, narrowed by probe */
	char probe_error[512];   /* dry run: why the backend cannot run here */
	char network_error[512]; /* dry run: why the network mode cannot start */
	char view_error[1024];   /* dry run: why the backend cannot build the view */
	struct protection_state prot[PROT_COUNT];

	struct strv out_argv;
	int *keep_fds;
	size_t n_keep_fds;
	struct artifact *artifacts;
	size_t n_artifacts;
	struct strv describe;                    /* "plugin\tkey\tvalue" */
	struct strv self_paths;                  /* what shapes the sandbox (core/selfconfig.h) */
	struct strv self_protected;              /* ... and was made read-only inside */
	struct selfconfig_records *self_records; /* the sessions' records, read once */
	struct timespec self_start;              /* for this session's record */
	bool self_exposed;                       /* its agent can write one of self_paths */

	bool hold;            /* the sandbox waits for release */
	struct child spawned; /* what the core waits for */
	pid_t sandbox_pid;    /* from sandbox_started */
	int sandbox_netns_fd; /* from sandbox_started, or -1 */
	bool sandbox_known;
	struct network net;
	struct terminal term; /* the agent's terminal */
	bool term_given;      /* the sandbox was started with it (core spawn) */
};

void launch_init(struct launch *l, struct policy *p, struct catalog *catalog, bool shell,
                 bool dry_run);
void launch_free(struct launch *l);

/* Load the backend and the feature plugins whose load rule says so; init. */
int launch_load_plugins(struct launch *l);
/* Configure, probe, plan (core layout, network, pre_mount, env,
 * hardening), compare the plan with the backend's capabilities. A dry run
 * also builds the command, with placeholders for the session. */
int launch_plan(struct launch *l);
/* Create the session, prepare and build, run the sandbox under
 * supervision; returns the exit status to exit with (the agent's, or 125).
 * post_exit always runs. */
int launch_run(struct launch *l);
/* Run post_exit hooks in reverse order (idempotent). */
void launch_post_exit(struct launch *l, int status);
/* Make `lp`'s private directory once the session exists (not in a dry
 * run); before that, only remember it is wanted. 0 or -errno. */
int launch_make_private_dir(struct launch *l, struct loaded_plugin *lp);
/* describe hooks (for --show-config and --check). */
int launch_describe(struct launch *l);

/* Host function table handed to plugins. */
const struct asb_host *host_table(void);

#endif
