/* SPDX-License-Identifier: MIT */
#include "profiles.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int profiles_create(struct profiles *p, const char *parent)
{
	return rundir_create(&p->run, parent, "browsers");
}

char *profiles_path(const struct profiles *p, const char *rel, bool mkdir_it)
{
	if (!p->run.dir)
		return NULL;
	char *path = str_printf("%s/%s", p->run.dir, rel);
	if (path && mkdir_it && mkdir_p(path, 0700) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

int profiles_write(const struct profiles *p, const char *rel, const char *text)
{
	_cleanup_free_ char *path = profiles_path(p, rel, false);
	if (!path)
		return -ENOMEM;
	_cleanup_close_ int fd =
	    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	return write_all(fd, text, strlen(text));
}

void profiles_remove(struct profiles *p)
{
	/* rundir_remove does not follow what the agent left in the bound
	 * subdirectories (links included): it is removed, never followed. */
	rundir_remove(&p->run);
}

static int certutil(const struct asb_host *host, struct asb_ctx *ctx, const char *const *argv)
{
	int wstatus = 0;
	int r = host->run_program(ctx, argv, NULL, &wstatus, NULL, 0);
	if (r < 0)
		return r;
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
		host->log(ctx, ASB_LOG_ERROR, "%s %s failed (%s %d; its output is in launch.log)",
		          argv[0], argv[1], WIFEXITED(wstatus) ? "status" : "signal",
		          WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
		return -EIO;
	}
	return 0;
}

int nssdb_trust_ca(const struct asb_host *host, struct asb_ctx *ctx, const char *tool,
                   const char *dir, const char *ca)
{
	_cleanup_free_ char *db = str_printf("sql:%s", dir);
	if (!db)
		return -ENOMEM;
	/* An empty password: the browser opens it without asking. "C,,": a CA
	 * for server certificates (not mail, not code signing). */
	const char *const create[] = {tool, "-N", "-d", db, "--empty-password", NULL};
	const char *const add[] = {tool, "-A",  "-d", db,   "-n", "agentsandbox session CA",
	                           "-t", "C,,", "-a", "-i", ca,   NULL};
	int r = certutil(host, ctx, create);
	return r < 0 ? r : certutil(host, ctx, add);
}
