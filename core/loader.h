/* SPDX-License-Identifier: MIT */
/* Finding, opening and checking plugins. Discovery reads every plugin's
 * descriptor in the search path (reading it runs none of its code beyond
 * the entry point), so the core knows each plugin's options and load rule
 * without knowing any plugin's name. A plugin file unchanged since an
 * earlier launch read it is not opened: its descriptor comes from the
 * records kept beside the sessions (core/plugin_cache.h), and it is opened
 * when it is taken, and checked against its record. A plugin is never
 * unloaded once its init ran: its code may still be referenced (atexit,
 * threads). */
#ifndef ASB_CORE_LOADER_H
#define ASB_CORE_LOADER_H

#include "util.h"

#include <agentsandbox/plugin.h>

#ifdef __APPLE__
#define PLUGIN_SUFFIX ".dylib"
#else
#define PLUGIN_SUFFIX ".so"
#endif

struct launch;
struct loaded_plugin;

struct asb_ctx {
	struct loaded_plugin *plugin;
	struct launch *launch;
};

/* One plugin file found in the search path. */
struct found_plugin {
	char *name;
	char *path;
	void *handle; /* NULL when it failed to load (error says why) or is recorded */
	const struct asb_plugin *desc;
	char *error;
	bool recorded; /* desc is the cache's record: not opened yet */
	bool taken;    /* handed to a loaded_plugin */
};

struct plugin_cache;

struct catalog {
	struct found_plugin *v;
	size_t n;
	struct plugin_cache *cache; /* the records descriptors may point into */
	char *cache_file;
};

struct loaded_plugin {
	char *name;
	char *path;
	void *handle;
	const struct asb_plugin *desc;
	struct asb_ctx ctx;
	void *data;  /* from init */
	void *group; /* config_setting_t of plugins.<name>, or NULL */
	bool initialized;
	bool configured;
	char *private_dir; /* from prepare on */
	/* The plugin asked for private_dir: it is made (only then, at the
	 * session's start or at the asking, whichever is later). */
	bool private_wanted;
};

/* Check a descriptor read from `path`; on mismatch set one clear error line
 * naming the file, its ABI and the supported one. */
int loader_check_descriptor(const struct asb_plugin *d, const char *path, const char *name);

/* Plugin directories to search, in order (dirs then the built-in one). */
int loader_search_path(const struct strv *dirs, struct strv *out);

/* Every NAME.so in the search path; the first one of each name wins. Each is
 * opened unless `cache_file` (NULL: none) holds a record of it as it is;
 * what was opened is recorded there. Plugins that fail to load stay in the
 * catalog with their error. */
int loader_discover(const struct strv *dirs, const char *cache_file, struct catalog *out);
/* Open every plugin the catalog has from its records (`agentsandbox
 * plugins` reports what each one does now). */
void catalog_open_all(struct catalog *c);
const struct found_plugin *catalog_find(const struct catalog *c, const char *name);
/* Release what no loaded_plugin took (dlclose: none of it ran). */
void catalog_free(struct catalog *c);
/* The same, in a process that exits next: the plugins no one took stay
 * mapped, for the exit to unmap them all at once (a dlclose each costs
 * more than the exit does for all of them). */
void catalog_free_at_exit(struct catalog *c);

/* Take `name` from the catalog into `out` (-ENOENT naming the search path,
 * or the plugin's own load error). */
int loader_take(struct catalog *c, const char *name, const struct strv *dirs,
                struct loaded_plugin *out);

/* The options a descriptor declares (NULL-terminated by key). */
const struct asb_option *loader_option_at(const struct asb_plugin *d, size_t i);

void loader_release(struct loaded_plugin *lp);

#endif
