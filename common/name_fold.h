/* SPDX-License-Identifier: MIT */
/* Names a case-insensitive file system takes for one another. The scans
 * before and after a sandbox look for protected names (.git, .vscode, ...)
 * in directory listings. On macOS's default volume, and on ext4, f2fs or
 * tmpfs directories with casefold, ".GIT" or ".vſcode" is what a tool opens
 * when it asks for ".git" or ".vscode". So a listed name that folds to a
 * protected one counts as it, where the file system resolves the protected
 * spelling to the same object. Portable C. */
#ifndef ASB_COMMON_NAME_FOLD_H
#define ASB_COMMON_NAME_FOLD_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a and b are equal after folding: ASCII letters in either case,
 * and the few other characters that case-insensitive file systems take for
 * ASCII (U+00DF and U+1E9E as ss, U+017F as s, U+212A as k, the ligatures
 * U+FB00..FB06 as ff, fi, fl, ffi, ffl and st, two Greek marks as ; and `),
 * with default-ignorable characters (U+200B and its kind) left out, as
 * the casefold of Linux kernels up to 2024 does. Other bytes compare as
 * they are. */
bool name_folds_equal(const char *a, const char *b);

/* `name` folded so (ASCII lower case), into out as snprintf would: the
 * length it needs, out truncated where that is `size` or more. */
size_t name_fold(const char *name, char *out, size_t size);

/* The first byte of name_fold(name): for a prefilter by first byte that
 * spellings of one name all pass. */
unsigned char name_fold_first(const char *name);

/* Whether the entry `listed` of a directory is what `name` resolves to in
 * it: the same bytes, or a spelling that folds to it (above) and is the
 * same object (device and inode, no symlink followed). The directory is the
 * descriptor dfd, or the path dir where dfd < 0. */
bool name_resolves_to(int dfd, const char *dir, const char *listed, const char *name);

#endif
