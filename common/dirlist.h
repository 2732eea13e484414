/* SPDX-License-Identifier: MIT */
/* Directory listings read once and reused while the directory is unchanged:
 * the scans before the sandbox read them, the audits after it and the next
 * launch's scans (from a file beside the sessions) reuse each one whose
 * directory did not change meanwhile (most of a large project).
 *
 * Why a listing can be trusted again: every change of a directory's entries
 * (one made, removed, renamed or linked) sets its ctime to the current time,
 * and no process can set a ctime back. A listing read when the directory had
 * ctime C is still its listing while it is the same directory (device and
 * inode) with ctime C. The cases where that could fail are left out:
 *  - ctime comes from a clock that advances in ticks, so a change in the
 *    same tick as the last one would leave C as it was: a listing is kept
 *    only when C is over DIRLIST_SETTLED_S seconds older than the read;
 *  - file systems whose ctime is not kept locally (NFS caches attributes,
 *    FUSE asks a daemon): only ext2/3/4, xfs, btrfs and tmpfs are trusted,
 *    asked again at each reuse (a device number can pass to another file
 *    system), and a saved file is of one boot only.
 * Everything else is read again each time. */
#ifndef ASB_COMMON_DIRLIST_H
#define ASB_COMMON_DIRLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define DIRLIST_SETTLED_S 2
/* A larger listing is not kept (a directory of a million files would hold
 * its names in memory to the end): it is read each time. */
#define DIRLIST_KEEP_MAX_BYTES (256u << 10)
/* A listing kept for another workspace survives this many saves unused. */
#define DIRLIST_IDLE_MAX 64

/* Whether the object open at `fd`, as `st` (its fstat) describes it, is
 * on a file system this module trusts with ctime, and its ctime is over
 * DIRLIST_SETTLED_S old: any later change to it will show as a new ctime. */
bool dirlist_ctime_settled(int fd, const struct stat *st);

/* One directory's entries, without "." and "..", in readdir's order. */
struct dirlist {
	size_t n;
	const unsigned *name_at;    /* each name's offset in names */
	const unsigned char *types; /* readdir's d_type (DT_UNKNOWN where not given) */
	const char *names;
	void *owned; /* not kept: dirlist_release frees it */
};

static inline const char *dirlist_name(const struct dirlist *l, size_t i)
{
	return l->names + l->name_at[i];
}

struct dirlist_cache; /* opaque */

struct dirlist_cache *dirlist_cache_new(void);
void dirlist_cache_free(struct dirlist_cache *c);

/* The entries of the directory open at `fd`: the kept listing of that
 * directory (its device and inode) when it is still valid, else read now,
 * and kept when it may be reused (and is not over DIRLIST_KEEP_MAX_BYTES).
 * With c NULL, read now. *out stays valid until dirlist_release, or a kept
 * one until the cache is freed. reused (may be NULL): whether it was kept;
 * st (may be NULL): the directory's stat, as read to check the kept one.
 * 0, or -errno. */
int dirlist_read(struct dirlist_cache *c, int fd, struct dirlist *out, bool *reused,
                 struct stat *st);
/* Frees a listing that was not kept; nothing otherwise. */
void dirlist_release(struct dirlist *l);
/* The kept listing of the directory `st` describes (a fresh lstat of it),
 * without opening it: true while the directory is unchanged since it was
 * kept, on a file system this cache already found trustworthy (a read
 * there first), and when every entry's type is in it (one of unknown type
 * needs the directory open to stat it). *out as dirlist_read gives a kept
 * one. */
bool dirlist_kept(struct dirlist_cache *c, const struct stat *st, struct dirlist *out);

/* Whether `name` is known not to be in the directory `st` describes (a
 * fresh stat of it; fd: any open on its file system): from its kept
 * listing, or from a check recorded by dirlist_note_absent, while the
 * directory is unchanged since. */
bool dirlist_known_absent(struct dirlist_cache *c, int fd, const struct stat *st, const char *name);
/* The caller stat'ed the directory (st), then found `name` absent from it:
 * kept as a listing is (for one name; a listing of it says more). */
void dirlist_note_absent(struct dirlist_cache *c, int fd, const struct stat *st, const char *name);

/* Across launches: the listings an earlier launch saved to `file`, each
 * checked against its directory again when read, as one read this launch
 * is. A missing file, or one that is not this user's alone, of another boot
 * or damaged, gives an empty cache. */
struct dirlist_cache *dirlist_cache_load(const char *file);
/* Save the listings that may be reused (written beside `file`, renamed
 * over it): those read or reused since the cache was made, and those of
 * other workspaces unused for fewer than DIRLIST_IDLE_MAX saves; nothing
 * when no listing was read or became unusable. 0 or -errno. */
int dirlist_cache_save(struct dirlist_cache *c, const char *file);

/* How many listings were reused and read (for the logs). */
void dirlist_counts(const struct dirlist_cache *c, size_t *reused, size_t *read);

#endif
