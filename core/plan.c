/* SPDX-License-Identifier: MIT */
#include "plan.h"

#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void entry_free(struct plan_entry *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->host_path);
	free(e->dest);
	free(e->origin);
	free(e->data);
}

void plan_free(struct plan *plan)
{
	for (size_t i = 0; i < plan->n_entries; i++)
		entry_free(&plan->entries[i]);
	free(plan->entries);
	for (size_t i = 0; i < plan->n_env; i++) {
		free(plan->env[i].key);
		free(plan->env[i].value);
	}
	free(plan->env);
	for (size_t i = 0; i < plan->n_execs; i++) {
		free(plan->execs[i].name);
		free(plan->execs[i].target);
		free(plan->execs[i].origin);
	}
	free(plan->execs);
	strv_clear(&plan->argv);
	free(plan->chdir);
	free(plan->host_ports);
	free(plan->published_ports);
	for (size_t i = 0; i < plan->n_seccomp_allow; i++) {
		free(plan->seccomp_allow[i].group);
		free(plan->seccomp_allow[i].origin);
	}
	free(plan->seccomp_allow);
	if (plan->empty_data_fd > 0)
		close(plan->empty_data_fd);
	*plan = (struct plan){0};
}

/* An fd of its own on `data`: empty ones share one sealed file (nothing
 * can be written to it), each entry its own dup. */
static int data_fd(struct plan *plan, const void *data, size_t len, int *out)
{
	if (len)
		return platform_data_fd(data, len, out);
	if (plan->empty_data_fd <= 0) {
		int fd, r = platform_data_fd(NULL, 0, &fd);
		if (r < 0)
			return r;
		/* Above 2 (0 is "none made yet"), even when started with 0-2 closed. */
		if (fd < 3) {
			int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			r = high < 0 ? -errno : 0;
			close(fd);
			if (r < 0)
				return r;
			fd = high;
		}
		plan->empty_data_fd = fd;
	}
	int fd = fcntl(plan->empty_data_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	*out = fd;
	return 0;
}

/* Takes ownership of e's fd and strings, also on failure. */
static int push_entry(struct plan *plan, struct plan_entry *e)
{
	if (plan->final) {
		entry_free(e);
		return -EBUSY;
	}
	/* Doubled, not grown by one: a git workspace plans hundreds. */
	if (plan->n_entries == plan->cap_entries) {
		size_t cap = plan->cap_entries ? plan->cap_entries * 2 : 64;
		struct plan_entry *n = realloc(plan->entries, cap * sizeof(*n));
		if (!n) {
			entry_free(e);
			return -ENOMEM;
		}
		plan->entries = n;
		plan->cap_entries = cap;
	}
	plan->entries[plan->n_entries++] = *e;
	return 0;
}

/* Absolute, with no ".." component (not even the last one: "/a/b/.."
 * would be a mount over /a). */
static bool valid_dest(const char *dest)
{
	if (!dest || dest[0] != '/' || strstr(dest, "/../"))
		return false;
	size_t n = strlen(dest);
	return !(n >= 3 && strcmp(dest + n - 3, "/..") == 0);
}

static int new_entry(struct plan_entry *e, uint32_t type, uint32_t flags, uint32_t mode,
                     const char *host_path, const char *dest, const char *origin)
{
	*e = (struct plan_entry){type, flags, mode, -1, NULL, NULL, NULL, NULL, 0, false};
	e->host_path = host_path ? strdup(host_path) : NULL;
	e->dest = strdup(dest);
	e->origin = strdup(origin ? origin : "core");
	if ((host_path && !e->host_path) || !e->dest || !e->origin) {
		entry_free(e);
		return -ENOMEM;
	}
	return 0;
}

int plan_path(struct plan *plan, uint32_t type, const char *host_path, const char *dest,
              uint32_t flags, const char *origin)
{
	if (type != ASB_ENTRY_READ && type != ASB_ENTRY_WRITE && type != ASB_ENTRY_DEVICE)
		return -EINVAL;
	if (!host_path || host_path[0] != '/' || (dest && !valid_dest(dest)))
		return -EINVAL;
	if (plan->final)
		return -EBUSY;
	char real[PATH_MAX];
	struct stat st;
	int fd = -1;
	int r = platform_pin_path(host_path, real, &st, &fd);
	if (r == -ENOENT && (flags & ASB_ENTRY_F_TRY))
		return 0;
	if (r < 0)
		return r;
	flags &= ~(ASB_ENTRY_F_TRY | ASB_ENTRY_F_DIR);
	flags |= ASB_ENTRY_F_PINNED | (S_ISDIR(st.st_mode) ? ASB_ENTRY_F_DIR : 0);
	struct plan_entry e;
	if ((r = new_entry(&e, type, flags, 0, real, dest ? dest : host_path, origin)) < 0) {
		close(fd);
		return r;
	}
	e.fd = fd;
	e.remapped = dest && strcmp(dest, host_path) != 0;
	return push_entry(plan, &e);
}

int plan_path_unopened(struct plan *plan, uint32_t type, const char *host_path, const char *dest,
                       uint32_t flags, const char *origin)
{
	struct plan_entry e;
	struct stat st;
	uint32_t kind = stat(host_path, &st) < 0 || S_ISDIR(st.st_mode) ? ASB_ENTRY_F_DIR : 0;
	int r = new_entry(&e, type, (flags & (ASB_ENTRY_F_TRY | ASB_ENTRY_F_EXEC)) | kind, 0,
	                  host_path, dest ? dest : host_path, origin);
	if (r < 0)
		return r;
	e.remapped = dest && strcmp(dest, host_path) != 0;
	return push_entry(plan, &e);
}

int plan_entry(struct plan *plan, uint32_t type, uint32_t flags, uint32_t mode,
               const char *host_path, const char *dest, const void *data, size_t len,
               const char *origin)
{
	if (!valid_dest(dest))
		return -EINVAL;
	switch (type) {
	case ASB_ENTRY_EPHEMERAL:
	case ASB_ENTRY_PROC:
	case ASB_ENTRY_DEVFS:
		flags |= ASB_ENTRY_F_DIR;
		host_path = NULL;
		break;
	case ASB_ENTRY_MASK:
		host_path = NULL;
		break;
	case ASB_ENTRY_FILE:
		flags &= ~ASB_ENTRY_F_DIR;
		host_path = NULL;
		break;
	case ASB_ENTRY_SYMLINK:
		if (!host_path || !*host_path)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (plan->final)
		return -EBUSY;
	flags &= ASB_ENTRY_F_EXEC | ASB_ENTRY_F_DIR;
	struct plan_entry e;
	int r = new_entry(&e, type, flags, mode, host_path, dest, origin);
	if (r < 0)
		return r;
	if (type == ASB_ENTRY_FILE || (type == ASB_ENTRY_MASK && !(flags & ASB_ENTRY_F_DIR))) {
		if (type == ASB_ENTRY_MASK)
			len = 0;
		if (!e.mode)
			e.mode = 0444;
		if ((r = data_fd(plan, data, len, &e.fd)) < 0) {
			entry_free(&e);
			return r;
		}
		e.data = malloc(len + 1);
		if (!e.data) {
			entry_free(&e);
			return -ENOMEM;
		}
		if (len)
			memcpy(e.data, data, len);
		e.data[len] = '\0';
		e.data_len = len;
	}
	return push_entry(plan, &e);
}

int plan_file(struct plan *plan, const char *dest, const void *data, size_t len, uint32_t mode,
              const char *origin)
{
	return plan_entry(plan, ASB_ENTRY_FILE, 0, mode, NULL, dest, data, len, origin);
}

int plan_ephemeral(struct plan *plan, const char *dest, uint32_t mode, const char *origin)
{
	return plan_entry(plan, ASB_ENTRY_EPHEMERAL, 0, mode, NULL, dest, NULL, 0, origin);
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
	if (!*key || strchr(key, '=') || !value)
		return -EINVAL;
	if (plan->final)
		return -EBUSY;
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
	if (plan->final)
		return -EBUSY;
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

const struct plan_exec *plan_find_exec(const struct plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->n_execs; i++)
		if (strcmp(plan->execs[i].name, name) == 0)
			return &plan->execs[i];
	return NULL;
}

int plan_add_exec(struct plan *plan, const char *name, const char *target, const char *origin)
{
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    target[0] != '/')
		return -EINVAL;
	if (plan->final)
		return -EBUSY;
	if (plan_find_exec(plan, name))
		return 0;
	struct plan_exec *n = realloc(plan->execs, (plan->n_execs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	plan->execs = n;
	struct plan_exec e = {strdup(name), strdup(target), strdup(origin ? origin : "core")};
	if (!e.name || !e.target || !e.origin) {
		free(e.name);
		free(e.target);
		free(e.origin);
		return -ENOMEM;
	}
	plan->execs[plan->n_execs++] = e;
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
	if (plan->final)
		return -EBUSY;
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

int plan_prefix_argv(struct plan *plan, const char *init, const struct strv *opts)
{
	if (plan->final)
		return -EBUSY;
	struct strv argv = {0};
	int r = strv_push(&argv, init);
	for (size_t i = 0; r >= 0 && i < opts->n; i++)
		r = strv_push(&argv, opts->v[i]);
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

/* Parents first, each depth in the order entries were added: a stable
 * counting sort by depth, each depth counted once per entry (a git
 * workspace plans hundreds). Without memory for it, an insertion sort in
 * place: the order is never left undone. */
static void sort_parent_first(struct plan_entry *v, size_t n)
{
	if (n < 2)
		return;
	size_t *depth = malloc(n * sizeof(*depth));
	struct plan_entry *tmp = malloc(n * sizeof(*tmp));
	size_t max = 0;
	for (size_t i = 0; depth && i < n; i++)
		if ((depth[i] = path_depth(v[i].dest)) > max)
			max = depth[i];
	size_t *start = depth && tmp ? calloc(max + 2, sizeof(*start)) : NULL;
	if (start) {
		for (size_t i = 0; i < n; i++)
			start[depth[i] + 1]++;
		for (size_t d = 1; d <= max + 1; d++)
			start[d] += start[d - 1];
		for (size_t i = 0; i < n; i++)
			tmp[start[depth[i]]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	} else {
		for (size_t i = 1; i < n; i++) {
			struct plan_entry e = v[i];
			size_t d = path_depth(e.dest), j = i;
			for (; j > 0 && path_depth(v[j - 1].dest) > d; j--)
				v[j] = v[j - 1];
			v[j] = e;
		}
	}
	free(start);
	free(tmp);
	free(depth);
}

void plan_set_final(struct plan *plan)
{
	/* Whoever added them, an entry is applied after every entry above it:
	 * a directory one plugin binds over itself (to pin it) must not cover
	 * what another plugin, or the core, put inside it earlier. */
	sort_parent_first(plan->entries, plan->n_entries);
	plan->final = true;
}
