/* SPDX-License-Identifier: MIT */
/* The sandbox's own configuration, where the agent could write it: the config
 * file and what it includes, the proxy's hosts_file and upstream_ca_file, the
 * plugin search path, agentsandbox's own programs, its state and config
 * directories. When one lies under a writable entry of the plan it is made
 * read-only inside (its parents pinned); each session records what it could
 * write, so that the next launch sees when an earlier session could have
 * changed one of them, and says so before obeying it. */
#ifndef ASB_CORE_SELFCONFIG_H
#define ASB_CORE_SELFCONFIG_H

#include "network.h"
#include "plan.h"
#include "policy.h"
#include "session.h"

#include <time.h>

/* The paths that shape this launch (resolved, existing ones). */
int selfconfig_collect(const struct policy *p, const struct network *n, struct strv *out);

/* Read-only inside those of `paths` that a writable entry covers; the ones
 * protected go to `protected`. Before the plan is final. */
int selfconfig_protect(struct plan *plan, const struct strv *paths, struct strv *protected);

/* When the session starts, for its record: taken before the sandbox can
 * run, on the clock file times come from (coarse where there is one), so
 * that every change its agent makes is dated at or after it. */
void selfconfig_start_time(struct timespec *out);

/* The session's record ("writable"): its start (selfconfig_start_time), the
 * plan's writable host paths and what was protected. 1 when the agent can
 * write one of `paths` (selfconfig_collect's) or the state root, 0 when
 * not, or -errno. */
int selfconfig_record(struct session *s, const struct timespec *start, const struct plan *plan,
                      const struct strv *protected, const struct strv *paths);

/* The agent is gone: nothing of this session writes any more. When it
 * could write one of the paths, returns once file times are later than
 * the end recorded (so that no later change is dated within the session). */
void selfconfig_record_end(struct session *s, bool agent_could_write);

/* The records of ended sessions, read once per launch for all its checks
 * (an ended session's record does not change any more). Zeroed to start. */
struct selfconfig_records {
	char *root;
	struct selfconfig_cached *v;
	size_t n;
};
void selfconfig_records_free(struct selfconfig_records *c);

/* Could a session recorded under `state_root` have changed one of `paths`
 * (it could write there, did not protect it, and the path changed after it
 * started, and not since accepted)? 1 with *why (new string), 0, -errno.
 * cache: NULL, or where ended sessions' records are kept between calls. */
int selfconfig_check(const char *state_root, const struct strv *paths,
                     struct selfconfig_records *cache, char **why);

/* The user accepts the paths as they are now (recorded in state_root). */
int selfconfig_accept(const char *state_root, const struct strv *paths);

#endif
