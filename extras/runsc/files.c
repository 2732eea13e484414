/* SPDX-License-Identifier: MIT */
/* The bundle's own files, in the private directory (0700, the core's, gone
 * with the session): generated files, empty masks, the executables'
 * symlinks under ASB_RUN_DIR, the symlinks and mount points of the root,
 * made before runsc starts. Nothing else writes there before the sandbox
 * runs, so plain paths are safe; everything is created exclusively. What
 * is read-only inside is so by its mount; on the host our directories stay
 * writable by their owner, so that whoever removes a session can. */
#include "runsc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int r = 0;
	for (size_t off = 0; off < len && r == 0;) {
		ssize_t n = write(fd, (const char *)data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* mkdir -p of everything above `path` that is below `base`. */
static int make_parents(const char *base, char *path)
{
	size_t skip = strlen(base);
	for (char *c = path + skip + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		int r = mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
		*c = '/';
		if (r < 0)
			return r;
	}
	return 0;
}

static int base_of(const struct runsc *rs, int container, char *out, size_t len)
{
	if (container < 0) {
		int n = snprintf(out, len, "%s/" RUNSC_ROOTFS, rs->dir);
		return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
	}
	return spec_source_path(rs, &rs->view.v[container], out, len);
}

static bool ours(const struct runsc *rs, int container)
{
	if (container < 0)
		return true;
	enum gen_kind g = rs->view.v[container].gen;
	return g == G_DIR || g == G_EPHEMERAL || g == G_RUN_DIR;
}

/* The item's place inside its container, on the host. */
static int place_item(const struct runsc *rs, const struct item *it)
{
	char base[PATH_MAX], path[PATH_MAX];
	int r = base_of(rs, it->container, base, sizeof(base));
	if (r < 0)
		return r;
	const char *rel =
	    it->container < 0 ? it->dest : it->dest + strlen(rs->view.v[it->container].dest);
	if (snprintf(path, sizeof(path), "%s%s", base, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((r = make_parents(base, path)) < 0)
		return r;
	if (it->gen == G_SYMLINK)
		return symlink(it->target, path) < 0 ? -errno : 0;
	/* A mount point: runsc's gofer would make it, but cannot inside a
	 * read-only directory of ours. */
	if (it->dir)
		return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int run_dir(const struct asb_host *host, struct asb_ctx *ctx, const struct runsc *rs)
{
	char bin[PATH_MAX];
	if (snprintf(bin, sizeof(bin), "%s/" RUNSC_RUN "/bin", rs->dir) >= (int)sizeof(bin))
		return -ENAMETOOLONG;
	if (mkdir(bin, 0755) < 0)
		return -errno;
	int n = host->plan_exec_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_exec x = {.struct_size = sizeof(x)};
		int r = host->plan_exec_get(ctx, (uint32_t)i, &x);
		if (r < 0)
			return r;
		if (!x.name || !x.name[0] || strchr(x.name, '/') || strcmp(x.name, ".") == 0 ||
		    strcmp(x.name, "..") == 0 || !x.host_path || x.host_path[0] != '/') {
			host->log(ctx, ASB_LOG_ERROR, "runsc: bad executable name %s",
			          x.name ? x.name : "(null)");
			return -EINVAL;
		}
		char link[PATH_MAX];
		if (snprintf(link, sizeof(link), "%s/%s", bin, x.name) >= (int)sizeof(link))
			return -ENAMETOOLONG;
		if (symlink(x.host_path, link) < 0)
			return -errno;
	}
	return 0;
}

int files_materialize(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs)
{
	int r;
	char path[PATH_MAX];
	for (size_t i = 0; i < rs->view.n; i++) {
		const struct item *it = &rs->view.v[i];
		if ((r = spec_source_path(rs, it, path, sizeof(path))) < 0)
			return r;
		switch (it->gen) {
		case G_FILE:
			r = write_file(path, it->data, it->data ? it->data_len : 0, it->mode);
			break;
		case G_DIR:
		case G_EPHEMERAL:
			r = mkdir(path, 0700) < 0 ? -errno : 0;
			break;
		case G_RUN_DIR:
			r = mkdir(path, 0700) < 0 ? -errno : run_dir(host, ctx, rs);
			break;
		default:
			r = 0;
		}
		if (r < 0) {
			host->log(ctx, ASB_LOG_ERROR, "runsc: cannot make %s for %s: %s", path,
			          it->dest, strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < rs->view.n; i++) {
		const struct item *it = &rs->view.v[i];
		if (!ours(rs, it->container))
			continue;
		if ((r = place_item(rs, it)) < 0) {
			host->log(ctx, ASB_LOG_ERROR, "runsc: cannot place %s in the bundle: %s",
			          it->dest, strerror(-r));
			return r;
		}
	}
	/* The final modes last (an ephemeral directory's may allow us less). */
	for (size_t i = 0; i < rs->view.n; i++) {
		const struct item *it = &rs->view.v[i];
		if (it->gen != G_DIR && it->gen != G_EPHEMERAL && it->gen != G_RUN_DIR)
			continue;
		if ((r = spec_source_path(rs, it, path, sizeof(path))) < 0)
			return r;
		if (chmod(path, it->mode) < 0)
			return -errno;
	}
	return 0;
}
