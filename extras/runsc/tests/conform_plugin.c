/* SPDX-License-Identifier: MIT */
/* A feature plugin for the conformance suite: it asks for what the core's
 * own layout does not (masks, a host device), shows that the sandbox is
 * held while its network hook runs, and changes a pinned path between the
 * check and the mount. Keys of plugins.conform:
 *   mask_file, mask_dir   MASK entries at these paths
 *   device                a DEVICE entry (host path, same place inside)
 *   mark                  written on the host by the network hook
 *   swap_dir              pinned (READ), then replaced by another directory
 *   gone_dir              pinned (READ), then moved away */
#include <agentsandbox/plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *key(const struct asb_host *host, struct asb_ctx *ctx, const char *k)
{
	const char *v = NULL;
	return host->config_string(ctx, k, &v) == 1 ? v : NULL;
}

static int conform_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)data;
	int r = 0;
	const char *v;
	if ((v = key(host, ctx, "mask_file"))) {
		struct asb_entry e = {
		    .struct_size = sizeof(e), .type = ASB_ENTRY_MASK, .fd = -1, .dest = v};
		if ((r = host->plan_entry(ctx, &e)) < 0)
			return r;
	}
	if ((v = key(host, ctx, "mask_dir"))) {
		struct asb_entry e = {.struct_size = sizeof(e),
		                      .type = ASB_ENTRY_MASK,
		                      .flags = ASB_ENTRY_F_DIR,
		                      .fd = -1,
		                      .dest = v};
		if ((r = host->plan_entry(ctx, &e)) < 0)
			return r;
	}
	if ((v = key(host, ctx, "device")) &&
	    (r = host->plan_path(ctx, ASB_ENTRY_DEVICE, v, NULL, 0)) < 0)
		return r;
	if ((v = key(host, ctx, "swap_dir")) &&
	    (r = host->plan_path(ctx, ASB_ENTRY_READ, v, NULL, 0)) < 0)
		return r;
	if ((v = key(host, ctx, "gone_dir")) &&
	    (r = host->plan_path(ctx, ASB_ENTRY_READ, v, NULL, 0)) < 0)
		return r;
	return 0;
}

/* After the core checked and pinned the paths, before the sandbox exists. */
static int conform_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)data;
	char old[4096];
	const char *v;
	if ((v = key(host, ctx, "swap_dir"))) {
		snprintf(old, sizeof(old), "%s.old", v);
		if (rename(v, old) < 0 || mkdir(v, 0755) < 0)
			return -errno;
	}
	if ((v = key(host, ctx, "gone_dir"))) {
		snprintf(old, sizeof(old), "%s.gone", v);
		if (rename(v, old) < 0)
			return -errno;
	}
	return 0;
}

/* The sandbox exists and waits. */
static int conform_network(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)data;
	const char *v = key(host, ctx, "mark");
	if (!v)
		return 0;
	int fd = open(v, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	int64_t pid = 0;
	char line[64];
	int n = snprintf(line, sizeof(line), "held %s\n",
	                 host->sandbox_pid(ctx, &pid) == 0 && pid > 0 ? "with a pid" : "no pid");
	int r = write(fd, line, (size_t)n) == n ? 0 : -EIO;
	close(fd);
	return r;
}

static const struct asb_hooks hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .pre_mount = conform_pre_mount,
    .env = conform_env,
    .network = conform_network,
};

static const char *const keys[] = {"mask_file", "mask_dir", "device", "mark",
                                   "swap_dir",  "gone_dir", NULL};

static const struct asb_plugin desc = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "conform",
    .version = "0.1.0",
    .description = "the runsc conformance suite's helper",
    .config_keys = keys,
    .load = ASB_LOAD_ON_DEMAND,
    .hooks = &hooks,
};

ASB_PLUGIN_DEFINE(desc)
