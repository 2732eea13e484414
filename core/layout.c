/* SPDX-License-Identifier: MIT */
#include "layout.h"

#include "exec.h"
#include "log.h"
#include "python_env.h"

#include <agentsandbox/plugin.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* coreutils, findutils, grep, sed, awk, diff, which, tar, gzip, less: what a
 * shell session expects to find. `common_tools = false` opts out. */
const char *const layout_common_tools[] = {
    "sh",        "env",   "cat",      "ls",      "cp",      "mv",       "rm",       "mkdir",
    "rmdir",     "ln",    "touch",    "chmod",   "stat",    "readlink", "realpath", "basename",
    "dirname",   "head",  "tail",     "wc",      "sort",    "uniq",     "cut",      "tr",
    "tee",       "echo",  "printf",   "test",    "[",       "true",     "false",    "pwd",
    "date",      "sleep", "id",       "whoami",  "uname",   "mktemp",   "seq",      "yes",
    "expr",      "du",    "df",       "nproc",   "timeout", "paste",    "join",     "comm",
    "split",     "tac",   "nl",       "od",      "base64",  "md5sum",   "sha1sum",  "sha256sum",
    "sha512sum", "cksum", "truncate", "install", "fold",    "fmt",      "shuf",     "numfmt",
    "printenv",  "tty",   "stty",     "nice",    "nohup",   "dd",       "sync",     "find",
    "xargs",     "grep",  "egrep",    "fgrep",   "sed",     "awk",      "diff",     "cmp",
    "diff3",     "sdiff", "which",    "tar",     "gzip",    "gunzip",   "zcat",     "less",
    NULL};

/* Read-only system directories; on merged-/usr hosts the top-level ones are
 * symlinks and are recreated as such. */
static const char *const system_dirs[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                          "/lib32", "/lib64", "/libx32", NULL};

/* The parts of /etc that programs need; the rest (host keys, shadow, sudoers,
 * service configs) stays out. */
static const char *const etc_paths[] = {"/etc/passwd",
                                        "/etc/group",
                                        "/etc/hostname",
                                        "/etc/hosts",
                                        "/etc/resolv.conf",
                                        "/etc/nsswitch.conf",
                                        "/etc/host.conf",
                                        "/etc/gai.conf",
                                        "/etc/services",
                                        "/etc/protocols",
                                        "/etc/localtime",
                                        "/etc/timezone",
                                        "/etc/ssl",
                                        "/etc/ca-certificates",
                                        "/etc/ca-certificates.conf",
                                        "/etc/pki",
                                        "/etc/ld.so.cache",
                                        "/etc/ld.so.conf",
                                        "/etc/ld.so.conf.d",
                                        "/etc/alternatives",
                                        "/etc/bash.bashrc",
                                        "/etc/profile",
                                        "/etc/inputrc",
                                        "/etc/terminfo",
                                        "/etc/os-release",
                                        "/etc/lsb-release",
                                        "/etc/debian_version",
                                        "/etc/mime.types",
                                        "/etc/magic",
                                        "/etc/locale.alias",
                                        "/etc/default/locale",
                                        "/etc/environment",
                                        "/etc/manpath.config",
                                        "/etc/xdg",
                                        "/etc/fonts",
                                        NULL};

/* Host variables that describe the terminal and locale, not the user's
 * secrets: passed through when set. */
static const char *const passthrough_env[] = {"TERM",     "COLORTERM", "LANG",  "LANGUAGE", "TZ",
                                              "NO_COLOR", "COLUMNS",   "LINES", NULL};

static bool is_system_path(const char *path)
{
	for (const char *const *d = system_dirs; *d; d++)
		if (path_is_within(path, *d))
			return true;
	return false;
}

/* What an executable needs beside it: its directory; for a program of a
 * node package (npm installs a CLI as node_modules/PKG/bin/x, its
 * dependencies and native parts in other packages of that tree), the
 * outermost node_modules directory it lies in; for a Python interpreter
 * outside the system directories, its prefix (its standard library). */
static int executable_dir(const char *host_path, char **out)
{
	const char *nm = NULL;
	for (const char *c = host_path; (c = strstr(c, "/node_modules/")); c++)
		if (!nm)
			nm = c;
	if (nm) {
		*out = strndup(host_path, (size_t)(nm - host_path) + strlen("/node_modules"));
		return *out ? 0 : -ENOMEM;
	}
	int r = python_prefix(host_path, out);
	if (r < 0 || *out)
		return r;
	char *dir = strdup(host_path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	*out = dir;
	return dir ? 0 : -ENOMEM;
}

/* `dir`, which `name` (at host_path) needs, bound read-only with exec: not
 * where that would expose the home directory itself, nor again. */
static int bind_exec_dir(struct plan *plan, const struct policy *p, const char *name,
                         const char *host_path, const char *dir, const char *origin)
{
	if (strcmp(dir, "/") == 0 || (p->home && path_is_within(p->home, dir))) {
		err_set("%s: %s lives directly in %s; binding its directory would expose "
		        "it all. Move it into a directory of its own, or declare what it "
		        "needs in ro_dirs and give its absolute path",
		        name, host_path, dir);
		return -EPERM;
	}
	for (size_t i = 0; i < plan->n_entries; i++)
		if (plan->entries[i].host_path && strcmp(plan->entries[i].dest, dir) == 0)
			return 0;
	/* In the workspace it is visible (and writable) already. */
	if (p->workspace.value && path_is_within(dir, p->workspace.value))
		return 0;
	return plan_path(plan, ASB_ENTRY_READ, dir, NULL, ASB_ENTRY_F_EXEC, origin);
}

int layout_add_executable(struct plan *plan, const struct policy *p, const char *name,
                          const char *host_path, const char *origin)
{
	int r;
	if (!is_system_path(host_path)) {
		_cleanup_free_ char *dir = NULL;
		if ((r = executable_dir(host_path, &dir)) < 0 ||
		    (r = bind_exec_dir(plan, p, name, host_path, dir, origin)) < 0)
			return r;
	}
	return plan_add_exec(plan, name, host_path, origin);
}

/* A program of a Python virtual environment (`found`: as found on PATH or
 * given, symlinks not followed): the environment is bound whole, where its
 * packages are, and its interpreter may run (what its programs' #! lines
 * name); *in_venv says so: such a program is started by its own path, from
 * which the interpreter finds its environment. */
static int add_venv(struct plan *plan, const struct policy *p, const char *found,
                    const char *origin, bool *in_venv)
{
	*in_venv = false;
	_cleanup_free_ char *root = NULL;
	int r = python_venv_root(found, &root);
	if (r < 0 || !root)
		return r;
	*in_venv = true;
	/* Under /usr it is visible already: not bound again, nor made all
	 * executable. */
	if (!is_system_path(root) && (r = bind_exec_dir(plan, p, found, found, root, origin)) < 0)
		return r;
	static const char *const names[] = {"python3", "python"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *link = str_printf("%s/bin/%s", root, names[i]);
		char real[PATH_MAX];
		if (!link)
			return -ENOMEM;
		if (!path_real(link, real))
			continue;
		/* Already allowed (the command is the interpreter itself). */
		for (size_t e = 0; e < plan->n_execs; e++)
			if (strcmp(plan->execs[e].target, real) == 0)
				return 0;
		const char *base = strrchr(real, '/') + 1;
		if (plan_find_exec(plan, base))
			return 0;
		return layout_add_executable(plan, p, base, real, origin);
	}
	return 0;
}

static int add_system(struct plan *plan)
{
	int r;
	for (const char *const *d = system_dirs; *d; d++) {
		struct stat st;
		if (lstat(*d, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t len = readlink(*d, target, sizeof(target) - 1);
			if (len < 0)
				return -errno;
			target[len] = '\0';
			r = plan_entry(plan, ASB_ENTRY_SYMLINK, 0, 0, target, *d, NULL, 0, "core");
		} else {
			r = plan_path_unopened(plan, ASB_ENTRY_READ, *d, NULL, 0, "core");
		}
		if (r < 0)
			return r;
	}
	/* By name, when present: root-owned files the sandbox cannot swap. */
	for (const char *const *e = etc_paths; *e; e++) {
		struct stat st;
		if (lstat(*e, &st) == 0 && (r = plan_path_unopened(plan, ASB_ENTRY_READ, *e, NULL,
		                                                   ASB_ENTRY_F_TRY, "core")) < 0)
			return r;
	}
	if ((r = plan_entry(plan, ASB_ENTRY_PROC, 0, 0, NULL, "/proc", NULL, 0, "core")) < 0 ||
	    (r = plan_entry(plan, ASB_ENTRY_DEVFS, 0, 0, NULL, "/dev", NULL, 0, "core")) < 0 ||
	    (r = plan_ephemeral(plan, "/tmp", 01777, "core")) < 0 ||
	    (r = plan_ephemeral(plan, "/var/tmp", 01777, "core")) < 0 ||
	    (r = plan_ephemeral(plan, "/run", 0755, "core")) < 0)
		return r;
	return 0;
}

struct declared {
	const char *path;
	uint32_t type;
	uint32_t flags;
	const char *what;
};

static int cmp_declared(const void *a, const void *b)
{
	const struct declared *x = a, *y = b;
	size_t dx = path_depth(x->path), dy = path_depth(y->path);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Agent-writable roots: a declared path inside one of them must not be a
 * symlink leading out of it, or the agent could plant one before launch. */
static int check_symlink_escape(const struct policy *p, const char *path, const char *what,
                                char real[PATH_MAX])
{
	if (!path_real(path, real))
		return -errno;
	struct {
		const char *root;
	} roots[64];
	size_t n = 0;
	roots[n++].root = p->workspace.value;
	for (size_t i = 0; i < p->rw_dirs.items.n && n < ARRAY_SIZE(roots); i++)
		roots[n++].root = p->rw_dirs.items.v[i];
	for (size_t i = 0; i < n; i++) {
		if (strcmp(roots[i].root, path) == 0 || !path_is_within(path, roots[i].root))
			continue;
		char root_real[PATH_MAX];
		if (!path_real(roots[i].root, root_real))
			continue;
		if (!path_is_within(real, root_real)) {
			err_set("%s: %s is a symlink to %s, outside %s where it lies; declare the "
			        "target itself if that is intended",
			        what, path, real, roots[i].root);
			return -ELOOP;
		}
	}
	return 0;
}

static int add_declared(struct plan *plan, const struct policy *p)
{
	size_t total = p->rw_dirs.items.n + p->rw_files.items.n + p->ro_dirs.items.n +
	               p->ro_files.items.n + p->n_mounts + 1;
	_cleanup_free_ struct declared *d = calloc(total, sizeof(*d));
	if (!d)
		return -ENOMEM;
	size_t n = 0;
	/* The agent may run what it can write (an interpreter would anyway). */
	struct {
		const struct plist *l;
		uint32_t type;
		uint32_t flags;
		const char *what;
	} lists[] = {
	    {&p->ro_dirs, ASB_ENTRY_READ, 0, "sandbox.ro_dirs"},
	    {&p->ro_files, ASB_ENTRY_READ, 0, "sandbox.ro_files"},
	    {&p->rw_dirs, ASB_ENTRY_WRITE, ASB_ENTRY_F_EXEC, "sandbox.rw_dirs"},
	    {&p->rw_files, ASB_ENTRY_WRITE, ASB_ENTRY_F_EXEC, "sandbox.rw_files"},
	};
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < lists[l].l->items.n; i++)
			d[n++] = (struct declared){lists[l].l->items.v[i], lists[l].type,
			                           lists[l].flags, lists[l].what};
	d[n++] =
	    (struct declared){p->workspace.value, ASB_ENTRY_WRITE, ASB_ENTRY_F_EXEC, "workspace"};
	/* Stable parent-first order: a nested declaration covers its parent. */
	qsort(d, n, sizeof(*d), cmp_declared);

	for (size_t i = 0; i < n; i++) {
		char real[PATH_MAX];
		int r = check_symlink_escape(p, d[i].path, d[i].what, real);
		if (r == -ENOENT && strcmp(d[i].what, "sandbox.rw_dirs") == 0) {
			/* Only --show-config/--check get here: a launch creates it first. */
			if ((r = plan_path_unopened(plan, d[i].type, d[i].path, NULL, d[i].flags,
			                            d[i].what)) < 0)
				return r;
			continue;
		}
		if (r < 0) {
			if (r != -ELOOP)
				err_set("%s: %s: %s", d[i].what, d[i].path, strerror(-r));
			return r;
		}
		r = plan_path(plan, d[i].type, d[i].path, NULL, d[i].flags, d[i].what);
		if (r < 0) {
			err_set("%s: cannot open %s: %s", d[i].what, d[i].path, strerror(-r));
			return r;
		}
	}
	/* --mount entries come last: the user asked for them on this launch. */
	for (size_t i = 0; i < p->n_mounts; i++) {
		const struct extra_mount *m = &p->mounts[i];
		int r = plan_path(plan, m->read_only ? ASB_ENTRY_READ : ASB_ENTRY_WRITE, m->source,
		                  m->dest, m->read_only ? 0 : ASB_ENTRY_F_EXEC, "--mount");
		if (r < 0) {
			err_set("--mount %s: %s", m->source, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* Every executable in DIR/bin goes on PATH, under its own name. */
static int add_package_dir(struct plan *plan, const struct policy *p, const char *dir)
{
	_cleanup_free_ char *bin = str_printf("%s/bin", dir);
	if (!bin)
		return -ENOMEM;
	DIR *d = opendir(bin);
	if (!d) {
		err_set("sandbox.packages: %s is a directory without a bin/ directory (%s)", dir,
		        strerror(errno));
		return -ENOENT;
	}
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d)) && r >= 0) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *cand = str_printf("%s/%s", bin, de->d_name);
		_cleanup_free_ char *real = NULL;
		if (!cand) {
			r = -ENOMEM;
			break;
		}
		if (exec_find(cand, NULL, true, &real) < 0)
			continue;
		r = layout_add_executable(plan, p, de->d_name, real, "sandbox.packages");
	}
	closedir(d);
	return r;
}

/* The common set comes from the system's /usr/bin (then /bin), not the
 * caller's PATH: one stat per tool by name. (Reading the directory instead
 * costs more: /usr/bin has ~1,400 entries, and ext4 hashes every one of
 * them on each read.) A symlink (awk, sh, which) is followed to the file
 * it names, which is what is bound. */
static int add_common_tool(struct plan *plan, const struct policy *p, int dfd, const char *dir,
                           const char *name)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	bool link = S_ISLNK(st.st_mode);
	if (link && fstatat(dfd, name, &st, 0) < 0)
		return 0;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return 0;
	_cleanup_free_ char *path = str_printf("%s/%s", dir, name);
	if (!path)
		return -ENOMEM;
	char real[PATH_MAX];
	if (link && !path_real(path, real))
		return 0;
	return layout_add_executable(plan, p, name, link ? real : path, "common_tools");
}

static int add_common_tools(struct plan *plan, const struct policy *p)
{
	static const char *const dirs[] = {"/usr/bin", "/bin"};
	int r;
	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		char dir_real[PATH_MAX];
		/* Merged /usr: /bin is /usr/bin, look there once. */
		if (d > 0 && path_real(dirs[d], dir_real) && strcmp(dir_real, dirs[0]) == 0)
			continue;
		_cleanup_close_ int dfd = open(dirs[d], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			continue;
		/* A name already on PATH (the command, bash, or found in /usr/bin)
		 * keeps its first binary: no need to look again. */
		for (const char *const *t = layout_common_tools; *t; t++)
			if (!plan_find_exec(plan, *t) &&
			    (r = add_common_tool(plan, p, dfd, dirs[d], *t)) < 0)
				return r;
	}
	return 0;
}

static int add_executables(struct plan *plan, const struct policy *p, bool shell,
                           const char *search_path, char **command_path)
{
	int r;
	_cleanup_free_ char *bash = NULL;
	if ((r = exec_find("bash", search_path, true, &bash)) < 0) {
		err_set("bash was not found on PATH; it is always part of the sandbox");
		return r;
	}
	/* --shell gets the very same sandbox: the agent's command is on PATH too. */
	if (p->command.value) {
		const char *cmd = p->command.value;
		_cleanup_free_ char *path = NULL;
		r = exec_find(cmd, search_path, true, &path);
		if (r < 0) {
			if (p->command.source == SRC_FILE)
				err_set("%s:%d: sandbox.command: \"%s\" %s", p->config_file,
				        p->command.line, cmd,
				        r == -ENOENT ? "was not found on PATH" : strerror(-r));
			else
				err_set("command \"%s\" %s", cmd,
				        r == -ENOENT ? "was not found on PATH" : strerror(-r));
			return r;
		}
		const char *base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
		if ((r = layout_add_executable(plan, p, base, path, "sandbox.command")) < 0)
			return r;
		_cleanup_free_ char *found = NULL;
		bool in_venv = false;
		if ((r = exec_find(cmd, search_path, false, &found)) < 0 ||
		    (r = add_venv(plan, p, found, "sandbox.command", &in_venv)) < 0)
			return r;
		*command_path = in_venv ? TAKE_PTR(found) : str_printf("%s/%s", PLAN_BIN_DIR, base);
		if (!*command_path)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->packages.items.n; i++) {
		/* "rg?" is optional: used when installed, skipped (and logged) if not. */
		_cleanup_free_ char *name = strdup(p->packages.items.v[i]);
		if (!name)
			return -ENOMEM;
		size_t len = strlen(name);
		bool optional = len > 1 && name[len - 1] == '?';
		if (optional)
			name[len - 1] = '\0';
		_cleanup_free_ char *path = NULL;
		r = exec_find(name, search_path, true, &path);
		if (r == -EISDIR) {
			/* A package directory (a Nix store path, a prefix): its bin/. */
			if ((r = add_package_dir(plan, p, name)) < 0)
				return r;
			continue;
		}
		if (r == -ENOENT && optional) {
			log_msg(LOG_INFO, "optional package %s is not installed: skipped", name);
			continue;
		}
		if (r < 0) {
			err_set("%s:%d: sandbox.packages: \"%s\" %s%s",
			        p->config_file ? p->config_file : "(config)",
			        p->packages.item_lines && p->packages.item_lines[i]
			            ? p->packages.item_lines[i]
			            : p->packages.line,
			        name, r == -ENOENT ? "was not found on PATH" : strerror(-r),
			        r == -ENOENT ? " (write \"NAME?\" for one that may be missing)"
			                     : "");
			return r;
		}
		const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		if ((r = layout_add_executable(plan, p, base, path, "sandbox.packages")) < 0)
			return r;
		_cleanup_free_ char *found = NULL;
		bool in_venv = false;
		if ((r = exec_find(name, search_path, false, &found)) < 0 ||
		    (r = add_venv(plan, p, found, "sandbox.packages", &in_venv)) < 0)
			return r;
	}
	if ((r = layout_add_executable(plan, p, "bash", bash, "core")) < 0)
		return r;
	if (p->common_tools.value && (r = add_common_tools(plan, p)) < 0)
		return r;
	return 0;
}

static int add_env(struct plan *plan, const struct policy *p, expand_lookup_fn lookup, void *ud)
{
	int r;
	if ((r = plan_setenv(plan, "HOME", p->home)) < 0 ||
	    (r = plan_setenv(plan, "USER", p->user)) < 0 ||
	    (r = plan_setenv(plan, "LOGNAME", p->user)) < 0 ||
	    (r = plan_setenv(plan, "PATH", PLAN_BIN_DIR)) < 0 ||
	    (r = plan_setenv(plan, "SHELL", PLAN_BIN_DIR "/bash")) < 0 ||
	    (r = plan_setenv(plan, "TMPDIR", "/tmp")) < 0)
		return r;
	for (const char *const *k = passthrough_env; *k; k++) {
		const char *v = lookup(*k, ud);
		if (v && (r = plan_setenv(plan, *k, v)) < 0)
			return r;
	}
	/* LC_* describe the locale only. */
	extern char **environ;
	for (char **e = environ; lookup == expand_lookup_environ && *e; e++) {
		if (!str_has_prefix(*e, "LC_"))
			continue;
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		_cleanup_free_ char *key = strndup(*e, (size_t)(eq - *e));
		if (!key || (r = plan_setenv(plan, key, eq + 1)) < 0)
			return key ? r : -ENOMEM;
	}
	if (!plan_getenv(plan, "TERM") && (r = plan_setenv(plan, "TERM", "dumb")) < 0)
		return r;
	for (size_t i = 0; i < p->n_env; i++) {
		const struct env_entry *e = &p->env[i];
		if (!e->value) {
			log_msg(LOG_INFO, "env %s expands to nothing: left unset", e->key);
			(void)plan_unsetenv(plan, e->key);
			continue;
		}
		if ((r = plan_setenv(plan, e->key, e->value)) < 0)
			return r;
	}
	return 0;
}

/* `dir` (resolved) is $HOME, /, or an ancestor of $HOME: binding it
 * exposes every file of the home directory. $HOME itself may be a symlink
 * (/home/u -> /data/u): both spellings count. */
static bool covers_home(const struct policy *p, const char *dir)
{
	if (!p->home || !dir)
		return false;
	if (path_is_within(p->home, dir))
		return true;
	char home_real[PATH_MAX];
	return path_real(p->home, home_real) && path_is_within(home_real, dir);
}

bool layout_workspace_exposes_home(const struct policy *p)
{
	char real[PATH_MAX];
	return covers_home(p, p->workspace.value) ||
	       (path_real(p->workspace.value, real) && covers_home(p, real));
}

/* One declared directory: as written, then resolved (a symlink to $HOME
 * covers it as much as $HOME does). */
static bool check_one(const struct policy *p, const char *what, const char *path,
                      struct home_exposure *e)
{
	char real[PATH_MAX];
	bool resolved = path_real(path, real) != NULL;
	if (!covers_home(p, path) && !(resolved && covers_home(p, real)))
		return false;
	snprintf(e->what, sizeof(e->what), "%s", what);
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->real, sizeof(e->real), "%s", resolved ? real : path);
	return true;
}

char *layout_home_exposure_text(const struct policy *p, const struct home_exposure *e)
{
	bool via = strcmp(e->path, e->real) != 0;
	return str_printf("%s %s%s%s%s contains your home directory %s", e->what, e->path,
	                  via ? " resolves to " : "", via ? e->real : "", via ? ", which" : "",
	                  p->home);
}

bool layout_home_exposure(const struct policy *p, struct home_exposure *e)
{
	if (check_one(p, "the workspace", p->workspace.value, e))
		return true;
	const struct {
		const struct plist *l;
		const char *what;
	} lists[] = {{&p->rw_dirs, "sandbox.rw_dirs"}, {&p->ro_dirs, "sandbox.ro_dirs"}};
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < lists[l].l->items.n; i++) {
			char what[64];
			if (lists[l].l->source == SRC_FILE && p->config_file)
				snprintf(what, sizeof(what), "%s[%zu] (line %d)", lists[l].what, i,
				         lists[l].l->line);
			else
				snprintf(what, sizeof(what), "%s[%zu]", lists[l].what, i);
			if (check_one(p, what, lists[l].l->items.v[i], e))
				return true;
		}
	for (size_t i = 0; i < p->n_mounts; i++) {
		struct stat st;
		if (stat(p->mounts[i].source, &st) == 0 && S_ISDIR(st.st_mode) &&
		    check_one(p, "--mount", p->mounts[i].source, e))
			return true;
	}
	return false;
}

int layout_build(struct plan *plan, const struct policy *p, bool shell, expand_lookup_fn lookup,
                 void *ud)
{
	int r;
	if ((r = add_system(plan)) < 0)
		return r;
	/* The ephemeral home: the real path, empty, discarded at exit. */
	if ((r = plan_ephemeral(plan, p->home, 0700, "core")) < 0)
		return r;
	if ((r = add_declared(plan, p)) < 0)
		return r;
	_cleanup_free_ char *command_path = NULL;
	if ((r = add_executables(plan, p, shell, lookup("PATH", ud), &command_path)) < 0)
		return r;
	if ((r = add_env(plan, p, lookup, ud)) < 0)
		return r;
	if (shell) {
		/* A prompt that says where it is (Debian's bash.bashrc sets its own
		 * PS1, prefixed with "($debian_chroot)"). */
		if ((r = plan_setenv(plan, "PS1", "(agentsandbox) \\u@\\h:\\w\\$ ")) < 0 ||
		    (r = plan_setenv(plan, "debian_chroot", "agentsandbox")) < 0)
			return r;
		if ((r = strv_push(&plan->argv, PLAN_BIN_DIR "/bash")) < 0)
			return r;
		for (size_t i = 0; i < p->agent_args.n; i++)
			if ((r = strv_push(&plan->argv, p->agent_args.v[i])) < 0)
				return r;
	} else {
		if ((r = strv_push(&plan->argv, command_path)) < 0)
			return r;
		for (size_t i = 0; i < p->args.items.n; i++)
			if ((r = strv_push(&plan->argv, p->args.items.v[i])) < 0)
				return r;
		for (size_t i = 0; i < p->agent_args.n; i++)
			if ((r = strv_push(&plan->argv, p->agent_args.v[i])) < 0)
				return r;
	}
	plan->chdir = strdup(p->workspace.value);
	return plan->chdir ? 0 : -ENOMEM;
}

int layout_create_rw_dirs(const struct policy *p)
{
	for (size_t i = 0; i < p->rw_dirs.items.n; i++) {
		const char *d = p->rw_dirs.items.v[i];
		struct stat st;
		if (stat(d, &st) == 0)
			continue;
		int r = mkdir_p(d, 0700);
		if (r < 0) {
			err_set("sandbox.rw_dirs: cannot create %s: %s", d, strerror(-r));
			return r;
		}
		log_msg(LOG_INFO, "created missing rw dir %s (mode 0700)", d);
	}
	return 0;
}
