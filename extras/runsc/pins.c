/* SPDX-License-Identifier: MIT */
/* The pinned-path guarantee without fd binds. runsc's gofer opens mount
 * sources by name, in a pid namespace of its own (a /proc/self/fd/N source
 * names the gofer's fds, not ours), so between the core's check and the
 * mount a path could be swapped. While the sandbox is held, before the agent
 * runs, every pinned entry is looked at where the gofer mounted it
 * (/proc/GOFER/root/DEST) and compared with the object the core checked
 * (device and inode): the same, or the launch stops. */
#include "runsc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (comm) S PPID ...": comm may hold anything but the last ')'. */
	char *p = strrchr(buf, ')');
	int ppid;
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : -1;
}

static bool argv0_is(pid_t pid, const char *argv0)
{
	char path[64], buf[PATH_MAX];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, argv0) == 0;
}

/* Below `ancestor` (a few levels: runsc --rootless runs itself again in a
 * user namespace first), the process whose argv[0] is `argv0`. */
static pid_t descendant_named(pid_t ancestor, const char *argv0)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	pid_t found = -ESRCH;
	struct dirent *e;
	while (found < 0 && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		if (!argv0_is(pid, argv0))
			continue;
		pid_t up = pid;
		for (int depth = 0; depth < 4 && up > 1 && found < 0; depth++)
			if ((up = parent_of(up)) == ancestor)
				found = pid;
	}
	closedir(d);
	return found;
}

int pins_verify(const struct asb_host *host, struct asb_ctx *ctx, const struct runsc *rs)
{
	size_t pinned = 0;
	for (size_t i = 0; i < rs->view.n; i++)
		pinned += rs->view.v[i].pinned;
	if (!pinned)
		return 0;
	pid_t gofer = descendant_named(rs->keeper, "runsc-gofer");
	if (gofer < 0) {
		host->log(ctx, ASB_LOG_ERROR,
		          "runsc: cannot find its gofer, to check the pinned paths: %s",
		          strerror(-gofer));
		return gofer;
	}
	size_t checked = 0;
	for (size_t i = 0; i < rs->view.n; i++) {
		const struct item *it = &rs->view.v[i];
		if (!it->pinned)
			continue;
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "/proc/%d/root%s", (int)gofer, it->dest) >=
		    (int)sizeof(path))
			return -ENAMETOOLONG;
		struct stat st;
		int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int r = fd < 0 || fstat(fd, &st) < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
		if (r == 0 && (st.st_dev != it->dev || st.st_ino != it->ino))
			r = -ESTALE;
		if (r < 0) {
			host->log(ctx, ASB_LOG_ERROR,
			          "runsc: %s (asked by %s) is not, inside, the object that was "
			          "checked as %s: %s; it changed in between, the launch stops",
			          it->dest, it->origin, it->source,
			          r == -ESTALE ? "another file" : strerror(-r));
			return r;
		}
		checked++;
	}
	host->log(ctx, ASB_LOG_INFO,
	          "runsc: the %zu pinned paths are, inside, the objects that were checked",
	          checked);
	return 0;
}
