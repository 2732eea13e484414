/* SPDX-License-Identifier: MIT */
/*
 * The seatbelt profile generator: plan in, SBPL text out. Pure: no host API,
 * no filesystem access, portable C (it builds and is tested on Linux). What
 * the host must be asked first (does a masked path exist, is a symlink already
 * there, is an executable setuid) the glue (seatbelt.c) asks and hands over in
 * the per-entry state arrays below.
 *
 * The mapping of plan entries onto SBPL is documented in
 * plugins/seatbelt/README.md ("How the plan becomes a profile").
 */
#ifndef ASB_SEATBELT_SBPL_H
#define ASB_SEATBELT_SBPL_H

#include <agentsandbox/plugin.h>

#include <stddef.h>
#include <stdint.h>

/* macOS PATH_MAX is 1024 with the NUL. */
#define SBPL_PATH_MAX 1023
/* sandbox-exec refuses a string literal longer than this ("Error reading
 * string", observed by anthropics/sandbox-runtime); no rule may need one. */
#define SBPL_STRING_MAX 1024

/* What the glue found on the host for an entry (entry_state). */
#define SBPL_ST_EXISTS 0x1u /* something exists at dest (MASK, EPHEMERAL) */
#define SBPL_ST_AS_IS  0x2u /* SYMLINK: dest already is a link to host_path */

/* What the glue found for an executable (exec_state). */
#define SBPL_X_SETID 0x1u /* setuid/setgid: never executable inside (no NO_NEW_PRIVS) */

/* The plan, as the generator sees it. Every path must already be in the form
 * the kernel reports: absolute, resolved (no symlink, "." or ".."
 * component), as the glue makes them; /tmp, /var and /etc are accepted and
 * rewritten to /private/... (fixed macOS symlinks). */
struct sbpl_input {
	const struct asb_entry *entries;
	uint32_t n_entries;
	const uint32_t *entry_state; /* n_entries SBPL_ST_* bits, or NULL: all exist */
	const struct asb_exec *execs;
	uint32_t n_execs;
	const uint32_t *exec_state;    /* n_execs SBPL_X_* bits, or NULL */
	const struct asb_network *net; /* NULL: ASB_NET_OFF, nothing listed */
	const struct asb_seccomp_group *seccomp;
	uint32_t n_seccomp;
	const struct asb_limit *limits;
	uint32_t n_limits;
	uint32_t hardening;      /* ASB_HARD_* (noted only: seatbelt applies none) */
	const char *home;        /* the real home directory */
	const char *private_dir; /* this backend's private directory for the session */
	const char *tty;         /* the terminal the agent gets (a pty slave), or NULL */
	int env_shim;            /* the command runs through /usr/bin/env (seatbelt.c) */
	const char *title;       /* the first comment line, or NULL */
};

/* What the glue must make in the private directory before the agent runs,
 * and the environment that points the agent at it. All strings owned. */
struct sbpl_place {
	uint32_t kind;    /* SBPL_PLACE_* */
	char *path;       /* where, inside the private directory */
	char *target;     /* LINK: the link's target */
	const void *data; /* FILE: the content (borrowed from the entry) */
	uint64_t data_len;
	uint32_t mode; /* DIR/FILE permission bits */
};
#define SBPL_PLACE_DIR  1u /* mkdir (parents come first in the list) */
#define SBPL_PLACE_LINK 2u /* symlink(target, path) */
#define SBPL_PLACE_FILE 3u /* a read-only file holding data */

struct sbpl_env {
	const char *key;
	char *value;
};

struct sbpl_layout {
	char *bin_dir; /* PATH inside: one link per executable */
	struct sbpl_place *places;
	size_t n_places;
	struct sbpl_env *env; /* HOME, TMPDIR, PATH when the plan moves them */
	size_t n_env;
	char **notes; /* one line per thing done differently from the plan */
	size_t n_notes;
};

/* The layout alone (prepare uses it; the generator computes it too).
 * Returns 0, or -errno with a reason in `why`. */
int sbpl_layout_build(const struct sbpl_input *in, struct sbpl_layout *out, char *why,
                      size_t why_len);
void sbpl_layout_free(struct sbpl_layout *layout);

/* The profile. On success *profile is a NUL-terminated malloc'd string.
 * Returns 0, or -errno with a reason in `why`: -EINVAL for a path the profile
 * cannot name (control characters, invalid UTF-8, not canonical),
 * -ENAMETOOLONG, -EOPNOTSUPP for an entry seatbelt cannot honour (a generated
 * file or a symlink outside a private directory, a remapped path), -ENOMEM. */
int sbpl_generate(const struct sbpl_input *in, char **profile, size_t *len, char *why,
                  size_t why_len);

/* A path the profile can name, as it will appear there (/tmp -> /private/tmp
 * and the like): 0 and a malloc'd copy in *out, or -errno and a reason. */
int sbpl_canonical(const char *path, char **out, const char **reason);

#endif /* ASB_SEATBELT_SBPL_H */
