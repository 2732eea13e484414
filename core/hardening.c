/* SPDX-License-Identifier: MIT */
#include "hardening.h"

#include "log.h"
#include "rlimits.h"
#include "seccomp_groups.h"

#include <errno.h>
#include <string.h>

const char *hardening_group_lifted_by(const struct launch *l, int g)
{
	if ((g == SECCOMP_G_UNIX || g == SECCOMP_G_UNIX_PAIRS || g == SECCOMP_G_UNIX_SEQPACKET) &&
	    l->policy->unix_sockets.value)
		return "network.unix_sockets = true";
	for (size_t i = 0; i < l->plan.n_seccomp_allow; i++)
		if (strcmp(l->plan.seccomp_allow[i].group, seccomp_group_name(g)) == 0)
			return l->plan.seccomp_allow[i].origin;
	/* Every AF_UNIX socket() lifted: the seqpacket ones with them. */
	if (g == SECCOMP_G_UNIX_SEQPACKET)
		return hardening_group_lifted_by(l, SECCOMP_G_UNIX);
	return NULL;
}

static int limits_into_plan(struct launch *l)
{
	struct limits_set set;
	int r = limits_resolve(l->policy, &set);
	if (r < 0)
		return r;
	static const uint32_t res[LIMIT_COUNT] = {
	    [LIMIT_NOFILE] = ASB_LIMIT_NOFILE,
	    [LIMIT_NPROC] = ASB_LIMIT_NPROC,
	    [LIMIT_CPU] = ASB_LIMIT_CPU,
	    [LIMIT_AS] = ASB_LIMIT_AS,
	};
	l->plan.n_limits = 0;
	for (int w = 0; w < LIMIT_COUNT; w++) {
		const struct rlimit *rl = &set.lim[w];
		l->plan.limits[l->plan.n_limits++] = (struct asb_limit){
		    .struct_size = sizeof(struct asb_limit),
		    .resource = res[w],
		    .soft =
		        rl->rlim_cur == RLIM_INFINITY ? ASB_LIMIT_INFINITY : (uint64_t)rl->rlim_cur,
		    .hard =
		        rl->rlim_max == RLIM_INFINITY ? ASB_LIMIT_INFINITY : (uint64_t)rl->rlim_max,
		};
	}
	l->plan.limits[l->plan.n_limits++] =
	    (struct asb_limit){.struct_size = sizeof(struct asb_limit),
	                       .resource = ASB_LIMIT_CORE,
	                       .soft = 0,
	                       .hard = 0};
	return 0;
}

int hardening_plan(struct launch *l)
{
	struct policy *p = l->policy;
	uint32_t lifted = 0;
	for (int g = 0; g < SECCOMP_G_COUNT; g++)
		if (hardening_group_lifted_by(l, g))
			lifted |= 1u << g;
	l->plan.seccomp_lifted = lifted;
	struct hardening_intent h = {
	    .lifted = lifted,
	    /* Where the backend's kernel enforces them; a backend that claims
	     * it on a kernel without is refused (core/protections.c). */
	    .seccomp = (l->caps & ASB_CAP_SECCOMP) && platform_seccomp_available() == 0,
	    .landlock = l->caps & ASB_CAP_LANDLOCK,
	    .landlock_required = (l->caps & ASB_CAP_LANDLOCK) && p->require_landlock.value,
	    .home = p->home,
	};
	int r = limits_into_plan(l);
	if (r < 0)
		return r;
	uint32_t applied = 0;
	if ((r = platform_hardening_plan(&l->plan, &h, &applied)) < 0) {
		err_set("cannot prepare the kernel hardening (seccomp filter, Landlock helper): %s",
		        r == -ENOENT ? "agentsandbox-init (the helper that applies it inside) is "
		                       "not installed"
		                     : strerror(-r));
		return r;
	}
	l->plan.seccomp_enforced = applied & ASB_HARD_SECCOMP;
	l->plan.hardening = applied;
	if (!(lifted & (1u << SECCOMP_G_USERNS)))
		l->plan.hardening |= ASB_HARD_NO_USERNS;
	return 0;
}

void hardening_log(const struct launch *l)
{
	if (!l->plan.seccomp_enforced) {
		log_msg(LOG_INFO, "seccomp: no filter inside (see the protections)");
	} else {
		log_msg(LOG_INFO, "seccomp: %s, installed by %s", platform_seccomp_arch(),
		        PLAN_INIT);
		for (int g = 0; g < SECCOMP_G_COUNT; g++) {
			const char *by = hardening_group_lifted_by(l, g);
			if (by)
				log_msg(LOG_INFO, "seccomp: %s allowed (%s): %s",
				        seccomp_group_name(g), by, seccomp_group_what(g));
			else
				log_msg(LOG_INFO, "seccomp: %s denied", seccomp_group_name(g));
		}
	}
	struct limits_set set;
	char buf[256];
	if (limits_resolve(l->policy, &set) == 0) {
		limits_format(&set, buf, sizeof(buf));
		log_msg(LOG_INFO, "limits: %s", buf);
	}
}

void hardening_show(FILE *out, const struct launch *l)
{
	const struct policy *p = l->policy;
	fputs("\n# kernel hardening\n", out);
	for (int g = 0; g < SECCOMP_G_COUNT; g++) {
		const char *by = hardening_group_lifted_by(l, g);
		fprintf(out, "seccomp.%-16s%s%s%s%s\n", seccomp_group_name(g),
		        by ? "allowed [" : "denied", by ? by : "", by ? "]" : "",
		        l->plan.seccomp_enforced ? "" : " (no filter: see protections)");
	}
	fprintf(out, "%-24s%s\n", "landlock",
	        (l->plan.hardening & ASB_HARD_LANDLOCK) ? "applied by " PLAN_INIT " (rules below)"
	                                                : "not applied");
	fprintf(out, "%-24s%s  [%s]\n", "require_landlock",
	        p->require_landlock.value ? "true" : "false",
	        source_name(p->require_landlock.source));
	struct limits_set set;
	char lim[256] = "?";
	if (limits_resolve(p, &set) == 0)
		limits_format(&set, lim, sizeof(lim));
	fprintf(out, "%-24s%s\n", "limits", lim);
}
