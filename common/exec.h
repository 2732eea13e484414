/* SPDX-License-Identifier: MIT */
/* Finding programs: on a PATH, in the fixed system directories (for the
 * engines whose choice must not follow the caller's PATH), and the project's
 * own helpers next to the running launcher or in the installed libexec
 * directory. One place, used by the core, the platform libraries and the
 * in-tree plugins. */
#ifndef ASB_COMMON_EXEC_H
#define ASB_COMMON_EXEC_H

#include <stdbool.h>
#include <stddef.h>

/* Resolve `name` on `search_path` (NULL: /usr/local/bin:/usr/bin:/bin), or an
 * absolute path: *out is the real path of an executable regular file (with
 * `resolve` false: the path where it was found, symlinks kept, for
 * multi-call programs that look at their name). -ENOENT when not found,
 * -EISDIR for a directory, -EINVAL for a relative path with a slash. */
int exec_find(const char *name, const char *search_path, bool resolve, char **out);

/* `name` in /usr/bin, /bin, /usr/local/bin, /usr/sbin, /sbin or
 * /run/current-system/sw/bin, never $PATH. -ENOENT when absent. */
int exec_find_system(const char *name, char **out);

/* Root-owned and writable by root alone: the file and every directory above
 * it. 0, or -EPERM with the offending path in `why`. */
int exec_check_trusted(const char *path, char *why, size_t why_len);

/* One of agentsandbox's own helper programs (agentsandbox-proxy, -broker,
 * agentsandbox-init): next to the running launcher in a build tree (and its
 * proxy/, linux/ and broker/ subdirectories), else in the installed libexec
 * directory. -ENOENT when neither has it. */
int exec_find_helper(const char *name, char **out);
/* The running launcher's own executable (resolved). */
int exec_self(char **out);

/* The directory of the running program (realpath on macOS). */
int exec_self_dir(char *out, size_t len);

#endif
