/* SPDX-License-Identifier: MIT */
/*
 * agentsandbox plugin ABI 2 (2.2): the one public header.
 *
 * A plugin is a shared module (.so, .dylib) that exports exactly one symbol,
 * ASB_PLUGIN_ENTRY_NAME, returning a static descriptor (struct asb_plugin).
 * Plugins never link against the core: every call into the host goes through
 * the function table (struct asb_host) handed to each hook. Build one with
 *
 *     cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags agentsandbox-plugin) ...
 *
 * and install it into $(pkg-config --variable=plugindir agentsandbox-plugin).
 *
 * Rules that keep the ABI stable:
 *  - every struct starts with a size (the descriptor also with magic + ABI);
 *  - within a major version fields are only ever appended: check ASB_HAS()
 *    before using a field newer than the major's first release;
 *  - integers are fixed width; no enum types cross the boundary;
 *  - the host copies whatever a plugin passes in; strings and pointers the
 *    host passes out are borrowed for the duration of the call only;
 *  - a plugin built for another major version is refused with one line.
 *
 * Return convention: functions return int, >= 0 on success, -errno on failure.
 *
 * The launch, in order (DESIGN.md "The pipeline"):
 *
 *   discover   every plugin in the search path is opened; its options and
 *              load rule are read (nothing of it runs)
 *   init       the loaded ones: backend first, then features; per-instance
 *              data may be returned and is handed back on every call
 *   configure  read and validate plugins.<name>
 *   probe      (backend) usable here? which capabilities on this host?
 *   pre_mount  add plan entries (paths, masks, generated files, executables)
 *   env        set or unset the agent's environment
 *              -- the plan is final: changes from here on fail with -EBUSY --
 *              -- the core compares the plan with the backend's capabilities
 *                 and refuses what it cannot apply (unless accepted) --
 *   prepare    (backend) the session and a private directory exist
 *   build      (backend) pure: the command and artifacts (also --show-config)
 *   spawn, await_start   (backend) the sandbox exists, held when it must be
 *   network    the sandbox exists and waits: the core has wired its network
 *   pre_exec   last look before the agent runs
 *   release    (backend) the agent runs; signal() forwards, wait() classifies
 *   post_exit  always, in reverse order, even after a failure
 *   cleanup    (backend) remove what spawn made
 *   describe   side-effect free, for --show-config and --check
 */
#ifndef AGENTSANDBOX_PLUGIN_H
#define AGENTSANDBOX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASB_PLUGIN_MAGIC 0x50425341u /* "ASBP" */
#define ASB_ABI_MAJOR    2u
#define ASB_ABI_MINOR    2u

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
 * `member` (a table from an older host or plugin may be shorter). For
 * function pointers it also checks that the member is set. */
#define ASB_HAS(ptr, type, member)                                                                 \
	((ptr) != NULL && (ptr)->struct_size >= offsetof(type, member) + sizeof((ptr)->member) &&  \
	 (ptr)->member)

/* Plugin kinds (bit set). */
#define ASB_KIND_BACKEND 0x1u
#define ASB_KIND_FEATURE 0x2u

/* Log levels. ERROR also becomes the launch's error message. */
#define ASB_LOG_DEBUG 0
#define ASB_LOG_INFO  1
#define ASB_LOG_WARN  2
#define ASB_LOG_ERROR 3

/* ------------------------------------------------------------------ plan */

/* The plan says what the agent may see and do, not how: each entry names a
 * place inside (`dest`) and what is there. Entries are applied parent
 * first: once the plan is final they are ordered by the depth of their
 * dest, in the order they were added within one depth, so an entry covers
 * what an earlier one put at or above its dest and never what any entry put
 * below it (a directory bound over itself keeps the protections inside it,
 * whoever added them). Backends
 * turn them into their own mechanism (bind mounts, a profile, an OCI
 * bundle); one that cannot honour an entry type says so in its
 * capabilities, and the core refuses the launch before anything runs. */
#define ASB_ENTRY_READ      1u /* host path (file or directory) read-only */
#define ASB_ENTRY_WRITE     2u /* host path read-write */
#define ASB_ENTRY_DEVICE    3u /* host device node(s), read-write, no new nodes */
#define ASB_ENTRY_EPHEMERAL 4u /* an empty private writable directory, gone at exit */
#define ASB_ENTRY_MASK                                                                             \
	5u                   /* nothing readable or creatable: an empty read-only                  \
	                      * file (directory with ASB_ENTRY_F_DIR) */
#define ASB_ENTRY_FILE    6u /* a generated read-only file: data/data_len */
#define ASB_ENTRY_SYMLINK 7u /* a symbolic link to host_path (its target) */
#define ASB_ENTRY_PROC    8u /* a fresh procfs showing the sandbox's processes */
#define ASB_ENTRY_DEVFS                                                                            \
	9u /* a minimal /dev (null zero full random urandom tty                                    \
	    * pts ptmx shm), private */

/* Entry flags. */
#define ASB_ENTRY_F_TRY                                                                            \
	0x1u                    /* the host path may be missing: skip it then (plan_path           \
	                         * checks now; an unpinned entry when the sandbox starts) */
#define ASB_ENTRY_F_EXEC   0x2u /* the agent may execute files from here */
#define ASB_ENTRY_F_DIR    0x4u /* a directory (set by the host for paths) */
#define ASB_ENTRY_F_PINNED 0x8u /* fd is the very object the host checked */

/* Where the core's own files appear inside. PATH is exactly ASB_BIN_DIR: a
 * read-only directory holding the plan's executables (see plan_exec_get),
 * which the backend makes. Nothing else may be added under ASB_RUN_DIR. */
#define ASB_RUN_DIR "/run/agentsandbox"
#define ASB_BIN_DIR ASB_RUN_DIR "/bin"
/* 2.2: agentsandbox-init, which a plan that hardens runs first (argv[0]). */
#define ASB_INIT_PATH ASB_RUN_DIR "/init"

struct asb_entry {
	uint32_t struct_size;
	uint32_t type;  /* ASB_ENTRY_* */
	uint32_t flags; /* ASB_ENTRY_F_* */
	uint32_t mode;  /* EPHEMERAL/MASK/FILE permission bits; 0 = default */
	int32_t fd;     /* READ/WRITE/DEVICE: the pinned host object (O_PATH where
	                 * the platform has it), or -1 for a root-owned system path
	                 * exposed by name; FILE and MASK files: the content; else -1 */
	int32_t reserved;
	const char *host_path; /* READ/WRITE/DEVICE: resolved host path; SYMLINK: target */
	const char *dest;      /* absolute path inside */
	const char *origin;    /* who asked: "core", "sandbox.rw_dirs", a plugin's name */
	const void *data;      /* FILE: the content (also readable through fd) */
	uint64_t data_len;
};

/* An executable on PATH: ASB_BIN_DIR/name runs host_path (resolved). */
struct asb_exec {
	uint32_t struct_size;
	uint32_t reserved;
	const char *name;
	const char *host_path;
	const char *origin;
};

/* Network modes (DESIGN.md "Network"). */
#define ASB_NET_OFF      0u /* loopback only */
#define ASB_NET_FILTERED 1u /* only the filtering proxy (and the listed host ports) */
#define ASB_NET_OPEN     2u /* a route out, the host's own services closed */

#define ASB_NET_F_UNIX_SOCKETS   0x1u /* AF_UNIX sockets allowed inside */
#define ASB_NET_F_ALL_HOST_PORTS 0x2u /* open mode: every host loopback port */
/* 2.2: the core made the sandbox's network namespace and wired it, and
 * starts the backend's command in it (ASB_CAP_NETNS_INHERIT): the backend
 * makes no network namespace of its own. */
#define ASB_NET_F_IN_NAMESPACE 0x4u

struct asb_network {
	uint32_t struct_size;
	uint32_t mode;       /* ASB_NET_* */
	uint32_t flags;      /* ASB_NET_F_* */
	uint16_t proxy_port; /* filtered: the proxy is at 127.0.0.1:proxy_port inside */
	uint16_t reserved;
	uint32_t n_host_ports;
	uint32_t n_published_ports;
	const uint16_t *host_ports;      /* the agent's 127.0.0.1:P reaches the host's */
	const uint16_t *published_ports; /* the host's bind:P reaches the agent's 127.0.0.1:P */
};

/* Hardening intent. */
#define ASB_HARD_SECCOMP  0x1u /* the init helper installs the plan's seccomp filter */
#define ASB_HARD_LANDLOCK 0x2u /* the init helper applies a Landlock ruleset */
#define ASB_HARD_NO_USERNS                                                                         \
	0x4u /* no new user namespaces inside (a backend with its                                  \
	      * own switch adds it as a second layer) */

/* Did the agent's command start? The init helper (argv[0] of the plan when
 * ASB_HARD_SECCOMP or ASB_HARD_LANDLOCK holds) says so to a backend that
 * asks: when the variable ASB_INIT_STATUS_ENV in its environment names an
 * fd it inherited, it removes the variable, writes "R" on that fd once the
 * protections hold, right before it execs the agent's command (the fd is
 * close-on-exec: the agent never holds it), and "E<errno>" after the "R"
 * when that exec failed. A backend passes a pipe's write end and reads the
 * other end in wait(): nothing means the sandbox failed before the agent's
 * command (a setup failure, -errno); "R" alone, the exit status is the
 * agent's. */
#define ASB_INIT_STATUS_ENV "AGENTSANDBOX_INIT_STATUS_FD"

/* Resource limits (setrlimit semantics); ASB_LIMIT_INFINITY = no limit. */
#define ASB_LIMIT_NOFILE   0u
#define ASB_LIMIT_NPROC    1u
#define ASB_LIMIT_CPU      2u
#define ASB_LIMIT_AS       3u
#define ASB_LIMIT_CORE     4u
#define ASB_LIMIT_INFINITY UINT64_MAX

struct asb_limit {
	uint32_t struct_size;
	uint32_t resource; /* ASB_LIMIT_* */
	uint64_t soft;
	uint64_t hard;
};

/* A group of the seccomp filter ("unix", "userns", ...), for backends that
 * express the same denials in their own terms. */
struct asb_seccomp_group {
	uint32_t struct_size;
	uint32_t denied;       /* 1: denied inside; 0: lifted */
	const char *name;      /* "userns" */
	const char *what;      /* one line: what the group covers */
	const char *lifted_by; /* who lifted it, or NULL */
};

/* ---------------------------------------------------------- the sandbox */

/* What a backend hands back once the sandbox exists (host->sandbox_started). */
struct asb_sandbox {
	uint32_t struct_size;
	uint32_t reserved;
	/* A process inside the sandbox's namespaces, as a pid of the launcher's
	 * pid namespace: the core joins /proc/PID/ns/{user,net} to wire the
	 * network, and plugins read it with sandbox_pid(). */
	int64_t pid;
	/* The sandbox's network namespace, or -1 (then /proc/PID/ns/net). The
	 * host duplicates it. */
	int32_t netns_fd;
	int32_t reserved2;
};

/* ----------------------------------------------------------- host table */

struct asb_ctx; /* opaque: one per plugin per launch */

/* The host function table. Every function takes the caller's context. */
struct asb_host {
	uint32_t struct_size;
	uint16_t abi_major;
	uint16_t abi_minor;

	/* Logging to launch.log (and stderr for WARN/ERROR). Text is escaped. */
	void (*log)(struct asb_ctx *ctx, int level, const char *fmt, ...) ASB_PRINTF(3, 4);
	/* --show-config / --check lines for this plugin (describe hook). */
	int (*describe)(struct asb_ctx *ctx, const char *key, const char *value);

	/* The plugin's own config group (plugins.<name>), after the flags and
	 * environment variables it declared (struct asb_option) were applied.
	 * Keys are relative ("protect"). Return 1 when set, 0 when absent,
	 * -EINVAL when the value has the wrong type (the host records a
	 * file:line error). */
	int (*config_bool)(struct asb_ctx *ctx, const char *key, int *out);
	int (*config_int)(struct asb_ctx *ctx, const char *key, int64_t *out);
	int (*config_string)(struct asb_ctx *ctx, const char *key, const char **out);
	/* Number of strings in a list (0 when absent), -EINVAL otherwise. */
	int (*config_list_count)(struct asb_ctx *ctx, const char *key);
	int (*config_list_string)(struct asb_ctx *ctx, const char *key, uint32_t index,
	                          const char **out);
	/* Report a config error at the key's file:line; returns -EINVAL. */
	int (*config_error)(struct asb_ctx *ctx, const char *key, const char *fmt, ...)
	    ASB_PRINTF(3, 4);

	/* Resolved policy values by name. Strings: "workspace", "home", "user",
	 * "launch_dir", "config_file", "name", "command", "backend",
	 * "session_dir", "session_id" and "private_dir" (this plugin's own
	 * 0700 directory in the session, removed at the end of it): their
	 * paths are known from configure on, the directories exist from
	 * prepare on; "<session>" in a dry run. NULL when unknown or unset. */
	const char *(*policy_string)(struct asb_ctx *ctx, const char *key);
	/* Integers: "uid", "gid", "is_root", "dry_run" (--show-config/--check:
	 * nothing will run), "hold" (the sandbox must wait for release),
	 * "unix_sockets", "backend_caps" (the ASB_CAP_* the backend gives here,
	 * from pre_mount on: a feature plugin picks entries the backend can
	 * apply); -ENOENT when unknown. */
	int (*policy_int)(struct asb_ctx *ctx, const char *key, int64_t *out);
	/* String lists: "packages", "rw_dirs", "rw_files", "ro_dirs", "ro_files",
	 * "args" (expanded, absolute paths). Count, or -ENOENT. */
	int (*policy_list_count)(struct asb_ctx *ctx, const char *key);
	const char *(*policy_list_get)(struct asb_ctx *ctx, const char *key, uint32_t index);

	/* Ask the user on the terminal (yes/no). 1 yes, 0 no, -ENXIO: no
	 * terminal to ask on. */
	int (*confirm)(struct asb_ctx *ctx, const char *question);
	/* Find an executable on the launching PATH (or check an absolute
	 * path): where it was found into `out`, symlinks kept (multi-call
	 * programs look at their name). -ENOENT when not found. */
	int (*find_executable)(struct asb_ctx *ctx, const char *name, char *out, size_t out_len);

	/* Plan changes (configure, pre_mount, env; -EBUSY later, which also
	 * fails the launch). The host copies everything. */
	/* Open `host_path` once and expose that very object at `dest` (NULL =
	 * the same path): a symlink swapped in later changes nothing. `type`
	 * is ASB_ENTRY_READ, _WRITE or _DEVICE; flags ASB_ENTRY_F_TRY/_EXEC. */
	int (*plan_path)(struct asb_ctx *ctx, uint32_t type, const char *host_path,
	                 const char *dest, uint32_t flags);
	/* Any other entry (EPHEMERAL, MASK, FILE, SYMLINK, PROC, DEVFS). */
	int (*plan_entry)(struct asb_ctx *ctx, const struct asb_entry *entry);
	/* Put an executable on PATH under `name`, exposing what it needs. */
	int (*plan_add_executable)(struct asb_ctx *ctx, const char *name, const char *host_path);
	int (*plan_setenv)(struct asb_ctx *ctx, const char *key, const char *value);
	int (*plan_unsetenv)(struct asb_ctx *ctx, const char *key);
	/* Lift one seccomp group ("userns" and "chroot" for a browser's own
	 * sandbox: plugins/browsers; the names are `agentsandbox --check`'s).
	 * Logged and shown. -ENOENT for an unknown group. */
	int (*plan_seccomp_allow)(struct asb_ctx *ctx, const char *group);

	/* Plan readers. *_get fill `out` (set out->struct_size first). */
	int (*plan_entry_count)(struct asb_ctx *ctx);
	int (*plan_entry_get)(struct asb_ctx *ctx, uint32_t index, struct asb_entry *out);
	int (*plan_exec_count)(struct asb_ctx *ctx);
	int (*plan_exec_get)(struct asb_ctx *ctx, uint32_t index, struct asb_exec *out);
	int (*plan_env_count)(struct asb_ctx *ctx);
	int (*plan_env_get)(struct asb_ctx *ctx, uint32_t index, const char **key,
	                    const char **value);
	/* The command inside: argv[0] is absolute (the init helper when
	 * hardening runs one, else the agent under ASB_BIN_DIR). */
	int (*plan_argv_count)(struct asb_ctx *ctx);
	const char *(*plan_argv_get)(struct asb_ctx *ctx, uint32_t index);
	const char *(*plan_chdir)(struct asb_ctx *ctx);
	int (*plan_network)(struct asb_ctx *ctx, struct asb_network *out);
	uint32_t (*plan_hardening)(struct asb_ctx *ctx); /* ASB_HARD_* */
	int (*plan_limit_count)(struct asb_ctx *ctx);
	int (*plan_limit_get)(struct asb_ctx *ctx, uint32_t index, struct asb_limit *out);
	int (*plan_seccomp_group_count)(struct asb_ctx *ctx);
	int (*plan_seccomp_group_get)(struct asb_ctx *ctx, uint32_t index,
	                              struct asb_seccomp_group *out);

	/* Backend output (build): the command to run, the fds it inherits. */
	int (*out_arg)(struct asb_ctx *ctx, const char *arg);
	int (*out_keep_fd)(struct asb_ctx *ctx, int fd);
	/* A text file for the session directory (e.g. "seatbelt.sb"), written
	 * before the command starts; never put secrets in one. */
	int (*out_artifact)(struct asb_ctx *ctx, const char *name, const char *data, size_t len);

	/* Backends, from spawn or await_start: the sandbox exists. */
	int (*sandbox_started)(struct asb_ctx *ctx, const struct asb_sandbox *sandbox);
	/* The sandbox's pid (see struct asb_sandbox); -ESRCH before it exists. */
	int (*sandbox_pid)(struct asb_ctx *ctx, int64_t *out);

	/* Run a helper program to completion: argv[0] absolute, the
	 * environment given (NULL: empty), only fds 0-2 inherited (stdin from
	 * /dev/null), stdout captured into `out` (NUL-terminated, truncated to
	 * out_len; NULL: discarded), stderr to launch.log. *wstatus is
	 * waitpid()'s. Safe while the supervisor runs. */
	int (*run_program)(struct asb_ctx *ctx, const char *const *argv, const char *const *envp,
	                   int *wstatus, char *out, size_t out_len);
	/* Start a program the way the core starts the built command (fds 0-2
	 * and `keep_fds` inherited, the sandbox's limits and no_new_privs,
	 * dies with the launcher): for backends whose spawn runs more than one
	 * command. *pid is the process to hand back from spawn. */
	int (*spawn_program)(struct asb_ctx *ctx, const char *const *argv, const char *const *envp,
	                     const int *keep_fds, uint32_t n_keep_fds, int64_t *pid);
	/* Linux: a new network namespace with only loopback, up (fd,
	 * O_CLOEXEC; the caller closes it), for backends that put their sandbox
	 * into one. As root it is owned by the launcher's user namespace;
	 * unprivileged, by a new user namespace without uid or gid maps yet
	 * (NS_GET_USERNS on the fd; extras/runsc maps it). -EOPNOTSUPP
	 * elsewhere. */
	int (*net_namespace_new)(struct asb_ctx *ctx, int *fd);
};

/* --------------------------------------------------------------- plugin */

typedef int (*asb_hook_fn)(const struct asb_host *host, struct asb_ctx *ctx, void *data);

/* Hooks, in call order (see the top of this file). Any may be NULL. A hook
 * failing (< 0) aborts the launch; post_exit still runs for every plugin
 * whose configure ran. A network or pre_exec hook makes the core hold the
 * sandbox for it, and a backend that cannot hold refuses the launch, unless
 * the hooks carry ASB_HOOKS_F_ONLY_IF_HELD. */
#define ASB_HOOKS_F_ONLY_IF_HELD                                                                   \
	0x1u /* network and pre_exec matter only where the sandbox is                              \
	      * held anyway (its network is wired): they never make the                            \
	      * core hold it, and a launch that is not held skips them */

struct asb_hooks {
	uint32_t struct_size;
	uint32_t flags; /* ASB_HOOKS_F_* (was reserved: 0 in every 2.0 plugin) */
	asb_hook_fn configure;
	asb_hook_fn pre_mount;
	asb_hook_fn env;
	asb_hook_fn network;
	asb_hook_fn pre_exec;
	/* status: the agent's exit status, or -errno when the launch failed
	 * before it ran. */
	void (*post_exit)(const struct asb_host *host, struct asb_ctx *ctx, void *data, int status);
	asb_hook_fn describe;
};

/* Backend capabilities: what it can give at best (asb_backend_ops.caps),
 * narrowed by probe to what this host allows. The core refuses a launch
 * whose plan needs one that is missing, naming the protection, unless the
 * user accepted the weaker sandbox (sandbox.accept_weaker); --check and
 * --show-config report each. */
#define ASB_CAP_FS_VIEW (1ull << 0) /* the agent sees only the plan's entries */
#define ASB_CAP_FS_RULES                                                                           \
	(1ull << 1)                   /* host files stay in place; access allowed per              \
	                               * entry, denied elsewhere (a profile) */
#define ASB_CAP_FD_BINDS  (1ull << 2) /* paths exposed through their pinned fd */
#define ASB_CAP_REMAP     (1ull << 3) /* an entry may appear away from its host path */
#define ASB_CAP_EPHEMERAL (1ull << 4) /* EPHEMERAL entries at any dest */
#define ASB_CAP_FILES     (1ull << 5) /* FILE and SYMLINK entries at any dest */
#define ASB_CAP_MASKS     (1ull << 6) /* MASK entries */
#define ASB_CAP_PID_NS    (1ull << 7) /* no host process visible or signalable */
#define ASB_CAP_NETNS                                                                              \
	(1ull << 8)                       /* its own network namespace, handed back with           \
	                                   * sandbox_started: the core wires it */
#define ASB_CAP_NET_RULES    (1ull << 9)  /* enforces the network intent itself */
#define ASB_CAP_SECCOMP      (1ull << 10) /* seccomp filters installed inside hold */
#define ASB_CAP_LANDLOCK     (1ull << 11) /* Landlock rulesets applied inside hold */
#define ASB_CAP_LIMITS       (1ull << 12) /* the plan's limits bind everything inside */
#define ASB_CAP_UNIX_RULES   (1ull << 13) /* can deny AF_UNIX by its own rules */
#define ASB_CAP_NO_NEW_PRIVS (1ull << 14) /* nothing inside gains privileges by exec */
#define ASB_CAP_HOLD         (1ull << 15) /* the sandbox waits for release */
/* EPHEMERAL entries by stand-in: the home and the temporary directories are
 * empty private directories elsewhere (HOME, TMPDIR point there), their
 * real paths denied; other EPHEMERAL paths are sealed (nothing there is
 * readable or writable). For backends that cannot mount (seatbelt). */
#define ASB_CAP_EPHEMERAL_HOME (1ull << 16)
/* 2.2, with ASB_CAP_NETNS: the sandbox can live in the network namespace
 * the backend's command starts in. The core then makes that namespace
 * first and wires it while the backend sets up (ASB_NET_F_IN_NAMESPACE
 * says so in plan_network). The command must not be setuid: it starts in
 * the namespace's user namespace (unprivileged launches). */
#define ASB_CAP_NETNS_INHERIT (1ull << 17)

struct asb_backend_ops {
	uint32_t struct_size;
	uint32_t reserved;
	uint64_t caps; /* ASB_CAP_* */
	/* Usable here? Narrow *caps (preset to `caps`) to what this host
	 * allows; -errno with a reason in `why` when the backend cannot run. */
	int (*probe)(const struct asb_host *host, struct asb_ctx *ctx, void *data, uint64_t *caps,
	             char *why, size_t why_len);
	/* The session and this plugin's private directory exist (not in dry
	 * runs): make runtime resources (pipes, a bundle directory). */
	asb_hook_fn prepare;
	/* Pure: turn the plan into a command (out_arg), the fds it inherits
	 * (out_keep_fd) and artifacts. Also runs for --show-config. */
	asb_hook_fn build;
	/* Start the sandbox; *pid is the process the core waits for. NULL:
	 * the core starts the built command with the plan's environment. */
	int (*spawn)(const struct asb_host *host, struct asb_ctx *ctx, void *data, int64_t *pid);
	/* Return once the sandbox exists, after host->sandbox_started(), or
	 * -errno when it failed first. NULL: the spawned process is the
	 * sandbox, reported by the core itself. */
	asb_hook_fn await_start;
	/* Let the held sandbox run the agent (after the network and pre_exec
	 * hooks). NULL: nothing holds it. */
	asb_hook_fn release;
	/* Deliver `sig` to the agent. NULL: kill() of the spawned process. */
	int (*signal)(const struct asb_host *host, struct asb_ctx *ctx, void *data, int sig);
	/* The spawned process ended (waitpid status): return the agent's exit
	 * status (0-255, 128+N after signal N) or -errno when the sandbox
	 * failed before the agent ran (reported as a setup error, 125). NULL:
	 * derived from wstatus. */
	int (*wait)(const struct asb_host *host, struct asb_ctx *ctx, void *data, int wstatus);
	/* After the session (also after a failed launch): remove what prepare
	 * and spawn made outside the private directory. */
	void (*cleanup)(const struct asb_host *host, struct asb_ctx *ctx, void *data);
};

/* An option a plugin declares: a command-line flag and an environment
 * variable that set plugins.<name>.<key> (flag > environment > file).
 * --help, the man page and completions list them. */
#define ASB_OPT_BOOL   1u /* --flag / --no-flag (or `negative`); 1/true/yes/on, 0/false/no/off */
#define ASB_OPT_STRING 2u /* --flag VALUE */
#define ASB_OPT_LIST   3u /* --flag A,B (repeatable; appends) */

struct asb_option {
	uint32_t struct_size;
	uint32_t type;        /* ASB_OPT_* */
	const char *key;      /* the key in plugins.<name> */
	const char *flag;     /* without dashes: "allow-nix" */
	const char *negative; /* booleans: the off flag ("no-git-protection"); NULL: "no-" + flag */
	const char *env;      /* AGENTSANDBOX_<env>; NULL: none */
	const char *help;     /* one line */
	/* 2.1: the values a string or list option takes, space-separated, for
	 * the shell completions (NULL: free text). Check with ASB_HAS(). */
	const char *values;
};

/* When a plugin loads. ASB_LOAD_ON_DEMAND: its config group exists or one
 * of its options is set. ASB_LOAD_DEFAULT: always (git protection); it
 * turns itself off through its own options. ASB_LOAD_IF_EXISTS: also when
 * `load_path` exists on the host (the nix plugin: /nix/store). Backends
 * load when selected (sandbox.backend, --backend). */
#define ASB_LOAD_ON_DEMAND 0u
#define ASB_LOAD_DEFAULT   1u
#define ASB_LOAD_IF_EXISTS 2u

struct asb_plugin {
	uint32_t magic; /* ASB_PLUGIN_MAGIC */
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t struct_size; /* sizeof(struct asb_plugin) at build time */
	uint32_t kind;        /* ASB_KIND_* */
	const char *name;
	const char *version;
	const char *description;
	/* NULL-terminated keys accepted in plugins.<name>; anything else there
	 * is a config error. NULL: the group must be empty. */
	const char *const *config_keys;
	/* Options, terminated by an entry with key == NULL; may be NULL. */
	const struct asb_option *options;
	uint32_t load; /* ASB_LOAD_* */
	uint32_t reserved;
	const char *load_path; /* ASB_LOAD_IF_EXISTS */
	/* Per-instance data: *data is handed to every hook and op. */
	int (*init)(const struct asb_host *host, struct asb_ctx *ctx, void **data);
	void (*fini)(const struct asb_host *host, struct asb_ctx *ctx, void *data);
	const struct asb_hooks *hooks;
	const struct asb_backend_ops *backend; /* ASB_KIND_BACKEND only */
};

/* The entry point returns the same descriptor at every call, whatever the
 * host or environment: the core records what a plugin file declares (its
 * kind, load rule, config keys and options) and, while the file is
 * unchanged, reads the record instead of loading the plugin; a plugin that
 * is loaded and declares something else fails the launch. */
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
