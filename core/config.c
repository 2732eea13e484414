/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "rlimits.h"
#include "termfilter.h"
#include "log.h"
#include "netrules.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *config_where(const config_setting_t *s)
{
	static char where[PATH_MAX + 32];
	const char *file = s ? config_setting_source_file(s) : NULL;
	snprintf(where, sizeof(where), "%s:%u", file ? file : "(config)",
	         s ? config_setting_source_line(s) : 0);
	return where;
}

/* Every error of a file at once, each with its file:line: a check that
 * fails is noted and the next key is checked; config_load reports them
 * together (one a line). Only running out of memory stops at once. */
static struct strv noted;
static int first_noted;

static int note(int r)
{
	if (r >= 0 || r == -ENOMEM)
		return r;
	const char *m = err_get();
	if (strv_push(&noted, m ? m : strerror(-r)) < 0)
		return -ENOMEM;
	err_clear();
	if (!first_noted)
		first_noted = r;
	return 0;
}

int config_check_text(const char *where, const char *what, const char *value)
{
	for (const unsigned char *c = (const unsigned char *)value; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			/* A newline would start a line of its own in launch.log and
			 * bwrap.args, an escape would drive the terminal that reads
			 * them: such a name is refused, never cleaned up. */
			/* Shown escaped: errors reach the terminal one a line. */
			_cleanup_free_ char *shown = log_escape(value);
			err_set("%s%s%s: \"%s\" contains a control character (0x%02x at byte %zu); "
			        "rename it",
			        where ? where : "", where ? ": " : "", what, shown ? shown : "?",
			        *c, (size_t)(c - (const unsigned char *)value));
			return -EINVAL;
		}
	return 0;
}

static int type_error(const config_setting_t *s, const char *path, const char *want)
{
	err_set("%s: %s must be %s, not %s", config_where(s), path, want,
	        netrules_type_name(config_setting_type(s)));
	return -EINVAL;
}

/* Reject keys not in `allowed` (NULL-terminated). */
static int check_keys(const config_setting_t *group, const char *path, const char *const *allowed)
{
	int n = config_setting_length(group);
	for (int i = 0; i < n; i++) {
		const config_setting_t *c = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(c);
		bool known = false;
		for (const char *const *a = allowed; *a; a++)
			if (strcmp(*a, name) == 0)
				known = true;
		if (!known) {
			_cleanup_free_ char *list = NULL;
			size_t len = 0;
			for (const char *const *a = allowed; *a; a++)
				len += strlen(*a) + 2;
			list = calloc(1, len + 1);
			for (const char *const *a = allowed; list && *a; a++) {
				if (a != allowed)
					strcat(list, ", ");
				strcat(list, *a);
			}
			err_set("%s: unknown key '%s%s%s' (known: %s)", config_where(c),
			        path ? path : "", path ? "." : "", name, list ? list : "");
			if (note(-EINVAL) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int config_expand_path(const config_setting_t *s, const char *what, const char *in,
                       expand_lookup_fn lookup, void *userdata, char **out)
{
	_cleanup_free_ char *bad = NULL;
	_cleanup_free_ char *value = NULL;
	int r = expand_vars(in, lookup, userdata, &value, &bad);
	if (r == -ENOENT) {
		err_set("%s: %s: variable $%s is not set (in \"%s\")", config_where(s), what, bad,
		        in);
		return r;
	}
	if (r < 0) {
		err_set("%s: %s: %s (in \"%s\")", config_where(s), what, bad ? bad : strerror(-r),
		        in);
		return r;
	}
	if ((r = config_check_text(config_where(s), what, value)) < 0)
		return r;
	if (value[0] != '/') {
		err_set("%s: %s: \"%s\" is not an absolute path after expansion (\"%s\")",
		        config_where(s), what, in, value);
		return -EINVAL;
	}
	/* Drop trailing slashes so paths compare and sort as one would expect. */
	size_t len = strlen(value);
	while (len > 1 && value[len - 1] == '/')
		value[--len] = '\0';
	*out = TAKE_PTR(value);
	return 0;
}

static int get_string(const config_setting_t *s, const char *path, struct pstr *dst)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return type_error(s, path, "a string");
	int r = config_check_text(config_where(s), path, config_setting_get_string(s));
	if (r < 0)
		return r;
	char *v = strdup(config_setting_get_string(s));
	if (!v)
		return -ENOMEM;
	free(dst->value);
	dst->value = v;
	dst->source = SRC_FILE;
	dst->line = config_setting_source_line(s);
	return 0;
}

static int get_bool(const config_setting_t *s, const char *path, struct pbool *dst)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return type_error(s, path, "a boolean (true or false)");
	dst->value = config_setting_get_bool(s);
	dst->source = SRC_FILE;
	dst->line = config_setting_source_line(s);
	return 0;
}

/* A list or array of strings; `paths` expands and checks each entry. */
static int get_list(const config_setting_t *s, const char *path, struct plist *dst, bool paths,
                    expand_lookup_fn lookup, void *userdata)
{
	int type = config_setting_type(s);
	if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
		return type_error(s, path, "a list of strings [ \"...\" ]");
	strv_clear(&dst->items);
	int n = config_setting_length(s);
	free(dst->item_lines);
	if (!(dst->item_lines = calloc((size_t)n + 1, sizeof(int))))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			err_set("%s: %s[%d] must be a string, not %s", config_where(e), path, i,
			        netrules_type_name(config_setting_type(e)));
			return -EINVAL;
		}
		const char *str = config_setting_get_string(e);
		dst->item_lines[i] = config_setting_source_line(e);
		int r;
		if (paths) {
			char *expanded = NULL;
			_cleanup_free_ char *what = str_printf("%s[%d]", path, i);
			r = config_expand_path(e, what ? what : path, str, lookup, userdata,
			                       &expanded);
			if (r < 0)
				return r;
			r = strv_push_take(&dst->items, expanded);
		} else {
			if (!*str) {
				err_set("%s: %s[%d] is empty", config_where(e), path, i);
				return -EINVAL;
			}
			/* Names and paths, not the agent's arguments (a prompt may
			 * hold a newline). */
			_cleanup_free_ char *what = str_printf("%s[%d]", path, i);
			if (strcmp(path, "sandbox.args") != 0 &&
			    (r = config_check_text(config_where(e), what ? what : path, str)) < 0)
				return r;
			r = strv_push(&dst->items, str);
		}
		if (r < 0)
			return r;
	}
	dst->source = SRC_FILE;
	dst->line = config_setting_source_line(s);
	return 0;
}

static bool valid_env_name(const char *k)
{
	if (!*k || !(isalpha((unsigned char)*k) || *k == '_'))
		return false;
	for (; *k; k++)
		if (!(isalnum((unsigned char)*k) || *k == '_'))
			return false;
	return true;
}

static int get_env(struct policy *p, const config_setting_t *s, expand_lookup_fn lookup,
                   void *userdata)
{
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return type_error(s, "sandbox.env", "a group { KEY = \"value\"; }");
	int n = config_setting_length(s);
	p->env = calloc((size_t)n + 1, sizeof(*p->env));
	if (!p->env)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *key = config_setting_name(e);
		if (!valid_env_name(key)) {
			err_set("%s: sandbox.env: '%s' is not a valid variable name",
			        config_where(e), key);
			return -EINVAL;
		}
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			err_set("%s: sandbox.env.%s must be a string, not %s", config_where(e), key,
			        netrules_type_name(config_setting_type(e)));
			return -EINVAL;
		}
		const char *raw = config_setting_get_string(e);
		_cleanup_free_ char *bad = NULL;
		char *value = NULL;
		int r = expand_vars(raw, lookup, userdata, &value, &bad);
		if (r == -ENOENT) {
			err_set("%s: sandbox.env.%s: variable $%s is not set (write ${%s:-} to "
			        "allow it to be empty)",
			        config_where(e), key, bad, bad);
			return r;
		}
		if (r < 0) {
			err_set("%s: sandbox.env.%s: %s", config_where(e), key,
			        bad ? bad : strerror(-r));
			return r;
		}
		struct env_entry *ent = &p->env[p->n_env++];
		ent->key = strdup(key);
		ent->raw = strdup(raw);
		if (*value) {
			ent->value = value;
		} else {
			free(value);
			ent->value = NULL;
		}
		ent->source = SRC_FILE;
		ent->line = config_setting_source_line(e);
		if (!ent->key || !ent->raw)
			return -ENOMEM;
	}
	return 0;
}

/* Declared ro paths and rw files must exist; rw dirs may be created later. */
static int check_exists(const config_setting_t *list, const char *path, const struct plist *l,
                        bool want_dir, bool may_be_missing)
{
	for (size_t i = 0; i < l->items.n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		struct stat st;
		if (stat(l->items.v[i], &st) < 0) {
			if (errno == ENOENT && may_be_missing)
				continue;
			err_set("%s: %s: %s: %s", config_where(e), path, l->items.v[i],
			        strerror(errno));
			return -ENOENT;
		}
		if (want_dir && !S_ISDIR(st.st_mode)) {
			err_set("%s: %s: %s is not a directory", config_where(e), path,
			        l->items.v[i]);
			return -ENOTDIR;
		}
		if (!want_dir && S_ISDIR(st.st_mode)) {
			err_set("%s: %s: %s is a directory (declare it in %s)", config_where(e),
			        path, l->items.v[i], strstr(path, "rw") ? "rw_dirs" : "ro_dirs");
			return -EISDIR;
		}
	}
	return 0;
}

static int load_sandbox(struct policy *p, const config_setting_t *g, expand_lookup_fn lookup,
                        void *userdata)
{
	static const char *const keys[] = {"name",           "command",    "args",
	                                   "backend",        "workspace",  "packages",
	                                   "rw_dirs",        "rw_files",   "ro_dirs",
	                                   "ro_files",       "env",        "common_tools",
	                                   "allow_home",     "limits",     "require_landlock",
	                                   "accept_weaker",  "public_env", "terminal_filter",
	                                   "terminal_allow", NULL};
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return type_error(g, "sandbox", "a group { }");
	int r = check_keys(g, "sandbox", keys);
	if (r < 0)
		return r;

	const config_setting_t *s;
	if ((s = config_setting_get_member(g, "name")) &&
	    (r = note(get_string(s, "sandbox.name", &p->name))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "command")) &&
	    (r = note(get_string(s, "sandbox.command", &p->command))) < 0)
		return r;
	/* "~/.local/bin/claude", "$HOME/bin/x": a path, expanded like the others
	 * (a plain name is looked up on PATH). */
	if (s && p->command.value &&
	    (p->command.value[0] == '~' || strchr(p->command.value, '$'))) {
		char *cmd = NULL;
		r = config_expand_path(s, "sandbox.command", p->command.value, lookup, userdata,
		                       &cmd);
		if (r >= 0) {
			free(p->command.value);
			p->command.value = cmd;
		} else if ((r = note(r)) < 0) {
			return r;
		}
	}
	if ((s = config_setting_get_member(g, "backend")) &&
	    (r = note(get_string(s, "sandbox.backend", &p->backend))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "workspace"))) {
		char *ws = NULL;
		if (config_setting_type(s) != CONFIG_TYPE_STRING)
			r = type_error(s, "sandbox.workspace", "a string");
		else
			r = config_expand_path(s, "sandbox.workspace", config_setting_get_string(s),
			                       lookup, userdata, &ws);
		if (r >= 0) {
			free(p->workspace.value);
			p->workspace = (struct pstr){ws, SRC_FILE, config_setting_source_line(s)};
		} else if ((r = note(r)) < 0) {
			return r;
		}
	}
	if ((s = config_setting_get_member(g, "args")) &&
	    (r = note(get_list(s, "sandbox.args", &p->args, false, lookup, userdata))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "packages")) &&
	    (r = note(get_list(s, "sandbox.packages", &p->packages, false, lookup, userdata))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "accept_weaker")) &&
	    (r = note(get_list(s, "sandbox.accept_weaker", &p->accept_weaker, false, lookup,
	                       userdata))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "public_env")) &&
	    (r = note(get_list(s, "sandbox.public_env", &p->public_env, false, lookup, userdata))) <
	        0)
		return r;

	struct {
		const char *key;
		struct plist *list;
		bool dir;
		bool may_be_missing;
	} lists[] = {
	    {"rw_dirs", &p->rw_dirs, true, true},
	    {"rw_files", &p->rw_files, false, false},
	    {"ro_dirs", &p->ro_dirs, true, false},
	    {"ro_files", &p->ro_files, false, false},
	};
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		if (!(s = config_setting_get_member(g, lists[i].key)))
			continue;
		_cleanup_free_ char *path = str_printf("sandbox.%s", lists[i].key);
		if (!path)
			return -ENOMEM;
		if ((r = get_list(s, path, lists[i].list, true, lookup, userdata)) < 0) {
			if ((r = note(r)) < 0)
				return r;
			continue;
		}
		if ((r = note(check_exists(s, path, lists[i].list, lists[i].dir,
		                           lists[i].may_be_missing))) < 0)
			return r;
	}
	if ((s = config_setting_get_member(g, "env")) &&
	    (r = note(get_env(p, s, lookup, userdata))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "common_tools")) &&
	    (r = note(get_bool(s, "sandbox.common_tools", &p->common_tools))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "allow_home")) &&
	    (r = note(get_bool(s, "sandbox.allow_home", &p->allow_home))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "require_landlock")) &&
	    (r = note(get_bool(s, "sandbox.require_landlock", &p->require_landlock))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "limits")) && (r = note(limits_load(p, s))) < 0)
		return r;
	if ((s = config_setting_get_member(g, "terminal_filter")) &&
	    (r = get_bool(s, "sandbox.terminal_filter", &p->terminal_filter)) < 0)
		return r;
	if ((s = config_setting_get_member(g, "terminal_allow"))) {
		if ((r = get_list(s, "sandbox.terminal_allow", &p->terminal_allow, false, lookup,
		                  userdata)) < 0)
			return r;
		for (size_t i = 0; i < p->terminal_allow.items.n; i++)
			if (!termfilter_class(p->terminal_allow.items.v[i])) {
				err_set("%s: sandbox.terminal_allow: \"%s\" is not a sequence "
				        "class (%s)",
				        config_where(config_setting_get_elem(s, (unsigned)i)),
				        p->terminal_allow.items.v[i], TERMINAL_CLASSES);
				return -EINVAL;
			}
	}
	return 0;
}

static int check_port(const config_setting_t *e, const char *what)
{
	int type = config_setting_type(e);
	if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
		return type_error(e, what, "a port number");
	long long v = config_setting_get_int64(e);
	if (type == CONFIG_TYPE_INT)
		v = config_setting_get_int(e);
	if (v < 1 || v > 65535) {
		err_set("%s: %s: %lld is not a port (1-65535)", config_where(e), what, v);
		return -ERANGE;
	}
	return 0;
}

/* The launcher's own keys of the network group. The domain rules are
 * validated by the proxy's rule parser, which reads the same group. */
static int load_network(struct policy *p, config_setting_t *g)
{
	static const char *const keys[] = {"enabled",          "allowed_domains", "host_ports",
	                                   "published_ports",  "unix_sockets",    "hosts_file",
	                                   "upstream_ca_file", "proxy_limits",    NULL};
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return type_error(g, "network", "a group { }");
	int r = check_keys(g, "network", keys);
	if (r < 0)
		return r;
	const config_setting_t *s;
	/* The rules library reads these two; the names are checked here. */
	static const char *const files[] = {"hosts_file", "upstream_ca_file"};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		s = config_setting_get_member(g, files[i]);
		_cleanup_free_ char *what = str_printf("network.%s", files[i]);
		if (s && config_setting_type(s) == CONFIG_TYPE_STRING &&
		    (r = config_check_text(config_where(s), what ? what : files[i],
		                           config_setting_get_string(s))) < 0)
			return r;
	}
	if ((s = config_setting_get_member(g, "enabled")) &&
	    (r = get_bool(s, "network.enabled", &p->network_enabled)) < 0)
		return r;
	if ((s = config_setting_get_member(g, "unix_sockets")) &&
	    (r = get_bool(s, "network.unix_sockets", &p->unix_sockets)) < 0)
		return r;
	if ((s = config_setting_get_member(g, "allowed_domains"))) {
		int type = config_setting_type(s);
		if (type != CONFIG_TYPE_LIST && type != CONFIG_TYPE_ARRAY)
			return type_error(s, "network.allowed_domains", "a list ( ... )");
	}
	s = config_setting_get_member(g, "host_ports");
	if (s && config_setting_type(s) == CONFIG_TYPE_STRING) {
		/* "all": every host-local TCP port (the seed's allowedHostPorts = null). */
		if (strcmp(config_setting_get_string(s), "all") != 0) {
			err_set("%s: network.host_ports must be a list of ports or \"all\"",
			        config_where(s));
			return -EINVAL;
		}
	} else if (s) {
		int type = config_setting_type(s);

		if (type != CONFIG_TYPE_LIST && type != CONFIG_TYPE_ARRAY)
			return type_error(s, "network.host_ports", "a list of ports [ 5432 ]");
		for (int i = 0; i < config_setting_length(s); i++)
			if ((r = check_port(config_setting_get_elem(s, (unsigned)i),
			                    "network.host_ports")) < 0)
				return r;
	}
	if ((s = config_setting_get_member(g, "published_ports"))) {
		int type = config_setting_type(s);
		if (type != CONFIG_TYPE_LIST && type != CONFIG_TYPE_ARRAY)
			return type_error(s, "network.published_ports", "a list ( ... )");
		for (int i = 0; i < config_setting_length(s); i++) {
			config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			if (config_setting_type(e) == CONFIG_TYPE_GROUP) {
				static const char *const pkeys[] = {"port", "bind", NULL};
				if ((r = check_keys(e, "network.published_ports[]", pkeys)) < 0)
					return r;
				config_setting_t *port = config_setting_get_member(e, "port");
				if (!port) {
					err_set("%s: network.published_ports: an entry needs port",
					        config_where(e));
					return -EINVAL;
				}
				if ((r = check_port(port, "network.published_ports")) < 0)
					return r;
			} else if ((r = check_port(e, "network.published_ports")) < 0) {
				return r;
			}
		}
	}
	p->network = g;
	return 0;
}

static int load_plugins(struct policy *p, config_setting_t *g)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return type_error(g, "plugins", "a group { name: { ... }; }");
	int n = config_setting_length(g);
	for (int i = 0; i < n; i++) {
		const config_setting_t *c = config_setting_get_elem(g, (unsigned)i);
		if (config_setting_type(c) != CONFIG_TYPE_GROUP) {
			err_set("%s: plugins.%s must be a group { ... } (an empty one loads the "
			        "plugin with its defaults)",
			        config_where(c), config_setting_name(c));
			return -EINVAL;
		}
	}
	p->plugins = g;
	return 0;
}

/* Report what was noted, one error a line; the first decides the code. */
static int noted_result(int r)
{
	if (r >= 0 && noted.n > 0) {
		size_t len = 1;
		for (size_t i = 0; i < noted.n; i++)
			len += strlen(noted.v[i]) + 1;
		_cleanup_free_ char *all = calloc(1, len);
		for (size_t i = 0; all && i < noted.n; i++) {
			if (i)
				strcat(all, "\n");
			strcat(all, noted.v[i]);
		}
		err_clear();
		err_set("%s", all ? all : noted.v[0]);
		r = first_noted;
	}
	strv_clear(&noted);
	first_noted = 0;
	return r;
}

int config_load(struct policy *p, const char *path, expand_lookup_fn lookup, void *userdata)
{
	strv_clear(&noted);
	first_noted = 0;
	config_init(&p->cfg);
	p->cfg_loaded = true;
	config_set_options(&p->cfg, 0);
	if (config_read_file(&p->cfg, path) != CONFIG_TRUE) {
		if (config_error_type(&p->cfg) == CONFIG_ERR_FILE_IO)
			err_set("%s: cannot read config: %s", path, strerror(errno ? errno : EIO));
		else
			err_set("%s:%d: %s",
			        config_error_file(&p->cfg) ? config_error_file(&p->cfg) : path,
			        config_error_line(&p->cfg), config_error_text(&p->cfg));
		return -EINVAL;
	}
	static const char *const keys[] = {"sandbox", "network", "plugins", NULL};
	config_setting_t *root = config_root_setting(&p->cfg);
	int r = check_keys(root, NULL, keys);
	if (r < 0)
		return noted_result(r);
	config_setting_t *g;
	if ((g = config_setting_get_member(root, "sandbox")) &&
	    (r = note(load_sandbox(p, g, lookup, userdata))) < 0)
		return noted_result(r);
	if ((g = config_setting_get_member(root, "network")) && (r = note(load_network(p, g))) < 0)
		return noted_result(r);
	if ((g = config_setting_get_member(root, "plugins")) && (r = note(load_plugins(p, g))) < 0)
		return noted_result(r);
	return noted_result(0);
}
