/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include "agents.h"
#include "log.h"
#include "options.h"
#include "termfilter.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Every core boolean has --X, --no-X and AGENTSANDBOX_<ENV>, and lives in
 * the policy (core/options.c has the table). Plugins declare their own
 * options (struct asb_option); those become overrides the plugin reads
 * through its config accessors. */

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

static void usage_plugin_options(FILE *f, const struct catalog *plugins)
{
	for (size_t i = 0; plugins && i < plugins->n; i++) {
		const struct found_plugin *fp = &plugins->v[i];
		if (!fp->desc || !loader_option_at(fp->desc, 0))
			continue;
		fprintf(f, "\nPlugin %s (%s):\n", fp->name,
		        fp->desc->description ? fp->desc->description : "");
		for (size_t j = 0; loader_option_at(fp->desc, j); j++) {
			const struct asb_option *o = loader_option_at(fp->desc, j);
			char left[96] = "";
			if (o->flag && o->type == ASB_OPT_BOOL)
				snprintf(left, sizeof(left), "--%s", o->flag);
			else if (o->flag)
				snprintf(left, sizeof(left), "--%s %s", o->flag,
				         o->type == ASB_OPT_LIST ? "A,B" : "VALUE");
			fprintf(f, "      %-*s%s (plugins.%s.%s",
			        strlen(left) < 25 ? 27 : (int)strlen(left) + 2, left,
			        o->help ? o->help : "", fp->name, o->key);
			if (o->env)
				fprintf(f, ", AGENTSANDBOX_%s", o->env);
			fputs(")\n", f);
			if (o->flag && o->type == ASB_OPT_BOOL) {
				char off[96];
				if (o->negative)
					snprintf(off, sizeof(off), "--%s", o->negative);
				else
					snprintf(off, sizeof(off), "--no-%s", o->flag);
				fprintf(f, "      %s\n", off);
			}
		}
	}
}

void cli_usage(void *file, const struct catalog *plugins)
{
	FILE *f = file;
	fputs("Usage: agentsandbox [-c FILE|NAME] [options] [--] [agent args...]\n"
	      "       agentsandbox AGENT [options] [--] [agent args...]\n"
	      "       agentsandbox sessions [--json | --paths | --last]\n"
	      "       agentsandbox allowlist [--session SESSION | SESSION]\n"
	      "       agentsandbox plugins | proxy [proxy options] | init AGENT [--force]\n"
	      "\n"
	      "Run an AI coding agent (or any command) in a declarative sandbox.\n"
	      "AGENT (or a link to agentsandbox named AGENT) uses AGENT.cfg from\n"
	      "${XDG_CONFIG_HOME:-~/.config}/agentsandbox/, else the installed examples.\n"
	      "\n",
	      f);
	options_usage(f);
	fputs("\n"
	      "Every boolean also reads AGENTSANDBOX_<NAME> (1/true/yes/on, 0/false/no/off),\n"
	      "e.g. AGENTSANDBOX_ALLOW_UNIX_SOCKETS=1. Precedence: flag > env > file > default.\n"
	      "Exit status: the agent's; 125 when the sandbox could not be set up.\n"
	      "\n"
	      "Subcommands:\n",
	      f);
	options_usage_subcommands(f);
	usage_plugin_options(f, plugins);
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

/* A plugin option that `arg` (without its dashes and any "=value") names:
 * *on is 1 for a boolean's on flag, 0 for its off flag. */
static const struct asb_option *find_plugin_flag(const struct catalog *plugins, const char *arg,
                                                 size_t len, const struct found_plugin **owner,
                                                 int *on)
{
	for (size_t i = 0; plugins && i < plugins->n; i++) {
		const struct found_plugin *fp = &plugins->v[i];
		for (size_t j = 0; fp->desc && loader_option_at(fp->desc, j); j++) {
			const struct asb_option *o = loader_option_at(fp->desc, j);
			if (!o->flag)
				continue;
			char off[128];
			if (o->negative)
				snprintf(off, sizeof(off), "%s", o->negative);
			else
				snprintf(off, sizeof(off), "no-%s", o->flag);
			*owner = fp;
			if (strlen(o->flag) == len && strncmp(arg, o->flag, len) == 0) {
				*on = 1;
				return o;
			}
			if (o->type == ASB_OPT_BOOL && strlen(off) == len &&
			    strncmp(arg, off, len) == 0) {
				*on = 0;
				return o;
			}
		}
	}
	return NULL;
}

int cli_plugin_dirs(int argc, char **argv, struct strv *out)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		const char *v = NULL;
		if (strncmp(argv[i], "--plugin-dir=", 13) == 0)
			v = argv[i] + 13;
		else if (strcmp(argv[i], "--plugin-dir") == 0 && i + 1 < argc)
			v = argv[++i];
		if (v) {
			int r = strv_push(out, v);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* `agentsandbox init AGENT [--force]` */
static int cli_parse_init(int argc, char **argv, struct cli *c)
{
	c->mode = MODE_INIT;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--force") == 0) {
			c->force = true;
		} else if (argv[i][0] != '-' && !c->agent) {
			if (!(c->agent = strdup(argv[i])))
				return -ENOMEM;
		} else {
			err_set("usage: agentsandbox init AGENT [--force]");
			return -EINVAL;
		}
	}
	if (!c->agent) {
		err_set("usage: agentsandbox init AGENT [--force]");
		return -EINVAL;
	}
	return 0;
}

/* The first word names an agent when its AGENT.cfg exists (1); else it
 * is the command, as before (0). */
static int cli_agent_word(const char *word, struct cli *c)
{
	_cleanup_free_ char *path = NULL;
	if (word[0] == '-' || !agents_valid_name(word) ||
	    agents_find(word, expand_lookup_environ, NULL, &path) < 0)
		return 0;
	return (c->agent = strdup(word)) ? 1 : -ENOMEM;
}

int cli_parse(int argc, char **argv, const struct catalog *plugins, struct cli *c)
{
	*c = (struct cli){0};
	for (size_t i = 0; i < CLI_MAX_BOOLS; i++)
		c->bools[i] = -1;

	int i = 1, r;
	const char *link = agents_from_argv0(argv[0]);
	if (link) {
		/* A link named after the agent: its options pass through. */
		if (!(c->agent = strdup(link)))
			return -ENOMEM;
		c->agent_link = true;
	} else if (argc > 1) {
		if (strcmp(argv[1], "sessions") == 0) {
			c->mode = MODE_SESSIONS;
			i = 2;
		} else if (strcmp(argv[1], "plugins") == 0) {
			c->mode = MODE_PLUGINS;
			i = 2;
		} else if (strcmp(argv[1], "allowlist") == 0) {
			c->mode = MODE_ALLOWLIST;
			i = 2;
		} else if (strcmp(argv[1], "init") == 0) {
			if ((r = cli_parse_init(argc, argv, c)) < 0)
				return r;
			i = argc;
		}
	}
	for (; i < argc; i++) {
		const char *arg = argv[i];
		const char *v = NULL;
		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			/* The first word names an agent (AGENT.cfg) or starts the
			 * agent's arguments. */
			if (c->mode != MODE_SESSIONS && c->mode != MODE_PLUGINS &&
			    c->mode != MODE_ALLOWLIST && !c->agent && !c->config_path &&
			    (r = cli_agent_word(arg, c)) != 0) {
				if (r < 0)
					return r;
				continue;
			}
			break;
		}
		/* Through a link named after the agent, its short options and
		 * --help/--version are the agent's (`claude -c` continues). */
		if (c->agent_link &&
		    (arg[1] != '-' || strcmp(arg, "--help") == 0 || strcmp(arg, "--version") == 0))
			break;
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			c->mode = MODE_HELP;
			continue;
		}
		if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
			c->mode = MODE_VERSION;
			continue;
		}
		if (c->mode == MODE_SESSIONS &&
		    (strcmp(arg, "--json") == 0 || strcmp(arg, "--paths") == 0 ||
		     strcmp(arg, "--last") == 0)) {
			c->list_format = arg[2] == 'j' ? 1 : arg[2] == 'p' ? 2 : 3;
			continue;
		}
		if (c->mode == MODE_ALLOWLIST &&
		    (r = want_value(argc, argv, &i, "--session", &v)) != 0) {
			if (r < 0 || (r = set_str(&c->session, v)) < 0)
				return r;
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
		if (strcmp(arg, "--accept-config-change") == 0) {
			c->accept_config_change = true;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--completion", &v)) != 0) {
			if (r < 0 || (r = set_str(&c->completion, v)) < 0)
				return r;
			c->mode = MODE_COMPLETION;
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
		if ((r = want_value(argc, argv, &i, "--reveal", &v)) != 0) {
			if (r < 0 || (r = strv_push(&c->reveal, v)) < 0)
				return r;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--terminal-allow", &v)) != 0) {
			if (r < 0 || (r = strv_push(&c->terminal_allow, v)) < 0)
				return r;
			continue;
		}
		if ((r = want_value(argc, argv, &i, "--accept-weaker", &v)) != 0) {
			if (r < 0 || (r = strv_push(&c->accept_weaker, v)) < 0)
				return r;
			continue;
		}
		bool matched = false;
		for (size_t b = 0; b < n_core_options; b++) {
			if (!core_options[b].is_bool || arg[0] != '-' || arg[1] != '-')
				continue;
			if (strcmp(arg + 2, core_options[b].name) == 0) {
				c->bools[b] = 1;
				matched = true;
			} else if (strcmp(arg + 2, core_options[b].off) == 0) {
				c->bools[b] = 0;
				matched = true;
			}
		}
		if (matched)
			continue;
		if (arg[1] == '-') {
			const char *name = arg + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct found_plugin *owner = NULL;
			int on = 1;
			const struct asb_option *o =
			    find_plugin_flag(plugins, name, len, &owner, &on);
			if (o) {
				const char *value = on ? "1" : "0";
				if (o->type != ASB_OPT_BOOL) {
					if (eq) {
						value = eq + 1;
					} else if (i + 1 < argc) {
						value = argv[++i];
					} else {
						err_set("option --%s needs a value", o->flag);
						return -EINVAL;
					}
				} else if (eq) {
					int b = parse_bool(eq + 1);
					if (b < 0) {
						err_set(
						    "%s: expected 1/true/yes/on or 0/false/no/off",
						    arg);
						return -EINVAL;
					}
					value = b == (on == 1) ? "1" : "0";
				}
				char flag[160];
				snprintf(flag, sizeof(flag), "%.*s", (int)len + 2, arg);
				if ((r = strv_push_take(&c->plugin_opts,
				                        str_printf("%s\t%s\t%s\t%s", owner->name,
				                                   o->key, value, flag))) < 0)
					return r;
				continue;
			}
		}
		if (c->agent_link)
			break; /* the agent's own option: its arguments start here */
		err_set("unknown option %s (see --help; arguments for the agent go after --)", arg);
		return -EINVAL;
	}
	if (c->agent && c->config_path) {
		err_set("-c and the agent %s both name a config: give one", c->agent);
		return -EINVAL;
	}
	for (; i < argc; i++) {
		r = strv_push(&c->agent_args, argv[i]);
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
	strv_clear(&c->accept_weaker);
	strv_clear(&c->reveal);
	free(c->session);
	strv_clear(&c->terminal_allow);
	strv_clear(&c->plugin_opts);
	free(c->agent);
	free(c->completion);
}

int cli_config_path(const struct cli *c, expand_lookup_fn lookup, void *ud, char **path,
                    int *source)
{
	if (c->config_path) {
		*source = SRC_FLAG;
		return (*path = agents_config_by_name(c->config_path, lookup, ud)) ? 0 : -ENOMEM;
	}
	if (c->agent) {
		int r = agents_find(c->agent, lookup, ud, path);
		if (r == -ENOENT) {
			_cleanup_free_ char *dir = agents_config_dir(lookup, ud);
			err_set(
			    "no %s.cfg in %s or the examples: write one with `agentsandbox init "
			    "%s`",
			    c->agent, dir ? dir : "${XDG_CONFIG_HOME:-~/.config}/agentsandbox",
			    c->agent);
		}
		*source = SRC_FLAG;
		return r == -ENOENT ? -EINVAL : r;
	}
	const char *env = lookup("AGENTSANDBOX_CONFIG", ud);
	if (env && *env) {
		*source = SRC_ENV;
		return (*path = agents_config_by_name(env, lookup, ud)) ? 0 : -ENOMEM;
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

static int apply_bool(struct policy *p, const struct core_option *o, int value, int source)
{
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

/* A value for a plugin option: booleans parsed, lists split at commas and
 * appended to what earlier flags gave. */
static int apply_plugin_value(struct policy *p, const char *plugin, const struct asb_option *o,
                              const char *value, int source, const char *given)
{
	struct strv values = {0};
	int on = 0, r = 0;
	if (o->type == ASB_OPT_BOOL) {
		if ((on = parse_bool(value)) < 0) {
			err_set("%s=%s: expected 1/true/yes/on or 0/false/no/off", given, value);
			return -EINVAL;
		}
	} else if (o->type == ASB_OPT_LIST) {
		const struct plugin_override *prev = policy_override(p, plugin, o->key);
		for (size_t i = 0; r >= 0 && prev && prev->source == source && i < prev->values.n;
		     i++)
			r = strv_push(&values, prev->values.v[i]);
		_cleanup_free_ char *copy = strdup(value);
		char *save = NULL;
		for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; r >= 0 && tok;
		     tok = strtok_r(NULL, ",", &save))
			if (*tok)
				r = strv_push(&values, tok);
		if (!copy)
			r = -ENOMEM;
	} else {
		r = strv_push(&values, value);
	}
	if (r >= 0)
		r = policy_set_override(p, plugin, o->key, o->type, on, &values, source, given);
	strv_clear(&values);
	return r;
}

static const struct asb_option *option_by_key(const struct found_plugin *fp, const char *key)
{
	for (size_t j = 0; fp && fp->desc && loader_option_at(fp->desc, j); j++)
		if (strcmp(loader_option_at(fp->desc, j)->key, key) == 0)
			return loader_option_at(fp->desc, j);
	return NULL;
}

int cli_apply(const struct cli *c, const struct catalog *plugins, struct policy *p,
              expand_lookup_fn lookup, void *ud)
{
	int r;
	/* Environment first, so flags win. */
	for (size_t b = 0; b < n_core_options; b++) {
		if (!core_options[b].is_bool)
			continue;
		_cleanup_free_ char *name = str_printf("AGENTSANDBOX_%s", core_options[b].env);
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
		if ((r = apply_bool(p, &core_options[b], value, SRC_ENV)) < 0)
			return r;
	}
	for (size_t i = 0; plugins && i < plugins->n; i++) {
		const struct found_plugin *fp = &plugins->v[i];
		for (size_t j = 0; fp->desc && loader_option_at(fp->desc, j); j++) {
			const struct asb_option *o = loader_option_at(fp->desc, j);
			if (!o->env)
				continue;
			_cleanup_free_ char *name = str_printf("AGENTSANDBOX_%s", o->env);
			const char *ev = name ? lookup(name, ud) : NULL;
			if (!name)
				return -ENOMEM;
			if (ev && (r = apply_plugin_value(p, fp->name, o, ev, SRC_ENV, name)) < 0)
				return r;
		}
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

	for (size_t b = 0; b < n_core_options; b++)
		if (core_options[b].is_bool && c->bools[b] >= 0 &&
		    (r = apply_bool(p, &core_options[b], c->bools[b], SRC_FLAG)) < 0)
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

	for (size_t i = 0; i < c->plugin_opts.n; i++) {
		_cleanup_free_ char *copy = strdup(c->plugin_opts.v[i]);
		char *plugin = copy, *key = NULL, *value = NULL, *flag = NULL;
		if (!copy)
			return -ENOMEM;
		if ((key = strchr(plugin, '\t')))
			*key++ = '\0';
		if (key && (value = strchr(key, '\t')))
			*value++ = '\0';
		if (value && (flag = strchr(value, '\t')))
			*flag++ = '\0';
		const struct asb_option *o = option_by_key(catalog_find(plugins, plugin), key);
		if (!o || !flag)
			return -EINVAL;
		if ((r = apply_plugin_value(p, plugin, o, value, SRC_FLAG, flag)) < 0)
			return r;
	}
	p->accept_config_change = p->accept_config_change || c->accept_config_change;
	/* --terminal-allow A,B (repeatable) adds to the file's list. */
	for (size_t i = 0; i < c->terminal_allow.n; i++) {
		_cleanup_free_ char *copy = strdup(c->terminal_allow.v[i]);
		char *save = NULL;
		if (!copy)
			return -ENOMEM;
		for (char *tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (!termfilter_class(tok)) {
				err_set("--terminal-allow %s: not a sequence class (%s)", tok,
				        TERMINAL_CLASSES);
				return -EINVAL;
			}
			if (!strv_contains(&p->terminal_allow.items, tok) &&
			    (r = strv_push(&p->terminal_allow.items, tok)) < 0)
				return r;
		}
		p->terminal_allow.source = SRC_FLAG;
	}
	if (c->accept_weaker.n) {
		for (size_t i = 0; i < c->accept_weaker.n; i++)
			if ((r = strv_push(&p->accept_weaker.items, c->accept_weaker.v[i])) < 0)
				return r;
		p->accept_weaker.source = SRC_FLAG;
	}
	for (size_t i = 0; i < c->env_kv.n; i++)
		if ((r = set_env_entry(p, c->env_kv.v[i])) < 0)
			return r;
	for (size_t i = 0; i < c->reveal.n; i++) {
		if ((r = strv_push(&p->public_env.items, c->reveal.v[i])) < 0)
			return r;
		p->public_env.source = SRC_FLAG;
	}
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
