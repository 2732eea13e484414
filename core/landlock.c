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

#ifndef ASB_LIBEXECDIR
#define ASB_LIBEXECDIR "/usr/local/libexec/agentsandbox"
#endif
#define INIT_NAME "agentsandbox-init"

int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return abi < 0 ? -errno : (int)abi;
}

static bool is_executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int landlock_init_path(char **out)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		self[len] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			_cleanup_free_ char *near = str_printf("%s/%s", self, INIT_NAME);
			if (near && is_executable_file(near)) {
				*out = TAKE_PTR(near);
				return 0;
			}
		}
	}
	if (!is_executable_file(ASB_LIBEXECDIR "/" INIT_NAME))
		return -ENOENT;
	return (*out = strdup(ASB_LIBEXECDIR "/" INIT_NAME)) ? 0 : -ENOMEM;
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

int landlock_rules(const struct plan *plan, const struct policy *p, bool require, struct strv *out)
{
	int r;
	if (require && (r = strv_push(out, "--require")) < 0)
		return r;
	if ((r = strv_push(out, "--scope")) < 0)
		return r;

	/* Writable: what is bound read-write (workspace, rw_dirs, rw_files,
	 * --mount, plugins), the ephemeral home, the temporary directories.
	 * Not /run and the rest of the layout's tmpfs: a second layer means
	 * the mounts alone do not decide. */
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct plan_mount *m = &plan->mounts[i];
		if (m->type == ASB_MOUNT_BIND && (r = push2(out, "--write", m->dest)) < 0)
			return r;
		if (m->type == ASB_MOUNT_DEV_BIND && (r = push2(out, "--write-files", m->dest)) < 0)
			return r;
	}
	static const char *const scratch[] = {"/tmp", "/var/tmp", "/dev/shm"};
	for (size_t i = 0; i < ARRAY_SIZE(scratch); i++)
		if ((r = push2(out, "--write", scratch[i])) < 0)
			return r;
	if (p->home && (r = push2(out, "--write", p->home)) < 0)
		return r;
	/* Terminals, /dev/null and friends; /proc/self files. No new nodes. */
	if ((r = push2(out, "--write-files", "/dev")) < 0 ||
	    (r = push2(out, "--write-files", "/proc")) < 0)
		return r;

	/* Executable: the declared executables (the file itself when it is a
	 * system one, its package directory otherwise: what layout binds),
	 * system library directories, and the places the agent can write
	 * anyway (it could run what it writes through an interpreter). */
	for (const char *const *d = system_exec_dirs; *d; d++)
		if ((r = push2(out, "--exec", *d)) < 0)
			return r;
	for (size_t i = 0; i < plan->n_execs; i++) {
		const char *t = plan->execs[i].target;
		if (under_system_root(t)) {
			if ((r = push2(out, "--exec", t)) < 0)
				return r;
			continue;
		}
		_cleanup_free_ char *dir = strdup(t);
		if (!dir)
			return -ENOMEM;
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		if ((r = push2(out, "--exec", dir)) < 0)
			return r;
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct plan_mount *m = &plan->mounts[i];
		if (m->type == ASB_MOUNT_BIND && (r = push2(out, "--exec", m->dest)) < 0)
			return r;
	}
	static const char *const scratch_exec[] = {"/tmp", "/var/tmp"};
	for (size_t i = 0; i < ARRAY_SIZE(scratch_exec); i++)
		if ((r = push2(out, "--exec", scratch_exec[i])) < 0)
			return r;
	if (p->home && (r = push2(out, "--exec", p->home)) < 0)
		return r;

	if (plan->tcp_connect_filtered) {
		if ((r = strv_push(out, "--filter-connect")) < 0)
			return r;
		for (size_t i = 0; i < plan->n_tcp_connect_ports; i++) {
			char port[8];
			snprintf(port, sizeof(port), "%u", (unsigned)plan->tcp_connect_ports[i]);
			if ((r = push2(out, "--connect", port)) < 0)
				return r;
		}
	}
	return 0;
}
