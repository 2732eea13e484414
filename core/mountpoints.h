/* SPDX-License-Identifier: MIT */
/* Mount points a backend that builds a private view (ASB_CAP_FS_VIEW) must
 * find or make: an entry whose place lies under an earlier host bind needs
 * that place to exist in the bound host directory, or to be creatable there
 * by this user (never in a read-only bind). Checked before anything starts,
 * so that the backend does not fail halfway through building the view
 * (sandbox.ro_dirs = [ "/" ], a bind over /run). */
#ifndef ASB_CORE_MOUNTPOINTS_H
#define ASB_CORE_MOUNTPOINTS_H

#include "plan.h"
#include "policy.h"

/* Every entry's place spelt one way (path_normalize), and the places sorted
 * with their entries' indices: what covers an entry is found by looking up
 * its ancestors, not by scanning every entry before it. */
struct mountpoints_slot {
	const char *dest;
	size_t i;
};

struct mountpoints_index {
	char *buf;                      /* the normalised places, one after another */
	const char **dest;              /* per entry: its normalised place, in buf */
	struct mountpoints_slot *slots; /* sorted by place, then index */
	size_t n;
};

#define MOUNTPOINTS_NONE ((size_t)-1)

int mountpoints_index_build(const struct plan *plan, struct mountpoints_index *ix);
void mountpoints_index_free(struct mountpoints_index *ix);
/* The last entry before `before` whose place lies strictly above `dest` (a
 * normalised absolute path): the one that decides what is at dest's parent
 * when dest is mounted (later entries are mounted over earlier ones).
 * Its index, or MOUNTPOINTS_NONE. */
size_t mountpoints_covering(const struct mountpoints_index *ix, size_t before, const char *dest);

/* 0, or -EINVAL with the launch error naming the entry, the place and what
 * to do. */
int mountpoints_check(const struct plan *plan, const struct policy *p);

#endif
