/* SPDX-License-Identifier: MIT */
#include "closure.h"
#include "errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A closure listing larger than this is not a package, it is a mistake. */
#define CLOSURE_MAX_BYTES (16u << 20)

size_t nix_store_path_len(const char *path)
{
	static const char prefix[] = NIX_STORE_DIR "/";
	size_t n = sizeof(prefix) - 1;

	if (strncmp(path, prefix, n) != 0)
		return 0;
	size_t name = strcspn(path + n, "/");
	/* <32-char hash>-<name>; "." and ".." never qualify. */
	if (name < 34 || path[n + 32] != '-')
		return 0;
	return n + name;
}

int nix_strv_add_unique(struct strv *s, const char *str, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], str, len) == 0)
			return 0;
	int r = strv_push_take(s, strndup(str, len));
	return r < 0 ? r : 1;
}

int nix_closure_add(const char *nix_store_bin, const char *store_path, char *const *envp,
                    struct strv *out, char *err, size_t err_len)
{
	int pipefd[2];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, r;
	char *const argv[] = {(char *)nix_store_bin, (char *)"-qR", (char *)"--",
	                      (char *)store_path, NULL};

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	_cleanup_close_ int rd = pipefd[0];
	_cleanup_close_ int wr = pipefd[1];
	_cleanup_close_ int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		return -errno;
	r = posix_spawn_file_actions_init(&fa);
	if (r != 0)
		return -r;
	r = posix_spawn_file_actions_adddup2(&fa, devnull, 0);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, wr, 1);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, devnull, 2);
	if (r == 0)
		r = posix_spawn(&pid, nix_store_bin, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		set_err(err, err_len, "cannot run %s: %s", nix_store_bin, strerror(r));
		return -r;
	}
	close(wr);
	wr = -1;

	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;
	int rerr = 0;
	for (;;) {
		if (cap - len < 4096) {
			char *nb = cap >= CLOSURE_MAX_BYTES ? NULL : realloc(buf, cap + 65536);
			if (nb == NULL) {
				rerr = cap >= CLOSURE_MAX_BYTES ? -E2BIG : -ENOMEM;
				break;
			}
			buf = nb;
			cap += 65536;
		}
		ssize_t n = read(rd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rerr = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(rd);
	rd = -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (rerr < 0)
		return rerr;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		set_err(err, err_len, "%s -qR %s failed (exit status %d)", nix_store_bin,
		        store_path,
		        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -EIO;
	}
	buf[len] = '\0';
	for (char *line = buf; *line != '\0';) {
		char *nl = strchr(line, '\n');
		size_t l = nl == NULL ? strlen(line) : (size_t)(nl - line);
		if (l > 0) {
			/* Only whole store paths: anything else is not nix-store talking. */
			char save = line[l];
			line[l] = '\0';
			size_t sp = nix_store_path_len(line);
			line[l] = save;
			if (sp != l) {
				set_err(err, err_len,
				        "%s printed something that is not a store path",
				        nix_store_bin);
				return -EPROTO;
			}
			if ((r = nix_strv_add_unique(out, line, l)) < 0)
				return r;
		}
		line = nl == NULL ? line + l : nl + 1;
	}
	return 0;
}
