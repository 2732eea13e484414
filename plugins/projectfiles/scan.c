/* SPDX-License-Identifier: MIT */
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "name_fold.h"
#include "util.h"

/* Not walked into: dependencies and build output (nobody opens a package
 * in node_modules as a project), git dirs (the git plugin's), and the
 * list's own directories (protected whole). */
static const char *const skipped[] = {
    ".git",        "node_modules", "target", "dist",    "build",       ".venv", "venv",
    "__pycache__", ".cache",       ".tox",   ".gradle", ".mypy_cache", NULL,
};

/* A first component folded (name_fold.h): how a case-insensitive volume
 * may list it. */
struct folded_first {
	char *key;
	const char *first;
};

struct walk {
	const struct pf_options *o;
	struct pf_result *r;
	const struct pf_root *root;
	const struct strv *firsts;         /* the list's first components, sorted */
	const struct folded_first *folded; /* the same folded, sorted by key */
	uint64_t first_bytes[4];           /* the bytes the keys start with, a bit each */
};

static void note_byte(uint64_t set[4], unsigned char c)
{
	set[c / 64] |= (uint64_t)1 << (c % 64);
}

static bool has_byte(const uint64_t set[4], unsigned char c)
{
	return set[c / 64] & ((uint64_t)1 << (c % 64));
}

struct qitem {
	char *rel; /* "" for the root */
	unsigned depth;
};

static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p = ncap <= SIZE_MAX / elem ? realloc(*arr, ncap * elem) : NULL;
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static char *at(const char *base, const char *rel)
{
	return rel[0] ? path_join(base, rel) : strdup(base);
}

/* 'd', 'f' (anything but a directory or a symlink), 'l', 0 missing, -errno. */
static int kind_of(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	return S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : 'f';
}

/* An empty directory or file of the entry's kind: nothing to protect, and
 * most likely the mount point of another sandbox's mask on this project. */
static bool empty_of_kind(const char *path, const struct pf_entry *e, int k)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return false;
	if (e->kind == PF_FILE)
		return k == 'f' && S_ISREG(st.st_mode) && st.st_size == 0;
	if (e->kind != PF_DIR || k != 'd')
		return false;
	_cleanup_closedir_ DIR *d = opendir(path);
	if (!d)
		return false;
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			return false;
	return true;
}

static int add(struct walk *w, int op, const char *rel, const struct pf_entry *e, int placeholder)
{
	struct pf_result *r = w->r;
	struct pf_action a = {.op = op, .placeholder = placeholder, .entry = e};
	a.host = at(w->root->host, rel);
	a.dest = at(w->root->dest, rel);
	int ret = a.host && a.dest ? 0 : -ENOMEM;
	/* One action per path: the first (a mask of .claude covers its entries),
	 * but that a directory was only bound over itself to hold what is
	 * protected in it yields to protecting it whole (an extra ".claude/"). */
	for (size_t i = 0; ret >= 0 && i < r->n; i++) {
		if (strcmp(r->v[i].dest, a.dest) != 0)
			continue;
		if (r->v[i].op == PF_OP_PIN && op != PF_OP_PIN && op != PF_OP_MKDIR_PIN) {
			free(r->v[i].host);
			free(r->v[i].dest);
			r->v[i] = a;
			return 0;
		}
		ret = 1;
	}
	if (ret == 0)
		ret = grow(&r->v, &r->cap, r->n, sizeof(*r->v));
	if (ret != 0) {
		free(a.host);
		free(a.dest);
		return ret < 0 ? ret : 0;
	}
	r->v[r->n++] = a;
	return 0;
}

static int refuse(struct walk *w, const char *rel, int err)
{
	if (w->o->audit)
		return 0;
	free(w->r->error_path);
	w->r->error_path = at(w->root->host, rel);
	return err;
}

/* Every directory between the root and `rel` (exclusive) bound over itself. */
static int pin_parents(struct walk *w, const char *rel)
{
	if (w->o->audit)
		return 0;
	_cleanup_free_ char *copy = strdup(rel);
	if (!copy)
		return -ENOMEM;
	for (char *slash = strchr(copy, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		int ret = add(w, PF_OP_PIN, copy, NULL, 0);
		*slash = '/';
		if (ret < 0)
			return ret;
	}
	return 0;
}

static bool left_writable_below(const struct pf_options *o, const char *parent)
{
	size_t n = strlen(parent);
	for (const char *const *p = o->writable; p && *p; p++)
		if (strncmp(*p, parent, n) == 0 && (*p)[n] == '/')
			return true;
	return false;
}

/* One list entry in the directory `dir` (relative to the root), its first
 * component spelled as the directory lists it (`listed`), or NULL where the
 * listing has no name that is it (name_fold.h: nor one a case-insensitive
 * file system takes for it): missing, without an lstat to ask. */
static int check_entry(struct walk *w, const char *dir, const struct pf_entry *e, bool at_root,
                       const char *listed)
{
	_cleanup_free_ char *path =
	    listed ? str_printf("%s%s", listed, e->path + strcspn(e->path, "/")) : strdup(e->path);
	_cleanup_free_ char *rel = !path ? NULL : dir[0] ? path_join(dir, path) : strdup(path);
	_cleanup_free_ char *host = rel ? at(w->root->host, rel) : NULL;
	if (!host)
		return -ENOMEM;
	const char *slash = strchr(path, '/');
	_cleanup_free_ char *parent_rel = NULL;
	if (slash) {
		/* An entry one level down (.claude/settings.json): its parent first. */
		_cleanup_free_ char *top = strndup(path, (size_t)(slash - path));
		if (top)
			parent_rel = dir[0] ? path_join(dir, top) : strdup(top);
		_cleanup_free_ char *parent_host =
		    parent_rel ? at(w->root->host, parent_rel) : NULL;
		if (!parent_host)
			return -ENOMEM;
		int pk = listed ? kind_of(parent_host) : 0;
		if (pk < 0)
			return refuse(w, parent_rel, pk);
		if (pk == 'l')
			return w->o->audit ? add(w, PF_OP_RO, parent_rel, e, 0)
			                   : refuse(w, parent_rel, -ELOOP);
		if (pk == 'f')
			return 0; /* the tool cannot use it either */
		if (pk == 0) {
			if (!at_root || e->missing != PF_MASK || w->o->audit)
				return 0;
			/* Nothing under it left writable: one mask covers all of it.
			 * Else it is made (and pinned) so that each can be masked. */
			_cleanup_free_ char *first = strndup(e->path, strcspn(e->path, "/"));
			if (!first)
				return -ENOMEM;
			if (!left_writable_below(w->o, first))
				return add(w, PF_OP_MASK_DIR, parent_rel, e, 1);
			int ret = add(w, PF_OP_MKDIR_PIN, parent_rel, NULL, 1);
			return ret < 0
			           ? ret
			           : add(w, e->kind == PF_DIR ? PF_OP_MASK_DIR : PF_OP_MASK_FILE,
			                 rel, e, 1);
		}
	}
	int k = listed ? kind_of(host) : 0;
	if (k < 0)
		return refuse(w, rel, k);
	if (k == 'l')
		return w->o->audit ? add(w, PF_OP_RO, rel, e, 0) : refuse(w, rel, -ELOOP);
	if (k == 0) {
		if (!at_root || e->missing != PF_MASK || w->o->audit)
			return 0;
		int ret = parent_rel ? add(w, PF_OP_PIN, parent_rel, NULL, 0) : 0;
		return ret < 0 ? ret
		               : add(w, e->kind == PF_DIR ? PF_OP_MASK_DIR : PF_OP_MASK_FILE, rel,
		                     e, 1);
	}
	int ret = pin_parents(w, rel);
	if (ret >= 0 && at_root && e->missing == PF_MASK && !w->o->audit &&
	    empty_of_kind(host, e, k))
		/* Masked as if missing (a concurrent sandbox's mount point would
		 * otherwise turn a directory its tool writes to read-only here),
		 * and removed after exit if still empty, like ours: the lock on
		 * its parent keeps that sandbox from removing it meanwhile. */
		return add(w, e->kind == PF_DIR ? PF_OP_MASK_DIR : PF_OP_MASK_FILE, rel, e, 1);
	return ret < 0 ? ret : add(w, PF_OP_RO, rel, e, 0);
}

static bool is_skipped(const char *name)
{
	for (const char *const *s = skipped; *s; s++)
		if (strcmp(*s, name) == 0)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded_first *)a)->key, ((const struct folded_first *)b)->key);
}

/* Does `name` start a list entry ("x" or "x/...")? */
static bool starts_entry(const struct pf_entry *e, const char *name, size_t n)
{
	return strncmp(e->path, name, n) == 0 && (e->path[n] == '\0' || e->path[n] == '/');
}

/* Each of the list's first components that the entry `n` of the directory
 * (fd, or host where fd < 0) is, pushed to found (and n to spelled): that
 * spelling, and any the list has that a case-insensitive file system takes
 * for it (name_fold.h; two may fold alike, an extra ".Claude" beside
 * ".claude"). One that no entry is named by is missing (check_entry). The
 * number pushed, or -ENOMEM. */
static int firsts_listed_as(const struct walk *w, int fd, const char *host, const char *n,
                            struct strv *found, struct strv *spelled)
{
	const char *const *hit = bsearch(&n, w->firsts->v, w->firsts->n, sizeof(char *), cmp_str);
	int pushed = 0, r;
	if (hit) {
		if ((r = strv_push(found, *hit)) < 0 || (r = strv_push(spelled, n)) < 0)
			return r;
		pushed++;
	}
	char key[NAME_MAX + 1];
	if (name_fold(n, key, sizeof(key)) >= sizeof(key))
		return pushed;
	size_t nf = w->firsts->n;
	const struct folded_first k = {.key = key};
	const struct folded_first *f = bsearch(&k, w->folded, nf, sizeof(k), cmp_folded);
	while (f && f > w->folded && strcmp(f[-1].key, key) == 0)
		f--;
	for (; f && f < w->folded + nf && strcmp(f->key, key) == 0; f++) {
		if ((hit && f->first == *hit) || !name_resolves_to(fd, host, n, f->first))
			continue;
		if ((r = strv_push(found, f->first)) < 0 || (r = strv_push(spelled, n)) < 0)
			return r;
		pushed++;
	}
	return pushed;
}

/* The entries a directory holds (read once: one lstat per entry found, not
 * per entry listed); its subdirectories queued. */
static int scan_dir(struct walk *w, const struct qitem *it, struct qitem **q, size_t *qn,
                    size_t *qcap)
{
	_cleanup_free_ char *host = at(w->root->host, it->rel);
	if (!host)
		return -ENOMEM;
	/* Unchanged since its listing was kept: that listing, without opening
	 * it (two system calls fewer, for each directory of a project). */
	struct stat dir_st;
	struct dirlist l;
	_cleanup_close_ int fd = -1;
	if (lstat(host, &dir_st) < 0 || !dirlist_kept(w->o->dirs, &dir_st, &l)) {
		fd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return 0; /* unreadable: the agent cannot use it either */
		int ret = dirlist_read(w->o->dirs, fd, &l, NULL, NULL);
		if (ret < 0)
			return ret;
	}
	int ret = 0;
	w->r->dirs_scanned++;
	bool at_root = it->rel[0] == '\0' && w->root->workspace;
	/* The list's first components here, and how the listing spells each. */
	struct strv found = {0}, spelled = {0};
	for (size_t i = 0; ret >= 0 && i < l.n; i++) {
		const char *n = dirlist_name(&l, i);
		/* Most names are not on the list: their first byte, or a binary
		 * search (as spelled, then folded), says so. */
		if (has_byte(w->first_bytes, name_fold_first(n)) &&
		    (ret = firsts_listed_as(w, fd, host, n, &found, &spelled)) != 0)
			continue; /* protected whole, or holds what is: not walked */
		unsigned char t = l.types[i];
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			t = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if (t != DT_DIR || is_skipped(n))
			continue;
		if (it->depth + 1 > w->o->max_depth) {
			w->r->limits_hit |= PF_LIMIT_DEPTH;
			continue;
		}
		if ((ret = grow(q, qcap, *qn, sizeof(**q))) < 0)
			break;
		char *rel = it->rel[0] ? path_join(it->rel, n) : strdup(n);
		if (!rel) {
			ret = -ENOMEM;
			break;
		}
		(*q)[(*qn)++] = (struct qitem){rel, it->depth + 1};
	}
	dirlist_release(&l);
	/* Each entry whose name is here, as spelled here; at the workspace root
	 * every entry (a missing one is masked). */
	for (const struct pf_entry *e = w->o->list; e->path && ret >= 0; e++) {
		bool here = false;
		for (size_t i = 0; i < found.n && ret >= 0; i++)
			if (starts_entry(e, found.v[i], strlen(found.v[i]))) {
				here = true;
				ret = check_entry(w, it->rel, e, at_root, spelled.v[i]);
			}
		if (!here && at_root && ret >= 0)
			ret = check_entry(w, it->rel, e, at_root, NULL);
	}
	strv_clear(&found);
	strv_clear(&spelled);
	return ret;
}

static int walk_root(struct walk *w)
{
	struct qitem *q = NULL;
	size_t head = 0, n = 0, cap = 0;
	int ret = grow(&q, &cap, n, sizeof(*q));
	char *root = ret >= 0 ? strdup("") : NULL;
	if (!root) {
		free(q);
		return -ENOMEM;
	}
	q[n++] = (struct qitem){root, 0};
	while (ret >= 0 && head < n) {
		if (w->r->dirs_scanned >= w->o->max_dirs) {
			w->r->limits_hit |= PF_LIMIT_DIRS;
			break;
		}
		/* A copy: scan_dir may move the queue as it grows it. */
		struct qitem it = q[head];
		q[head++].rel = NULL;
		ret = scan_dir(w, &it, &q, &n, &cap);
		free(it.rel);
	}
	for (size_t i = head; i < n; i++)
		free(q[i].rel);
	free(q);
	return ret;
}

static int action_cmp(const void *a, const void *b)
{
	const struct pf_action *x = a, *y = b;
	size_t dx = path_depth(x->dest), dy = path_depth(y->dest);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->dest, y->dest);
}

int pf_scan(const struct pf_options *o, struct pf_result *out)
{
	*out = (struct pf_result){0};
	struct strv firsts = {0};
	int ret = 0;
	for (const struct pf_entry *e = o->list; e->path && ret >= 0; e++) {
		_cleanup_free_ char *first = strndup(e->path, strcspn(e->path, "/"));
		ret = !first                          ? -ENOMEM
		      : strv_contains(&firsts, first) ? 0
		                                      : strv_push(&firsts, first);
	}
	if (firsts.n > 1)
		qsort(firsts.v, firsts.n, sizeof(char *), cmp_str);
	struct folded_first *folded = ret >= 0 ? calloc(firsts.n + 1, sizeof(*folded)) : NULL;
	if (ret >= 0 && !folded)
		ret = -ENOMEM;
	for (size_t f = 0; ret >= 0 && f < firsts.n; f++) {
		size_t len = name_fold(firsts.v[f], NULL, 0);
		folded[f] = (struct folded_first){.key = malloc(len + 1), .first = firsts.v[f]};
		if (!folded[f].key)
			ret = -ENOMEM;
		else
			name_fold(firsts.v[f], folded[f].key, len + 1);
	}
	if (ret >= 0 && firsts.n > 1)
		qsort(folded, firsts.n, sizeof(*folded), cmp_folded);
	for (size_t i = 0; i < o->n_roots && ret >= 0; i++) {
		/* A root inside another is walked with it. */
		bool nested = false;
		for (size_t j = 0; j < o->n_roots; j++)
			if (j != i && path_is_within(o->roots[i].host, o->roots[j].host) &&
			    (strcmp(o->roots[i].host, o->roots[j].host) != 0 || j < i))
				nested = true;
		if (nested)
			continue;
		struct walk w = {
		    .o = o, .r = out, .root = &o->roots[i], .firsts = &firsts, .folded = folded};
		for (size_t f = 0; f < firsts.n; f++)
			note_byte(w.first_bytes, (unsigned char)folded[f].key[0]);
		ret = walk_root(&w);
	}
	for (size_t f = 0; folded && f < firsts.n; f++)
		free(folded[f].key);
	free(folded);
	strv_clear(&firsts);
	if (ret < 0) {
		char *err = TAKE_PTR(out->error_path);
		pf_result_free(out);
		out->error_path = err;
		return ret;
	}
	/* Parents first (the plan orders them so too; placeholders need it). */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), action_cmp);
	return 0;
}

void pf_result_free(struct pf_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].host);
		free(r->v[i].dest);
	}
	free(r->v);
	free(r->error_path);
	*r = (struct pf_result){0};
}

const char *pf_op_name(int op)
{
	switch (op) {
	case PF_OP_RO:
		return "read-only";
	case PF_OP_MASK_FILE:
		return "masked file";
	case PF_OP_MASK_DIR:
		return "masked directory";
	case PF_OP_PIN:
		return "pinned";
	case PF_OP_MKDIR_PIN:
		return "made and pinned";
	}
	return "?";
}
