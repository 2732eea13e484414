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
}

static void plist_free(struct plist *l)
{
	strv_clear(&l->items);
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
	for (size_t i = 0; i < p->n_env; i++) {
		free(p->env[i].key);
		free(p->env[i].raw);
		free(p->env[i].value);
	}
	free(p->env);
	for (size_t i = 0; i < p->n_overrides; i++) {
		free(p->overrides[i].plugin);
		free(p->overrides[i].key);
	}
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

int policy_plugin_override(const struct policy *p, const char *plugin, const char *key, int *source)
{
	for (size_t i = 0; i < p->n_overrides; i++) {
		const struct plugin_override *o = &p->overrides[i];
		if (strcmp(o->plugin, plugin) == 0 && strcmp(o->key, key) == 0) {
			if (source)
				*source = o->source;
			return o->value;
		}
	}
	return -ENOENT;
}
