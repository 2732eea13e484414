/* SPDX-License-Identifier: MIT */
#include "agents.h"

#include "exec.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ASB_EXAMPLESDIR
#define ASB_EXAMPLESDIR "/usr/local/share/agentsandbox/examples"
#endif

bool agents_valid_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > 64 || name[0] == '-' || name[0] == '.')
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      *c == '-' || *c == '.'))
			return false;
	return true;
}

const char *agents_from_argv0(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;
	base = base ? base + 1 : argv0;
	if (!base || strcmp(base, "agentsandbox") == 0 || str_has_prefix(base, "agentsandbox-") ||
	    !agents_valid_name(base))
		return NULL;
	return base;
}

char *agents_config_dir(expand_lookup_fn lookup, void *ud)
{
	const char *xdg = lookup("XDG_CONFIG_HOME", ud);
	const char *home = lookup("HOME", ud);
	if (xdg && xdg[0] == '/')
		return str_printf("%s/agentsandbox", xdg);
	return home && home[0] == '/' ? str_printf("%s/.config/agentsandbox", home) : NULL;
}

char *agents_examples_dir(void)
{
	char self[PATH_MAX];
	struct stat st;
	if (exec_self_dir(self, sizeof(self)) == 0) {
		char *dir = str_printf("%s/examples", self);
		if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return dir;
		free(dir);
	}
	return strdup(ASB_EXAMPLESDIR);
}

/* DIR/NAME.cfg (DIR/NAME when it ends in .cfg already) when it is a file. */
static char *cfg_in(const char *dir, const char *name)
{
	struct stat st;
	size_t n = strlen(name);
	bool has_ext = n > 4 && strcmp(name + n - 4, ".cfg") == 0;
	char *path = dir ? str_printf("%s/%s%s", dir, name, has_ext ? "" : ".cfg") : NULL;
	if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return path;
	free(path);
	return NULL;
}

/* The user's, then the examples'. */
static char *cfg_find(const char *name, expand_lookup_fn lookup, void *ud)
{
	_cleanup_free_ char *mine = agents_config_dir(lookup, ud);
	_cleanup_free_ char *examples = agents_examples_dir();
	char *p = cfg_in(mine, name);
	return p ? p : cfg_in(examples, name);
}

int agents_find(const char *name, expand_lookup_fn lookup, void *ud, char **path)
{
	if (!agents_valid_name(name))
		return -EINVAL;
	char *p = cfg_find(name, lookup, ud);
	if (!p)
		return -ENOENT;
	*path = p;
	return 0;
}

char *agents_config_by_name(const char *name, expand_lookup_fn lookup, void *ud)
{
	struct stat st;
	/* A file of that name here wins (a directory "claude" in a project
	 * does not). */
	if (strchr(name, '/') || (stat(name, &st) == 0 && !S_ISDIR(st.st_mode)))
		return strdup(name);
	char *p = name[0] ? cfg_find(name, lookup, ud) : NULL;
	return p ? p : strdup(name); /* not found: the error names what was given */
}

static int list_dir(const char *dir, struct strv *out)
{
	_cleanup_closedir_ DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n <= 4 || strcmp(de->d_name + n - 4, ".cfg") != 0)
			continue;
		_cleanup_free_ char *name = strndup(de->d_name, n - 4);
		if (!name)
			return -ENOMEM;
		if (agents_valid_name(name) && strcmp(name, "default") != 0 &&
		    !strv_contains(out, name)) {
			int r = strv_push(out, name);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int agents_list(expand_lookup_fn lookup, void *ud, struct strv *out)
{
	_cleanup_free_ char *mine = agents_config_dir(lookup, ud);
	_cleanup_free_ char *examples = agents_examples_dir();
	int r = list_dir(mine, out);
	if (r >= 0)
		r = list_dir(examples, out);
	if (r >= 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(char *), cmp_str);
	return r;
}

static char *starter(const char *name)
{
	return str_printf(
	    "# agentsandbox policy for %s, written by `agentsandbox init %s`.\n"
	    "# Run it from a project directory: agentsandbox %s [options] [-- args]\n"
	    "# See agentsandbox(1) and the examples for more.\n"
	    "sandbox: {\n"
	    "  name = \"%s\";\n"
	    "  command = \"%s\";                # on your PATH at launch\n"
	    "  packages = [ \"git?\" ];          # \"x?\": only when installed\n"
	    "  rw_dirs = [ ];                  # the agent's own state, e.g. \"$HOME/.%s\"\n"
	    "};\n"
	    "network: {\n"
	    "  allowed_domains = ( );          # the domains the agent needs\n"
	    "};\n",
	    name, name, name, name, name, name);
}

int agents_init(const char *name, bool force, expand_lookup_fn lookup, void *ud, char **written)
{
	if (!agents_valid_name(name)) {
		err_set("init %s: an agent's name is a-z, 0-9, '_', '-' and '.'", name);
		return -EINVAL;
	}
	_cleanup_free_ char *dir = agents_config_dir(lookup, ud);
	if (!dir) {
		err_set("init: set $HOME or $XDG_CONFIG_HOME");
		return -ENOENT;
	}
	_cleanup_free_ char *path = str_printf("%s/%s.cfg", dir, name);
	_cleanup_free_ char *examples = agents_examples_dir();
	_cleanup_free_ char *example = cfg_in(examples, name);
	_cleanup_free_ char *text = NULL;
	int r;
	if (!path)
		return -ENOMEM;
	if (example) {
		_cleanup_free_ char *body = NULL;
		if ((r = read_file(example, &body, NULL)) < 0) {
			err_set("init: cannot read %s: %s", example, strerror(-r));
			return r;
		}
		text = str_printf("# Written by `agentsandbox init %s` from %s.\n%s", name, example,
		                  body);
	} else {
		text = starter(name);
	}
	if (!text)
		return -ENOMEM;
	if ((r = mkdir_p(dir, 0700)) < 0) {
		err_set("init: cannot make %s: %s", dir, strerror(-r));
		return r;
	}
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
	_cleanup_close_ int fd = open(path, flags, 0644);
	if (fd < 0) {
		r = -errno;
		if (r == -EEXIST)
			err_set("init: %s exists (pass --force to replace it)", path);
		else
			err_set("init: cannot write %s: %s", path, strerror(-r));
		return r;
	}
	if ((r = write_all(fd, text, strlen(text))) < 0) {
		err_set("init: cannot write %s: %s", path, strerror(-r));
		return r;
	}
	*written = TAKE_PTR(path);
	return 0;
}
