/* SPDX-License-Identifier: MIT */
#include "show.h"

#include "hardening.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *const secret_words[] = {"TOKEN", "KEY",        "SECRET", "PASSWORD", "PASSWD",
                                           "AUTH",  "CREDENTIAL", "COOKIE", "SESSION",  NULL};

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

bool show_env_is_secret(const char *key, const char *raw)
{
	/* Anything taken from the launching environment may be a secret. */
	if (raw && strchr(raw, '$'))
		return true;
	for (const char *const *w = secret_words; *w; w++)
		if (contains_nocase(key, *w))
			return true;
	return false;
}

char *show_shell_quote(const char *arg)
{
	bool plain = *arg != '\0';
	for (const char *c = arg; *c; c++)
		if (!(isalnum((unsigned char)*c) || strchr("@%+=:,./-_", *c)))
			plain = false;
	if (plain)
		return strdup(arg);
	size_t len = 3;
	for (const char *c = arg; *c; c++)
		len += *c == '\'' ? 4 : 1;
	char *out = malloc(len);
	if (!out)
		return NULL;
	char *w = out;
	*w++ = '\'';
	for (const char *c = arg; *c; c++) {
		if (*c == '\'') {
			memcpy(w, "'\\''", 4);
			w += 4;
		} else {
			*w++ = *c;
		}
	}
	*w++ = '\'';
	*w = '\0';
	return out;
}

static void src(FILE *out, const struct policy *p, int source, int line)
{
	if (source == SRC_FILE && line > 0)
		fprintf(out, "  [file %s:%d]\n", p->config_file ? p->config_file : "", line);
	else
		fprintf(out, "  [%s]\n", source_name(source));
}

static void show_list(FILE *out, const struct policy *p, const char *name, const struct plist *l)
{
	fprintf(out, "%-14s", name);
	if (l->items.n == 0)
		fputs("(none)", out);
	for (size_t i = 0; i < l->items.n; i++)
		fprintf(out, "%s%s", i ? ", " : "", l->items.v[i]);
	src(out, p, l->source, l->line);
}

static void show_bool(FILE *out, const struct policy *p, const char *name, const struct pbool *b)
{
	fprintf(out, "%-14s%s", name, b->value ? "true" : "false");
	src(out, p, b->source, b->line);
}

/* A setting as libconfig text, on one line (for --show-config). */
static void print_setting(FILE *out, const config_setting_t *s)
{
	int n;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		fprintf(out, "%d", config_setting_get_int(s));
		return;
	case CONFIG_TYPE_INT64:
		fprintf(out, "%lld", config_setting_get_int64(s));
		return;
	case CONFIG_TYPE_FLOAT:
		fprintf(out, "%g", config_setting_get_float(s));
		return;
	case CONFIG_TYPE_BOOL:
		fputs(config_setting_get_bool(s) ? "true" : "false", out);
		return;
	case CONFIG_TYPE_STRING:
		fprintf(out, "\"%s\"", config_setting_get_string(s));
		return;
	case CONFIG_TYPE_GROUP:
		fputs("{ ", out);
		n = config_setting_length(s);
		for (int i = 0; i < n; i++) {
			const config_setting_t *c = config_setting_get_elem(s, (unsigned)i);
			fprintf(out, "%s = ", config_setting_name(c));
			print_setting(out, c);
			fputs("; ", out);
		}
		fputs("}", out);
		return;
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
		fputs(config_setting_type(s) == CONFIG_TYPE_ARRAY ? "[ " : "( ", out);
		n = config_setting_length(s);
		for (int i = 0; i < n; i++) {
			if (i)
				fputs(", ", out);
			print_setting(out, config_setting_get_elem(s, (unsigned)i));
		}
		fputs(config_setting_type(s) == CONFIG_TYPE_ARRAY ? " ]" : " )", out);
		return;
	}
}

static const struct env_entry *declared_env(const struct policy *p, const char *key)
{
	for (size_t i = 0; i < p->n_env; i++)
		if (strcmp(p->env[i].key, key) == 0)
			return &p->env[i];
	return NULL;
}

void show_config(FILE *out, const struct launch *l)
{
	const struct policy *p = l->policy;
	fprintf(out, "# agentsandbox %s: resolved policy [where each value came from]\n",
	        ASB_VERSION);
	fprintf(out, "%-14s%s  [%s]\n", "config", p->config_file ? p->config_file : "(none)",
	        p->config_file ? "flag/env/default" : "none");
	fprintf(out, "%-14s%s", "name", p->name.value ? p->name.value : "");
	src(out, p, p->name.source, p->name.line);
	fprintf(out, "%-14s%s", "command",
	        l->shell           ? "bash (--shell)"
	        : p->command.value ? p->command.value
	                           : "");
	src(out, p, l->shell ? SRC_FLAG : p->command.source, l->shell ? 0 : p->command.line);
	show_list(out, p, "args", &p->args);
	if (p->agent_args.n) {
		fprintf(out, "%-14s", "agent args");
		for (size_t i = 0; i < p->agent_args.n; i++)
			fprintf(out, "%s%s", i ? " " : "", p->agent_args.v[i]);
		fputs("  [flag]\n", out);
	}
	fprintf(out, "%-14s%s", "backend", p->backend.value ? p->backend.value : "");
	src(out, p, p->backend.source, p->backend.line);
	fprintf(out, "%-14s%s", "workspace", p->workspace.value);
	src(out, p, p->workspace.source, p->workspace.line);
	show_list(out, p, "packages", &p->packages);
	show_list(out, p, "rw_dirs", &p->rw_dirs);
	show_list(out, p, "rw_files", &p->rw_files);
	show_list(out, p, "ro_dirs", &p->ro_dirs);
	show_list(out, p, "ro_files", &p->ro_files);
	for (size_t i = 0; i < p->n_mounts; i++)
		fprintf(out, "%-14s%s%s -> %s  [flag]\n", "mount",
		        p->mounts[i].read_only ? "ro:" : "", p->mounts[i].source,
		        p->mounts[i].dest);
	show_bool(out, p, "common_tools", &p->common_tools);
	show_bool(out, p, "allow_home", &p->allow_home);
	show_bool(out, p, "network", &p->network_enabled);
	fprintf(out, "%-14s%s\n", "network mode", network_mode_name(l->net.mode));

	show_bool(out, p, "unix_sockets", &p->unix_sockets);
	show_bool(out, p, "terminal_filter", &p->terminal_filter);
	show_list(out, p, "terminal_allow", &p->terminal_allow);
	for (size_t i = 0; i < p->n_env; i++) {
		const struct env_entry *e = &p->env[i];
		fprintf(out, "%-14s%s = %s%s", i ? "" : "env", e->key, e->raw,
		        !e->value ? "  (empty: unset)" : "");
		src(out, p, e->source, e->line);
	}
	for (size_t i = 0; i < p->n_overrides; i++) {
		const struct plugin_override *o = &p->overrides[i];
		fprintf(out, "%-14splugins.%s.%s = ", "override", o->plugin, o->key);
		if (o->type == ASB_OPT_BOOL)
			fputs(o->value ? "true" : "false", out);
		for (size_t j = 0; o->type != ASB_OPT_BOOL && j < o->values.n; j++)
			fprintf(out, "%s\"%s\"", j ? ", " : "", o->values.v[j]);
		fprintf(out, "  [%s %s]\n", source_name(o->source), o->given);
	}
	if (p->accept_weaker.items.n) {
		fprintf(out, "%-14s", "accept_weaker");
		for (size_t i = 0; i < p->accept_weaker.items.n; i++)
			fprintf(out, "%s%s", i ? ", " : "", p->accept_weaker.items.v[i]);
		src(out, p, p->accept_weaker.source, p->accept_weaker.line);
	}

	if (p->network) {
		int n = config_setting_length(p->network);
		for (int i = 0; i < n; i++) {
			const config_setting_t *c =
			    config_setting_get_elem(p->network, (unsigned)i);
			fprintf(out, "network.%s = ", config_setting_name(c));
			print_setting(out, c);
			fprintf(out, "  [file %s:%u]\n", p->config_file ? p->config_file : "",
			        config_setting_source_line(c));
		}
	}

	fputs("\n# plugins (load order)\n", out);

	for (size_t i = 0; i < l->n_plugins; i++) {
		const struct loaded_plugin *lp = &l->plugins[i];
		fprintf(out, "%-14s%s %s (ABI %u.%u) %s%s\n", lp->name,
		        lp->desc->version ? lp->desc->version : "?",
		        lp->desc->kind & ASB_KIND_BACKEND ? "backend" : "feature",
		        lp->desc->abi_major, lp->desc->abi_minor, lp->path,
		        lp->group ? "" : "  [default]");
	}
	for (size_t i = 0; i < l->describe.n; i++) {
		_cleanup_free_ char *line = strdup(l->describe.v[i]);
		if (!line)
			continue;
		char *key = strchr(line, '\t');
		char *value = key ? strchr(key + 1, '\t') : NULL;
		if (!value)
			continue;
		*key++ = '\0';
		*value++ = '\0';
		fprintf(out, "%s.%s = %s\n", line, key, value);
	}

	fputs("\n# environment inside (values from the launching environment redacted)\n", out);
	for (size_t i = 0; i < l->plan.n_env; i++) {
		const struct plan_env *e = &l->plan.env[i];
		const struct env_entry *d = declared_env(p, e->key);
		if (d && show_env_is_secret(e->key, d->raw))
			fprintf(out, "%s=<redacted, %zu chars>\n", e->key, strlen(e->value));
		else
			fprintf(out, "%s=%s\n", e->key, e->value);
	}

	protections_print_show(out, l);
	hardening_show(out, l);

	fputs("\n# backend command\n", out);
	for (size_t i = 0; i < l->out_argv.n; i++) {
		_cleanup_free_ char *q = show_shell_quote(l->out_argv.v[i]);
		const char *next = i + 1 < l->out_argv.n ? l->out_argv.v[i + 1] : NULL;
		/* One option (with its operands) per line keeps long commands readable. */
		bool break_after = next && next[0] == '-' && next[1] == '-';
		fprintf(out, "%s%s", q ? q : "?", !next ? "\n" : break_after ? " \\\n  " : " ");
	}
	for (size_t i = 0; i < l->n_artifacts; i++)
		fprintf(out, "\n# %s (written into the session directory)\n%s%s",
		        l->artifacts[i].name, l->artifacts[i].data,
		        l->artifacts[i].len && l->artifacts[i].data[l->artifacts[i].len - 1] == '\n'
		            ? ""
		            : "\n");
}
