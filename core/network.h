/* SPDX-License-Identifier: MIT */
/* The sandbox's network, three modes (SPEC "network" group):
 *   off       loopback only (--no-network, enabled = false);
 *   filtered  allowed_domains set: no route out; the filtering proxy is the
 *             only way out (it dials from the host);
 *   open      allowed_domains absent: a route out, the host's own services
 *             closed.
 * The intent goes into the plan for the backend. How it is carried out
 * depends on the backend's capabilities: with its own network namespace
 * (ASB_CAP_NETNS) the core wires it once the sandbox exists — the proxy's
 * listening socket made inside, the platform's open-mode engine attached,
 * host_ports and published_ports bridged by the supervisor's loop; a backend
 * that enforces the intent itself (ASB_CAP_NET_RULES: the host's loopback is
 * shared) gets the proxy on a host loopback port, started before it runs. */
#ifndef ASB_CORE_NETWORK_H
#define ASB_CORE_NETWORK_H

#include "bridge.h"
#include "credentials.h"
#include "plan.h"
#include "platform.h"
#include "policy.h"

#include <ev.h>
#include <stdint.h>

enum net_mode { NET_OFF = ASB_NET_OFF, NET_FILTERED = ASB_NET_FILTERED, NET_OPEN = ASB_NET_OPEN };

#define NET_PROXY_PORT 3128
#define NET_CA_BUNDLE  "/run/agentsandbox-ca.pem"
#define NET_MAX_PORTS  64

struct published {
	uint16_t port;
	char bind[64];
	int fd; /* bound and listening on the host before the sandbox starts */
};

struct network {
	int mode;
	struct netrules *rules;
	bool all_host_ports;
	uint16_t host_ports[NET_MAX_PORTS];
	size_t n_host_ports;
	struct published published[NET_MAX_PORTS];
	size_t n_published;
	bool in_namespace;  /* the backend's own namespace: wired by the core */
	bool made_at_spawn; /* ...made as the core starts the backend's command in it */
	bool wire_started;  /* network_wire_start ran */
	int spawn_netns_fd; /* made_at_spawn: the namespace, from the spawn on */
	int route_fd;       /* ...and a route socket made in it, where no helper
	                     * joins it: its addresses for network.json */

	int ca_fd;          /* the CA bundle file, exposed read-only inside */
	char *ca_tmp_path;  /* until it moves into the session directory */
	int host_listen_fd; /* the proxy's listener on the host (NET_RULES) */
	uint16_t proxy_port;
	struct child proxy;
	int proxy_ready;   /* its ready notification, until it came */
	int proxy_via;     /* where its listener goes, once the sandbox has one */
	int proxy_secrets; /* where its secrets go, once the plan resolved them */
	struct netns_link *link;
	struct net_engine *engine;
	struct bridge_listener *bridges[2 * NET_MAX_PORTS];
	size_t n_bridges;
	ev_child proxy_watch;
	bool stopping;
	bool proxy_asked;         /* sent SIGTERM by network_stop_begin */
	struct credentials creds; /* network.credentials, resolved (credentials.h) */
	char *session_dir;        /* where proxy.log is, once the proxy started */
};

void network_init(struct network *n);

/* Read the network group (the same parser the proxy uses) and decide the
 * mode. Errors name file:line. */
int network_configure(struct network *n, const struct policy *p);

/* The intent, entries and environment for the mode. state_root: where the
 * CA bundle file is made (NULL for a dry run, which shows it in
 * session_dir); caps: the backend's. */
int network_plan(struct network *n, struct plan *plan, const char *state_root,
                 const char *session_dir, uint64_t caps);

/* After the plugins' env hooks: the credentials' placeholders into the plan
 * (nothing may override them), and the check that no real value is in it.
 * state_root NULL: a dry run. */
int network_plan_credentials(struct network *n, struct plan *plan, const struct policy *p,
                             const char *state_root, uint64_t caps);

/* Bind published ports on the host now: a port in use is a setup error
 * before anything starts. */
int network_bind_published(struct network *n);

/* Does the sandbox have to wait for the core to wire its network? */
bool network_needs_wiring(const struct network *n);

/* As soon as the backend's caps are known (not for a dry run): a filtered
 * network in the backend's namespace starts its proxy now, so that it makes
 * its CA while the rest of the launch is planned and the sandbox set up.
 * It writes nothing until the session directory exists
 * (network_start_host tells it) or its listener comes (network_wire); a
 * launch that fails before stops it (network_stop). */
int network_start_early(struct network *n, const struct policy *p, const char *session_dir,
                        uint64_t caps);
/* Right before the sandbox starts: the proxy gets its secrets (started
 * here where network_start_early did not). A backend without its own
 * namespace: on its host port, ready on return; and network.json. In the
 * backend's namespace, network_wire hands the proxy its listener and waits
 * for it. */
int network_start_host(struct network *n, const struct policy *p, const char *session_dir);
/* The open mode's engine can start here (after network_plan; before
 * anything starts): 0, or -errno with the launch error saying why and
 * what to do instead. */
int network_engine_check(const struct network *n);
/* Right after the sandbox was spawned (held): what wires it is readied
 * while the backend sets its namespaces up (network_wire does it if this
 * could not). */
void network_prepare_wiring(struct network *n);
/* made_at_spawn: what the spawn's child makes in the namespace (the
 * engine's tap), the namespace sent back over `report`. */
void network_at_spawn(struct network *n, int report, struct netns_at_spawn *s);
/* Once the backend's command started: the namespace it sent. */
int network_take_spawned(struct network *n, int report);
/* Right after that: the wiring started, nothing waited for, while the
 * backend sets the sandbox up. */
int network_wire_start(struct network *n, const char *session_dir);
/* The sandbox exists (held): proxy, engine, bridges, ready (where
 * network_wire_start started them, waits for them only). */
int network_wire(struct network *n, const char *session_dir, pid_t pid, int netns_fd);
/* After network_wire, once the sandbox is released: network.json (and the
 * filtered mode's rules) in the session directory. */
void network_record(struct network *n, const char *session_dir);

/* The first half of network_stop, once the sandbox is gone: the proxy and
 * the open mode's engine asked to end and the namespace helper's channel
 * closed, without waiting for any (their exits run beside the launcher's
 * post-exit work). */
void network_stop_begin(struct network *n);
/* Stop everything, waiting for each process to end; safe to call more than
 * once, with or without network_stop_begin first. */
void network_stop(struct network *n);

const char *network_mode_name(int mode);

#endif
