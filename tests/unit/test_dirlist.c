/* SPDX-License-Identifier: MIT */
/* common/dirlist.c: a directory's listing is reused only while the directory
 * is the same one, unchanged, and its last change is old enough that no
 * later change can share its ctime. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirlist.h"
#include "util.h"

static char base[256];
static bool trusted; /* base is on a file system whose listings are reused */

#ifdef __linux__
#include <sys/vfs.h>
static bool fs_reused(const char *path)
{
	struct statfs fs;
	return statfs(path, &fs) == 0 && (fs.f_type == 0xEF53 || fs.f_type == 0x58465342 ||
	                                  fs.f_type == 0x9123683E || fs.f_type == 0x01021994);
}
#else
static bool fs_reused(const char *path)
{
	(void)path;
	return false; /* the cache reads every directory there */
}
#endif

/* The cases that reuse a listing need a file system where that is done. */
#define NEEDS_REUSE()                                                                              \
	do {                                                                                       \
		if (!trusted)                                                                      \
			skip();                                                                    \
	} while (0)

static void mk(const char *rel, bool dir)
{
	char p[512];
	assert_true(snprintf(p, sizeof(p), "%s/%s", base, rel) < (int)sizeof(p));
	if (dir)
		assert_int_equal(mkdir(p, 0755), 0);
	else
		assert_int_equal(close(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)), 0);
}

static int read_at(struct dirlist_cache *c, const char *rel, struct dirlist *l, bool *reused)
{
	char p[512];
	assert_true(snprintf(p, sizeof(p), "%s%s%s", base, rel[0] ? "/" : "", rel) <
	            (int)sizeof(p));
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	assert_true(fd >= 0);
	struct stat st, want;
	int r = dirlist_read(c, fd, l, reused, &st);
	/* The directory's own stat comes with it, kept listing or read. */
	assert_int_equal(fstat(fd, &want), 0);
	if (r == 0)
		assert_true(st.st_dev == want.st_dev && st.st_ino == want.st_ino &&
		            st.st_ctim.tv_sec == want.st_ctim.tv_sec &&
		            st.st_ctim.tv_nsec == want.st_ctim.tv_nsec);
	close(fd);
	return r;
}

static bool has(const struct dirlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(dirlist_name(l, i), name) == 0)
			return true;
	return false;
}

/* One tree, made once and left to settle: the tests that need a settled
 * directory share the wait. */
static int setup(void **state)
{
	(void)state;
	/* $TMPDIR or /tmp, else /dev/shm (tmpfs) where those are overlays. */
	const char *tries[] = {getenv("TMPDIR"), "/tmp", "/dev/shm"};
	for (size_t i = 0; i < ARRAY_SIZE(tries) && !trusted; i++) {
		if (tries[i] && fs_reused(tries[i])) {
			snprintf(base, sizeof(base), "%s/asb-dirlist-XXXXXX", tries[i]);
			trusted = true;
		}
	}
	if (!trusted)
		snprintf(base, sizeof(base), "%s/asb-dirlist-XXXXXX",
		         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(base))
		return -1;
	mk("a", true);
	mk("a/f1", false);
	mk("a/sub", true);
	mk("b", true);
	mk("c", true);
	mk("d", true);
	mk("e", true);
	mk("kept", true);
	mk("kept/x", false);
	mk("kept/sub", true);
	mk("leaf", true);
	mk("leaf2", true);
	mk("big", true);
	/* Over DIRLIST_KEEP_MAX_BYTES of names. */
	char name[512];
	memset(name, 'n', 240);
	for (int i = 0; i < 1200; i++) {
		snprintf(name + 240, sizeof(name) - 240, "%04d", i);
		char rel[600];
		snprintf(rel, sizeof(rel), "big/%s", name);
		mk(rel, false);
	}
	mk("fresh-later", true);
	sleep(DIRLIST_SETTLED_S + 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(base) < 0 ? -1 : 0;
}

static void test_lists_without_dots(void **state)
{
	(void)state;
	struct dirlist l;
	assert_int_equal(read_at(NULL, "a", &l, NULL), 0);
	assert_int_equal(l.n, 2);
	assert_true(has(&l, "f1") && has(&l, "sub"));
	assert_false(has(&l, ".") || has(&l, ".."));
	dirlist_release(&l);
}

static void test_settled_unchanged_is_reused(void **state)
{
	(void)state;
	NEEDS_REUSE();
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	bool reused = true;
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_false(reused);
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_true(reused);
	assert_true(has(&l, "f1") && has(&l, "sub"));
	size_t nr, nd;
	dirlist_counts(c, &nr, &nd);
	assert_int_equal(nr, 1);
	assert_int_equal(nd, 1);
	dirlist_cache_free(c);
}

/* Each kind of change to the entries: read again, and it shows. */
static void test_changes_are_read_again(void **state)
{
	(void)state;
	NEEDS_REUSE();
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	bool reused;
	char from[512], to[512];
	const char *dirs[] = {"b", "c", "d"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		assert_int_equal(read_at(c, dirs[i], &l, &reused), 0);
		assert_int_equal(read_at(c, dirs[i], &l, &reused), 0);
		assert_true(reused);
	}
	mk("b/new", false); /* made */
	assert_int_equal(read_at(c, "b", &l, &reused), 0);
	assert_false(reused);
	assert_true(has(&l, "new"));
	snprintf(from, sizeof(from), "%s/b/new", base); /* renamed into another */
	snprintf(to, sizeof(to), "%s/c/moved", base);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(read_at(c, "c", &l, &reused), 0);
	assert_false(reused);
	assert_true(has(&l, "moved"));
	assert_int_equal(read_at(c, "b", &l, &reused), 0);
	assert_false(reused);
	assert_false(has(&l, "new"));
	/* Replaced by another directory (settled too): another inode. */
	snprintf(from, sizeof(from), "%s/fresh-later", base);
	snprintf(to, sizeof(to), "%s/d", base);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(read_at(c, "d", &l, &reused), 0);
	assert_false(reused);
	dirlist_cache_free(c);
}

/* Changed within the last seconds: its ctime could be shared by a change
 * in the same clock tick, so it is never reused, changed or not. */
static void test_recent_is_not_reused(void **state)
{
	(void)state;
	mk("recent", true);
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	bool reused;
	assert_int_equal(read_at(c, "recent", &l, &reused), 0);
	assert_int_equal(read_at(c, "recent", &l, &reused), 0);
	assert_false(reused);
	assert_int_equal(l.n, 0);
	dirlist_cache_free(c);
}

/* A listing held stays valid when its directory is read again. */
static void test_held_listing_survives_a_reread(void **state)
{
	(void)state;
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist old, now;
	assert_int_equal(read_at(c, "a", &old, NULL), 0);
	mk("a/f2", false);
	assert_int_equal(read_at(c, "a", &now, NULL), 0);
	assert_true(has(&now, "f2"));
	assert_false(has(&old, "f2"));
	assert_true(has(&old, "f1"));
	dirlist_cache_free(c);
}

static void path_of(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/%s", base, rel);
}

static void lstat_at(const char *rel, struct stat *st)
{
	char p[512];
	path_of(p, sizeof(p), rel);
	assert_int_equal(lstat(p, st), 0);
}

/* A kept listing without opening the directory: only while it is unchanged,
 * and on a file system this cache has read a directory of. */
static void test_kept_by_stat(void **state)
{
	(void)state;
	NEEDS_REUSE();
	char file[512];
	path_of(file, sizeof(file), "kept-cache");
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	struct stat st;
	lstat_at("kept", &st);
	assert_false(dirlist_kept(c, &st, &l)); /* nothing kept yet */
	assert_int_equal(read_at(c, "kept", &l, NULL), 0);
	lstat_at("kept", &st);
	assert_true(dirlist_kept(c, &st, &l));
	assert_true(l.n == 2 && has(&l, "x") && has(&l, "sub"));
	size_t nr, nd;
	dirlist_counts(c, &nr, &nd);
	assert_int_equal(nr, 1);
	lstat_at("kept/x", &st); /* not a directory */
	assert_false(dirlist_kept(c, &st, &l));
	assert_int_equal(dirlist_cache_save(c, file), 0);
	dirlist_cache_free(c);

	/* Loaded: its file system is taken on trust only once a directory of
	 * it was read in this cache. */
	c = dirlist_cache_load(file);
	lstat_at("kept", &st);
	assert_false(dirlist_kept(c, &st, &l));
	assert_int_equal(read_at(c, "a", &l, NULL), 0);
	assert_true(dirlist_kept(c, &st, &l));
	/* A listing with an entry of unknown type (a file system that gives
	 * none): not without the directory open, where it can be stat'ed. The
	 * saved record's two type bytes (before its names) set to DT_UNKNOWN. */
	FILE *f = fopen(file, "r+b");
	assert_non_null(f);
	char buf[65536];
	size_t len = fread(buf, 1, sizeof(buf), f);
	const char *names = NULL;
	for (size_t i = 2; !names && i + 6 <= len; i++)
		if (memcmp(buf + i, "x\0sub\0", 6) == 0 || memcmp(buf + i, "sub\0x\0", 6) == 0)
			names = buf + i;
	assert_non_null(names);
	assert_true(names[-1] != DT_UNKNOWN && names[-2] != DT_UNKNOWN);
	assert_int_equal(fseek(f, (long)(names - buf) - 2, SEEK_SET), 0);
	assert_int_equal(fwrite("\0\0", 1, 2, f), 2);
	assert_int_equal(fclose(f), 0);
	struct dirlist_cache *unknown = dirlist_cache_load(file);
	assert_int_equal(read_at(unknown, "a", &l, NULL), 0);
	assert_false(dirlist_kept(unknown, &st, &l));
	dirlist_cache_free(unknown);
	/* Changed: not reused, and read again it shows. */
	mk("kept/new", false);
	lstat_at("kept", &st);
	assert_false(dirlist_kept(c, &st, &l));
	assert_int_equal(read_at(c, "kept", &l, NULL), 0);
	assert_true(has(&l, "new"));
	dirlist_release(&l);
	dirlist_cache_free(c);
}

/* Kept by one launch, reused by the next while unchanged; a change in
 * between is read. */
static void test_saved_and_loaded(void **state)
{
	(void)state;
	NEEDS_REUSE();
	char file[512];
	path_of(file, sizeof(file), "cache");
	mk("s", true);
	mk("s/one", false);
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	bool reused;
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_int_equal(read_at(c, "e", &l, &reused), 0); /* made by setup: settled */
	assert_int_equal(read_at(c, "s", &l, &reused), 0); /* recent: not kept */
	assert_int_equal(dirlist_cache_save(c, file), 0);
	dirlist_cache_free(c);
	struct stat st;
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	c = dirlist_cache_load(file);
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_true(reused);
	assert_true(has(&l, "f1") && has(&l, "sub"));
	assert_int_equal(read_at(c, "s", &l, &reused), 0);
	assert_false(reused);
	mk("e/later", false);
	assert_int_equal(read_at(c, "e", &l, &reused), 0);
	assert_false(reused);
	assert_true(has(&l, "later"));
	dirlist_cache_free(c);
}

/* Entries of base whose name starts with `prefix` (the temporary files a
 * save may leave). */
static int count_prefixed(const char *prefix)
{
	DIR *d = opendir(base);
	assert_non_null(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* How the saves replace the file (write_file_replace): the new one whole
 * under the name, 0600; the old one still whole to a reader that has it
 * open; no temporary left; a directory in the way is an error, left as it
 * is. */
static void test_save_replaces_whole(void **state)
{
	(void)state;
	char file[512], dir[512];
	path_of(file, sizeof(file), "saved");
	path_of(dir, sizeof(dir), "in-the-way");
	assert_int_equal(write_file_replace(file, "old contents", 12), 0);
	int held = open(file, O_RDONLY | O_CLOEXEC);
	assert_true(held >= 0);
	assert_int_equal(write_file_replace(file, "new", 3), 0);
	char buf[32];
	assert_int_equal(read(held, buf, sizeof(buf)), 12);
	assert_memory_equal(buf, "old contents", 12);
	close(held);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(read_file(file, &text, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(text, "new", 3);
	free(text);
	struct stat st;
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_prefixed("saved"), 1);

	assert_int_equal(mkdir(dir, 0755), 0);
	assert_true(write_file_replace(dir, "x", 1) < 0);
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(count_prefixed("in-the-way"), 1);
}

static void load_reads_a(const char *file, bool *reused)
{
	struct dirlist_cache *c = dirlist_cache_load(file);
	assert_non_null(c);
	struct dirlist l;
	assert_int_equal(read_at(c, "a", &l, reused), 0);
	dirlist_cache_free(c);
}

/* Not this user's alone, damaged, a link: nothing of it is used. */
static void test_untrusted_files_are_ignored(void **state)
{
	(void)state;
	NEEDS_REUSE();
	char file[512], copy[512], link[512];
	path_of(file, sizeof(file), "cache2");
	path_of(copy, sizeof(copy), "cache2.copy");
	path_of(link, sizeof(link), "cache2.link");
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	bool reused;
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_int_equal(dirlist_cache_save(c, file), 0);
	dirlist_cache_free(c);
	load_reads_a(file, &reused);
	assert_true(reused); /* the control */

	assert_int_equal(chmod(file, 0620), 0);
	load_reads_a(file, &reused);
	assert_false(reused);
	assert_int_equal(chmod(file, 0600), 0);

	assert_int_equal(symlink(file, link), 0);
	load_reads_a(link, &reused);
	assert_false(reused);

	/* Cut short, or one byte changed in the header: all or nothing. */
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(read_file(file, &text, &len), 0);
	for (int variant = 0; variant < 2; variant++) {
		int fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		assert_true(fd >= 0);
		if (variant == 1)
			text[20] ^= 1; /* within the boot id */
		assert_int_equal(write_all(fd, text, variant == 0 ? len - 1 : len), 0);
		close(fd);
		load_reads_a(copy, &reused);
		assert_false(reused);
	}
	free(text);
	load_reads_a(NULL, &reused); /* no file: an empty cache */
	assert_false(reused);
}

/* A name checked absent (a leaf git did not read): known while the
 * directory is unchanged, also to the next launch; not once it changed, nor
 * when the check was too close to its last change. */
static void test_known_absent(void **state)
{
	(void)state;
	NEEDS_REUSE();
	char p[512], file[512];
	path_of(p, sizeof(p), "leaf");
	path_of(file, sizeof(file), "cache3");
	struct stat st;
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct dirlist_cache *c = dirlist_cache_new();
	assert_int_equal(stat(p, &st), 0);
	assert_false(dirlist_known_absent(c, fd, &st, ".git"));
	dirlist_note_absent(c, fd, &st, ".git");
	assert_true(dirlist_known_absent(c, fd, &st, ".git"));
	assert_false(dirlist_known_absent(c, fd, &st, "other"));
	assert_int_equal(dirlist_cache_save(c, file), 0);
	dirlist_cache_free(c);

	c = dirlist_cache_load(file);
	assert_true(dirlist_known_absent(c, fd, &st, ".git"));
	mk("leaf/.git", false);
	assert_int_equal(stat(p, &st), 0);
	assert_false(dirlist_known_absent(c, fd, &st, ".git"));
	/* Now recent: a check is not kept. */
	char g[512];
	path_of(g, sizeof(g), "leaf/.git");
	assert_int_equal(unlink(g), 0);
	assert_int_equal(stat(p, &st), 0);
	dirlist_note_absent(c, fd, &st, ".git");
	assert_false(dirlist_known_absent(c, fd, &st, ".git"));
	dirlist_cache_free(c);
	close(fd);
}

/* A directory of many long names is read each time, never held. */
static void test_large_is_not_kept(void **state)
{
	(void)state;
	NEEDS_REUSE();
	struct dirlist_cache *c = dirlist_cache_new();
	struct dirlist l;
	bool reused = true;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(read_at(c, "big", &l, &reused), 0);
		assert_false(reused);
		assert_int_equal(l.n, 1200);
		assert_non_null(l.owned);
		dirlist_release(&l);
	}
	dirlist_cache_free(c);
}

/* What one workspace kept survives a launch in another, until it has gone
 * unused for DIRLIST_IDLE_MAX saves. */
static void test_other_workspace_survives_then_ages(void **state)
{
	(void)state;
	NEEDS_REUSE();
	char file[512], leaf[512];
	path_of(file, sizeof(file), "cache4");
	path_of(leaf, sizeof(leaf), "leaf2");
	struct dirlist l;
	bool reused;
	struct dirlist_cache *c = dirlist_cache_new();
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_int_equal(dirlist_cache_save(c, file), 0);
	dirlist_cache_free(c);
	struct stat st;
	assert_int_equal(stat(leaf, &st), 0);
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (int i = 0; i < DIRLIST_IDLE_MAX + 1; i++) {
		c = dirlist_cache_load(file);
		if (i == 1) { /* after one save without it: still there */
			assert_int_equal(read_at(c, "a", &l, &reused), 0);
			assert_true(reused);
			dirlist_cache_free(c);
			continue;
		}
		/* Something new each time, so that each launch saves. */
		char absent[16];
		snprintf(absent, sizeof(absent), "n%d", i);
		dirlist_note_absent(c, fd, &st, absent);
		assert_int_equal(dirlist_cache_save(c, file), 0);
		dirlist_cache_free(c);
	}
	c = dirlist_cache_load(file);
	assert_int_equal(read_at(c, "a", &l, &reused), 0);
	assert_false(reused);
	dirlist_cache_free(c);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lists_without_dots),
	    cmocka_unit_test(test_settled_unchanged_is_reused),
	    cmocka_unit_test(test_changes_are_read_again),
	    cmocka_unit_test(test_recent_is_not_reused),
	    cmocka_unit_test(test_saved_and_loaded),
	    cmocka_unit_test(test_save_replaces_whole),
	    cmocka_unit_test(test_untrusted_files_are_ignored),
	    cmocka_unit_test(test_known_absent),
	    cmocka_unit_test(test_kept_by_stat),
	    cmocka_unit_test(test_large_is_not_kept),
	    cmocka_unit_test(test_other_workspace_survives_then_ages),
	    cmocka_unit_test(test_held_listing_survives_a_reread),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
