/* SPDX-License-Identifier: MIT */
/* Shared by sbpl.c (rules) and sbpl_layout.c (what is placed in the private
 * directory): the plan with every path checked and made canonical. */
#ifndef ASB_SEATBELT_SBPL_INT_H
#define ASB_SEATBELT_SBPL_INT_H

#include "sbpl.h"

#include <stdbool.h>

/* How an EPHEMERAL entry is given (seatbelt cannot mount an empty
 * directory): a private directory the environment points to, or the path
 * denied outright. */
#define SBPL_HOW_SUBST  1u
#define SBPL_HOW_SEALED 2u

struct sbpl_plan {
	const struct sbpl_input *in;
	char **dest;  /* canonical dest of every entry */
	char **host;  /* READ/WRITE/DEVICE: canonical host path; SYMLINK: target */
	char **xlat;  /* dest as placed inside a private directory, or NULL */
	char **subst; /* EPHEMERAL given as SBPL_HOW_SUBST: the directory */
	uint8_t *how; /* EPHEMERAL: SBPL_HOW_*; FILE/SYMLINK: 1 when placed */
	char *home, *private_dir, *tty;
	struct sbpl_layout lay;
};

int sbpl_plan_prepare(const struct sbpl_input *in, struct sbpl_plan *p, char *why, size_t why_len);
void sbpl_plan_free(struct sbpl_plan *p);

uint32_t sbpl_entry_state(const struct sbpl_input *in, uint32_t i);

#endif /* ASB_SEATBELT_SBPL_INT_H */
