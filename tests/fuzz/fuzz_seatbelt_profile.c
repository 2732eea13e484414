/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: random plans with hostile paths -> the seatbelt profile
 * writer -> the SBPL evaluator. The oracle (any violation aborts):
 *
 *  O1  The generator either succeeds or refuses with -EINVAL (a path no
 *      profile can name: control characters, invalid UTF-8, not canonical),
 *      -ENAMETOOLONG (longer than macOS allows, or a deny whose
 *      case-insensitive regex would not fit in a string sandbox-exec reads)
 *      or -EOPNOTSUPP (an entry seatbelt cannot place: a generated file or a
 *      symlink outside a private directory, a remapped path, /dev elsewhere),
 *      and only when the input has such a thing (checked here with this
 *      file's own predicates, not the generator's).
 *  O2  Every profile it writes parses in the evaluator.
 *  O3  For every path asked about (each path in the plan, one below it, its
 *      parent, the credential paths, random ones) and every file operation,
 *      under both readings of precedence: the evaluator allows only what the
 *      plan grants (tests/seatbelt/plan_ref.h, which also lists what the
 *      backend grants besides the entries); and the two readings agree.
 *      The same for connect and bind to a set of addresses and ports.
 *  O4  When no two paths of the plan (entries, executables) are spellings of
 *      each other that a case-insensitive volume takes for one (fold_ascii.h),
 *      a variant of a path the plan denies an operation on (ASCII case, U+017F
 *      for s, U+212A for k; ß, ﬁ and the other ligatures for their letters in
 *      short paths) is denied that operation too.
 */
#include "fold_ascii.h"
#include "plan_ref.h"
#include "sbpl.h"
#include "sbpl_eval.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *d;
	size_t n, pos;
};

static unsigned take(struct in *in, unsigned mod)
{
	if (in->pos >= in->n || mod == 0)
		return 0;
	return in->d[in->pos++] % mod;
}

static const char *const roots[] = {
    "/Users/alice",
    "/Users/alice/src/project",
    "/tmp",
    "/private/tmp",
    "/usr",
    "/System",
    "/",
    "/etc",
    "/Users",
    "/System/Volumes/Data/Users/alice",
    "/dev",
    "/nix/store",
    "/Users/alice/.config",
    "/opt/homebrew",
};

static const char *const parts[] = {
    "a",         "b",
    ".git",      "hooks",
    ".ssh",      "id_ed25519",
    "x\"y",      "x\\y",
    "(",         ")",
    "[a]",       "*",
    ".",         "..",
    "",          "\n",
    "\xc3\xa9",  "\xff",
    "\xc5\xbf",  "\xe2\x84\xaa",
    ".SSH",      "Library",
    "Keychains", "ab cd",
    ";;",        "#\"",
    "\x01",      "config",
    ".aws",      "gh",
    "Hooks",     "e\xcc\x81",
    "^$|+?{}",   "\\\"))(allow default)(literal \"",
    "s",         "K",
    ".Git",      "tmp",
};

#define MAX_PATH 1400

static void make_path(struct in *in, char *out)
{
	int n = snprintf(out, MAX_PATH, "%s", roots[take(in, sizeof(roots) / sizeof(roots[0]))]);
	unsigned k = take(in, 5);
	for (unsigned i = 0; i < k && n < MAX_PATH - 64; i++) {
		const char *p;
		char raw[9];
		if (take(in, 4) == 0) {
			/* A raw component from the input. */
			unsigned len = 1 + take(in, 8);
			for (unsigned j = 0; j < len; j++)
				raw[j] = (char)(take(in, 255) + 1);
			raw[len] = '\0';
			p = raw;
		} else {
			p = parts[take(in, sizeof(parts) / sizeof(parts[0]))];
		}
		n += snprintf(out + n, (size_t)(MAX_PATH - n), "%s%s", strcmp(out, "/") ? "/" : "",
		              p);
	}
	if (take(in, 16) == 0) {
		/* Now and then a long one. */
		while (n < 1100)
			n += snprintf(out + n, (size_t)(MAX_PATH - n), "/long-component-%d", n);
	}
}

/* This file's own idea of a path a profile can name. */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		int k = (*p & 0xe0) == 0xc0   ? 1
		        : (*p & 0xf0) == 0xe0 ? 2
		        : (*p & 0xf8) == 0xf0 ? 3
		                              : -1;
		if (k < 0 || *p == 0xc0 || *p == 0xc1 || *p > 0xf4)
			return false;
		uint32_t cp = *p & (0x3f >> k);
		for (int j = 1; j <= k; j++) {
			if ((p[j] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[j] & 0x3f);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += k + 1;
	}
	return true;
}

static bool nameable(const char *p)
{
	if (!p || p[0] != '/' || strlen(p) > 1015 || !utf8_valid(p))
		return false;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	if (strcmp(p, "/") == 0)
		return true;
	if (p[strlen(p) - 1] == '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		return false;
	size_t n = strlen(p);
	if ((n >= 2 && strcmp(p + n - 2, "/.") == 0) || (n >= 3 && strcmp(p + n - 3, "/..") == 0))
		return false;
	return true;
}

static void canon(const char *p, char *out)
{
	static const char *const aliased[] = {"/tmp", "/var", "/etc"};
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(aliased[i]);
		if (strncmp(p, aliased[i], l) == 0 && (p[l] == '\0' || p[l] == '/')) {
			snprintf(out, MAX_PATH + 16, "/private%s", p);
			return;
		}
	}
	snprintf(out, MAX_PATH + 16, "%s", p);
}

struct plan {
	struct asb_entry e[14];
	uint32_t st[14];
	char host[14][MAX_PATH], dest[14][MAX_PATH];
	struct asb_exec x[4];
	uint32_t xst[4];
	char xname[4][16], xhost[4][MAX_PATH];
	struct asb_network net;
	uint16_t hp[3], pp[3];
	struct asb_seccomp_group sg[1];
	struct sbpl_input in;
	char tty[32];
};

static const char *const exec_names[] = {"git", "sh", "a b", "x\"", "..", "", "a/b", "\xff"};

static void build_plan(struct in *in, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	uint32_t n = take(in, 15);
	for (uint32_t i = 0; i < n; i++) {
		struct asb_entry *e = &p->e[i];
		uint32_t type = 1 + take(in, 9);
		make_path(in, p->host[i]);
		if (take(in, 5) == 0)
			make_path(in, p->dest[i]);
		else
			snprintf(p->dest[i], MAX_PATH, "%s", p->host[i]);
		if (type == ASB_ENTRY_DEVFS)
			snprintf(p->dest[i], MAX_PATH, "%s", take(in, 4) ? "/dev" : p->host[i]);
		*e = (struct asb_entry){
		    .struct_size = sizeof(*e),
		    .type = type,
		    .flags = take(in, 4),
		    .fd = -1,
		    .host_path = (type == ASB_ENTRY_READ || type == ASB_ENTRY_WRITE ||
		                  type == ASB_ENTRY_DEVICE || type == ASB_ENTRY_SYMLINK)
		                     ? p->host[i]
		                     : NULL,
		    .dest = p->dest[i],
		    .origin = "fuzz",
		    .data = "x",
		    .data_len = 1,
		};
		e->flags =
		    (take(in, 2) ? ASB_ENTRY_F_DIR : 0) | (take(in, 3) ? 0 : ASB_ENTRY_F_EXEC);
		p->st[i] = take(in, 4);
	}
	uint32_t nx = take(in, 5);
	for (uint32_t i = 0; i < nx; i++) {
		snprintf(p->xname[i], sizeof(p->xname[i]), "%s",
		         exec_names[take(in, sizeof(exec_names) / sizeof(exec_names[0]))]);
		make_path(in, p->xhost[i]);
		p->x[i] = (struct asb_exec){.struct_size = sizeof(p->x[i]),
		                            .name = p->xname[i],
		                            .host_path = p->xhost[i],
		                            .origin = "fuzz"};
		p->xst[i] = take(in, 4) == 0 ? SBPL_X_SETID : 0;
	}
	p->net = (struct asb_network){.struct_size = sizeof(p->net),
	                              .mode = take(in, 3),
	                              .flags = take(in, 4),
	                              .proxy_port = (uint16_t)(take(in, 8) ? 3128 : 0),
	                              .host_ports = p->hp,
	                              .published_ports = p->pp};
	p->net.n_host_ports = take(in, 4);
	p->net.n_published_ports = take(in, 4);
	static const uint16_t ports[] = {5432, 3128, 3000, 8080, 0, 22};
	for (int i = 0; i < 3; i++) {
		p->hp[i] = ports[take(in, 6)];
		p->pp[i] = ports[take(in, 6)];
	}
	p->sg[0] = (struct asb_seccomp_group){
	    .struct_size = sizeof(p->sg[0]), .denied = take(in, 2), .name = "unix_sockets"};
	p->in = (struct sbpl_input){
	    .entries = p->e,
	    .n_entries = n,
	    .entry_state = p->st,
	    .execs = p->x,
	    .n_execs = nx,
	    .exec_state = p->xst,
	    .net = take(in, 8) ? &p->net : NULL,
	    .seccomp = p->sg,
	    .n_seccomp = 1,
	    .home = "/Users/alice",
	    .private_dir = take(in, 16) ? "/Users/alice/.local/state/agentsandbox/s/seatbelt"
	                                : "/Users/alice/.local/state/\"x\\y\"/seatbelt",
	    .tty = take(in, 2) ? "/dev/ttys004" : NULL,
	    .env_shim = (int)take(in, 2),
	};
}

/* O1: is the refusal one the input calls for? */
static bool refusal_explained(const struct plan *p, int r)
{
	const struct sbpl_input *in = &p->in;
	bool bad = false, longish = false, unplaceable = false;
	for (uint32_t i = 0; i < in->n_entries; i++) {
		const struct asb_entry *e = &in->entries[i];
		bool hosted = e->type == ASB_ENTRY_READ || e->type == ASB_ENTRY_WRITE ||
		              e->type == ASB_ENTRY_DEVICE;
		if (!nameable(e->dest) || (hosted && !nameable(e->host_path)))
			bad = true;
		if (strlen(e->dest) > 120 || (e->host_path && strlen(e->host_path) > 120))
			longish = true;
		char a[MAX_PATH + 16], b[MAX_PATH + 16];
		canon(e->dest, a);
		if (hosted && e->host_path) {
			canon(e->host_path, b);
			if (strcmp(a, b) != 0)
				unplaceable = true;
		}
		if (e->type == ASB_ENTRY_FILE || e->type == ASB_ENTRY_SYMLINK)
			unplaceable = true; /* unless below a private directory */
		if (e->type == ASB_ENTRY_SYMLINK && !utf8_valid(e->host_path))
			bad = true;
		if (e->type == ASB_ENTRY_SYMLINK)
			for (const char *c = e->host_path; *c; c++)
				bad |= (unsigned char)*c < 0x20 || *c == 0x7f;
		if (e->type == ASB_ENTRY_SYMLINK && !e->host_path[0])
			bad = true;
		if (e->type == ASB_ENTRY_SYMLINK && strlen(e->host_path) > 120)
			longish = true;
		if (e->type == ASB_ENTRY_DEVFS && strcmp(a, "/dev") != 0)
			unplaceable = true;
	}
	for (uint32_t i = 0; i < in->n_execs; i++) {
		const char *nm = in->execs[i].name;
		if (!nm[0] || strchr(nm, '/') || !strcmp(nm, ".") || !strcmp(nm, "..") ||
		    !utf8_valid(nm) || !nameable(in->execs[i].host_path))
			bad = true;
		for (const char *c = nm; *c; c++)
			bad |= (unsigned char)*c < 0x20 || *c == 0x7f;
		if (strlen(in->execs[i].host_path) > 120)
			longish = true;
	}
	if (in->net && in->net->mode == ASB_NET_FILTERED && !in->net->proxy_port)
		bad = true;
	if (in->net)
		for (uint32_t i = 0; i < in->net->n_host_ports; i++)
			bad |= in->net->host_ports[i] == 0 &&
			       !(in->net->mode == ASB_NET_OPEN &&
			         (in->net->flags & ASB_NET_F_ALL_HOST_PORTS));
	if (in->net)
		for (uint32_t i = 0; i < in->net->n_published_ports; i++)
			bad |= in->net->published_ports[i] == 0;
	switch (r) {
	case -EINVAL:
		return bad;
	case -ENAMETOOLONG:
		return longish || bad;
	case -EOPNOTSUPP:
		return unplaceable;
	}
	return false;
}

static int eval_file(const struct sbe_profile *prof, int model, const char *path, int op)
{
	struct sbe_query q = {.op = ref_op_name(op), .path = path};
	if (op == REF_UNIX_CONNECT || op == REF_UNIX_BIND) {
		q.unix_socket = true;
		struct sbe_query s = {.op = "system-socket", .socket_domain = "AF_UNIX"};
		if (!sbe_decide(prof, model, &s, NULL))
			return 0;
	}
	return sbe_decide(prof, model, &q, NULL);
}

static void violation(const char *what, const char *path, int op, const char *profile)
{
	fprintf(stderr, "VIOLATION: %s: op %s path ", what, ref_op_name(op));
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		fprintf(stderr, (*c >= 0x20 && *c < 0x7f) ? "%c" : "\\x%02x", *c);
	fprintf(stderr, "\n--- profile ---\n%s\n", profile);
	abort();
}

static void check_path(const struct plan *p, const struct sbe_profile *prof,
                       const struct sbpl_layout *lay, const char *path, const char *text)
{
	if (!nameable(path))
		return;
	for (int op = 1; op <= REF_N_OPS; op++) {
		int a = eval_file(prof, SBE_FLAT, path, op);
		int b = eval_file(prof, SBE_SPECIFIC, path, op);
		if (a < 0 || b < 0)
			violation("the evaluator cannot answer", path, op, text);
		if (a != b)
			violation("the two readings of precedence disagree", path, op, text);
		if (a == 1 && !ref_file(&p->in, lay, path, op))
			violation("the profile grants what the plan does not", path, op, text);
	}
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* One path component as a case-insensitive volume compares it: ASCII in
 * lower case, and each character of fold_ascii.h as the letters it stands
 * for. */
static void fold_component(const char *c, size_t n, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 4 < size;) {
		const struct fold_ascii *hit = NULL;
		for (size_t f = 0; f < FOLD_ASCII_COUNT && !hit; f++) {
			size_t k = strlen(fold_ascii[f].utf8);
			if (i + k <= n && memcmp(c + i, fold_ascii[f].utf8, k) == 0)
				hit = &fold_ascii[f];
		}
		if (hit) {
			o += (size_t)snprintf(out + o, size - o, "%s", hit->ascii);
			i += strlen(hit->utf8);
		} else {
			out[o++] = (char)lower((unsigned char)c[i++]);
		}
	}
	out[o] = '\0';
}

/* Two different spellings of one path on a case-insensitive volume? The
 * same components up to some point, folded, but not as spelled. */
static bool fold_clash(const char *a, const char *b)
{
	while (*a && *b) {
		size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
		static char fa[MAX_PATH * 3 + 8], fb[MAX_PATH * 3 + 8];
		fold_component(a, na, fa, sizeof(fa));
		fold_component(b, nb, fb, sizeof(fb));
		if (strcmp(fa, fb) != 0)
			return false;
		if (na != nb || memcmp(a, b, na) != 0)
			return true;
		a += na + (a[na] == '/');
		b += nb + (b[nb] == '/');
	}
	return false;
}

/* A run of letters that ligatures stand for (f, i, l, s, t) longer than
 * three: the generator's regex may then go without ligatures (it would
 * not fit in a profile string), so no variant uses them. */
static bool long_ligature_run(const char *p)
{
	size_t run = 0;
	for (; *p; p++) {
		run = strchr("fFiIlLsStT", *p) ? run + 1 : 0;
		if (run > 3)
			return true;
	}
	return false;
}

static void variant(struct in *in, const char *path, char *out, size_t skip)
{
	size_t o = 0;
	/* Ligatures only where the regex surely has room for them. */
	bool ligatures = strlen(path) <= 48 && !long_ligature_run(path);
	for (size_t i = 0; path[i] && o < MAX_PATH; i++) {
		char c = path[i];
		unsigned r = i < skip ? 1 : take(in, 4);
		if (r == 0 && (c == 's' || c == 'S') && o + 2 < MAX_PATH) {
			out[o++] = (char)0xc5, out[o++] = (char)0xbf;
			continue;
		}
		if (r == 0 && (c == 'k' || c == 'K') && o + 3 < MAX_PATH) {
			out[o++] = (char)0xe2, out[o++] = (char)0x84, out[o++] = (char)0xaa;
			continue;
		}
		if (r == 3 && ligatures) {
			/* One character for two or three letters (ß, ﬁ, ...). */
			const struct fold_ascii *hit = NULL;
			for (size_t f = 0; f < FOLD_ASCII_COUNT && !hit; f++) {
				const char *a = fold_ascii[f].ascii;
				size_t k = strlen(a), m = 0;
				while (m < k && path[i + m] &&
				       lower((unsigned char)path[i + m]) == a[m])
					m++;
				if (k > 1 && m == k && o + strlen(fold_ascii[f].utf8) < MAX_PATH)
					hit = &fold_ascii[f];
			}
			if (hit) {
				o += (size_t)snprintf(out + o, MAX_PATH + 64 - o, "%s", hit->utf8);
				i += strlen(hit->ascii) - 1;
				continue;
			}
		}
		if (r == 2 && c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		else if (r == 2 && c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		out[o++] = c;
	}
	out[o] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan p;
	struct in in = {data, size, 0};
	build_plan(&in, &p);
	char why[512] = "", *text = NULL;
	size_t len = 0;
	int r = sbpl_generate(&p.in, &text, &len, why, sizeof(why));
	if (r < 0) {
		if (r == -ENOMEM || !refusal_explained(&p, r)) {
			fprintf(stderr, "VIOLATION: refused without cause: %d %s\n", r, why);
			abort();
		}
		return 0;
	}
	struct sbe_profile *prof = NULL;
	char err[256];
	if (sbe_parse(text, len, &prof, err, sizeof(err)) < 0) {
		fprintf(stderr, "VIOLATION: the profile does not parse: %s\n%s\n", err, text);
		abort();
	}
	struct sbpl_layout lay;
	if (sbpl_layout_build(&p.in, &lay, why, sizeof(why)) < 0) {
		fprintf(stderr, "VIOLATION: a profile without a layout: %s\n", why);
		abort();
	}

	/* O3 over the plan's own paths and their neighbours. */
	static char probe[MAX_PATH + 64], c[MAX_PATH + 16];
	const struct sbpl_input *pin = &p.in;
	for (uint32_t i = 0; i < pin->n_entries; i++) {
		const char *paths[2] = {pin->entries[i].dest, pin->entries[i].host_path};
		for (int k = 0; k < 2; k++) {
			if (!paths[k] || !nameable(paths[k]))
				continue;
			canon(paths[k], c);
			check_path(&p, prof, &lay, c, text);
			snprintf(probe, sizeof(probe), "%s/x", strcmp(c, "/") ? c : "");
			check_path(&p, prof, &lay, probe, text);
			snprintf(probe, sizeof(probe), "%s", c);
			char *slash = strrchr(probe, '/');
			if (slash && slash != probe) {
				*slash = '\0';
				check_path(&p, prof, &lay, probe, text);
			}
		}
	}
	static const char *const fixed[] = {
	    "/Users/alice/.ssh/id_ed25519",
	    "/Users/alice/.ssh",
	    "/Users/alice/.config/gh/hosts.yml",
	    "/Users/alice/Library/Keychains/login.keychain-db",
	    "/Users/alice/src/project/.git/hooks/pre-commit",
	    "/usr/bin/perl",
	    "/",
	    "/dev/null",
	    "/private/tmp/x",
	    "/Users/alice/.local/state/agentsandbox/s/seatbelt/home/x",
	    "/Users/alice/.local/state/agentsandbox/s/seatbelt/bin/git",
	    "/private/var/run/mDNSResponder",
	    "/System/Volumes/Data/Users/alice/.ssh/id_ed25519"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_path(&p, prof, &lay, fixed[i], text);
	for (int i = 0; i < 4; i++) {
		make_path(&in, probe);
		canon(probe, c);
		check_path(&p, prof, &lay, c, text);
	}
	static const char *const addrs[] = {"127.0.0.1", "::1", "93.184.216.34", "0.0.0.0"};
	static const unsigned qports[] = {3128, 5432, 3000, 443};
	for (size_t a = 0; a < 4; a++)
		for (size_t k = 0; k < 4; k++)
			for (int proto = 1; proto <= 2; proto++) {
				int ok = sbe_may_connect(prof, addrs[a], qports[k], proto);
				if (ok < 0 ||
				    (ok == 1 && !ref_connect(pin, addrs[a], qports[k], proto)))
					violation("a connection the plan does not allow", addrs[a],
					          REF_UNIX_CONNECT, text);
				ok = sbe_may_bind(prof, addrs[a], qports[k], proto);
				if (ok < 0 ||
				    (ok == 1 && !ref_bind(pin, addrs[a], qports[k], proto)))
					violation("a listener the plan does not allow", addrs[a],
					          REF_UNIX_BIND, text);
			}

	/* O4: case variants of what is denied, when the plan spells every path
	 * one way. */
	bool clash = false;
	const char *spell[32];
	size_t n_spell = 0;
	static char cs[20][MAX_PATH + 16];
	for (uint32_t i = 0; i < pin->n_entries && n_spell < 14; i++)
		if (nameable(pin->entries[i].dest)) {
			canon(pin->entries[i].dest, cs[n_spell]);
			spell[n_spell] = cs[n_spell];
			n_spell++;
		}
	for (uint32_t i = 0; i < pin->n_execs && n_spell < 14 + 4; i++)
		if (nameable(pin->execs[i].host_path)) {
			canon(pin->execs[i].host_path, cs[n_spell]);
			spell[n_spell] = cs[n_spell];
			n_spell++;
		}
	spell[n_spell++] = "/Users/alice/.ssh";
	spell[n_spell++] = "/Users/alice/.config/gh";
	for (size_t i = 0; i < n_spell && !clash; i++)
		for (size_t j = i + 1; j < n_spell && !clash; j++)
			clash = fold_clash(spell[i], spell[j]) || fold_clash(spell[j], spell[i]);
	for (size_t i = 0; i < n_spell && !clash; i++) {
		static char v[MAX_PATH + 64];
		snprintf(probe, sizeof(probe), "%s%s", spell[i], take(&in, 2) ? "/x" : "");
		variant(&in, probe, v, take(&in, 2) ? 0 : strlen("/Users/alice"));
		if (!nameable(v) || strcmp(v, probe) == 0)
			continue;
		for (int op = 1; op <= REF_EXEC; op++) {
			if (ref_file(pin, &lay, probe, op))
				continue;
			if (eval_file(prof, SBE_FLAT, v, op) == 1 ||
			    eval_file(prof, SBE_SPECIFIC, v, op) == 1)
				violation("a case variant of a denied path is allowed", v, op,
				          text);
		}
	}

	sbpl_layout_free(&lay);
	sbe_free(prof);
	free(text);
	return 0;
}
