/* SPDX-License-Identifier: MIT */
/* Plan → bubblewrap's op list. Paths go by the fds the host opened and
 * checked (--ro-bind-fd), so what runs is exactly what was validated. The
 * executables on PATH become a read-only tmpfs of symlinks at ASB_BIN_DIR;
 * the system's single files, copies in a read-only tmpfs (copies.c), or a
 * kept directory of them bound in its place (copy_cache.c). */
#include "bwrap.h"

#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define OUT(s)                                                                                     \
	do {                                                                                       \
		int _r = host->out_arg(ctx, (s));                                                  \
		if (_r < 0)                                                                        \
			return _r;                                                                 \
	} while (0)

static bool version_at_least(const struct bwrap *b, unsigned major, unsigned minor)
{
	return b->native || b->major > major || (b->major == major && b->minor >= minor);
}

static int out_fd(const struct asb_host *host, struct asb_ctx *ctx, int fd)
{
	char num[16];
	snprintf(num, sizeof(num), "%d", fd);
	int r = host->out_keep_fd(ctx, fd);
	if (r < 0)
		return r;
	return host->out_arg(ctx, num);
}

static int out_perms(const struct asb_host *host, struct asb_ctx *ctx, uint32_t mode)
{
	char octal[16];
	if (!mode)
		return 0;
	snprintf(octal, sizeof(octal), "0%o", mode & 07777);
	OUT("--perms");
	OUT(octal);
	return 0;
}

static int render_path(const struct asb_host *host, struct asb_ctx *ctx, const struct asb_entry *e)
{
	int r;
	if (e->type == ASB_ENTRY_DEVICE) {
		OUT("--dev-bind");
		OUT(e->host_path);
	} else if (e->fd >= 0) {
		OUT(e->type == ASB_ENTRY_READ ? "--ro-bind-fd" : "--bind-fd");
		if ((r = out_fd(host, ctx, e->fd)) < 0)
			return r;
	} else {
		/* By name: the system's own paths (and, in a dry run, a missing rw
		 * dir). */
		bool try = e->flags & ASB_ENTRY_F_TRY;
		OUT(e->type == ASB_ENTRY_READ ? (try ? "--ro-bind-try" : "--ro-bind")
		                              : (try ? "--bind-try" : "--bind"));
		OUT(e->host_path);
	}
	OUT(e->dest);
	return 0;
}

/* /proc/sys read-only, in a launch as root: the agent is the host's uid 0
 * then (with no capability), and most of its files write to the whole
 * host by their mode alone (kernel.core_pattern names a program the
 * kernel runs as root). The other knobs bubblewrap covers itself where
 * access(W_OK) says they are writable, as agentsandbox-init does; that
 * never says so for /proc/sys, a directory of mode 0555 (not even to
 * root). Bound from the host's /proc: what /proc/sys shows does not
 * depend on the /proc it is reached through. */
static int render_proc_sys(const struct asb_host *host, struct asb_ctx *ctx, const char *dest)
{
	int64_t is_root = 0;
	(void)host->policy_int(ctx, "is_root", &is_root);
	if (!is_root)
		return 0;
	char to[PATH_MAX];
	if ((size_t)snprintf(to, sizeof(to), "%s/sys", dest) >= sizeof(to))
		return -ENAMETOOLONG;
	OUT("--ro-bind-try");
	OUT("/proc/sys");
	OUT(to);
	return 0;
}

static int render_entry(const struct asb_host *host, struct asb_ctx *ctx, const struct asb_entry *e)
{
	int r;
	switch (e->type) {
	case ASB_ENTRY_READ:
	case ASB_ENTRY_WRITE:
	case ASB_ENTRY_DEVICE:
		return render_path(host, ctx, e);
	case ASB_ENTRY_EPHEMERAL:
		if ((r = out_perms(host, ctx, e->mode)) < 0)
			return r;
		OUT("--tmpfs");
		OUT(e->dest);
		return 0;
	case ASB_ENTRY_MASK:
		if (e->flags & ASB_ENTRY_F_DIR) {
			/* An empty directory nothing can be created in. */
			if ((r = out_perms(host, ctx, 0555)) < 0)
				return r;
			OUT("--tmpfs");
			OUT(e->dest);
			OUT("--remount-ro");
			OUT(e->dest);
			return 0;
		}
		/* An empty read-only file: like a generated one. */
		__attribute__((fallthrough));
	case ASB_ENTRY_FILE:
		if (e->fd < 0)
			return -EINVAL;
		if ((r = out_perms(host, ctx, e->mode ? e->mode : 0444)) < 0)
			return r;
		OUT("--ro-bind-data");
		if ((r = out_fd(host, ctx, e->fd)) < 0)
			return r;
		OUT(e->dest);
		return 0;
	case ASB_ENTRY_SYMLINK:
		OUT("--symlink");
		OUT(e->host_path);
		OUT(e->dest);
		return 0;
	case ASB_ENTRY_PROC:
		OUT("--proc");
		OUT(e->dest);
		return render_proc_sys(host, ctx, e->dest);
	case ASB_ENTRY_DEVFS:
		OUT("--dev");
		OUT(e->dest);
		return 0;
	}
	return -EOPNOTSUPP;
}

/* A file copied into a tmpfs (copies.c): no mount, unlike a bind. */
static int render_copy(const struct asb_host *host, struct asb_ctx *ctx, int fd, uint32_t mode,
                       const char *dest)
{
	int r;
	if (fd < 0)
		return -EINVAL;
	/* Always explicit: bubblewrap's default for --file is 0666. */
	if ((r = out_perms(host, ctx, mode ? mode : 0400)) < 0)
		return r;
	OUT("--file");
	if ((r = out_fd(host, ctx, fd)) < 0)
		return r;
	OUT(dest);
	return 0;
}

/* A copy dir: its kept directory bound read-only (by the fd checked, or in
 * a dry run by name), else a tmpfs for the copies' ops. */
static int render_copy_dir(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                           size_t d)
{
	int r;
	if (b->cache_fd[d] >= 0) {
		OUT("--ro-bind-fd");
		if ((r = out_fd(host, ctx, b->cache_fd[d])) < 0)
			return r;
	} else if (b->cache_path[d]) {
		OUT("--ro-bind");
		OUT(b->cache_path[d]);
	} else {
		if ((r = out_perms(host, ctx, 0755)) < 0)
			return r;
		OUT("--tmpfs");
	}
	OUT(b->copy_dirs[d]);
	return 0;
}

/* ASB_RUN_DIR: a tmpfs holding bin/ (made read-only at the end, after the
 * core's own entries under it). bin/ is the directory of symlinks prepare
 * checked, bound read-only by its fd (bin_dir.c); in a dry run, that
 * directory by name; failing both, a symlink op per executable. */
static int render_bin_dir(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b)
{
	int r;
	if ((r = out_perms(host, ctx, 0755)) < 0)
		return r;
	OUT("--tmpfs");
	OUT(ASB_RUN_DIR);
	if (b->bin_fd >= 0) {
		OUT("--ro-bind-fd");
		if ((r = out_fd(host, ctx, b->bin_fd)) < 0)
			return r;
		OUT(ASB_BIN_DIR);
		return 0;
	}
	char cached[PATH_MAX];
	if (!b->prepared && host->plan_exec_count(ctx) > 0 &&
	    bwrap_bin_dir_path(host, ctx, cached, sizeof(cached)) >= 0) {
		OUT("--ro-bind");
		OUT(cached);
		OUT(ASB_BIN_DIR);
		return 0;
	}
	if ((r = out_perms(host, ctx, 0755)) < 0)
		return r;
	OUT("--dir");
	OUT(ASB_BIN_DIR);
	int n = host->plan_exec_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_exec x = {.struct_size = sizeof(x)};
		if ((r = host->plan_exec_get(ctx, (uint32_t)i, &x)) < 0)
			return r;
		char dest[PATH_MAX];
		if (snprintf(dest, sizeof(dest), "%s/%s", ASB_BIN_DIR, x.name) >= (int)sizeof(dest))
			return -ENAMETOOLONG;
		OUT("--symlink");
		OUT(x.host_path);
		OUT(dest);
	}
	return 0;
}

/* ASB_RUN_DIR with bin/, and the host's /etc staged there for init when it
 * binds directories of it (init_mounts.h). */
static int render_run_dir(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                          const struct init_mounts *m)
{
	int r = render_bin_dir(host, ctx, b);
	if (r < 0 || !m->n_staged)
		return r;
	OUT("--ro-bind");
	OUT(INIT_STAGED_TOP);
	OUT(INIT_HOST_STAGE INIT_STAGED_TOP);
	return 0;
}

/* What reads the options: bubblewrap, or (builder = init) the init the
 * plan runs, exec'd through the fd it is bound by (the binary checked). */
static int render_builder(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b)
{
	if (!b->native) {
		OUT(b->path);
		return 0;
	}
	int n = host->plan_entry_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		int r = host->plan_entry_get(ctx, (uint32_t)i, &e);
		if (r < 0)
			return r;
		if (strcmp(e.dest, ASB_INIT_PATH) != 0)
			continue;
		char via[32];
		/* A dry run shows the path; a launch runs what was checked. */
		if (b->prepared && e.fd >= 0) {
			if ((r = host->out_keep_fd(ctx, e.fd)) < 0)
				return r;
			snprintf(via, sizeof(via), "/proc/self/fd/%d", e.fd);
		}
		OUT(b->prepared && e.fd >= 0 ? via : e.host_path);
		OUT("--sandbox");
		return 0;
	}
	/* No init in the plan (no hardening): nothing to make it with. */
	return -ENOENT;
}

/* The mounts init makes: a real launch planned them in build; a dry run
 * plans them here, to show them. */
static int render(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                  const struct init_mounts *m);

int bwrap_plan_init_mounts(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                           struct init_mounts *m)
{
	const char *ro[BWRAP_COPY_DIRS_MAX + 1];
	size_t n = 0;
	for (size_t d = 0; d < b->n_copy_dirs; d++)
		ro[n++] = b->copy_dirs[d];
	ro[n++] = ASB_RUN_DIR;
	return init_mounts_plan(host, ctx, bwrap_may_add_caps(b), ro, n, m);
}

int bwrap_render(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b)
{
	if (b->prepared)
		return render(host, ctx, b, &b->mounts);
	struct init_mounts m;
	int r = bwrap_plan_init_mounts(host, ctx, b, &m);
	if (r >= 0)
		r = render(host, ctx, b, &m);
	init_mounts_clear(&m);
	return r;
}

static int render(const struct asb_host *host, struct asb_ctx *ctx, const struct bwrap *b,
                  const struct init_mounts *m)
{
	int r;
	int64_t is_root = 0;
	(void)host->policy_int(ctx, "is_root", &is_root);

	if ((r = render_builder(host, ctx, b)) < 0)
		return r;
	/* Every namespace; the core wires the network one when it must, and
	 * then makes it first and starts bubblewrap in it. */
	struct asb_network net = {.struct_size = sizeof(net)};
	bool given_netns =
	    host->plan_network(ctx, &net) >= 0 && (net.flags & ASB_NET_F_IN_NAMESPACE);
	OUT("--unshare-user");
	OUT("--unshare-ipc");
	OUT("--unshare-pid");
	OUT("--unshare-uts");
	OUT("--unshare-cgroup-try");
	if (!given_netns)
		OUT("--unshare-net");
	OUT("--die-with-parent");
	/* As root, bubblewrap would keep capabilities inside: drop them all. */
	if (is_root) {
		OUT("--cap-drop");
		OUT("ALL");
	}
	/* For init's mounts, in the sandbox's user namespace only; init drops
	 * them (and the bounding set) before anything else runs. DAC_OVERRIDE
	 * makes mount points where bubblewrap, which has it, would. */
	if (m->n_delegated) {
		OUT("--cap-add");
		OUT("CAP_SYS_ADMIN");
		OUT("--cap-add");
		OUT("CAP_DAC_OVERRIDE");
		OUT("--cap-add");
		OUT("CAP_SETPCAP");
	}

	bool bin_done = false;
	bool dir_done[BWRAP_COPY_DIRS_MAX] = {false};
	int n = host->plan_entry_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		if ((r = host->plan_entry_get(ctx, (uint32_t)i, &e)) < 0)
			return r;
		if (!bin_done && path_is_within(e.dest, ASB_RUN_DIR)) {
			if ((r = render_run_dir(host, ctx, b, m)) < 0)
				return r;
			bin_done = true;
		}
		bool staged = init_mounts_staged(m, (uint32_t)i);
		if (init_mounts_delegated(m, (uint32_t)i) && !staged)
			continue;
		int d = bwrap_copy_dir_of(b, e.dest);
		bool kept = d >= 0 && (b->cache_fd[d] >= 0 || b->cache_path[d]);
		if (d >= 0 && !dir_done[d]) {
			/* Before anything under it: the tmpfs holding the copies,
			 * or the kept directory of them (copy_cache.c). */
			if ((r = render_copy_dir(host, ctx, b, (size_t)d)) < 0)
				return r;
			dir_done[d] = true;
		}
		if (kept)
			continue; /* in it already: the copies, and init's mount points */
		if (staged) {
			/* init binds the host's directory here, from the stage. */
			if ((r = out_perms(host, ctx, 0755)) < 0)
				return r;
			OUT("--dir");
			OUT(e.dest);
			continue;
		}
		const struct bwrap_copy *c = (size_t)i < b->n_copies ? &b->copies[i] : NULL;
		if (c && c->state == COPY_GONE)
			continue;
		if (c && c->state == COPY_FILE)
			r = render_copy(host, ctx, c->fd, c->mode, e.dest);
		else if ((d >= 0 || path_is_within(e.dest, ASB_RUN_DIR)) &&
		         e.type == ASB_ENTRY_FILE)
			/* In a tmpfs of ours made read-only at the end (ASB_RUN_DIR's:
			 * the seccomp filter): a copy, not a bind. */
			r = render_copy(host, ctx, e.fd, e.mode ? e.mode : 0444, e.dest);
		else
			r = render_entry(host, ctx, &e);
		if (r < 0)
			return r;
	}
	if (!bin_done && (r = render_run_dir(host, ctx, b, m)) < 0)
		return r;
	/* Read-only last: until now bubblewrap makes mount points in them.
	 * Where init makes mounts, it does this too (bwrap_plan_init_mounts). */
	for (size_t d = 0; !m->n_delegated && d < b->n_copy_dirs; d++) {
		if (b->cache_fd[d] >= 0 || b->cache_path[d])
			continue; /* bound read-only */
		OUT("--remount-ro");
		OUT(b->copy_dirs[d]);
	}
	if (!m->n_delegated) {
		OUT("--remount-ro");
		OUT(ASB_RUN_DIR);
	}

	/* A second layer under seccomp's: the sandbox's user namespace allows
	 * no nested one. */
	if ((host->plan_hardening(ctx) & ASB_HARD_NO_USERNS) && version_at_least(b, 0, 8))
		OUT("--disable-userns");

	const char *dir = host->plan_chdir(ctx);
	if (dir) {
		OUT("--chdir");
		OUT(dir);
	}
	if (b->info[1] >= 0) {
		OUT("--info-fd");
		if ((r = out_fd(host, ctx, b->info[1])) < 0)
			return r;
	}
	if (b->block[0] >= 0) {
		OUT("--block-fd");
		if ((r = out_fd(host, ctx, b->block[0])) < 0)
			return r;
	}
	if (b->status[1] >= 0) {
		OUT("--setenv");
		OUT(ASB_INIT_STATUS_ENV);
		if ((r = out_fd(host, ctx, b->status[1])) < 0)
			return r;
	}
	/* The environment reaches bubblewrap through execve, never argv: argv is
	 * visible to every process on the host and lands in bwrap.args. */
	OUT("--");
	int argc = host->plan_argv_count(ctx);
	if (argc <= 0)
		return -EINVAL;
	for (int i = 0; i < argc; i++) {
		OUT(host->plan_argv_get(ctx, (uint32_t)i));
		/* argv[0] is init when the plan hardens (init_mounts_plan). */
		if (i == 0 && m->n_delegated) {
			OUT("--mounts-fd");
			if (m->fd >= 0 && (r = out_fd(host, ctx, m->fd)) < 0)
				return r;
			if (m->fd < 0)
				OUT("(init-mounts, below)");
		}
	}
	if (m->n_delegated)
		return host->out_artifact(ctx, "init-mounts", m->shown, m->shown_len);
	return 0;
}
