/* SPDX-License-Identifier: MIT */
/* Finding, opening and checking plugins. A plugin is never unloaded once
 * its init ran: its code may still be referenced (atexit, threads). */
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

struct asb_ctx {
	struct loaded_plugin *plugin;
	struct launch *launch;
};

struct loaded_plugin {
	char *name;
	char *path;
	void *handle;
	const struct asb_plugin *desc;
	struct asb_ctx ctx;
	void *group; /* config_setting_t of plugins.<name>, or NULL */
	bool initialized;
	bool configured;
};

/* Check a descriptor read from `path`; on mismatch set one clear error line
 * naming the file, its ABI and the supported range. */
int loader_check_descriptor(const struct asb_plugin *d, const char *path, const char *name);

/* Search `dirs` (in order), then the compiled-in plugin directory, for
 * NAME.so; dlopen it and check it. */
int loader_open(const char *name, const struct strv *dirs, struct loaded_plugin *out);

/* Same for an explicit file (used by `agentsandbox plugins`). */
int loader_open_path(const char *path, const char *name, struct loaded_plugin *out);

/* Plugin directories to search, in order (dirs then the built-in one). */
int loader_search_path(const struct strv *dirs, struct strv *out);

void loader_release(struct loaded_plugin *lp);

#endif
