/* SPDX-License-Identifier: MIT */
/*
 * What seatbelt places in its private directory, since it cannot mount
 * anything: the PATH directory (one link per executable), a private home and
 * temporary directories for the plan's EPHEMERAL entries there, with links
 * from the private home to the declared paths below the real one, and the
 * generated files and symlinks the plan puts inside those private
 * directories. Also checks every path of the plan and makes it canonical.
 */
#include "sbpl_int.h"
#include "sbpl_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t sbpl_entry_state(const struct sbpl_input *in, uint32_t i)
{
	return in->entry_state ? in->entry_state[i] : SBPL_ST_EXISTS;
}

static int fail(char *why, size_t why_len, int err, const char *fmt, ...) SBPL_PRINTF(4, 5);
static int fail(char *why, size_t why_len, int err, const char *fmt, ...)
{
	if (why && why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* The fixed macOS symlinks into /private: the kernel reports the target. */
int sbpl_canonical(const char *path, char **out, const char **reason)
{
	int r = sbpl_path_check(path, reason);
	if (r < 0)
		return r;
	static const char *const aliased[] = {"/tmp", "/var", "/etc"};
	for (size_t i = 0; i < sizeof(aliased) / sizeof(aliased[0]); i++) {
		if (!sbpl_within(path, aliased[i]))
			continue;
		if (strlen(path) + 8 > SBPL_PATH_MAX) {
			if (reason)
				*reason = "longer than macOS allows (1023 bytes)";
			return -ENAMETOOLONG;
		}
		size_t n = strlen(path) + 9;
		char *c = malloc(n);
		if (!c)
			return -ENOMEM;
		snprintf(c, n, "/private%s", path);
		*out = c;
		return 0;
	}
	return (*out = strdup(path)) ? 0 : -ENOMEM;
}

static char *join(const char *dir, const char *rel)
{
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s%s", dir, rel[0] == '/' ? "" : "/", rel);
	return s;
}

static int add_place(struct sbpl_layout *l, uint32_t kind, char *path, char *target, uint32_t mode)
{
	if (!path || (kind == SBPL_PLACE_LINK && !target)) {
		free(path);
		free(target);
		return -ENOMEM;
	}
	struct sbpl_place *n = realloc(l->places, (l->n_places + 1) * sizeof(*n));
	if (!n) {
		free(path);
		free(target);
		return -ENOMEM;
	}
	l->places = n;
	l->places[l->n_places++] =
	    (struct sbpl_place){.kind = kind, .path = path, .target = target, .mode = mode};
	return 0;
}

static struct sbpl_place *find_place(struct sbpl_layout *l, const char *path)
{
	for (size_t i = 0; i < l->n_places; i++)
		if (strcmp(l->places[i].path, path) == 0)
			return &l->places[i];
	return NULL;
}

/* Is `path` at or below a link already placed? */
static bool under_link(struct sbpl_layout *l, const char *path)
{
	for (size_t i = 0; i < l->n_places; i++)
		if (l->places[i].kind == SBPL_PLACE_LINK && sbpl_within(path, l->places[i].path))
			return true;
	return false;
}

/* Directories from `root` (placed already) down to `path`'s parent. */
static int add_parents(struct sbpl_layout *l, const char *root, const char *path)
{
	size_t rl = strlen(root);
	for (const char *s = strchr(path + rl + 1, '/'); s; s = strchr(s + 1, '/')) {
		char *dir = strndup(path, (size_t)(s - path));
		if (!dir)
			return -ENOMEM;
		if (find_place(l, dir)) {
			free(dir);
			continue;
		}
		int r = add_place(l, SBPL_PLACE_DIR, dir, NULL, 0700);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_env(struct sbpl_layout *l, const char *key, char *value)
{
	if (!value)
		return -ENOMEM;
	struct sbpl_env *n = realloc(l->env, (l->n_env + 1) * sizeof(*n));
	if (!n) {
		free(value);
		return -ENOMEM;
	}
	l->env = n;
	l->env[l->n_env++] = (struct sbpl_env){key, value};
	return 0;
}

static int note(struct sbpl_layout *l, const char *fmt, ...) SBPL_PRINTF(2, 3);
static int note(struct sbpl_layout *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char line[2048];
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	char **n = realloc(l->notes, (l->n_notes + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->notes = n;
	if (!(l->notes[l->n_notes] = strdup(line)))
		return -ENOMEM;
	l->n_notes++;
	return 0;
}

void sbpl_layout_free(struct sbpl_layout *l)
{
	free(l->bin_dir);
	for (size_t i = 0; i < l->n_places; i++) {
		free(l->places[i].path);
		free(l->places[i].target);
	}
	free(l->places);
	for (size_t i = 0; i < l->n_env; i++)
		free(l->env[i].value);
	free(l->env);
	for (size_t i = 0; i < l->n_notes; i++)
		free(l->notes[i]);
	free(l->notes);
	*l = (struct sbpl_layout){0};
}

void sbpl_plan_free(struct sbpl_plan *p)
{
	uint32_t n = p->in ? p->in->n_entries : 0;
	for (uint32_t i = 0; i < n; i++) {
		if (p->dest)
			free(p->dest[i]);
		if (p->host)
			free(p->host[i]);
		if (p->xlat)
			free(p->xlat[i]);
		if (p->subst)
			free(p->subst[i]);
	}
	free(p->dest);
	free(p->host);
	free(p->xlat);
	free(p->subst);
	free(p->how);
	free(p->home);
	free(p->private_dir);
	free(p->tty);
	sbpl_layout_free(&p->lay);
	*p = (struct sbpl_plan){0};
}

static const char *type_name(uint32_t t)
{
	static const char *const names[] = {"?",    "READ", "WRITE",   "DEVICE", "EPHEMERAL",
	                                    "MASK", "FILE", "SYMLINK", "PROC",   "DEVFS"};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static int canon_field(const char *what, const char *path, char **out, char *why, size_t why_len)
{
	const char *reason = "?";
	int r = sbpl_canonical(path, out, &reason);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		struct sbpl_buf b;
		sbpl_buf_init(&b);
		sbpl_comment(&b, path ? path : "(none)");
		/* The name as the comment writer escapes it, without ";; " and "\n". */
		const char *shown = b.data ? b.data + 3 : "";
		if (b.data)
			b.data[b.len - 1] = '\0';
		fail(why, why_len, r, "%s: %s: %s; seatbelt cannot name it in a profile", what,
		     shown, reason);
		sbpl_buf_free(&b);
		return r;
	}
	return 0;
}

static bool exec_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n > 0 && n <= 255 && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0 && sbpl_text_ok(name, n);
}

/* The private directory an EPHEMERAL at `dest` gets, if it has an
 * equivalent: the home and the temporary directories, which programs find
 * through HOME and TMPDIR rather than by their path. */
static int subst_for(const struct sbpl_plan *p, const char *dest, const char **name,
                     const char **env)
{
	if (strcmp(dest, p->home) == 0)
		*name = "home", *env = "HOME";
	else if (strcmp(dest, "/private/tmp") == 0)
		*name = "tmp", *env = "TMPDIR";
	else if (strcmp(dest, "/private/var/tmp") == 0)
		*name = "var-tmp", *env = NULL;
	else
		return 0;
	return 1;
}

/* Where `dest` lands when it is below an earlier EPHEMERAL given as a private
 * directory: that directory plus the rest of the path. */
static char *translate(const struct sbpl_plan *p, uint32_t before, const char *dest, uint32_t *from)
{
	for (uint32_t j = before; j-- > 0;) {
		if (!p->subst[j] || !sbpl_within(dest, p->dest[j]))
			continue;
		*from = j;
		return join(p->subst[j], dest + strlen(p->dest[j]));
	}
	return NULL;
}

static int check_paths(const struct sbpl_input *in, struct sbpl_plan *p, char *why, size_t why_len)
{
	int r;
	if ((r = canon_field("home", in->home, &p->home, why, why_len)) < 0 ||
	    (r = canon_field("private directory", in->private_dir, &p->private_dir, why, why_len)) <
	        0)
		return r;
	if (strcmp(p->private_dir, "/") == 0)
		return fail(why, why_len, -EINVAL, "the private directory cannot be /");
	if (in->tty && (r = canon_field("terminal", in->tty, &p->tty, why, why_len)) < 0)
		return r;
	for (uint32_t i = 0; i < in->n_entries; i++) {
		const struct asb_entry *e = &in->entries[i];
		char what[96];
		snprintf(what, sizeof(what), "%s entry %u", type_name(e->type), (unsigned)i);
		const char *dest = e->dest ? e->dest : e->host_path;
		switch (e->type) {
		case ASB_ENTRY_READ:
		case ASB_ENTRY_WRITE:
		case ASB_ENTRY_DEVICE:
			if ((r = canon_field(what, e->host_path, &p->host[i], why, why_len)) < 0 ||
			    (r = canon_field(what, dest, &p->dest[i], why, why_len)) < 0)
				return r;
			if (strcmp(p->host[i], p->dest[i]) != 0)
				return fail(
				    why, why_len, -EOPNOTSUPP,
				    "%s: %s would appear at %s; seatbelt leaves files where "
				    "they are and cannot remap them (declare it at its own "
				    "path)",
				    e->origin ? e->origin : what, p->host[i], p->dest[i]);
			break;
		case ASB_ENTRY_SYMLINK:
			if (e->host_path && strlen(e->host_path) > SBPL_PATH_MAX)
				return fail(why, why_len, -ENAMETOOLONG,
				            "%s: a symlink target longer than macOS allows", what);
			if (!e->host_path || !e->host_path[0] ||
			    !sbpl_text_ok(e->host_path, strlen(e->host_path)))
				return fail(why, why_len, -EINVAL,
				            "%s: a symlink target that is empty or not text", what);
			if (!(p->host[i] = strdup(e->host_path)))
				return -ENOMEM;
			/* fallthrough */
		case ASB_ENTRY_EPHEMERAL:
		case ASB_ENTRY_MASK:
		case ASB_ENTRY_FILE:
		case ASB_ENTRY_PROC:
		case ASB_ENTRY_DEVFS:
			if ((r = canon_field(what, dest, &p->dest[i], why, why_len)) < 0)
				return r;
			break;
		default:
			return fail(why, why_len, -EOPNOTSUPP, "%s: unknown entry type %u", what,
			            (unsigned)e->type);
		}
		if (e->type == ASB_ENTRY_DEVFS && strcmp(p->dest[i], "/dev") != 0)
			return fail(why, why_len, -EOPNOTSUPP,
			            "%s: a device filesystem at %s; macOS has one /dev", what,
			            p->dest[i]);
	}
	for (uint32_t i = 0; i < in->n_execs; i++) {
		const struct asb_exec *x = &in->execs[i];
		char *c = NULL;
		if (!exec_name_ok(x->name))
			return fail(why, why_len, -EINVAL,
			            "executable %u: its name is empty, holds a slash or a control "
			            "character, or is not valid UTF-8",
			            (unsigned)i);
		if ((r = canon_field(x->name, x->host_path, &c, why, why_len)) < 0)
			return r;
		free(c);
	}
	return 0;
}

static int place_subst(struct sbpl_plan *p, uint32_t i)
{
	const char *name = NULL, *env = NULL;
	struct sbpl_layout *l = &p->lay;
	uint32_t from = 0;
	char *inner = translate(p, i, p->dest[i], &from);
	int r;
	if (inner) {
		/* Below an earlier private directory: a directory inside it, unless a
		 * link to a declared path is in the way. */
		if (under_link(l, inner) || find_place(l, inner)) {
			free(inner);
			p->how[i] = SBPL_HOW_SEALED;
			return note(l, "EPHEMERAL %s: sealed (a declared path is there)",
			            p->dest[i]);
		}
		if ((r = add_parents(l, p->subst[from], inner)) < 0 ||
		    (r = add_place(l, SBPL_PLACE_DIR, strdup(inner), NULL, 0700)) < 0) {
			free(inner);
			return r;
		}
		p->subst[i] = inner;
		p->xlat[i] = strdup(inner);
		p->how[i] = SBPL_HOW_SUBST;
		return p->xlat[i] ? note(l, "EPHEMERAL %s: the directory %s", p->dest[i], inner)
		                  : -ENOMEM;
	}
	if (!subst_for(p, p->dest[i], &name, &env)) {
		p->how[i] = SBPL_HOW_SEALED;
		return note(l,
		            "EPHEMERAL %s: sealed (nothing of the host there is readable or "
		            "writable; no private directory can be put at that path)",
		            p->dest[i]);
	}
	for (uint32_t j = 0; j < i; j++)
		if (p->subst[j] && strcmp(p->dest[j], p->dest[i]) == 0) {
			/* The same directory again: it stays the one directory. */
			p->subst[i] = strdup(p->subst[j]);
			p->how[i] = SBPL_HOW_SUBST;
			return p->subst[i] ? 0 : -ENOMEM;
		}
	if (!(p->subst[i] = join(p->private_dir, name)))
		return -ENOMEM;
	p->how[i] = SBPL_HOW_SUBST;
	if ((r = add_place(l, SBPL_PLACE_DIR, strdup(p->subst[i]), NULL, 0700)) < 0)
		return r;
	if (env) {
		size_t n = strlen(p->subst[i]) + 2;
		char *v = malloc(n);
		if (v)
			snprintf(v, n, "%s%s", p->subst[i], strcmp(env, "TMPDIR") == 0 ? "/" : "");
		if ((r = add_env(l, env, v)) < 0)
			return r;
	}
	return note(l, "EPHEMERAL %s: the private directory %s%s%s", p->dest[i], p->subst[i],
	            env ? ", " : "", env ? env : "");
}

/* Links from a private directory to the declared paths below the path it
 * stands for (~/.claude in the private home leads to the real ~/.claude),
 * shallowest first: a link covers everything below it. */
static int place_links(struct sbpl_plan *p)
{
	const struct sbpl_input *in = p->in;
	struct sbpl_layout *l = &p->lay;
	for (size_t depth = 1; depth <= SBPL_PATH_MAX / 2; depth++) {
		bool any = false;
		for (uint32_t i = 0; i < in->n_entries; i++) {
			uint32_t t = in->entries[i].type, from = 0;
			if (t != ASB_ENTRY_READ && t != ASB_ENTRY_WRITE && t != ASB_ENTRY_DEVICE)
				continue;
			char *inner = translate(p, i, p->dest[i], &from);
			if (!inner)
				continue;
			size_t d = 0;
			for (const char *c = inner + strlen(p->subst[from]); *c; c++)
				d += *c == '/';
			if (d < depth) {
				free(inner);
				continue;
			}
			any = true;
			if (d > depth || strcmp(inner, p->subst[from]) == 0 ||
			    under_link(l, inner)) {
				free(inner);
				continue;
			}
			struct sbpl_place *there = find_place(l, inner);
			if (there) {
				free(inner);
				continue; /* a private directory placed there stays */
			}
			int r = add_parents(l, p->subst[from], inner);
			if (r < 0) {
				free(inner);
				return r;
			}
			if ((r = add_place(l, SBPL_PLACE_LINK, inner, strdup(p->dest[i]), 0)) < 0)
				return r;
		}
		if (!any)
			break;
	}
	return 0;
}

/* Generated files and symlinks can be placed only inside a private
 * directory; elsewhere seatbelt has no way to make them appear. */
static int place_files(struct sbpl_plan *p, char *why, size_t why_len)
{
	const struct sbpl_input *in = p->in;
	struct sbpl_layout *l = &p->lay;
	for (uint32_t i = 0; i < in->n_entries; i++) {
		const struct asb_entry *e = &in->entries[i];
		if (e->type != ASB_ENTRY_FILE && e->type != ASB_ENTRY_SYMLINK)
			continue;
		uint32_t from = 0;
		char *inner = translate(p, i, p->dest[i], &from);
		if (!inner && e->type == ASB_ENTRY_SYMLINK &&
		    (sbpl_entry_state(in, i) & SBPL_ST_AS_IS))
			continue; /* already on the host as asked */
		if (!inner || under_link(l, inner) || find_place(l, inner)) {
			free(inner);
			return fail(why, why_len, -EOPNOTSUPP,
			            "%s: a generated %s at %s; seatbelt can only place one inside "
			            "its private home or temporary directory",
			            e->origin ? e->origin : "plan",
			            e->type == ASB_ENTRY_FILE ? "file" : "symlink", p->dest[i]);
		}
		int r = add_parents(l, p->subst[from], inner);
		if (r < 0) {
			free(inner);
			return r;
		}
		if (!(p->xlat[i] = strdup(inner))) {
			free(inner);
			return -ENOMEM;
		}
		if (e->type == ASB_ENTRY_FILE) {
			if ((r = add_place(l, SBPL_PLACE_FILE, inner, NULL,
			                   e->mode ? e->mode : 0444)) < 0)
				return r;
			l->places[l->n_places - 1].data = e->data;
			l->places[l->n_places - 1].data_len = e->data ? e->data_len : 0;
		} else if ((r = add_place(l, SBPL_PLACE_LINK, inner, strdup(p->host[i]), 0)) < 0) {
			return r;
		}
		p->how[i] = 1;
	}
	return 0;
}

int sbpl_plan_prepare(const struct sbpl_input *in, struct sbpl_plan *p, char *why, size_t why_len)
{
	*p = (struct sbpl_plan){.in = in};
	size_t n = in->n_entries ? in->n_entries : 1;
	p->dest = calloc(n, sizeof(char *));
	p->host = calloc(n, sizeof(char *));
	p->xlat = calloc(n, sizeof(char *));
	p->subst = calloc(n, sizeof(char *));
	p->how = calloc(n, 1);
	if (!p->dest || !p->host || !p->xlat || !p->subst || !p->how)
		return -ENOMEM;
	int r = check_paths(in, p, why, why_len);
	if (r < 0)
		return r;
	struct sbpl_layout *l = &p->lay;
	if (!(l->bin_dir = join(p->private_dir, "bin")))
		return -ENOMEM;
	if ((r = add_place(l, SBPL_PLACE_DIR, strdup(l->bin_dir), NULL, 0755)) < 0)
		return r;
	for (uint32_t i = 0; i < in->n_execs; i++) {
		char *link = join(l->bin_dir, in->execs[i].name);
		if (link && find_place(l, link)) {
			free(link);
			continue; /* the first of a name wins, as on PATH */
		}
		if ((r = add_place(l, SBPL_PLACE_LINK, link, strdup(in->execs[i].host_path), 0)) <
		    0)
			return r;
	}
	if ((r = add_env(l, "PATH", strdup(l->bin_dir))) < 0)
		return r;
	for (uint32_t i = 0; i < in->n_entries; i++)
		if (in->entries[i].type == ASB_ENTRY_EPHEMERAL && (r = place_subst(p, i)) < 0)
			return r;
	if ((r = place_links(p)) < 0 || (r = place_files(p, why, why_len)) < 0)
		return r;
	/* A mask below a private directory holds there too, unless a link to a
	 * declared path leads on: its real path is masked already. */
	for (uint32_t i = 0; i < in->n_entries; i++) {
		uint32_t from = 0;
		if (in->entries[i].type != ASB_ENTRY_MASK)
			continue;
		char *inner = translate(p, i, p->dest[i], &from);
		if (inner && under_link(l, inner)) {
			free(inner);
			inner = NULL;
		}
		p->xlat[i] = inner;
	}
	return 0;
}

int sbpl_layout_build(const struct sbpl_input *in, struct sbpl_layout *out, char *why,
                      size_t why_len)
{
	struct sbpl_plan p;
	int r = sbpl_plan_prepare(in, &p, why, why_len);
	if (r >= 0) {
		*out = p.lay;
		p.lay = (struct sbpl_layout){0};
	}
	sbpl_plan_free(&p);
	return r;
}
