/* SPDX-License-Identifier: MIT */
#include "selfconfig.h"

#include "exec.h"
#include "log.h"
#include "netrules.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#ifdef __APPLE__
#define st_ctim st_ctimespec /* POSIX's name for it */
#endif

#define RECORD   "writable"
#define ACCEPTED "accepted-config-changes"

static int push_real(struct strv *out, const char *path)
{
	char real[PATH_MAX];
	if (!path || !path_real(path, real) || strv_contains(out, real))
		return 0;
	return strv_push(out, real);
}

static int collect_sources(const config_setting_t *s, struct strv *out, int depth)
{
	if (!s || depth > 64)
		return 0;
	int r = push_real(out, config_setting_source_file(s));
	int n = config_setting_length(s);
	for (int i = 0; r >= 0 && i < n; i++)
		r = collect_sources(config_setting_get_elem(s, (unsigned)i), out, depth + 1);
	return r;
}

int selfconfig_collect(const struct policy *p, const struct network *n, struct strv *out)
{
	int r = push_real(out, p->config_file);
	/* What an @include brought in. */
	if (r >= 0 && p->cfg_loaded)
		r = collect_sources(config_root_setting(&p->cfg), out, 0);
	if (r >= 0 && n && n->rules)
		if ((r = push_real(out, n->rules->hosts_file)) >= 0)
			r = push_real(out, n->rules->upstream_ca_file);
	for (size_t i = 0; r >= 0 && i < p->plugin_dirs.n; i++)
		r = push_real(out, p->plugin_dirs.v[i]);
	/* Its own programs: the proxy runs on the host, unsandboxed. */
	static const char *const helpers[] = {"agentsandbox-proxy", "agentsandbox-init"};
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(helpers); i++) {
		_cleanup_free_ char *h = NULL;
		if (exec_find_helper(helpers[i], &h) == 0)
			r = push_real(out, h);
	}
	_cleanup_free_ char *self = NULL;
	if (r >= 0 && exec_self(&self) == 0)
		r = push_real(out, self);
	/* Its state (session records, these very records) and config. */
	_cleanup_free_ char *state = NULL, *conf = NULL;
	const char *xdg_conf = getenv("XDG_CONFIG_HOME");
	if (r >= 0 && session_root(getenv("XDG_STATE_HOME"), p->home, &state) == 0)
		r = push_real(out, state);
	conf = xdg_conf && xdg_conf[0] == '/' ? str_printf("%s/agentsandbox", xdg_conf)
	       : p->home                      ? str_printf("%s/.config/agentsandbox", p->home)
	                                      : NULL;
	if (r >= 0 && conf)
		r = push_real(out, conf);
	return r;
}

static bool have_entry(const struct plan *plan, uint32_t type, const char *host, const char *dest)
{
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if (e->type == type && e->host_path && strcmp(e->host_path, host) == 0 &&
		    strcmp(e->dest, dest) == 0)
			return true;
	}
	return false;
}

/* The deepest READ/WRITE entry whose host path holds `path`. */
static const struct plan_entry *covering(const struct plan *plan, const char *path)
{
	const struct plan_entry *best = NULL;
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if ((e->type != ASB_ENTRY_READ && e->type != ASB_ENTRY_WRITE) || !e->host_path ||
		    !path_is_within(path, e->host_path))
			continue;
		if (!best || strlen(e->host_path) >= strlen(best->host_path))
			best = e;
	}
	return best;
}

int selfconfig_protect(struct plan *plan, const struct strv *paths, struct strv *protected)
{
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		const struct plan_entry *e = covering(plan, p);
		if (!e || e->type != ASB_ENTRY_WRITE)
			continue; /* not visible, or read-only already */
		_cleanup_free_ char *root = strdup(e->host_path);
		_cleanup_free_ char *root_dest = strdup(e->dest);
		_cleanup_free_ char *dest = str_printf("%s%s", e->dest, p + strlen(e->host_path));
		if (!root || !root_dest || !dest)
			return -ENOMEM;
		/* Every directory between the writable root and it: pinned, so that
		 * renaming a parent cannot carry the read-only bind away. */
		size_t rl = strlen(root);
		for (const char *s = p[rl] == '/' ? strchr(p + rl + 1, '/') : NULL; s;
		     s = strchr(s + 1, '/')) {
			_cleanup_free_ char *dir = strndup(p, (size_t)(s - p));
			_cleanup_free_ char *ddir =
			    dir ? str_printf("%s%s", root_dest, dir + rl) : NULL;
			if (!ddir)
				return -ENOMEM;
			int r = have_entry(plan, ASB_ENTRY_WRITE, dir, ddir)
			            ? 0
			            : plan_path(plan, ASB_ENTRY_WRITE, dir, ddir, ASB_ENTRY_F_EXEC,
			                        "core (self-config)");
			if (r < 0)
				return r;
		}
		int r = plan_path(plan, ASB_ENTRY_READ, p, dest, 0, "core (self-config)");
		if (r < 0)
			return r;
		log_msg(LOG_INFO,
		        "read-only inside: %s (it shapes the sandbox and lies in the writable %s)",
		        p, root);
		if ((r = strv_push(protected, p)) < 0)
			return r;
	}
	return 0;
}

void selfconfig_start_time(struct timespec *out)
{
	/* A file's times come from the coarse clock, which lags the fine one
	 * by up to a tick: a change right after a fine-grained start could be
	 * dated before it. */
#ifdef CLOCK_REALTIME_COARSE
	if (clock_gettime(CLOCK_REALTIME_COARSE, out) == 0)
		return;
#endif
	clock_gettime(CLOCK_REALTIME, out);
}

static int print_escaped(FILE *f, const char *tag, const char *path)
{
	_cleanup_free_ char *clean = log_escape(path);
	return clean && fprintf(f, "%s %s\n", tag, clean) > 0 ? 0 : -ENOMEM;
}

static bool within_any(const struct strv *roots, const char *path);

/* Could the agent write one of `paths`, or the state root (missing from
 * them on a first launch, made since): within a writable entry, not
 * protected? */
static bool exposed(const struct strv *writable, const struct strv *protected,
                    const struct strv *paths, const char *state_root)
{
	char root[PATH_MAX];
	if (state_root && path_real(state_root, root) && within_any(writable, root) &&
	    !within_any(protected, root))
		return true;
	for (size_t i = 0; i < paths->n; i++)
		if (within_any(writable, paths->v[i]) && !within_any(protected, paths->v[i]))
			return true;
	return false;
}

int selfconfig_record(struct session *s, const struct timespec *start, const struct plan *plan,
                      const struct strv *protected, const struct strv *paths)
{
	/* Only the outermost writable paths: one that another holds changes
	 * no check, and git protection's writable rebinds are hundreds. */
	struct strv writable = {0};
	int r = 0;
	for (size_t i = 0; r >= 0 && i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if (e->type == ASB_ENTRY_WRITE && e->host_path)
			r = strv_push(&writable, e->host_path);
	}
	strv_keep_outermost(&writable);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = r >= 0 ? open_memstream(&text, &len) : NULL;
	if (f && fprintf(f, "start %lld %ld\n", (long long)start->tv_sec, start->tv_nsec) < 0)
		r = -ENOMEM;
	for (size_t i = 0; f && r >= 0 && i < writable.n; i++)
		r = print_escaped(f, "w", writable.v[i]);
	for (size_t i = 0; f && r >= 0 && i < protected->n; i++)
		r = print_escaped(f, "p", protected->v[i]);
	bool agent_may_write = exposed(&writable, protected, paths, s->root);
	strv_clear(&writable);
	if (!f || fclose(f) != 0 || r < 0)
		return -ENOMEM;
	r = session_write(s, RECORD, text, len);
	return r < 0 ? r : agent_may_write;
}

void selfconfig_record_end(struct session *s, bool agent_could_write)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* A change made after this instant by the launcher itself (this one's
	 * last writes, the next launch's) is dated by the coarse clock, up to
	 * a tick before it: the next check would take it for the agent's.
	 * Where the agent could write what shapes the sandbox, leave only once
	 * that clock has passed it (at most a tick, a few ms). */
#ifdef CLOCK_REALTIME_COARSE
	struct timespec coarse;
	while (agent_could_write && clock_gettime(CLOCK_REALTIME_COARSE, &coarse) == 0 &&
	       (coarse.tv_sec < ts.tv_sec ||
	        (coarse.tv_sec == ts.tv_sec && coarse.tv_nsec <= ts.tv_nsec))) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
#endif
	char line[64];
	int n = snprintf(line, sizeof(line), "end %lld %ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	int fd = session_open(s, RECORD);
	if (fd >= 0) {
		(void)write_all(fd, line, (size_t)n);
		close(fd);
	}
}

/* The latest change time of `path`, and of its entries when a directory
 * (a planted plugin changes the directory; a rewritten one, its file). */
static bool changed_at(const char *path, struct timespec *out)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return false;
	*out = st.st_ctim;
	if (!S_ISDIR(st.st_mode))
		return true;
	_cleanup_closedir_ DIR *d = opendir(path);
	struct dirent *de;
	unsigned n = 0;
	while (d && (de = readdir(d)) && n++ < 4096) {
		struct stat cs;
		if (de->d_name[0] == '.' && (!de->d_name[1] || de->d_name[1] == '.'))
			continue;
		if (fstatat(dirfd(d), de->d_name, &cs, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (cs.st_ctim.tv_sec > out->tv_sec ||
		     (cs.st_ctim.tv_sec == out->tv_sec && cs.st_ctim.tv_nsec > out->tv_nsec)))
			*out = cs.st_ctim;
	}
	return true;
}

static bool not_before(const struct timespec *a, long long sec, long nsec)
{
	return a->tv_sec > sec || (a->tv_sec == sec && a->tv_nsec >= nsec);
}

/* The change time accepted for `path` ("SEC NSEC PATH" lines, last wins). */
static bool accepted_at(const char *state_root, const char *path, long long *sec, long *nsec)
{
	_cleanup_free_ char *file = str_printf("%s/" ACCEPTED, state_root);
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *clean = log_escape(path);
	if (!file || !clean || read_file(file, &text, NULL) < 0)
		return false;
	bool found = false;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long long s;
		long ns;
		int off = 0;
		if (sscanf(line, "%lld %ld %n", &s, &ns, &off) == 2 && off > 0 &&
		    strcmp(line + off, clean) == 0) {
			*sec = s;
			*nsec = ns;
			found = true;
		}
	}
	return found;
}

struct record {
	long long sec, end_sec; /* end_sec 0: it did not end cleanly (or still runs) */
	long nsec, end_nsec;
	struct strv writable, protected;
};

struct selfconfig_cached {
	char *name;
	struct record rec;
};

void selfconfig_records_free(struct selfconfig_records *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		strv_clear(&c->v[i].rec.writable);
		strv_clear(&c->v[i].rec.protected);
	}
	free(c->v);
	free(c->root);
	*c = (struct selfconfig_records){0};
}

static const struct record *cached_record(const struct selfconfig_records *c, const char *root,
                                          const char *name)
{
	if (!c || !c->root || strcmp(c->root, root) != 0)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i].rec;
	return NULL;
}

/* Keeps *rec (emptied here) when the cache is for this root; best effort. */
static void cache_record(struct selfconfig_records *c, const char *root, const char *name,
                         struct record *rec)
{
	if (!c)
		return;
	if (!c->root) {
		if (!(c->root = strdup(root)))
			return;
	} else if (strcmp(c->root, root) != 0) {
		return;
	}
	struct selfconfig_cached *v = realloc(c->v, (c->n + 1) * sizeof(*v));
	if (!v)
		return;
	c->v = v;
	if (!(v[c->n].name = strdup(name)))
		return;
	v[c->n].rec = *rec;
	*rec = (struct record){0};
	c->n++;
}

static int read_record(const char *dir, struct record *rec)
{
	_cleanup_free_ char *file = str_printf("%s/" RECORD, dir);
	_cleanup_free_ char *text = NULL;
	if (!file)
		return -ENOMEM;
	int r = read_file(file, &text, NULL);
	if (r < 0)
		return r;
	*rec = (struct record){0};
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line && r >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		if (str_has_prefix(line, "start "))
			(void)sscanf(line + 6, "%lld %ld", &rec->sec, &rec->nsec);
		else if (str_has_prefix(line, "end "))
			(void)sscanf(line + 4, "%lld %ld", &rec->end_sec, &rec->end_nsec);
		else if (str_has_prefix(line, "w "))
			r = strv_push(&rec->writable, line + 2);
		else if (str_has_prefix(line, "p "))
			r = strv_push(&rec->protected, line + 2);
	}
	return r < 0 ? r : rec->sec > 0 ? 0 : -EINVAL;
}

/* A session holds the lock on its directory while it runs (session.c). */
static bool still_running(const char *dir)
{
	_cleanup_free_ char *lock = str_printf("%s/.lock", dir);
	_cleanup_close_ int fd = lock ? open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		return false;
	return errno == EWOULDBLOCK;
}

static void append_end(const char *dir, const struct timespec *at)
{
	_cleanup_free_ char *file = str_printf("%s/" RECORD, dir);
	_cleanup_close_ int fd =
	    file ? open(file, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW) : -1;
	char line[64];
	int n = snprintf(line, sizeof(line), "end %lld %ld\n", (long long)at->tv_sec, at->tv_nsec);
	if (fd >= 0)
		(void)write_all(fd, line, (size_t)n);
}

static bool within_any(const struct strv *roots, const char *path)
{
	for (size_t i = 0; i < roots->n; i++)
		if (path_is_within(path, roots->v[i]))
			return true;
	return false;
}

/* changed_at, once per path for all the records it is checked against. */
struct change_times {
	struct timespec *at;
	signed char *seen; /* 0: not asked yet; 1: at[i]; -1: missing */
};

static bool changed_at_once(struct change_times *c, const struct strv *paths, size_t i,
                            struct timespec *out)
{
	if (!c->seen[i])
		c->seen[i] = changed_at(paths->v[i], &c->at[i]) ? 1 : -1;
	*out = c->at[i];
	return c->seen[i] > 0;
}

int selfconfig_check(const char *state_root, const struct strv *paths,
                     struct selfconfig_records *cache, char **why)
{
	_cleanup_closedir_ DIR *d = opendir(state_root);
	if (!d)
		return 0;
	_cleanup_free_ struct timespec *at_v = calloc(paths->n + 1, sizeof(*at_v));
	_cleanup_free_ signed char *seen_v = calloc(paths->n + 1, 1);
	if (!at_v || !seen_v)
		return -ENOMEM;
	struct change_times times = {at_v, seen_v};
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *dir = str_printf("%s/%s", state_root, de->d_name);
		struct record own = {0};
		const struct record *kept = cached_record(cache, state_root, de->d_name);
		if (!dir || (!kept && read_record(dir, &own) < 0))
			continue;
		/* Ended: its record is final, and kept for this launch's other check. */
		if (!kept && own.end_sec) {
			cache_record(cache, state_root, de->d_name, &own);
			kept = cached_record(cache, state_root, de->d_name);
		}
		struct record rec = kept ? *kept : own;
		if (!rec.end_sec && !still_running(dir)) {
			/* Killed (the sandbox died with it): over by now at the
			 * latest, which bounds it for every later launch. */
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			append_end(dir, &now);
			rec.end_sec = now.tv_sec;
			rec.end_nsec = now.tv_nsec;
		}
		for (size_t i = 0; i < paths->n && !*why; i++) {
			const char *p = paths->v[i];
			struct timespec at;
			long long asec = 0;
			long ansec = 0;
			/* Changed while that session's agent could write it. */
			if (!within_any(&rec.writable, p) || within_any(&rec.protected, p) ||
			    !changed_at_once(&times, paths, i, &at) ||
			    !not_before(&at, rec.sec, rec.nsec) ||
			    (rec.end_sec && not_before(&at, rec.end_sec, rec.end_nsec + 1)))
				continue;
			if (accepted_at(state_root, p, &asec, &ansec) &&
			    !(at.tv_sec > asec || (at.tv_sec == asec && at.tv_nsec > ansec)))
				continue;
			char when[32];
			struct tm tm;
			time_t t = at.tv_sec;
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
			*why = str_printf(
			    "%s, which shapes the sandbox, changed at %s, after the session "
			    "%s started with write access to it: its agent may have "
			    "rewritten it",
			    p, when, de->d_name);
		}
		strv_clear(&own.writable);
		strv_clear(&own.protected);
		if (*why)
			return *why ? 1 : -ENOMEM;
	}
	return 0;
}

int selfconfig_accept(const char *state_root, const struct strv *paths)
{
	int r = mkdir_p(state_root, 0700);
	if (r < 0)
		return r;
	_cleanup_free_ char *file = str_printf("%s/" ACCEPTED, state_root);
	if (!file)
		return -ENOMEM;
	_cleanup_close_ int fd =
	    open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < paths->n; i++) {
		struct timespec at;
		_cleanup_free_ char *clean = log_escape(paths->v[i]);
		_cleanup_free_ char *line =
		    clean && changed_at(paths->v[i], &at)
		        ? str_printf("%lld %ld %s\n", (long long)at.tv_sec, at.tv_nsec, clean)
		        : NULL;
		if (line && (r = write_all(fd, line, strlen(line))) < 0)
			return r;
	}
	return 0;
}
