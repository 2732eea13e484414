/* SPDX-License-Identifier: MIT */
/* What discovery read of each plugin's descriptor (its name, kind, load
 * rule, config keys and options), kept beside the sessions
 * (<state root>/.plugin-cache) so that a later launch knows every plugin's
 * options and load rule while loading only the plugins it uses.
 *
 * A record stands for one file as it was: its device, inode, size, and
 * modification and change times. Any write, rename over or chmod of the
 * file moves its change time to "now", which no process can set back, so a
 * changed plugin never matches its old record. A record is made only of a
 * file whose change time was over PLUGIN_CACHE_SETTLED_S old when it was
 * read, so that no change in the same clock tick can hide behind it. Only a
 * cache file of this user's, writable by nobody else, is read, all or
 * nothing; it lies in the state root, which every sandbox sees read-only
 * (core/selfconfig.h). A plugin that is loaded is checked against its
 * record (plugin_cache_same). */
#ifndef ASB_CORE_PLUGIN_CACHE_H
#define ASB_CORE_PLUGIN_CACHE_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#define PLUGIN_CACHE_SETTLED_S 2

struct plugin_cache;

/* The records in `file` (none when it is missing, not this user's alone, or
 * damaged). NULL only without memory. */
struct plugin_cache *plugin_cache_load(const char *file);

/* The descriptor recorded for `path` when `st` (its stat now) is the file
 * the record describes; owned by the cache. NULL otherwise. */
const struct asb_plugin *plugin_cache_find(struct plugin_cache *c, const char *path,
                                           const struct stat *st);

/* Record what `path` (as `st`, taken before it was loaded) declares. The
 * descriptor is borrowed until the next save. A file changed less than
 * PLUGIN_CACHE_SETTLED_S before `now` is not recorded (0 all the same). */
int plugin_cache_put(struct plugin_cache *c, const char *path, const struct stat *st,
                     const struct asb_plugin *d, time_t now);

/* Write the records found or put since the load, when they differ from the
 * file's (0 when nothing changed). */
int plugin_cache_save(struct plugin_cache *c, const char *file);

/* Do two descriptors declare the same (all that a record holds)? */
bool plugin_cache_same(const struct asb_plugin *a, const struct asb_plugin *b);

void plugin_cache_free(struct plugin_cache *c);

#endif
