/* SPDX-License-Identifier: MIT */
#include "plan_ref.h"

#include "credentials.h"
#include "sbpl_eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ref_op_name(int op)
{
	static const char *const names[] = {NULL,
	                                    "file-read-data",
	                                    "file-read-metadata",
	                                    "file-map-executable",
	                                    "file-write-data",
	                                    "file-write-create",
	                                    "file-write-unlink",
	                                    "file-link",
	                                    "process-exec",
	                                    "network-outbound",
	                                    "network-bind"};
	return op >= 1 && op <= REF_N_OPS ? names[op] : NULL;
}

/* The kernel's spelling of the fixed macOS aliases. */
static void canon(const char *in, char *out, size_t n)
{
	static const char *const aliased[] = {"/tmp", "/var", "/etc", NULL};
	for (const char *const *a = aliased; *a; a++) {
		size_t l = strlen(*a);
		if (strncmp(in, *a, l) == 0 && (in[l] == '\0' || in[l] == '/')) {
			snprintf(out, n, "/private%s", in);
			return;
		}
	}
	snprintf(out, n, "%s", in);
}

static bool within(const char *path, const char *root)
{
	if (strcmp(root, "/") == 0)
		return path[0] == '/';
	size_t n = strlen(root);
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* within(), ASCII letters in either case: a credential on the default,
 * case-insensitive volume is the same directory in every spelling. */
static bool fold_within(const char *path, const char *root)
{
	size_t n = strlen(root);
	for (size_t i = 0; i < n; i++) {
		int a = (unsigned char)path[i], b = (unsigned char)root[i];
		if (!a ||
		    (a >= 'A' && a <= 'Z' ? a + 32 : a) != (b >= 'A' && b <= 'Z' ? b + 32 : b))
			return false;
	}
	return path[n] == '\0' || path[n] == '/';
}

static bool is_file_op(int op)
{
	return op >= REF_READ && op <= REF_EXEC;
}

bool ref_unix_ok(const struct sbpl_input *in)
{
	if (!in->net || !(in->net->flags & ASB_NET_F_UNIX_SOCKETS))
		return false;
	for (uint32_t i = 0; i < in->n_seccomp; i++)
		if (in->seccomp[i].denied && in->seccomp[i].name &&
		    (strcmp(in->seccomp[i].name, "unix_sockets") == 0 ||
		     strcmp(in->seccomp[i].name, "unix") == 0))
			return false;
	return true;
}

#define KEEP -1 /* the entry does not change the verdict for this operation */

/* What entry e says about `op` at a path its dest covers. */
static int entry_verdict(const struct sbpl_input *in, uint32_t i, int op, bool unix_ok)
{
	const struct asb_entry *e = &in->entries[i];
	uint32_t st = in->entry_state ? in->entry_state[i] : SBPL_ST_EXISTS;
	bool rd = op == REF_READ || op == REF_STAT || op == REF_MAP;
	switch (e->type) {
	case ASB_ENTRY_READ:
		if (op == REF_EXEC)
			return (e->flags & ASB_ENTRY_F_EXEC) != 0;
		if (op == REF_UNIX_CONNECT)
			return unix_ok;
		return rd;
	case ASB_ENTRY_WRITE:
		return op == REF_UNIX_CONNECT || op == REF_UNIX_BIND ? unix_ok : 1;
	case ASB_ENTRY_DEVICE:
		return is_file_op(op) && op != REF_EXEC;
	case ASB_ENTRY_MASK:
		if (rd && !(st & SBPL_ST_EXISTS))
			return KEEP; /* nothing there to read */
		return 0;
	case ASB_ENTRY_EPHEMERAL:
		return 0;
	case ASB_ENTRY_FILE:
		return 0;
	case ASB_ENTRY_SYMLINK:
		return (st & SBPL_ST_AS_IS) ? KEEP : 0;
	}
	return KEEP;
}

static bool covers(const struct sbpl_input *in, uint32_t i, const char *path)
{
	const struct asb_entry *e = &in->entries[i];
	const char *d = e->dest ? e->dest : e->host_path;
	if (!d)
		return false;
	char dest[2048];
	canon(d, dest, sizeof(dest));
	/* Nothing of the host is below a generated file (the core clears its
	 * F_DIR) or a symlink made there (below it is the link's target). */
	bool placed_link = e->type == ASB_ENTRY_SYMLINK &&
	                   !(in->entry_state && (in->entry_state[i] & SBPL_ST_AS_IS));
	if (e->type == ASB_ENTRY_EPHEMERAL || e->type == ASB_ENTRY_FILE || placed_link ||
	    (e->flags & ASB_ENTRY_F_DIR))
		return within(path, dest);
	return strcmp(path, dest) == 0;
}

static int devfs_grant(const char *path, int op)
{
	static const char *const rw[] = {"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty",
	                                 NULL};
	static const char *const ro[] = {"/dev/random", "/dev/urandom", NULL};
	bool rd = op == REF_READ || op == REF_STAT || op == REF_MAP;
	for (const char *const *d = rw; *d; d++)
		if (strcmp(path, *d) == 0)
			return is_file_op(op) && op != REF_EXEC;
	for (const char *const *d = ro; *d; d++)
		if (strcmp(path, *d) == 0)
			return rd;
	if (within(path, "/dev/fd"))
		return is_file_op(op) && op != REF_EXEC;
	/* The rest of /dev is not there. */
	return within(path, "/dev") ? 0 : KEEP;
}

/* Everything the plan grants anything on, for the stat() of directories
 * above them. */
static bool is_granted_root_ancestor(const struct sbpl_input *in, const struct sbpl_layout *lay,
                                     const char *path)
{
	size_t n = strlen(path);
	char buf[2048];
#define ABOVE(p)                                                                                   \
	do {                                                                                       \
		canon((p), buf, sizeof(buf));                                                      \
		if (strlen(buf) > n && within(buf, path))                                          \
			return true;                                                               \
	} while (0)
	for (uint32_t i = 0; i < in->n_entries; i++) {
		const struct asb_entry *e = &in->entries[i];
		const char *d = e->dest ? e->dest : e->host_path;
		if (d)
			ABOVE(d);
	}
	for (uint32_t i = 0; i < in->n_execs; i++)
		ABOVE(in->execs[i].host_path);
	for (size_t i = 0; i < lay->n_places; i++)
		ABOVE(lay->places[i].path);
	if (in->tty)
		ABOVE(in->tty);
	if (lay->bin_dir)
		ABOVE(lay->bin_dir);
	if (in->env_shim)
		ABOVE("/usr/bin/env");
	ABOVE("/dev/null");
#undef ABOVE
	return false;
}

int ref_file(const struct sbpl_input *in, const struct sbpl_layout *lay, const char *path, int op)
{
	bool unix_ok = ref_unix_ok(in);
	bool rd = op == REF_READ || op == REF_STAT || op == REF_MAP;
	bool uc = op == REF_UNIX_CONNECT, ub = op == REF_UNIX_BIND;
	/* The one socket the open network needs, whatever else is allowed. */
	if (uc && in->net && in->net->mode == ASB_NET_OPEN &&
	    strcmp(path, "/private/var/run/mDNSResponder") == 0)
		return 1;
	if ((uc || ub) && !unix_ok)
		return 0;
	int v = 0;
	if (strcmp(path, "/") == 0 && rd)
		v = 1;
	bool has_devfs = false;
	for (uint32_t i = 0; i < in->n_entries; i++) {
		const struct asb_entry *e = &in->entries[i];
		if (e->type == ASB_ENTRY_DEVFS) {
			has_devfs = true;
			int d = devfs_grant(path, op);
			if (d != KEEP)
				v = d;
			continue;
		}
		if (!covers(in, i, path))
			continue;
		int d = entry_verdict(in, i, op, unix_ok);
		if (d != KEEP)
			v = d;
	}
	/* Credentials, in every ASCII case: denied after everything, then what
	 * the plan names at or below them applies again. */
	char home[1100];
	canon(in->home, home, sizeof(home));
	for (const struct sbpl_credential *c = sbpl_credentials; c->rel; c++) {
		char cred[2200];
		snprintf(cred, sizeof(cred), "%s/%s", home, c->rel);
		if (!fold_within(path, cred))
			continue;
		v = 0;
		for (uint32_t i = 0; i < in->n_entries; i++) {
			const struct asb_entry *e = &in->entries[i];
			const char *d = e->dest ? e->dest : e->host_path;
			char dest[2048];
			if (!d)
				continue;
			canon(d, dest, sizeof(dest));
			if (!fold_within(dest, cred) || !covers(in, i, path))
				continue;
			int r = entry_verdict(in, i, op, unix_ok);
			if (r != KEEP)
				v = r;
		}
	}
	/* What the backend grants besides the entries. */
	for (size_t i = 0; i < lay->n_places; i++) {
		const struct sbpl_place *pl = &lay->places[i];
		if (pl->kind == SBPL_PLACE_DIR && strcmp(pl->path, lay->bin_dir) != 0 &&
		    within(path, pl->path))
			return 1; /* a private directory */
	}
	if (lay->bin_dir && within(path, lay->bin_dir) &&
	    (op == REF_READ || op == REF_STAT || op == REF_MAP))
		return 1;
	for (uint32_t i = 0; i < in->n_execs; i++) {
		char link[2048], host[2048];
		snprintf(link, sizeof(link), "%s/%s", lay->bin_dir, in->execs[i].name);
		canon(in->execs[i].host_path, host, sizeof(host));
		bool setid = in->exec_state && (in->exec_state[i] & SBPL_X_SETID);
		if (!setid && (strcmp(path, link) == 0 || strcmp(path, host) == 0) &&
		    (rd || op == REF_EXEC))
			return 1;
	}
	if (in->env_shim && strcmp(path, "/usr/bin/env") == 0 && (rd || op == REF_EXEC))
		return 1;
	if (in->tty && strcmp(path, in->tty) == 0 && is_file_op(op) && op != REF_EXEC)
		return 1;
	if (op == REF_STAT) {
		static const char *const fixed[] = {"/private",    "/etc",        "/tmp",
		                                    "/var",        "/dev",        "/dev/stdin",
		                                    "/dev/stdout", "/dev/stderr", NULL};
		for (const char *const *f = fixed; *f; f++)
			if (strcmp(path, *f) == 0 &&
			    (has_devfs || strncmp(*f, "/dev", 4) != 0 || strcmp(*f, "/dev") == 0))
				return 1;
		for (uint32_t i = 0; i < in->n_entries; i++) {
			const struct asb_entry *e = &in->entries[i];
			if (e->type != ASB_ENTRY_SYMLINK || !in->entry_state ||
			    !(in->entry_state[i] & SBPL_ST_AS_IS))
				continue;
			char dest[2048];
			canon(e->dest, dest, sizeof(dest));
			if (strcmp(dest, path) == 0)
				return 1;
		}
		if (is_granted_root_ancestor(in, lay, path))
			return 1;
	}
	return v;
}

static bool loopback(const char *a)
{
	return strcmp(a, "127.0.0.1") == 0 || strcmp(a, "::1") == 0;
}

int ref_connect(const struct sbpl_input *in, const char *addr, unsigned port, int proto)
{
	const struct asb_network *n = in->net;
	if (!n)
		return 0;
	bool listed = false;
	for (uint32_t i = 0; i < n->n_host_ports; i++)
		listed |= n->host_ports[i] == port;
	if (n->mode == ASB_NET_FILTERED && port == n->proxy_port)
		listed = true;
	if (n->mode == ASB_NET_OPEN) {
		if (!loopback(addr))
			return 1; /* the internet (and, as documented, whatever SBPL cannot name) */
		if (n->flags & ASB_NET_F_ALL_HOST_PORTS)
			return 1;
	}
	return loopback(addr) && listed && proto == SBE_PROTO_TCP;
}

int ref_bind(const struct sbpl_input *in, const char *addr, unsigned port, int proto)
{
	(void)addr;
	const struct asb_network *n = in->net;
	if (!n)
		return 0;
	if (n->mode == ASB_NET_OPEN)
		return 1;
	for (uint32_t i = 0; i < n->n_published_ports; i++)
		if (n->published_ports[i] == port && proto == SBE_PROTO_TCP)
			return 1;
	return 0;
}
