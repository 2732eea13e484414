/* SPDX-License-Identifier: MIT */
#include "credentials.h"

#include "expand.h"
#include "json.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET_FILE_MAX (1u << 20) /* a token file, a .env */
#define GUARD_MAX       4096       /* secrets taken from guard_files */

static const char *const claude_access[] = {"claudeAiOauth", "accessToken"};
static const char *const claude_refresh[] = {"claudeAiOauth", "refreshToken"};

static int random_bytes(void *buf, size_t len)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			close(fd);
			return -EIO;
		}
		got += (size_t)n;
	}
	close(fd);
	return 0;
}

static void wipe_free(char *s)
{
	if (s) {
		netsecrets_wipe(s, strlen(s));
		free(s);
	}
}

/* A secret file, read into one exact buffer (no copies left behind by growing). */
static int read_secret_file(const char *path, char **out, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_regular_fd(fd, SECRET_FILE_MAX, out, len);
}

static int expand(const char *raw, const char *where, const char *what, char **out)
{
	char *bad = NULL;
	int r = expand_vars(raw, expand_lookup_environ, NULL, out, &bad);
	if (r == -ENOENT)
		err_set("%s: %s: $%s is not set (write ${%s:-} when it may be missing)", where,
		        what, bad, bad);
	else if (r < 0)
		err_set("%s: %s: %s", where, what, bad ? bad : strerror(-r));
	free(bad);
	return r;
}

/* An expanded path: absolute, or relative to `base` when one is given. */
static int expand_path(const char *raw, const char *base, const char *where, const char *what,
                       char **out)
{
	_cleanup_free_ char *p = NULL;
	int r = expand(raw, where, what, &p);
	if (r < 0)
		return r;
	if (p[0] != '/' && base) {
		char *abs = str_printf("%s/%s", base, p);
		if (!abs)
			return -ENOMEM;
		free(p);
		p = abs;
	}
	if (p[0] != '/') {
		err_set("%s: %s \"%s\" must be an absolute path", where, what, p);
		return -EINVAL;
	}
	*out = TAKE_PTR(p);
	return 0;
}

static bool header_safe(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
	return n > 0;
}

static int make_placeholder(struct cred_value *cv, const char *real, char **out)
{
	int r = netcred_placeholder(real, strlen(real), cv->def->prefix, random_bytes, out);
	if (r < 0)
		err_set("%s: credential %s: cannot make its placeholder: %s", cv->def->where,
		        cv->def->name, strerror(-r));
	return r < 0 ? r : 0;
}

/* Claude Code's .credentials.json: both tokens, and the file again with
 * placeholders instead (everything else as it was). */
static int resolve_claude(struct cred_value *cv, const char *path)
{
	const struct netcred *d = cv->def;
	char real[PATH_MAX];
	if (!path_real(path, real)) {
		err_set("%s: credential %s: cannot read %s: %s (log in with Claude Code on the "
		        "host first, or remove the binding)",
		        d->where, d->name, path, strerror(errno));
		return -errno;
	}
	char *json = NULL;
	size_t len = 0;
	int r = read_secret_file(real, &json, &len);
	if (r < 0) {
		err_set("%s: credential %s: cannot read %s: %s", d->where, d->name, real,
		        strerror(-r));
		return r;
	}
	struct json_span a, b;
	const char *ap, *bp;
	size_t an, bn;
	if (json_find(json, len, claude_access, 2, &a) != 1 ||
	    json_find(json, len, claude_refresh, 2, &b) != 1 ||
	    !json_plain_string(json, &a, &ap, &an) || !json_plain_string(json, &b, &bp, &bn) ||
	    !header_safe(ap, an) || !header_safe(bp, bn)) {
		netsecrets_wipe(json, len);
		free(json);
		err_set("%s: credential %s: %s holds no claudeAiOauth accessToken and refreshToken",
		        d->where, d->name, real);
		return -EINVAL;
	}
	cv->real = strndup(ap, an);
	cv->refresh = strndup(bp, bn);
	cv->host_file = strdup(real);
	if (!cv->real || !cv->refresh || !cv->host_file) {
		netsecrets_wipe(json, len);
		free(json);
		return -ENOMEM;
	}
	if ((r = make_placeholder(cv, cv->real, &cv->placeholder)) < 0 ||
	    (r = make_placeholder(cv, cv->refresh, &cv->refresh_placeholder)) < 0) {
		netsecrets_wipe(json, len);
		free(json);
		return r;
	}
	/* The same JSON, the two strings swapped (the earlier one first). */
	const struct json_span *first = a.off < b.off ? &a : &b, *second = first == &a ? &b : &a;
	const char *ph1 = first == &a ? cv->placeholder : cv->refresh_placeholder;
	const char *ph2 = first == &a ? cv->refresh_placeholder : cv->placeholder;
	cv->ph_content = str_printf(
	    "%.*s\"%s\"%.*s\"%s\"%.*s", (int)first->off, json, ph1,
	    (int)(second->off - first->off - first->len), json + first->off + first->len, ph2,
	    (int)(len - second->off - second->len), json + second->off + second->len);
	netsecrets_wipe(json, len);
	free(json);
	if (!cv->ph_content)
		return -ENOMEM;
	cv->ph_len = strlen(cv->ph_content);
	cv->source = str_printf("file %s", real);
	return cv->source ? 0 : -ENOMEM;
}

static int resolve_one(struct cred_value *cv, const struct policy *p)
{
	const struct netcred *d = cv->def;
	int r;
	/* An oauth file ending in '?' may be missing (no login on this host). */
	_cleanup_free_ char *file = d->file ? strdup(d->file) : NULL;
	size_t fl = file ? strlen(file) : 0;
	bool optional = d->oauth && fl > 1 && file[fl - 1] == '?';
	if (d->file && !file)
		return -ENOMEM;
	if (optional)
		file[fl - 1] = '\0';
	if (file && (r = expand_path(file, NULL, d->where, "credentials: file", &cv->file)) < 0)
		return r;
	if (cv->file && str_has_prefix(cv->file, ASB_RUN_DIR)) {
		err_set("%s: credential %s: file %s is where agentsandbox keeps its own files",
		        d->where, d->name, cv->file);
		return -EINVAL;
	}
	if (d->oauth) {
		struct stat st;
		if (optional && stat(cv->file, &st) < 0 && errno == ENOENT) {
			cv->source = str_printf("file %s", cv->file);
			return cv->source ? 0 : -ENOMEM; /* inactive: logged as not used */
		}
		cv->active = true;
		return resolve_claude(cv, cv->file);
	}
	if (d->value) {
		if ((r = expand(d->value, d->where, "credentials: value", &cv->real)) < 0)
			return r;
		if (!(cv->source = strdup(d->value)))
			return -ENOMEM;
	} else {
		_cleanup_free_ char *path = NULL;
		size_t len;
		if ((r = expand_path(d->value_file, p->workspace.value, d->where,
		                     "credentials: value_file", &path)) < 0)
			return r;
		if ((r = read_secret_file(path, &cv->real, &len)) < 0) {
			err_set("%s: credential %s: cannot read %s: %s", d->where, d->name, path,
			        strerror(-r));
			return r;
		}
		while (len && strchr(" \t\r\n", cv->real[len - 1]))
			cv->real[--len] = '\0';
		char resolved[PATH_MAX];
		if (path_real(path, resolved) && !(cv->value_path = strdup(resolved)))
			return -ENOMEM;
		if (!(cv->source = str_printf("file %s", path)))
			return -ENOMEM;
	}
	size_t n = strlen(cv->real);
	if (n == 0)
		return 0; /* like an env entry: empty leaves it out */
	if (n > NETCRED_VALUE_MAX || !header_safe(cv->real, n)) {
		err_set("%s: credential %s: the value from %s %s", d->where, d->name, cv->source,
		        n > NETCRED_VALUE_MAX ? "is too long" : "holds control characters");
		return -EINVAL;
	}
	if (d->send == NETCRED_BASIC && strchr(cv->real, ':')) {
		err_set("%s: credential %s: a Basic password cannot hold ':'... it can, but not "
		        "this way: use header = \"Authorization\" with the whole value",
		        d->where, d->name);
		return -EINVAL;
	}
	cv->active = true;
	if ((r = make_placeholder(cv, cv->real, &cv->placeholder)) < 0)
		return r;
	if (cv->file) {
		if (!(cv->ph_content = str_printf("%s\n", cv->placeholder)))
			return -ENOMEM;
		cv->ph_len = strlen(cv->ph_content);
	}
	return 0;
}

/* ---- guard_files: the secrets a file holds ---- */

static bool secret_word(const char *key, size_t n)
{
	static const char *const words[] = {"TOKEN",   "KEY",  "SECRET",     "PASSWORD", "PASSWD",
	                                    "PASS",    "AUTH", "CREDENTIAL", "COOKIE",   "SESSION",
	                                    "PRIVATE", "DSN",  NULL};
	for (const char *const *w = words; *w; w++) {
		size_t wl = strlen(*w);
		for (size_t i = 0; i + wl <= n; i++)
			if (strncasecmp(key + i, *w, wl) == 0)
				return true;
	}
	return false;
}

/* Random-looking: no space, and letters of two kinds or letters and digits. */
static bool looks_random(const char *v, size_t n)
{
	bool lo = false, up = false, dig = false;
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		if (c == ' ' || c == '\t')
			return false;
		lo |= c >= 'a' && c <= 'z';
		up |= c >= 'A' && c <= 'Z';
		dig |= c >= '0' && c <= '9';
	}
	return lo + up + dig >= 2;
}

static int add_guard(struct credentials *cr, int file, const char *v, size_t n)
{
	if (n < NETCRED_MIN_GUARD || cr->n_guard >= GUARD_MAX)
		return 0;
	for (size_t i = 0; i < cr->n_guard; i++)
		if (strlen(cr->guard[i]) == n && memcmp(cr->guard[i], v, n) == 0)
			return 0;
	char **g = realloc(cr->guard, (cr->n_guard + 1) * sizeof(char *));
	if (!g)
		return -ENOMEM;
	cr->guard = g;
	int *gf = realloc(cr->guard_file, (cr->n_guard + 1) * sizeof(int));
	if (!gf)
		return -ENOMEM;
	cr->guard_file = gf;
	if (!(cr->guard[cr->n_guard] = strndup(v, n)))
		return -ENOMEM;
	cr->guard_file[cr->n_guard++] = file;
	return 0;
}

/* Each line: KEY=VALUE (also "export KEY=VALUE", quotes removed) gives VALUE when
 * KEY names a secret or VALUE looks random; any other line counts whole when it
 * looks random and is at least 16 long. Comments and short values are skipped. */
static int scan_guard_file(struct credentials *cr, int file, char *text, size_t len)
{
	char *save = NULL;
	(void)len;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);
		while (n && strchr(" \t\r", line[n - 1]))
			line[--n] = '\0';
		while (*line == ' ' || *line == '\t')
			line++, n--;
		if (n == 0 || line[0] == '#')
			continue;
		char *v = line;
		size_t vn = n;
		bool named = false;
		char *s = line;
		if (strncmp(s, "export ", 7) == 0)
			s += 7;
		size_t k = 0;
		while ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z') ||
		       s[k] == '_' ||
		       (k && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.' || s[k] == '-')))
			k++;
		size_t e = k;
		while (s[e] == ' ')
			e++;
		if (k && s[e] == '=') {
			named = secret_word(s, k);
			v = s + e + 1;
			while (*v == ' ')
				v++;
			vn = strlen(v);
			if (vn >= 2 && (v[0] == '"' || v[0] == '\'') && v[vn - 1] == v[0]) {
				v++;
				vn -= 2;
			} else {
				char *hash = strstr(v, " #");
				if (hash)
					vn = (size_t)(hash - v);
				while (vn && v[vn - 1] == ' ')
					vn--;
			}
			if (!named && !looks_random(v, vn))
				continue;
		} else if (vn < 16 || !looks_random(v, vn)) {
			continue;
		}
		int r = add_guard(cr, file, v, vn);
		if (r < 0)
			return r;
	}
	return 0;
}

static int resolve_guard_files(struct credentials *cr, const struct netcreds *defs,
                               const struct policy *p)
{
	if (defs->n_guard_files == 0)
		return 0;
	cr->guard_files = calloc(defs->n_guard_files, sizeof(char *));
	if (!cr->guard_files)
		return -ENOMEM;
	cr->n_guard_files = defs->n_guard_files;
	for (size_t i = 0; i < defs->n_guard_files; i++) {
		_cleanup_free_ char *raw = strdup(defs->guard_files[i]);
		if (!raw)
			return -ENOMEM;
		size_t rl = strlen(raw);
		bool optional = rl > 1 && raw[rl - 1] == '?';
		if (optional)
			raw[rl - 1] = '\0';
		_cleanup_free_ char *path = NULL;
		const char *where = p->config_file ? p->config_file : "(config)";
		int r = expand_path(raw, p->workspace.value, where, "network.guard_files", &path);
		if (r < 0)
			return r;
		char *text = NULL;
		size_t len = 0;
		r = read_secret_file(path, &text, &len);
		if (r == -ENOENT && optional) {
			log_msg(LOG_INFO, "guard_files: %s does not exist (optional)", path);
			continue;
		}
		if (r < 0) {
			err_set("%s: network.guard_files: cannot read %s: %s%s", where, path,
			        strerror(-r),
			        r == -ENOENT ? " (end it with '?' if it may be missing)" : "");
			return r;
		}
		cr->guard_files[i] = TAKE_PTR(path);
		r = scan_guard_file(cr, (int)i, text, len);
		netsecrets_wipe(text, len);
		free(text);
		if (r < 0)
			return r;
	}
	return 0;
}

int credentials_resolve(struct credentials *cr, const struct netcreds *defs, const struct policy *p,
                        bool dry_run)
{
	int r;
	*cr = (struct credentials){.dry_run = dry_run};
	if (defs->n == 0 && defs->n_guard_files == 0)
		return 0;
	if (!(cr->v = calloc(defs->n + 1, sizeof(*cr->v))))
		return -ENOMEM;
	for (size_t i = 0; i < defs->n; i++) {
		cr->v[i].def = &defs->v[i];
		cr->n++;
		if ((r = resolve_one(&cr->v[i], p)) < 0)
			return r;
	}
	return resolve_guard_files(cr, defs, p);
}

bool credentials_any(const struct credentials *cr)
{
	for (size_t i = 0; i < cr->n; i++)
		if (cr->v[i].active)
			return true;
	return cr->n_guard > 0;
}

/* The writable placeholder copy of an oauth file: beside the session
 * directories (the backend exposes it before the session exists), 0600. */
static int oauth_file(struct cred_value *cv, struct plan *plan, const char *state_root)
{
	int r;
	if (!state_root)
		return plan_path_unopened(plan, ASB_ENTRY_WRITE, "<session>/credential.json",
		                          cv->file, 0, "network.credentials");
	if ((r = mkdir_p(state_root, 0700)) < 0)
		return r;
	_cleanup_free_ char *tmpl = str_printf("%s/.new-%d-cred-XXXXXX", state_root, (int)getpid());
	if (!tmpl)
		return -ENOMEM;
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -errno;
	(void)fchmod(fd, 0600);
	r = write_all(fd, cv->ph_content, cv->ph_len);
	close(fd);
	cv->ph_file = TAKE_PTR(tmpl);
	if (r < 0)
		return r;
	return plan_path(plan, ASB_ENTRY_WRITE, cv->ph_file, cv->file, 0, "network.credentials");
}

/* A value_file the plan shows the agent (under the workspace, a declared
 * directory): an empty file there instead, wherever it appears. */
static int mask_value_file(const struct cred_value *cv, struct plan *plan, uint64_t caps)
{
	size_t n = plan->n_entries;
	for (size_t i = 0; cv->value_path && i < n; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if ((e->type != ASB_ENTRY_READ && e->type != ASB_ENTRY_WRITE) || !e->host_path ||
		    e->host_path[0] != '/' || !path_is_within(cv->value_path, e->host_path))
			continue;
		const char *rest = cv->value_path + strlen(e->host_path);
		_cleanup_free_ char *inside =
		    str_printf("%s%s%s", e->dest,
		               *rest == '/' || !*rest || !strcmp(e->dest, "/") ? "" : "/", rest);
		if (!inside)
			return -ENOMEM;
		if (!(caps & ASB_CAP_MASKS)) {
			err_set(
			    "%s: credential %s: the agent would see %s (at %s), and this backend "
			    "cannot mask it; keep the file out of what the sandbox shows",
			    cv->def->where, cv->def->name, cv->value_path, inside);
			return -EOPNOTSUPP;
		}
		int r = plan_entry(plan, ASB_ENTRY_MASK, 0, 0, NULL, inside, NULL, 0,
		                   "network.credentials");
		if (r < 0)
			return r;
		log_msg(LOG_INFO, "credential %s: %s is masked inside (it holds the real value)",
		        cv->def->name, inside);
	}
	return 0;
}

static bool holds(const char *hay, size_t n, const char *needle)
{
	size_t k = needle ? strlen(needle) : 0;
	if (!k || n < k)
		return false;
	for (size_t i = 0; i + k <= n; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, k) == 0)
			return true;
	return false;
}

/* Where in the plan a real value would reach the sandbox, or NULL. */
static const char *leak_in_plan(const struct plan *plan, const char *real, char *buf, size_t len)
{
	for (size_t i = 0; i < plan->n_env; i++)
		if (holds(plan->env[i].value, strlen(plan->env[i].value), real)) {
			snprintf(buf, len, "the environment variable %s", plan->env[i].key);
			return buf;
		}
	for (size_t i = 0; i < plan->argv.n; i++)
		if (holds(plan->argv.v[i], strlen(plan->argv.v[i]), real))
			return "the agent's arguments";
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct plan_entry *e = &plan->entries[i];
		if (e->type == ASB_ENTRY_FILE && e->data && holds(e->data, e->data_len, real)) {
			snprintf(buf, len, "the generated file %s", e->dest);
			return buf;
		}
	}
	return NULL;
}

int credentials_plan(struct credentials *cr, struct plan *plan, const char *state_root,
                     uint64_t caps)
{
	int r;
	for (size_t i = 0; i < cr->n; i++) {
		struct cred_value *cv = &cr->v[i];
		const struct netcred *d = cv->def;
		if (!cv->active)
			continue;
		/* Never weaker than it says, whatever --accept-weaker accepts: without it
		 * the agent would read the real tokens (and a value_file it sees must be
		 * masked: mask_value_file). */
		if (d->oauth && (!(caps & ASB_CAP_REMAP) || !(caps & ASB_CAP_FS_VIEW))) {
			err_set(
			    "%s: credential %s: this backend cannot put the placeholder file over "
			    "%s (it needs its own view of the files, with remap): the agent would "
			    "read the real tokens",
			    d->where, d->name, cv->file);
			return -EOPNOTSUPP;
		}
		if (d->env && (r = plan_setenv(plan, d->env, cv->placeholder)) < 0)
			return r;
		if (d->oauth)
			r = oauth_file(cv, plan, state_root);
		else if (cv->file)
			r = plan_file(plan, cv->file, cv->ph_content, cv->ph_len, 0444,
			              "network.credentials");
		else
			r = 0;
		if (r < 0) {
			err_set("%s: credential %s: cannot place its placeholder at %s: %s",
			        d->where, d->name, cv->file, strerror(-r));
			return r;
		}
		if ((r = mask_value_file(cv, plan, caps)) < 0) {
			if (r != -EOPNOTSUPP)
				err_set("%s: credential %s: cannot mask %s inside: %s", d->where,
				        d->name, cv->value_path, strerror(-r));
			return r;
		}
	}
	char buf[256];
	for (size_t i = 0; i < cr->n; i++) {
		const struct cred_value *cv = &cr->v[i];
		const char *reals[2] = {cv->real, cv->refresh};
		for (int k = 0; k < 2 && cv->active; k++) {
			const char *where = leak_in_plan(plan, reals[k], buf, sizeof(buf));
			if (where) {
				err_set("%s: credential %s: its real value would reach the sandbox "
				        "through %s; remove it from there (the agent gets the "
				        "placeholder "
				        "instead)",
				        cv->def->where, cv->def->name, where);
				return -EPERM;
			}
		}
	}
	return 0;
}

int credentials_send(const struct credentials *cr, const struct netcreds *defs, int fd)
{
	struct netsecrets_buf b;
	int r = netsecrets_begin(&b);
	char fp[2048];
	for (size_t i = 0; r == 0 && i < cr->n; i++) {
		const struct cred_value *cv = &cr->v[i];
		if (!cv->active)
			continue;
		int n = netcred_fingerprint(&defs->v[i], fp, sizeof(fp));
		if (n < 0) {
			r = n;
			break;
		}
		r = netsecrets_add(&b, 'B', (int)i, fp, (size_t)n);
		if (r == 0)
			r = netsecrets_add(&b, 'V', (int)i, cv->real, strlen(cv->real));
		if (r == 0)
			r = netsecrets_add(&b, 'P', (int)i, cv->placeholder,
			                   strlen(cv->placeholder));
		if (r == 0 && cv->refresh)
			r = netsecrets_add(&b, 'R', (int)i, cv->refresh, strlen(cv->refresh));
		if (r == 0 && cv->refresh_placeholder)
			r = netsecrets_add(&b, 'Q', (int)i, cv->refresh_placeholder,
			                   strlen(cv->refresh_placeholder));
		if (r == 0 && cv->host_file)
			r = netsecrets_add(&b, 'F', (int)i, cv->host_file, strlen(cv->host_file));
	}
	for (size_t i = 0; r == 0 && i < cr->n_guard; i++)
		r = netsecrets_add(&b, 'G', cr->guard_file[i], cr->guard[i], strlen(cr->guard[i]));
	if (r == 0)
		r = netsecrets_end(&b);
	if (r == 0) {
		/* A proxy that died early must not take the launcher with it (SIGPIPE). */
		struct sigaction ign = {.sa_handler = SIG_IGN}, old;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGPIPE, &ign, &old);
		r = write_all(fd, b.p, b.len);
		sigaction(SIGPIPE, &old, NULL);
	}
	netsecrets_buf_wipe(&b);
	return r;
}

static void describe(const struct cred_value *cv, char *buf, size_t len)
{
	const struct netcred *d = cv->def;
	char sb[256];
	size_t o = (size_t)snprintf(buf, len, "to ");
	for (size_t i = 0; i < d->n_domains && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", d->domains[i]);
	for (size_t i = 0; i < d->n_paths && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : " under ", d->paths[i]);
	if (o < len)
		o += (size_t)snprintf(
		    buf + o, len - o, " as %s%s%s",
		    d->oauth ? "Claude Code OAuth (Authorization: Bearer, refreshed "
		               "by the proxy)"
		             : netcred_send_name(d, sb, sizeof(sb)),
		    d->add ? ", added when missing" : "", d->guard ? "; guarded" : "; not guarded");
	if (o < len && d->env)
		o += (size_t)snprintf(buf + o, len - o, "; placeholder in $%s", d->env);
	if (o < len && cv->file)
		snprintf(buf + o, len - o, "; placeholder file %s", cv->file);
}

void credentials_log(const struct credentials *cr)
{
	char buf[1024];
	for (size_t i = 0; i < cr->n; i++) {
		const struct cred_value *cv = &cr->v[i];
		describe(cv, buf, sizeof(buf));
		if (!cv->active)
			log_msg(LOG_INFO, "credential %s: %s is %s: not used", cv->def->name,
			        cv->source ? cv->source : "its value",
			        cv->def->oauth ? "missing" : "empty");
		else
			log_msg(LOG_INFO, "credential %s: from %s (%zu characters) %s",
			        cv->def->name, cv->source, strlen(cv->real), buf);
	}
	for (size_t i = 0; i < cr->n_guard_files; i++) {
		if (!cr->guard_files[i])
			continue;
		size_t n = 0;
		for (size_t k = 0; k < cr->n_guard; k++)
			n += cr->guard_file[k] == (int)i;
		log_msg(LOG_INFO,
		        "guard_files: %zu secret%s from %s (requests carrying one are "
		        "refused)",
		        n, n == 1 ? "" : "s", cr->guard_files[i]);
	}
}

void credentials_log_use(const struct credentials *cr, const char *proxy_log)
{
	if (!cr->n || !proxy_log)
		return;
	size_t *used = calloc(cr->n, sizeof(size_t));
	FILE *f = used ? fopen(proxy_log, "re") : NULL;
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		/* "<time> injected: NAME into METHOD host/path" */
		char *p = strstr(line, " injected: ");
		if (!p || strchr(line, ' ') != p)
			continue;
		p += 11;
		for (size_t i = 0; i < cr->n; i++) {
			size_t nl = strlen(cr->v[i].def->name);
			if (strncmp(p, cr->v[i].def->name, nl) == 0 && p[nl] == ' ')
				used[i]++;
		}
	}
	if (f)
		fclose(f);
	for (size_t i = 0; used && i < cr->n; i++)
		if (cr->v[i].active)
			log_msg(LOG_INFO, "credential %s: %s", cr->v[i].def->name,
			        used[i] ? "injected by the proxy (see proxy.log's injected: lines)"
			                : "never injected");
	free(used);
}

void credentials_show(FILE *out, const struct credentials *cr)
{
	char buf[1024];
	if (!cr->n && !cr->n_guard_files)
		return;
	fputs("\n# credentials (the proxy injects them; values never shown)\n", out);
	for (size_t i = 0; i < cr->n; i++) {
		const struct cred_value *cv = &cr->v[i];
		describe(cv, buf, sizeof(buf));
		if (cv->active)
			fprintf(out, "%s = <%s: set, %zu characters> %s  [file %s]\n",
			        cv->def->name, cv->source, strlen(cv->real), buf, cv->def->where);
		else
			fprintf(out, "%s = <%s: %s, not used> %s  [file %s]\n", cv->def->name,
			        cv->source ? cv->source : "?", cv->def->oauth ? "missing" : "empty",
			        buf, cv->def->where);
	}
	for (size_t i = 0; i < cr->n_guard_files; i++) {
		size_t n = 0;
		for (size_t k = 0; k < cr->n_guard; k++)
			n += cr->guard_file[k] == (int)i;
		if (cr->guard_files[i])
			fprintf(out, "guard_files   %s: %zu secret%s\n", cr->guard_files[i], n,
			        n == 1 ? "" : "s");
	}
}

const char *credentials_env_binding(const struct credentials *cr, const char *key)
{
	for (size_t i = 0; i < cr->n; i++)
		if (cr->v[i].active && cr->v[i].def->env && strcmp(cr->v[i].def->env, key) == 0)
			return cr->v[i].def->name;
	return NULL;
}

void credentials_free(struct credentials *cr)
{
	for (size_t i = 0; i < cr->n; i++) {
		struct cred_value *cv = &cr->v[i];
		wipe_free(cv->real);
		wipe_free(cv->refresh);
		wipe_free(cv->placeholder);
		wipe_free(cv->refresh_placeholder);
		wipe_free(cv->ph_content);
		free(cv->source);
		free(cv->file);
		free(cv->host_file);
		free(cv->value_path);
		if (cv->ph_file) {
			unlink(cv->ph_file);
			free(cv->ph_file);
		}
	}
	free(cr->v);
	for (size_t i = 0; i < cr->n_guard; i++)
		wipe_free(cr->guard[i]);
	free(cr->guard);
	free(cr->guard_file);
	for (size_t i = 0; i < cr->n_guard_files; i++)
		free(cr->guard_files[i]);
	free(cr->guard_files);
	*cr = (struct credentials){0};
}
