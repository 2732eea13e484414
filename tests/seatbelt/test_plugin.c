/* SPDX-License-Identifier: MIT */
/*
 * The seatbelt module itself, loaded as the core loads plugins (dlopen, the
 * one exported symbol) and driven through its hooks by a small stand-in for
 * the ABI 2 host, on Linux: the descriptor and capabilities, the refusal to
 * run off macOS, what pre_mount and env add to the plan, the private
 * directories prepare makes, the command and profile build emits (with and
 * without the private directory's name known to the env hook). Until the
 * ABI 2 core lands this is the only host it has; the path of the module is
 * $SEATBELT_PLUGIN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <agentsandbox/plugin.h>

#include "sbpl_eval.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ the host */

#define MAX 256

static struct {
	struct asb_entry entries[MAX];
	char *strs[4 * MAX];
	size_t n_strs;
	uint32_t n_entries;
	struct asb_exec execs[16];
	uint32_t n_execs;
	const char *env_k[32];
	const char *env_v[32];
	uint32_t n_env;
	const char *argv[8];
	uint32_t argc;
	struct asb_network net;
	struct asb_seccomp_group group;
	const char *out[64];
	uint32_t n_out;
	char *artifact;
	size_t artifact_len;
	char artifact_name[64];
	char describe[4096];
	int dry_run;
	const char *home, *workspace, *private_dir, *session_dir;
	int plan_path_calls, plan_path_try;
	bool saw_usr_lib, saw_clt_libexec_exec;
} H;

static const char *keep(const char *s)
{
	if (!s)
		return NULL;
	char *c = strdup(s);
	assert_non_null(c);
	H.strs[H.n_strs++] = c;
	return c;
}

static void h_log(struct asb_ctx *ctx, int level, const char *fmt, ...) ASB_PRINTF(3, 4);
static void h_log(struct asb_ctx *ctx, int level, const char *fmt, ...)
{
	(void)ctx;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "[plugin log %d] ", level);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static int h_describe(struct asb_ctx *ctx, const char *key, const char *value)
{
	(void)ctx;
	size_t n = strlen(H.describe);
	snprintf(H.describe + n, sizeof(H.describe) - n, "%s: %s\n", key, value);
	return 0;
}

static int h_absent_bool(struct asb_ctx *c, const char *k, int *o)
{
	(void)c, (void)k, (void)o;
	return 0;
}
static int h_absent_int(struct asb_ctx *c, const char *k, int64_t *o)
{
	(void)c, (void)k, (void)o;
	return 0;
}
static int h_absent_str(struct asb_ctx *c, const char *k, const char **o)
{
	(void)c, (void)k, (void)o;
	return 0;
}
static int h_list_count(struct asb_ctx *c, const char *k)
{
	(void)c, (void)k;
	return 0;
}
static int h_list_string(struct asb_ctx *c, const char *k, uint32_t i, const char **o)
{
	(void)c, (void)k, (void)i, (void)o;
	return -ENOENT;
}
static int h_config_error(struct asb_ctx *c, const char *k, const char *fmt, ...) ASB_PRINTF(3, 4);
static int h_config_error(struct asb_ctx *c, const char *k, const char *fmt, ...)
{
	(void)c, (void)k, (void)fmt;
	return -EINVAL;
}

static const char *h_policy_string(struct asb_ctx *ctx, const char *key)
{
	(void)ctx;
	if (strcmp(key, "home") == 0)
		return H.home;
	if (strcmp(key, "workspace") == 0)
		return H.workspace;
	if (strcmp(key, "name") == 0)
		return "mock";
	if (strcmp(key, "session_dir") == 0)
		return H.session_dir;
	if (strcmp(key, "private_dir") == 0)
		return H.private_dir;
	return NULL;
}

static int h_policy_int(struct asb_ctx *ctx, const char *key, int64_t *out)
{
	(void)ctx;
	if (strcmp(key, "dry_run") == 0) {
		*out = H.dry_run;
		return 0;
	}
	return -ENOENT;
}

static int h_policy_list_count(struct asb_ctx *c, const char *k)
{
	(void)c, (void)k;
	return -ENOENT;
}
static const char *h_policy_list_get(struct asb_ctx *c, const char *k, uint32_t i)
{
	(void)c, (void)k, (void)i;
	return NULL;
}
static int h_confirm(struct asb_ctx *c, const char *q)
{
	(void)c, (void)q;
	return -ENXIO;
}
static int h_find_executable(struct asb_ctx *c, const char *n, char *o, size_t l)
{
	(void)c, (void)n, (void)o, (void)l;
	return -ENOENT;
}

static void add(uint32_t type, uint32_t flags, const char *host, const char *dest)
{
	assert_true(H.n_entries < MAX);
	H.entries[H.n_entries++] = (struct asb_entry){
	    .struct_size = sizeof(struct asb_entry),
	    .type = type,
	    .flags = flags,
	    .fd = -1,
	    .host_path = keep(host),
	    .dest = keep(dest ? dest : host),
	    .origin = "mock",
	};
}

/* As the core: the path resolved, the very object at dest. */
static int h_plan_path(struct asb_ctx *ctx, uint32_t type, const char *host_path, const char *dest,
                       uint32_t flags)
{
	(void)ctx;
	H.plan_path_calls++;
	if (flags & ASB_ENTRY_F_TRY)
		H.plan_path_try++;
	if (strcmp(host_path, "/usr/lib") == 0)
		H.saw_usr_lib = true;
	if (strstr(host_path, "CommandLineTools/usr/libexec") && (flags & ASB_ENTRY_F_EXEC))
		H.saw_clt_libexec_exec = true;
	char real[PATH_MAX];
	struct stat st;
	if (!realpath(host_path, real) || stat(real, &st) < 0)
		return (flags & ASB_ENTRY_F_TRY) ? 0 : -ENOENT;
	add(type, (flags & ~ASB_ENTRY_F_TRY) | (S_ISDIR(st.st_mode) ? ASB_ENTRY_F_DIR : 0), real,
	    dest ? dest : host_path);
	return 0;
}

static int h_plan_entry(struct asb_ctx *ctx, const struct asb_entry *e)
{
	(void)ctx;
	add(e->type, e->flags, e->host_path, e->dest);
	return 0;
}

static int h_plan_add_executable(struct asb_ctx *c, const char *n, const char *p)
{
	(void)c;
	H.execs[H.n_execs++] = (struct asb_exec){
	    .struct_size = sizeof(struct asb_exec), .name = keep(n), .host_path = keep(p)};
	return 0;
}

static int h_plan_setenv(struct asb_ctx *ctx, const char *key, const char *value)
{
	(void)ctx;
	for (uint32_t i = 0; i < H.n_env; i++)
		if (strcmp(H.env_k[i], key) == 0) {
			H.env_v[i] = keep(value);
			return 0;
		}
	H.env_k[H.n_env] = keep(key);
	H.env_v[H.n_env++] = keep(value);
	return 0;
}

static const char *getenv_plan(const char *key)
{
	for (uint32_t i = 0; i < H.n_env; i++)
		if (strcmp(H.env_k[i], key) == 0)
			return H.env_v[i];
	return NULL;
}

static int h_plan_unsetenv(struct asb_ctx *c, const char *k)
{
	(void)c, (void)k;
	return 0;
}
static int h_plan_seccomp_allow(struct asb_ctx *c, const char *g)
{
	(void)c, (void)g;
	return 0;
}
static int h_plan_entry_count(struct asb_ctx *c)
{
	(void)c;
	return (int)H.n_entries;
}
static int h_plan_entry_get(struct asb_ctx *c, uint32_t i, struct asb_entry *out)
{
	(void)c;
	if (i >= H.n_entries)
		return -ENOENT;
	assert_int_equal(out->struct_size, sizeof(struct asb_entry));
	*out = H.entries[i];
	return 0;
}
static int h_plan_exec_count(struct asb_ctx *c)
{
	(void)c;
	return (int)H.n_execs;
}
static int h_plan_exec_get(struct asb_ctx *c, uint32_t i, struct asb_exec *out)
{
	(void)c;
	if (i >= H.n_execs)
		return -ENOENT;
	*out = H.execs[i];
	return 0;
}
static int h_plan_env_count(struct asb_ctx *c)
{
	(void)c;
	return (int)H.n_env;
}
static int h_plan_env_get(struct asb_ctx *c, uint32_t i, const char **k, const char **v)
{
	(void)c;
	if (i >= H.n_env)
		return -ENOENT;
	*k = H.env_k[i];
	*v = H.env_v[i];
	return 0;
}
static int h_plan_argv_count(struct asb_ctx *c)
{
	(void)c;
	return (int)H.argc;
}
static const char *h_plan_argv_get(struct asb_ctx *c, uint32_t i)
{
	(void)c;
	return i < H.argc ? H.argv[i] : NULL;
}
static const char *h_plan_chdir(struct asb_ctx *c)
{
	(void)c;
	return H.workspace;
}
static int h_plan_network(struct asb_ctx *c, struct asb_network *out)
{
	(void)c;
	*out = H.net;
	return 0;
}
static uint32_t h_plan_hardening(struct asb_ctx *c)
{
	(void)c;
	return 0;
}
static int h_zero(struct asb_ctx *c)
{
	(void)c;
	return 0;
}
static int h_plan_limit_get(struct asb_ctx *c, uint32_t i, struct asb_limit *o)
{
	(void)c, (void)i, (void)o;
	return -ENOENT;
}
static int h_plan_seccomp_group_count(struct asb_ctx *c)
{
	(void)c;
	return 1;
}
static int h_plan_seccomp_group_get(struct asb_ctx *c, uint32_t i, struct asb_seccomp_group *o)
{
	(void)c;
	if (i)
		return -ENOENT;
	*o = H.group;
	return 0;
}
static int h_out_arg(struct asb_ctx *c, const char *arg)
{
	(void)c;
	assert_true(H.n_out < 64);
	H.out[H.n_out++] = keep(arg);
	return 0;
}
static int h_out_keep_fd(struct asb_ctx *c, int fd)
{
	(void)c, (void)fd;
	return 0;
}
static int h_out_artifact(struct asb_ctx *c, const char *name, const char *data, size_t len)
{
	(void)c;
	free(H.artifact);
	H.artifact = malloc(len + 1);
	assert_non_null(H.artifact);
	memcpy(H.artifact, data, len);
	H.artifact[len] = '\0';
	H.artifact_len = len;
	snprintf(H.artifact_name, sizeof(H.artifact_name), "%s", name);
	return 0;
}
static int h_sandbox_started(struct asb_ctx *c, const struct asb_sandbox *s)
{
	(void)c, (void)s;
	return 0;
}
static int h_sandbox_pid(struct asb_ctx *c, int64_t *o)
{
	(void)c, (void)o;
	return -ESRCH;
}
static int h_run_program(struct asb_ctx *c, const char *const *a, const char *const *e, int *w,
                         char *o, size_t l)
{
	(void)c, (void)a, (void)e, (void)w, (void)o, (void)l;
	return -ENOSYS;
}
static int h_spawn_program(struct asb_ctx *c, const char *const *a, const char *const *e,
                           const int *k, uint32_t n, int64_t *p)
{
	(void)c, (void)a, (void)e, (void)k, (void)n, (void)p;
	return -ENOSYS;
}
static int h_net_namespace_new(struct asb_ctx *c, int *fd)
{
	(void)c, (void)fd;
	return -EOPNOTSUPP;
}

static const struct asb_host host = {
    .struct_size = sizeof(struct asb_host),
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = ASB_ABI_MINOR,
    .log = h_log,
    .describe = h_describe,
    .config_bool = h_absent_bool,
    .config_int = h_absent_int,
    .config_string = h_absent_str,
    .config_list_count = h_list_count,
    .config_list_string = h_list_string,
    .config_error = h_config_error,
    .policy_string = h_policy_string,
    .policy_int = h_policy_int,
    .policy_list_count = h_policy_list_count,
    .policy_list_get = h_policy_list_get,
    .confirm = h_confirm,
    .find_executable = h_find_executable,
    .plan_path = h_plan_path,
    .plan_entry = h_plan_entry,
    .plan_add_executable = h_plan_add_executable,
    .plan_setenv = h_plan_setenv,
    .plan_unsetenv = h_plan_unsetenv,
    .plan_seccomp_allow = h_plan_seccomp_allow,
    .plan_entry_count = h_plan_entry_count,
    .plan_entry_get = h_plan_entry_get,
    .plan_exec_count = h_plan_exec_count,
    .plan_exec_get = h_plan_exec_get,
    .plan_env_count = h_plan_env_count,
    .plan_env_get = h_plan_env_get,
    .plan_argv_count = h_plan_argv_count,
    .plan_argv_get = h_plan_argv_get,
    .plan_chdir = h_plan_chdir,
    .plan_network = h_plan_network,
    .plan_hardening = h_plan_hardening,
    .plan_limit_count = h_zero,
    .plan_limit_get = h_plan_limit_get,
    .plan_seccomp_group_count = h_plan_seccomp_group_count,
    .plan_seccomp_group_get = h_plan_seccomp_group_get,
    .out_arg = h_out_arg,
    .out_keep_fd = h_out_keep_fd,
    .out_artifact = h_out_artifact,
    .sandbox_started = h_sandbox_started,
    .sandbox_pid = h_sandbox_pid,
    .run_program = h_run_program,
    .spawn_program = h_spawn_program,
    .net_namespace_new = h_net_namespace_new,
};

/* ------------------------------------------------------------ fixtures */

static bool on_darwin(void)
{
#ifdef __APPLE__
	return true;
#else
	return false;
#endif
}

static void *module;
static const struct asb_plugin *desc;
static char root[PATH_MAX];

static void reset_host(void)
{
	for (size_t i = 0; i < H.n_strs; i++)
		free(H.strs[i]);
	free(H.artifact);
	memset(&H, 0, sizeof(H));
}

static void mkdirs(const char *rel)
{
	char p[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			mkdir(p, 0700);
			*s = c;
			if (!c)
				break;
		}
	}
}

static const char *at(const char *rel)
{
	char p[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return keep(p);
}

static int setup(void **state)
{
	(void)state;
	const char *path = getenv("SEATBELT_PLUGIN");
	if (!path)
		path = "./seatbelt.so";
	module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!module) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	asb_plugin_entry_fn entry = (asb_plugin_entry_fn)dlsym(module, ASB_PLUGIN_ENTRY_NAME);
	if (!entry)
		return -1;
	desc = entry();
	/* Not below /tmp: the generator spells that /private/tmp, as macOS does. */
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof(tmpl), "%s/seatbelt-plugin-XXXXXX", getcwd(root, sizeof(root)));
	if (!mkdtemp(tmpl) || !realpath(tmpl, root))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	reset_host();
	if (module)
		dlclose(module);
	return system(cmd) == 0 ? 0 : -1;
}

/* A launch's plan as the core would have it on entering the hooks. */
static void core_plan(void)
{
	reset_host();
	mkdirs("home/ws/.git/hooks");
	mkdirs("home/.claude");
	mkdirs("home/.ssh");
	mkdirs("session/seatbelt");
	FILE *f = fopen(at("home/ws/.git/config"), "w");
	assert_non_null(f);
	fclose(f);
	H.home = at("home");
	H.workspace = at("home/ws");
	H.session_dir = at("session");
	add(ASB_ENTRY_READ, ASB_ENTRY_F_DIR, "/usr", NULL);
	add(ASB_ENTRY_DEVFS, 0, NULL, "/dev");
	add(ASB_ENTRY_EPHEMERAL, ASB_ENTRY_F_DIR, NULL, H.home);
	add(ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, at("home/.claude"), NULL);
	add(ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, H.workspace, NULL);
	add(ASB_ENTRY_READ, ASB_ENTRY_F_DIR, at("home/ws/.git/hooks"), NULL);
	add(ASB_ENTRY_READ, 0, at("home/ws/.git/config"), NULL);
	add(ASB_ENTRY_MASK, 0, NULL, at("home/ws/.git/config.worktree"));
	char sh[PATH_MAX];
	assert_non_null(realpath("/bin/sh", sh));
	H.execs[H.n_execs++] = (struct asb_exec){
	    .struct_size = sizeof(struct asb_exec), .name = "sh", .host_path = keep(sh)};
	H.argv[H.argc++] = ASB_BIN_DIR "/sh";
	H.argv[H.argc++] = "-c";
	H.argv[H.argc++] = "echo hi";
	h_plan_setenv(NULL, "PATH", ASB_BIN_DIR);
	h_plan_setenv(NULL, "SHELL", ASB_BIN_DIR "/sh");
	h_plan_setenv(NULL, "HOME", H.home);
	h_plan_setenv(NULL, "HTTPS_PROXY", "http://127.0.0.1:3128"); /* the Linux core's */
	H.net = (struct asb_network){.struct_size = sizeof(struct asb_network),
	                             .mode = ASB_NET_FILTERED,
	                             .proxy_port = 41234};
	H.group = (struct asb_seccomp_group){
	    .struct_size = sizeof(struct asb_seccomp_group), .denied = 1, .name = "unix_sockets"};
}

/* --------------------------------------------------------------- tests */

static void descriptor(void **state)
{
	(void)state;
	assert_non_null(desc);
	assert_int_equal(desc->magic, ASB_PLUGIN_MAGIC);
	assert_int_equal(desc->abi_major, ASB_ABI_MAJOR);
	assert_int_equal(desc->struct_size, sizeof(struct asb_plugin));
	assert_int_equal(desc->kind, ASB_KIND_BACKEND);
	assert_string_equal(desc->name, "seatbelt");
	assert_non_null(desc->backend);
	const struct asb_backend_ops *ops = desc->backend;
	assert_true(ASB_HAS(ops, struct asb_backend_ops, probe));
	assert_true(ASB_HAS(ops, struct asb_backend_ops, build));
	uint64_t want = ASB_CAP_FS_RULES | ASB_CAP_MASKS | ASB_CAP_NET_RULES | ASB_CAP_UNIX_RULES |
	                ASB_CAP_LIMITS;
	uint64_t never = ASB_CAP_FS_VIEW | ASB_CAP_FD_BINDS | ASB_CAP_REMAP | ASB_CAP_EPHEMERAL |
	                 ASB_CAP_FILES | ASB_CAP_PID_NS | ASB_CAP_NETNS | ASB_CAP_SECCOMP |
	                 ASB_CAP_LANDLOCK | ASB_CAP_NO_NEW_PRIVS | ASB_CAP_HOLD;
	assert_int_equal(ops->caps & want, want);
	assert_int_equal(ops->caps & never, 0);
	assert_null(ops->spawn); /* the core starts the built command */
}

static void probe_off_macos(void **state)
{
	(void)state;
	core_plan();
	void *data = NULL;
	assert_int_equal(desc->init(&host, NULL, &data), 0);
	uint64_t caps = desc->backend->caps;
	char why[256] = "";
	int r = desc->backend->probe(&host, NULL, data, &caps, why, sizeof(why));
#ifdef __APPLE__
	(void)r;
#else
	assert_int_equal(r, -ENOSYS);
	assert_non_null(strstr(why, "not macOS"));
	H.dry_run = 1;
	assert_int_equal(desc->backend->probe(&host, NULL, data, &caps, why, sizeof(why)), 0);
#endif
	desc->fini(&host, NULL, data);
}

static bool has_out(const char *arg)
{
	for (uint32_t i = 0; i < H.n_out; i++)
		if (strcmp(H.out[i], arg) == 0)
			return true;
	return false;
}

/* Off macOS, a directory below /tmp, /var or /etc is not where the profile
 * (which spells them /private/...) says it is: nothing to make there. */
static bool root_is_aliased(void)
{
	static const char *const aliased[] = {"/tmp/", "/var/", "/etc/"};
	for (size_t i = 0; i < 3; i++)
		if (strncmp(root, aliased[i], 4) == 0 && !on_darwin())
			return true;
	return false;
}

static void launch(void **state)
{
	(void)state;
	if (root_is_aliased()) {
		fprintf(stderr, "# %s is below /tmp, /var or /etc: launch skipped off macOS\n",
		        root);
		skip();
	}
	core_plan();
	H.private_dir = at("session/seatbelt");
	void *data = NULL;
	assert_int_equal(desc->init(&host, NULL, &data), 0);
	/* pre_mount: the macOS system locations, each "if it exists". */
	assert_int_equal(desc->hooks->pre_mount(&host, NULL, data), 0);
	assert_true(H.saw_usr_lib);
	assert_true(H.saw_clt_libexec_exec);
	assert_int_equal(H.plan_path_calls, H.plan_path_try);
	/* env: PATH, HOME and SHELL point into the private directory. */
	assert_int_equal(desc->hooks->env(&host, NULL, data), 0);
	char want[PATH_MAX * 2];
	snprintf(want, sizeof(want), "%s/bin", H.private_dir);
	assert_string_equal(getenv_plan("PATH"), want);
	snprintf(want, sizeof(want), "%s/bin/sh", H.private_dir);
	assert_string_equal(getenv_plan("SHELL"), want);
	snprintf(want, sizeof(want), "%s/home", H.private_dir);
	assert_string_equal(getenv_plan("HOME"), want);
	/* The proxy is the host's, at the plan's port. */
	assert_string_equal(getenv_plan("HTTPS_PROXY"), "http://127.0.0.1:41234");
	assert_string_equal(getenv_plan("http_proxy"), "http://127.0.0.1:41234");
	assert_string_equal(getenv_plan("NO_PROXY"), "localhost,127.0.0.1,::1");
	/* prepare: the links and the private home. */
	assert_int_equal(desc->backend->prepare(&host, NULL, data), 0);
	char link[PATH_MAX * 2], target[PATH_MAX];
	snprintf(link, sizeof(link), "%s/bin/sh", H.private_dir);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	snprintf(link, sizeof(link), "%s/home/.claude", H.private_dir);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, at("home/.claude"));
	/* build: sandbox-exec at its fixed path, the profile, the command. */
	assert_int_equal(desc->backend->build(&host, NULL, data), 0);
	assert_true(H.n_out >= 6);
	assert_string_equal(H.out[0], "/usr/bin/sandbox-exec");
	assert_string_equal(H.out[1], "-f");
	snprintf(want, sizeof(want), "%s/seatbelt.sb", H.session_dir);
	assert_string_equal(H.out[2], want);
	snprintf(want, sizeof(want), "%s/bin/sh", H.private_dir);
	assert_string_equal(H.out[3], want);
	assert_string_equal(H.out[4], "-c");
	assert_string_equal(H.out[5], "echo hi");
	assert_false(has_out("/usr/bin/env"));
	assert_string_equal(H.artifact_name, "seatbelt.sb");
	/* The profile the module wrote answers as the plan says. */
	struct sbe_profile *p = NULL;
	char err[256];
	if (sbe_parse(H.artifact, H.artifact_len, &p, err, sizeof(err)) < 0)
		fail_msg("%s\n%s", err, H.artifact);
	assert_int_equal(sbe_may_write(p, at("home/ws/src.c")), 1);
	assert_int_equal(sbe_may_write(p, at("home/ws/.git/hooks/pre-commit")), 0);
	assert_int_equal(sbe_may_write(p, at("home/ws/.git/config")), 0);
	assert_int_equal(sbe_may_create(p, at("home/ws/.git/config.worktree")), 0);
	assert_int_equal(sbe_may_read(p, at("home/.ssh/id_ed25519")), 0);
	assert_int_equal(sbe_may_write(p, at("home/.claude/x")), 1);
	snprintf(want, sizeof(want), "%s/home/scratch", H.private_dir);
	assert_int_equal(sbe_may_write(p, want), 1);
	assert_int_equal(sbe_may_exec(p, H.out[3]), 1);
	assert_int_equal(sbe_may_connect(p, "127.0.0.1", 41234, SBE_PROTO_TCP), 1);
	assert_int_equal(sbe_may_connect(p, "127.0.0.1", 41235, SBE_PROTO_TCP), 0);
	sbe_free(p);
	desc->fini(&host, NULL, data);
}

/* --show-config: no private directory yet, so the environment goes through
 * /usr/bin/env on the command line, and the profile allows that. */
static void show_config(void **state)
{
	(void)state;
	core_plan();
	H.dry_run = 1;
	H.session_dir = "<session>";
	void *data = NULL;
	assert_int_equal(desc->init(&host, NULL, &data), 0);
	assert_int_equal(desc->hooks->pre_mount(&host, NULL, data), 0);
	assert_int_equal(desc->hooks->env(&host, NULL, data), 0);
	assert_string_equal(getenv_plan("PATH"), ASB_BIN_DIR);
	assert_int_equal(desc->backend->build(&host, NULL, data), 0);
	assert_string_equal(H.out[0], "/usr/bin/sandbox-exec");
	assert_string_equal(H.out[2], "<session>/seatbelt.sb");
	assert_string_equal(H.out[3], "/usr/bin/env");
	assert_true(has_out("PATH=/<session>/seatbelt/bin"));
	assert_true(has_out("HOME=/<session>/seatbelt/home"));
	assert_true(has_out("SHELL=/<session>/seatbelt/bin/sh"));
	assert_true(has_out("/<session>/seatbelt/bin/sh"));
	struct sbe_profile *p = NULL;
	char err[256];
	if (sbe_parse(H.artifact, H.artifact_len, &p, err, sizeof(err)) < 0)
		fail_msg("%s\n%s", err, H.artifact);
	assert_int_equal(sbe_may_exec(p, "/usr/bin/env"), 1);
	assert_int_equal(sbe_may_exec(p, "/<session>/seatbelt/bin/sh"), 1);
	sbe_free(p);
	assert_int_equal(desc->hooks->describe(&host, NULL, data), 0);
	assert_non_null(strstr(H.describe, "sandbox-exec: /usr/bin/sandbox-exec -f"));
	assert_non_null(strstr(H.describe, "layout: EPHEMERAL"));
#ifndef __APPLE__
	assert_non_null(strstr(H.describe, "platform: not macOS"));
#endif
	desc->fini(&host, NULL, data);
}

/* What the profile cannot say is a build failure, with the reason logged. */
static void refusal(void **state)
{
	(void)state;
	core_plan();
	H.private_dir = at("session/seatbelt");
	add(ASB_ENTRY_READ, 0, at("home/ws/.git/config"), "/run/agentsandbox-ca.pem");
	void *data = NULL;
	assert_int_equal(desc->init(&host, NULL, &data), 0);
	assert_int_equal(desc->backend->build(&host, NULL, data), -EOPNOTSUPP);
	desc->fini(&host, NULL, data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(descriptor), cmocka_unit_test(probe_off_macos),
	    cmocka_unit_test(launch),     cmocka_unit_test(show_config),
	    cmocka_unit_test(refusal),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
