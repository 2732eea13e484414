/* SPDX-License-Identifier: MIT */
/*
 * Plans for the tests, built by hand the way the core, the git plugin and the
 * seatbelt plugin's own hooks would build them on a Mac (core/layout.c's
 * order: system, /proc, /dev, /tmp, the ephemeral home, declared paths
 * parent first, the executables' directories; then seatbelt's pre_mount,
 * git's pre_mount, seatbelt's env hook). To be reconciled with the real
 * ABI 2 core's output.
 */
#ifndef ASB_TESTS_PLAN_FIXTURE_H
#define ASB_TESTS_PLAN_FIXTURE_H

#include "sbpl.h"

#define FX_MAX_ENTRIES 512
#define FX_MAX_EXECS   256
#define FX_MAX_STRINGS 4096

struct fixture {
	struct asb_entry entries[FX_MAX_ENTRIES];
	uint32_t state[FX_MAX_ENTRIES];
	uint32_t n;
	struct asb_exec execs[FX_MAX_EXECS];
	uint32_t xstate[FX_MAX_EXECS];
	uint32_t n_execs;
	struct asb_network net;
	uint16_t host_ports[16], published[16];
	struct asb_seccomp_group groups[16];
	uint32_t n_groups;
	struct sbpl_input in;
	char *strings[FX_MAX_STRINGS];
	size_t n_strings;
};

#define FX_HOME "/Users/alice"
#define FX_WS   FX_HOME "/src/project"
#define FX_TTY  "/dev/ttys004"

void fx_init(struct fixture *f, const char *session_name);
void fx_free(struct fixture *f);
/* Copies the strings. dest NULL: host. */
void fx_add(struct fixture *f, uint32_t type, uint32_t flags, const char *host, const char *dest,
            uint32_t state, const char *origin);
void fx_exec(struct fixture *f, const char *name, const char *host, uint32_t state);
const struct sbpl_input *fx_input(struct fixture *f);

/* The plan for one of examples/NAME.cfg (claude, codex, copilot, gemini,
 * opencode, pi), launched from FX_WS, a git repository. 0, or -1 for an
 * unknown name. */
int fx_example(struct fixture *f, const char *name);

/* Pieces, for tests that build their own. */
void fx_system(struct fixture *f);              /* core system entries, /proc, /dev, /tmp */
void fx_home(struct fixture *f);                /* the ephemeral home */
void fx_git(struct fixture *f, const char *ws); /* git's protected paths of ws/.git */
void fx_common_tools(struct fixture *f);

#endif /* ASB_TESTS_PLAN_FIXTURE_H */
