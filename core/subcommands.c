/* SPDX-License-Identifier: MIT */
#include "subcommands.h"

#include "allowlist.h"
#include "loader.h"
#include "log.h"
#include "netrules.h"
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>

static int cmp_desc(const void *a, const void *b)
{
	return -strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(const char *dir, bool want_dirs, const char *suffix, struct strv *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d)) && r >= 0) {
		if (de->d_name[0] == '.')
			continue;
		size_t n = strlen(de->d_name), s = suffix ? strlen(suffix) : 0;
		if (suffix && (n <= s || strcmp(de->d_name + n - s, suffix) != 0))
			continue;
		if (want_dirs && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		r = strv_push(out, de->d_name);
	}
	closedir(d);
	return r;
}

/* What launch.log and network.json say about a finished or running session. */
struct session_info {
	char name[256];
	char time[32]; /* "2026-12-01 10:04:56" */
	char command[256];
	char network[16];
	int status;   /* exit status, -1 unknown */
	bool failed;  /* setup failure (125) */
	bool running; /* its launcher holds the lock */
};

static void read_info(const char *dir, const char *entry, struct session_info *si)
{
	*si = (struct session_info){.status = -1};
	/* <YYYYMMDD>T<HHMMSS>.<ms>Z-<pid>-<name> */
	const char *t = entry;
	if (strlen(t) >= 15 && t[8] == 'T')
		snprintf(si->time, sizeof(si->time), "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", t, t + 4,
		         t + 6, t + 9, t + 11, t + 13);
	const char *dash = strchr(entry, '-');
	const char *dash2 = dash ? strchr(dash + 1, '-') : NULL;
	snprintf(si->name, sizeof(si->name), "%s", dash2 ? dash2 + 1 : entry);
	_cleanup_free_ char *lock = str_printf("%s/%s/.lock", dir, entry);
	_cleanup_close_ int fd = lock ? open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW) : -1;
	si->running = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0;
	_cleanup_free_ char *logp = str_printf("%s/%s/launch.log", dir, entry);
	_cleanup_free_ char *text = NULL;
	if (logp && read_file(logp, &text, NULL) >= 0) {
		char *save = NULL;
		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			const char *v;
			int n;
			if ((v = strstr(line, " info: command: ")))
				snprintf(si->command, sizeof(si->command), "%s", v + 16);
			else if ((v = strstr(line, " info: exit status ")) &&
			         sscanf(v + 19, "%d", &n) == 1)
				si->status = n;
			else if ((v = strstr(line, ": exit status ")) &&
			         strstr(line, "ended by signal") && sscanf(v + 14, "%d", &n) == 1)
				si->status = n;
			else if (strstr(line, " error: launch failed: ") ||
			         strstr(line, " error: the ") /* failed before the agent started */)
				si->failed = true;
		}
	}
	_cleanup_free_ char *netp = str_printf("%s/%s/network.json", dir, entry);
	_cleanup_free_ char *net = NULL;
	const char *m;
	if (netp && read_file(netp, &net, NULL) >= 0 && (m = strstr(net, "\"mode\": \"")))
		snprintf(si->network, sizeof(si->network), "%.*s", (int)strcspn(m + 9, "\""),
		         m + 9);
	else
		snprintf(si->network, sizeof(si->network), "off");
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void status_text(const struct session_info *si, char *buf, size_t len)
{
	if (si->running)
		snprintf(buf, len, "running");
	else if (si->failed)
		snprintf(buf, len, "setup failed");
	else if (si->status >= 0)
		snprintf(buf, len, "exit %d", si->status);
	else
		snprintf(buf, len, "unknown");
}

int subcommand_sessions(const struct policy *p, int format, FILE *out)
{
	_cleanup_free_ char *root = NULL;
	if (session_root(getenv("XDG_STATE_HOME"), p->home, &root) < 0)
		return 125;
	struct strv names = {0};
	int r = list_dir(root, true, NULL, &names);
	if (r < 0 && r != -ENOENT) {
		fprintf(stderr, "agentsandbox: %s: %s\n", root, strerror(-r));
		return 125;
	}
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(char *), cmp_desc);
	if (format == SESSIONS_LAST) {
		if (names.n == 0) {
			fprintf(stderr, "agentsandbox: no session under %s yet\n", root);
			strv_clear(&names);
			return 1;
		}
		fprintf(out, "%s/%s\n", root, names.v[0]);
		strv_clear(&names);
		return 0;
	}
	if (format == SESSIONS_JSON)
		fputs("[", out);
	else if (format == SESSIONS_HUMAN && names.n)
		fprintf(out, "%-19s  %-16s  %-16s  %-8s  %-12s  %s\n", "STARTED", "NAME", "COMMAND",
		        "NETWORK", "STATUS", "DIRECTORY");
	for (size_t i = 0; i < names.n; i++) {
		if (format == SESSIONS_PATHS) {
			fprintf(out, "%s/%s\n", root, names.v[i]);
			continue;
		}
		struct session_info si;
		read_info(root, names.v[i], &si);
		char st[32];
		status_text(&si, st, sizeof(st));
		_cleanup_free_ char *path = str_printf("%s/%s", root, names.v[i]);
		if (!path)
			break;
		if (format == SESSIONS_JSON) {
			fputs(i ? ",\n  { \"path\": " : "\n  { \"path\": ", out);
			json_string(out, path);
			fputs(", \"started\": ", out);
			json_string(out, si.time);
			fputs(", \"name\": ", out);
			json_string(out, si.name);
			fputs(", \"command\": ", out);
			json_string(out, si.command);
			fputs(", \"network\": ", out);
			json_string(out, si.network);
			fprintf(out, ", \"running\": %s, \"setup_failed\": %s, \"exit_status\": ",
			        si.running ? "true" : "false", si.failed ? "true" : "false");
			if (si.status >= 0 && !si.running)
				fprintf(out, "%d }", si.status);
			else
				fputs("null }", out);
			continue;
		}
		_cleanup_free_ char *name = log_escape(si.name);
		_cleanup_free_ char *cmd = log_escape(si.command[0] ? si.command : "?");
		fprintf(out, "%-19s  %-16s  %-16s  %-8s  %-12s  %s\n", si.time, name ? name : "?",
		        cmd ? cmd : "?", si.network, st, path);
	}
	if (format == SESSIONS_JSON)
		fputs(names.n ? "\n]\n" : "]\n", out);
	strv_clear(&names);
	return 0;
}

int subcommand_plugins(const struct catalog *plugins, FILE *out)
{
	int bad = 0;
	for (size_t i = 0; i < plugins->n; i++) {
		const struct found_plugin *f = &plugins->v[i];
		if (!f->desc) {
			fprintf(out, "%-10s %s\n           error: %s\n", f->name, f->path,
			        f->error ? f->error : "cannot load");
			bad++;
			continue;
		}
		static const char *const rules[] = {"loads on demand", "loads by default",
		                                    "loads when present"};
		fprintf(out, "%-10s %s %s, ABI %u.%u, %s, %s\n           %s\n", f->name,
		        f->desc->kind & ASB_KIND_BACKEND ? "backend" : "feature",
		        f->desc->version ? f->desc->version : "?", f->desc->abi_major,
		        f->desc->abi_minor, f->path,
		        f->desc->kind & ASB_KIND_BACKEND ? "selected with --backend"
		                                         : rules[f->desc->load],
		        f->desc->description ? f->desc->description : "");
	}
	return bad ? 1 : 0;
}

/* SESSION: a directory (with a '/'), a session directory's name, or a
 * session name (sandbox.name: the newest of that name); NULL: the newest
 * session with a proxy.log. A new string, or NULL with a message printed. */
static char *find_session(const char *root, const char *session)
{
	if (session && strchr(session, '/'))
		return strdup(session);
	struct strv names = {0};
	(void)list_dir(root, true, NULL, &names);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(char *), cmp_desc);
	char *found = NULL;
	for (size_t i = 0; i < names.n && !found; i++) {
		const char *n = names.v[i];
		const char *dash = strchr(n, '-');
		const char *name = dash ? strchr(dash + 1, '-') : NULL;
		bool match =
		    !session || strcmp(n, session) == 0 || (name && strcmp(name + 1, session) == 0);
		_cleanup_free_ char *cand = str_printf("%s/%s", root, n);
		_cleanup_free_ char *log = str_printf("%s/%s/proxy.log", root, n);
		if (match && cand && log && (session || access(log, R_OK) == 0))
			found = TAKE_PTR(cand);
	}
	strv_clear(&names);
	if (!found && !session)
		fprintf(stderr,
		        "agentsandbox: no session under %s has a proxy.log (run one with "
		        "network.allowed_domains set, e.g. ( \"*\" ))\n",
		        root);
	else if (!found)
		fprintf(stderr,
		        "agentsandbox: no session %s under %s (give a directory, its name, or the "
		        "session's name: see agentsandbox sessions)\n",
		        session, root);
	return found;
}

int subcommand_allowlist(const struct policy *p, const char *session, FILE *out)
{
	_cleanup_free_ char *root = NULL;
	if (session_root(getenv("XDG_STATE_HOME"), p->home, &root) < 0)
		return 125;
	_cleanup_free_ char *dir = find_session(root, session);
	if (!dir)
		return 125;
	_cleanup_free_ char *log = str_printf("%s/proxy.log", dir);
	_cleanup_free_ char *rules_file = str_printf("%s/allowed_domains.cfg", dir);
	if (!log || !rules_file)
		return 125;
	FILE *in = fopen(log, "re");
	if (!in) {
		fprintf(stderr, "agentsandbox: %s: %s\n", log, strerror(errno));
		return 125;
	}
	/* The entries the session ran with, merged (a session from before they
	 * were recorded: derived alone). */
	struct netrules *rules = NULL;
	char err[512] = "";
	if (access(rules_file, R_OK) == 0 &&
	    netrules_load_file(rules_file, &rules, err, sizeof(err)) < 0) {
		fprintf(stderr, "agentsandbox: %s: %s\n", rules_file, err);
		fclose(in);
		return 125;
	}
	fprintf(stderr, "agentsandbox: reading session %s\n", dir);
	int r = allowlist_derive_merged(in, out, log, rules);
	fclose(in);
	netrules_free(rules);
	return r < 0 ? 125 : 0;
}
