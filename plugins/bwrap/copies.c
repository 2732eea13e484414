/* SPDX-License-Identifier: MIT */
/* The system's single files (the core's list of /etc entries, exposed by
 * name) as copies in a read-only tmpfs instead of one bind each.
 * bubblewrap re-reads the whole mount table for every bind it makes, so
 * ~30 file binds cost more than the rest of the sandbox; a copy (--file)
 * is no mount at all. The agent reads the same content, with the same
 * mode; what differs is that a copy is a snapshot taken at launch, owned
 * by the sandbox's user, and that the directory holding them is read-only
 * (today's is a writable directory of bubblewrap's root). Directories,
 * and anything the plan pinned by fd, stay binds. */
#include "bwrap.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger files stay binds: a copy is read and written at every launch. */
#define COPY_MAX (1u << 20)

/* The top-level directory of dest ("/etc" for "/etc/ssl/x"), or false. */
static bool top_dir(const char *dest, char *out, size_t len)
{
	const char *slash = dest[0] == '/' ? strchr(dest + 1, '/') : NULL;
	if (!slash || (size_t)(slash - dest) >= len)
		return false;
	memcpy(out, dest, (size_t)(slash - dest));
	out[slash - dest] = '\0';
	return true;
}

static bool is_candidate(const struct asb_entry *e)
{
	return e->type == ASB_ENTRY_READ && e->fd < 0 && !(e->flags & ASB_ENTRY_F_DIR) &&
	       e->host_path && strcmp(e->host_path, e->dest) == 0 && path_depth(e->dest) >= 2;
}

/* A file the host names, root-owned and regular (what a bind of it would
 * show, symlinks followed), opened for bubblewrap to copy; -errno when it
 * must stay a bind (or is gone). */
static int open_copy(const char *path, struct bwrap_copy *c)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (uint64_t)st.st_size > COPY_MAX) {
		close(fd);
		return -EPERM;
	}
	c->mode = st.st_mode & 0777;
	c->st = st;
	c->fd = fd;
	return 0;
}

void bwrap_copies_close(struct bwrap *b)
{
	for (size_t i = 0; i < b->n_copies; i++)
		if (b->copies[i].fd >= 0)
			close(b->copies[i].fd);
	for (size_t d = 0; d < BWRAP_COPY_DIRS_MAX; d++) {
		if (b->cache_fd[d] >= 0)
			close(b->cache_fd[d]);
		b->cache_fd[d] = -1;
		free(b->cache_path[d]);
		b->cache_path[d] = NULL;
	}
	free(b->copies);
	b->copies = NULL;
	b->n_copies = 0;
	b->copy_dirs[0][0] = '\0';
	b->n_copy_dirs = 0;
}

static bool dir_listed(const struct bwrap *b, const char *dir)
{
	for (size_t i = 0; i < b->n_copy_dirs; i++)
		if (strcmp(b->copy_dirs[i], dir) == 0)
			return true;
	return false;
}

int bwrap_copies_open(const struct asb_host *host, struct asb_ctx *ctx, struct bwrap *b)
{
	bwrap_copies_close(b);
	int n = host->plan_entry_count(ctx);
	if (n <= 0)
		return 0;
	b->copies = calloc((size_t)n, sizeof(*b->copies));
	if (!b->copies)
		return -ENOMEM;
	b->n_copies = (size_t)n;
	struct asb_entry *v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	int r = 0;
	for (int i = 0; i < n && r >= 0; i++) {
		v[i] = (struct asb_entry){.struct_size = sizeof(v[i])};
		r = host->plan_entry_get(ctx, (uint32_t)i, &v[i]);
		b->copies[i].fd = -1;
		b->copies[i].state = COPY_NONE;
	}
	for (int i = 0; i < n && r >= 0; i++) {
		char dir[PATH_MAX];
		/* A top-level directory too long for copy_dirs stays binds. */
		if (!is_candidate(&v[i]) || !top_dir(v[i].dest, dir, sizeof(b->copy_dirs[0])) ||
		    (b->n_copy_dirs == BWRAP_COPY_DIRS_MAX && !dir_listed(b, dir)))
			continue;
		/* Only where the directory itself is no entry of the plan (then
		 * it is bubblewrap's to make). */
		bool ok = true, covered = false;
		for (int j = 0; j < n && ok; j++) {
			if (strcmp(v[j].dest, dir) == 0 || strcmp(v[j].dest, "/") == 0)
				ok = false;
			/* A later entry at the same place wins anyway
			 * (/etc/resolv.conf, generated): nothing to copy. */
			if (j > i && strcmp(v[j].dest, v[i].dest) == 0)
				covered = true;
		}
		if (!ok)
			continue;
		struct bwrap_copy c = {.fd = -1};
		int e = covered ? -ENOENT : open_copy(v[i].host_path, &c);
		if (covered || (e == -ENOENT && (v[i].flags & ASB_ENTRY_F_TRY))) {
			b->copies[i].state = COPY_GONE;
		} else if (e < 0) {
			continue;
		} else {
			c.state = COPY_FILE;
			b->copies[i] = c;
		}
		if (!dir_listed(b, dir))
			memcpy(b->copy_dirs[b->n_copy_dirs++], dir, strlen(dir) + 1);
		b->copies[i].dir = bwrap_copy_dir_of(b, v[i].dest);
	}
	free(v);
	if (r < 0)
		bwrap_copies_close(b);
	return r;
}

int bwrap_copy_dir_of(const struct bwrap *b, const char *dest)
{
	char dir[PATH_MAX];
	if (!top_dir(dest, dir, sizeof(dir)))
		return -1;
	for (size_t i = 0; i < b->n_copy_dirs; i++)
		if (strcmp(b->copy_dirs[i], dir) == 0)
			return (int)i;
	return -1;
}
