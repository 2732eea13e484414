/* SPDX-License-Identifier: MIT */
/* A host table for unit tests: a plan and a policy the test fills in, the
 * backend's output and log collected. Only what the backend calls. */
#ifndef ASB_RUNSC_MOCK_HOST_H
#define ASB_RUNSC_MOCK_HOST_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>
#include <stddef.h>

#define MOCK_MAX 64

struct asb_ctx {
	struct asb_entry entries[MOCK_MAX];
	size_t n_entries;
	struct asb_exec execs[MOCK_MAX];
	size_t n_execs;
	const char *env_keys[MOCK_MAX], *env_values[MOCK_MAX];
	size_t n_env;
	const char *argv[MOCK_MAX];
	size_t n_argv;
	const char *chdir;
	struct asb_network net;
	struct asb_limit limits[8];
	size_t n_limits;
	const char *private_dir, *session_id;
	int64_t uid, gid, is_root, hold, dry_run;
	const char *config_platform;

	char log[16384];
	char *args[256];
	size_t n_args;
	char *artifact;
	size_t artifact_len;
};

const struct asb_host *mock_host(void);
void mock_reset(struct asb_ctx *ctx);
void mock_entry(struct asb_ctx *ctx, uint32_t type, const char *host_path, const char *dest,
                uint32_t flags);
void mock_free(struct asb_ctx *ctx);

#endif
