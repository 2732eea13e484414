/* SPDX-License-Identifier: MIT */
/* Scoped cleanup helpers for in-tree plugins, which include only the public
 * header and never core/'s util.h. */
#ifndef ASB_PLUGIN_CLEANUP_H
#define ASB_PLUGIN_CLEANUP_H

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void closedirp(DIR **d)
{
	if (*d != NULL)
		closedir(*d);
}

#define _cleanup_free_     __attribute__((cleanup(freep)))
#define _cleanup_close_    __attribute__((cleanup(closep)))
#define _cleanup_closedir_ __attribute__((cleanup(closedirp)))

#endif
