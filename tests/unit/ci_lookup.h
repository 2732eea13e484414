/* SPDX-License-Identifier: MIT */
/* A case-insensitive file system, as the code under test sees it: linked
 * with CI_LOOKUP_LINK_ARGS (tests/unit/meson.build), its lookups by name
 * (lstat, stat, fstatat, open, opendir, access) below ci_lookup_root find
 * an entry spelled in any case, as macOS's default volume and casefold
 * directories do. This kernel has neither casefold nor XFS's ASCII-CI, so
 * the scans' handling of such a volume is tested through this. NULL: the
 * lookups are the system's own. */
#ifndef ASB_TESTS_UNIT_CI_LOOKUP_H
#define ASB_TESTS_UNIT_CI_LOOKUP_H

extern const char *ci_lookup_root;

#endif
