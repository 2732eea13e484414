/* SPDX-License-Identifier: MIT */
/* Fail closed on every gap: what the plan asks of the sandbox, protection by
 * protection, against what the chosen backend (its capabilities, narrowed by
 * probe) and the platform can give. A required protection that is missing
 * refuses the launch, naming the protection and the backend, unless the user
 * accepted the weaker sandbox (sandbox.accept_weaker, --accept-weaker);
 * launch.log, --check and --show-config report every one. */
#ifndef ASB_CORE_PROTECTIONS_H
#define ASB_CORE_PROTECTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct launch;

enum protection {
	PROT_FILESYSTEM,
	PROT_PINNED_PATHS,
	PROT_REMAP,
	PROT_EPHEMERAL,
	PROT_FILES,
	PROT_MASKS,
	PROT_PROCESSES,
	PROT_NETWORK,
	PROT_UNIX_SOCKETS,
	PROT_SECCOMP,
	PROT_LANDLOCK,
	PROT_LIMITS,
	PROT_NO_NEW_PRIVS,
	PROT_COUNT,
};

struct protection_state {
	bool asked;    /* the plan needs it */
	bool required; /* missing: refuse unless accepted */
	bool given;    /* the backend and the platform apply it */
	bool accepted; /* the user accepts its absence */
	char asked_by[128];
	char detail[256]; /* what applies, or why not */
};

const char *protection_name(int p);
/* The index for a name, or -ENOENT. */
int protection_lookup(const char *name);

/* Check sandbox.accept_weaker / --accept-weaker names (file:line errors). */
int protections_check_names(const struct launch *l);
/* Fill l->prot from the final plan and the backend's capabilities; -EPERM
 * with the launch error set when a required one is missing. */
int protections_evaluate(struct launch *l);

void protections_log(const struct launch *l);
/* --check: one line each; < 0 when a required one is missing. */
int protections_print_check(FILE *out, const struct launch *l);
void protections_print_show(FILE *out, const struct launch *l);

#endif
