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

/* `opt` for each of `paths` that no other of them holds. Landlock grants an
 * object what the rules on every directory above it in the sandbox's view
 * allow (mount points included), so a rule beneath another of its kind adds
 * nothing there, and costs init an open, a fstat and a system call (the git
 * plugin's pinned directories are hundreds). Leaving one out can only take
 * rights away: from the same directory seen elsewhere. */
static int push_outermost(struct strv *out, const char *opt, struct strv *paths)
{
	strv_keep_outermost(paths);
	for (size_t i = 0; i < paths->n; i++) {
		int r = strv_push(out, opt);
		if (r < 0 || (r = strv_push(out, paths->v[i])) < 0)
			return r;
	}
	return 0;
}

static int collect(const struct plan *plan, const char *home, struct strv *write,
                   struct strv *write_files, struct strv *exec)
{
	int r = 0;
	/* Writable: the WRITE entries (workspace, rw_dirs, rw_files, --mount,
	 * plugins), the ephemeral home, the temporary directories. Not /run
	 * and other ephemeral entries: a second layer means the mounts alone do
	 * not decide. */
	for (size_t i = 0; r >= 0 && i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if (e->type == ASB_ENTRY_WRITE)
			r = strv_push(write, e->dest);
		else if (e->type == ASB_ENTRY_DEVICE)
			r = strv_push(write_files, e->dest);
	}
	static const char *const scratch[] = {"/tmp", "/var/tmp", "/dev/shm"};
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(scratch); i++)
		r = strv_push(write, scratch[i]);
	if (r >= 0 && home)
		r = strv_push(write, home);
	/* Terminals, /dev/null and friends; /proc/self files. No new nodes. */
	if (r >= 0 && (r = strv_push(write_files, "/dev")) >= 0)
		r = strv_push(write_files, "/proc");

	/* Executable: system library directories, entries marked executable
	 * (package directories, the writable places: the agent could run what
	 * it writes through an interpreter anyway), the declared executables
	 * that are system files, the scratch directories and the home. */
	for (const char *const *d = system_exec_dirs; r >= 0 && *d; d++)
		r = strv_push(exec, *d);
	for (size_t i = 0; r >= 0 && i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if (e->type == ASB_ENTRY_WRITE || (e->flags & ASB_ENTRY_F_EXEC))
			r = strv_push(exec, e->dest);
	}
	for (size_t i = 0; r >= 0 && i < plan->n_execs; i++) {
		const char *t = plan->execs[i].target;
		if (under_system_root(t))
			r = strv_push(exec, t);
	}
	static const char *const scratch_exec[] = {"/tmp", "/var/tmp"};
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(scratch_exec); i++)
		r = strv_push(exec, scratch_exec[i]);
	if (r >= 0 && home)
		r = strv_push(exec, home);
	return r;
}

int landlock_rules(const struct plan *plan, const char *home, bool require, struct strv *out)
{
	int r;
	if (require && (r = strv_push(out, "--require")) < 0)
		return r;
	if ((r = strv_push(out, "--scope")) < 0)
		return r;
	struct strv write = {0}, write_files = {0}, exec = {0};
	if ((r = collect(plan, home, &write, &write_files, &exec)) >= 0 &&
	    (r = push_outermost(out, "--write", &write)) >= 0 &&
	    (r = push_outermost(out, "--write-files", &write_files)) >= 0)
		r = push_outermost(out, "--exec", &exec);
	strv_clear(&write);
	strv_clear(&write_files);
	strv_clear(&exec);
	return r;
}
