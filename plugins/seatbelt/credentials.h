/* SPDX-License-Identifier: MIT */
/* Credential paths in $HOME that stay unreadable even when the plan exposes
 * a directory above them (seatbelt shares the real home: there is no empty
 * home to hide them in). */
#ifndef ASB_SEATBELT_CREDENTIALS_H
#define ASB_SEATBELT_CREDENTIALS_H

struct sbpl_credential {
	const char *rel; /* below $HOME, no leading slash */
	const char *why;
};

/* Terminated by an entry with rel == NULL. */
extern const struct sbpl_credential sbpl_credentials[];

#endif /* ASB_SEATBELT_CREDENTIALS_H */
