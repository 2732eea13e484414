/* SPDX-License-Identifier: MIT */
/* The plan's mounts that agentsandbox-init makes (linux/init/mounts.c), after
 * all of bubblewrap's ops. An entry goes to init only when that order changes
 * nothing:
 *
 *  - it lies in a tree the host shows as it is (the nearest earlier entry at
 *    or above its destination binds a host path over itself), so what init
 *    sees at the path is the host's object, checked by device and inode;
 *  - no later entry bubblewrap keeps lies at, above or below it (bubblewrap
 *    makes those first now), and it is not under ASB_RUN_DIR (bubblewrap's
 *    own ops there, the --remount-ro at the end);
 *  - a bind has no earlier mount below it (bubblewrap binds the host's tree,
 *    which has none; and without mount_setattr init's remount reaches the
 *    top mount only), and a writable one lies in a writable bind (a clone
 *    keeps the read-only flag, locked so under a second user namespace).
 *
 * Kinds: self binds of pinned paths, tmpfs (ephemeral and directory masks),
 * generated files and file masks. A plan with few of them keeps bubblewrap
 * doing everything, as before.
 *
 * And the system's directories in /etc (ssl, ca-certificates, ld.so.conf.d,
 * ...), which sit in bubblewrap's /etc tmpfs, where init sees no host
 * object: bubblewrap binds the host's /etc once at INIT_HOST_STAGE/etc and
 * makes their mount points (--dir); init binds each from there, checked by
 * device and inode, then covers the stage with an empty read-only tmpfs
 * (bubblewrap's mounts are locked beneath init's: not detachable). One bind
 * and one mount table re-read by bubblewrap instead of one of each per
 * directory. */
#include "init_mounts.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mounts init would make: below this, too few to be worth capabilities
 * handed to init (its staging tmpfs and the capabilities' hand-over cost a
 * little). bubblewrap re-reads the mount table after every bind and makes a
 * superblock for every tmpfs; init does neither. Measured on the default
 * plan (projectfiles' 14 masks at the workspace root, their mount points
 * already there): the launch ~0.9 ms faster with init making them. */
#define MIN_MOUNTS 8u

static bool self_bind(const struct asb_entry *e)
{
	return (e->type == ASB_ENTRY_READ || e->type == ASB_ENTRY_WRITE) && e->fd >= 0 &&
	       e->host_path && strcmp(e->host_path, e->dest) == 0;
}

static bool overlap(const char *a, const char *b)
{
	return path_is_within(a, b) || path_is_within(b, a);
}

/* The plan's destinations indexed once, so that what lies at, above or
 * below an entry is found by walking up from it, not by comparing it with
 * every other entry (git protection of many repositories: hundreds of
 * entries). Spelt as the plan spells them, as path_is_within reads them
 * (so the decisions are those of a pairwise scan, for any spelling):
 * path_is_within(p, d) holds exactly when d without its trailing slashes
 * is one of p's places,
 *
 *   p cut before any '/' of it or at its end (for "/a/b": "", "/a",
 *   "/a/b"), and "/" when p is absolute.
 *
 * The keys are the entries' destinations without trailing slashes. Sorted
 * with '/' before every other character, the keys a key is a place of
 * follow it, together; so one pass with a stack gives each key its
 * nearest place among the keys, and its places are that chain. */
struct dest_key {
	const char *s;
	uint32_t len, full, i;
};

struct dest_index {
	uint32_t *key;         /* per entry: its key */
	uint32_t *same;        /* per entry: its spelling (same key, same length) */
	uint32_t *up;          /* per key: its nearest place among the keys, or NO_ENTRY */
	struct dest_key *keys; /* sorted; the first n_keys distinct */
	uint32_t n_keys, n_same;
};

#define NO_ENTRY UINT32_MAX

static void dest_index_free(struct dest_index *ix)
{
	free(ix->key);
	free(ix->same);
	free(ix->up);
	free(ix->keys);
	*ix = (struct dest_index){0};
}

static int key_cmp(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
	for (uint32_t j = 0; j < alen && j < blen; j++)
		if (a[j] != b[j]) {
			int x = a[j] == '/' ? 0 : (unsigned char)a[j] + 1;
			int y = b[j] == '/' ? 0 : (unsigned char)b[j] + 1;
			return x - y;
		}
	return (alen > blen) - (alen < blen);
}

static int dest_key_cmp(const void *pa, const void *pb)
{
	const struct dest_key *a = pa, *b = pb;
	int r = key_cmp(a->s, a->len, b->s, b->len);
	return r ? r : (a->full > b->full) - (a->full < b->full);
}

/* Whether key d is one of key p's places. */
static bool is_place(const struct dest_key *p, const struct dest_key *d)
{
	if (d->len == 1 && d->s[0] == '/')
		return p->len > 0 && p->s[0] == '/';
	return d->len <= p->len && memcmp(p->s, d->s, d->len) == 0 &&
	       (d->len == p->len || p->s[d->len] == '/');
}

static int dest_index_build(const struct asb_entry *es, uint32_t n, struct dest_index *ix)
{
	ix->key = calloc(n, sizeof(*ix->key));
	ix->same = calloc(n, sizeof(*ix->same));
	ix->up = calloc(n, sizeof(*ix->up));
	ix->keys = calloc(n, sizeof(*ix->keys));
	_cleanup_free_ uint32_t *stack = calloc(n, sizeof(*stack));
	if (!ix->key || !ix->same || !ix->up || !ix->keys || !stack)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		size_t full = strlen(es[i].dest), len = full;
		while (len > 1 && es[i].dest[len - 1] == '/')
			len--;
		if (full >= UINT32_MAX)
			return -ENAMETOOLONG;
		ix->keys[i] = (struct dest_key){es[i].dest, (uint32_t)len, (uint32_t)full, i};
	}
	qsort(ix->keys, n, sizeof(*ix->keys), dest_key_cmp);
	uint32_t k = 0, same = 0;
	for (uint32_t j = 0; j < n; j++) {
		const struct dest_key *d = &ix->keys[j], *prev = j ? &ix->keys[j - 1] : NULL;
		bool new_key = !prev || key_cmp(prev->s, prev->len, d->s, d->len) != 0;
		same += j && (new_key || prev->full != d->full);
		k += j && new_key;
		ix->key[d->i] = k;
		ix->same[d->i] = same;
	}
	ix->n_keys = n ? k + 1 : 0;
	ix->n_same = n ? same + 1 : 0;
	/* The distinct keys first, in order: each at its first slot. */
	for (uint32_t j = 0, w = 0; j < n; j++)
		if (ix->key[ix->keys[j].i] == w)
			ix->keys[w++] = ix->keys[j];
	/* The stack: the chain of places of the key before. */
	uint32_t depth = 0;
	for (uint32_t j = 0; j < ix->n_keys; j++) {
		while (depth && !is_place(&ix->keys[j], &ix->keys[stack[depth - 1]]))
			depth--;
		ix->up[j] = depth ? stack[depth - 1] : NO_ENTRY;
		stack[depth++] = j;
	}
	return 0;
}

/* Per entry, what the entries before it are at its place: the last one at
 * or above it, whether any is at or below it, and whether any at or below
 * it is spelt otherwise (a mount bubblewrap's bind of the host's path would
 * not have). */
struct earlier {
	uint32_t above; /* or NO_ENTRY */
	bool below, below_other;
};

static int earlier_scan(const struct dest_index *ix, uint32_t n, struct earlier *out)
{
	/* Per key: the last entry there so far, and how many so far lie in
	 * it; per spelling, how many so far are spelt so. */
	_cleanup_free_ uint32_t *last = malloc((size_t)ix->n_keys * sizeof(*last));
	_cleanup_free_ uint32_t *in = calloc(ix->n_keys, sizeof(*in));
	_cleanup_free_ uint32_t *same = calloc(ix->n_same, sizeof(*same));
	if (!last || !in || !same)
		return -ENOMEM;
	for (uint32_t k = 0; k < ix->n_keys; k++)
		last[k] = NO_ENTRY;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t above = NO_ENTRY, k = ix->key[i];
		for (uint32_t p = k; p != NO_ENTRY; p = ix->up[p]) {
			uint32_t l = last[p];
			if (l != NO_ENTRY && (above == NO_ENTRY || l > above))
				above = l;
		}
		out[i] = (struct earlier){above, in[k] > 0, in[k] > same[ix->same[i]]};
		last[k] = i;
		for (uint32_t p = k; p != NO_ENTRY; p = ix->up[p])
			in[p]++;
		same[ix->same[i]]++;
	}
	return 0;
}

static bool kind_ok(const struct asb_entry *e)
{
	switch (e->type) {
	case ASB_ENTRY_READ:
	case ASB_ENTRY_WRITE:
		return self_bind(e);
	case ASB_ENTRY_EPHEMERAL:
		return true;
	case ASB_ENTRY_MASK:
		return (e->flags & ASB_ENTRY_F_DIR) || e->data || e->data_len == 0;
	case ASB_ENTRY_FILE:
		return e->data != NULL;
	}
	return false;
}

/* A read-only bind of a host directory by its own name under a staged top
 * directory, with no entry before it at, above or below it (so what is
 * there is bubblewrap's own tmpfs, and the host's tree has none of the
 * sandbox's mounts below it). A symlink stays bubblewrap's (it follows it;
 * init follows none), as does anything not there now. */
static bool staged_candidate(const struct asb_entry *e, const struct earlier *before,
                             struct stat *st)
{
	if (e->type != ASB_ENTRY_READ || !e->host_path || strcmp(e->host_path, e->dest) != 0 ||
	    !path_is_within(e->dest, INIT_STAGED_TOP) || strcmp(e->dest, INIT_STAGED_TOP) == 0)
		return false;
	if (before->above != NO_ENTRY || before->below)
		return false;
	if (lstat(e->host_path, st) < 0 || !S_ISDIR(st->st_mode))
		return false;
	/* Pinned: the very object the launcher checked. */
	struct stat pinned;
	return e->fd < 0 || (fstat(e->fd, &pinned) == 0 && pinned.st_dev == st->st_dev &&
	                     pinned.st_ino == st->st_ino);
}

static bool candidate(const struct asb_entry *es, uint32_t i, const struct earlier *before)
{
	const struct asb_entry *e = &es[i];
	if (!kind_ok(e) || e->dest[0] != '/' || !e->dest[1] || overlap(e->dest, ASB_RUN_DIR))
		return false;
	const struct asb_entry *above = before->above != NO_ENTRY ? &es[before->above] : NULL;
	if (!above || !self_bind(above))
		return false;
	if (e->type != ASB_ENTRY_READ && e->type != ASB_ENTRY_WRITE)
		return true;
	/* A clone takes the flags of what it is cloned from: a read-only one
	 * (locked so, under a second user namespace) cannot be made writable. */
	if (e->type == ASB_ENTRY_WRITE && above->type != ASB_ENTRY_WRITE)
		return false;
	/* bubblewrap binds from the host, which has none of the sandbox's
	 * mounts below the path; a clone of the sandbox's view would. */
	return !before->below_other;
}

static const char *pick_mode(const char *mode)
{
	return mode && (strcmp(mode, "always") == 0 || strcmp(mode, "never") == 0) ? mode : "auto";
}

static int write_record(FILE *list, FILE *shown, const struct asb_entry *e,
                        const struct stat *staged)
{
	char head[64];
	const void *data = NULL;
	size_t len = 0;
	if (staged) {
		snprintf(head, sizeof(head), "rohost %llu %llu", (unsigned long long)staged->st_dev,
		         (unsigned long long)staged->st_ino);
		fprintf(list, "%s %s\n", head, e->dest);
		fprintf(shown, "%s %s\n", head, e->dest);
		return 0;
	}
	switch (e->type) {
	case ASB_ENTRY_READ:
	case ASB_ENTRY_WRITE: {
		struct stat st;
		if (fstat(e->fd, &st) < 0)
			return -errno;
		snprintf(head, sizeof(head), "%s %llu %llu",
		         e->type == ASB_ENTRY_READ ? "ro" : "rw", (unsigned long long)st.st_dev,
		         (unsigned long long)st.st_ino);
		break;
	}
	case ASB_ENTRY_EPHEMERAL:
		snprintf(head, sizeof(head), "tmpfs 0%o", e->mode ? e->mode & 07777 : 0755);
		break;
	case ASB_ENTRY_MASK:
		if (e->flags & ASB_ENTRY_F_DIR) {
			snprintf(head, sizeof(head), "rotmpfs 0555");
			break;
		}
		__attribute__((fallthrough));
	default:
		data = e->data;
		len = data ? (size_t)e->data_len : 0;
		snprintf(head, sizeof(head), "file 0%o %zu", e->mode ? e->mode & 07777 : 0444, len);
		break;
	}
	fprintf(list, "%s %s\n", head, e->dest);
	fprintf(shown, "%s %s\n", head, e->dest);
	if (e->type == ASB_ENTRY_FILE ||
	    (e->type == ASB_ENTRY_MASK && !(e->flags & ASB_ENTRY_F_DIR))) {
		if (len && fwrite(data, 1, len, list) != len)
			return -EIO;
		fputc('\n', list);
	}
	return 0;
}

int init_mounts_plan(const struct asb_host *host, struct asb_ctx *ctx, bool caps_allowed,
                     const char *const *ro_dirs, size_t n_ro, struct init_mounts *m)
{
	*m = (struct init_mounts)INIT_MOUNTS_INIT;
	if (!caps_allowed)
		return 0;
	/* Only init can make them: it runs when the plan hardens. */
	if (!(host->plan_hardening(ctx) & (ASB_HARD_SECCOMP | ASB_HARD_LANDLOCK)))
		return 0;
	const char *mode = NULL;
	(void)host->config_string(ctx, "init_mounts", &mode);
	mode = pick_mode(mode);
	if (strcmp(mode, "never") == 0)
		return 0;
	int n = host->plan_entry_count(ctx);
	if (n <= 0)
		return 0;
	_cleanup_free_ struct asb_entry *es = calloc((size_t)n, sizeof(*es));
	_cleanup_free_ uint8_t *del = calloc((size_t)n, 1);
	_cleanup_free_ struct earlier *before = calloc((size_t)n, sizeof(*before));
	_cleanup_free_ struct stat *host_st = calloc((size_t)n, sizeof(*host_st));
	if (!es || !del || !before || !host_st)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		es[i].struct_size = sizeof(es[i]);
		int r = host->plan_entry_get(ctx, (uint32_t)i, &es[i]);
		if (r < 0)
			return r;
	}
	_cleanup_(dest_index_free) struct dest_index ix = {0};
	int r = dest_index_build(es, (uint32_t)n, &ix);
	if (r < 0 || (r = earlier_scan(&ix, (uint32_t)n, before)) < 0)
		return r;
	/* Per key: how many entries bubblewrap keeps are there, and how many
	 * lie in it. */
	_cleanup_free_ uint32_t *kept_at = calloc(ix.n_keys, sizeof(*kept_at));
	_cleanup_free_ uint32_t *kept_in = calloc(ix.n_keys, sizeof(*kept_in));
	if (!kept_at || !kept_in)
		return -ENOMEM;
	/* From the end: what bubblewrap keeps after an entry decides it. */
	uint32_t n_del = 0, n_staged = 0;
	for (uint32_t i = (uint32_t)n; i-- > 0;) {
		bool staged = false,
		     ok = candidate(es, i, &before[i]) ||
		          (staged = staged_candidate(&es[i], &before[i], &host_st[i]));
		/* Below a kept one (at one of its places), or above it. */
		for (uint32_t p = ix.key[i]; ok && p != NO_ENTRY; p = ix.up[p])
			ok = kept_at[p] == 0;
		ok = ok && kept_in[ix.key[i]] == 0;
		if (ok) {
			del[i] = staged ? INIT_MOUNT_STAGED : INIT_MOUNT_SELF;
			n_del++;
			n_staged += staged;
		} else {
			kept_at[ix.key[i]]++;
			for (uint32_t p = ix.key[i]; p != NO_ENTRY; p = ix.up[p])
				kept_in[p]++;
		}
	}
	if (n_del == 0 || (strcmp(mode, "auto") == 0 && n_del < MIN_MOUNTS))
		return 0;

	char *list = NULL, *shown = NULL;
	size_t list_len = 0, shown_len = 0;
	FILE *fl = open_memstream(&list, &list_len);
	FILE *fs = open_memstream(&shown, &shown_len);
	r = fl && fs ? 0 : -ENOMEM;
	if (r == 0) {
		fputs("asb-init-mounts 1\n", fl);
		fputs("asb-init-mounts 1\n", fs);
		/* First: init opens it before its own staging tmpfs covers it. */
		if (n_staged) {
			fputs("stage " INIT_HOST_STAGE "\n", fl);
			fputs("stage " INIT_HOST_STAGE "\n", fs);
		}
	}
	for (int i = 0; r == 0 && i < n; i++)
		if (del[i])
			r = write_record(fl, fs, &es[i],
			                 del[i] == INIT_MOUNT_STAGED ? &host_st[i] : NULL);
	/* bubblewrap's --remount-ro at the end, each a re-read of the mount
	 * table: init makes them read-only last. */
	for (size_t d = 0; r == 0 && d < n_ro; d++) {
		fprintf(fl, "readonly %s\n", ro_dirs[d]);
		fprintf(fs, "readonly %s\n", ro_dirs[d]);
	}
	if (fl && fclose(fl) != 0 && r == 0)
		r = -ENOMEM;
	if (fs && fclose(fs) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(list);
		free(shown);
		return r;
	}
	m->delegated = TAKE_PTR(del);
	m->n_entries = (uint32_t)n;
	m->n_delegated = n_del;
	m->n_staged = n_staged;
	m->list = list;
	m->list_len = list_len;
	m->shown = shown;
	m->shown_len = shown_len;
	return 0;
}

int init_mounts_seal(struct init_mounts *m)
{
	_cleanup_close_ int fd =
	    memfd_create("agentsandbox-init-mounts", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, m->list, m->list_len);
	if (r < 0)
		return r;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	m->fd = TAKE_FD(fd);
	return 0;
}

void init_mounts_clear(struct init_mounts *m)
{
	free(m->delegated);
	free(m->list);
	free(m->shown);
	if (m->fd >= 0)
		close(m->fd);
	*m = (struct init_mounts)INIT_MOUNTS_INIT;
}
