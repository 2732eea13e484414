/* SPDX-License-Identifier: MIT */
#include "docker_policy.h"

#include "json.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int refuse(char *why, size_t len, const char *fmt, ...) _printf_(3, 4);
static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EPERM;
}

/* ------------------------------------------------------------- routes */

static bool path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._/:@+-", c);
}

/* A container's or an exec's id or name. */
static bool id_ok(const char *s, size_t n)
{
	if (n == 0 || n >= 129 ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!path_char(s[i]) || s[i] == '/' || s[i] == ':' || s[i] == '@' || s[i] == '+')
			return false;
	return true;
}

/* "/v1.43": its length when the path starts with an API version, 0 when
 * it has none, -1 when it is one the filter refuses (before 1.24, a
 * HostConfig at start could carry what create refused). */
static int version_prefix(const char *path)
{
	if (path[1] != 'v' || path[2] < '0' || path[2] > '9')
		return 0;
	char *end;
	unsigned long major = strtoul(path + 2, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return 0;
	unsigned long minor = strtoul(end + 1, &end, 10);
	if (*end != '/')
		return 0;
	if (major < 1 || (major == 1 && minor < 24) || end - path >= 16)
		return -1;
	return (int)(end - path);
}

struct route_rule {
	const char *method;
	const char *op; /* after /containers/ID or /exec/ID ("" for none) */
	int kind, body;
};

static const struct route_rule container_ops[] = {
    {"GET", "/json", DR_CONTAINER, DB_NONE},
    {"GET", "/logs", DR_CONTAINER, DB_NONE},
    {"GET", "/top", DR_CONTAINER, DB_NONE},
    {"GET", "/stats", DR_CONTAINER, DB_NONE},
    {"GET", "/changes", DR_CONTAINER, DB_NONE},
    {"GET", "/export", DR_CONTAINER, DB_NONE},
    {"GET", "/archive", DR_CONTAINER, DB_NONE},
    {"HEAD", "/archive", DR_CONTAINER, DB_NONE},
    {"PUT", "/archive", DR_CONTAINER, DB_STREAM},
    {"POST", "/start", DR_CONTAINER, DB_NONE},
    {"POST", "/stop", DR_CONTAINER, DB_NONE},
    {"POST", "/restart", DR_CONTAINER, DB_NONE},
    {"POST", "/kill", DR_CONTAINER, DB_NONE},
    {"POST", "/wait", DR_CONTAINER, DB_NONE},
    {"POST", "/pause", DR_CONTAINER, DB_NONE},
    {"POST", "/unpause", DR_CONTAINER, DB_NONE},
    {"POST", "/resize", DR_CONTAINER, DB_NONE},
    {"POST", "/rename", DR_CONTAINER, DB_NONE},
    {"POST", "/attach", DR_CONTAINER_HIJACK, DB_NONE},
    {"POST", "/exec", DR_EXEC_CREATE, DB_JSON},
    {"DELETE", "", DR_CONTAINER, DB_NONE},
    {NULL, NULL, 0, 0},
};

static const struct route_rule exec_ops[] = {
    {"GET", "/json", DR_EXEC, DB_NONE},
    {"POST", "/resize", DR_EXEC, DB_NONE},
    {"POST", "/start", DR_EXEC_HIJACK, DB_JSON},
    {NULL, NULL, 0, 0},
};

/* /containers/ID/OP, /exec/ID/OP */
static int route_scoped(const char *method, const char *p, const char *base,
                        const struct route_rule *rules, struct docker_route *out)
{
	size_t bl = strlen(base);
	if (strncmp(p, base, bl) != 0)
		return 0;
	const char *id = p + bl;
	size_t n = strcspn(id, "/");
	if (!id_ok(id, n))
		return 0;
	const char *op = id + n;
	for (const struct route_rule *r = rules; r->method; r++) {
		if (strcmp(r->method, method) != 0 || strcmp(r->op, op) != 0)
			continue;
		memcpy(out->id, id, n);
		out->id[n] = '\0';
		snprintf(out->rest, sizeof(out->rest), "%s", op);
		out->kind = r->kind;
		out->body = r->body;
		return 1;
	}
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* Part of a query decoded as Go's ParseQuery reads it ('+' is a space);
 * -EINVAL for a bad escape. */
static int query_unescape(const char *s, size_t n, char *out, size_t out_len)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			if (i + 2 >= n || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0)
				return -EINVAL;
			c = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (w + 1 >= out_len)
			return -E2BIG;
		out[w++] = c;
	}
	out[w] = '\0';
	return 0;
}

/* Whether the query names parameter `name` (decoded). */
static int query_has(const char *query, const char *name)
{
	int count = 0;
	for (const char *q = query; *q;) {
		size_t n = strcspn(q, "&");
		size_t kn = strcspn(q, "=&");
		char key[256];
		if (kn > n)
			kn = n;
		if (query_unescape(q, kn, key, sizeof(key)) < 0)
			return -EINVAL;
		if (strcmp(key, name) == 0)
			count++;
		q += n;
		if (*q == '&')
			q++;
	}
	return count;
}

int docker_route(const char *method, const char *target, struct docker_route *out, char *why,
                 size_t why_len)
{
	*out = (struct docker_route){0};
	size_t plen = strcspn(target, "?");
	const char *query = target[plen] == '?' ? target + plen + 1 : "";
	if (target[0] != '/' || plen >= 1024 || strlen(query) >= sizeof(out->query))
		return refuse(why, why_len, "a request target the filter does not read");
	for (size_t i = 0; i < plen; i++)
		if (!path_char(target[i]))
			return refuse(why, why_len, "a path with %s",
			              target[i] == '%' ? "escapes"
			                               : "characters the API does not use");
	for (const char *c = query; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f || *c == ';' || *c == '#')
			return refuse(why, why_len, "a query the filter does not read");
	char path[1024];
	memcpy(path, target, plen);
	path[plen] = '\0';
	for (const char *s = path; *s; s++) {
		/* no empty, "." or ".." segment */
		if (s[0] == '/' &&
		    (s[1] == '/' || (s[1] == '.' && (s[2] == '/' || s[2] == '\0' ||
		                                     (s[2] == '.' && (s[3] == '/' || !s[3]))))))
			return refuse(why, why_len, "a path with an empty, . or .. segment");
	}
	int v = version_prefix(path);
	if (v < 0)
		return refuse(why, why_len, "API versions before 1.24");
	memcpy(out->prefix, path, (size_t)v);
	out->prefix[v] = '\0';
	snprintf(out->query, sizeof(out->query), "%s", query);
	const char *p = path + v;
	bool get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
	snprintf(out->rest, sizeof(out->rest), "%s", p);
	out->body = DB_NONE;

	if (strcmp(p, "/_ping") == 0 && (get || strcmp(method, "HEAD") == 0))
		return out->kind = DR_PLAIN, 0;
	if (get && (strcmp(p, "/version") == 0 || strcmp(p, "/info") == 0 ||
	            strcmp(p, "/system/df") == 0 || strcmp(p, "/images/json") == 0 ||
	            strcmp(p, "/images/search") == 0 || strcmp(p, "/networks") == 0 ||
	            strcmp(p, "/volumes") == 0))
		return out->kind = DR_PLAIN, 0;
	if (get && (strcmp(p, "/containers/json") == 0 || strcmp(p, "/events") == 0))
		return out->kind = DR_FILTERED, 0;
	if (post && strcmp(p, "/containers/create") == 0) {
		out->kind = DR_CREATE;
		out->body = DB_JSON;
		return 0;
	}
	if (post && strcmp(p, "/images/create") == 0) {
		/* a pull; importing (fromSrc) names an image from the agent's bytes */
		if (query_has(query, "fromImage") != 1 || query_has(query, "fromSrc") != 0)
			return refuse(why, why_len, "importing an image (only pulls: fromImage)");
		return out->kind = DR_PLAIN, 0;
	}
	if (get && str_has_prefix(p, "/images/")) {
		size_t n = strlen(p);
		if ((n > 13 && strcmp(p + n - 5, "/json") == 0) ||
		    (n > 16 && strcmp(p + n - 8, "/history") == 0))
			return out->kind = DR_PLAIN, 0;
	}
	if (get && ((str_has_prefix(p, "/networks/") && id_ok(p + 10, strlen(p + 10))) ||
	            (str_has_prefix(p, "/volumes/") && id_ok(p + 9, strlen(p + 9)))))
		return out->kind = DR_PLAIN, 0;
	if (route_scoped(method, p, "/containers/", container_ops, out) ||
	    route_scoped(method, p, "/exec/", exec_ops, out))
		return 0;
	return refuse(why, why_len, "%s %s is not one the filter allows", method, p);
}

/* ------------------------------------------------------------- create */

/* HostConfig keys: what the filter knows. Those with a rule are checked;
 * the others are resource limits and settings that grant nothing. */
enum hc_rule {
	HC_FREE,
	HC_EMPTY,    /* must be absent, null, false or empty */
	HC_NULL,     /* must be absent or null ([] is a value: nothing masked) */
	HC_BINDS,    /* ["SRC:DST[:OPTS]", ...] */
	HC_MOUNTS,   /* [{Type, Source, ...}] */
	HC_NETWORK,  /* not host, not container:X */
	HC_IPC,      /* "", private, none, shareable */
	HC_CGROUPNS, /* "", private */
	HC_SECOPT,   /* no-new-privileges only */
	HC_RUNTIME,  /* "", runc */
	HC_RESTART,  /* no restart: the container must not outlive the session */
};

static const struct {
	const char *key;
	int rule;
	const char *what; /* for HC_EMPTY: what it would grant */
} hostconfig_keys[] = {
    {"Privileged", HC_EMPTY, "privileged containers"},
    {"CapAdd", HC_EMPTY, "added capabilities"},
    {"Devices", HC_EMPTY, "host devices"},
    {"DeviceRequests", HC_EMPTY, "device requests (GPUs)"},
    {"DeviceCgroupRules", HC_EMPTY, "device cgroup rules"},
    {"PidMode", HC_EMPTY, "sharing a pid namespace (host or another container's)"},
    {"UTSMode", HC_EMPTY, "the host's UTS namespace"},
    {"UsernsMode", HC_EMPTY, "the host's user namespace"},
    {"Cgroup", HC_EMPTY, "another cgroup"},
    {"CgroupParent", HC_EMPTY, "a cgroup parent"},
    {"VolumesFrom", HC_EMPTY, "volumes from other containers"},
    {"VolumeDriver", HC_EMPTY, "volume drivers"},
    {"Links", HC_EMPTY, "links to other containers"},
    {"MaskedPaths", HC_NULL, "changed masked paths"},
    {"ReadonlyPaths", HC_NULL, "changed read-only paths"},
    {"Annotations", HC_EMPTY, "runtime annotations"},
    {"Binds", HC_BINDS, NULL},
    {"Mounts", HC_MOUNTS, NULL},
    {"NetworkMode", HC_NETWORK, NULL},
    {"IpcMode", HC_IPC, NULL},
    {"CgroupnsMode", HC_CGROUPNS, NULL},
    {"SecurityOpt", HC_SECOPT, NULL},
    {"Runtime", HC_RUNTIME, NULL},
    {"RestartPolicy", HC_RESTART, NULL},
    {"AutoRemove", HC_FREE, NULL},
    {"BlkioDeviceReadBps", HC_FREE, NULL},
    {"BlkioDeviceReadIOps", HC_FREE, NULL},
    {"BlkioDeviceWriteBps", HC_FREE, NULL},
    {"BlkioDeviceWriteIOps", HC_FREE, NULL},
    {"BlkioWeight", HC_FREE, NULL},
    {"BlkioWeightDevice", HC_FREE, NULL},
    {"CapDrop", HC_FREE, NULL},
    {"ConsoleSize", HC_FREE, NULL},
    {"ContainerIDFile", HC_FREE, NULL},
    {"CpuCount", HC_FREE, NULL},
    {"CpuPercent", HC_FREE, NULL},
    {"CpuPeriod", HC_FREE, NULL},
    {"CpuQuota", HC_FREE, NULL},
    {"CpuRealtimePeriod", HC_FREE, NULL},
    {"CpuRealtimeRuntime", HC_FREE, NULL},
    {"CpuShares", HC_FREE, NULL},
    {"CpusetCpus", HC_FREE, NULL},
    {"CpusetMems", HC_FREE, NULL},
    {"Dns", HC_FREE, NULL},
    {"DnsOptions", HC_FREE, NULL},
    {"DnsSearch", HC_FREE, NULL},
    {"ExtraHosts", HC_FREE, NULL},
    {"GroupAdd", HC_FREE, NULL},
    {"IOMaximumBandwidth", HC_FREE, NULL},
    {"IOMaximumIOps", HC_FREE, NULL},
    {"Init", HC_FREE, NULL},
    {"Isolation", HC_FREE, NULL},
    {"KernelMemory", HC_FREE, NULL},
    {"KernelMemoryTCP", HC_FREE, NULL},
    {"LogConfig", HC_FREE, NULL},
    {"Memory", HC_FREE, NULL},
    {"MemoryReservation", HC_FREE, NULL},
    {"MemorySwap", HC_FREE, NULL},
    {"MemorySwappiness", HC_FREE, NULL},
    {"NanoCpus", HC_FREE, NULL},
    {"OomKillDisable", HC_FREE, NULL},
    {"OomScoreAdj", HC_FREE, NULL},
    {"PidsLimit", HC_FREE, NULL},
    {"PortBindings", HC_FREE, NULL},
    {"PublishAllPorts", HC_FREE, NULL},
    {"ReadonlyRootfs", HC_FREE, NULL},
    {"ShmSize", HC_FREE, NULL},
    {"StorageOpt", HC_FREE, NULL},
    {"Sysctls", HC_FREE, NULL},
    {"Tmpfs", HC_FREE, NULL},
    {"Ulimits", HC_FREE, NULL},
};

/* Where a bind's source really is on the host, inside a root: the
 * resolved path (new string), or NULL with the reason. */
static char *bind_source(const struct docker_policy *p, const char *src, char *why, size_t why_len)
{
	if (src[0] != '/') {
		refuse(why, why_len, "named volumes (%s): bind a path of the workspace instead",
		       src);
		return NULL;
	}
	for (const char *s = src; *s; s++)
		if (s[0] == '/' && s[1] == '.' && s[2] == '.' && (s[3] == '/' || !s[3])) {
			refuse(why, why_len, "a bind source with ..: %s", src);
			return NULL;
		}
	char *real = p->resolve(src, p->ud);
	if (!real) {
		refuse(why, why_len, "a bind source that cannot be resolved: %s", src);
		return NULL;
	}
	for (size_t i = 0; i < p->n_roots; i++)
		if (path_is_within(real, p->roots[i]))
			return real;
	refuse(why, why_len,
	       "a bind of %s%s%s: outside the paths the agent may write (the workspace, "
	       "rw_dirs, rw_files)",
	       src, strcmp(src, real) ? " -> " : "", strcmp(src, real) ? real : "");
	free(real);
	return NULL;
}

static int add_summary(struct strv *sum, const char *fmt, ...) _printf_(2, 3);
static int add_summary(struct strv *sum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = str_vprintf(fmt, ap);
	va_end(ap);
	return s ? strv_push_take(sum, s) : -ENOMEM;
}

static int check_binds(const struct docker_policy *p, struct json *binds, struct strv *sum,
                       char *why, size_t why_len)
{
	if (!binds || binds->type == J_NULL)
		return 0;
	if (binds->type != J_ARR)
		return refuse(why, why_len, "HostConfig.Binds that is not a list");
	for (size_t i = 0; i < binds->n; i++) {
		const char *b = json_str(&binds->v[i]);
		if (!b)
			return refuse(why, why_len, "a bind that is not a string");
		size_t sl = strcspn(b, ":");
		if (!b[sl])
			continue; /* "/path": an anonymous volume at that path */
		_cleanup_free_ char *src = strndup(b, sl);
		if (!src)
			return -ENOMEM;
		_cleanup_free_ char *real = bind_source(p, src, why, why_len);
		if (!real)
			return -EPERM;
		_cleanup_free_ char *nb = str_printf("%s%s", real, b + sl);
		int r = nb ? json_replace_str(&binds->v[i], nb) : -ENOMEM;
		if (r < 0 || (r = add_summary(sum, "bind %s", nb)) < 0)
			return r;
	}
	return 0;
}

static int check_mounts(const struct docker_policy *p, struct json *mounts, struct strv *sum,
                        char *why, size_t why_len)
{
	if (!mounts || mounts->type == J_NULL)
		return 0;
	if (mounts->type != J_ARR)
		return refuse(why, why_len, "HostConfig.Mounts that is not a list");
	for (size_t i = 0; i < mounts->n; i++) {
		struct json *m = &mounts->v[i];
		const char *type = json_str(json_get(m, "Type"));
		struct json *src = json_get(m, "Source");
		if (m->type != J_OBJ || !type)
			return refuse(why, why_len, "a mount without a type");
		if (strcmp(type, "tmpfs") == 0)
			continue;
		if (strcmp(type, "volume") == 0) {
			if (!json_is_empty(src))
				return refuse(why, why_len, "named volumes (%s)",
				              json_str(src) ? json_str(src) : "?");
			struct json *vo = json_get(m, "VolumeOptions");
			if (vo && !json_is_empty(json_get(vo, "DriverConfig")))
				return refuse(why, why_len, "volume driver options");
			continue;
		}
		if (strcmp(type, "bind") != 0)
			return refuse(why, why_len, "mounts of type %s", type);
		if (!json_str(src))
			return refuse(why, why_len, "a bind mount without a source");
		_cleanup_free_ char *real = bind_source(p, json_str(src), why, why_len);
		if (!real)
			return -EPERM;
		int r = json_replace_str(src, real);
		if (r < 0 || (r = add_summary(sum, "mount %s", real)) < 0)
			return r;
	}
	return 0;
}

/* The container's Config keys, and the create body's own: the daemon
 * also reads HostConfig's keys at the top level (ContainerConfigWrapper
 * embeds the deprecated *container.HostConfig), so those are checked
 * there too and any other key is refused. */
static const char *const toplevel_keys[] = {
    "Hostname",        "Domainname",   "User",
    "AttachStdin",     "AttachStdout", "AttachStderr",
    "ExposedPorts",    "Tty",          "OpenStdin",
    "StdinOnce",       "Env",          "Cmd",
    "Healthcheck",     "ArgsEscaped",  "Image",
    "Volumes",         "WorkingDir",   "Entrypoint",
    "NetworkDisabled", "MacAddress",   "OnBuild",
    "Labels",          "StopSignal",   "StopTimeout",
    "Shell",           "HostConfig",   "NetworkingConfig",
    "Cpuset",
};

static bool is_toplevel_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(toplevel_keys); i++)
		if (strcasecmp(toplevel_keys[i], key) == 0)
			return true;
	return false;
}

static int check_hostconfig(const struct docker_policy *p, struct json *hc, bool toplevel,
                            struct strv *sum, char *why, size_t why_len)
{
	if (!hc || hc->type == J_NULL)
		return 0;
	if (hc->type != J_OBJ)
		return refuse(why, why_len, "a HostConfig that is no object");
	for (size_t i = 0; i < hc->n; i++) {
		const char *key = hc->k[i];
		struct json *v = &hc->v[i];
		size_t k = 0;
		while (k < ARRAY_SIZE(hostconfig_keys) && strcasecmp(hostconfig_keys[k].key, key))
			k++;
		if (k == ARRAY_SIZE(hostconfig_keys) && toplevel && is_toplevel_key(key))
			continue;
		if (k == ARRAY_SIZE(hostconfig_keys))
			return refuse(why, why_len, "%s%s, which the filter does not know",
			              toplevel ? "" : "HostConfig.", key);
		const char *s = json_str(v);
		int r = 0;
		switch (hostconfig_keys[k].rule) {
		case HC_EMPTY:
			if (!json_is_empty(v))
				return refuse(why, why_len, "%s (HostConfig.%s)",
				              hostconfig_keys[k].what, hostconfig_keys[k].key);
			break;
		case HC_NULL:
			if (v->type != J_NULL)
				return refuse(why, why_len, "%s (HostConfig.%s)",
				              hostconfig_keys[k].what, hostconfig_keys[k].key);
			break;
		case HC_BINDS:
			r = check_binds(p, v, sum, why, why_len);
			break;
		case HC_MOUNTS:
			r = check_mounts(p, v, sum, why, why_len);
			break;
		case HC_NETWORK:
			if (!json_is_empty(v) &&
			    (!s || strcasecmp(s, "host") == 0 || strchr(s, ':')))
				return refuse(
				    why, why_len,
				    "NetworkMode %s: the host's or another container's network",
				    s ? s : "?");
			break;
		case HC_IPC:
			if (!json_is_empty(v) &&
			    (!s ||
			     (strcmp(s, "private") && strcmp(s, "none") && strcmp(s, "shareable"))))
				return refuse(why, why_len,
				              "IpcMode %s: the host's or another container's IPC",
				              s ? s : "?");
			break;
		case HC_CGROUPNS:
			if (!json_is_empty(v) && (!s || strcmp(s, "private")))
				return refuse(why, why_len,
				              "CgroupnsMode %s: the host's cgroup namespace",
				              s ? s : "?");
			break;
		case HC_SECOPT:
			for (size_t j = 0; v->type == J_ARR && j < v->n; j++) {
				const char *o = json_str(&v->v[j]);
				if (!o || (strcmp(o, "no-new-privileges") &&
				           strcmp(o, "no-new-privileges=true") &&
				           strcmp(o, "no-new-privileges:true")))
					return refuse(why, why_len, "security option %s",
					              o ? o : "?");
			}
			if (!json_is_empty(v) && v->type != J_ARR)
				return refuse(why, why_len, "SecurityOpt that is not a list");
			break;
		case HC_RUNTIME:
			if (!json_is_empty(v) && (!s || strcmp(s, "runc")))
				return refuse(why, why_len, "the runtime %s", s ? s : "?");
			break;
		case HC_RESTART: {
			const char *name = json_str(json_get(v, "Name"));
			if (!json_is_empty(v) && !(name && (!*name || strcmp(name, "no") == 0)))
				return refuse(
				    why, why_len,
				    "restart policy %s: the container would outlive the session",
				    name ? name : "?");
			break;
		}
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_networking(struct json *nc, char *why, size_t why_len)
{
	struct json *eps = json_get(nc, "EndpointsConfig");
	if (nc && nc->type != J_NULL && nc->type != J_OBJ)
		return refuse(why, why_len, "a NetworkingConfig that is no object");
	if (!eps || eps->type == J_NULL)
		return 0;
	if (eps->type != J_OBJ)
		return refuse(why, why_len, "EndpointsConfig that is no object");
	for (size_t i = 0; i < eps->n; i++) {
		if (strcasecmp(eps->k[i], "host") == 0 || strchr(eps->k[i], ':'))
			return refuse(why, why_len, "the network %s", eps->k[i]);
		struct json *ep = &eps->v[i];
		if (!json_is_empty(json_get(ep, "Links")) ||
		    !json_is_empty(json_get(ep, "DriverOpts")))
			return refuse(why, why_len, "endpoint links or driver options (%s)",
			              eps->k[i]);
	}
	return 0;
}

int docker_check_create(const struct docker_policy *p, const char *body, size_t len, char **out,
                        size_t *out_len, char **summary, char *why, size_t why_len)
{
	struct json j;
	int r = json_parse(body, len, &j);
	if (r < 0)
		return r == -ENOMEM ? r
		                    : refuse(why, why_len,
		                             "a create body the filter does not read (JSON with "
		                             "unique ASCII keys, valid UTF-8)");
	struct strv sum = {0};
	if (j.type != J_OBJ) {
		r = refuse(why, why_len, "a create body that is no object");
		goto out;
	}
	const char *image = json_str(json_get(&j, "Image"));
	if ((r = add_summary(&sum, "image %s", image ? image : "?")) < 0 ||
	    (r = check_hostconfig(p, &j, true, &sum, why, why_len)) < 0 ||
	    (r = check_hostconfig(p, json_get(&j, "HostConfig"), false, &sum, why, why_len)) < 0 ||
	    (r = check_networking(json_get(&j, "NetworkingConfig"), why, why_len)) < 0)
		goto out;
	/* The session's label, whatever the body said: only its containers
	 * may be used later, and they are removed when it ends. */
	struct json *labels = json_get(&j, "Labels");
	if (labels && labels->type == J_NULL) {
		json_free(labels);
		labels->type = J_OBJ;
	}
	if (!labels) {
		struct json empty = {.type = J_OBJ};
		if ((r = json_set_str(&j, "Labels", "")) < 0)
			goto out;
		labels = json_get(&j, "Labels");
		json_free(labels);
		*labels = empty;
	}
	if (labels->type != J_OBJ) {
		r = refuse(why, why_len, "Labels that are no object");
		goto out;
	}
	if ((r = json_set_str(labels, DOCKER_LABEL_KEY, p->label)) < 0)
		goto out;
	char *text = NULL;
	size_t tl = 0;
	if ((r = json_write(&j, &text, &tl)) < 0)
		goto out;
	size_t w = 0;
	char line[2048] = "";
	for (size_t i = 0; i < sum.n && w < sizeof(line); i++)
		w += (size_t)snprintf(line + w, sizeof(line) - w, "%s%s", i ? ", " : "", sum.v[i]);
	if (!(*summary = strdup(line))) {
		free(text);
		r = -ENOMEM;
		goto out;
	}
	*out = text;
	*out_len = tl;
	r = 0;
out:
	strv_clear(&sum);
	json_free(&j);
	return r;
}

/* ------------------------------------------------------------- exec */

int docker_check_exec(const char *body, size_t len, char **out, size_t *out_len, char *why,
                      size_t why_len)
{
	static const char *const known[] = {
	    "AttachStdin", "AttachStdout", "AttachStderr", "ConsoleSize", "Detach", "DetachKeys",
	    "Tty",         "Env",          "Cmd",          "WorkingDir",  "User",   "Privileged"};
	struct json j;
	int r = json_parse(body, len, &j);
	if (r < 0)
		return r == -ENOMEM ? r
		                    : refuse(why, why_len, "an exec body the filter does not read");
	if (j.type != J_OBJ) {
		r = refuse(why, why_len, "an exec body that is no object");
		goto out;
	}
	for (size_t i = 0; i < j.n; i++) {
		size_t k = 0;
		while (k < ARRAY_SIZE(known) && strcasecmp(known[k], j.k[i]))
			k++;
		if (k == ARRAY_SIZE(known)) {
			r = refuse(why, why_len, "exec's %s, which the filter does not know",
			           j.k[i]);
			goto out;
		}
	}
	if (!json_is_empty(json_get(&j, "Privileged"))) {
		r = refuse(why, why_len, "a privileged exec");
		goto out;
	}
	r = json_write(&j, out, out_len);
out:
	json_free(&j);
	return r;
}

/* ------------------------------------------------------------- listings */

static char *query_escape(const char *s)
{
	size_t n = strlen(s);
	char *o = malloc(n * 3 + 1), *w = o;
	if (!o)
		return NULL;
	for (const char *c = s; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
		    strchr("-._~", u))
			*w++ = (char)u;
		else
			w += sprintf(w, "%%%02X", u);
	}
	*w = '\0';
	return o;
}

int docker_filter_query(const char *query, const char *label, char **out)
{
	_cleanup_free_ char *want = str_printf("%s=%s", DOCKER_LABEL_KEY, label);
	struct strv kept = {0};
	struct json filters = {.type = J_OBJ};
	int r = want ? 0 : -ENOMEM;
	int seen = 0;
	for (const char *q = query; r >= 0 && *q;) {
		size_t n = strcspn(q, "&");
		size_t kn = strcspn(q, "=&");
		char key[256];
		if (kn > n)
			kn = n;
		if ((r = query_unescape(q, kn, key, sizeof(key))) < 0)
			break;
		if (strcmp(key, "filters") == 0) {
			const char *val = kn < n ? q + kn + 1 : "";
			size_t vn = kn < n ? n - kn - 1 : 0;
			_cleanup_free_ char *dec = malloc(vn + 1);
			if (!dec || seen++) {
				r = dec ? -EINVAL : -ENOMEM;
				break;
			}
			if ((r = query_unescape(val, vn, dec, vn + 1)) < 0 ||
			    (vn && (r = json_parse(dec, strlen(dec), &filters)) < 0))
				break;
			if (filters.type != J_OBJ) {
				r = -EINVAL;
				break;
			}
		} else if (n) {
			_cleanup_free_ char *pair = strndup(q, n);
			if (!pair || (r = strv_push(&kept, pair)) < 0) {
				r = r < 0 ? r : -ENOMEM;
				break;
			}
		}
		q += n;
		if (*q == '&')
			q++;
	}
	/* label: {"K=V": true} (or the older ["K=V"]); label filters all hold */
	struct json *lab = NULL;
	for (size_t i = 0; r >= 0 && i < filters.n; i++)
		if (strcmp(filters.k[i], "label") == 0)
			lab = &filters.v[i];
	if (r >= 0 && !lab) {
		if ((r = json_set_str(&filters, "label", "")) >= 0) {
			lab = json_get(&filters, "label");
			json_free(lab);
			lab->type = J_OBJ;
		}
	}
	if (r >= 0 && lab->type == J_OBJ) {
		if ((r = json_set_str(lab, want, "")) >= 0) {
			struct json *t = json_get(lab, want);
			json_free(t);
			t->type = J_TRUE;
		}
	} else if (r >= 0 && lab->type == J_ARR) {
		struct json *nv = realloc(lab->v, (lab->n + 1) * sizeof(*nv));
		char *s = strdup(want);
		if (!nv || !s) {
			free(s);
			r = -ENOMEM;
		} else {
			lab->v = nv;
			lab->v[lab->n++] = (struct json){.type = J_STR, .s = s};
		}
	} else if (r >= 0) {
		r = -EINVAL;
	}
	_cleanup_free_ char *text = NULL, *esc = NULL;
	size_t tl;
	if (r >= 0 && (r = json_write(&filters, &text, &tl)) >= 0 && !(esc = query_escape(text)))
		r = -ENOMEM;
	if (r >= 0) {
		size_t total = strlen(esc) + 16;
		for (size_t i = 0; i < kept.n; i++)
			total += strlen(kept.v[i]) + 1;
		char *o = malloc(total), *w = o;
		if (!o) {
			r = -ENOMEM;
		} else {
			for (size_t i = 0; i < kept.n; i++)
				w += sprintf(w, "%s&", kept.v[i]);
			sprintf(w, "filters=%s", esc);
			*out = o;
		}
	}
	strv_clear(&kept);
	json_free(&filters);
	return r;
}

/* ------------------------------------------------------------- answers */

int docker_owned(const char *body, size_t len, const char *label, char *id, size_t id_len)
{
	struct json j;
	if (json_parse(body, len, &j) < 0)
		return -EPERM;
	const char *full = json_str(json_get(&j, "Id"));
	struct json *labels = json_get(json_get(&j, "Config"), "Labels");
	bool mine = false;
	for (size_t i = 0; labels && labels->type == J_OBJ && i < labels->n; i++)
		if (strcmp(labels->k[i], DOCKER_LABEL_KEY) == 0 && json_str(&labels->v[i]) &&
		    strcmp(labels->v[i].s, label) == 0)
			mine = true;
	int r = -EPERM;
	if (mine && full && id_ok(full, strlen(full)) && strlen(full) < id_len) {
		snprintf(id, id_len, "%s", full);
		r = 0;
	}
	json_free(&j);
	return r;
}

int docker_exec_container(const char *body, size_t len, char *container, size_t container_len,
                          char *exec_id, size_t exec_len)
{
	struct json j;
	if (json_parse(body, len, &j) < 0)
		return -EPERM;
	const char *c = json_str(json_get(&j, "ContainerID"));
	const char *e = json_str(json_get(&j, "ID"));
	int r = -EPERM;
	if (c && e && id_ok(c, strlen(c)) && id_ok(e, strlen(e)) && strlen(c) < container_len &&
	    strlen(e) < exec_len) {
		snprintf(container, container_len, "%s", c);
		snprintf(exec_id, exec_len, "%s", e);
		r = 0;
	}
	json_free(&j);
	return r;
}
