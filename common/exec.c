/* SPDX-License-Identifier: MIT */
#include "exec.h"

#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

#ifndef ASB_LIBEXECDIR
#define ASB_LIBEXECDIR "/usr/local/libexec/agentsandbox"
#endif

static bool is_executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int exec_find(const char *name, const char *search_path, bool resolve, char **out)
{
	char real[PATH_MAX];
	if (strchr(name, '/')) {
		struct stat st;
		if (name[0] != '/')
			return -EINVAL;
		if (stat(name, &st) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode))
			return S_ISDIR(st.st_mode) ? -EISDIR : -EACCES;
		if (access(name, X_OK) < 0)
			return -errno;
		if (!resolve)
			return (*out = strdup(name)) ? 0 : -ENOMEM;
		if (!path_real(name, real))
			return -errno;
		return (*out = strdup(real)) ? 0 : -ENOMEM;
	}
	if (!search_path)
		search_path = "/usr/local/bin:/usr/bin:/bin";
	_cleanup_free_ char *copy = strdup(search_path);
	if (!copy)
		return -ENOMEM;
	char *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/')
			continue; /* a relative PATH entry would depend on the cwd */
		_cleanup_free_ char *cand = str_printf("%s/%s", dir, name);
		if (!cand)
			return -ENOMEM;
		if (!is_executable_file(cand))
			continue;
		if (!resolve) {
			*out = TAKE_PTR(cand);
			return 0;
		}
		if (!path_real(cand, real))
			continue;
		return (*out = strdup(real)) ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

int exec_find_system(const char *name, char **out)
{
	static const char *const dirs[] = {"/usr/bin",  "/bin",  "/usr/local/bin",
	                                   "/usr/sbin", "/sbin", "/run/current-system/sw/bin"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_free_ char *cand = str_printf("%s/%s", dirs[i], name);
		if (!cand)
			return -ENOMEM;
		if (is_executable_file(cand)) {
			*out = TAKE_PTR(cand);
			return 0;
		}
	}
	return -ENOENT;
}

int exec_check_trusted(const char *path, char *why, size_t why_len)
{
	char walk[PATH_MAX];
	if (!path_real(path, walk))
		return -errno;
	for (;;) {
		struct stat st;
		if (stat(walk, &st) < 0)
			return -errno;
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			if (why && why_len)
				snprintf(why, why_len,
				         "%s is %s; it must be owned by root and writable by root "
				         "only",
				         walk,
				         st.st_uid != 0 ? "not owned by root"
				                        : "group/other-writable");
			return -EPERM;
		}
		if (strcmp(walk, "/") == 0)
			return 0;
		char *slash = strrchr(walk, '/');
		if (slash == walk)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int exec_self_dir(char *out, size_t len)
{
#ifdef __APPLE__
	char buf[PATH_MAX];
	uint32_t size = sizeof(buf);
	if (_NSGetExecutablePath(buf, &size) != 0 || !path_real(buf, out))
		return -ENOENT;
	(void)len;
#else
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	if (n <= 0)
		return -ENOENT;
	out[n] = '\0';
#endif
	char *slash = strrchr(out, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	return 0;
}

int exec_self(char **out)
{
	char dir[PATH_MAX];
	if (exec_self_dir(dir, sizeof(dir)) < 0)
		return -ENOENT;
#ifdef __APPLE__
	char buf[PATH_MAX];
	uint32_t size = sizeof(buf);
	if (_NSGetExecutablePath(buf, &size) != 0 || !path_real(buf, dir))
		return -ENOENT;
#else
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return -ENOENT;
	dir[n] = '\0';
#endif
	return (*out = strdup(dir)) ? 0 : -ENOMEM;
}

int exec_find_helper(const char *name, char **out)
{
	char self[PATH_MAX];
	if (exec_self_dir(self, sizeof(self)) == 0) {
		static const char *const subdirs[] = {".", "proxy", "linux", "broker"};
		for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
			_cleanup_free_ char *cand = str_printf("%s/%s/%s", self, subdirs[i], name);
			if (cand && is_executable_file(cand)) {
				*out = TAKE_PTR(cand);
				return 0;
			}
		}
	}
	_cleanup_free_ char *inst = str_printf("%s/%s", ASB_LIBEXECDIR, name);
	if (!inst)
		return -ENOMEM;
	if (!is_executable_file(inst))
		return -ENOENT;
	*out = TAKE_PTR(inst);
	return 0;
}
