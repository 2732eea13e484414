/* SPDX-License-Identifier: MIT */
#include "python_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

/* PARENT for PARENT/bin/NAME (malloc'd), else NULL with *name unset. */
static char *above_bin(const char *path, const char **name, int *err)
{
	*err = 0;
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path || !slash[1])
		return NULL;
	static const char bin[] = "/bin";
	size_t dir_len = (size_t)(slash - path), bin_len = sizeof(bin) - 1;
	if (dir_len <= bin_len || memcmp(path + dir_len - bin_len, bin, bin_len) != 0)
		return NULL;
	char *parent = strndup(path, dir_len - bin_len);
	if (!parent)
		*err = -ENOMEM;
	*name = slash + 1;
	return parent;
}

/* *out = *parent (taken) when PARENT/rel is of `kind`. 0 or -ENOMEM. */
static int take_if_holds(char **parent, const char *rel, mode_t kind, char **out)
{
	_cleanup_free_ char *path = str_printf("%s/%s", *parent, rel);
	if (!path)
		return -ENOMEM;
	struct stat st;
	if (stat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind)
		*out = TAKE_PTR(*parent);
	return 0;
}

int python_venv_root(const char *path, char **root)
{
	*root = NULL;
	const char *name = NULL;
	int err;
	_cleanup_free_ char *parent = above_bin(path, &name, &err);
	return parent ? take_if_holds(&parent, "pyvenv.cfg", S_IFREG, root) : err;
}

int python_prefix(const char *resolved, char **prefix)
{
	*prefix = NULL;
	const char *name = NULL;
	int err;
	_cleanup_free_ char *parent = above_bin(resolved, &name, &err);
	if (!parent)
		return err;
	/* pythonX or pythonX.Y: the name its library directory has. */
	static const char py[] = "python";
	size_t n = sizeof(py) - 1;
	if (strncmp(name, py, n) != 0 || !name[n] ||
	    strspn(name + n, "0123456789.") != strlen(name + n))
		return 0;
	_cleanup_free_ char *lib = str_printf("lib/%s", name);
	if (!lib)
		return -ENOMEM;
	return take_if_holds(&parent, lib, S_IFDIR, prefix);
}
