/* SPDX-License-Identifier: MIT */
/* What the core needs from the operating system. The core includes no
 * platform header beyond POSIX; each platform library implements this once:
 * linux/ (pidfds, memfds, O_PATH, namespaces, seccomp, Landlock,
 * slirp4netns) and posix/ (everything else, and the portable build). Which
 * one is linked decides; there is no run-time switch. */
#ifndef ASB_CORE_PLATFORM_H
#define ASB_CORE_PLATFORM_H

#include "plan.h"
#include "rlimits.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* "linux", "posix": for --check and launch.log. */
const char *platform_name(void);

/* ---------------------------------------------------------- processes */

/* A child process we started, held by a process handle where the platform
 * has one (a pidfd): signals and waits go to that very process even if
 * something else reaped it and its pid was reused (the supervisor's loop
 * reaps any child that exits). */
struct child {
	pid_t pid;
	int handle; /* pidfd, or -1 */
};
#define CHILD_NONE ((struct child){.pid = 0, .handle = -1})

/* Start tracking `pid` (right after fork, before any loop runs). */
void child_track(struct child *c, pid_t pid);
/* Send `sig` (through the handle where there is one). */
void child_signal(struct child *c, int sig);
/* Send `sig` (0: none, it was sent already), wait up to timeout_ms for it
 * to end, then SIGKILL; reap. */
void child_stop(struct child *c, int sig, int timeout_ms);
/* It was reaped already (by the supervisor's loop): let go of the handle
 * without signalling a pid that may belong to someone else by now. */
void child_forget(struct child *c);

/* In a freshly forked child of `parent`, before exec (async-signal-safe):
 * die when the launcher dies (where the platform can say so; also when it
 * died already), apply the limits, no core dumps, and no_new_privs. */
int platform_child_prepare(pid_t parent, const struct limits_set *limits, bool no_new_privs);
/* The sandbox's network namespace, made by the backend's command's own
 * start so that the core wires it while the backend sets up: sent back
 * over `report` (fd_send, one byte). */
struct netns_at_spawn {
	int report;
	bool tap;   /* the open mode engine's persistent tap, made there too */
	bool route; /* a route socket made there too, sent next (its addresses
	             * for the record where no helper joins it) */
};
/* In that child: a new network namespace (unprivileged, owned by a new
 * user namespace with the ids mapped to themselves), loopback up, then `s`.
 * -EINVAL: a child that shares the launcher's memory (vfork) cannot make a
 * user namespace on this kernel; fork it. */
int platform_child_new_netns(const struct netns_at_spawn *s);
/* Can that child make one here? Not unprivileged where the kernel lets only
 * programs its AppArmor policy names make user namespaces (Ubuntu 24.04:
 * bubblewrap may, the launcher may not). */
bool platform_netns_at_spawn_usable(void);
/* The supervisor itself: not dumpable, no core dumps. */
void platform_harden_self(void);
/* Orphans of the launch (the sandbox's own pid 1 once the backend's process
 * that started it is gone) become the launcher's children, so that it can
 * wait for them before it returns: where the platform can. */
void platform_adopt_orphans(void);
/* Kill and reap those orphans that are a pid namespace's first process: a
 * sandbox's pid 1 whose backend process died before it said which pid that
 * was (a launch that fails as the sandbox starts). */
void platform_kill_adopted_sandboxes(void);
/* Has the agent stopped itself (job control: Ctrl-Z in a raw-mode TUI
 * sends SIGTSTP to itself alone)? `pid` is the sandbox's process (the
 * backend's sandbox_started pid): 1 when it is stopped, or when it has
 * children and every one of them is; 0 when not; -ENOSYS where the
 * platform cannot tell. */
int platform_agent_stopped(pid_t pid);

/* --------------------------------------------------------------- files */

/* Open what the absolute `path` names, symlinks resolved, so that it pins
 * that object for a backend that binds by fd, and write its canonical path
 * into `real` (PATH_MAX bytes) and its stat into *st: the name is that of
 * the very object pinned (-EXDEV when a component was swapped meanwhile).
 * *fd is O_CLOEXEC. */
int platform_pin_path(const char *path, char *real, struct stat *st, int *fd);
/* A read-only, sealed where possible, file holding `data` (positioned at 0). */
int platform_data_fd(const void *data, size_t len, int *fd);
/* common/util.h's fds_cloexec_from and fds_close_except (same contract),
 * each in one system call per range where the kernel has one (Linux:
 * close_range) instead of a walk of the open descriptors. */
int platform_fds_cloexec_from(int lowfd);
int platform_fds_close_except(int lowfd, const int *keep, size_t n_keep);

/* ----------------------------------------------------------- hardening */

/* What the core asks of the platform's kernel hardening (core/hardening.c
 * decides it from the policy and the backend's capabilities). */
struct hardening_intent {
	uint32_t lifted;        /* seccomp groups not enforced (1u << SECCOMP_G_*) */
	bool seccomp;           /* install the seccomp filter inside */
	bool landlock;          /* apply a Landlock ruleset inside */
	bool landlock_required; /* ... and fail when the kernel has none */
	const char *home;       /* the ephemeral home (writable) */
};

/* Is a seccomp filter available here (0), or -errno. */
int platform_seccomp_available(void);
/* "x86_64 (i386, x32 killed)" */
const char *platform_seccomp_arch(void);
/* The kernel's Landlock ABI (>= 1), or -errno (-EOPNOTSUPP: built, not
 * enabled; -ENOSYS: none). */
int platform_landlock_abi(void);
/* Add what carries the intent out inside: the init helper at
 * PLAN_INIT (argv prefixed with it), the compiled filter, the Landlock
 * rules derived from the plan. Sets *applied to the ASB_HARD_* bits that
 * will hold. A platform without such mechanisms adds nothing. */
int platform_hardening_plan(struct plan *plan, const struct hardening_intent *h, uint32_t *applied);

/* ------------------------------------------------------------- network */

/* A helper inside a sandbox's network namespace that hands out sockets
 * made there (the proxy's listening socket, host-port listeners, dials to
 * published ports). Opaque. */
struct netns_link;

/* A helper that will join a sandbox's network namespace, started ahead
 * (while the sandbox sets itself up), so that attaching costs no fork. */
int platform_netns_prefork(struct netns_link **out);
/* Join the network namespace of `pid` (or `netns_fd` when >= 0) through
 * *link's helper (started here when *link is NULL). On failure *link may
 * hold the helper: platform_netns_detach it. */
int platform_netns_attach(struct netns_link **link, pid_t pid, int netns_fd);
/* A listening / connecting (non-blocking, maybe in progress) TCP socket on
 * 127.0.0.1:port inside. */
int platform_netns_listen(struct netns_link *l, uint16_t port);
int platform_netns_connect(struct netns_link *l, uint16_t port);
/* The namespace's addresses, "IFACE ADDR" per line (new string). */
int platform_netns_describe(struct netns_link *l, char **out);
/* The same for the namespace a route socket was made in, read over it. */
int platform_route_describe(int route_sock, char **out);
/* The namespace the helper joined (its fd, kept until detach), or -1. */
int platform_netns_fd(const struct netns_link *l);
/* Closes the request channel: the helper exits on its own, while the
 * caller stops whatever else it runs; detach then waits for it. */
void platform_netns_close(struct netns_link *l);
void platform_netns_detach(struct netns_link *l);
/* A new network namespace, loopback up (fd), for backends that make their
 * sandbox join one. */
int platform_netns_new(int *fd);

/* The open mode's user-mode network engine, attached to the namespace. */
struct net_engine;
struct engine_opts {
	bool all_host_ports; /* host loopback reachable at the gateway */
	const char *log_path;
};
/* Started in the network namespace `netns_fd`, not waited for: the
 * launcher goes on wiring meanwhile. `l`: the helper there makes its
 * persistent tap; NULL: it was made with the namespace (tap). */
int platform_engine_start(struct net_engine **out, struct netns_link *l, int netns_fd,
                          const struct engine_opts *opts);
/* Until it is ready: 0, -ECHILD (it exited), or -ETIMEDOUT. At once the
 * second time. */
int platform_engine_await(struct net_engine *e);
/* Could platform_engine_start work here (checked before anything starts,
 * for --check and every launch): 0, -ENOENT (no engine), -EACCES (its
 * device cannot be opened: /dev/net/tun), -EOPNOTSUPP (none on this
 * platform). */
int platform_engine_usable(void);
/* The engine's path the build pinned (-Dslirp4netns), or NULL: searched in
 * the system's directories at launch. */
const char *platform_engine_pinned(void);
/* "slirp4netns", its pid and its arguments (for network.json). */
const char *platform_engine_name(const struct net_engine *e);
pid_t platform_engine_pid(const struct net_engine *e);
const char *platform_engine_args(const struct net_engine *e);
/* Tell the engine to end without waiting (platform_engine_stop waits). */
void platform_engine_ask_stop(struct net_engine *e);
void platform_engine_stop(struct net_engine *e);
/* What the engine gives the namespace: address, gateway, resolver. */
struct engine_layout {
	const char *address;  /* "10.0.2.100/24" */
	const char *gateway;  /* "10.0.2.2" */
	const char *resolver; /* "10.0.2.3" */
};
const struct engine_layout *platform_engine_layout(void);

#endif
