/* SPDX-License-Identifier: MIT */
#include "loader.h"

#include "log.h"
#include "plugin_cache.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef ASB_PLUGINDIR
#define ASB_PLUGINDIR "/usr/local/lib/agentsandbox/plugins"
#endif

/* The smallest descriptor of this major version (2.0). */
#define DESC_MIN_SIZE (offsetof(struct asb_plugin, backend) + sizeof(void *))
#define OPS_MIN_SIZE  (offsetof(struct asb_backend_ops, cleanup) + sizeof(void *))

int loader_check_descriptor(const struct asb_plugin *d, const char *path, const char *name)
{
	if (!d) {
		err_set("plugin %s: %s() returned no descriptor", path, ASB_PLUGIN_ENTRY_NAME);
		return -EINVAL;
	}
	if (d->magic != ASB_PLUGIN_MAGIC) {
		err_set(
		    "plugin %s: bad magic 0x%08x (not an agentsandbox plugin, or a corrupt one)",
		    path, d->magic);
		return -EINVAL;
	}
	if (d->abi_major != ASB_ABI_MAJOR) {
		err_set("plugin %s: built for plugin ABI %u.%u, this agentsandbox needs %u.x; "
		        "rebuild it against this version's <agentsandbox/plugin.h>",
		        path, d->abi_major, d->abi_minor, ASB_ABI_MAJOR);
		return -EPROTO;
	}
	if (d->struct_size < DESC_MIN_SIZE) {
		err_set("plugin %s: descriptor is %u bytes, ABI %u needs at least %zu", path,
		        d->struct_size, ASB_ABI_MAJOR, (size_t)DESC_MIN_SIZE);
		return -EPROTO;
	}
	if (!d->name || strcmp(d->name, name) != 0) {
		err_set("plugin %s: calls itself \"%s\", expected \"%s\"", path,
		        d->name ? d->name : "(null)", name);
		return -EINVAL;
	}
	if (!(d->kind & (ASB_KIND_BACKEND | ASB_KIND_FEATURE))) {
		err_set("plugin %s: kind 0x%x is neither backend nor feature", path, d->kind);
		return -EINVAL;
	}
	if ((d->kind & ASB_KIND_BACKEND) &&
	    (!d->backend || d->backend->struct_size < OPS_MIN_SIZE || !d->backend->build)) {
		err_set("plugin %s: a backend without a build operation", path);
		return -EINVAL;
	}
	if (d->hooks && d->hooks->struct_size < offsetof(struct asb_hooks, configure)) {
		err_set("plugin %s: hooks table too small (%u bytes)", path, d->hooks->struct_size);
		return -EPROTO;
	}
	if (d->load > ASB_LOAD_IF_EXISTS || (d->load == ASB_LOAD_IF_EXISTS && !d->load_path)) {
		err_set("plugin %s: unknown load rule %u", path, d->load);
		return -EINVAL;
	}
	for (size_t i = 0; loader_option_at(d, i); i++) {
		const struct asb_option *o = loader_option_at(d, i);
		if (o->struct_size < offsetof(struct asb_option, help) + sizeof(o->help) ||
		    (o->type != ASB_OPT_BOOL && o->type != ASB_OPT_STRING &&
		     o->type != ASB_OPT_LIST) ||
		    (!o->flag && !o->env)) {
			err_set("plugin %s: option %s is malformed", path, o->key);
			return -EINVAL;
		}
	}
	return 0;
}

const struct asb_option *loader_option_at(const struct asb_plugin *d, size_t i)
{
	if (!d->options)
		return NULL;
	/* Options are an array of structs of the plugin's struct_size. */
	uint32_t size = d->options[0].struct_size;
	if (size < offsetof(struct asb_option, key) + sizeof(void *))
		return NULL;
	const struct asb_option *o =
	    (const struct asb_option *)((const char *)d->options + (size_t)size * i);
	return o->key ? o : NULL;
}

int loader_search_path(const struct strv *dirs, struct strv *out)
{
	int r;
	for (size_t i = 0; dirs && i < dirs->n; i++)
		if ((r = strv_push(out, dirs->v[i])) < 0)
			return r;
	return strv_push(out, ASB_PLUGINDIR);
}

static bool valid_plugin_name(const char *name)
{
	if (!*name)
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      *c == '-'))
			return false;
	return true;
}

/* Only regular files (after symlinks) are dlopened: a FIFO named x.so would
 * block dlopen, a directory would fail it. readdir's d_type answers for most
 * entries, saving a stat a plugin (ld.so opens and fstats it anyway); a
 * symlink, or a file system that leaves d_type DT_UNKNOWN, is stat'ed. */
static bool is_regular(const struct dirent *de, const char *path)
{
#ifdef DT_UNKNOWN
	if (de->d_type == DT_REG)
		return true;
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return false;
#endif
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dlopen and check; on failure the message is in *error. */
static void open_one(struct found_plugin *f)
{
	err_clear();
	dlerror();
	void *h = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		f->error =
		    str_printf("plugin %s: cannot load: %s", f->path, e ? e : "unknown error");
		return;
	}
	asb_plugin_entry_fn entry;
	*(void **)&entry = dlsym(h, ASB_PLUGIN_ENTRY_NAME);
	if (!entry) {
		f->error = str_printf("plugin %s: no %s symbol (not an agentsandbox plugin)",
		                      f->path, ASB_PLUGIN_ENTRY_NAME);
		dlclose(h);
		return;
	}
	const struct asb_plugin *d = entry();
	if (loader_check_descriptor(d, f->path, f->name) < 0) {
		f->error = strdup(err_get() ? err_get() : "invalid descriptor");
		err_clear();
		dlclose(h); /* safe: nothing of it ran beyond the entry point */
		return;
	}
	f->handle = h;
	f->desc = d;
}

const struct found_plugin *catalog_find(const struct catalog *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	return NULL;
}

/* A recorded plugin, opened now: the same descriptor as its record, or an
 * error. Its options were read from the record, so a plugin that declares
 * something else is not used; the records go, and the next launch reads
 * every plugin afresh. */
static void open_recorded(struct catalog *c, struct found_plugin *f)
{
	const struct asb_plugin *record = f->desc;
	f->recorded = false;
	f->desc = NULL;
	open_one(f);
	if (f->handle && !plugin_cache_same(record, f->desc)) {
		f->error = str_printf("plugin %s: does not declare what its record in %s says (was "
		                      "it changed while agentsandbox started?); the records are "
		                      "removed: run again",
		                      f->path, c->cache_file);
		if (c->cache_file)
			unlink(c->cache_file);
		dlclose(f->handle);
		f->handle = NULL;
		f->desc = NULL;
	}
}

void catalog_open_all(struct catalog *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].recorded)
			open_recorded(c, &c->v[i]);
}

int loader_discover(const struct strv *dirs, const char *cache_file, struct catalog *out)
{
	struct strv search = {0};
	int r = loader_search_path(dirs, &search);
	struct plugin_cache *cache = cache_file ? plugin_cache_load(cache_file) : NULL;
	out->cache = cache;
	if (cache && !(out->cache_file = strdup(cache_file)))
		r = -ENOMEM;
	time_t now = time(NULL);
	for (size_t i = 0; r >= 0 && i < search.n; i++) {
		_cleanup_closedir_ DIR *d = opendir(search.v[i]);
		struct dirent *de;
		while (d && r >= 0 && (de = readdir(d))) {
			size_t n = strlen(de->d_name), s = strlen(PLUGIN_SUFFIX);
			if (de->d_name[0] == '.' || n <= s ||
			    strcmp(de->d_name + n - s, PLUGIN_SUFFIX) != 0)
				continue;
			_cleanup_free_ char *name = strndup(de->d_name, n - s);
			if (!name) {
				r = -ENOMEM;
				break;
			}
			if (!valid_plugin_name(name) || catalog_find(out, name))
				continue;
			_cleanup_free_ char *path = str_printf("%s/%s", search.v[i], de->d_name);
			if (!path) {
				r = -ENOMEM;
				break;
			}
			/* With records, the file's identity is needed anyway. */
			struct stat st;
			if (cache
			        ? fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode)
			        : !is_regular(de, path))
				continue;
			struct found_plugin *v = realloc(out->v, (out->n + 1) * sizeof(*v));
			if (!v) {
				r = -ENOMEM;
				break;
			}
			out->v = v;
			struct found_plugin *f = &out->v[out->n++];
			*f = (struct found_plugin){.name = TAKE_PTR(name), .path = TAKE_PTR(path)};
			if ((f->desc = plugin_cache_find(cache, f->path, &st))) {
				f->recorded = true;
				continue;
			}
			open_one(f);
			if (cache && f->desc)
				r = plugin_cache_put(cache, f->path, &st, f->desc, now);
		}
	}
	strv_clear(&search);
	/* Not kept (no state root yet, a full disk): the next launch opens
	 * them again. */
	if (r >= 0 && cache)
		(void)plugin_cache_save(cache, cache_file);
	return r;
}

static void catalog_release(struct catalog *c, bool unmap)
{
	for (size_t i = 0; i < c->n; i++) {
		struct found_plugin *f = &c->v[i];
		if (unmap && f->handle && !f->taken)
			dlclose(f->handle);
		free(f->name);
		free(f->path);
		free(f->error);
	}
	free(c->v);
	plugin_cache_free(c->cache);
	free(c->cache_file);
	*c = (struct catalog){0};
}

void catalog_free(struct catalog *c)
{
	catalog_release(c, true);
}

void catalog_free_at_exit(struct catalog *c)
{
	catalog_release(c, false);
}

int loader_take(struct catalog *c, const char *name, const struct strv *dirs,
                struct loaded_plugin *out)
{
	*out = (struct loaded_plugin){0};
	if (!valid_plugin_name(name)) {
		err_set("plugin name \"%s\" is not valid (a-z, 0-9, _ and -)", name);
		return -EINVAL;
	}
	struct found_plugin *f = (struct found_plugin *)catalog_find(c, name);
	if (f && f->recorded)
		open_recorded(c, f);
	if (!f) {
		struct strv search = {0};
		(void)loader_search_path(dirs, &search);
		size_t len = 1;
		for (size_t i = 0; i < search.n; i++)
			len += strlen(search.v[i]) + 1;
		_cleanup_free_ char *where = calloc(1, len);
		for (size_t i = 0; where && i < search.n; i++) {
			if (i)
				strcat(where, ":");
			strcat(where, search.v[i]);
		}
		strv_clear(&search);
		err_set("plugin \"%s\" not found (searched %s)", name, where ? where : "");
		return -ENOENT;
	}
	if (!f->handle) {
		err_set("%s", f->error ? f->error : "cannot load");
		return -ENOEXEC;
	}
	if (f->taken)
		return -EALREADY;
	out->name = strdup(f->name);
	out->path = strdup(f->path);
	if (!out->name || !out->path) {
		free(out->name);
		free(out->path);
		return -ENOMEM;
	}
	out->handle = f->handle;
	out->desc = f->desc;
	out->ctx.plugin = out;
	f->taken = true;
	return 0;
}

void loader_release(struct loaded_plugin *lp)
{
	/* dlclose only what never ran init: see the header. */
	if (lp->handle && !lp->initialized)
		dlclose(lp->handle);
	free(lp->name);
	free(lp->path);
	free(lp->private_dir);
	*lp = (struct loaded_plugin){0};
}
