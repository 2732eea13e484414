/* SPDX-License-Identifier: MIT */
#include "rlimits.h"

#include "config.h"
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int resource;
	rlim_t def; /* RLIM_INFINITY: leave as it is */
} table[LIMIT_COUNT] = {
    /* node raises its soft limit to the hard one; git and language servers
     * open many files: generous, yet an fd flood stops. */
    [LIMIT_NOFILE] = {"nofile", RLIMIT_NOFILE, 65536},
    /* Counted per user namespace level: the sandbox's processes and
     * threads, and (one level up) all of the user's on the host. */
    [LIMIT_NPROC] = {"nproc", RLIMIT_NPROC, 8192},
    [LIMIT_CPU] = {"cpu", RLIMIT_CPU, RLIM_INFINITY},
    /* V8 and WebAssembly reserve large address ranges: off by default. */
    [LIMIT_AS] = {"as", RLIMIT_AS, RLIM_INFINITY},
};

const char *limits_name(int which)
{
	return which >= 0 && which < LIMIT_COUNT ? table[which].name : "?";
}

int limits_resource(int which)
{
	return which >= 0 && which < LIMIT_COUNT ? table[which].resource : -1;
}

/* An integer, "unlimited", or a string with a K/M/G/T suffix (powers of
 * 1024: for `as`). */
static int parse_value(const config_setting_t *s, const char *key, int64_t *out)
{
	int type = config_setting_type(s);
	if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64) {
		long long v = type == CONFIG_TYPE_INT ? config_setting_get_int(s)
		                                      : config_setting_get_int64(s);
		if (v < 0) {
			err_set("%s: sandbox.limits.%s must not be negative", config_where(s), key);
			return -ERANGE;
		}
		*out = v;
		return 0;
	}
	if (type == CONFIG_TYPE_STRING) {
		const char *str = config_setting_get_string(s);
		if (strcmp(str, "unlimited") == 0) {
			*out = LIMIT_UNLIMITED;
			return 0;
		}
		char *end;
		errno = 0;
		unsigned long long v = strtoull(str, &end, 10);
		int shift = 0;
		switch (*end) {
		case 'K':
			shift = 10;
			break;
		case 'M':
			shift = 20;
			break;
		case 'G':
			shift = 30;
			break;
		case 'T':
			shift = 40;
			break;
		}
		if (shift)
			end++;
		if (end != str && !*end && !errno && str[0] >= '0' && str[0] <= '9' &&
		    v <= (UINT64_MAX >> 1) >> shift) {
			*out = (int64_t)(v << shift);
			return 0;
		}
	}
	err_set("%s: sandbox.limits.%s must be a number, \"unlimited\" or a size like \"8G\"",
	        config_where(s), key);
	return -EINVAL;
}

int limits_load(struct policy *p, const config_setting_t *g)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
		err_set("%s: sandbox.limits must be a group { nofile = 1024; ... }",
		        config_where(g));
		return -EINVAL;
	}
	int n = config_setting_length(g);
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		int which = -1;
		for (int w = 0; w < LIMIT_COUNT; w++)
			if (strcmp(table[w].name, key) == 0)
				which = w;
		if (which < 0) {
			err_set(
			    "%s: unknown key 'sandbox.limits.%s' (known: nofile, nproc, cpu, as)",
			    config_where(s), key);
			return -EINVAL;
		}
		int64_t v;
		int r = parse_value(s, key, &v);
		if (r < 0)
			return r;
		if (v == 0 && (which == LIMIT_NOFILE || which == LIMIT_NPROC)) {
			err_set("%s: sandbox.limits.%s = 0 would not even start the agent",
			        config_where(s), key);
			return -ERANGE;
		}
		p->limits[which] = (struct plimit){v, SRC_FILE, (int)config_setting_source_line(s)};
	}
	return 0;
}

int limits_resolve(const struct policy *p, struct limits_set *out)
{
	for (int w = 0; w < LIMIT_COUNT; w++) {
		struct rlimit cur;
		if (getrlimit(table[w].resource, &cur) < 0)
			return -errno;
		rlim_t want = table[w].def;
		if (p->limits[w].source != SRC_DEFAULT)
			want = p->limits[w].value == LIMIT_UNLIMITED ? RLIM_INFINITY
			                                             : (rlim_t)p->limits[w].value;
		rlim_t hard = want < cur.rlim_max ? want : cur.rlim_max;
		rlim_t soft = cur.rlim_cur < hard ? cur.rlim_cur : hard;
		out->lim[w] = (struct rlimit){soft, hard};
	}
	return 0;
}

static void fmt_one(char *buf, size_t len, rlim_t v)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRIu64, (uint64_t)v);
}

void limits_format(const struct limits_set *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int w = 0; w < LIMIT_COUNT && used < len; w++) {
		char v[32];
		fmt_one(v, sizeof(v), s->lim[w].rlim_max);
		int n = snprintf(buf + used, len - used, "%s=%s ", table[w].name, v);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (used < len)
		snprintf(buf + used, len - used, "core=0");
}
