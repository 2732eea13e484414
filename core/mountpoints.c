/* SPDX-License-Identifier: MIT */
#include "mountpoints.h"

#include "log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool host_bind(const struct plan_entry *e)
{
	return e->type == ASB_ENTRY_READ || e->type == ASB_ENTRY_WRITE ||
	       e->type == ASB_ENTRY_DEVICE;
}

/* The last entry before `before` whose place lies strictly above `dest`:
 * the one that decides what is at dest's parent when dest is mounted. */
static const struct plan_entry *covering(const struct plan *plan, size_t before, const char *dest)
{
	for (size_t j = before; j-- > 0;) {
		const struct plan_entry *c = &plan->entries[j];
		if (strcmp(c->dest, dest) != 0 && path_is_within(dest, c->dest))
			return c;
	}
	return NULL;
}

/* Where `dest` falls in the host directory `cover` binds, and whether it
 * exists there or could be made by this user (the deepest existing
 * ancestor writable). 0, or -errno why it cannot. */
static int mount_point_on_host(const struct plan_entry *cover, const char *dest, char *out,
                               size_t out_len)
{
	const char *rest = dest + (strcmp(cover->dest, "/") == 0 ? 0 : strlen(cover->dest));
	if (snprintf(out, out_len, "%s%s",
	             strcmp(cover->host_path, "/") == 0 ? "" : cover->host_path,
	             rest) >= (int)out_len)
		return -ENAMETOOLONG;
	struct stat st;
	if (lstat(out, &st) == 0)
		return 0;
	if (cover->type == ASB_ENTRY_READ)
		return -EROFS; /* a read-only bind: nothing can be made in it */
	char anc[PATH_MAX];
	snprintf(anc, sizeof(anc), "%s", out);
	for (char *slash; (slash = strrchr(anc, '/'));) {
		*slash = '\0';
		const char *dir = anc[0] ? anc : "/";
		if (lstat(dir, &st) == 0)
			return access(dir, W_OK) == 0 ? 0 : -errno;
		if (!anc[0])
			break;
	}
	return -ENOENT;
}

static int refuse(const struct policy *p, const struct plan_entry *cover, const char *dest,
                  const char *who, const char *host, int r)
{
	bool from_config = strncmp(cover->origin, "sandbox.", 8) == 0;
	/* The core's own directory is made as a whole. */
	if (path_is_within(dest, PLAN_RUN_DIR))
		dest = PLAN_RUN_DIR;
	err_set("%s%s%s: %s is bound %s over the sandbox's %s (%s), and %s %s: %s",
	        from_config && p->config_file ? p->config_file : "",
	        from_config && p->config_file ? ": " : "", cover->origin, cover->host_path,
	        cover->type == ASB_ENTRY_READ ? "read-only" : "read-write", dest, who, host,
	        r == -EROFS ? "does not exist, and a read-only bind cannot hold a new mount point"
	        : r == -ENOENT ? "does not exist"
	                       : "cannot be created there",
	        from_config ? "declare narrower paths (the directories the agent needs) instead"
	                    : strerror(-r));
	return -EINVAL;
}

int mountpoints_check(const struct plan *plan, const struct policy *p)
{
	char host[PATH_MAX];
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		const struct plan_entry *c = covering(plan, i, e->dest);
		if (c && c->type == ASB_ENTRY_PROC) {
			err_set("%s: %s is inside the sandbox's /proc, where nothing new can be "
			        "placed: choose another place",
			        e->origin, e->dest);
			return -EINVAL;
		}
		if (!c || !host_bind(c))
			continue;
		int r = mount_point_on_host(c, e->dest, host, sizeof(host));
		if (r < 0)
			return refuse(p, c, e->dest, e->origin, host, r);
	}
	/* The backend makes PATH's directory last (plugin.h, ASB_BIN_DIR). */
	const struct plan_entry *c = covering(plan, plan->n_entries, PLAN_RUN_DIR);
	if (c && host_bind(c)) {
		int r = mount_point_on_host(c, PLAN_RUN_DIR, host, sizeof(host));
		if (r < 0)
			return refuse(p, c, PLAN_RUN_DIR, "the executables on PATH", host, r);
	}
	return 0;
}
