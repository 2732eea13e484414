/* SPDX-License-Identifier: MIT */
#include "loader.h"

#include "log.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifndef ASB_PLUGINDIR
#define ASB_PLUGINDIR "/usr/local/lib/agentsandbox/plugins"
#endif

/* The smallest descriptor this host understands (ABI 1.0). */
#define DESC_MIN_SIZE (offsetof(struct asb_plugin, backend) + sizeof(void *))

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
		err_set("plugin %s: ABI %u.%u, this agentsandbox supports %u.0-%u.x; rebuild it "
		        "against this version's <agentsandbox/plugin.h>",
		        path, d->abi_major, d->abi_minor, ASB_ABI_MAJOR, ASB_ABI_MAJOR);
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
	    (!d->backend || d->backend->struct_size < offsetof(struct asb_backend_ops, exec) ||
	     !d->backend->build)) {
		err_set("plugin %s: a backend without a build operation", path);
		return -EINVAL;
	}
	if (d->hooks && d->hooks->struct_size < offsetof(struct asb_hooks, configure)) {
		err_set("plugin %s: hooks table too small (%u bytes)", path, d->hooks->struct_size);
		return -EPROTO;
	}
	return 0;
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

int loader_open_path(const char *path, const char *name, struct loaded_plugin *out)
{
	*out = (struct loaded_plugin){0};
	dlerror();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		err_set("plugin %s: cannot load: %s", path, e ? e : "unknown error");
		return -ENOEXEC;
	}
	asb_plugin_entry_fn entry;
	*(void **)&entry = dlsym(h, ASB_PLUGIN_ENTRY_NAME);
	if (!entry) {
		err_set("plugin %s: no %s symbol (not an agentsandbox plugin)", path,
		        ASB_PLUGIN_ENTRY_NAME);
		dlclose(h);
		return -ENOEXEC;
	}
	const struct asb_plugin *d = entry();
	int r = loader_check_descriptor(d, path, name);
	if (r < 0) {
		dlclose(h); /* safe: nothing of it ran beyond the entry point */
		return r;
	}
	out->name = strdup(name);
	out->path = strdup(path);
	out->handle = h;
	out->desc = d;
	out->ctx.plugin = out;
	if (!out->name || !out->path)
		return -ENOMEM;
	return 0;
}

int loader_open(const char *name, const struct strv *dirs, struct loaded_plugin *out)
{
	if (!valid_plugin_name(name)) {
		err_set("plugin name \"%s\" is not valid (a-z, 0-9, _ and -)", name);
		return -EINVAL;
	}
	struct strv search = {0};
	int r = loader_search_path(dirs, &search);
	if (r < 0)
		return r;
	for (size_t i = 0; i < search.n; i++) {
		_cleanup_free_ char *path = str_printf("%s/%s" PLUGIN_SUFFIX, search.v[i], name);
		struct stat st;
		if (!path) {
			r = -ENOMEM;
			goto out;
		}
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		r = loader_open_path(path, name, out);
		goto out;
	}
	{
		_cleanup_free_ char *where = NULL;
		size_t len = 1;
		for (size_t i = 0; i < search.n; i++)
			len += strlen(search.v[i]) + 1;
		where = calloc(1, len);
		for (size_t i = 0; where && i < search.n; i++) {
			if (i)
				strcat(where, ":");
			strcat(where, search.v[i]);
		}
		err_set("plugin \"%s\" not found (searched %s)", name, where ? where : "");
		r = -ENOENT;
	}
out:
	strv_clear(&search);
	return r;
}

void loader_release(struct loaded_plugin *lp)
{
	/* dlclose only what never ran init: see the header. */
	if (lp->handle && !lp->initialized)
		dlclose(lp->handle);
	free(lp->name);
	free(lp->path);
	*lp = (struct loaded_plugin){0};
}
