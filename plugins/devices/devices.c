/* SPDX-License-Identifier: MIT */
/*
 * devices: host device nodes on request, nothing else of /dev.
 *
 * plugins.devices.gpu = true (--allow-gpu, alias --allow-nvidia): the DRI
 * render nodes (/dev/dri/renderD*, not the card* nodes: no modesetting)
 * with the sysfs entries libdrm and Mesa read to name their driver
 * (/sys/dev/char/MAJ:MIN and the device's directory, read-only), and where
 * present the NVIDIA nodes (nvidiactl, nvidia-uvm, nvidia-uvm-tools,
 * nvidia-modeset, nvidiaN, nvidia-caps/), NixOS's driver libraries
 * (/run/opengl-driver) and nvidia-smi on PATH; on Debian the driver
 * libraries are under /usr, which the sandbox already reads.
 * plugins.devices.kvm = true (--allow-kvm): /dev/kvm.
 * ioctl() on these nodes was never denied; with an NVIDIA device the
 * "unix_seqpacket" seccomp group is lifted (and nothing next to it): CUDA's
 * runtime makes an AF_UNIX seqpacket listener for its UVM file descriptors
 * (an abstract name, in the sandbox's own network namespace) and asks
 * /tmp/nvidia-mps/control for MPS, and without that socket every CUDA call
 * fails with error 304 (seen on an H200, driver 580; nvidia-smi needs none).
 * A flag whose devices this host lacks binds nothing and says so.
 */
#include "shown.h"
#include "util.h"

#include <agentsandbox/plugin.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

struct devices {
	bool gpu, kvm;
	unsigned n_gpu;
	struct strv shown;
};

static int dev_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	*data = calloc(1, sizeof(struct devices));
	return *data ? 0 : -ENOMEM;
}

static void dev_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	struct devices *d = data;
	if (d)
		strv_clear(&d->shown);
	free(d);
}

static int dev_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct devices *d = data;
	int b = 0, r;
	if ((r = host->config_bool(ctx, "gpu", &b)) < 0)
		return r;
	d->gpu = r == 1 && b;
	if ((r = host->config_bool(ctx, "kvm", &b)) < 0)
		return r;
	d->kvm = r == 1 && b;
	return 0;
}

static int add_device(const struct asb_host *host, struct asb_ctx *ctx, struct devices *d,
                      const char *path, const char *why)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return 0;
	int r = host->plan_path(ctx, ASB_ENTRY_DEVICE, path, NULL, ASB_ENTRY_F_TRY);
	return r < 0 ? r : shown_add(&d->shown, "device", "%s (%s)", path, why);
}

/* What libdrm reads to tell a render node's driver: /sys/dev/char/M:N, a
 * link into /sys/devices, and the device's directory there. */
static int add_sysfs(const struct asb_host *host, struct asb_ctx *ctx, struct devices *d,
                     const char *node)
{
	struct stat st;
	if (stat(node, &st) < 0 || !S_ISCHR(st.st_mode))
		return 0;
	char link[64], real[PATH_MAX], dev[PATH_MAX + 16], devreal[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, real))
		return 0;
	snprintf(dev, sizeof(dev), "%s/device", real);
	if (!realpath(dev, devreal) || !str_has_prefix(devreal, "/sys/devices/"))
		return 0;
	int r = host->plan_path(ctx, ASB_ENTRY_READ, devreal, NULL, ASB_ENTRY_F_TRY);
	if (r < 0)
		return r;
	struct asb_entry e = {.struct_size = sizeof(e),
	                      .type = ASB_ENTRY_SYMLINK,
	                      .fd = -1,
	                      .host_path = real,
	                      .dest = link};
	if ((r = host->plan_entry(ctx, &e)) < 0)
		return r;
	return shown_add(&d->shown, "sysfs",
	                 "%s -> %s; %s read-only (the driver's name for libdrm)", link, real,
	                 devreal);
}

static int add_gpu(const struct asb_host *host, struct asb_ctx *ctx, struct devices *d)
{
	int r;
	_cleanup_closedir_ DIR *dri = opendir("/dev/dri");
	struct dirent *de;
	while (dri && (de = readdir(dri))) {
		if (!str_has_prefix(de->d_name, "renderD"))
			continue;
		char path[64 + NAME_MAX];
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		if ((r = add_device(host, ctx, d, path, "a DRI render node")) < 0 ||
		    (r = add_sysfs(host, ctx, d, path)) < 0)
			return r;
		d->n_gpu++;
	}
	static const char *const nvidia[] = {"/dev/nvidiactl",        "/dev/nvidia-uvm",
	                                     "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
	                                     "/dev/nvidia-caps",      NULL};
	for (const char *const *n = nvidia; *n; n++) {
		struct stat st;
		if (stat(*n, &st) < 0)
			continue;
		if ((r = add_device(host, ctx, d, *n, "NVIDIA")) < 0)
			return r;
		d->n_gpu++;
	}
	unsigned nvidia_nodes = 0;
	_cleanup_closedir_ DIR *dev = opendir("/dev");
	while (dev && (de = readdir(dev))) {
		char *end;
		if (!str_has_prefix(de->d_name, "nvidia") || !de->d_name[6])
			continue;
		strtoul(de->d_name + 6, &end, 10);
		if (*end || end == de->d_name + 6)
			continue;
		char path[64 + NAME_MAX];
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if ((r = add_device(host, ctx, d, path, "an NVIDIA GPU")) < 0)
			return r;
		d->n_gpu++;
		nvidia_nodes++;
	}
	if (nvidia_nodes &&
	    ((r = host->plan_seccomp_allow(ctx, "unix_seqpacket")) < 0 ||
	     (r = shown_add(&d->shown, "seccomp",
	                    "unix_seqpacket lifted: CUDA's runtime listens on an AF_UNIX "
	                    "seqpacket socket (abstract, in the sandbox's network namespace)")) <
	         0))
		return r;
	struct stat st;
	if (stat("/run/opengl-driver", &st) == 0) {
		if ((r = host->plan_path(ctx, ASB_ENTRY_READ, "/run/opengl-driver", NULL,
		                         ASB_ENTRY_F_TRY | ASB_ENTRY_F_EXEC)) < 0 ||
		    (r = shown_add(&d->shown, "mount",
		                   "/run/opengl-driver: read-only (the driver's libraries)")) < 0)
			return r;
	}
	char smi[PATH_MAX];
	if (stat("/dev/nvidiactl", &st) == 0 &&
	    host->find_executable(ctx, "nvidia-smi", smi, sizeof(smi)) == 0 &&
	    ((r = host->plan_add_executable(ctx, "nvidia-smi", smi)) < 0 ||
	     (r = shown_add(&d->shown, "executable", "nvidia-smi (%s)", smi)) < 0))
		return r;
	if (!d->n_gpu)
		host->log(ctx, ASB_LOG_WARN,
		          "--allow-gpu: this host has no DRI render node and no NVIDIA device; "
		          "nothing bound");
	return 0;
}

static int dev_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct devices *d = data;
	int r;
	if (d->gpu && (r = add_gpu(host, ctx, d)) < 0)
		return r;
	if (d->kvm) {
		struct stat st;
		if (stat("/dev/kvm", &st) < 0) {
			host->log(ctx, ASB_LOG_WARN, "--allow-kvm: this host has no /dev/kvm");
			return 0;
		}
		if ((r = add_device(host, ctx, d, "/dev/kvm", "KVM")) < 0)
			return r;
	}
	return 0;
}

static int dev_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct devices *d = data;
	int r;
	if ((r = host->describe(ctx, "gpu", d->gpu ? "true" : "false (--allow-gpu)")) < 0 ||
	    (r = host->describe(ctx, "kvm", d->kvm ? "true" : "false (--allow-kvm)")) < 0)
		return r;
	return shown_describe(host, ctx, &d->shown);
}

static const struct asb_hooks dev_hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .configure = dev_configure,
    .pre_mount = dev_pre_mount,
    .describe = dev_describe,
};

static const char *const dev_config_keys[] = {"gpu", "kvm", NULL};

static const struct asb_option dev_options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "gpu",
     .flag = "allow-gpu",
     .env = "ALLOW_GPU",
     .help = "the GPU: DRI render nodes, NVIDIA device nodes and driver libraries where present"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "gpu",
     .flag = "allow-nvidia",
     .env = "ALLOW_NVIDIA",
     .help = "the same as --allow-gpu"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "kvm",
     .flag = "allow-kvm",
     .env = "ALLOW_KVM",
     .help = "/dev/kvm"},
    {0},
};

static const struct asb_plugin dev_plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "devices",
    .version = "0.1.0",
    .description = "host device nodes on request: the GPU, KVM",
    .config_keys = dev_config_keys,
    .options = dev_options,
    .load = ASB_LOAD_ON_DEMAND,
    .init = dev_init,
    .fini = dev_fini,
    .hooks = &dev_hooks,
};

ASB_PLUGIN_DEFINE(dev_plugin)
