/* SPDX-License-Identifier: MIT */
/* Programs this backend runs as the launching user (root, often): looked up
 * in fixed system directories, never $PATH (a writable directory early in
 * PATH must not decide what builds the sandbox), and trusted only when the
 * file and every directory above it are owned by root and writable by root
 * alone. */
#include "runsc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_trust(const char *path, char *why, size_t why_len)
{
	char walk[PATH_MAX];
	if (!realpath(path, walk))
		return -errno;
	char real[PATH_MAX];
	snprintf(real, sizeof(real), "%s", walk);
	for (;;) {
		struct stat st;
		if (stat(walk, &st) < 0)
			return -errno;
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			snprintf(
			    why, why_len,
			    "%s (for %s) is %s: it must be owned by root and writable by root only",
			    walk, real,
			    st.st_uid != 0 ? "not owned by root" : "writable by group or others");
			return -EPERM;
		}
		if (strcmp(walk, "/") == 0)
			return 0;
		char *slash = strrchr(walk, '/');
		if (slash == walk)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int runsc_find_trusted(const char *name, const char *const *dirs, char *out, size_t len, char *why,
                       size_t why_len)
{
	for (const char *const *d = dirs; *d; d++) {
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", *d, name) >= (int)sizeof(path))
			continue;
		if (access(path, X_OK) < 0)
			continue;
		int r = check_trust(path, why, why_len);
		if (r < 0)
			return r;
		snprintf(out, len, "%s", path);
		return 0;
	}
	snprintf(why, why_len, "%s was not found in", name);
	for (const char *const *d = dirs; *d; d++) {
		size_t used = strlen(why);
		snprintf(why + used, why_len - used, " %s", *d);
	}
	return -ENOENT;
}
