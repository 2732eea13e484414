/* SPDX-License-Identifier: MIT */
/* Plan → bubblewrap argv. Binds use the fds the host opened and checked
 * (--ro-bind-fd), so what runs is exactly what was validated. */
#include "bwrap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define OUT(s)                                                                                     \
	do {                                                                                       \
		int _r = host->out_arg(ctx, (s));                                                  \
		if (_r < 0)                                                                        \
			return _r;                                                                 \
	} while (0)

static unsigned version_major, version_minor;

void bwrap_set_version(unsigned major, unsigned minor)
{
	version_major = major;
	version_minor = minor;
}

static bool version_at_least(unsigned major, unsigned minor)
{
	return version_major > major || (version_major == major && version_minor >= minor);
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

static int render_mount(const struct asb_host *host, struct asb_ctx *ctx, const struct asb_mount *m)
{
	int r;
	bool try = m->flags & ASB_MOUNT_F_TRY;
	switch (m->type) {
	case ASB_MOUNT_RO_BIND:
	case ASB_MOUNT_BIND:
	case ASB_MOUNT_DEV_BIND:
		if (m->fd >= 0 && m->type != ASB_MOUNT_DEV_BIND) {
			OUT(m->type == ASB_MOUNT_RO_BIND ? "--ro-bind-fd" : "--bind-fd");
			if ((r = out_fd(host, ctx, m->fd)) < 0)
				return r;
		} else {
			if (!m->source)
				return -EINVAL;
			OUT(m->type == ASB_MOUNT_RO_BIND ? (try ? "--ro-bind-try" : "--ro-bind")
			    : m->type == ASB_MOUNT_BIND  ? (try ? "--bind-try" : "--bind")
			                                 : (try ? "--dev-bind-try" : "--dev-bind"));
			OUT(m->source);
		}
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_TMPFS:
		if ((r = out_perms(host, ctx, m->mode)) < 0)
			return r;
		OUT("--tmpfs");
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_DIR:
		if ((r = out_perms(host, ctx, m->mode)) < 0)
			return r;
		OUT("--dir");
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_DATA:
		if (m->fd < 0)
			return -EINVAL;
		if ((r = out_perms(host, ctx, m->mode)) < 0)
			return r;
		OUT("--ro-bind-data");
		if ((r = out_fd(host, ctx, m->fd)) < 0)
			return r;
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_SYMLINK:
		if (!m->source)
			return -EINVAL;
		OUT("--symlink");
		OUT(m->source);
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_PROC:
		OUT("--proc");
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_DEV:
		OUT("--dev");
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_MQUEUE:
		OUT("--mqueue");
		OUT(m->dest);
		return 0;
	case ASB_MOUNT_REMOUNT_RO:
		OUT("--remount-ro");
		OUT(m->dest);
		return 0;
	}
	return -EOPNOTSUPP;
}

int bwrap_render(const struct asb_host *host, struct asb_ctx *ctx, const char *bwrap_path)
{
	int r;
	uint32_t flags = host->plan_flags(ctx);
	int64_t is_root = 0;
	(void)host->policy_int(ctx, "is_root", &is_root);

	OUT(bwrap_path);
	/* Every namespace; the network one too unless the plan shares it. */
	OUT("--unshare-user");
	OUT("--unshare-ipc");
	OUT("--unshare-pid");
	OUT("--unshare-uts");
	OUT("--unshare-cgroup-try");
	if (!(flags & ASB_PLAN_SHARE_NET))
		OUT("--unshare-net");
	if (flags & ASB_PLAN_DIE_WITH_PARENT)
		OUT("--die-with-parent");
	if (flags & ASB_PLAN_NEW_SESSION)
		OUT("--new-session");
	/* As root, bubblewrap would keep capabilities inside: drop them all. */
	if (is_root) {
		OUT("--cap-drop");
		OUT("ALL");
	}

	int n = host->plan_mount_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_mount m = {.struct_size = sizeof(m)};
		if ((r = host->plan_mount_get(ctx, (uint32_t)i, &m)) < 0)
			return r;
		if ((r = render_mount(host, ctx, &m)) < 0)
			return r;
	}

	/* Seccomp programs last, so they apply to the agent only: bubblewrap
	 * installs them right before its exec. */
	if (ASB_HAS(host, struct asb_host, plan_seccomp_count) &&
	    ASB_HAS(host, struct asb_host, plan_seccomp_fd)) {
		int count = host->plan_seccomp_count(ctx);
		for (int i = 0; i < count; i++) {
			int fd = host->plan_seccomp_fd(ctx, (uint32_t)i);
			if (fd < 0)
				return fd;
			OUT("--add-seccomp-fd");
			if ((r = out_fd(host, ctx, fd)) < 0)
				return r;
		}
	}
	/* A second layer under seccomp's: the sandbox's user namespace allows
	 * no nested one. */
	if ((flags & ASB_PLAN_NO_USERNS) && version_at_least(0, 8))
		OUT("--disable-userns");

	const char *dir = host->plan_chdir(ctx);
	if (dir) {
		OUT("--chdir");
		OUT(dir);
	}
	int info = host->runtime_fd(ctx, "info");
	if (info >= 0) {
		OUT("--info-fd");
		if ((r = out_fd(host, ctx, info)) < 0)
			return r;
	}
	int block = host->runtime_fd(ctx, "block");
	if (block >= 0) {
		OUT("--block-fd");
		if ((r = out_fd(host, ctx, block)) < 0)
			return r;
	}
	/* The environment reaches bubblewrap through execve, never argv: argv is
	 * visible to every process on the host and lands in bwrap.args. */
	OUT("--");
	int argc = host->plan_argv_count(ctx);
	if (argc <= 0)
		return -EINVAL;
	for (int i = 0; i < argc; i++)
		OUT(host->plan_argv_get(ctx, (uint32_t)i));
	return 0;
}
