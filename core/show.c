/* SPDX-License-Identifier: MIT */
#include "show.h"

#include "hardening.h"
#include "netrules.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

bool show_env_revealed(const struct policy *p, const char *key)
{
	/* A value is a secret unless the user said otherwise: a literal in the
	 * config is as likely a token as one taken from the environment. */
	return strv_contains(&p->public_env.items, key);
}

/* The variables a config value takes from the launching environment, as
 * "$A, $B" (their names are no secret; their values may be). */
static void print_var_names(FILE *out, const char *raw)
{
	bool first = true;
	for (const char *c = raw; *c; c++) {
		if (*c != '$')
			continue;
		if (c[1] == '$') {
			c++;
			continue;
		}
		const char *name = c + 1 + (c[1] == '{');
		size_t n = 0;
		while (isalnum((unsigned char)name[n]) || name[n] == '_')
			n++;
		if (!n)
			continue;
		fprintf(out, "%s$%.*s", first ? "; from " : ", ", (int)n, name);
		first = false;
	}
}

static void print_hidden(FILE *out, const char *key, const char *value, const char *raw)
{
	fprintf(out, "<hidden: %zu chars", strlen(value));
	if (raw)
		print_var_names(out, raw);
	fprintf(out, "; --reveal %s shows it>", key);
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

/* Which declared packages made it onto PATH ("rg?" may be missing). */
static void show_packages_found(FILE *out, const struct launch *l)
{
	const struct policy *p = l->policy;
	bool any_missing = false;
	for (size_t i = 0; i < p->packages.items.n; i++) {
		const char *name = p->packages.items.v[i];
		size_t n = strlen(name);
		if (n < 2 || name[n - 1] != '?')
			continue;
		_cleanup_free_ char *base = strndup(name, n - 1);
		if (base && !plan_find_exec(&l->plan, base)) {
			fprintf(out, "%s%s", any_missing ? ", " : "", base);
			any_missing = true;
		}
	}
	fputs(any_missing ? "  (optional, not installed: skipped)\n"
	                  : "(every declared package was found)\n",
	      out);
}

const char *show_load_reason(const struct launch *l, const struct loaded_plugin *lp)
{
	static char buf[PATH_MAX + 32];
	if (lp->desc->kind & ASB_KIND_BACKEND)
		return l->policy->backend.source == SRC_DEFAULT ? "the default backend"
		                                                : "the backend chosen";
	if (lp->group)
		return "its group in plugins";
	if (policy_plugin_named(l->policy, lp->name))
		return "one of its options was set";
	if (lp->desc->load == ASB_LOAD_IF_EXISTS && lp->desc->load_path) {
		snprintf(buf, sizeof(buf), "loaded because %s exists", lp->desc->load_path);
		return buf;
	}
	return lp->desc->load == ASB_LOAD_DEFAULT ? "loaded by default" : "loaded";
}

/* The first lines: what would run, where, with what network. */
static void show_summary(FILE *out, const struct launch *l)
{
	const struct policy *p = l->policy;
	fprintf(out, "# will run:     %s", l->shell ? "bash (--shell)" : p->command.value);
	for (size_t i = 0; !l->shell && i < p->args.items.n; i++)
		fprintf(out, " %s", p->args.items.v[i]);
	for (size_t i = 0; !l->shell && i < p->agent_args.n; i++)
		fprintf(out, " %s", p->agent_args.v[i]);
	fprintf(out, "\n# in:           %s (read-write), backend %s\n", p->workspace.value,
	        l->backend ? l->backend->name : "?");
	fprintf(out, "# network:      %s", network_mode_name(l->net.mode));
	if (l->net.mode == NET_FILTERED && l->net.rules)
		fprintf(out, " (%zu allowed_domains entr%s)", l->net.rules->n_rules,
		        l->net.rules->n_rules == 1 ? "y" : "ies");
	fputc('\n', out);
	size_t declared = p->packages.items.n, found = 0;
	for (size_t i = 0; i < l->plan.n_execs; i++)
		found += strcmp(l->plan.execs[i].origin, "sandbox.packages") == 0;
	fprintf(out, "# on PATH:      %zu executables (%zu from %zu packages)\n", l->plan.n_execs,
	        found, declared);
	if (l->view_error[0])
		fprintf(out, "# CANNOT RUN:   %s\n", l->view_error);
	if (l->network_error[0])
		fprintf(out, "# CANNOT RUN:   %s\n", l->network_error);
	fputc('\n', out);
}

void show_config(FILE *out, const struct launch *l)
{
	const struct policy *p = l->policy;
	show_summary(out, l);
	fprintf(out, "# agentsandbox %s: resolved policy [where each value came from]\n",
	        ASB_VERSION);
	fprintf(out, "%-14s%s  [%s]\n", "config", p->config_file ? p->config_file : "(none)",
	        !p->config_file                ? "none"
	        : p->config_source == SRC_FLAG ? "flag -c"
	        : p->config_source == SRC_ENV  ? "env AGENTSANDBOX_CONFIG"
	                                       : "default location");
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
	fprintf(out, "%-14s", "");
	show_packages_found(out, l);
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
		fprintf(out, "%-14s%s = ", i ? "" : "env", e->key);
		if (!e->value)
			fputs("(empty: unset)", out);
		else if (show_env_revealed(p, e->key))
			fprintf(out, "%s%s%s%s", e->value, strcmp(e->raw, e->value) ? "  (\"" : "",
			        strcmp(e->raw, e->value) ? e->raw : "",
			        strcmp(e->raw, e->value) ? "\")" : "");
		else /* an --env value is taken as written: it names no variable */
			print_hidden(out, e->key, e->value, e->source == SRC_FILE ? e->raw : NULL);
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
			const char *key = config_setting_name(c);
			/* A flag or variable decided these: the line above says which. */
			const struct pbool *over = strcmp(key, "enabled") == 0 ? &p->network_enabled
			                           : strcmp(key, "unix_sockets") == 0
			                               ? &p->unix_sockets
			                               : NULL;
			fprintf(out, "network.%s = ", key);
			print_setting(out, c);
			fprintf(out, "  [file %s:%u]%s\n", p->config_file ? p->config_file : "",
			        config_setting_source_line(c),
			        over && over->source > SRC_FILE ? "  (overridden, see above)" : "");
		}
	}

	fputs("\n# plugins (load order)\n", out);

	for (size_t i = 0; i < l->n_plugins; i++) {
		const struct loaded_plugin *lp = &l->plugins[i];
		fprintf(out, "%-14s%s %s (ABI %u.%u) %s  [%s]\n", lp->name,
		        lp->desc->version ? lp->desc->version : "?",
		        lp->desc->kind & ASB_KIND_BACKEND ? "backend" : "feature",
		        lp->desc->abi_major, lp->desc->abi_minor, lp->path,
		        show_load_reason(l, lp));
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

	fputs("\n# environment inside (your env values hidden unless --reveal KEY or "
	      "sandbox.public_env)\n",
	      out);
	for (size_t i = 0; i < l->plan.n_env; i++) {
		const struct plan_env *e = &l->plan.env[i];
		const struct env_entry *d = declared_env(p, e->key);
		fprintf(out, "%s=", e->key);
		if (d && !show_env_revealed(p, e->key))
			print_hidden(out, e->key, e->value, d->source == SRC_FILE ? d->raw : NULL);
		else
			fputs(e->value, out);
		fputc('\n', out);
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
