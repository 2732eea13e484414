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

static int slot_cmp(const void *a, const void *b)
{
	const struct mountpoints_slot *x = a, *y = b;
	int r = strcmp(x->dest, y->dest);
	return r ? r : (x->i > y->i) - (x->i < y->i);
}

int mountpoints_index_build(const struct plan *plan, struct mountpoints_index *ix)
{
	size_t n = plan->n_entries, size = 0;
	for (size_t i = 0; i < n; i++)
		size += strlen(plan->entries[i].dest) + 1;
	_cleanup_free_ char *buf = malloc(size ? size : 1);
	_cleanup_free_ const char **dest = calloc(n ? n : 1, sizeof(*dest));
	_cleanup_free_ struct mountpoints_slot *slots = calloc(n ? n : 1, sizeof(*slots));
	if (!buf || !dest || !slots)
		return -ENOMEM;
	char *w = buf;
	for (size_t i = 0; i < n; i++) {
		dest[i] = w;
		w += path_normalize(w, plan->entries[i].dest) + 1;
		slots[i] = (struct mountpoints_slot){dest[i], i};
	}
	qsort(slots, n, sizeof(*slots), slot_cmp);
	*ix = (struct mountpoints_index){TAKE_PTR(buf), TAKE_PTR(dest), TAKE_PTR(slots), n};
	return 0;
}

void mountpoints_index_free(struct mountpoints_index *ix)
{
	free(ix->buf);
	free(ix->dest);
	free(ix->slots);
	*ix = (struct mountpoints_index){0};
}

/* The last entry before `before` whose place is key[0..len): the slot just
 * before the first one not below (key, before) in the sorted order. */
static size_t last_at(const struct mountpoints_index *ix, const char *key, size_t len,
                      size_t before)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mountpoints_slot *s = &ix->slots[mid];
		int r = strncmp(s->dest, key, len);
		if (r == 0)
			r = s->dest[len] != '\0' ? 1 : s->i < before ? -1 : 1;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return MOUNTPOINTS_NONE;
	const struct mountpoints_slot *s = &ix->slots[lo - 1];
	return strncmp(s->dest, key, len) == 0 && s->dest[len] == '\0' ? s->i : MOUNTPOINTS_NONE;
}

size_t mountpoints_covering(const struct mountpoints_index *ix, size_t before, const char *dest)
{
	size_t best = MOUNTPOINTS_NONE;
	/* Each strict ancestor, deepest first, down to "/". */
	for (size_t len = strlen(dest); len > 1;) {
		while (len > 0 && dest[len - 1] != '/')
			len--;
		if (len == 0)
			break; /* not absolute */
		if (len > 1)
			len--; /* "/a/" is looked up as "/a"; "/" stays */
		size_t c = last_at(ix, dest, len, before);
		if (c != MOUNTPOINTS_NONE && (best == MOUNTPOINTS_NONE || c > best))
			best = c;
	}
	return best;
}

/* Where `dest` falls in the host directory `cover` binds, and whether it
 * exists there or could be made by this user (the deepest existing
 * ancestor writable). 0, or -errno why it cannot. */
static int mount_point_on_host(const struct plan_entry *cover, const char *cover_dest,
                               const char *dest, const struct plan_entry *e, char *out,
                               size_t out_len)
{
	/* Both normalised: cover_dest is a strict ancestor of dest, so what
	 * follows it in dest is a '/' and the rest of dest. */
	const char *rest = dest + (strcmp(cover_dest, "/") == 0 ? 0 : strlen(cover_dest));
	if (snprintf(out, out_len, "%s%s",
	             strcmp(cover->host_path, "/") == 0 ? "" : cover->host_path,
	             rest) >= (int)out_len)
		return -ENAMETOOLONG;
	/* A bind of the very object there, pinned by this plan a moment ago
	 * under that name: its mount point exists (git protection pins
	 * hundreds, each one stat fewer). */
	if (e && host_bind(e) && e->fd >= 0 && e->host_path && strcmp(e->host_path, out) == 0)
		return 0;
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

static int check(const struct plan *plan, const struct policy *p,
                 const struct mountpoints_index *ix)
{
	char host[PATH_MAX];
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		size_t ci = mountpoints_covering(ix, i, ix->dest[i]);
		if (ci == MOUNTPOINTS_NONE)
			continue;
		const struct plan_entry *c = &plan->entries[ci];
		if (c->type == ASB_ENTRY_PROC) {
			err_set("%s: %s is inside the sandbox's /proc, where nothing new can be "
			        "placed: choose another place",
			        e->origin, e->dest);
			return -EINVAL;
		}
		if (!host_bind(c))
			continue;
		int r = mount_point_on_host(c, ix->dest[ci], ix->dest[i], e, host, sizeof(host));
		if (r < 0)
			return refuse(p, c, e->dest, e->origin, host, r);
	}
	/* The backend makes PATH's directory last (plugin.h, ASB_BIN_DIR). */
	size_t ci = mountpoints_covering(ix, plan->n_entries, PLAN_RUN_DIR);
	const struct plan_entry *c = ci == MOUNTPOINTS_NONE ? NULL : &plan->entries[ci];
	if (c && host_bind(c)) {
		int r =
		    mount_point_on_host(c, ix->dest[ci], PLAN_RUN_DIR, NULL, host, sizeof(host));
		if (r < 0)
			return refuse(p, c, PLAN_RUN_DIR, "the executables on PATH", host, r);
	}
	return 0;
}

int mountpoints_check(const struct plan *plan, const struct policy *p)
{
	struct mountpoints_index ix;
	int r = mountpoints_index_build(plan, &ix);
	if (r < 0)
		return r;
	r = check(plan, p, &ix);
	mountpoints_index_free(&ix);
	return r;
}
