/* SPDX-License-Identifier: MIT */
#include "dirlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/vfs.h>
/* linux/magic.h's, spelled out: common/ stays free of kernel headers. */
#define DL_EXT4_MAGIC  0xEF53 /* ext2, ext3 and ext4 alike */
#define DL_XFS_MAGIC   0x58465342
#define DL_BTRFS_MAGIC 0x9123683E
#define DL_TMPFS_MAGIC 0x01021994
#endif

#include "util.h"

struct kept {
	dev_t dev;
	ino_t ino;
	struct timespec ctime;
	bool reusable;
	bool touched;  /* read or reused since the cache was made or loaded */
	uint32_t idle; /* saves since it was last touched */
	void *block;   /* the listing's (offsets, types, names); NULL for a name
	                * known absent only */
	struct dirlist list;
	char *absent; /* without a listing: a name known not to be in it */
};

struct fs_seen {
	dev_t dev;
	bool trusted;
};

struct dirlist_cache {
	struct kept *kept;
	size_t n, cap;
	size_t *slots; /* open addressing: index + 1 into kept, 0 empty */
	size_t n_slots;
	void **retired; /* blocks of replaced listings, freed with the cache */
	size_t n_retired, cap_retired;
	struct fs_seen fs[8];
	size_t n_fs;
	size_t reused, read;
	bool changed; /* differs from what was loaded */
};

struct dirlist_cache *dirlist_cache_new(void)
{
	return calloc(1, sizeof(struct dirlist_cache));
}

void dirlist_cache_free(struct dirlist_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->kept[i].block);
		free(c->kept[i].absent);
	}
	for (size_t i = 0; i < c->n_retired; i++)
		free(c->retired[i]);
	free(c->kept);
	free(c->retired);
	free(c->slots);
	free(c);
}

void dirlist_counts(const struct dirlist_cache *c, size_t *reused, size_t *read)
{
	*reused = c ? c->reused : 0;
	*read = c ? c->read : 0;
}

static size_t slot_of(dev_t dev, ino_t ino, size_t n_slots)
{
	uint64_t h =
	    ((uint64_t)ino * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)dev * 0xC2B2AE3D27D4EB4Full);
	return (size_t)(h ^ (h >> 29)) & (n_slots - 1);
}

static struct kept *find(struct dirlist_cache *c, dev_t dev, ino_t ino)
{
	if (!c->n_slots)
		return NULL;
	for (size_t i = slot_of(dev, ino, c->n_slots);; i = (i + 1) & (c->n_slots - 1)) {
		if (!c->slots[i])
			return NULL;
		struct kept *k = &c->kept[c->slots[i] - 1];
		if (k->dev == dev && k->ino == ino)
			return k;
	}
}

static int grow_slots(struct dirlist_cache *c)
{
	size_t n = c->n_slots ? c->n_slots * 2 : 256;
	size_t *s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < c->n; k++) {
		size_t i = slot_of(c->kept[k].dev, c->kept[k].ino, n);
		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = k + 1;
	}
	free(c->slots);
	c->slots = s;
	c->n_slots = n;
	return 0;
}

static int append(void *arrp, size_t *cap, size_t n, size_t more, size_t elem)
{
	void **arr = arrp;
	if (n + more <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < n + more)
		nc *= 2;
	void *p = realloc(*arr, nc * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

/* A new entry for the directory (the caller fills the rest). */
static struct kept *add(struct dirlist_cache *c, dev_t dev, ino_t ino)
{
	if (((c->n + 1) * 2 > c->n_slots && grow_slots(c) < 0) ||
	    append(&c->kept, &c->cap, c->n, 1, sizeof(*c->kept)) < 0)
		return NULL;
	struct kept *k = &c->kept[c->n];
	*k = (struct kept){.dev = dev, .ino = ino};
	size_t i = slot_of(dev, ino, c->n_slots);
	while (c->slots[i])
		i = (i + 1) & (c->n_slots - 1);
	c->slots[i] = ++c->n;
	return k;
}

/* The old listing stays valid for whoever holds it. */
static int retire(struct dirlist_cache *c, struct kept *k)
{
	if (append(&c->retired, &c->cap_retired, c->n_retired, 1, sizeof(*c->retired)) < 0)
		return -ENOMEM;
	c->retired[c->n_retired++] = k->block;
	k->block = NULL;
	free(k->absent);
	k->absent = NULL;
	return 0;
}

#ifdef __APPLE__
#define st_ctim st_ctimespec
#endif

/* Whether the file system of `fd` keeps ctime locally. */
static bool fs_keeps_ctime(int fd)
{
#ifdef __linux__
	struct statfs fs;
	return fstatfs(fd, &fs) == 0 &&
	       (fs.f_type == DL_EXT4_MAGIC || fs.f_type == DL_XFS_MAGIC ||
	        fs.f_type == DL_BTRFS_MAGIC || fs.f_type == DL_TMPFS_MAGIC);
#else
	(void)fd;
	return false;
#endif
}

/* Whether the file system `dev` keeps ctime locally: as found before, else
 * asked through `fd` (any open on it); with fd < 0, false for one not seen
 * yet, which is then not remembered. */
static bool fs_trusted(struct dirlist_cache *c, int fd, dev_t dev)
{
	for (size_t i = 0; i < c->n_fs; i++)
		if (c->fs[i].dev == dev)
			return c->fs[i].trusted;
	if (fd < 0)
		return false; /* not asked (and not remembered as untrusted) */
	bool trusted = fs_keeps_ctime(fd);
	if (c->n_fs < ARRAY_SIZE(c->fs))
		c->fs[c->n_fs++] = (struct fs_seen){dev, trusted};
	return trusted;
}

bool dirlist_ctime_settled(int fd, const struct stat *st)
{
	struct timespec now;
	return clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	       st->st_ctim.tv_sec < now.tv_sec - DIRLIST_SETTLED_S && fs_keeps_ctime(fd);
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Read the directory at fd into one block (a duplicate of fd reads, from
 * the start). */
static int read_block(int fd, void **blockp, size_t *sizep, struct dirlist *out)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		int r = -errno;
		close(dfd);
		return r;
	}
	rewinddir(d);
	unsigned *at = NULL;
	unsigned char *types = NULL;
	char *names = NULL;
	size_t n = 0, cap_at = 0, cap_types = 0, len = 0, cap_names = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		if (s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0')))
			continue;
		size_t l = strlen(s) + 1;
		if (len + l > UINT32_MAX || (r = append(&at, &cap_at, n, 1, sizeof(*at))) < 0 ||
		    (r = append(&types, &cap_types, n, 1, 1)) < 0 ||
		    (r = append(&names, &cap_names, len, l, 1)) < 0) {
			r = r < 0 ? r : -E2BIG;
			break;
		}
		memcpy(names + len, s, l);
		at[n] = (unsigned)len;
		types[n++] = de->d_type;
		len += l;
	}
	closedir(d);
	size_t size = n * sizeof(*at) + n + len;
	char *block = r == 0 ? malloc(size ? size : 1) : NULL;
	if (block && n) { /* an empty directory has no arrays to copy */
		memcpy(block, at, n * sizeof(*at));
		memcpy(block + n * sizeof(*at), types, n);
		memcpy(block + n * sizeof(*at) + n, names, len);
	}
	if (block) {
		*blockp = block;
		*sizep = size;
		*out = (struct dirlist){n, (const unsigned *)(void *)block,
		                        (const unsigned char *)block + n * sizeof(*at),
		                        block + n * sizeof(*at) + n, NULL};
	}
	free(at);
	free(types);
	free(names);
	return r < 0 ? r : block ? 0 : -ENOMEM;
}

int dirlist_read(struct dirlist_cache *c, int fd, struct dirlist *out, bool *reused,
                 struct stat *st_out)
{
	*out = (struct dirlist){0};
	if (reused)
		*reused = false;
	/* The time of the read is taken first: a ctime over DIRLIST_SETTLED_S
	 * older than it is older than every change from now on. */
	struct timespec now;
	if (clock_gettime(CLOCK_REALTIME, &now) < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st_out)
		*st_out = st;
	struct kept *k = c ? find(c, st.st_dev, st.st_ino) : NULL;
	/* The file system asked again: a device number freed since (a tmpfs
	 * unmounted) may now be another's, which says what ctime it likes. */
	if (k && k->block && k->reusable && same_time(&k->ctime, &st.st_ctim) &&
	    fs_trusted(c, fd, st.st_dev)) {
		c->reused++;
		k->touched = true;
		*out = k->list;
		if (reused)
			*reused = true;
		return 0;
	}
	void *block = NULL;
	size_t size = 0;
	struct dirlist l;
	int r = read_block(fd, &block, &size, &l);
	if (r < 0)
		return r;
	if (c)
		c->read++;
	/* Not kept: none to keep it in, or too large to hold to the end. */
	if (!c || size > DIRLIST_KEEP_MAX_BYTES) {
		if (k && k->reusable) { /* what was kept of it is not its listing now */
			k->reusable = false;
			c->changed = true;
		}
		l.owned = block;
		*out = l;
		return 0;
	}
	bool was_reusable = k && k->reusable;
	if (k ? retire(c, k) < 0 : !(k = add(c, st.st_dev, st.st_ino))) {
		free(block);
		return -ENOMEM;
	}
	k->ctime = st.st_ctim;
	k->reusable =
	    fs_trusted(c, fd, st.st_dev) && st.st_ctim.tv_sec < now.tv_sec - DIRLIST_SETTLED_S;
	k->block = block;
	k->list = l;
	k->touched = true;
	/* What a save would write differs (a listing left unsettled is not). */
	c->changed |= k->reusable || was_reusable;
	*out = l;
	return 0;
}

bool dirlist_kept(struct dirlist_cache *c, const struct stat *st, struct dirlist *out)
{
	struct kept *k = c && S_ISDIR(st->st_mode) ? find(c, st->st_dev, st->st_ino) : NULL;
	if (!k || !k->block || !k->reusable || !same_time(&k->ctime, &st->st_ctim) ||
	    !fs_trusted(c, -1, st->st_dev))
		return false;
	for (size_t i = 0; i < k->list.n; i++)
		if (k->list.types[i] == DT_UNKNOWN)
			return false;
	c->reused++;
	k->touched = true;
	*out = k->list;
	return true;
}

bool dirlist_known_absent(struct dirlist_cache *c, int fd, const struct stat *st, const char *name)
{
	struct kept *k = c ? find(c, st->st_dev, st->st_ino) : NULL;
	if (!k || !k->reusable || !same_time(&k->ctime, &st->st_ctim) ||
	    !fs_trusted(c, fd, st->st_dev))
		return false;
	if (k->absent) {
		if (strcmp(k->absent, name) != 0)
			return false;
	} else {
		for (size_t i = 0; i < k->list.n; i++)
			if (strcmp(dirlist_name(&k->list, i), name) == 0)
				return false;
	}
	k->touched = true;
	return true;
}

void dirlist_note_absent(struct dirlist_cache *c, int fd, const struct stat *st, const char *name)
{
	struct timespec now;
	if (!c || clock_gettime(CLOCK_REALTIME, &now) < 0 || !fs_trusted(c, fd, st->st_dev) ||
	    st->st_ctim.tv_sec >= now.tv_sec - DIRLIST_SETTLED_S)
		return;
	struct kept *k = find(c, st->st_dev, st->st_ino);
	if (k && k->block)
		return; /* a listing says more */
	char *copy = strdup(name);
	if (!copy || (!k && !(k = add(c, st->st_dev, st->st_ino)))) {
		free(copy);
		return;
	}
	bool same = k->absent && k->reusable && same_time(&k->ctime, &st->st_ctim) &&
	            strcmp(k->absent, name) == 0;
	free(k->absent);
	k->absent = copy;
	k->ctime = st->st_ctim;
	k->reusable = true;
	k->touched = true;
	c->changed |= !same;
}

/* The file: a header, then per directory its device, inode, ctime, number
 * of entries and of bytes of names, its entries' types, and their names,
 * each ended by a NUL. */
#define FILE_MAGIC "asb-dirlist 3\n"
#define REC_ABSENT 1u /* no listing: the one name is known absent */
#define FILE_MAX   (32u << 20)

struct file_head {
	char magic[16];
	char boot[40]; /* this boot's id: device numbers do not outlive it */
	uint32_t uid;
	uint32_t n;
};

struct file_rec {
	uint64_t dev, ino;
	int64_t sec, nsec;
	uint32_t n, names_len;
	uint32_t flags, idle;
};

static void boot_id(char out[40])
{
	memset(out, 0, 40);
#ifdef __linux__
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, out, 39);
		(void)r;
		close(fd);
	}
#endif
}

static int load_records(struct dirlist_cache *c, const char *buf, size_t len)
{
	struct file_head h;
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	char boot[40];
	boot_id(boot);
	if (memcmp(h.magic, FILE_MAGIC, sizeof(FILE_MAGIC) - 1) != 0 || !boot[0] ||
	    memcmp(h.boot, boot, sizeof(boot)) != 0 || h.uid != (uint32_t)geteuid())
		return -EINVAL;
	size_t at = sizeof(h);
	for (uint32_t i = 0; i < h.n; i++) {
		struct file_rec r;
		if (len - at < sizeof(r))
			return -EINVAL;
		memcpy(&r, buf + at, sizeof(r));
		at += sizeof(r);
		if (r.n > len || r.names_len > len || len - at < (size_t)r.n + r.names_len ||
		    (r.flags & ~REC_ABSENT) || ((r.flags & REC_ABSENT) && (r.n || r.names_len < 2)))
			return -EINVAL;
		const char *types = buf + at, *names = types + r.n;
		at += (size_t)r.n + r.names_len;
		if (r.flags & REC_ABSENT) {
			if (memchr(names, '\0', r.names_len) != names + r.names_len - 1 ||
			    strchr(names, '/'))
				return -EINVAL;
			struct kept *k = find(c, (dev_t)r.dev, (ino_t)r.ino);
			if (k)
				continue; /* twice: the first counts */
			char *name = strdup(names);
			if (!name || !(k = add(c, (dev_t)r.dev, (ino_t)r.ino))) {
				free(name);
				return -ENOMEM;
			}
			k->ctime =
			    (struct timespec){.tv_sec = (time_t)r.sec, .tv_nsec = (long)r.nsec};
			k->reusable = true;
			k->idle = r.idle;
			k->absent = name;
			continue;
		}
		/* Exactly n names, each ended, each one a readdir could give. */
		size_t ends = 0;
		for (uint32_t k = 0; k < r.names_len; k++)
			ends += names[k] == '\0';
		if (ends != r.n || (r.names_len && names[r.names_len - 1] != '\0'))
			return -EINVAL;
		for (uint32_t k = 0, off = 0; k < r.n; k++) {
			const char *nm = names + off;
			if (!nm[0] || strchr(nm, '/') || strcmp(nm, ".") == 0 ||
			    strcmp(nm, "..") == 0)
				return -EINVAL;
			off += (uint32_t)strlen(nm) + 1;
		}
		size_t size = r.n * sizeof(unsigned) + r.n + r.names_len;
		char *block = malloc(size ? size : 1);
		if (!block)
			return -ENOMEM;
		unsigned *name_at = (unsigned *)(void *)block;
		for (uint32_t k = 0, off = 0; k < r.n; k++) {
			name_at[k] = off;
			off += (uint32_t)strlen(names + off) + 1;
		}
		memcpy(block + r.n * sizeof(unsigned), types, r.n);
		memcpy(block + r.n * sizeof(unsigned) + r.n, names, r.names_len);
		struct kept *k = find(c, (dev_t)r.dev, (ino_t)r.ino);
		if (k || !(k = add(c, (dev_t)r.dev, (ino_t)r.ino))) {
			free(block);
			if (k)
				continue; /* twice: the first counts */
			return -ENOMEM;
		}
		k->ctime = (struct timespec){.tv_sec = (time_t)r.sec, .tv_nsec = (long)r.nsec};
		k->reusable = true; /* only those were saved */
		k->idle = r.idle;
		k->block = block;
		k->list = (struct dirlist){r.n, name_at,
		                           (const unsigned char *)block + r.n * sizeof(unsigned),
		                           block + r.n * sizeof(unsigned) + r.n, NULL};
	}
	return at == len ? 0 : -EINVAL;
}

struct dirlist_cache *dirlist_cache_load(const char *file)
{
	struct dirlist_cache *c = dirlist_cache_new();
	if (!c || !file)
		return c;
	_cleanup_close_ int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	/* Only this user's, writable by nobody else: it decides what a scan
	 * sees without looking. */
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size > FILE_MAX)
		return c;
	size_t len = (size_t)st.st_size;
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return c;
	size_t got = 0;
	while (got < len) {
		ssize_t r = read(fd, buf + got, len - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got != len || load_records(c, buf, len) < 0) {
		/* Damaged: nothing of it is used. */
		dirlist_cache_free(c);
		c = dirlist_cache_new();
	}
	free(buf);
	return c;
}

/* What a record of k holds after its head: types and names, or the name. */
static size_t names_len_of(const struct kept *k)
{
	if (!k->block)
		return strlen(k->absent) + 1;
	if (!k->list.n)
		return 0;
	return (size_t)k->list.name_at[k->list.n - 1] +
	       strlen(dirlist_name(&k->list, k->list.n - 1)) + 1;
}

/* Touched now, or kept for another workspace and not idle too long. */
static bool saved(const struct kept *k)
{
	return k->reusable && (k->block || k->absent) &&
	       (k->touched || k->idle + 1 < DIRLIST_IDLE_MAX);
}

int dirlist_cache_save(struct dirlist_cache *c, const char *file)
{
	if (!c || !file)
		return -EINVAL;
	/* Only when something new may be reused, or something kept may not:
	 * the others' idle counts move with the saves, not with every launch. */
	if (!c->changed)
		return 0;
	size_t n = 0, size = sizeof(struct file_head);
	for (size_t i = 0; i < c->n; i++) {
		const struct kept *k = &c->kept[i];
		if (!saved(k))
			continue;
		size += sizeof(struct file_rec) + (k->block ? k->list.n : 0) + names_len_of(k);
		n++;
	}
	if (size > FILE_MAX)
		return -E2BIG;
	char *buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	struct file_head h = {.uid = (uint32_t)geteuid(), .n = (uint32_t)n};
	memcpy(h.magic, FILE_MAGIC, sizeof(FILE_MAGIC) - 1);
	boot_id(h.boot);
	memcpy(buf, &h, sizeof(h));
	size_t at = sizeof(h);
	for (size_t i = 0; i < c->n; i++) {
		const struct kept *k = &c->kept[i];
		if (!saved(k))
			continue;
		size_t names_len = names_len_of(k);
		struct file_rec r = {.dev = (uint64_t)k->dev,
		                     .ino = (uint64_t)k->ino,
		                     .sec = (int64_t)k->ctime.tv_sec,
		                     .nsec = (int64_t)k->ctime.tv_nsec,
		                     .n = k->block ? (uint32_t)k->list.n : 0,
		                     .names_len = (uint32_t)names_len,
		                     .flags = k->block ? 0 : REC_ABSENT,
		                     .idle = k->touched ? 0 : k->idle + 1};
		memcpy(buf + at, &r, sizeof(r));
		at += sizeof(r);
		if (k->block) {
			memcpy(buf + at, k->list.types, k->list.n);
			at += k->list.n;
			memcpy(buf + at, k->list.names, names_len);
		} else {
			memcpy(buf + at, k->absent, names_len);
		}
		at += names_len;
	}
	int r = write_file_replace(file, buf, at);
	free(buf);
	if (r == 0)
		c->changed = false;
	return r;
}

void dirlist_release(struct dirlist *l)
{
	free(l->owned);
	*l = (struct dirlist){0};
}
