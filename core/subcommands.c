/* SPDX-License-Identifier: MIT */
#include "subcommands.h"

#include "allowlist.h"
#include "loader.h"
#include "log.h"
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

int subcommand_sessions(const struct policy *p, FILE *out)
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
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *lock = str_printf("%s/%s/.lock", root, names.v[i]);
		_cleanup_close_ int fd = lock ? open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW) : -1;
		bool running = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0;
		fprintf(out, "%s/%s%s\n", root, names.v[i], running ? "  (running)" : "");
	}
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

int subcommand_allowlist(const struct policy *p, const char *session, FILE *out)
{
	_cleanup_free_ char *root = NULL, *log = NULL;
	if (session_root(getenv("XDG_STATE_HOME"), p->home, &root) < 0)
		return 125;
	if (session && strchr(session, '/')) {
		log = str_printf("%s/proxy.log", session);
	} else if (session) {
		log = str_printf("%s/%s/proxy.log", root, session);
	} else {
		/* The newest session that went through the proxy. */
		struct strv names = {0};
		(void)list_dir(root, true, NULL, &names);
		if (names.n > 1)
			qsort(names.v, names.n, sizeof(char *), cmp_desc);
		for (size_t i = 0; i < names.n && !log; i++) {
			_cleanup_free_ char *cand = str_printf("%s/%s/proxy.log", root, names.v[i]);
			if (cand && access(cand, R_OK) == 0)
				log = TAKE_PTR(cand);
		}
		strv_clear(&names);
		if (!log) {
			fprintf(stderr,
			        "agentsandbox: no session under %s has a proxy.log (run one with "
			        "network.allowed_domains set, e.g. ( \"*\" ))\n",
			        root);
			return 125;
		}
	}
	if (!log)
		return 125;
	FILE *in = fopen(log, "re");
	if (!in) {
		fprintf(stderr, "agentsandbox: %s: %s\n", log, strerror(errno));
		return 125;
	}
	int r = allowlist_derive(in, out, log);
	fclose(in);
	return r < 0 ? 125 : 0;
}
