/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include "log.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Every boolean has --X, --no-X (or a named negative) and AGENTSANDBOX_<ENV>.
 * Core booleans live in the policy; plugin ones become overrides the plugin
 * reads through its own config accessors. */
struct bool_opt {
	const char *on;
	const char *off;
	const char *env;
	const char *plugin; /* NULL: core option at `offset` */
	const char *key;
	size_t offset;
};

static const struct bool_opt bool_opts[] = {
    {"allow-home", "no-allow-home", "ALLOW_HOME", NULL, NULL, offsetof(struct policy, allow_home)},
    {"common-tools", "no-common-tools", "COMMON_TOOLS", NULL, NULL,
     offsetof(struct policy, common_tools)},
    {"allow-unix-sockets", "no-allow-unix-sockets", "ALLOW_UNIX_SOCKETS", NULL, NULL,
     offsetof(struct policy, unix_sockets)},
    {"network", "no-network", "NETWORK", NULL, NULL, offsetof(struct policy, network_enabled)},
    {"require-landlock", "no-require-landlock", "REQUIRE_LANDLOCK", NULL, NULL,
     offsetof(struct policy, require_landlock)},
    {"git-protection", "no-git-protection", "GIT_PROTECTION", "git", "protect", 0},
    {"allow-nix", "no-allow-nix", "ALLOW_NIX", "nix", "allow", 0},
    {"nix-accept-unsandboxed-builds", "no-nix-accept-unsandboxed-builds",
     "NIX_ACCEPT_UNSANDBOXED_BUILDS", "nix", "accept_unsandboxed_builds", 0},
};
_Static_assert(ARRAY_SIZE(bool_opts) <= CLI_MAX_BOOLS, "grow CLI_MAX_BOOLS");

int parse_bool(const char *s)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	return -EINVAL;
}

void cli_usage(void *file)
{
	FILE *f = file;
	fputs("Usage: agentsandbox [-c FILE] [options] [--] [agent args...]\n"
	      "       agentsandbox sessions | plugins | allowlist [SESSION]\n"
	      "\n"
	      "Run an AI coding agent (or any command) in a declarative sandbox.\n"
	      "\n"
	      "  -c, --config FILE        the policy (default: $AGENTSANDBOX_CONFIG, then\n"
	      "                           ${XDG_CONFIG_HOME:-~/.config}/agentsandbox/default.cfg)\n"
	      "      --show-config        print the resolved policy, where each value came from,\n"
	      "                           and the exact backend command; run nothing\n"
	      "      --shell              open bash in the very same sandbox instead of the agent\n"
	      "      --check              validate the config and this host, run nothing\n"
	      "      --workspace DIR      the read-write project directory (default: $PWD)\n"
	      "      --mount [ro:]SRC[:DEST]  bind a host path (read-write unless ro:)\n"
	      "      --env KEY=VALUE      set a variable inside\n"
	      "      --backend NAME       backend plugin (default: bwrap)\n"
	      "      --plugin-dir DIR     search DIR for plugins first (repeatable)\n"
	      "      --allow-home         allow launching from $HOME or / (exposes all of it)\n"
	      "      --[no-]common-tools  coreutils, grep, sed, ... on PATH (default: on)\n"
	      "      --[no-]allow-unix-sockets   AF_UNIX sockets inside\n"
	      "      --no-network         loopback only\n"
	      "      --require-landlock   refuse to start without Landlock\n"
	      "      --no-git-protection  let the agent write git hooks and config (warned)\n"
	      "      --allow-nix          expose the Nix daemon and store (plugins.nix)\n"
	      "      --nix-accept-unsandboxed-builds  do not ask about an unsandboxed daemon\n"
	      "  -h, --help               this text\n"
	      "  -V, --version            the version\n"
	      "\n"
	      "Every boolean also reads AGENTSANDBOX_<NAME> (1/true/yes/on, 0/false/no/off),\n"
	      "e.g. AGENTSANDBOX_ALLOW_UNIX_SOCKETS=1. Precedence: flag > env > file > default.\n"
	      "Exit status: the agent's; 125 when the sandbox could not be set up.\n"
	      "\n"
	      "Subcommands:\n"
	      "  sessions                 list recent session directories\n"
	      "  plugins                  list plugins found, their ABI and whether they load\n"
	      "  allowlist [SESSION]      an allowed_domains block from a session's proxy.log\n"
	      "                           (default: the newest session that has one)\n",
	      f);
}

static int want_value(int argc, char **argv, int *i, const char *opt, const char **value)
{
	const char *arg = argv[*i];
	size_t n = strlen(opt);
	if (strncmp(arg, opt, n) == 0 && arg[n] == '=') {
		*value = arg + n + 1;
		return 1;
	}
	if (strcmp(arg, opt) != 0)
		return 0;
	if (*i + 1 >= argc) {
		err_set("option %s needs a value", opt);
		return -EINVAL;
	}
	*value = argv[++*i];
	return 1;
}

static int set_str(char **dst, const char *value)
{
	char *v = strdup(value);
	if (!v)
		return -ENOMEM;
	free(*dst);
	*dst = v;
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *c)
{
	*c = (struct cli){0};
	for (size_t i = 0; i < CLI_MAX_BOOLS; i++)
		c->bools[i] = -1;

	int i = 1;
	if (argc > 1) {
		if (strcmp(argv[1], "sessions") == 0) {
			c->mode = MODE_SESSIONS;
			i = 2;
		} else if (strcmp(argv[1], "plugins") == 0) {
			c->mode = MODE_PLUGINS;
			i = 2;
		} else if (strcmp(argv[1], "allowlist") == 0) {
			c->mode = MODE_ALLOWLIST;
			i = 2;
		}
	}
	for (; i < argc; i++) {
		const char *arg = argv[i];
		const char *v = NULL;
		int r;
		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			break; /* the agent's arguments start here */
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			c->mode = MODE_HELP;
			continue;
		}
		if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
			c->mode = MODE_VERSION;
			continue;
		}
		if (strcmp(arg, "--show-config") == 0) {
			c->mode = MODE_SHOW_CONFIG;
			continue;
		}
		if (strcmp(arg, "--check") == 0) {
			c->mode = MODE_CHECK;
			continue;
		}
		if (strcmp(arg, "--shell") == 0) {
			c->shell = true;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "-c", &v)) != 0 ||
		    (r = want_value(argc, argv, &i, "--config", &v)) != 0) {
			if (r < 0 || (r = set_str(&c->config_path, v)) < 0)
				return r;
			c->config_source = SRC_FLAG;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--workspace", &v)) != 0) {
			if (r < 0 || (r = set_str(&c->workspace, v)) < 0)
				return r;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--backend", &v)) != 0) {
			if (r < 0 || (r = set_str(&c->backend, v)) < 0)
				return r;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--plugin-dir", &v)) != 0) {
			if (r < 0 || (r = strv_push(&c->plugin_dirs, v)) < 0)
				return r;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--env", &v)) != 0) {
			if (r < 0)
				return r;
			const char *eq = strchr(v, '=');
			if (!eq || eq == v) {
				err_set("--env %s: expected KEY=VALUE", v);
				return -EINVAL;
			}
			if ((r = strv_push(&c->env_kv, v)) < 0)
				return r;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--mount", &v)) != 0) {
			if (r < 0 || (r = strv_push(&c->mounts, v)) < 0)
				return r;
			continue;
		}
		bool matched = false;
		for (size_t b = 0; b < ARRAY_SIZE(bool_opts); b++) {
			if (arg[0] == '-' && arg[1] == '-' &&
			    strcmp(arg + 2, bool_opts[b].on) == 0) {
				c->bools[b] = 1;
				matched = true;
			} else if (arg[0] == '-' && arg[1] == '-' &&
			           strcmp(arg + 2, bool_opts[b].off) == 0) {
				c->bools[b] = 0;
				matched = true;
			}
		}
		if (matched)
			continue;
		err_set("unknown option %s (see --help; arguments for the agent go after --)", arg);
		return -EINVAL;
	}
	for (; i < argc; i++) {
		int r = strv_push(&c->agent_args, argv[i]);
		if (r < 0)
			return r;
		c->have_agent_args = true;
	}
	return 0;
}

void cli_free(struct cli *c)
{
	free(c->config_path);
	free(c->workspace);
	free(c->backend);
	strv_clear(&c->env_kv);
	strv_clear(&c->mounts);
	strv_clear(&c->plugin_dirs);
	strv_clear(&c->agent_args);
}

int cli_config_path(const struct cli *c, expand_lookup_fn lookup, void *ud, char **path,
                    int *source)
{
	if (c->config_path) {
		*source = SRC_FLAG;
		return (*path = strdup(c->config_path)) ? 0 : -ENOMEM;
	}
	const char *env = lookup("AGENTSANDBOX_CONFIG", ud);
	if (env && *env) {
		*source = SRC_ENV;
		return (*path = strdup(env)) ? 0 : -ENOMEM;
	}
	const char *xdg = lookup("XDG_CONFIG_HOME", ud);
	const char *home = lookup("HOME", ud);
	char *def = xdg && *xdg ? str_printf("%s/agentsandbox/default.cfg", xdg)
	            : home      ? str_printf("%s/.config/agentsandbox/default.cfg", home)
	                        : NULL;
	if (!def)
		return -ENOENT;
	struct stat st;
	if (stat(def, &st) < 0) {
		free(def);
		return -ENOENT;
	}
	*source = SRC_DEFAULT;
	*path = def;
	return 0;
}

static int add_override(struct policy *p, const char *plugin, const char *key, int value,
                        int source)
{
	for (size_t i = 0; i < p->n_overrides; i++) {
		struct plugin_override *o = &p->overrides[i];
		if (strcmp(o->plugin, plugin) == 0 && strcmp(o->key, key) == 0) {
			o->value = value;
			o->source = source;
			return 0;
		}
	}
	struct plugin_override *n =
	    realloc(p->overrides, (p->n_overrides + 1) * sizeof(*p->overrides));
	if (!n)
		return -ENOMEM;
	p->overrides = n;
	n[p->n_overrides] = (struct plugin_override){strdup(plugin), strdup(key), value, source};
	if (!n[p->n_overrides].plugin || !n[p->n_overrides].key)
		return -ENOMEM;
	p->n_overrides++;
	return 0;
}

static int apply_bool(struct policy *p, const struct bool_opt *o, int value, int source)
{
	if (o->plugin)
		return add_override(p, o->plugin, o->key, value, source);
	struct pbool *b = (struct pbool *)((char *)p + o->offset);
	b->value = value;
	b->source = source;
	b->line = 0;
	return 0;
}

static int set_env_entry(struct policy *p, const char *kv)
{
	const char *eq = strchr(kv, '=');
	_cleanup_free_ char *key = strndup(kv, (size_t)(eq - kv));
	if (!key)
		return -ENOMEM;
	struct env_entry *e = NULL;
	for (size_t i = 0; i < p->n_env; i++)
		if (strcmp(p->env[i].key, key) == 0)
			e = &p->env[i];
	if (!e) {
		struct env_entry *n = realloc(p->env, (p->n_env + 1) * sizeof(*p->env));
		if (!n)
			return -ENOMEM;
		p->env = n;
		e = &p->env[p->n_env++];
		*e = (struct env_entry){0};
		e->key = TAKE_PTR(key);
	}
	free(e->raw);
	free(e->value);
	e->raw = strdup(eq + 1);
	e->value = eq[1] ? strdup(eq + 1) : NULL;
	e->source = SRC_FLAG;
	e->line = 0;
	return e->raw ? 0 : -ENOMEM;
}

static int make_absolute(const struct policy *p, const char *in, char **out)
{
	*out = in[0] == '/' ? strdup(in) : str_printf("%s/%s", p->launch_dir, in);
	if (!*out)
		return -ENOMEM;
	size_t len = strlen(*out);
	while (len > 1 && (*out)[len - 1] == '/')
		(*out)[--len] = '\0';
	return 0;
}

static int add_mount(struct policy *p, const char *spec)
{
	bool ro = false;
	if (str_has_prefix(spec, "ro:")) {
		ro = true;
		spec += 3;
	} else if (str_has_prefix(spec, "rw:")) {
		spec += 3;
	}
	_cleanup_free_ char *src_raw = strdup(spec);
	if (!src_raw)
		return -ENOMEM;
	char *colon = strchr(src_raw, ':');
	const char *dest_raw = NULL;
	if (colon) {
		*colon = '\0';
		dest_raw = colon + 1;
	}
	if (!*src_raw || (dest_raw && *dest_raw != '/')) {
		err_set("--mount %s: expected [ro:]SRC[:DEST] with an absolute DEST", spec);
		return -EINVAL;
	}
	_cleanup_free_ char *src = NULL, *dest = NULL;
	int r = make_absolute(p, src_raw, &src);
	if (r < 0)
		return r;
	struct stat st;
	if (stat(src, &st) < 0) {
		err_set("--mount %s: %s: %s", spec, src, strerror(errno));
		return -errno;
	}
	if ((r = make_absolute(p, dest_raw ? dest_raw : src, &dest)) < 0)
		return r;
	struct extra_mount *n = realloc(p->mounts, (p->n_mounts + 1) * sizeof(*p->mounts));
	if (!n)
		return -ENOMEM;
	p->mounts = n;
	n[p->n_mounts++] = (struct extra_mount){TAKE_PTR(src), TAKE_PTR(dest), ro};
	return 0;
}

int cli_apply(const struct cli *c, struct policy *p, expand_lookup_fn lookup, void *ud)
{
	int r;
	/* Environment first, so flags win. */
	for (size_t b = 0; b < ARRAY_SIZE(bool_opts); b++) {
		_cleanup_free_ char *name = str_printf("AGENTSANDBOX_%s", bool_opts[b].env);
		if (!name)
			return -ENOMEM;
		const char *v = lookup(name, ud);
		if (!v)
			continue;
		int value = parse_bool(v);
		if (value < 0) {
			err_set("environment %s=%s: expected 1/true/yes/on or 0/false/no/off", name,
			        v);
			return -EINVAL;
		}
		if ((r = apply_bool(p, &bool_opts[b], value, SRC_ENV)) < 0)
			return r;
	}
	const char *v;
	if ((v = lookup("AGENTSANDBOX_BACKEND", ud)) && *v) {
		if ((r = set_str(&p->backend.value, v)) < 0)
			return r;
		p->backend.source = SRC_ENV;
	}
	if ((v = lookup("AGENTSANDBOX_WORKSPACE", ud)) && *v) {
		free(p->workspace.value);
		if ((r = make_absolute(p, v, &p->workspace.value)) < 0)
			return r;
		p->workspace.source = SRC_ENV;
	}
	if ((v = lookup("AGENTSANDBOX_PLUGIN_PATH", ud)) && *v) {
		_cleanup_free_ char *copy = strdup(v);
		if (!copy)
			return -ENOMEM;
		char *save = NULL;
		for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
			if ((r = strv_push(&p->plugin_dirs, tok)) < 0)
				return r;
	}

	for (size_t b = 0; b < ARRAY_SIZE(bool_opts); b++)
		if (c->bools[b] >= 0 &&
		    (r = apply_bool(p, &bool_opts[b], c->bools[b], SRC_FLAG)) < 0)
			return r;
	if (c->backend) {
		if ((r = set_str(&p->backend.value, c->backend)) < 0)
			return r;
		p->backend.source = SRC_FLAG;
	}
	if (c->workspace) {
		free(p->workspace.value);
		if ((r = make_absolute(p, c->workspace, &p->workspace.value)) < 0)
			return r;
		p->workspace.source = SRC_FLAG;
	}
	/* --plugin-dir is searched before AGENTSANDBOX_PLUGIN_PATH. */
	struct strv dirs = {0};
	for (size_t i = 0; i < c->plugin_dirs.n; i++)
		if ((r = strv_push(&dirs, c->plugin_dirs.v[i])) < 0)
			goto fail_dirs;
	for (size_t i = 0; i < p->plugin_dirs.n; i++)
		if ((r = strv_push(&dirs, p->plugin_dirs.v[i])) < 0)
			goto fail_dirs;
	strv_clear(&p->plugin_dirs);
	p->plugin_dirs = dirs;

	for (size_t i = 0; i < c->env_kv.n; i++)
		if ((r = set_env_entry(p, c->env_kv.v[i])) < 0)
			return r;
	for (size_t i = 0; i < c->mounts.n; i++)
		if ((r = add_mount(p, c->mounts.v[i])) < 0)
			return r;
	for (size_t i = 0; i < c->agent_args.n; i++)
		if ((r = strv_push(&p->agent_args, c->agent_args.v[i])) < 0)
			return r;
	return 0;
fail_dirs:
	strv_clear(&dirs);
	return r;
}
