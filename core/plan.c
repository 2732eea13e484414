/* SPDX-License-Identifier: MIT */
#include "plan.h"

#include <agentsandbox/plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

void plan_free(struct plan *plan)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		struct plan_mount *m = &plan->mounts[i];
		if (m->fd >= 0)
			close(m->fd);
		free(m->source);
		free(m->dest);
		free(m->origin);
	}
	free(plan->mounts);
	for (size_t i = 0; i < plan->n_env; i++) {
		free(plan->env[i].key);
		free(plan->env[i].value);
	}
	free(plan->env);
	for (size_t i = 0; i < plan->n_execs; i++) {
		free(plan->execs[i].name);
		free(plan->execs[i].target);
	}
	free(plan->execs);
	strv_clear(&plan->argv);
	free(plan->chdir);
	for (size_t i = 0; i < plan->n_seccomp_fds; i++)
		close(plan->seccomp_fds[i]);
	free(plan->seccomp_fds);
	for (size_t i = 0; i < plan->n_seccomp_allow; i++) {
		free(plan->seccomp_allow[i].group);
		free(plan->seccomp_allow[i].origin);
	}
	free(plan->seccomp_allow);
	free(plan->init_path);
	strv_clear(&plan->init_args);
	free(plan->tcp_connect_ports);
	*plan = (struct plan){0};
}

int plan_add_mount(struct plan *plan, uint32_t type, uint32_t flags, uint32_t mode, int fd,
                   const char *source, const char *dest, const char *origin)
{
	if (!dest || dest[0] != '/')
		return -EINVAL;
	struct plan_mount *n = realloc(plan->mounts, (plan->n_mounts + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	plan->mounts = n;
	struct plan_mount m = {type, flags, mode, -1, NULL, NULL, NULL};
	if (fd >= 0 && (m.fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	m.source = source ? strdup(source) : NULL;
	m.dest = strdup(dest);
	m.origin = strdup(origin ? origin : "core");
	if ((source && !m.source) || !m.dest || !m.origin) {
		if (m.fd >= 0)
			close(m.fd);
		free(m.source);
		free(m.dest);
		free(m.origin);
		return -ENOMEM;
	}
	plan->mounts[plan->n_mounts++] = m;
	return 0;
}

int plan_bind(struct plan *plan, uint32_t type, const char *host_path, const char *dest,
              uint32_t flags, const char *origin)
{
	if (type != ASB_MOUNT_RO_BIND && type != ASB_MOUNT_BIND && type != ASB_MOUNT_DEV_BIND)
		return -EINVAL;
	char real[PATH_MAX];
	if (!realpath(host_path, real)) {
		if (errno == ENOENT && (flags & ASB_MOUNT_F_TRY))
			return 0;
		return -errno;
	}
	_cleanup_close_ int fd = open(real, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* A component swapped for a symlink between realpath() and open() would
	 * show here: bind only what was checked. */
	char proc[64], seen[PATH_MAX];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(proc, seen, sizeof(seen) - 1);
	if (len < 0)
		return -errno;
	seen[len] = '\0';
	if (strcmp(seen, real) != 0)
		return -EXDEV;
	return plan_add_mount(plan, type, flags & ~ASB_MOUNT_F_TRY, 0, fd, real,
	                      dest ? dest : host_path, origin);
}

int plan_add_data(struct plan *plan, const char *dest, const void *data, size_t len, uint32_t mode,
                  const char *origin)
{
	_cleanup_close_ int fd = memfd_create("asb-data", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, data, len);
	if (r < 0)
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	return plan_add_mount(plan, ASB_MOUNT_DATA, 0, mode ? mode : 0444, fd, NULL, dest, origin);
}

static struct plan_env *env_find(const struct plan *plan, const char *key)
{
	for (size_t i = 0; i < plan->n_env; i++)
		if (strcmp(plan->env[i].key, key) == 0)
			return &plan->env[i];
	return NULL;
}

int plan_setenv(struct plan *plan, const char *key, const char *value)
{
	if (!*key || strchr(key, '='))
		return -EINVAL;
	char *v = strdup(value);
	if (!v)
		return -ENOMEM;
	struct plan_env *e = env_find(plan, key);
	if (e) {
		free(e->value);
		e->value = v;
		return 0;
	}
	struct plan_env *n = realloc(plan->env, (plan->n_env + 1) * sizeof(*n));
	if (!n) {
		free(v);
		return -ENOMEM;
	}
	plan->env = n;
	char *k = strdup(key);
	if (!k) {
		free(v);
		return -ENOMEM;
	}
	plan->env[plan->n_env++] = (struct plan_env){k, v};
	return 0;
}

int plan_unsetenv(struct plan *plan, const char *key)
{
	struct plan_env *e = env_find(plan, key);
	if (!e)
		return 0;
	free(e->key);
	free(e->value);
	size_t idx = (size_t)(e - plan->env);
	memmove(e, e + 1, (plan->n_env - idx - 1) * sizeof(*e));
	plan->n_env--;
	return 0;
}

const char *plan_getenv(const struct plan *plan, const char *key)
{
	const struct plan_env *e = env_find(plan, key);
	return e ? e->value : NULL;
}

int plan_add_exec(struct plan *plan, const char *name, const char *target)
{
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    target[0] != '/')
		return -EINVAL;
	for (size_t i = 0; i < plan->n_execs; i++)
		if (strcmp(plan->execs[i].name, name) == 0)
			return 0;
	struct plan_exec *n = realloc(plan->execs, (plan->n_execs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	plan->execs = n;
	struct plan_exec e = {strdup(name), strdup(target)};
	if (!e.name || !e.target) {
		free(e.name);
		free(e.target);
		return -ENOMEM;
	}
	plan->execs[plan->n_execs++] = e;
	return 0;
}

int plan_add_seccomp_fd(struct plan *plan, int fd)
{
	if (fd < 0)
		return -EBADF;
	int *n = realloc(plan->seccomp_fds, (plan->n_seccomp_fds + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	plan->seccomp_fds = n;
	n[plan->n_seccomp_fds++] = fd;
	return 0;
}

bool plan_seccomp_allowed(const struct plan *plan, const char *group)
{
	for (size_t i = 0; i < plan->n_seccomp_allow; i++)
		if (strcmp(plan->seccomp_allow[i].group, group) == 0)
			return true;
	return false;
}

int plan_seccomp_allow(struct plan *plan, const char *group, const char *origin)
{
	if (plan_seccomp_allowed(plan, group))
		return 0;
	struct plan_seccomp_allow *n =
	    realloc(plan->seccomp_allow, (plan->n_seccomp_allow + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	plan->seccomp_allow = n;
	struct plan_seccomp_allow a = {strdup(group), strdup(origin ? origin : "core")};
	if (!a.group || !a.origin) {
		free(a.group);
		free(a.origin);
		return -ENOMEM;
	}
	plan->seccomp_allow[plan->n_seccomp_allow++] = a;
	return 0;
}

int plan_set_init(struct plan *plan, const char *host_path, struct strv *args)
{
	if (host_path[0] != '/' || plan->finished)
		return -EINVAL;
	char *p = strdup(host_path);
	if (!p)
		return -ENOMEM;
	free(plan->init_path);
	plan->init_path = p;
	strv_clear(&plan->init_args);
	plan->init_args = *args;
	*args = (struct strv){0};
	return 0;
}

int plan_filter_tcp_connect(struct plan *plan, uint16_t port)
{
	plan->tcp_connect_filtered = true;
	if (port == 0)
		return 0;
	for (size_t i = 0; i < plan->n_tcp_connect_ports; i++)
		if (plan->tcp_connect_ports[i] == port)
			return 0;
	uint16_t *n =
	    realloc(plan->tcp_connect_ports, (plan->n_tcp_connect_ports + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	plan->tcp_connect_ports = n;
	n[plan->n_tcp_connect_ports++] = port;
	return 0;
}

/* argv becomes: init, its options, "--", argv. */
static int prefix_init(struct plan *plan)
{
	struct strv argv = {0};
	int r = strv_push(&argv, PLAN_INIT);
	for (size_t i = 0; r >= 0 && i < plan->init_args.n; i++)
		r = strv_push(&argv, plan->init_args.v[i]);
	if (r >= 0)
		r = strv_push(&argv, "--");
	for (size_t i = 0; r >= 0 && i < plan->argv.n; i++)
		r = strv_push(&argv, plan->argv.v[i]);
	if (r < 0) {
		strv_clear(&argv);
		return r;
	}
	strv_clear(&plan->argv);
	plan->argv = argv;
	return 0;
}

int plan_finish(struct plan *plan)
{
	if (plan->finished)
		return 0;
	int r;
	/* Its own read-only tmpfs, so the agent cannot add to its PATH. */
	if ((r = plan_add_mount(plan, ASB_MOUNT_TMPFS, 0, 0755, -1, NULL, PLAN_BIN_ROOT, "core")) <
	        0 ||
	    (r = plan_add_mount(plan, ASB_MOUNT_DIR, 0, 0755, -1, NULL, PLAN_BIN_DIR, "core")) < 0)
		return r;
	for (size_t i = 0; i < plan->n_execs; i++) {
		_cleanup_free_ char *dest = str_printf("%s/%s", PLAN_BIN_DIR, plan->execs[i].name);
		if (!dest)
			return -ENOMEM;
		if ((r = plan_add_mount(plan, ASB_MOUNT_SYMLINK, 0, 0, -1, plan->execs[i].target,
		                        dest, "core")) < 0)
			return r;
	}
	if (plan->init_path &&
	    ((r = plan_bind(plan, ASB_MOUNT_RO_BIND, plan->init_path, PLAN_INIT, 0, "core")) < 0 ||
	     (r = prefix_init(plan)) < 0))
		return r;
	if ((r = plan_add_mount(plan, ASB_MOUNT_REMOUNT_RO, 0, 0, -1, NULL, PLAN_BIN_ROOT,
	                        "core")) < 0)
		return r;
	plan->finished = true;
	return 0;
}
