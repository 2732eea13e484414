/* SPDX-License-Identifier: MIT */
/*
 * The macOS backend: the plan becomes one SBPL profile (sbpl.c), written to
 * seatbelt.sb in the session directory, and the agent runs as
 *
 *     /usr/bin/sandbox-exec -f <session_dir>/seatbelt.sb <argv...>
 *
 * sandbox-exec is taken from its fixed system path only, and only when root
 * owns it and the directories above it. What the host must be asked before
 * the pure generator can run (where paths really are, whether a masked path
 * exists, whether an executable is setuid) is asked here, in build, which
 * has no side effect; prepare makes the private directories the profile
 * names. The plugin builds and loads on Linux too, where it refuses to run
 * and only shows (--show-config) what it would do.
 */
#include <agentsandbox/plugin.h>

#include "macos_paths.h"
#include "sbpl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"
#define PROFILE_NAME "seatbelt.sb"

/* What seatbelt gives at best (README.md, "Capabilities"). Not FS_VIEW,
 * FD_BINDS, REMAP, FILES (it cannot make a path appear), NETNS, PID_NS,
 * SECCOMP, LANDLOCK, NO_NEW_PRIVS, HOLD; not EPHEMERAL either, which asks
 * for an empty directory at the entry's own path: seatbelt gives the home
 * and temporary directories as private directories HOME and TMPDIR point
 * to, and seals every other one. */
#define SEATBELT_CAPS                                                                              \
	(ASB_CAP_FS_RULES | ASB_CAP_MASKS | ASB_CAP_NET_RULES | ASB_CAP_UNIX_RULES | ASB_CAP_LIMITS)
#ifdef ASB_CAP_EPHEMERAL_HOME /* proposed: see README.md, "Header changes wanted" */
#define SEATBELT_CAPS_ALL (SEATBELT_CAPS | ASB_CAP_EPHEMERAL_HOME)
#else
#define SEATBELT_CAPS_ALL SEATBELT_CAPS
#endif

struct seatbelt {
	bool macos;
	bool env_applied; /* the env hook could point PATH, HOME, TMPDIR at the private dir */
};

/* ----------------------------------------------------------- the host */

static char *str_printf(const char *fmt, ...) ASB_PRINTF(1, 2);
static char *str_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static bool on_macos(void)
{
	struct utsname u;
	return uname(&u) == 0 && strcmp(u.sysname, "Darwin") == 0;
}

static int dry_run(const struct asb_host *host, struct asb_ctx *ctx)
{
	int64_t v = 0;
	return host->policy_int(ctx, "dry_run", &v) >= 0 && v;
}

/* Root-owned and writable by root alone: the file and every directory
 * above it (a user-writable directory anywhere on the way could swap it). */
static int check_trusted(const char *path, char *why, size_t why_len)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		int e = errno;
		snprintf(why, why_len, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR)) {
		snprintf(why, why_len, "%s is not an executable file", path);
		return -EPERM;
	}
	char walk[PATH_MAX];
	snprintf(walk, sizeof(walk), "%s", path);
	for (;;) {
		if (lstat(walk, &st) < 0) {
			int e = errno;
			snprintf(why, why_len, "%s: %s", walk, strerror(e));
			return -e;
		}
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			snprintf(why, why_len,
			         "%s is %s; sandbox-exec must be owned by root and writable by "
			         "root only",
			         walk,
			         st.st_uid != 0 ? "not owned by root" : "group/other-writable");
			return -EPERM;
		}
		char *slash = strrchr(walk, '/');
		if (!slash)
			break;
		if (slash == walk) {
			if (walk[1] == '\0')
				break;
			walk[1] = '\0';
			continue;
		}
		*slash = '\0';
	}
	return 0;
}

/* realpath() of the longest existing prefix, the rest appended: where the
 * kernel will say a path is, even when it does not exist yet. NULL when the
 * path is not absolute or too long; then the generator refuses it. */
static char *resolve(const char *path)
{
	if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
		return NULL;
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	size_t cut = strlen(buf);
	for (;;) {
		char saved = buf[cut];
		buf[cut] = '\0';
		char real[PATH_MAX];
		if (realpath(cut ? buf : "/", real)) {
			buf[cut] = saved;
			const char *rest = path + cut;
			size_t n = strlen(real) + strlen(rest) + 1;
			char *out = malloc(n);
			if (out)
				snprintf(out, n, "%s%s",
				         strcmp(real, "/") == 0 && rest[0] ? "" : real, rest);
			return out;
		}
		buf[cut] = saved;
		char *slash = NULL;
		for (size_t i = cut; i-- > 0;)
			if (buf[i] == '/') {
				slash = buf + i;
				break;
			}
		if (!slash)
			return NULL;
		cut = (size_t)(slash - buf);
	}
}

/* A symlink's own path as the kernel names it: the directory it is in
 * resolved, the link itself not. */
static char *resolve_link(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash || !slash[1])
		return NULL;
	char dir[PATH_MAX];
	size_t dl = (size_t)(slash - path);
	if (dl >= sizeof(dir))
		return NULL;
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	char *rdir = resolve(dl ? dir : "/");
	if (!rdir)
		return NULL;
	size_t n = strlen(rdir) + strlen(slash) + 1;
	char *out = malloc(n);
	if (out)
		snprintf(out, n, "%s%s", strcmp(rdir, "/") == 0 ? "" : rdir, slash);
	free(rdir);
	return out;
}

/* ---------------------------------------------- the plan, as sbpl sees it */

struct input {
	struct sbpl_input in;
	struct asb_entry *entries;
	uint32_t *state;
	size_t n_entries, cap_entries;
	struct asb_exec *execs;
	uint32_t *xstate;
	struct asb_network net;
	struct asb_seccomp_group *groups;
	struct asb_limit *limits;
	char **strings;
	size_t n_strings, cap_strings;
	char *error;
};

static const char *own(struct input *x, char *s)
{
	if (!s)
		return NULL;
	if (x->n_strings == x->cap_strings) {
		size_t cap = x->cap_strings ? x->cap_strings * 2 : 256;
		char **n = realloc(x->strings, cap * sizeof(*n));
		if (!n) {
			free(s);
			return NULL;
		}
		x->strings = n;
		x->cap_strings = cap;
	}
	return x->strings[x->n_strings++] = s;
}

static const char *own_dup(struct input *x, const char *s)
{
	return s ? own(x, strdup(s)) : NULL;
}

static int add_entry(struct input *x, const struct asb_entry *e, uint32_t state)
{
	if (x->n_entries == x->cap_entries) {
		size_t cap = x->cap_entries ? x->cap_entries * 2 : 128;
		struct asb_entry *n = realloc(x->entries, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		x->entries = n;
		uint32_t *s = realloc(x->state, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		x->state = s;
		x->cap_entries = cap;
	}
	x->entries[x->n_entries] = *e;
	x->state[x->n_entries++] = state;
	return 0;
}

static void input_free(struct input *x)
{
	for (size_t i = 0; i < x->n_strings; i++)
		free(x->strings[i]);
	free(x->strings);
	free(x->entries);
	free(x->state);
	free(x->execs);
	free(x->xstate);
	free(x->groups);
	free(x->limits);
	*x = (struct input){0};
}

/* Each symlink on the way to `path` (/etc, /etc/localtime), as an entry
 * saying it is already there: the profile lets it be stat()ed and read as
 * a link, which resolving a path needs. */
static int add_links_on_the_way(struct input *x, const char *path)
{
	if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
		return 0;
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = strchr(buf + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		struct stat st;
		char target[PATH_MAX];
		ssize_t n;
		if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (n = readlink(buf, target, sizeof(target) - 1)) > 0) {
			target[n] = '\0';
			struct asb_entry l = {
			    .struct_size = sizeof(l),
			    .type = ASB_ENTRY_SYMLINK,
			    .fd = -1,
			    .host_path = own_dup(x, target),
			    .dest = own(x, resolve_link(buf)),
			    .origin = "seatbelt (a link on the way)",
			};
			if (!l.host_path || !l.dest)
				return -ENOMEM;
			int r = add_entry(x, &l, SBPL_ST_EXISTS | SBPL_ST_AS_IS);
			if (r < 0)
				return r;
		}
		if (!s)
			break;
		*s = '/';
	}
	return 0;
}

static bool is_hosted(uint32_t type)
{
	return type == ASB_ENTRY_READ || type == ASB_ENTRY_WRITE || type == ASB_ENTRY_DEVICE;
}

static int read_entry(const struct asb_host *host, struct asb_ctx *ctx, struct input *x, uint32_t i)
{
	struct asb_entry e = {.struct_size = sizeof(e)};
	int r = host->plan_entry_get(ctx, i, &e);
	if (r < 0)
		return r;
	struct asb_entry c = e;
	c.struct_size = sizeof(c);
	c.origin = own_dup(x, e.origin);
	uint32_t state = 0;
	struct stat st;
	const char *dest = e.dest ? e.dest : e.host_path;
	if (is_hosted(e.type)) {
		char *host_real = resolve(e.host_path), *dest_real = resolve(dest);
		/* dest is host_path seen through symlinks (/etc/hosts is
		 * /private/etc/hosts): the same object, named as the kernel does. */
		if (host_real && dest_real && strcmp(host_real, dest_real) == 0) {
			free(dest_real);
			c.host_path = c.dest = own(x, host_real);
			if ((r = add_links_on_the_way(x, dest)) < 0)
				return r;
		} else {
			free(host_real);
			free(dest_real);
			c.host_path = own_dup(x, e.host_path);
			c.dest = own_dup(x, dest);
		}
		state = SBPL_ST_EXISTS;
	} else if (e.type == ASB_ENTRY_SYMLINK) {
		char *link = resolve_link(dest);
		char target[PATH_MAX];
		ssize_t n = link ? readlink(link, target, sizeof(target) - 1) : -1;
		if (n >= 0) {
			target[n] = '\0';
			if (e.host_path && strcmp(target, e.host_path) == 0)
				state = SBPL_ST_EXISTS | SBPL_ST_AS_IS;
		}
		c.dest = link ? own(x, link) : own_dup(x, dest);
		c.host_path = own_dup(x, e.host_path);
	} else {
		char *d = resolve(dest);
		c.dest = d ? own(x, d) : own_dup(x, dest);
		c.host_path = NULL;
		if (c.dest && lstat(c.dest, &st) == 0)
			state = SBPL_ST_EXISTS;
	}
	if ((e.dest && !c.dest) || (e.host_path && !c.host_path && e.type != ASB_ENTRY_EPHEMERAL &&
	                            e.type != ASB_ENTRY_MASK && e.type != ASB_ENTRY_FILE &&
	                            e.type != ASB_ENTRY_PROC && e.type != ASB_ENTRY_DEVFS))
		return -ENOMEM;
	if (e.type == ASB_ENTRY_FILE && e.data && e.data_len) {
		/* Borrowed for the call only: keep a copy. */
		char *data = malloc(e.data_len + 1);
		if (!data)
			return -ENOMEM;
		memcpy(data, e.data, e.data_len);
		data[e.data_len] = '\0';
		c.data = own(x, data);
	}
	return add_entry(x, &c, state);
}

/* The private directory (absolute) or, in a dry run, a stand-in that shows
 * where it would be. */
static const char *private_dir(const struct asb_host *host, struct asb_ctx *ctx)
{
	const char *p = host->policy_string(ctx, "private_dir");
	return p && p[0] == '/' ? p : "/<session>/seatbelt";
}

static int read_plan(const struct asb_host *host, struct asb_ctx *ctx, struct input *x,
                     bool env_shim)
{
	int r, n = host->plan_entry_count(ctx);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		if ((r = read_entry(host, ctx, x, (uint32_t)i)) < 0)
			return r;
	int nx = host->plan_exec_count(ctx);
	if (nx < 0)
		return nx;
	x->execs = calloc((size_t)nx + 1, sizeof(*x->execs));
	x->xstate = calloc((size_t)nx + 1, sizeof(*x->xstate));
	if (!x->execs || !x->xstate)
		return -ENOMEM;
	for (int i = 0; i < nx; i++) {
		struct asb_exec e = {.struct_size = sizeof(e)};
		if ((r = host->plan_exec_get(ctx, (uint32_t)i, &e)) < 0)
			return r;
		char *real = resolve(e.host_path);
		x->execs[i] = (struct asb_exec){
		    .struct_size = sizeof(e),
		    .name = own_dup(x, e.name),
		    .host_path = real ? own(x, real) : own_dup(x, e.host_path),
		    .origin = own_dup(x, e.origin),
		};
		struct stat st;
		if (x->execs[i].host_path && stat(x->execs[i].host_path, &st) == 0 &&
		    (st.st_mode & (S_ISUID | S_ISGID)))
			x->xstate[i] = SBPL_X_SETID;
	}
	x->net = (struct asb_network){.struct_size = sizeof(x->net)};
	if ((r = host->plan_network(ctx, &x->net)) < 0)
		return r;
	int ng = host->plan_seccomp_group_count(ctx);
	x->groups = calloc(ng > 0 ? (size_t)ng : 1, sizeof(*x->groups));
	if (!x->groups)
		return -ENOMEM;
	for (int i = 0; i < ng; i++) {
		x->groups[i].struct_size = sizeof(x->groups[i]);
		if ((r = host->plan_seccomp_group_get(ctx, (uint32_t)i, &x->groups[i])) < 0)
			return r;
		x->groups[i].name = own_dup(x, x->groups[i].name);
		x->groups[i].what = x->groups[i].lifted_by = NULL;
	}
	int nl = host->plan_limit_count(ctx);
	x->limits = calloc(nl > 0 ? (size_t)nl : 1, sizeof(*x->limits));
	if (!x->limits)
		return -ENOMEM;
	for (int i = 0; i < nl; i++) {
		x->limits[i].struct_size = sizeof(x->limits[i]);
		if ((r = host->plan_limit_get(ctx, (uint32_t)i, &x->limits[i])) < 0)
			return r;
	}
	const char *home = host->policy_string(ctx, "home");
	char *home_real = resolve(home);
	char *priv_real = resolve(private_dir(host, ctx));
	/* Where the core says the agent's terminal is (not in the header yet:
	 * README.md, "Header changes wanted"); NULL until then. */
	const char *tty = host->policy_string(ctx, "tty");
	const char *name = host->policy_string(ctx, "name");
	char title[256];
	snprintf(title, sizeof(title), "session %s%s", name ? name : "?",
	         dry_run(host, ctx) ? " (shown, not run)" : "");
	x->in = (struct sbpl_input){
	    .entries = x->entries,
	    .n_entries = (uint32_t)x->n_entries,
	    .entry_state = x->state,
	    .execs = x->execs,
	    .n_execs = (uint32_t)nx,
	    .exec_state = x->xstate,
	    .net = &x->net,
	    .seccomp = x->groups,
	    .n_seccomp = ng > 0 ? (uint32_t)ng : 0,
	    .limits = x->limits,
	    .n_limits = nl > 0 ? (uint32_t)nl : 0,
	    .hardening = host->plan_hardening(ctx),
	    .home = home_real ? own(x, home_real) : own_dup(x, home),
	    .private_dir = priv_real ? own(x, priv_real) : own_dup(x, private_dir(host, ctx)),
	    .tty = tty && tty[0] == '/' ? own_dup(x, tty) : NULL,
	    .env_shim = env_shim,
	    .title = own_dup(x, title),
	};
	if (!x->in.home) {
		host->log(ctx, ASB_LOG_ERROR, "seatbelt: the policy names no home directory");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------- hooks */

static int sb_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct seatbelt *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->macos = on_macos();
	*data = s;
	return 0;
}

static void sb_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	free(data);
}

static int sb_probe(const struct asb_host *host, struct asb_ctx *ctx, void *data, uint64_t *caps,
                    char *why, size_t why_len)
{
	struct seatbelt *s = data;
	(void)caps; /* what it has is what it says; the host narrows nothing here */
	if (!s->macos) {
		if (dry_run(host, ctx))
			return 0; /* --show-config and --check may show the profile anywhere */
		snprintf(why, why_len,
		         "seatbelt is the macOS backend (sandbox-exec); this is not macOS. Use the "
		         "bwrap backend here");
		return -ENOSYS;
	}
	return check_trusted(SANDBOX_EXEC, why, why_len);
}

/* The macOS system locations the tools need, next to the core's own. */
static int sb_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)data;
	for (const struct sbpl_system_path *p = sbpl_system_paths; p->path; p++) {
		int r =
		    host->plan_path(ctx, ASB_ENTRY_READ, p->path, NULL, ASB_ENTRY_F_TRY | p->flags);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	return 0;
}

/* A value naming ASB_BIN_DIR (PATH, SHELL), moved to the link directory in
 * `priv`; NULL when it names something else. */
static char *moved_value(const char *value, const char *priv)
{
	size_t bl = strlen(ASB_BIN_DIR);
	if (!value || strncmp(value, ASB_BIN_DIR, bl) != 0 ||
	    (value[bl] != '\0' && value[bl] != '/' && value[bl] != ':'))
		return NULL;
	return str_printf("%s/bin%s", priv, value + bl);
}

static void plan_ephemerals(const struct asb_host *host, struct asb_ctx *ctx, bool *home, bool *tmp)
{
	const char *h = host->policy_string(ctx, "home");
	int n = host->plan_entry_count(ctx);
	*home = *tmp = false;
	for (int i = 0; i < n; i++) {
		struct asb_entry e = {.struct_size = sizeof(e)};
		if (host->plan_entry_get(ctx, (uint32_t)i, &e) < 0 ||
		    e.type != ASB_ENTRY_EPHEMERAL || !e.dest)
			continue;
		if (h && strcmp(e.dest, h) == 0)
			*home = true;
		if (strcmp(e.dest, "/tmp") == 0 || strcmp(e.dest, "/private/tmp") == 0)
			*tmp = true;
	}
}

static const char *plan_getenv(const struct asb_host *host, struct asb_ctx *ctx, const char *key)
{
	int n = host->plan_env_count(ctx);
	for (int i = 0; i < n; i++) {
		const char *k = NULL, *v = NULL;
		if (host->plan_env_get(ctx, (uint32_t)i, &k, &v) >= 0 && k && strcmp(k, key) == 0)
			return v;
	}
	return NULL;
}

/* Filtered: the proxy is on the host's loopback, at the port the plan
 * names (not the Linux sandbox's own 3128). Set what the core did not. */
static int proxy_env(const struct asb_host *host, struct asb_ctx *ctx)
{
	struct asb_network net = {.struct_size = sizeof(net)};
	if (host->plan_network(ctx, &net) < 0 || net.mode != ASB_NET_FILTERED || !net.proxy_port)
		return 0;
	char url[64], port[16];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)net.proxy_port);
	snprintf(port, sizeof(port), ":%u", (unsigned)net.proxy_port);
	static const char *const vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
	                                   "http_proxy", "https_proxy", "all_proxy"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = plan_getenv(host, ctx, vars[i]);
		size_t vl = v ? strlen(v) : 0, pl = strlen(port);
		bool right = v && vl >= pl && strcmp(v + vl - pl, port) == 0 &&
		             (strstr(v, "//127.0.0.1:") || strstr(v, "//localhost:"));
		if (right)
			continue;
		if (v)
			host->log(ctx, ASB_LOG_INFO, "seatbelt: %s named another proxy; now %s",
			          vars[i], url);
		int r = host->plan_setenv(ctx, vars[i], url);
		if (r < 0)
			return r;
	}
	static const char *const no[] = {"NO_PROXY", "no_proxy"};
	for (size_t i = 0; i < 2; i++) {
		int r = plan_getenv(host, ctx, no[i])
		            ? 0
		            : host->plan_setenv(ctx, no[i], "localhost,127.0.0.1,::1");
		if (r < 0)
			return r;
	}
	return 0;
}

/* The developer directory xcrun runs tools from: what xcode-select chose
 * (Xcode.app's or the standalone command line tools). */
static void developer_dir(char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink("/private/var/db/xcode_select_link", target, sizeof(target) - 1);
	if (n > 0 && target[0] == '/') {
		target[n] = '\0';
		snprintf(out, len, "%s", target);
		return;
	}
	snprintf(out, len, "%s", SBPL_CLT_DIR);
}

/* Every executable on PATH that is one of Apple's shims (/usr/bin/git runs
 * the developer directory's git): the program it runs, executable. Then the
 * proxy's environment, and PATH, HOME, TMPDIR if the private directory's
 * name is known already. */
static int sb_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct seatbelt *s = data;
	char dev[PATH_MAX];
	developer_dir(dev, sizeof(dev));
	bool any = false;
	int n = host->plan_exec_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_exec e = {.struct_size = sizeof(e)};
		if (host->plan_exec_get(ctx, (uint32_t)i, &e) < 0 || !e.host_path ||
		    strncmp(e.host_path, "/usr/bin/", 9) != 0)
			continue;
		char real[PATH_MAX * 2];
		snprintf(real, sizeof(real), "%s/usr/bin/%s", dev, e.host_path + 9);
		if (access(real, X_OK) != 0)
			continue;
		int r = host->plan_path(ctx, ASB_ENTRY_READ, real, NULL,
		                        ASB_ENTRY_F_TRY | ASB_ENTRY_F_EXEC);
		if (r < 0 && r != -ENOENT)
			return r;
		any = true;
	}
	if (any && strcmp(dev, SBPL_CLT_DIR) != 0) {
		/* Xcode's developer directory: what the baseline gives the
		 * standalone tools. */
		char libexec[PATH_MAX * 2];
		snprintf(libexec, sizeof(libexec), "%s/usr/libexec", dev);
		int r = host->plan_path(ctx, ASB_ENTRY_READ, dev, NULL, ASB_ENTRY_F_TRY);
		if (r >= 0 || r == -ENOENT)
			r = host->plan_path(ctx, ASB_ENTRY_READ, libexec, NULL,
			                    ASB_ENTRY_F_TRY | ASB_ENTRY_F_EXEC);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	int pr = proxy_env(host, ctx);
	if (pr < 0)
		return pr;
	const char *priv = host->policy_string(ctx, "private_dir");
	s->env_applied = false;
	if (!priv || priv[0] != '/')
		return 0; /* build starts the command through /usr/bin/env instead */
	bool eph_home, eph_tmp;
	plan_ephemerals(host, ctx, &eph_home, &eph_tmp);
	char *path = str_printf("%s/bin", priv);
	char *home = eph_home ? str_printf("%s/home", priv) : NULL;
	char *tmp = eph_tmp ? str_printf("%s/tmp/", priv) : NULL;
	int r = path && (home || !eph_home) && (tmp || !eph_tmp) ? 0 : -ENOMEM;
	if (r >= 0)
		r = host->plan_setenv(ctx, "PATH", path);
	if (r >= 0 && home)
		r = host->plan_setenv(ctx, "HOME", home);
	if (r >= 0 && tmp)
		r = host->plan_setenv(ctx, "TMPDIR", tmp);
	free(path);
	free(home);
	free(tmp);
	if (r < 0)
		return r;
	int ne = host->plan_env_count(ctx);
	for (int i = 0; i < ne; i++) {
		const char *k = NULL, *v = NULL;
		if (host->plan_env_get(ctx, (uint32_t)i, &k, &v) < 0 || !k || !v ||
		    strcmp(k, "PATH") == 0)
			continue;
		char *nv = moved_value(v, priv);
		if (!nv)
			continue;
		char *key = strdup(k); /* plan_setenv may change what plan_env_get lent */
		r = key ? host->plan_setenv(ctx, key, nv) : -ENOMEM;
		free(key);
		free(nv);
		if (r < 0)
			return r;
	}
	s->env_applied = true;
	return 0;
}

/* ------------------------------------------------------- backend ops */

static int make_places(const struct sbpl_layout *l, char *why, size_t why_len)
{
	for (size_t i = 0; i < l->n_places; i++) {
		const struct sbpl_place *p = &l->places[i];
		int r = 0;
		switch (p->kind) {
		case SBPL_PLACE_DIR:
			if (mkdir(p->path, p->mode ? p->mode : 0700) < 0 && errno != EEXIST)
				r = -errno;
			break;
		case SBPL_PLACE_LINK:
			if (symlink(p->target, p->path) < 0)
				r = -errno;
			break;
		case SBPL_PLACE_FILE: {
			int fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			              0600);
			if (fd < 0) {
				r = -errno;
				break;
			}
			const char *d = p->data;
			size_t left = p->data_len;
			while (left && r == 0) {
				ssize_t w = write(fd, d, left);
				if (w < 0)
					r = -errno;
				else
					d += w, left -= (size_t)w;
			}
			if (r == 0 && fchmod(fd, p->mode ? p->mode : 0444) < 0)
				r = -errno;
			close(fd);
			break;
		}
		}
		if (r < 0) {
			snprintf(why, why_len, "%s: %s", p->path, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The private directories and the links in them (not in dry runs). */
static int sb_prepare(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct seatbelt *s = data;
	struct input x = {0};
	int r = read_plan(host, ctx, &x, !s->env_applied);
	struct sbpl_layout lay = {0};
	char why[1024] = "";
	if (r >= 0 && (r = sbpl_layout_build(&x.in, &lay, why, sizeof(why))) >= 0)
		r = make_places(&lay, why, sizeof(why));
	if (r < 0)
		host->log(ctx, ASB_LOG_ERROR, "seatbelt: %s", why[0] ? why : strerror(-r));
	sbpl_layout_free(&lay);
	input_free(&x);
	return r;
}

/* /usr/bin/env KEY=VALUE...: the environment the env hook could not set. */
static int out_env_shim(const struct asb_host *host, struct asb_ctx *ctx,
                        const struct sbpl_layout *lay, const char *priv)
{
	int r = host->out_arg(ctx, "/usr/bin/env");
	for (size_t i = 0; i < lay->n_env && r >= 0; i++) {
		char *kv = str_printf("%s=%s", lay->env[i].key, lay->env[i].value);
		r = kv ? host->out_arg(ctx, kv) : -ENOMEM;
		free(kv);
	}
	int ne = host->plan_env_count(ctx);
	for (int i = 0; i < ne && r >= 0; i++) {
		const char *k = NULL, *v = NULL;
		if (host->plan_env_get(ctx, (uint32_t)i, &k, &v) < 0 || !k || !v ||
		    strcmp(k, "PATH") == 0)
			continue;
		char *nv = moved_value(v, priv);
		char *kv = nv ? str_printf("%s=%s", k, nv) : NULL;
		if (nv)
			r = kv ? host->out_arg(ctx, kv) : -ENOMEM;
		free(nv);
		free(kv);
	}
	return r;
}

static int sb_build(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct seatbelt *s = data;
	struct input x = {0};
	struct sbpl_layout lay = {0};
	char why[1024] = "", *profile = NULL;
	size_t len = 0;
	bool shim = !s->env_applied;
	int r = read_plan(host, ctx, &x, shim);
	if (r >= 0)
		r = sbpl_generate(&x.in, &profile, &len, why, sizeof(why));
	if (r >= 0)
		r = sbpl_layout_build(&x.in, &lay, why, sizeof(why));
	if (r < 0) {
		host->log(ctx, ASB_LOG_ERROR, "seatbelt: %s", why[0] ? why : strerror(-r));
		goto out;
	}
	if ((r = host->out_artifact(ctx, PROFILE_NAME, profile, len)) < 0)
		goto out;
	const char *session = host->policy_string(ctx, "session_dir");
	char sb_path[PATH_MAX];
	snprintf(sb_path, sizeof(sb_path), "%s/" PROFILE_NAME, session ? session : "<session>");
	if ((r = host->out_arg(ctx, SANDBOX_EXEC)) < 0 || (r = host->out_arg(ctx, "-f")) < 0 ||
	    (r = host->out_arg(ctx, sb_path)) < 0)
		goto out;
	int argc = host->plan_argv_count(ctx);
	const char *argv0 = argc > 0 ? host->plan_argv_get(ctx, 0) : NULL;
	if (!argv0 || argv0[0] != '/') {
		host->log(ctx, ASB_LOG_ERROR, "seatbelt: the plan has no absolute command to run");
		r = -EINVAL;
		goto out;
	}
	if (shim) {
		if (strchr(argv0, '=')) {
			host->log(ctx, ASB_LOG_ERROR,
			          "seatbelt: %s has a '=' in it and cannot follow /usr/bin/env",
			          argv0);
			r = -EINVAL;
			goto out;
		}
		if ((r = out_env_shim(host, ctx, &lay, x.in.private_dir)) < 0)
			goto out;
	}
	for (int i = 0; i < argc && r >= 0; i++) {
		const char *a = host->plan_argv_get(ctx, (uint32_t)i);
		size_t bl = strlen(ASB_BIN_DIR);
		if (i == 0 && strncmp(a, ASB_BIN_DIR "/", bl + 1) == 0) {
			char *moved = str_printf("%s%s", lay.bin_dir, a + bl);
			if (!moved) {
				r = -ENOMEM;
				break;
			}
			r = host->out_arg(ctx, moved);
			free(moved);
		} else {
			r = host->out_arg(ctx, a);
		}
	}
out:
	free(profile);
	sbpl_layout_free(&lay);
	input_free(&x);
	return r < 0 ? r : 0;
}

/* --show-config and --check: what seatbelt does with this plan. */
static int sb_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct seatbelt *s = data;
	host->describe(ctx, "sandbox-exec", SANDBOX_EXEC " -f <session>/" PROFILE_NAME);
	if (!s->macos)
		host->describe(ctx, "platform",
		               "not macOS: the profile is shown, nothing runs here");
	host->describe(ctx, "files",
	               "rules over the real paths (deny by default); no private view of the "
	               "filesystem");
	host->describe(ctx, "home",
	               "a private directory HOME points to, with links to the declared paths in "
	               "$HOME; the real home is denied, its credential paths even below a declared "
	               "directory");
	host->describe(ctx, "tmp", "a private TMPDIR; /tmp itself is not writable");
	host->describe(ctx, "processes",
	               "only the sandbox's own are signalled or inspected; ps sees nothing else");
	host->describe(ctx, "not applied", "seccomp, Landlock, namespaces (Linux only)");
	struct asb_network net = {.struct_size = sizeof(net)};
	if (host->plan_network(ctx, &net) >= 0 && net.mode == ASB_NET_OPEN)
		host->describe(
		    ctx, "network",
		    "open: host services are closed on 127.0.0.1 and ::1 only; SBPL cannot "
		    "name the machine's other addresses or ::ffff:127.0.0.1");
	else if (net.mode == ASB_NET_FILTERED)
		host->describe(ctx, "network", "filtered: the proxy's host port only");
	struct input x = {0};
	struct sbpl_layout lay = {0};
	char why[1024] = "";
	int r = read_plan(host, ctx, &x, !s->env_applied);
	if (r >= 0 && sbpl_layout_build(&x.in, &lay, why, sizeof(why)) >= 0)
		for (size_t i = 0; i < lay.n_notes; i++)
			host->describe(ctx, "layout", lay.notes[i]);
	else if (why[0])
		host->describe(ctx, "refused", why);
	sbpl_layout_free(&lay);
	input_free(&x);
	return 0;
}

static const struct asb_hooks hooks = {
    .struct_size = sizeof(struct asb_hooks),
    .pre_mount = sb_pre_mount,
    .env = sb_env,
    .describe = sb_describe,
};

static const struct asb_backend_ops ops = {
    .struct_size = sizeof(struct asb_backend_ops),
    .caps = SEATBELT_CAPS_ALL,
    .probe = sb_probe,
    .prepare = sb_prepare,
    .build = sb_build,
};

static const struct asb_plugin plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_BACKEND,
    .name = "seatbelt",
    .version = "0.1.0",
    .description = "macOS: the plan as one SBPL profile run by sandbox-exec",
    .load = ASB_LOAD_ON_DEMAND,
    .init = sb_init,
    .fini = sb_fini,
    .hooks = &hooks,
    .backend = &ops,
};

ASB_PLUGIN_DEFINE(plugin)
