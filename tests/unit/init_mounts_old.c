/* SPDX-License-Identifier: MIT */
/* The decisions of plugins/bwrap/init_mounts.c as they were before its
 * index (issue 17), kept only here: the reference test_init_mounts.c
 * compares the new one with, plan by plan. Unchanged but for the name. */
#include "init_mounts.h"

int old_init_mounts_plan(const struct asb_host *host, struct asb_ctx *ctx, bool caps_allowed,
                         const char *const *ro_dirs, size_t n_ro, struct init_mounts *m);

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
static bool staged_candidate(const struct asb_entry *es, uint32_t i, struct stat *st)
{
	const struct asb_entry *e = &es[i];
	if (e->type != ASB_ENTRY_READ || !e->host_path || strcmp(e->host_path, e->dest) != 0 ||
	    !path_is_within(e->dest, INIT_STAGED_TOP) || strcmp(e->dest, INIT_STAGED_TOP) == 0)
		return false;
	for (uint32_t j = 0; j < i; j++)
		if (overlap(e->dest, es[j].dest))
			return false;
	if (lstat(e->host_path, st) < 0 || !S_ISDIR(st->st_mode))
		return false;
	/* Pinned: the very object the launcher checked. */
	struct stat pinned;
	return e->fd < 0 || (fstat(e->fd, &pinned) == 0 && pinned.st_dev == st->st_dev &&
	                     pinned.st_ino == st->st_ino);
}

static bool candidate(const struct asb_entry *es, uint32_t i)
{
	const struct asb_entry *e = &es[i];
	if (!kind_ok(e) || e->dest[0] != '/' || !e->dest[1] || overlap(e->dest, ASB_RUN_DIR))
		return false;
	const struct asb_entry *above = NULL;
	for (uint32_t j = i; j-- > 0;)
		if (path_is_within(e->dest, es[j].dest)) {
			above = &es[j];
			break;
		}
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
	for (uint32_t j = 0; j < i; j++)
		if (path_is_within(es[j].dest, e->dest) && strcmp(es[j].dest, e->dest) != 0)
			return false;
	return true;
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

int old_init_mounts_plan(const struct asb_host *host, struct asb_ctx *ctx, bool caps_allowed,
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
	_cleanup_free_ uint32_t *kept = calloc((size_t)n, sizeof(*kept));
	_cleanup_free_ struct stat *host_st = calloc((size_t)n, sizeof(*host_st));
	if (!es || !del || !kept || !host_st)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		es[i].struct_size = sizeof(es[i]);
		int r = host->plan_entry_get(ctx, (uint32_t)i, &es[i]);
		if (r < 0)
			return r;
	}
	/* From the end: what bubblewrap keeps after an entry decides it. */
	uint32_t n_kept = 0, n_del = 0, n_staged = 0;
	for (uint32_t i = (uint32_t)n; i-- > 0;) {
		bool staged = false,
		     ok = candidate(es, i) || (staged = staged_candidate(es, i, &host_st[i]));
		for (uint32_t k = 0; ok && k < n_kept; k++)
			ok = !overlap(es[i].dest, es[kept[k]].dest);
		if (ok) {
			del[i] = staged ? INIT_MOUNT_STAGED : INIT_MOUNT_SELF;
			n_del++;
			n_staged += staged;
		} else {
			kept[n_kept++] = i;
		}
	}
	if (n_del == 0 || (strcmp(mode, "auto") == 0 && n_del < MIN_MOUNTS))
		return 0;

	char *list = NULL, *shown = NULL;
	size_t list_len = 0, shown_len = 0;
	FILE *fl = open_memstream(&list, &list_len);
	FILE *fs = open_memstream(&shown, &shown_len);
	int r = fl && fs ? 0 : -ENOMEM;
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
