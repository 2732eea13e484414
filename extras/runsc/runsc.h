/* SPDX-License-Identifier: MIT */
/* The gVisor backend: plan → an OCI bundle run by `runsc run`, held by a
 * prestart hook until the core has wired the network, watched by a small
 * process of ours (the keeper) that relays signals through `runsc kill`.
 * Everything here is per launch, in struct runsc (the plugin's data). */
#ifndef ASB_RUNSC_H
#define ASB_RUNSC_H

#include <agentsandbox/plugin.h>

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* How an item of the view is mounted. */
enum mount_kind {
	M_NONE,  /* not a mount: a symlink placed in its container */
	M_BIND,  /* bind of `source` (ro unless `rw`) */
	M_TMPFS, /* gVisor's own tmpfs */
	M_PROC,  /* gVisor's procfs */
	M_DEVFS, /* gVisor's /dev (a tmpfs there is filled with its devices) */
};

/* What we make on the host for it, in the private directory. */
enum gen_kind {
	G_NONE,      /* a host path from the plan */
	G_FILE,      /* a generated file (FILE; MASK of a file: empty) */
	G_DIR,       /* an empty directory of ours (MASK of a directory, /proc, /sys) */
	G_EPHEMERAL, /* an EPHEMERAL that holds a symlink: a directory of ours, rw */
	G_RUN_DIR,   /* ASB_RUN_DIR with bin/ (the executables' symlinks) */
	G_SYMLINK,   /* a symlink (host: its target) */
};

struct item {
	enum mount_kind mount;
	enum gen_kind gen;
	bool rw;
	bool dir;      /* the object at dest is a directory */
	uint32_t type; /* the plan's ASB_ENTRY_*, 0 for our own */
	uint32_t mode; /* tmpfs, generated files and directories */
	char *dest;
	char *source; /* bind source (host path, or ours after placement) */
	char *target; /* G_SYMLINK */
	char *origin;
	void *data; /* G_FILE */
	size_t data_len;
	bool pinned; /* the plan pinned the host object: dev/ino */
	dev_t dev;
	ino_t ino;
	int container;      /* index of the item it lies in; -1: the root */
	unsigned gen_index; /* files/N, dirs/N */
};

struct view {
	struct item *v;
	size_t n, cap;
};

struct runsc {
	/* probe */
	char runsc[PATH_MAX];
	char sh[PATH_MAX];
	char flock[PATH_MAX];
	char version[64];
	char platform[16];
	bool is_root;
	int64_t uid, gid;

	/* prepare (from the plan and the private directory) */
	char *dir; /* private_dir */
	char id[96];
	bool use_netns; /* a network namespace the core wires (else --network=none) */
	bool hold;      /* the core holds the sandbox (await_start, release) */
	bool hooked;    /* the prestart hook holds it: always, when flock(1) is there */
	int ready_fd;   /* FIFO: the prestart hook writes runsc's state here */
	int netns_fd;

	/* build */
	struct view view;
	char *spec; /* config.json (secrets included: written 0600 only) */
	size_t spec_len;
	bool terminal;
	char **base_argv; /* runsc and its global flags (the same for every subcommand) */

	/* spawn */
	pid_t keeper;
	pid_t sandbox;
	bool spawned;
};

/* trust.c */
int runsc_find_trusted(const char *name, const char *const *dirs, char *out, size_t len, char *why,
                       size_t why_len);

/* view.c: the plan's entries as mounts and placed objects. */
int view_build(const struct asb_host *host, struct asb_ctx *ctx, struct view *view);
void view_free(struct view *view);

/* spec.c: config.json; redact: environment values replaced. */
int spec_render(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs, bool redact,
                char **out, size_t *len);
/* The host directory of our own that an item of ours lives in. */
int spec_source_path(const struct runsc *rs, const struct item *it, char *out, size_t len);

/* files.c: make the bundle's files in the private directory. */
int files_materialize(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs);

/* pins.c: while held, the gofer's mounts are the objects the core checked. */
int pins_verify(const struct asb_host *host, struct asb_ctx *ctx, const struct runsc *rs);

/* keeper.c: the ops that run the sandbox. */
int keeper_spawn(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs, int64_t *pid);
int keeper_await_start(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs);
int keeper_release(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs);
int keeper_wait(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs, int wstatus);
void keeper_cleanup(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs);

/* paths in the private directory */
#define RUNSC_BUNDLE   "bundle"
#define RUNSC_ROOTFS   "bundle/rootfs"
#define RUNSC_STATE    "state"
#define RUNSC_FILES    "files"
#define RUNSC_DIRS     "dirs"
#define RUNSC_RUN      "run"
#define RUNSC_READY    "ready"
#define RUNSC_LOCK     "hold.lock"
#define RUNSC_RELEASED "released"
#define RUNSC_STARTED  "started"

#endif
