/* SPDX-License-Identifier: MIT */
/* The macOS system locations the agent's tools need, read-only: what the
 * seatbelt backend adds to the plan (pre_mount) next to the core's own
 * system entries, which are written for Linux. */
#ifndef ASB_SEATBELT_MACOS_PATHS_H
#define ASB_SEATBELT_MACOS_PATHS_H

#include <stdint.h>

struct sbpl_system_path {
	const char *path;
	uint32_t flags; /* ASB_ENTRY_F_EXEC or 0; all are added with ASB_ENTRY_F_TRY */
	const char *why;
};

/* Terminated by an entry with path == NULL. */
extern const struct sbpl_system_path sbpl_system_paths[];

/* Apple's command line tools: /usr/bin/git and the like are shims that run
 * the real program from here (xcrun). */
#define SBPL_CLT_DIR "/Library/Developer/CommandLineTools"

#endif /* ASB_SEATBELT_MACOS_PATHS_H */
