/* SPDX-License-Identifier: MIT */
#include "policy.h"

#include <errno.h>
#include <string.h>

const char *source_name(int source)
{
	switch (source) {
	case SRC_FILE:
		return "file";
	case SRC_ENV:
		return "env";
	case SRC_FLAG:
		return "flag";
	default:
		return "default";
	}
}

void policy_init(struct policy *p)
{
	*p = (struct policy){0};
	p->common_tools.value = 1;
	p->network_enabled.value = 1;
	p->terminal_filter.value = 1;
}

static void plist_free(struct plist *l)
{
	strv_clear(&l->items);
	free(l->item_lines);
	l->item_lines = NULL;
}

void policy_free(struct policy *p)
{
	free(p->config_file);
	free(p->home);
	free(p->user);
	free(p->launch_dir);
	free(p->name.value);
	free(p->command.value);
	free(p->backend.value);
	free(p->workspace.value);
	plist_free(&p->args);
	plist_free(&p->packages);
	plist_free(&p->rw_dirs);
	plist_free(&p->rw_files);
	plist_free(&p->ro_dirs);
	plist_free(&p->ro_files);
	plist_free(&p->terminal_allow);
	for (size_t i = 0; i < p->n_env; i++) {
		free(p->env[i].key);
		free(p->env[i].raw);
		free(p->env[i].value);
	}
	free(p->env);
	for (size_t i = 0; i < p->n_overrides; i++) {
		free(p->overrides[i].plugin);
		free(p->overrides[i].key);
		free(p->overrides[i].given);
		strv_clear(&p->overrides[i].values);
	}
	plist_free(&p->accept_weaker);
	plist_free(&p->public_env);
	free(p->overrides);
	for (size_t i = 0; i < p->n_mounts; i++) {
		free(p->mounts[i].source);
		free(p->mounts[i].dest);
	}
	free(p->mounts);
	strv_clear(&p->agent_args);
	strv_clear(&p->plugin_dirs);
	if (p->cfg_loaded)
		config_destroy(&p->cfg);
	*p = (struct policy){0};
}

const struct plugin_override *policy_override(const struct policy *p, const char *plugin,
                                              const char *key)
{
	for (size_t i = 0; i < p->n_overrides; i++) {
		const struct plugin_override *o = &p->overrides[i];
		if (strcmp(o->plugin, plugin) == 0 && strcmp(o->key, key) == 0)
			return o;
	}
	return NULL;
}

bool policy_plugin_named(const struct policy *p, const char *plugin)
{
	for (size_t i = 0; i < p->n_overrides; i++)
		if (strcmp(p->overrides[i].plugin, plugin) == 0)
			return true;
	return false;
}

int policy_set_override(struct policy *p, const char *plugin, const char *key, uint32_t type,
                        int value, const struct strv *values, int source, const char *given)
{
	struct plugin_override *o = (struct plugin_override *)policy_override(p, plugin, key);
	if (!o) {
		struct plugin_override *n =
		    realloc(p->overrides, (p->n_overrides + 1) * sizeof(*p->overrides));
		if (!n)
			return -ENOMEM;
		p->overrides = n;
		o = &p->overrides[p->n_overrides++];
		*o = (struct plugin_override){.plugin = strdup(plugin), .key = strdup(key)};
		if (!o->plugin || !o->key)
			return -ENOMEM;
	}
	o->type = type;
	o->value = value;
	o->source = source;
	strv_clear(&o->values);
	for (size_t i = 0; values && i < values->n; i++)
		if (strv_push(&o->values, values->v[i]) < 0)
			return -ENOMEM;
	free(o->given);
	o->given = strdup(given ? given : "");
	return o->given ? 0 : -ENOMEM;
}
