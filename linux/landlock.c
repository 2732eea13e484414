/* SPDX-License-Identifier: MIT */
#include "landlock.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)

int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return abi < 0 ? -errno : (int)abi;
}

/* Where shared libraries, ELF interpreters and helper programs of system
 * packages live (git's git-core, python's modules, ld.so). Missing ones are
 * skipped inside. */
static const char *const system_exec_dirs[] = {
    "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/usr/libexec", "/lib", "/lib64",
    "/lib32",   "/libx32",    "/nix/store", NULL};

static const char *const system_roots[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                           "/lib32", "/lib64", "/libx32", NULL};

static bool under_system_root(const char *path)
{
	for (const char *const *d = system_roots; *d; d++)
		if (path_is_within(path, *d))
			return true;
	return false;
}

static int push2(struct strv *out, const char *opt, const char *arg)
{
	int r = strv_push(out, opt);
	return r < 0 ? r : strv_push(out, arg);
}

int landlock_rules(const struct plan *plan, const char *home, bool require, struct strv *out)
{
	int r;
	if (require && (r = strv_push(out, "--require")) < 0)
		return r;
	if ((r = strv_push(out, "--scope")) < 0)
		return r;

	/* Writable: the WRITE entries (workspace, rw_dirs, rw_files, --mount,
	 * plugins), the ephemeral home, the temporary directories. Not /run
	 * and other ephemeral entries: a second layer means the mounts alone do
	 * not decide. */
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if (e->type == ASB_ENTRY_WRITE && (r = push2(out, "--write", e->dest)) < 0)
			return r;
		if (e->type == ASB_ENTRY_DEVICE && (r = push2(out, "--write-files", e->dest)) < 0)
			return r;
	}
	static const char *const scratch[] = {"/tmp", "/var/tmp", "/dev/shm"};
	for (size_t i = 0; i < ARRAY_SIZE(scratch); i++)
		if ((r = push2(out, "--write", scratch[i])) < 0)
			return r;
	if (home && (r = push2(out, "--write", home)) < 0)
		return r;
	/* Terminals, /dev/null and friends; /proc/self files. No new nodes. */
	if ((r = push2(out, "--write-files", "/dev")) < 0 ||
	    (r = push2(out, "--write-files", "/proc")) < 0)
		return r;

	/* Executable: system library directories, entries marked executable
	 * (package directories, the writable places: the agent could run what
	 * it writes through an interpreter anyway), the declared executables
	 * that are system files, the scratch directories and the home. */
	for (const char *const *d = system_exec_dirs; *d; d++)
		if ((r = push2(out, "--exec", *d)) < 0)
			return r;
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if ((e->type == ASB_ENTRY_WRITE || (e->flags & ASB_ENTRY_F_EXEC)) &&
		    (r = push2(out, "--exec", e->dest)) < 0)
			return r;
	}
	for (size_t i = 0; i < plan->n_execs; i++) {
		const char *t = plan->execs[i].target;
		if (under_system_root(t) && (r = push2(out, "--exec", t)) < 0)
			return r;
	}
	static const char *const scratch_exec[] = {"/tmp", "/var/tmp"};
	for (size_t i = 0; i < ARRAY_SIZE(scratch_exec); i++)
		if ((r = push2(out, "--exec", scratch_exec[i])) < 0)
			return r;
	if (home && (r = push2(out, "--exec", home)) < 0)
		return r;
	return 0;
}
