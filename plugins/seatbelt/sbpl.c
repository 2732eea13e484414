/* SPDX-License-Identifier: MIT */
/*
 * Plan -> SBPL. The profile denies by default and then walks the plan in
 * order, so that seatbelt's "the last matching rule wins" gives what the plan
 * means by "an entry covers what an earlier one put at or above its dest".
 * The sections, in the order they appear (plugins/seatbelt/README.md explains
 * each choice):
 *
 *   header      what this profile does and does not do, as comments
 *   process     fork, signals and process info within the sandbox, sysctl,
 *               the mach services libSystem needs, POSIX IPC
 *   files       "/" itself, then every plan entry in order
 *   credentials the read-deny list for a shared $HOME, then the plan entries
 *               at or below those paths again (they were named on purpose)
 *   private     the directories that stand in for the plan's ephemeral ones
 *               (in the private directory, itself below the real home)
 *   executables PATH's links and the files they lead to
 *   metadata    stat() of the directories above every allowed path
 *   moves       no rename or removal of a directory above a protected path
 *   network     per mode; unix sockets are in the file section
 *
 * Two rules keep the profile meaning the same whether seatbelt lets a rule
 * naming one operation (file-read-metadata) beat a later rule naming its
 * wildcard (file-read*) or not: operations that are not wildcards are always
 * named together with the wildcard they belong to, except in the last two
 * file sections, after which no file rule follows. tests/seatbelt checks
 * both readings.
 */
#include "sbpl.h"

#include "credentials.h"
#include "sbpl_int.h"
#include "sbpl_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Classes of access, each a fixed set of SBPL operations. */
#define C_R     0x01u /* read, stat, map for execution */
#define C_W     0x02u /* write, create, remove, rename, hard link, clone */
#define C_X     0x04u /* exec */
#define C_IO    0x08u /* ioctl (devices) */
#define C_UC    0x10u /* connect to a unix socket there */
#define C_UB    0x20u /* bind a unix socket there */
#define C_FILES (C_R | C_W | C_X | C_IO)
#define C_ALL   (C_FILES | C_UC | C_UB)

static const char *const class_ops[] = {
    "file-read* file-read-metadata file-test-existence file-map-executable",
    "file-write* file-link file-clone",
    "process-exec",
    "file-ioctl",
};

/* More anchors than this and one regex folds the whole path instead. */
#define MAX_ANCHORS 8

/* Directories on the data volume that macOS also shows at
 * /System/Volumes/Data/<same path> (firmlinks, /usr/share/firmlinks). */
static const char *const firmlinked[] = {"/Users",   "/Applications", "/Library",
                                         "/private", "/opt",          "/usr/local",
                                         "/Volumes", "/cores",        NULL};
#define DATA_VOLUME "/System/Volumes/Data"

struct region {
	char *path;
	bool dir;
	uint32_t classes;
};

struct gen {
	struct sbpl_plan *p;
	struct sbpl_buf out;
	struct region *allowed; /* every allow emitted, in order */
	size_t n_allowed;
	struct region *protected_; /* every region a deny was emitted for */
	size_t n_protected;
	char **meta; /* paths to stat() */
	size_t n_meta;
	bool unix_ok;
	char *why;
	size_t why_len;
	int err;
};

static void set_err(struct gen *g, int err, const char *fmt, ...) SBPL_PRINTF(3, 4);
static void set_err(struct gen *g, int err, const char *fmt, ...)
{
	if (g->err)
		return;
	g->err = err;
	if (g->why && g->why_len && fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(g->why, g->why_len, fmt, ap);
		va_end(ap);
	}
}

static int push_region(struct region **v, size_t *n, const char *path, bool dir, uint32_t classes)
{
	struct region *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n].path = strdup(path)))
		return -ENOMEM;
	nv[*n].dir = dir;
	nv[*n].classes = classes;
	(*n)++;
	return 0;
}

static void push_meta(struct gen *g, const char *path)
{
	for (size_t i = 0; i < g->n_meta; i++)
		if (strcmp(g->meta[i], path) == 0)
			return;
	char **n = realloc(g->meta, (g->n_meta + 1) * sizeof(*n));
	if (!n || !(n[g->n_meta] = strdup(path))) {
		if (n)
			g->meta = n;
		set_err(g, -ENOMEM, NULL);
		return;
	}
	g->meta = n;
	g->n_meta++;
}

/* Could region `a` and region (path, dir) share a file, if the volume
 * ignores ASCII case? */
static bool overlaps(const struct region *a, const char *path, bool dir)
{
	if (a->dir && sbpl_fold_within(path, a->path))
		return true;
	if (dir && sbpl_fold_within(a->path, path))
		return true;
	return !a->dir && !dir && sbpl_fold_within(path, a->path) &&
	       strlen(path) == strlen(a->path);
}

/* The classes among `classes` that an earlier allow could have granted in
 * (path, dir): only those need a deny, the rest is denied by default. */
static uint32_t granted_so_far(const struct gen *g, const char *path, bool dir, uint32_t classes)
{
	uint32_t out = 0;
	for (size_t i = 0; i < g->n_allowed && out != classes; i++)
		if ((g->allowed[i].classes & classes) && overlaps(&g->allowed[i], path, dir))
			out |= g->allowed[i].classes & classes;
	return out;
}

/* ------------------------------------------------------------- filters */

#define F_FILE   0 /* (literal P) (subpath P) (regex R) */
#define F_REMOTE 1 /* (remote unix-socket (path-literal P)) ... */
#define F_LOCAL  2 /* (local unix-socket ...) */

static void put_filter(struct gen *g, struct sbpl_buf *b, int kind, const char *what,
                       const char *arg)
{
	static const char *const wrap[] = {"", "(remote unix-socket ", "(local unix-socket "};
	if (kind != F_FILE && strcmp(what, "literal") == 0)
		what = "path-literal";
	if (kind != F_FILE && strcmp(what, "regex") == 0)
		what = "path-regex";
	sbpl_buf_printf(b, "\n    %s(%s ", wrap[kind], what);
	int r = sbpl_quote(b, arg);
	if (r < 0) {
		set_err(g, r, "%s is too long for a string in a profile (%d bytes at most)", arg,
		        SBPL_STRING_MAX);
		return;
	}
	sbpl_buf_puts(b, kind == F_FILE ? ")" : "))");
}

static void put_path(struct gen *g, struct sbpl_buf *b, int kind, const char *path, bool dir)
{
	put_filter(g, b, kind, dir ? "subpath" : "literal", path);
}

static void put_regex(struct gen *g, struct sbpl_buf *b, int kind, const char *anchor,
                      size_t anchor_len, const char *tail, bool dir)
{
	const char *ends[] = {"$", "/"};
	for (int e = 0; e < (dir ? 2 : 1); e++) {
		struct sbpl_buf re;
		sbpl_buf_init(&re);
		sbpl_fold_regex(&re, anchor, anchor_len, tail, ends[e]);
		if (re.err) {
			set_err(g, re.err, NULL);
		} else {
			put_filter(g, b, kind, "regex", re.data);
		}
		sbpl_buf_free(&re);
	}
}

/* A spelling of the start of a denied path that some allow uses. */
struct anchor {
	const char *s;
	size_t len;
	const char *tail; /* the rest of the denied path, matched in any case */
};

/*
 * Filters for a deny of (path, dir): the path itself, its spelling through
 * the data volume, and, for every allow it overlaps, a regex matching the
 * path in any case below where that allow's own spelling ends. A volume that
 * ignores case (the macOS default) opens ~/.SSH as ~/.ssh; should seatbelt
 * compare the spelling a process used, the exact filter alone would not stop
 * it. Only allows are spelled exactly: a variant above them is denied by
 * default anyway.
 */
static void put_deny_one(struct gen *g, struct sbpl_buf *b, int kind, const char *path, bool dir,
                         uint32_t classes)
{
	put_path(g, b, kind, path, dir);
	struct anchor anchors[MAX_ANCHORS + 1];
	size_t n = 0, plen = strlen(path);
	bool too_many = false;
	/* Allows at or above the path: the shallowest spellings suffice, a
	 * deeper one that starts with one of them is matched by its regex. */
	for (size_t i = 0; i < g->n_allowed && !too_many; i++) {
		const struct region *a = &g->allowed[i];
		/* A literal allow counts when it is this very path (in some case). */
		if (!(a->classes & classes) || !sbpl_fold_within(path, a->path) ||
		    (!a->dir && strlen(a->path) != plen))
			continue;
		bool covered = false;
		for (size_t j = 0; j < g->n_allowed && !covered; j++) {
			const struct region *o = &g->allowed[j];
			covered = j != i && (o->classes & classes) && o->dir &&
			          sbpl_fold_within(path, o->path) &&
			          sbpl_within(a->path, o->path) &&
			          (strcmp(a->path, o->path) != 0 || j < i);
		}
		if (covered)
			continue;
		size_t alen = strlen(a->path);
		const char *tail = path + (strcmp(a->path, "/") == 0 ? 0 : alen);
		if (!*tail && strcmp(a->path, path) == 0)
			continue; /* the exact filter is this one */
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = anchors[k].len == alen && memcmp(anchors[k].s, a->path, alen) == 0;
		if (dup)
			continue;
		if (n == MAX_ANCHORS)
			too_many = true;
		else
			anchors[n++] = (struct anchor){a->path, alen, tail};
	}
	/* Allows below the path spelled differently from it, which no regex
	 * above reaches. */
	for (size_t i = 0; i < g->n_allowed && !too_many && dir; i++) {
		const struct region *a = &g->allowed[i];
		if (!(a->classes & classes) || !sbpl_fold_within(a->path, path) ||
		    strncmp(a->path, path, plen) == 0)
			continue;
		bool covered = false;
		for (size_t k = 0; k < n && !covered; k++)
			covered = sbpl_within(a->path, anchors[k].s) && anchors[k].len <= plen;
		for (size_t k = 0; k < n && !covered; k++)
			covered =
			    anchors[k].len == plen && memcmp(anchors[k].s, a->path, plen) == 0;
		if (covered)
			continue;
		if (n == MAX_ANCHORS)
			too_many = true;
		else
			anchors[n++] = (struct anchor){a->path, plen, ""};
	}
	if (too_many) {
		put_regex(g, b, kind, "/", 1, path, dir);
		return;
	}
	for (size_t k = 0; k < n; k++)
		put_regex(g, b, kind, anchors[k].s, anchors[k].len, anchors[k].tail, dir);
}

/* The spelling of `path` through the data volume, or false. */
static bool data_alias(const char *path, char *out, size_t len)
{
	for (const char *const *f = firmlinked; *f; f++)
		if (sbpl_within(path, *f)) {
			snprintf(out, len, DATA_VOLUME "%s", path);
			return true;
		}
	return false;
}

static void put_deny_filters(struct gen *g, struct sbpl_buf *b, int kind, const char *path,
                             bool dir, uint32_t classes)
{
	char alias[SBPL_PATH_MAX + sizeof(DATA_VOLUME)];
	put_deny_one(g, b, kind, path, dir, classes);
	if (data_alias(path, alias, sizeof(alias)))
		put_deny_one(g, b, kind, alias, dir, classes);
}

/* ---------------------------------------------------------------- rules */

static void rule_ops(struct sbpl_buf *b, const char *verdict, uint32_t classes)
{
	sbpl_buf_printf(b, "(%s", verdict);
	for (int c = 0; c < 4; c++)
		if (classes & (1u << c))
			sbpl_buf_printf(b, " %s", class_ops[c]);
}

/* Allow `classes` in (path, dir) and remember it. */
static void allow(struct gen *g, const char *path, bool dir, uint32_t classes)
{
	if (!g->unix_ok)
		classes &= ~(C_UC | C_UB);
	if (!classes || g->err)
		return;
	struct sbpl_buf *b = &g->out;
	if (classes & C_FILES) {
		rule_ops(b, "allow", classes & C_FILES);
		put_path(g, b, F_FILE, path, dir);
		sbpl_buf_puts(b, ")\n");
	}
	if (classes & C_UC) {
		sbpl_buf_puts(b, "(allow network-outbound");
		put_path(g, b, F_REMOTE, path, dir);
		sbpl_buf_puts(b, ")\n");
	}
	if (classes & C_UB) {
		sbpl_buf_puts(b, "(allow network-bind");
		put_path(g, b, F_LOCAL, path, dir);
		sbpl_buf_puts(b, ")\n");
	}
	if (push_region(&g->allowed, &g->n_allowed, path, dir, classes) < 0)
		set_err(g, -ENOMEM, NULL);
}

/* Deny `classes` in (path, dir) where an earlier allow may have granted
 * them, and remember the region as one to keep in place. */
static void deny(struct gen *g, const char *path, bool dir, uint32_t classes)
{
	if (!g->unix_ok)
		classes &= ~(C_UC | C_UB);
	char alias[SBPL_PATH_MAX + sizeof(DATA_VOLUME)];
	classes =
	    granted_so_far(g, path, dir, classes) |
	    (data_alias(path, alias, sizeof(alias)) ? granted_so_far(g, alias, dir, classes) : 0);
	if (!classes || g->err)
		return;
	struct sbpl_buf *b = &g->out;
	if (classes & C_FILES) {
		rule_ops(b, "deny", classes & C_FILES);
		put_deny_filters(g, b, F_FILE, path, dir, classes & C_FILES);
		sbpl_buf_puts(b, ")\n");
	}
	if (classes & C_UC) {
		sbpl_buf_puts(b, "(deny network-outbound");
		put_deny_filters(g, b, F_REMOTE, path, dir, C_UC);
		sbpl_buf_puts(b, ")\n");
	}
	if (classes & C_UB) {
		sbpl_buf_puts(b, "(deny network-bind");
		put_deny_filters(g, b, F_LOCAL, path, dir, C_UB);
		sbpl_buf_puts(b, ")\n");
	}
	if ((classes & (C_R | C_W | C_UC | C_UB)) &&
	    push_region(&g->protected_, &g->n_protected, path, dir, classes) < 0)
		set_err(g, -ENOMEM, NULL);
}

static void comment(struct gen *g, const char *fmt, ...) SBPL_PRINTF(2, 3);
static void comment(struct gen *g, const char *fmt, ...)
{
	char line[SBPL_PATH_MAX * 2 + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sbpl_comment(&g->out, line);
}

/* ------------------------------------------------------------- sections */

static const char *type_name(uint32_t t)
{
	static const char *const names[] = {"?",    "READ", "WRITE",   "DEVICE", "EPHEMERAL",
	                                    "MASK", "FILE", "SYMLINK", "PROC",   "DEVFS"};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static const char *origin(const struct asb_entry *e)
{
	return e->origin ? e->origin : "plan";
}

static void emit_process(struct gen *g, const struct asb_network *net)
{
	struct sbpl_buf *b = &g->out;
	sbpl_buf_puts(
	    b, "\n;; process: children, and only the sandbox's own processes seen or "
	       "signalled\n"
	       "(allow process-fork)\n"
	       ";; (deny default) leaves these four allowed (Mozilla's SandboxPolicy*.h)\n"
	       "(deny process-info* nvram* iokit-get-properties file-map-executable)\n"
	       "(allow process-info* (target same-sandbox))\n"
	       "(allow signal (target same-sandbox))\n"
	       ";; sysctl: the machine, not the other processes on it\n"
	       "(allow sysctl-read)\n"
	       "(deny sysctl-read\n"
	       "    (sysctl-name-prefix \"kern.proc.\")\n"
	       "    (sysctl-name-prefix \"kern.procargs\"))\n"
	       ";; mach services libSystem needs: users and groups, notifications, logging,\n"
	       ";; the per-user temporary directory. Not the keychain (SecurityServer), not\n"
	       ";; preferences (cfprefsd), not LaunchServices (it starts apps outside).\n"
	       "(allow mach-lookup\n"
	       "    (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	       "    (global-name \"com.apple.system.opendirectoryd.membership\")\n"
	       "    (global-name \"com.apple.system.notification_center\")\n"
	       "    (global-name \"com.apple.system.logger\")\n"
	       "    (global-name \"com.apple.logd\")\n"
	       "    (global-name \"com.apple.bsd.dirhelper\"))\n");
	if (net && net->mode == ASB_NET_OPEN)
		sbpl_buf_puts(b,
		              ";; certificate checks (trustd fetches OCSP and CRLs: open network "
		              "only)\n"
		              "(allow mach-lookup (global-name \"com.apple.trustd.agent\"))\n");
	sbpl_buf_puts(b, ";; POSIX shared memory and semaphores (one namespace for the whole "
	                 "machine)\n"
	                 "(allow ipc-posix-shm ipc-posix-sem)\n");
}

static void emit_devfs(struct gen *g)
{
	struct sbpl_buf *b = &g->out;
	static const char *const rw[] = {"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty",
	                                 NULL};
	static const char *const ro[] = {"/dev/random", "/dev/urandom", NULL};
	/* Like any entry it covers what earlier ones put there: only these. */
	deny(g, "/dev", true, C_ALL);
	for (const char *const *d = rw; *d; d++)
		allow(g, *d, false, C_R | C_W);
	for (const char *const *d = ro; *d; d++)
		allow(g, *d, false, C_R);
	allow(g, "/dev/fd", true, C_R | C_W);
	/* ioctl on terminals only through a descriptor the process holds: it can
	 * open /dev/tty (its own) and the tty it was given, not the others. */
	sbpl_buf_puts(b, "(allow file-ioctl\n"
	                 "    (literal \"/dev/null\")\n"
	                 "    (literal \"/dev/tty\")\n"
	                 "    (regex \"^/dev/ttys[0-9]+$\"))\n");
	static const char *const links[] = {"/dev", "/dev/stdin", "/dev/stdout", "/dev/stderr",
	                                    NULL};
	for (const char *const *d = links; *d; d++)
		push_meta(g, *d);
}

static void emit_entry(struct gen *g, uint32_t i)
{
	const struct sbpl_plan *p = g->p;
	const struct asb_entry *e = &p->in->entries[i];
	const char *dest = p->dest[i];
	bool dir = (e->flags & ASB_ENTRY_F_DIR) != 0;
	bool exec = (e->flags & ASB_ENTRY_F_EXEC) != 0;
	uint32_t st = sbpl_entry_state(p->in, i);
	comment(g, "%u %s %s%s (%s)", (unsigned)i, type_name(e->type), dest, dir ? "/" : "",
	        origin(e));
	switch (e->type) {
	case ASB_ENTRY_READ:
		allow(g, dest, dir, C_R | C_UC | (exec ? C_X : 0));
		deny(g, dest, dir, C_W | C_IO | C_UB | (exec ? 0 : C_X));
		break;
	case ASB_ENTRY_WRITE:
		allow(g, dest, dir, C_R | C_W | C_X | C_UC | C_UB);
		deny(g, dest, dir, C_IO);
		break;
	case ASB_ENTRY_DEVICE:
		allow(g, dest, dir, C_R | C_W | C_IO);
		deny(g, dest, dir, C_X | C_UC | C_UB);
		break;
	case ASB_ENTRY_MASK:
		deny(g, dest, dir, (st & SBPL_ST_EXISTS ? C_ALL : C_ALL & ~C_R));
		break;
	case ASB_ENTRY_EPHEMERAL:
		/* What the host has there is hidden; the private directory that
		 * stands in for it comes in the private section. */
		deny(g, dest, true, C_ALL);
		comment(g, "   %s",
		        p->how[i] == SBPL_HOW_SUBST
		            ? "given as a private directory (below)"
		            : "sealed: no private directory can stand in for it");
		break;
	case ASB_ENTRY_FILE:
	case ASB_ENTRY_SYMLINK:
		if (p->xlat[i]) {
			/* Nothing of the host is below a file or a link placed
			 * there: what the host has below its path stays hidden,
			 * as under a mount of it. */
			deny(g, dest, true, C_ALL);
			comment(g, "   made in a private directory (below)");
		} else {
			comment(g, "   already so on the host");
			push_meta(g, dest);
		}
		break;
	case ASB_ENTRY_PROC:
		comment(g, "   macOS has no procfs: nothing to place");
		break;
	case ASB_ENTRY_DEVFS:
		emit_devfs(g);
		break;
	}
}

/* The plan's entries that live in the private directories, in plan order
 * after the directories themselves: no plan entry (they all name host
 * paths) can take them away. */
static void emit_private(struct gen *g)
{
	const struct sbpl_plan *p = g->p;
	sbpl_buf_puts(&g->out, "\n;; private directories: what stands in for the plan's "
	                       "ephemeral ones\n");
	for (uint32_t i = 0; i < p->in->n_entries && !g->err; i++) {
		const struct asb_entry *e = &p->in->entries[i];
		bool dir = (e->flags & ASB_ENTRY_F_DIR) != 0;
		if (e->type == ASB_ENTRY_EPHEMERAL && p->how[i] == SBPL_HOW_SUBST) {
			comment(g, "%u EPHEMERAL %s", (unsigned)i, p->dest[i]);
			allow(g, p->subst[i], true, C_R | C_W | C_X | C_UC | C_UB);
		} else if (e->type == ASB_ENTRY_MASK && p->xlat[i]) {
			comment(g, "%u MASK %s", (unsigned)i, p->dest[i]);
			deny(g, p->xlat[i], dir, C_ALL);
		} else if (e->type == ASB_ENTRY_FILE && p->xlat[i]) {
			comment(g, "%u FILE %s", (unsigned)i, p->dest[i]);
			allow(g, p->xlat[i], false, C_R);
			deny(g, p->xlat[i], false, C_ALL & ~C_R);
		} else if (e->type == ASB_ENTRY_SYMLINK && p->xlat[i]) {
			comment(g, "%u SYMLINK %s -> %s", (unsigned)i, p->dest[i], p->host[i]);
			deny(g, p->xlat[i], false, C_W);
		}
	}
}

/* Entries at or below a credential path, again after the deny of it. */
static void emit_credentials(struct gen *g)
{
	const struct sbpl_plan *p = g->p;
	size_t first = g->n_protected;
	sbpl_buf_puts(&g->out, "\n;; credentials: unreadable even below a declared directory\n");
	for (const struct sbpl_credential *c = sbpl_credentials; c->rel && !g->err; c++) {
		char path[SBPL_PATH_MAX + 1];
		int n = snprintf(path, sizeof(path), "%s/%s", strcmp(p->home, "/") ? p->home : "",
		                 c->rel);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue; /* cannot exist: longer than a macOS path */
		char alias[SBPL_PATH_MAX + sizeof(DATA_VOLUME)];
		if (!granted_so_far(g, path, true, C_ALL) &&
		    !(data_alias(path, alias, sizeof(alias)) &&
		      granted_so_far(g, alias, true, C_ALL)))
			continue;
		comment(g, "%s: %s", path, c->why);
		deny(g, path, true, C_ALL);
	}
	size_t last = g->n_protected;
	bool any = false;
	for (uint32_t i = 0; i < p->in->n_entries && !g->err; i++) {
		bool below = false;
		for (size_t k = first; k < last && !below; k++)
			below = sbpl_fold_within(p->dest[i], g->protected_[k].path);
		if (!below)
			continue;
		if (!any)
			sbpl_buf_puts(&g->out, ";; the plan names these itself\n");
		any = true;
		emit_entry(g, i);
	}
}

static void emit_executables(struct gen *g)
{
	const struct sbpl_plan *p = g->p;
	const struct sbpl_input *in = p->in;
	struct sbpl_buf *b = &g->out;
	sbpl_buf_puts(b, "\n;; executables: PATH is a directory of links, one per executable\n");
	allow(g, p->lay.bin_dir, true, C_R);
	struct sbpl_buf rule;
	sbpl_buf_init(&rule);
	for (uint32_t i = 0; i < in->n_execs && !g->err; i++) {
		const struct asb_exec *x = &in->execs[i];
		char *host = NULL;
		if (sbpl_canonical(x->host_path, &host, NULL) < 0) {
			set_err(g, -ENOMEM, NULL);
			break;
		}
		char link[SBPL_PATH_MAX * 2];
		snprintf(link, sizeof(link), "%s/%s", p->lay.bin_dir, x->name);
		if (strlen(link) > SBPL_PATH_MAX)
			set_err(g, -ENAMETOOLONG, "%s: the link's path is longer than macOS allows",
			        x->name);
		if (in->exec_state && (in->exec_state[i] & SBPL_X_SETID)) {
			comment(g, "%s -> %s: setuid or setgid, never executable here", x->name,
			        host);
		} else {
			put_path(g, &rule, F_FILE, host, false);
			put_path(g, &rule, F_FILE, link, false);
			if (push_region(&g->allowed, &g->n_allowed, host, false, C_R | C_X) < 0 ||
			    push_region(&g->allowed, &g->n_allowed, link, false, C_R | C_X) < 0)
				set_err(g, -ENOMEM, NULL);
		}
		free(host);
	}
	if (in->env_shim) {
		put_path(g, &rule, F_FILE, "/usr/bin/env", false);
		if (push_region(&g->allowed, &g->n_allowed, "/usr/bin/env", false, C_R | C_X) < 0)
			set_err(g, -ENOMEM, NULL);
	}
	if (rule.err)
		set_err(g, rule.err, NULL);
	if (rule.len) {
		rule_ops(b, "allow", C_R | C_X);
		sbpl_buf_puts(b, rule.data);
		sbpl_buf_puts(b, ")\n");
	}
	sbpl_buf_free(&rule);
	if (in->env_shim)
		sbpl_buf_puts(b, ";; the command starts through /usr/bin/env (seatbelt.c)\n");
	if (p->tty) {
		comment(g, "the agent's terminal");
		allow(g, p->tty, false, C_R | C_W | C_IO);
	}
}

/* Is the region allowed at entry i overruled entirely by a later entry? */
static bool hidden_later(const struct sbpl_plan *p, uint32_t i)
{
	for (uint32_t j = i + 1; j < p->in->n_entries; j++) {
		const struct asb_entry *e = &p->in->entries[j];
		bool all =
		    e->type == ASB_ENTRY_EPHEMERAL ||
		    (e->type == ASB_ENTRY_MASK && (sbpl_entry_state(p->in, j) & SBPL_ST_EXISTS));
		if (all && (e->type == ASB_ENTRY_EPHEMERAL || (e->flags & ASB_ENTRY_F_DIR)) &&
		    sbpl_within(p->dest[i], p->dest[j]))
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void emit_metadata(struct gen *g)
{
	const struct sbpl_plan *p = g->p;
	static const char *const fixed[] = {"/private", "/etc", "/tmp", "/var", NULL};
	for (const char *const *f = fixed; *f; f++)
		push_meta(g, *f);
	for (size_t i = 0; i < g->n_allowed && !g->err; i++) {
		const char *path = g->allowed[i].path;
		bool skip = false;
		for (uint32_t e = 0; e < p->in->n_entries && !skip; e++)
			skip = strcmp(p->dest[e], path) == 0 && hidden_later(p, e);
		if (skip)
			continue;
		char anc[SBPL_PATH_MAX + 1];
		snprintf(anc, sizeof(anc), "%s", path);
		for (char *s = strrchr(anc, '/'); s && s != anc; s = strrchr(anc, '/')) {
			*s = '\0';
			push_meta(g, anc);
		}
	}
	if (g->err || !g->n_meta)
		return;
	qsort(g->meta, g->n_meta, sizeof(*g->meta), cmp_str);
	sbpl_buf_puts(&g->out, "\n;; metadata: stat() of the directories on the way to what is "
	                       "allowed\n"
	                       "(allow file-read-metadata file-test-existence");
	for (size_t i = 0; i < g->n_meta; i++)
		put_path(g, &g->out, F_FILE, g->meta[i], false);
	sbpl_buf_puts(&g->out, ")\n");
}

static void emit_moves(struct gen *g)
{
	struct sbpl_buf filters;
	sbpl_buf_init(&filters);
	char **done = NULL;
	size_t n_done = 0;
	for (size_t i = 0; i < g->n_protected && !g->err; i++) {
		char anc[SBPL_PATH_MAX + 1];
		snprintf(anc, sizeof(anc), "%s", g->protected_[i].path);
		for (char *s = strrchr(anc, '/'); s && s != anc; s = strrchr(anc, '/')) {
			*s = '\0';
			char alias[SBPL_PATH_MAX + sizeof(DATA_VOLUME)];
			if (!granted_so_far(g, anc, false, C_W) &&
			    !(data_alias(anc, alias, sizeof(alias)) &&
			      granted_so_far(g, alias, false, C_W)))
				continue;
			bool dup = false;
			for (size_t k = 0; k < n_done && !dup; k++)
				dup = strcmp(done[k], anc) == 0;
			if (dup)
				continue;
			char **nd = realloc(done, (n_done + 1) * sizeof(*nd));
			if (!nd || !(nd[n_done] = strdup(anc))) {
				if (nd)
					done = nd;
				set_err(g, -ENOMEM, NULL);
				break;
			}
			done = nd;
			n_done++;
		}
	}
	if (n_done && !g->err) {
		qsort(done, n_done, sizeof(*done), cmp_str);
		for (size_t k = 0; k < n_done; k++)
			put_deny_filters(g, &filters, F_FILE, done[k], false, C_W);
		sbpl_buf_puts(&g->out, "\n;; moves: a directory above a protected path stays where "
		                       "it is\n"
		                       "(deny file-write-unlink file-write-create");
		if (filters.data)
			sbpl_buf_puts(&g->out, filters.data);
		sbpl_buf_puts(&g->out, ")\n");
	}
	if (filters.err)
		set_err(g, filters.err, NULL);
	for (size_t k = 0; k < n_done; k++)
		free(done[k]);
	free(done);
	sbpl_buf_free(&filters);
}

static int port_ok(uint32_t port)
{
	return port >= 1 && port <= 65535;
}

static void emit_network(struct gen *g, const struct asb_network *net)
{
	struct sbpl_buf *b = &g->out;
	static const struct asb_network off = {.struct_size = sizeof(off), .mode = ASB_NET_OFF};
	if (!net)
		net = &off;
	static const char *const names[] = {"off", "filtered", "open"};
	sbpl_buf_printf(b, "\n;; network: %s\n", net->mode <= 2 ? names[net->mode] : "?");
	if (net->mode > ASB_NET_OPEN) {
		set_err(g, -EINVAL, "unknown network mode %u", (unsigned)net->mode);
		return;
	}
	if (net->mode == ASB_NET_FILTERED) {
		if (!port_ok(net->proxy_port)) {
			set_err(g, -EINVAL, "filtered network without a proxy port");
			return;
		}
		sbpl_buf_printf(b,
		                ";; only the filtering proxy on the host's loopback\n"
		                "(allow network-outbound (remote tcp \"localhost:%u\"))\n",
		                (unsigned)net->proxy_port);
	}
	bool all_ports = net->mode == ASB_NET_OPEN && (net->flags & ASB_NET_F_ALL_HOST_PORTS);
	if (net->mode == ASB_NET_OPEN) {
		sbpl_buf_puts(b, "(allow network-outbound (remote ip \"*:*\"))\n");
		if (!all_ports)
			sbpl_buf_puts(b, ";; the host's own services: closed on loopback\n"
			                 "(deny network-outbound (remote ip \"localhost:*\"))\n");
		sbpl_buf_puts(b,
		              ";; names resolve through mDNSResponder\n"
		              "(allow system-socket (socket-domain AF_UNIX))\n"
		              "(allow network-outbound (remote unix-socket (path-literal "
		              "\"/private/var/run/mDNSResponder\")))\n"
		              ";; listening: anywhere (localhost is shared with the host)\n"
		              "(allow network-bind network-inbound (local ip \"localhost:*\"))\n");
	}
	if (net->n_host_ports && !net->host_ports) {
		set_err(g, -EINVAL, "host ports without a list");
		return;
	}
	if (net->n_published_ports && !net->published_ports) {
		set_err(g, -EINVAL, "published ports without a list");
		return;
	}
	for (uint32_t i = 0; i < net->n_host_ports && !all_ports; i++) {
		if (!port_ok(net->host_ports[i])) {
			set_err(g, -EINVAL, "host port 0");
			return;
		}
		sbpl_buf_printf(b, "(allow network-outbound (remote tcp \"localhost:%u\"))\n",
		                (unsigned)net->host_ports[i]);
	}
	for (uint32_t i = 0; i < net->n_published_ports; i++) {
		if (!port_ok(net->published_ports[i])) {
			set_err(g, -EINVAL, "published port 0");
			return;
		}
		sbpl_buf_printf(b, "(allow network-bind network-inbound (local tcp \"*:%u\"))\n",
		                (unsigned)net->published_ports[i]);
	}
	if (g->unix_ok && net->mode != ASB_NET_OPEN)
		sbpl_buf_puts(b,
		              ";; unix sockets: connect where readable, bind where writable (file "
		              "section)\n"
		              "(allow system-socket (socket-domain AF_UNIX))\n");
}

/* ---------------------------------------------------------------- header */

static bool group_denied(const struct sbpl_input *in, const char *a, const char *b)
{
	for (uint32_t i = 0; i < in->n_seccomp; i++) {
		const struct asb_seccomp_group *s = &in->seccomp[i];
		if (s->denied && s->name &&
		    (strcmp(s->name, a) == 0 || (b && strcmp(s->name, b) == 0)))
			return true;
	}
	return false;
}

/* What each seccomp group becomes here. */
static const char *group_fate(const char *name, int denied, bool unix_ok)
{
	static const struct {
		const char *name, *fate;
	} fates[] = {
	    {"unix_sockets", NULL},
	    {"unix", NULL},
	    {"unix_pairs", "not expressible: SBPL does not filter socketpair()"},
	    {"unix_seqpacket", NULL},
	    {"socket_families",
	     "only AF_UNIX may be created through system-socket; IP is network-*"},
	    {"tty_injection", "not expressible: SBPL does not filter ioctl requests (XNU refuses "
	                      "TIOCSTI on a terminal that is not the caller's own)"},
	    {"ptrace", "(deny default): no task ports, no process-info beyond the sandbox"},
	    {"mount", "(deny default): no file-mount"},
	    {"kernel", "(deny default): no sysctl-write, nvram, kext or reboot"},
	    {"userns", "Linux only: macOS has no namespaces"},
	    {"namespaces", "Linux only: macOS has no namespaces"},
	    {"setns", "Linux only: macOS has no namespaces"},
	    {"chroot", "not expressible: SBPL has no chroot operation (macOS allows it to "
	               "root only)"},
	    {"keyring", "Linux only"},
	    {"bpf", "Linux only (macOS /dev/bpf* is not in the profile)"},
	    {"perf", "Linux only"},
	    {"userfaultfd", "Linux only"},
	    {"io_uring", "Linux only"},
	    {"personality", "Linux only"},
	};
	if (!denied)
		return "lifted: nothing extra is allowed for it here";
	for (size_t i = 0; i < sizeof(fates) / sizeof(fates[0]); i++)
		if (strcmp(fates[i].name, name) == 0)
			return fates[i].fate
			           ? fates[i].fate
			           : (unix_ok ? "lifted by the policy's unix sockets"
			                      : "no system-socket AF_UNIX, no unix connect or "
			                        "bind");
	return "not known here: (deny default) is all seatbelt adds";
}

static void emit_header(struct gen *g, const struct asb_network *net)
{
	const struct sbpl_plan *p = g->p;
	const struct sbpl_input *in = p->in;
	struct sbpl_buf *b = &g->out;
	if (in->title)
		comment(g, "%s", in->title);
	sbpl_buf_puts(b, ";; agentsandbox seatbelt profile: generated, do not edit.\n"
	                 ";; Everything is denied unless a rule below allows it; of the rules for\n"
	                 ";; one operation the last that matches decides.\n");
	if (in->hardening & ASB_HARD_SECCOMP)
		sbpl_buf_puts(b, ";; hardening: seccomp is not applied (Linux only)\n");
	if (in->hardening & ASB_HARD_LANDLOCK)
		sbpl_buf_puts(b, ";; hardening: Landlock is not applied (Linux only)\n");
	if (in->hardening & ASB_HARD_NO_USERNS)
		sbpl_buf_puts(b, ";; hardening: no user namespaces (macOS has none)\n");
	for (uint32_t i = 0; i < in->n_seccomp; i++) {
		const struct asb_seccomp_group *s = &in->seccomp[i];
		if (!s->name || !sbpl_text_ok(s->name, strlen(s->name)))
			continue;
		comment(g, "seccomp group %s: %s", s->name,
		        group_fate(s->name, (int)s->denied, g->unix_ok));
	}
	static const char *const limits[] = {"nofile", "nproc", "cpu", "as", "core"};
	for (uint32_t i = 0; i < in->n_limits; i++) {
		const struct asb_limit *l = &in->limits[i];
		char soft[24], hard[24];
		snprintf(soft, sizeof(soft), "%llu", (unsigned long long)l->soft);
		snprintf(hard, sizeof(hard), "%llu", (unsigned long long)l->hard);
		comment(g, "limit %s %s/%s (set by the launcher before sandbox-exec; inherited)",
		        l->resource < 5 ? limits[l->resource] : "?",
		        l->soft == ASB_LIMIT_INFINITY ? "unlimited" : soft,
		        l->hard == ASB_LIMIT_INFINITY ? "unlimited" : hard);
	}
	if (net && net->mode == ASB_NET_OPEN)
		sbpl_buf_puts(b, ";; open network: SBPL names no address but localhost, so host "
		                 "services\n"
		                 ";; stay reachable through the machine's other addresses and "
		                 "::ffff:127.0.0.1\n");
	for (size_t i = 0; i < p->lay.n_notes; i++)
		comment(g, "%s", p->lay.notes[i]);
	sbpl_buf_puts(b, "(version 1)\n(deny default)\n");
}

int sbpl_generate(const struct sbpl_input *in, char **profile, size_t *len, char *why,
                  size_t why_len)
{
	struct sbpl_plan plan;
	int r = sbpl_plan_prepare(in, &plan, why, why_len);
	if (r < 0) {
		sbpl_plan_free(&plan);
		return r;
	}
	const struct asb_network *net = in->net;
	struct gen g = {.p = &plan, .why = why, .why_len = why_len};
	sbpl_buf_init(&g.out);
	g.unix_ok = net && (net->flags & ASB_NET_F_UNIX_SOCKETS) &&
	            !group_denied(in, "unix_sockets", "unix");

	emit_header(&g, net);
	emit_process(&g, net);
	sbpl_buf_puts(&g.out, "\n;; files: the plan, in order\n");
	allow(&g, "/", false, C_R);
	for (uint32_t i = 0; i < in->n_entries && !g.err; i++)
		emit_entry(&g, i);
	emit_credentials(&g);
	emit_private(&g);
	emit_executables(&g);
	emit_metadata(&g);
	emit_moves(&g);
	emit_network(&g, net);

	if (!g.err && g.out.err)
		g.err = g.out.err;
	if (g.err == -ENOMEM || (g.err && why && why_len && !why[0]))
		snprintf(why, why_len, "%s", g.err == -ENOMEM ? "out of memory" : "profile error");
	if (!g.err) {
		*profile = sbpl_buf_take(&g.out, len);
		if (!*profile)
			g.err = -ENOMEM;
	}
	sbpl_buf_free(&g.out);
	for (size_t i = 0; i < g.n_allowed; i++)
		free(g.allowed[i].path);
	free(g.allowed);
	for (size_t i = 0; i < g.n_protected; i++)
		free(g.protected_[i].path);
	free(g.protected_);
	for (size_t i = 0; i < g.n_meta; i++)
		free(g.meta[i]);
	free(g.meta);
	sbpl_plan_free(&plan);
	return g.err;
}
