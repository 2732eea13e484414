/* SPDX-License-Identifier: MIT */
/* The plan's entries as the sandbox will see them: a list of mounts and
 * placed symlinks in an order both runsc's gofer and its sentry agree on.
 *
 * The plan applies entries in order, a later entry covering whatever an
 * earlier one put at or below its destination. An OCI runtime mounts by
 * destination instead (gVisor sorts by path length), so entries that a
 * later one covers are dropped first; what remains is sorted ancestors
 * first, which keeps the plan's meaning in any runtime's order.
 *
 * OCI has no symlinks and no generated files: those live in directories of
 * ours (the bundle's root, ASB_RUN_DIR, masks, an ephemeral directory that
 * must hold a link), made in the private directory before the sandbox
 * starts. */
#include "runsc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* a is a strict ancestor of p ("/a" of "/a/b"; "/" of everything else). */
static bool is_ancestor(const char *a, const char *p)
{
	size_t n = strlen(a);
	if (strcmp(a, "/") == 0)
		return strcmp(p, "/") != 0;
	return strncmp(a, p, n) == 0 && p[n] == '/';
}

static bool at_or_below(const char *p, const char *a)
{
	return strcmp(p, a) == 0 || is_ancestor(a, p);
}

/* Absolute, normalised (no "//", ".", "..", trailing "/"), not "/". */
static bool dest_ok(const char *d)
{
	if (!d || d[0] != '/' || d[1] == '\0')
		return false;
	for (const char *c = d; *c; c++) {
		if (*c == '/' && (c[1] == '/' || c[1] == '\0'))
			return false;
		if (*c == '/' && c[1] == '.' &&
		    (c[2] == '/' || c[2] == '\0' || (c[2] == '.' && (c[3] == '/' || c[3] == '\0'))))
			return false;
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	}
	return true;
}

static struct item *push(struct view *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct item *n = realloc(v->v, cap * sizeof(*n));
		if (!n)
			return NULL;
		v->v = n;
		v->cap = cap;
	}
	struct item *it = &v->v[v->n++];
	memset(it, 0, sizeof(*it));
	it->container = -1;
	return it;
}

static void item_free(struct item *it)
{
	free(it->dest);
	free(it->source);
	free(it->target);
	free(it->origin);
	free(it->data);
}

void view_free(struct view *v)
{
	for (size_t i = 0; i < v->n; i++)
		item_free(&v->v[i]);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/* One of our own: an empty read-only directory, the run directory. */
static int push_own(struct view *v, enum gen_kind gen, const char *dest, uint32_t mode,
                    const char *why)
{
	struct item *it = push(v);
	if (!it)
		return -ENOMEM;
	it->mount = M_BIND;
	it->gen = gen;
	it->dir = true;
	it->mode = mode;
	it->dest = strdup(dest);
	it->origin = strdup(why);
	return it->dest && it->origin ? 0 : -ENOMEM;
}

static int copy_data(struct item *it, const struct asb_entry *e)
{
	size_t len = (size_t)e->data_len;
	it->data = malloc(len ? len : 1);
	if (!it->data)
		return -ENOMEM;
	it->data_len = len;
	if (e->data) {
		memcpy(it->data, e->data, len);
		return 0;
	}
	/* The content only through its fd. */
	for (size_t off = 0; off < len;) {
		ssize_t n =
		    e->fd >= 0 ? pread(e->fd, (char *)it->data + off, len - off, (off_t)off) : -1;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

static int refuse(const struct asb_host *host, struct asb_ctx *ctx, int err, const char *what,
                  const struct asb_entry *e)
{
	host->log(ctx, ASB_LOG_ERROR, "runsc cannot give %s at %s (asked by %s)", what,
	          e->dest ? e->dest : "?", e->origin ? e->origin : "?");
	return err;
}

static int add_entry(const struct asb_host *host, struct asb_ctx *ctx, struct view *v,
                     const struct asb_entry *e)
{
	if (!dest_ok(e->dest))
		return refuse(host, ctx, -EINVAL,
		              "an entry with a destination that is not a "
		              "normalised absolute path",
		              e);
	if (at_or_below(e->dest, ASB_BIN_DIR) || strcmp(e->dest, ASB_RUN_DIR) == 0)
		return refuse(host, ctx, -EINVAL, "an entry over the executables' directory", e);
	if (e->type == ASB_ENTRY_DEVICE)
		return refuse(host, ctx, -EOPNOTSUPP,
		              "a host device (gVisor does not pass host devices through)", e);
	if (e->type == ASB_ENTRY_DEVFS && strcmp(e->dest, "/dev") != 0)
		return refuse(host, ctx, -EOPNOTSUPP, "a device filesystem other than /dev", e);
	if ((e->type == ASB_ENTRY_READ || e->type == ASB_ENTRY_WRITE ||
	     e->type == ASB_ENTRY_SYMLINK) &&
	    !e->host_path)
		return -EINVAL;

	/* Unpinned and allowed to be missing: decided now, right before the
	 * sandbox starts (a path gone after this fails the mount: no agent). */
	struct stat st;
	if ((e->type == ASB_ENTRY_READ || e->type == ASB_ENTRY_WRITE) &&
	    (e->flags & ASB_ENTRY_F_TRY) && e->fd < 0 && lstat(e->host_path, &st) < 0 &&
	    errno == ENOENT)
		return 0;

	struct item *it = push(v);
	if (!it)
		return -ENOMEM;
	it->type = e->type;
	it->mode = e->mode & 07777;
	it->dest = strdup(e->dest);
	it->origin = strdup(e->origin ? e->origin : "?");
	if (!it->dest || !it->origin)
		return -ENOMEM;
	switch (e->type) {
	case ASB_ENTRY_READ:
	case ASB_ENTRY_WRITE: {
		it->mount = M_BIND;
		it->rw = e->type == ASB_ENTRY_WRITE;
		it->dir = e->flags & ASB_ENTRY_F_DIR;
		if (!(it->source = strdup(e->host_path)))
			return -ENOMEM;
		if ((e->flags & ASB_ENTRY_F_PINNED) && e->fd >= 0 && fstat(e->fd, &st) == 0) {
			it->pinned = true;
			it->dev = st.st_dev;
			it->ino = st.st_ino;
			it->dir = S_ISDIR(st.st_mode);
		} else if (stat(e->host_path, &st) == 0) {
			/* By name: what its mount point must be. */
			it->dir = S_ISDIR(st.st_mode);
		}
		return 0;
	}
	case ASB_ENTRY_EPHEMERAL:
		it->mount = M_TMPFS;
		it->dir = true;
		if (!it->mode)
			it->mode = 0755;
		return 0;
	case ASB_ENTRY_MASK:
		it->mount = M_BIND;
		if (e->flags & ASB_ENTRY_F_DIR) {
			it->gen = G_DIR;
			it->dir = true;
			it->mode = 0755; /* read-only by its mount */
		} else {
			it->gen = G_FILE;
			if (!it->mode)
				it->mode = 0444;
		}
		return 0;
	case ASB_ENTRY_FILE:
		it->mount = M_BIND;
		it->gen = G_FILE;
		if (!it->mode)
			it->mode = 0444;
		return copy_data(it, e);
	case ASB_ENTRY_SYMLINK:
		it->mount = M_NONE;
		it->gen = G_SYMLINK;
		return (it->target = strdup(e->host_path)) ? 0 : -ENOMEM;
	case ASB_ENTRY_PROC:
		it->mount = M_PROC;
		it->dir = true;
		return 0;
	case ASB_ENTRY_DEVFS: {
		it->mount = M_DEVFS;
		it->dir = true;
		/* /dev/shm is part of it (bubblewrap's --dev has one too). */
		struct item *shm = push(v);
		if (!shm)
			return -ENOMEM;
		shm->type = ASB_ENTRY_EPHEMERAL;
		shm->mount = M_TMPFS;
		shm->dir = true;
		shm->mode = 01777;
		shm->dest = strdup("/dev/shm");
		shm->origin = strdup(v->v[v->n - 2].origin);
		return shm->dest && shm->origin ? 0 : -ENOMEM;
	}
	}
	v->n--;
	item_free(it);
	return refuse(host, ctx, -EOPNOTSUPP, "an entry of an unknown type", e);
}

/* Drop what a later item covers; sort the rest ancestors first. */
static void prune_and_sort(struct view *v)
{
	size_t kept = 0;
	for (size_t i = 0; i < v->n; i++) {
		bool covered = false;
		for (size_t j = i + 1; j < v->n && !covered; j++)
			covered = at_or_below(v->v[i].dest, v->v[j].dest);
		if (covered)
			item_free(&v->v[i]);
		else
			v->v[kept++] = v->v[i];
	}
	v->n = kept;
	/* Stable insertion sort by length: an ancestor is always shorter. */
	for (size_t i = 1; i < v->n; i++) {
		struct item x = v->v[i];
		size_t len = strlen(x.dest), k = i;
		while (k > 0 && strlen(v->v[k - 1].dest) > len) {
			v->v[k] = v->v[k - 1];
			k--;
		}
		v->v[k] = x;
	}
}

static bool holds_own_files(const struct item *c)
{
	return c->gen == G_DIR || c->gen == G_EPHEMERAL || c->gen == G_RUN_DIR;
}

static int place(const struct asb_host *host, struct asb_ctx *ctx, struct view *v)
{
	unsigned files = 0, dirs = 0;
	for (size_t i = 0; i < v->n; i++) {
		struct item *it = &v->v[i];
		size_t best = 0;
		it->container = -1;
		for (size_t j = 0; j < v->n; j++)
			if (j != i && is_ancestor(v->v[j].dest, it->dest) &&
			    strlen(v->v[j].dest) > best) {
				best = strlen(v->v[j].dest);
				it->container = (int)j;
			}
		if (it->container < 0)
			continue;
		struct item *c = &v->v[it->container];
		if (c->gen == G_SYMLINK) {
			host->log(
			    ctx, ASB_LOG_ERROR,
			    "runsc cannot give %s (asked by %s): it lies under the symlink %s",
			    it->dest, it->origin, c->dest);
			return -EOPNOTSUPP;
		}
		if (it->gen != G_SYMLINK || holds_own_files(c))
			continue;
		if (c->mount == M_TMPFS) {
			/* A link inside an ephemeral directory: make that
			 * directory ours, on the host, gone with the session. */
			c->mount = M_BIND;
			c->rw = true;
			c->gen = G_EPHEMERAL;
			continue;
		}
		host->log(ctx, ASB_LOG_ERROR,
		          "runsc cannot give the symlink %s (asked by %s) inside %s: OCI mounts "
		          "cannot create one there",
		          it->dest, it->origin, c->dest);
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < v->n; i++) {
		struct item *it = &v->v[i];
		if (it->gen == G_FILE)
			it->gen_index = files++;
		else if (it->gen == G_DIR || it->gen == G_EPHEMERAL)
			it->gen_index = dirs++;
	}
	return 0;
}

int view_build(const struct asb_host *host, struct asb_ctx *ctx, struct view *v)
{
	int r;
	view_free(v);
	/* gVisor mounts its own /proc, /sys and /dev where the spec has
	 * nothing: empty read-only directories unless the plan covers them. */
	if ((r = push_own(v, G_DIR, "/proc", 0755, "runsc (no procfs in the plan)")) < 0 ||
	    (r = push_own(v, G_DIR, "/sys", 0755, "runsc (no sysfs in agentsandbox)")) < 0 ||
	    (r = push_own(v, G_DIR, "/dev", 0755, "runsc (no /dev in the plan)")) < 0)
		return r;
	bool run_dir = false;
	int n = host->plan_entry_count(ctx);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		if ((r = host->plan_entry_get(ctx, (uint32_t)i, &e)) < 0)
			return r;
		if (!run_dir && e.dest && at_or_below(e.dest, ASB_RUN_DIR)) {
			if ((r = push_own(v, G_RUN_DIR, ASB_RUN_DIR, 0755, "runsc (executables)")) <
			    0)
				return r;
			run_dir = true;
		}
		if ((r = add_entry(host, ctx, v, &e)) < 0)
			return r;
	}
	if (!run_dir && (r = push_own(v, G_RUN_DIR, ASB_RUN_DIR, 0755, "runsc (executables)")) < 0)
		return r;
	prune_and_sort(v);
	return place(host, ctx, v);
}
