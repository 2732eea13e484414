/* SPDX-License-Identifier: MIT */
/* What the Docker filter (broker/docker.c) lets through to the host's
 * Docker Engine API, as pure functions (tests/host/test_docker_policy.c).
 *
 * An allowlist of routes: ping, version, info, listing and inspecting
 * images, networks and volumes, pulling an image; creating a container
 * (checked below) and, for the containers this session created only (its
 * label), inspecting, logs, start, stop, kill, wait, attach, exec (never
 * privileged), copying files and removing them. Listing containers and
 * events shows this session's only. Everything else is refused: building,
 * tagging, loading, importing or committing images (they could replace an
 * image the host runs later), volumes and networks made, swarm, plugins,
 * secrets, prune, update, and API versions before 1.24 (which took a
 * HostConfig at start).
 *
 * A container may not be privileged, share a host namespace (network,
 * pid, ipc, uts, user, cgroup) or another container's, have devices, GPU
 * requests or device cgroup rules, added capabilities, relaxed security
 * options, unmasked /proc paths, another runtime or cgroup parent, links,
 * volumes from other containers, named volumes, volume drivers or a
 * restart policy (it would outlive the session); a bind mount's source
 * must resolve, on the host, inside the paths the agent may already write
 * (the workspace, rw_dirs, rw_files), and is forwarded resolved. HostConfig
 * keys it does not know are refused. */
#ifndef ASB_BROKER_DOCKER_POLICY_H
#define ASB_BROKER_DOCKER_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define DOCKER_LABEL_KEY "agentsandbox.session"

enum docker_route_kind {
	DR_PLAIN,            /* forwarded as it is */
	DR_FILTERED,         /* a listing: the session's label filter added */
	DR_CREATE,           /* POST /containers/create: the body checked */
	DR_CONTAINER,        /* a container of the session's */
	DR_CONTAINER_HIJACK, /* attach: the connection becomes the stream */
	DR_EXEC_CREATE,      /* POST /containers/ID/exec: the body checked */
	DR_EXEC,             /* an exec of one of the session's containers */
	DR_EXEC_HIJACK,      /* POST /exec/ID/start */
};

enum docker_body {
	DB_NONE,   /* none allowed */
	DB_JSON,   /* read whole (up to DOCKER_MAX_JSON), checked */
	DB_STREAM, /* passed through (a tar into a container) */
};

#define DOCKER_MAX_JSON (1024 * 1024)

struct docker_route {
	int kind;         /* DR_* */
	int body;         /* DB_* */
	char prefix[16];  /* "/v1.43" or "" */
	char id[129];     /* DR_CONTAINER*, DR_EXEC*: the name or id given */
	char rest[1024];  /* what follows the id ("/start"), or the whole path */
	char query[4096]; /* without '?' */
};

/* Classify METHOD TARGET: 0, or -EPERM with the reason in why. */
int docker_route(const char *method, const char *target, struct docker_route *out, char *why,
                 size_t why_len);

/* The paths a bind may name, resolved; `resolve` gives a path's real host
 * location (a missing tail kept: the daemon creates a missing bind
 * source), a new string, or NULL. */
struct docker_policy {
	const char *const *roots;
	size_t n_roots;
	const char *label; /* the session's value of DOCKER_LABEL_KEY */
	char *(*resolve)(const char *path, void *ud);
	void *ud;
};

/* A create body: 0 with the body to forward (*out: labelled, bind sources
 * resolved), or -EPERM with the reason, -EINVAL when it is no JSON object
 * (or one the filter refuses to read), -ENOMEM. *summary (on 0): the image
 * and the binds, for the log. */
int docker_check_create(const struct docker_policy *p, const char *body, size_t len, char **out,
                        size_t *out_len, char **summary, char *why, size_t why_len);

/* An exec create body: 0 with *out to forward, or -EPERM/-EINVAL. */
int docker_check_exec(const char *body, size_t len, char **out, size_t *out_len, char *why,
                      size_t why_len);

/* A listing's query with the session's label filter added (new string). */
int docker_filter_query(const char *query, const char *label, char **out);

/* Whether an inspect answer (GET /containers/ID/json) is a container of
 * this session: its full Id into id (0), -EPERM otherwise. */
int docker_owned(const char *body, size_t len, const char *label, char *id, size_t id_len);

/* The ContainerID and ID of an exec inspect answer (GET /exec/ID/json). */
int docker_exec_container(const char *body, size_t len, char *container, size_t container_len,
                          char *exec_id, size_t exec_len);

#endif
