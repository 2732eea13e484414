/* SPDX-License-Identifier: MIT */
#include "hardening.h"

#include "landlock.h"
#include "rlimits.h"
#include "log.h"
#include "syscall_filter.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint32_t allowed_groups(const struct launch *l)
{
	uint32_t allowed = 0;
	if (l->policy->unix_sockets.value)
		allowed |= 1u << SECCOMP_G_UNIX;
	for (size_t i = 0; i < l->plan.n_seccomp_allow; i++) {
		int g = seccomp_group_lookup(l->plan.seccomp_allow[i].group);
		if (g >= 0)
			allowed |= 1u << g;
	}
	return allowed;
}

/* Why a group is not enforced, or NULL when it is. */
static const char *group_lifted_by(const struct launch *l, int g)
{
	if (g == SECCOMP_G_UNIX && l->policy->unix_sockets.value)
		return "network.unix_sockets = true";
	for (size_t i = 0; i < l->plan.n_seccomp_allow; i++)
		if (strcmp(l->plan.seccomp_allow[i].group, seccomp_group_name(g)) == 0)
			return l->plan.seccomp_allow[i].origin;
	return NULL;
}

/* Landlock is usable here: the ABI (> 0), or -errno with `why` set. */
static int landlock_state(char **init_path, const char **why)
{
	int abi = landlock_abi();
	if (abi < 0) {
		*why = abi == -EOPNOTSUPP ? "Landlock is built into the kernel but not enabled "
		                            "(add landlock to the lsm= boot parameter)"
		                          : "this kernel has no Landlock";
		return abi;
	}
	int r = landlock_init_path(init_path);
	if (r < 0) {
		*why = "agentsandbox-init (the helper that applies it) is not installed";
		return r;
	}
	return abi;
}

int hardening_plan(struct launch *l)
{
	struct policy *p = l->policy;
	int r = seccomp_available();
	if (r < 0 && !l->dry_run) {
		err_set("seccomp filters are not available in this kernel (%s); refusing to run "
		        "the agent without them",
		        strerror(-r));
		return r;
	}
	if (r >= 0) {
		struct seccomp_opts opts = {.allowed = allowed_groups(l)};
		int fd = -1;
		if ((r = seccomp_compile(&opts, &fd)) < 0) {
			err_set("cannot compile the seccomp filter: %s", strerror(-r));
			return r;
		}
		if ((r = plan_add_seccomp_fd(&l->plan, fd)) < 0) {
			close(fd);
			return r;
		}
		if (!(opts.allowed & (1u << SECCOMP_G_USERNS)))
			l->plan.flags |= ASB_PLAN_NO_USERNS;
	}

	_cleanup_free_ char *init = NULL;
	const char *why = NULL;
	int abi = landlock_state(&init, &why);
	if (abi < 0) {
		if (p->require_landlock.value && !l->dry_run) {
			err_set("sandbox.require_landlock is set, but %s", why);
			return -EOPNOTSUPP;
		}
		return 0;
	}
	struct strv args = {0};
	if ((r = landlock_rules(&l->plan, p, p->require_landlock.value, &args)) < 0 ||
	    (r = plan_set_init(&l->plan, init, &args)) < 0) {
		strv_clear(&args);
		return r;
	}
	return 0;
}

void hardening_log(const struct launch *l)
{
	if (l->plan.n_seccomp_fds == 0) {
		log_msg(LOG_WARN, "seccomp: not available");
	} else {
		log_msg(LOG_INFO, "seccomp: %s", seccomp_arch_summary());
		for (int g = 0; g < SECCOMP_G_COUNT; g++) {
			const char *by = group_lifted_by(l, g);
			if (by)
				log_msg(LOG_INFO, "seccomp: %s allowed (%s): %s",
				        seccomp_group_name(g), by, seccomp_group_what(g));
			else
				log_msg(LOG_INFO, "seccomp: %s denied", seccomp_group_name(g));
		}
	}
	_cleanup_free_ char *init = NULL;
	const char *why = NULL;
	int abi = landlock_state(&init, &why);
	if (l->plan.init_path)
		log_msg(LOG_INFO,
		        "landlock: ABI %d, applied by %s inside before the agent runs (rules in "
		        "the backend command)",
		        abi, PLAN_INIT);
	else
		log_msg(LOG_INFO, "landlock: not applied: %s", why ? why : "unknown reason");
	struct limits_set set;
	char buf[256];
	if (limits_resolve(l->policy, &set) == 0) {
		limits_format(&set, buf, sizeof(buf));
		log_msg(LOG_INFO, "limits: %s", buf);
	}
	log_msg(LOG_INFO, "no_new_privs: set before the backend runs; capabilities inside: none");
}

int hardening_child(const struct launch *l)
{
	struct limits_set set;
	int r = limits_resolve(l->policy, &set);
	if (r < 0)
		return r;
	/* A setuid backend would lose its privileges under no_new_privs. */
	struct stat st;
	bool nnp = l->out_argv.n > 0 && stat(l->out_argv.v[0], &st) == 0 && !(st.st_mode & S_ISUID);
	return limits_apply(&set, nnp);
}

void hardening_self(void)
{
	limits_harden_self();
}

static void line(FILE *out, const char *what, const char *fmt, ...) _printf_(3, 4);
static void line(FILE *out, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(out, "protection %s: ", what);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	va_end(ap);
}

int hardening_check(FILE *out, const struct launch *l)
{
	int bad = 0;
	const struct policy *p = l->policy;
	long max_ns = -1;
	_cleanup_free_ char *buf = NULL;
	if (read_file("/proc/sys/user/max_user_namespaces", &buf, NULL) == 0)
		max_ns = strtol(buf, NULL, 10);
	line(out, "user namespaces", "%s%s",
	     max_ns != 0 ? "available" : "disabled (user.max_user_namespaces = 0)",
	     (l->plan.flags & ASB_PLAN_NO_USERNS) ? "; nested ones denied inside" : "");

	int r = seccomp_available();
	if (r < 0 || l->plan.n_seccomp_fds == 0) {
		line(out, "seccomp", "UNAVAILABLE (%s): the agent will not start",
		     strerror(r < 0 ? -r : EOPNOTSUPP));
		bad = 1;
	} else {
		line(out, "seccomp", "active: %s", seccomp_arch_summary());
	}
	for (int g = 0; g < SECCOMP_G_COUNT; g++) {
		const char *by = group_lifted_by(l, g);
		char what[64];
		snprintf(what, sizeof(what), "seccomp.%s", seccomp_group_name(g));
		if (by)
			line(out, what, "allowed (%s): %s", by, seccomp_group_what(g));
		else
			line(out, what, "%s: %s", l->plan.n_seccomp_fds ? "denied" : "NOT ENFORCED",
			     seccomp_group_what(g));
	}

	_cleanup_free_ char *init = NULL;
	const char *why = NULL;
	int abi = landlock_state(&init, &why);
	if (abi > 0)
		line(out, "landlock",
		     "active, ABI %d (writes: read-write binds, home, /tmp; exec: "
		     "declared executables, system libraries; %s%s)",
		     abi, abi >= 6 ? "signals and abstract sockets scoped" : "no scoping (ABI < 6)",
		     l->plan.tcp_connect_filtered
		         ? (abi >= 4 ? "; TCP connect filtered"
		                     : "; TCP connect NOT filtered (ABI < 4)")
		         : "");
	else
		line(out, "landlock", "%s: %s%s",
		     p->require_landlock.value ? "MISSING" : "inactive", why,
		     p->require_landlock.value ? " (sandbox.require_landlock = true)" : "");
	if (abi <= 0 && p->require_landlock.value)
		bad = 1;

	struct limits_set set;
	char lim[256] = "?";
	if (limits_resolve(p, &set) == 0)
		limits_format(&set, lim, sizeof(lim));
	line(out, "rlimits", "%s", lim);
	line(out, "no_new_privs", "set; capabilities inside: none%s",
	     p->uid == 0 ? " (root: bubblewrap --cap-drop ALL)" : "");
	line(out, "supervisor", "not dumpable, no core dumps");
	return bad ? -EPERM : 0;
}

void hardening_show(FILE *out, const struct launch *l)
{
	const struct policy *p = l->policy;
	fputs("\n# kernel hardening\n", out);
	for (int g = 0; g < SECCOMP_G_COUNT; g++) {
		const char *by = group_lifted_by(l, g);
		fprintf(out, "seccomp.%-16s%s%s%s\n", seccomp_group_name(g),
		        by ? "allowed [" : "denied", by ? by : "", by ? "]" : "");
	}
	fprintf(out, "%-24s%s\n", "landlock",
	        l->plan.init_path ? "applied by " PLAN_INIT " (rules below)" : "not applied");
	fprintf(out, "%-24s%s  [%s]\n", "require_landlock",
	        p->require_landlock.value ? "true" : "false",
	        source_name(p->require_landlock.source));
	struct limits_set set;
	char lim[256] = "?";
	if (limits_resolve(p, &set) == 0)
		limits_format(&set, lim, sizeof(lim));
	fprintf(out, "%-24s%s\n", "limits", lim);
}
