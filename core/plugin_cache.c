/* SPDX-License-Identifier: MIT */
#include "plugin_cache.h"

#include "loader.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __APPLE__
#define st_mtim st_mtimespec /* POSIX's names for them */
#define st_ctim st_ctimespec
#endif

#define HEADER      "asb-plugin-cache 1\n"
#define FILE_MAX    (1u << 20)
#define RECORDS_MAX 256
#define ITEMS_MAX   256 /* config keys or options of one plugin */

/* One file as it was, and what it declares. */
struct record {
	char *path;
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	const struct asb_plugin *desc; /* decoded (owned) or put (borrowed) */
	struct asb_plugin *owned;
	struct asb_option *options;
	const char **keys;
	char *text; /* its serialization, from the file or made at put */
	bool used;  /* found or put since the load: saved */
};

struct plugin_cache {
	char *buf; /* the file; decoded strings point into it */
	struct record *v;
	size_t n;
	bool changed;
};

static void record_free(struct record *r)
{
	free(r->path);
	free(r->owned);
	free(r->options);
	free(r->keys);
	free(r->text);
}

void plugin_cache_free(struct plugin_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		record_free(&c->v[i]);
	free(c->v);
	free(c->buf);
	free(c);
}

/* --- writing: one line a file, each word followed by a space; a string is
 * LEN:BYTES, a missing one (or a missing array) "-". */

static void put_str(FILE *f, const char *s)
{
	if (s)
		fprintf(f, "%zu:%s ", strlen(s), s);
	else
		fputs("- ", f);
}

static void put_desc(FILE *f, const struct asb_plugin *d)
{
	fprintf(f, "%u %u %u %u %u ", (unsigned)d->abi_major, (unsigned)d->abi_minor,
	        (unsigned)d->struct_size, (unsigned)d->kind, (unsigned)d->load);
	put_str(f, d->name);
	put_str(f, d->version);
	put_str(f, d->description);
	put_str(f, d->load_path);
	size_t n = 0;
	for (; d->config_keys && d->config_keys[n]; n++)
		;
	if (d->config_keys)
		fprintf(f, "%zu ", n);
	else
		fputs("- ", f);
	for (size_t i = 0; i < n; i++)
		put_str(f, d->config_keys[i]);
	for (n = 0; loader_option_at(d, n); n++)
		;
	fprintf(f, "%zu ", n);
	for (size_t i = 0; i < n; i++) {
		const struct asb_option *o = loader_option_at(d, i);
		fprintf(f, "%u ", (unsigned)o->type);
		put_str(f, o->key);
		put_str(f, o->flag);
		put_str(f, o->negative);
		put_str(f, o->env);
		put_str(f, o->help);
		put_str(f, ASB_HAS(o, struct asb_option, values) ? o->values : NULL);
	}
}

/* What a record of d holds after its file's identity (malloc'd). */
static char *desc_text(const struct asb_plugin *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	put_desc(f, d);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

bool plugin_cache_same(const struct asb_plugin *a, const struct asb_plugin *b)
{
	_cleanup_free_ char *ta = desc_text(a), *tb = desc_text(b);
	return ta && tb && strcmp(ta, tb) == 0;
}

/* --- reading: the space after each string becomes its NUL, so decoded
 * descriptors point into the file's buffer. */

struct cursor {
	char *p, *end;
};

static int take_space(struct cursor *c)
{
	if (c->p >= c->end || *c->p != ' ')
		return -EINVAL;
	*c->p++ = '\0';
	return 0;
}

/* "-": a missing string or array. */
static bool take_dash(struct cursor *c)
{
	if (c->end - c->p < 2 || c->p[0] != '-' || c->p[1] != ' ')
		return false;
	c->p += 2;
	return true;
}

static int take_u64(struct cursor *c, uint64_t *out)
{
	if (c->p >= c->end || *c->p < '0' || *c->p > '9')
		return -EINVAL;
	uint64_t v = 0;
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*c->p - '0');
	}
	*out = v;
	return take_space(c);
}

static int take_u32(struct cursor *c, uint32_t *out)
{
	uint64_t v;
	if (take_u64(c, &v) < 0 || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int take_i64(struct cursor *c, int64_t *out)
{
	uint64_t v;
	if (take_u64(c, &v) < 0 || v > INT64_MAX)
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

static int take_count(struct cursor *c, size_t *out)
{
	uint64_t v;
	if (take_u64(c, &v) < 0 || v > ITEMS_MAX)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

static int take_str(struct cursor *c, const char **out)
{
	if (take_dash(c)) {
		*out = NULL;
		return 0;
	}
	uint64_t len = 0;
	const char *digits = c->p;
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++)
		if ((len = len * 10 + (uint64_t)(*c->p - '0')) > FILE_MAX)
			return -EINVAL;
	if (c->p == digits || c->p >= c->end || *c->p != ':' || len >= (uint64_t)(c->end - c->p))
		return -EINVAL;
	char *s = ++c->p;
	if (memchr(s, '\0', (size_t)len))
		return -EINVAL;
	c->p += len;
	*out = s;
	return take_space(c);
}

static int take_desc(struct cursor *c, struct record *r)
{
	struct asb_plugin *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	r->owned = d;
	r->desc = d;
	d->magic = ASB_PLUGIN_MAGIC;
	uint32_t major, minor;
	size_t n;
	if (take_u32(c, &major) < 0 || take_u32(c, &minor) < 0 ||
	    take_u32(c, &d->struct_size) < 0 || take_u32(c, &d->kind) < 0 ||
	    take_u32(c, &d->load) < 0 || major > UINT16_MAX || minor > UINT16_MAX ||
	    take_str(c, &d->name) < 0 || take_str(c, &d->version) < 0 ||
	    take_str(c, &d->description) < 0 || take_str(c, &d->load_path) < 0)
		return -EINVAL;
	d->abi_major = (uint16_t)major;
	d->abi_minor = (uint16_t)minor;
	if (!take_dash(c)) {
		if (take_count(c, &n) < 0 || !(r->keys = calloc(n + 1, sizeof(*r->keys))))
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			if (take_str(c, &r->keys[i]) < 0 || !r->keys[i])
				return -EINVAL;
		d->config_keys = r->keys;
	}
	if (take_count(c, &n) < 0)
		return -EINVAL;
	if (n) {
		/* Terminated by a zeroed entry of the same size, as a plugin's. */
		if (!(r->options = calloc(n + 1, sizeof(*r->options))))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			struct asb_option *o = &r->options[i];
			o->struct_size = sizeof(*o);
			if (take_u32(c, &o->type) < 0 || take_str(c, &o->key) < 0 || !o->key ||
			    take_str(c, &o->flag) < 0 || take_str(c, &o->negative) < 0 ||
			    take_str(c, &o->env) < 0 || take_str(c, &o->help) < 0 ||
			    take_str(c, &o->values) < 0)
				return -EINVAL;
		}
		r->options[n].struct_size = sizeof(r->options[n]);
		d->options = r->options;
	}
	return 0;
}

/* "P PATH DEV INO SIZE MTIME MTIME_NS CTIME CTIME_NS DESCRIPTOR\n" */
static int take_record(struct cursor *c, struct record *r)
{
	const char *path;
	if (c->end - c->p < 2 || c->p[0] != 'P' || c->p[1] != ' ')
		return -EINVAL;
	c->p += 2;
	if (take_str(c, &path) < 0 || !path || path[0] != '/' || take_u64(c, &r->dev) < 0 ||
	    take_u64(c, &r->ino) < 0 || take_u64(c, &r->size) < 0 || take_i64(c, &r->mtime_s) < 0 ||
	    take_i64(c, &r->mtime_ns) < 0 || take_i64(c, &r->ctime_s) < 0 ||
	    take_i64(c, &r->ctime_ns) < 0)
		return -EINVAL;
	char *text_start = c->p;
	int e = take_desc(c, r);
	if (e < 0)
		return e;
	if (c->p >= c->end || *c->p != '\n')
		return -EINVAL;
	/* Kept as written, for a save that changes nothing else: the NULs
	 * cut into it are spaces again. */
	size_t len = (size_t)(c->p - text_start);
	if (!(r->text = malloc(len + 1)) || !(r->path = strdup(path)))
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		r->text[i] = text_start[i] ? text_start[i] : ' ';
	r->text[len] = '\0';
	c->p++;
	return 0;
}

static struct plugin_cache *empty(struct plugin_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		record_free(&c->v[i]);
	free(c->v);
	free(c->buf);
	*c = (struct plugin_cache){0};
	return c;
}

struct plugin_cache *plugin_cache_load(const char *file)
{
	struct plugin_cache *c = calloc(1, sizeof(*c));
	if (!c || !file)
		return c;
	_cleanup_close_ int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	/* Only this user's, writable by nobody else: it decides which plugins
	 * a launch loads. */
	size_t len;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || read_regular_fd(fd, FILE_MAX, &c->buf, &len) < 0)
		return c;
	struct cursor cur = {c->buf, c->buf + len};
	if (len < strlen(HEADER) || memcmp(c->buf, HEADER, strlen(HEADER)) != 0)
		return empty(c);
	cur.p += strlen(HEADER);
	while (cur.p < cur.end) {
		if (c->n == RECORDS_MAX)
			return empty(c);
		struct record *v = realloc(c->v, (c->n + 1) * sizeof(*v));
		if (!v)
			return empty(c);
		c->v = v;
		struct record *r = &c->v[c->n++];
		*r = (struct record){0};
		if (take_record(&cur, r) < 0)
			return empty(c); /* damaged: nothing of it is used */
	}
	return c;
}

static bool same_file(const struct record *r, const struct stat *st)
{
	return r->dev == (uint64_t)st->st_dev && r->ino == (uint64_t)st->st_ino &&
	       r->size == (uint64_t)st->st_size && r->mtime_s == (int64_t)st->st_mtim.tv_sec &&
	       r->mtime_ns == (int64_t)st->st_mtim.tv_nsec &&
	       r->ctime_s == (int64_t)st->st_ctim.tv_sec &&
	       r->ctime_ns == (int64_t)st->st_ctim.tv_nsec;
}

static struct record *by_path(struct plugin_cache *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].path, path) == 0)
			return &c->v[i];
	return NULL;
}

const struct asb_plugin *plugin_cache_find(struct plugin_cache *c, const char *path,
                                           const struct stat *st)
{
	struct record *r = c ? by_path(c, path) : NULL;
	if (!r || !same_file(r, st))
		return NULL;
	r->used = true;
	return r->desc;
}

int plugin_cache_put(struct plugin_cache *c, const char *path, const struct stat *st,
                     const struct asb_plugin *d, time_t now)
{
	if (!c || st->st_ctim.tv_sec >= now - PLUGIN_CACHE_SETTLED_S || st->st_ctim.tv_sec < 0 ||
	    st->st_mtim.tv_sec < 0)
		return 0;
	char *text = desc_text(d);
	if (!text)
		return -ENOMEM;
	struct record *r = by_path(c, path);
	if (!r) {
		if (c->n == RECORDS_MAX) {
			free(text);
			return 0;
		}
		struct record *v = realloc(c->v, (c->n + 1) * sizeof(*v));
		if (!v) {
			free(text);
			return -ENOMEM;
		}
		c->v = v;
		r = &c->v[c->n++];
		*r = (struct record){0};
		if (!(r->path = strdup(path))) {
			c->n--;
			free(text);
			return -ENOMEM;
		}
	} else {
		char *keep = TAKE_PTR(r->path);
		record_free(r);
		*r = (struct record){.path = keep};
	}
	r->dev = (uint64_t)st->st_dev;
	r->ino = (uint64_t)st->st_ino;
	r->size = (uint64_t)st->st_size;
	r->mtime_s = (int64_t)st->st_mtim.tv_sec;
	r->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
	r->ctime_s = (int64_t)st->st_ctim.tv_sec;
	r->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
	r->desc = d;
	r->text = text;
	r->used = true;
	c->changed = true;
	return 0;
}

int plugin_cache_save(struct plugin_cache *c, const char *file)
{
	if (!c || !file)
		return -EINVAL;
	/* A record no longer found (a plugin removed, another search path)
	 * is dropped: the file holds what this search path has. */
	for (size_t i = 0; i < c->n; i++)
		c->changed = c->changed || !c->v[i].used;
	if (!c->changed)
		return 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fputs(HEADER, f);
	for (size_t i = 0; i < c->n; i++) {
		const struct record *r = &c->v[i];
		if (!r->used)
			continue;
		fputs("P ", f);
		put_str(f, r->path);
		fprintf(f, "%llu %llu %llu %lld %lld %lld %lld %s\n", (unsigned long long)r->dev,
		        (unsigned long long)r->ino, (unsigned long long)r->size,
		        (long long)r->mtime_s, (long long)r->mtime_ns, (long long)r->ctime_s,
		        (long long)r->ctime_ns, r->text);
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	int r = len > FILE_MAX ? -E2BIG : write_file_replace(file, text, len);
	free(text);
	if (r == 0)
		c->changed = false;
	return r;
}
