/* SPDX-License-Identifier: MIT */
/* The OCI runtime spec (config.json) runsc reads: the process (argv, the
 * plan's environment, the working directory, no capabilities,
 * no_new_privs, the plan's rlimits), a read-only root of ours, the view's
 * mounts, and the hooks that hold the sandbox and mark the agent started.
 * Rendered twice: for runsc (in the private directory, 0600) and, with the
 * environment's values replaced, for the session record. */
#include "runsc.h"
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The prestart hook, run by runsc on the host once the sandbox exists: it
 * hands runsc's state (which has the sandbox's pid) to the launcher through
 * the FIFO $1, then waits for the keeper's lock on $2 to go (keeper.c).
 * Released ($3 exists): runsc starts the agent. The launcher gone without
 * releasing (the keeper, and its lock, go with it): the hook fails and runsc
 * tears the sandbox down. flock(1) is $4. */
static const char hold_script[] =
    "exec 3<>\"$1\" || exit 1; IFS= read -r state; printf '%s\\n' \"$state\" >&3 || exit 1; "
    "exec 3>&-; \"$4\" -s \"$2\" true && test -e \"$3\"";
/* The poststart hook: the agent's process exists (runsc would fail before
 * this point, and exit 128, when it could not start it). */
static const char started_script[] = ": >\"$1\"";

int spec_source_path(const struct runsc *rs, const struct item *it, char *out, size_t len)
{
	int n;
	switch (it->gen) {
	case G_FILE:
		n = snprintf(out, len, "%s/" RUNSC_FILES "/%u", rs->dir, it->gen_index);
		break;
	case G_DIR:
	case G_EPHEMERAL:
		n = snprintf(out, len, "%s/" RUNSC_DIRS "/%u", rs->dir, it->gen_index);
		break;
	case G_RUN_DIR:
		n = snprintf(out, len, "%s/" RUNSC_RUN, rs->dir);
		break;
	default:
		n = snprintf(out, len, "%s", it->source ? it->source : "");
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void private_path(struct json *j, const struct runsc *rs, const char *key, const char *name)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", rs->dir, name) >= (int)sizeof(path)) {
		j->err = j->err ? j->err : -ENAMETOOLONG;
		return;
	}
	json_string(j, key, path);
}

static void mounts(struct json *j, const struct runsc *rs)
{
	json_array_begin(j, "mounts");
	for (size_t i = 0; i < rs->view.n; i++) {
		const struct item *it = &rs->view.v[i];
		char mode[32];
		snprintf(mode, sizeof(mode), "mode=0%o", it->mode);
		switch (it->mount) {
		case M_NONE:
			continue;
		case M_BIND: {
			char src[PATH_MAX];
			if (spec_source_path(rs, it, src, sizeof(src)) < 0) {
				j->err = j->err ? j->err : -ENAMETOOLONG;
				return;
			}
			json_object_begin(j, NULL);
			json_string(j, "destination", it->dest);
			json_string(j, "type", "bind");
			json_string(j, "source", src);
			json_array_begin(j, "options");
			json_string(j, NULL, "rbind");
			json_string(j, NULL, it->rw ? "rw" : "ro");
			json_array_end(j);
			json_object_end(j);
			break;
		}
		case M_TMPFS:
		case M_DEVFS:
			json_object_begin(j, NULL);
			json_string(j, "destination", it->dest);
			json_string(j, "type", "tmpfs");
			json_string(j, "source", "tmpfs");
			json_array_begin(j, "options");
			json_string(j, NULL, "nosuid");
			if (it->mount == M_TMPFS)
				json_string(j, NULL, "nodev");
			json_string(j, NULL, mode);
			json_array_end(j);
			json_object_end(j);
			break;
		case M_PROC:
			json_object_begin(j, NULL);
			json_string(j, "destination", it->dest);
			json_string(j, "type", "proc");
			json_string(j, "source", "proc");
			json_object_end(j);
			break;
		}
	}
	json_array_end(j);
}

static const char *const rlimit_names[] = {
    [ASB_LIMIT_NOFILE] = "RLIMIT_NOFILE", [ASB_LIMIT_NPROC] = "RLIMIT_NPROC",
    [ASB_LIMIT_CPU] = "RLIMIT_CPU",       [ASB_LIMIT_AS] = "RLIMIT_AS",
    [ASB_LIMIT_CORE] = "RLIMIT_CORE",
};

static int process(struct json *j, const struct asb_host *host, struct asb_ctx *ctx,
                   const struct runsc *rs, bool redact)
{
	json_object_begin(j, "process");
	json_bool(j, "terminal", rs->terminal);
	json_object_begin(j, "user");
	/* Root launches as the user it is; an unprivileged user is root of
	 * gVisor's user namespace, which maps to that user (so the files the
	 * user owns are the agent's). */
	json_int(j, "uid", rs->is_root ? rs->uid : 0);
	json_int(j, "gid", rs->is_root ? rs->gid : 0);
	json_object_end(j);

	json_array_begin(j, "args");
	int argc = host->plan_argv_count(ctx);
	if (argc <= 0)
		return -EINVAL;
	for (int i = 0; i < argc; i++)
		json_string(j, NULL, host->plan_argv_get(ctx, (uint32_t)i));
	json_array_end(j);

	json_array_begin(j, "env");
	int n = host->plan_env_count(ctx);
	for (int i = 0; i < n; i++) {
		const char *k = NULL, *v = NULL;
		int r = host->plan_env_get(ctx, (uint32_t)i, &k, &v);
		if (r < 0)
			return r;
		if (!v || !json_utf8_valid(v, strlen(v))) {
			/* Name the variable, never its value. */
			host->log(ctx, ASB_LOG_ERROR,
			          "runsc: the value of %s is not valid UTF-8, which an OCI spec "
			          "cannot carry",
			          k);
			return -EILSEQ;
		}
		char key[512];
		if (snprintf(key, sizeof(key), "%s=", k) >= (int)sizeof(key))
			return -ENAMETOOLONG;
		json_string2(j, NULL, key, redact ? "(redacted)" : v);
	}
	json_array_end(j);
	const char *cwd = host->plan_chdir(ctx);
	json_string(j, "cwd", cwd ? cwd : "/");

	json_object_begin(j, "capabilities");
	static const char *const sets[] = {"bounding", "effective", "inheritable", "permitted",
	                                   "ambient"};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		json_array_begin(j, sets[i]);
		json_array_end(j);
	}
	json_object_end(j);

	json_array_begin(j, "rlimits");
	n = host->plan_limit_count(ctx);
	for (int i = 0; i < n; i++) {
		struct asb_limit l = {.struct_size = sizeof(l)};
		int r = host->plan_limit_get(ctx, (uint32_t)i, &l);
		if (r < 0)
			return r;
		if (l.resource > ASB_LIMIT_CORE)
			return -EINVAL;
		if (l.resource == ASB_LIMIT_CPU &&
		    (l.soft != ASB_LIMIT_INFINITY || l.hard != ASB_LIMIT_INFINITY)) {
			host->log(ctx, ASB_LOG_ERROR,
			          "runsc: gVisor does not enforce RLIMIT_CPU; remove "
			          "sandbox.limits.cpu or use another backend");
			return -EOPNOTSUPP;
		}
		json_object_begin(j, NULL);
		json_string(j, "type", rlimit_names[l.resource]);
		json_uint(j, "hard", l.hard);
		json_uint(j, "soft", l.soft);
		json_object_end(j);
	}
	json_array_end(j);
	json_bool(j, "noNewPrivileges", true);
	json_object_end(j);
	return 0;
}

static void hook(struct json *j, const struct runsc *rs, const char *script,
                 const char *const *names)
{
	json_object_begin(j, NULL);
	json_string(j, "path", rs->sh);
	json_array_begin(j, "args");
	json_string(j, NULL, "sh");
	json_string(j, NULL, "-c");
	json_string(j, NULL, script);
	json_string(j, NULL, "sh");
	for (const char *const *n = names; *n; n++)
		private_path(j, rs, NULL, *n);
	if (script == hold_script)
		json_string(j, NULL, rs->flock);
	json_array_end(j);
	json_object_end(j);
}

int spec_render(const struct asb_host *host, struct asb_ctx *ctx, struct runsc *rs, bool redact,
                char **out, size_t *len)
{
	struct json j;
	json_init(&j);
	json_object_begin(&j, NULL);
	json_string(&j, "ociVersion", "1.0.2");
	int r = process(&j, host, ctx, rs, redact);
	if (r < 0) {
		json_free(&j);
		return r;
	}
	json_object_begin(&j, "root");
	private_path(&j, rs, "path", RUNSC_ROOTFS);
	json_bool(&j, "readonly", true);
	json_object_end(&j);
	/* bubblewrap keeps the host's name in its UTS namespace; so do we. */
	char name[256] = "agentsandbox";
	if (gethostname(name, sizeof(name) - 1) < 0 || !name[0])
		snprintf(name, sizeof(name), "agentsandbox");
	json_string(&j, "hostname", name);
	mounts(&j, rs);

	json_object_begin(&j, "hooks");
	if (rs->hooked) {
		static const char *const held[] = {RUNSC_READY, RUNSC_LOCK, RUNSC_RELEASED, NULL};
		json_array_begin(&j, "prestart");
		hook(&j, rs, hold_script, held);
		json_array_end(&j);
	}
	static const char *const started[] = {RUNSC_STARTED, NULL};
	json_array_begin(&j, "poststart");
	hook(&j, rs, started_script, started);
	json_array_end(&j);
	json_object_end(&j);

	json_object_begin(&j, "linux");
	json_array_begin(&j, "namespaces");
	/* The network namespace is the one the keeper runs runsc in
	 * (--network=host there), or gVisor's own loopback (--network=none). */
	static const char *const ns[] = {"pid", "ipc", "uts", "mount"};
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		json_object_begin(&j, NULL);
		json_string(&j, "type", ns[i]);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_object_end(&j);

	const char *text;
	size_t n;
	if ((r = json_finish(&j, &text, &n)) < 0) {
		if (r == -EILSEQ)
			host->log(ctx, ASB_LOG_ERROR,
			          "runsc: a path or argument is not valid UTF-8, which an OCI spec "
			          "cannot carry");
		json_free(&j);
		return r;
	}
	*out = j.buf; /* ownership moves to the caller */
	*len = n;
	return 0;
}
