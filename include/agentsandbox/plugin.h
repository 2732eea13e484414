/* SPDX-License-Identifier: MIT */
/*
 * agentsandbox plugin ABI: the one public header.
 *
 * A plugin is a shared module that exports exactly one symbol,
 * ASB_PLUGIN_ENTRY_NAME, returning a static descriptor (struct asb_plugin).
 * Plugins never link against the core: every call into the host goes through
 * the versioned function table (struct asb_host) handed to each hook.
 *
 * Rules that keep the ABI stable:
 *  - every struct starts with a size (and, for the descriptor, magic + ABI);
 *  - fields are only ever appended; check ASB_HAS() before using a newer one;
 *  - integers are fixed width; no enum types cross the boundary;
 *  - the host copies whatever a plugin passes in; strings and pointers the host
 *    passes out are borrowed for the duration of the call only.
 *
 * Return convention: functions return int, >= 0 on success, -errno on failure.
 */
#ifndef AGENTSANDBOX_PLUGIN_H
#define AGENTSANDBOX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASB_PLUGIN_MAGIC 0x50425341u /* "ASBP" */
#define ASB_ABI_MAJOR    1u
#define ASB_ABI_MINOR    1u

#define ASB_PLUGIN_ENTRY      asb_plugin_entry
#define ASB_PLUGIN_ENTRY_NAME "asb_plugin_entry"

#if defined(__GNUC__)
#define ASB_EXPORT            __attribute__((visibility("default")))
#define ASB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define ASB_EXPORT
#define ASB_PRINTF(fmt, args)
#endif

/* True when a struct that starts with struct_size is new enough to hold
 * `member` (a table from an older host or plugin may be shorter). */
#define ASB_HAS(ptr, type, member)                                                                 \
	((ptr) != NULL && (ptr)->struct_size >= offsetof(type, member) + sizeof((ptr)->member) &&  \
	 (ptr)->member != NULL)

/* Plugin kinds (bit set). */
#define ASB_KIND_BACKEND 0x1u
#define ASB_KIND_FEATURE 0x2u

/* Log levels. */
#define ASB_LOG_DEBUG 0
#define ASB_LOG_INFO  1
#define ASB_LOG_WARN  2
#define ASB_LOG_ERROR 3

/* Mount operations of the plan, applied in order (later ones cover earlier). */
#define ASB_MOUNT_RO_BIND    1u  /* source (or fd) read-only at dest */
#define ASB_MOUNT_BIND       2u  /* source (or fd) read-write at dest */
#define ASB_MOUNT_DEV_BIND   3u  /* device node(s), read-write */
#define ASB_MOUNT_TMPFS      4u  /* empty tmpfs at dest (mode optional) */
#define ASB_MOUNT_DIR        5u  /* an empty directory at dest (mode optional) */
#define ASB_MOUNT_DATA       6u  /* read-only file at dest with the given content */
#define ASB_MOUNT_SYMLINK    7u  /* symlink at dest pointing to source */
#define ASB_MOUNT_PROC       8u  /* fresh procfs at dest */
#define ASB_MOUNT_DEV        9u  /* minimal /dev at dest */
#define ASB_MOUNT_MQUEUE     10u /* fresh mqueue at dest */
#define ASB_MOUNT_REMOUNT_RO 11u /* make dest (already mounted) read-only */

/* Mount flags. */
#define ASB_MOUNT_F_TRY 0x1u /* source may be missing: skip silently */

/* Plan flags (asb_host.plan_flags). */
#define ASB_PLAN_SHARE_NET       0x1u /* keep the host network namespace */
#define ASB_PLAN_DIE_WITH_PARENT 0x2u /* kill the sandbox when the launcher dies */
#define ASB_PLAN_NEW_SESSION     0x4u /* setsid() inside (detaches the terminal) */
/* ABI 1.1: no new user namespaces inside; a backend with its own way to say
 * so (bwrap --disable-userns) adds it as a second layer to seccomp's. */
#define ASB_PLAN_NO_USERNS 0x8u

struct asb_ctx; /* opaque: one per plugin per launch */

/* One mount of the plan, as a backend reads it or a plugin adds it. */
struct asb_mount {
	uint32_t struct_size;
	uint32_t type;  /* ASB_MOUNT_* */
	uint32_t flags; /* ASB_MOUNT_F_* */
	uint32_t mode;  /* DIR/TMPFS/DATA permission bits; 0 = backend default */
	int32_t fd;     /* bind source opened by the host, or data fd; -1 if none */
	int32_t reserved;
	const char *source; /* host path for binds, target for symlinks */
	const char *dest;   /* path inside the sandbox */
	const char *origin; /* who added it ("core", a plugin name); read-only */
};

/* The host function table. Every function takes the caller's context. */
struct asb_host {
	uint32_t struct_size;
	uint16_t abi_major;
	uint16_t abi_minor;

	/* Logging to launch.log (and stderr for WARN/ERROR). */
	void (*log)(struct asb_ctx *ctx, int level, const char *fmt, ...) ASB_PRINTF(3, 4);

	/* The plugin's own config group (plugins.<name>). Keys are relative
	 * ("protect", "engines"). Return 1 when found, 0 when absent, -EINVAL when
	 * the value has the wrong type (the host records a file:line error). */
	int (*config_bool)(struct asb_ctx *ctx, const char *key, int *out);
	int (*config_int)(struct asb_ctx *ctx, const char *key, int64_t *out);
	int (*config_string)(struct asb_ctx *ctx, const char *key, const char **out);
	/* Number of strings in a list/array (0 when absent), -EINVAL otherwise. */
	int (*config_list_count)(struct asb_ctx *ctx, const char *key);
	int (*config_list_string)(struct asb_ctx *ctx, const char *key, uint32_t index,
	                          const char **out);
	/* Report a config error at the key's file:line; returns -EINVAL. */
	int (*config_error)(struct asb_ctx *ctx, const char *key, const char *fmt, ...)
	    ASB_PRINTF(3, 4);

	/* Resolved policy values by name: "workspace", "home", "user",
	 * "launch_dir", "config_file", "session_dir", "session_id", "name",
	 * "command", "backend", "tmpdir". NULL when unknown or unset. */
	const char *(*policy_string)(struct asb_ctx *ctx, const char *key);
	/* Booleans/integers by name ("unix_sockets", "network_enabled",
	 * "is_root", "uid", "gid", "dry_run" (1 for --show-config/--check: nothing
	 * will run)); -ENOENT when unknown. */
	int (*policy_int)(struct asb_ctx *ctx, const char *key, int64_t *out);
	/* String lists by name: "packages", "rw_dirs", "rw_files", "ro_dirs",
	 * "ro_files" (expanded, absolute). Count, or -ENOENT. */
	int (*policy_list_count)(struct asb_ctx *ctx, const char *key);
	const char *(*policy_list_get)(struct asb_ctx *ctx, const char *key, uint32_t index);

	/* Plan mutators (pre_mount, env, pre_exec). The host copies everything;
	 * a fd in `m` is duplicated, the caller keeps its own. */
	int (*plan_add_mount)(struct asb_ctx *ctx, const struct asb_mount *m);
	/* Open `host_path` once and bind that very object at `dest` (NULL = same
	 * path), so a symlink swapped in later changes nothing. `type` is
	 * ASB_MOUNT_RO_BIND or ASB_MOUNT_BIND. */
	int (*plan_bind)(struct asb_ctx *ctx, uint32_t type, const char *host_path,
	                 const char *dest, uint32_t flags);
	/* A read-only file with this content at `dest` (masks, generated files). */
	int (*plan_add_data)(struct asb_ctx *ctx, const char *dest, const void *data, size_t len,
	                     uint32_t mode);
	int (*plan_setenv)(struct asb_ctx *ctx, const char *key, const char *value);
	int (*plan_unsetenv)(struct asb_ctx *ctx, const char *key);
	/* Put an executable found on the host (absolute path) on the agent's PATH
	 * under `name`, binding what it needs to run. */
	int (*plan_add_executable)(struct asb_ctx *ctx, const char *name, const char *host_path);

	/* --show-config lines for this plugin (describe hook). */
	int (*describe)(struct asb_ctx *ctx, const char *key, const char *value);

	/* Plan readers, for backends. mount_get fills `out` (set out->struct_size
	 * first); strings are borrowed for the call. */
	int (*plan_mount_count)(struct asb_ctx *ctx);
	int (*plan_mount_get)(struct asb_ctx *ctx, uint32_t index, struct asb_mount *out);
	int (*plan_env_count)(struct asb_ctx *ctx);
	int (*plan_env_get)(struct asb_ctx *ctx, uint32_t index, const char **key,
	                    const char **value);
	int (*plan_argv_count)(struct asb_ctx *ctx);
	const char *(*plan_argv_get)(struct asb_ctx *ctx, uint32_t index);
	const char *(*plan_chdir)(struct asb_ctx *ctx);
	uint32_t (*plan_flags)(struct asb_ctx *ctx);
	/* Launcher-side fds by name: "info" (write end the backend reports the
	 * sandbox pid on), "block" (read end the sandbox waits on before exec).
	 * -ENOENT when not in use (e.g. --show-config prints placeholders). */
	int (*runtime_fd)(struct asb_ctx *ctx, const char *name);

	/* Backend output (build op): the command to run and the fds it needs. */
	int (*out_arg)(struct asb_ctx *ctx, const char *arg);
	int (*out_keep_fd)(struct asb_ctx *ctx, int fd);
	/* A text artifact for the session directory (e.g. "seatbelt.sb"). */
	int (*out_artifact)(struct asb_ctx *ctx, const char *name, const char *data, size_t len);

	/* The sandbox's pid in the launcher's pid namespace (network hook and
	 * later); -ESRCH before it exists. */
	int (*sandbox_pid)(struct asb_ctx *ctx, int64_t *out);

	/* ABI 1.1: kernel hardening. Check ASB_HAS(host, struct asb_host, ...)
	 * first: a 1.0 host does not have these. */
	/* Lift one seccomp group for this launch ("userns" for a browser's own
	 * sandbox, "ptrace", ...; `agentsandbox --check` lists them). Logged in
	 * launch.log and shown by --show-config. Call it from configure,
	 * pre_mount or env; -ENOENT for an unknown group, -EBUSY once the
	 * filter is compiled. */
	int (*plan_seccomp_allow)(struct asb_ctx *ctx, const char *group);
	/* Backends: the seccomp BPF programs (sock_fprog instructions in an
	 * fd, at offset 0) to apply inside, in order. fd is borrowed. */
	int (*plan_seccomp_count)(struct asb_ctx *ctx);
	int (*plan_seccomp_fd)(struct asb_ctx *ctx, uint32_t index);
};

typedef int (*asb_hook_fn)(const struct asb_host *host, struct asb_ctx *ctx);

/* Hooks, in call order. Any may be NULL. A hook failing (< 0) aborts the
 * launch; post_exit still runs for every plugin whose configure ran. */
struct asb_hooks {
	uint32_t struct_size;
	uint32_t reserved;
	asb_hook_fn configure; /* read and validate plugins.<name> */
	asb_hook_fn pre_mount; /* add mounts */
	asb_hook_fn env;       /* set/unset environment */
	asb_hook_fn network;   /* sandbox exists, not yet released */
	asb_hook_fn pre_exec;  /* last look before the agent runs */
	/* Always runs, in reverse load order; status is the agent's exit status
	 * or -errno when the launch failed before it ran. */
	void (*post_exit)(const struct asb_host *host, struct asb_ctx *ctx, int status);
	asb_hook_fn describe; /* side-effect free: --show-config */
};

/* Backend operations. */
struct asb_backend_ops {
	uint32_t struct_size;
	uint32_t reserved;
	/* 0 when usable here; otherwise -errno and a reason in `why`. */
	int (*probe)(const struct asb_host *host, struct asb_ctx *ctx, char *why, size_t why_len);
	/* Pure: turn the plan into a command line with host->out_*. */
	asb_hook_fn build;
	/* Optional: run it yourself instead of the core's fork/exec. */
	asb_hook_fn exec;
};

struct asb_plugin {
	uint32_t magic; /* ASB_PLUGIN_MAGIC */
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t struct_size; /* sizeof(struct asb_plugin) at build time */
	uint32_t kind;        /* ASB_KIND_* */
	const char *name;
	const char *version;
	const char *description;
	/* NULL-terminated list of keys accepted in plugins.<name>; anything else
	 * there is a config error. NULL = the group must be empty. */
	const char *const *config_keys;
	asb_hook_fn init;
	void (*fini)(const struct asb_host *host, struct asb_ctx *ctx);
	const struct asb_hooks *hooks;
	const struct asb_backend_ops *backend; /* ASB_KIND_BACKEND only */
};

typedef const struct asb_plugin *(*asb_plugin_entry_fn)(void);

/* Define the one exported symbol of a plugin. */
#define ASB_PLUGIN_DEFINE(descriptor)                                                              \
	ASB_EXPORT const struct asb_plugin *ASB_PLUGIN_ENTRY(void);                                \
	ASB_EXPORT const struct asb_plugin *ASB_PLUGIN_ENTRY(void)                                 \
	{                                                                                          \
		return &(descriptor);                                                              \
	}

#ifdef __cplusplus
}
#endif

#endif /* AGENTSANDBOX_PLUGIN_H */
