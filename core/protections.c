/* SPDX-License-Identifier: MIT */
#include "protections.h"

#include "config.h"
#include "hardening.h"
#include "launch.h"
#include "log.h"
#include "seccomp_groups.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	const char *what;
} table[PROT_COUNT] = {
    [PROT_FILESYSTEM] = {"filesystem", "only the declared paths of the host are visible"},
    [PROT_PINNED_PATHS] = {"pinned-paths",
                           "declared paths are exposed as the objects that were checked"},
    [PROT_REMAP] = {"remap", "paths appear inside at a place other than on the host"},
    [PROT_EPHEMERAL] = {"ephemeral", "empty private directories (the home, /tmp) gone at exit"},
    [PROT_FILES] = {"files", "generated files and links at any path"},
    [PROT_MASKS] = {"masks", "protected paths that must stay missing or empty"},
    [PROT_PROCESSES] = {"processes", "no host process is visible or signalable"},
    [PROT_NETWORK] = {"network", "the network mode is enforced"},
    [PROT_UNIX_SOCKETS] = {"unix-sockets", "AF_UNIX sockets denied"},
    [PROT_SECCOMP] = {"seccomp", "the system call filter"},
    [PROT_LANDLOCK] = {"landlock", "the Landlock ruleset (a second layer under the mounts)"},
    [PROT_LIMITS] = {"limits", "resource limits"},
    [PROT_NO_NEW_PRIVS] = {"no-new-privs", "nothing inside gains privileges through exec"},
};

const char *protection_name(int p)
{
	return p >= 0 && p < PROT_COUNT ? table[p].name : "?";
}

int protection_lookup(const char *name)
{
	for (int p = 0; p < PROT_COUNT; p++)
		if (strcmp(table[p].name, name) == 0)
			return p;
	return -ENOENT;
}

int protections_check_names(const struct launch *l)
{
	const struct plist *a = &l->policy->accept_weaker;
	for (size_t i = 0; i < a->items.n; i++) {
		if (protection_lookup(a->items.v[i]) >= 0)
			continue;
		size_t len = 1;
		for (int p = 0; p < PROT_COUNT; p++)
			len += strlen(table[p].name) + 2;
		_cleanup_free_ char *known = calloc(1, len);
		for (int p = 0; known && p < PROT_COUNT; p++) {
			if (p)
				strcat(known, ", ");
			strcat(known, table[p].name);
		}
		if (a->source == SRC_FILE)
			err_set(
			    "%s:%d: sandbox.accept_weaker: unknown protection \"%s\" (known: %s)",
			    l->policy->config_file ? l->policy->config_file : "(config)", a->line,
			    a->items.v[i], known ? known : "");
		else
			err_set("--accept-weaker %s: unknown protection (known: %s)", a->items.v[i],
			        known ? known : "");
		return -EINVAL;
	}
	return 0;
}

__attribute__((format(printf, 2, 3))) static void detail(struct protection_state *s,
                                                         const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

static void asked_by(struct protection_state *s, const char *who)
{
	if (!s->asked_by[0])
		snprintf(s->asked_by, sizeof(s->asked_by), "%s", who);
}

static bool same_link_on_host(const struct plan_entry *e)
{
	char target[4096];
	ssize_t n = readlink(e->dest, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, e->host_path) == 0;
}

static bool accepted(const struct launch *l, int p)
{
	return strv_contains(&l->policy->accept_weaker.items, table[p].name);
}

static bool limits_explicit(const struct policy *p)
{
	for (int w = 0; w < LIMIT_COUNT; w++)
		if (p->limits[w].source != SRC_DEFAULT)
			return true;
	return false;
}

int protections_evaluate(struct launch *l)
{
	const struct policy *p = l->policy;
	const struct plan *plan = &l->plan;
	uint64_t c = l->caps;
	struct protection_state *s = l->prot;
	memset(s, 0, sizeof(l->prot));

	for (int i = 0; i < PROT_COUNT; i++)
		s[i].asked = true;
	s[PROT_REMAP].asked = s[PROT_EPHEMERAL].asked = s[PROT_FILES].asked = false;
	s[PROT_MASKS].asked = s[PROT_PINNED_PATHS].asked = false;
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		switch (e->type) {
		case ASB_ENTRY_READ:
		case ASB_ENTRY_WRITE:
		case ASB_ENTRY_DEVICE:
			if (e->flags & ASB_ENTRY_F_PINNED) {
				s[PROT_PINNED_PATHS].asked = true;
				asked_by(&s[PROT_PINNED_PATHS], e->origin);
			}
			if (e->remapped) {
				s[PROT_REMAP].asked = true;
				char who[128];
				snprintf(who, sizeof(who), "%s: %s at %s", e->origin, e->host_path,
				         e->dest);
				asked_by(&s[PROT_REMAP], who);
			}
			break;
		case ASB_ENTRY_EPHEMERAL:
		case ASB_ENTRY_PROC:
		case ASB_ENTRY_DEVFS:
			s[PROT_EPHEMERAL].asked = true;
			asked_by(&s[PROT_EPHEMERAL], e->origin);
			break;
		case ASB_ENTRY_SYMLINK:
			/* A link the host has already, where the host's files stay
			 * in place, needs no placing. */
			if ((c & ASB_CAP_FS_RULES) && same_link_on_host(e))
				break;
			__attribute__((fallthrough));
		case ASB_ENTRY_FILE:
			s[PROT_FILES].asked = true;
			asked_by(&s[PROT_FILES], e->origin);
			break;
		case ASB_ENTRY_MASK:
			s[PROT_MASKS].asked = true;
			asked_by(&s[PROT_MASKS], e->origin);
			break;
		}
	}

	s[PROT_FILESYSTEM].required = true;
	s[PROT_FILESYSTEM].given = c & (ASB_CAP_FS_VIEW | ASB_CAP_FS_RULES);
	detail(&s[PROT_FILESYSTEM], "%s (%zu entries)",
	       (c & ASB_CAP_FS_VIEW)    ? "a private view: only the plan's entries exist"
	       : (c & ASB_CAP_FS_RULES) ? "a profile: the host's files are denied but the plan's"
	                                : "not enforced",
	       plan->n_entries);
	s[PROT_PINNED_PATHS].given = c & ASB_CAP_FD_BINDS;
	detail(&s[PROT_PINNED_PATHS], "%s",
	       (c & ASB_CAP_FD_BINDS) ? "exposed as the very objects that were checked"
	                              : "re-resolved by name when the sandbox starts");
	const struct {
		int prot;
		uint64_t cap;
	} plain[] = {{PROT_REMAP, ASB_CAP_REMAP},
	             {PROT_EPHEMERAL, ASB_CAP_EPHEMERAL | ASB_CAP_EPHEMERAL_HOME},
	             {PROT_FILES, ASB_CAP_FILES},
	             {PROT_MASKS, ASB_CAP_MASKS}};
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
		struct protection_state *ps = &s[plain[i].prot];
		ps->required = ps->asked;
		ps->given = c & plain[i].cap;
		if (!ps->asked)
			detail(ps, "%s", "nothing in the plan needs it");
		else if (plain[i].prot == PROT_EPHEMERAL && !(c & ASB_CAP_EPHEMERAL) && ps->given)
			detail(ps, "by stand-in: empty private directories for the home and /tmp "
			           "(HOME, TMPDIR), their real paths denied; other paths sealed");
		else
			detail(ps, "%s; asked by %s", ps->given ? "given" : "cannot be given",
			       ps->asked_by);
	}
	s[PROT_PROCESSES].given = c & ASB_CAP_PID_NS;
	detail(&s[PROT_PROCESSES], "%s",
	       (c & ASB_CAP_PID_NS) ? "its own pid namespace" : "host processes are visible");

	s[PROT_NETWORK].required = true;
	s[PROT_NETWORK].given = c & (ASB_CAP_NETNS | ASB_CAP_NET_RULES);
	detail(&s[PROT_NETWORK], "%s: %s", network_mode_name(l->net.mode),
	       (c & ASB_CAP_NETNS)       ? "the sandbox's own network namespace, wired by the core"
	       : (c & ASB_CAP_NET_RULES) ? "enforced by the backend's own rules"
	                                 : "not enforced");

	s[PROT_UNIX_SOCKETS].asked = !p->unix_sockets.value;
	s[PROT_UNIX_SOCKETS].required = s[PROT_UNIX_SOCKETS].asked;
	bool filter = plan->seccomp_enforced;
	s[PROT_UNIX_SOCKETS].given = filter || (c & ASB_CAP_UNIX_RULES);
	detail(&s[PROT_UNIX_SOCKETS], "%s",
	       !s[PROT_UNIX_SOCKETS].asked ? "allowed (network.unix_sockets = true)"
	       : filter                    ? "denied by the seccomp filter"
	       : (c & ASB_CAP_UNIX_RULES)  ? "denied by the backend's rules"
	                                   : "cannot be denied");

	int sc = platform_seccomp_available();
	s[PROT_SECCOMP].required = c & ASB_CAP_SECCOMP;
	s[PROT_SECCOMP].given = filter;
	detail(&s[PROT_SECCOMP], "%s",
	       filter ? platform_seccomp_arch()
	       : !(c & ASB_CAP_SECCOMP)
	           ? "the backend cannot apply one"
	           : (sc < 0 ? "this kernel has no seccomp filters" : "not installed"));

	int abi = platform_landlock_abi();
	s[PROT_LANDLOCK].required = p->require_landlock.value;
	s[PROT_LANDLOCK].given = (plan->hardening & ASB_HARD_LANDLOCK) && abi > 0;
	if (s[PROT_LANDLOCK].given)
		detail(
		    &s[PROT_LANDLOCK],
		    "ABI %d, applied by %s (writes: writable entries, home, /tmp; exec: declared "
		    "executables, system libraries; %s)",
		    abi, PLAN_INIT,
		    abi >= 6 ? "signals and abstract sockets scoped" : "no scoping (ABI < 6)");
	else
		detail(&s[PROT_LANDLOCK], "%s",
		       !(c & ASB_CAP_LANDLOCK) ? "the backend cannot apply it"
		       : abi == -EOPNOTSUPP ? "built into the kernel but not enabled (add landlock "
		                              "to the lsm= boot parameter)"
		                            : "this kernel has no Landlock");
	if (s[PROT_LANDLOCK].required)
		asked_by(&s[PROT_LANDLOCK], "sandbox.require_landlock = true");

	s[PROT_LIMITS].required = limits_explicit(p);
	s[PROT_LIMITS].given = c & ASB_CAP_LIMITS;
	if (s[PROT_LIMITS].required)
		asked_by(&s[PROT_LIMITS], "sandbox.limits");
	struct limits_set set;
	char lim[200] = "?";
	if (limits_resolve(p, &set) == 0)
		limits_format(&set, lim, sizeof(lim));
	detail(&s[PROT_LIMITS], "%s%s", s[PROT_LIMITS].given ? "" : "not applied: ",
	       s[PROT_LIMITS].given ? lim : "the backend cannot");
	s[PROT_NO_NEW_PRIVS].given = (c & ASB_CAP_NO_NEW_PRIVS) || filter;
	detail(&s[PROT_NO_NEW_PRIVS], "%s%s",
	       s[PROT_NO_NEW_PRIVS].given ? "set; capabilities inside: none" : "not set",
	       p->uid == 0 && s[PROT_NO_NEW_PRIVS].given ? " (root: all capabilities dropped)"
	                                                 : "");

	for (int i = 0; i < PROT_COUNT; i++)
		s[i].accepted = !s[i].given && accepted(l, i);
	for (int i = 0; i < PROT_COUNT; i++) {
		if (!s[i].asked || !s[i].required || s[i].given || s[i].accepted)
			continue;
		err_set("backend %s cannot give the protection \"%s\" (%s)%s%s; run with "
		        "--accept-weaker %s (or sandbox.accept_weaker) to accept a weaker sandbox, "
		        "or choose another backend",
		        l->backend->name, table[i].name, table[i].what,
		        s[i].asked_by[0] ? ", asked by " : "", s[i].asked_by, table[i].name);
		return -EPERM;
	}
	return 0;
}

static const char *state_word(const struct protection_state *s)
{
	if (!s->asked)
		return "not needed";
	if (s->given)
		return "applied";
	if (s->accepted)
		return "MISSING (accepted)";
	return s->required ? "MISSING" : "not applied";
}

void protections_log(const struct launch *l)
{
	for (int i = 0; i < PROT_COUNT; i++) {
		const struct protection_state *s = &l->prot[i];
		log_msg(s->accepted ? LOG_WARN : LOG_INFO, "protection %s: %s: %s%s", table[i].name,
		        state_word(s), s->detail,
		        s->accepted ? " (accepted with accept_weaker: the sandbox is weaker)" : "");
	}
}

int protections_print_check(FILE *out, const struct launch *l)
{
	int bad = 0;
	for (int i = 0; i < PROT_COUNT; i++) {
		const struct protection_state *s = &l->prot[i];
		fprintf(out, "protection %s: %s: %s\n", table[i].name, state_word(s), s->detail);
		if (s->asked && s->required && !s->given && !s->accepted)
			bad = 1;
	}
	for (int g = 0; g < SECCOMP_G_COUNT; g++) {
		const char *by = hardening_group_lifted_by(l, g);
		fprintf(out, "protection seccomp.%s: ", seccomp_group_name(g));
		if (by)
			fprintf(out, "allowed (%s): %s\n", by, seccomp_group_what(g));
		else
			fprintf(out, "%s: %s\n",
			        l->plan.seccomp_enforced ? "denied" : "NOT ENFORCED",
			        seccomp_group_what(g));
	}
	return bad ? -EPERM : 0;
}

void protections_print_show(FILE *out, const struct launch *l)
{
	fprintf(out, "\n# protections (backend %s, platform %s)\n", l->backend->name,
	        platform_name());
	for (int i = 0; i < PROT_COUNT; i++)
		fprintf(out, "%-18s%-20s%s\n", table[i].name, state_word(&l->prot[i]),
		        l->prot[i].detail);
}
