/* SPDX-License-Identifier: MIT */
/* The one set of small helpers shared by the core, the platform libraries
 * and the in-tree plugins (never by third-party plugins, which see only the
 * public header): scoped cleanup, ownership transfer, string vectors, paths,
 * whole-file I/O, and close-on-exec descriptors where the system has no
 * atomic flag. Portable C. */
#ifndef ASB_COMMON_UTIL_H
#define ASB_COMMON_UTIL_H

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(f)       __attribute__((cleanup(f)))
#define _cleanup_free_     _cleanup_(freep)
#define _cleanup_close_    _cleanup_(closep)
#define _cleanup_closedir_ _cleanup_(closedirp)
#define _cleanup_fclose_   _cleanup_(fclosep)
#define _printf_(a, b)     __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)      (sizeof(a) / sizeof((a)[0]))

/* Hand ownership over: returns the value and leaves the variable empty. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p = (p);                                                            \
		(p) = NULL;                                                                        \
		_p;                                                                                \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_fd;                                                                               \
	})

/* A growable NULL-terminated vector of owned strings. */
struct strv {
	char **v;
	size_t n;
	size_t cap;
};

int strv_push(struct strv *s, const char *str);
int strv_push_take(struct strv *s, char *str);
bool strv_contains(const struct strv *s, const char *str);
void strv_clear(struct strv *s);

/* asprintf that returns NULL on failure. */
char *str_printf(const char *fmt, ...) _printf_(1, 2);
char *str_vprintf(const char *fmt, va_list ap) _printf_(1, 0);

bool str_has_prefix(const char *s, const char *prefix);
/* True when `path` equals `dir` or lies below it (component-wise). */
bool path_is_within(const char *path, const char *dir);
/* "dir/name", with no second '/' after a dir that ends in one; NULL when
 * out of memory. No printf: the scans join thousands a launch. */
char *path_join(const char *dir, const char *name);
/* Sorted so that a path's descendants follow it, without those another of
 * them holds (duplicates included): what is left holds the same paths. */
void strv_keep_outermost(struct strv *paths);
/* `src` written to `dst` with runs of '/' made one, "." components dropped
 * and no trailing '/' ("/" stays "/"): the same place, spelt one way, so that
 * two spellings compare equal. ".." is kept (it is not lexical across a
 * symlink). dst holds strlen(src) + 1 bytes and may be src; the length. */
size_t path_normalize(char *dst, const char *src);
/* Number of '/'-separated components, for ordering mounts parent-first. */
size_t path_depth(const char *path);
/* realpath(3), same contract (resolved NULL: allocated; NULL and errno on
 * failure), in three system calls where the kernel names an O_PATH
 * descriptor in /proc/self/fd: glibc's realpath reads a link per component
 * of the path. realpath itself where that name is not to be had. */
char *path_real(const char *path, char *resolved);

/* FNV-1a, 64 bits, over n bytes, continuing from h (HASH_SEED to start):
 * names for caches of the user's own, not a defence against collisions. */
#define HASH_SEED 0xcbf29ce484222325ULL
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);

/* Write all of buf to fd, retrying on EINTR/short writes. */
/* "<the directory holding session_dir>/.PLUGIN-KIND": where a plugin keeps
 * what outlives a session, beside the sessions (malloc'd; NULL without
 * memory or a parent). */
char *state_sibling(const char *session_dir, const char *plugin, const char *kind);

int write_all(int fd, const void *buf, size_t len);
/* Replace `path` with buf, 0600, all or nothing: written to a file of this
 * process's beside it, the old one removed, then renamed into place
 * (readers see the old, the new or none, never a part). For caches only,
 * which may be missing: a rename over an existing file makes ext4 write the
 * new one's blocks out then and there (auto_da_alloc, for editors that save
 * without fsync), 0.2-1.3 ms here against ~0.1 ms for unlink and rename. */
int write_file_replace(const char *path, const void *buf, size_t len);
/* Read a whole (small) file into a NUL-terminated buffer. */
int read_file(const char *path, char **out, size_t *len_out);
/* A regular file's whole content from fd, in one buffer of its exact size
 * (growing one would leave copies of a secret behind), NUL-terminated:
 * -EISDIR, -EINVAL (not a regular file), -EFBIG (larger than max). */
int read_regular_fd(int fd, size_t max, char **out, size_t *len_out);
/* Recursively remove a directory tree without following symlinks. */
int rm_rf(const char *path);
/* mkdir -p with mode for the created components. */
int mkdir_p(const char *path, unsigned mode);

/* Close-on-exec descriptors, atomically where the system can (pipe2,
 * SOCK_CLOEXEC, accept4), else set right after creation. Non-blocking on
 * request. Return the fd (pipe: 0) or -errno. */
int pipe_cloexec(int fds[2]);
int socket_cloexec(int domain, int type, bool nonblock);
int accept_cloexec(int fd, bool nonblock);

/* Every fd from `lowfd` up: close-on-exec (what this process inherited and
 * must not hand on). */
int fds_cloexec_from(int lowfd);
/* In a forked child that does not exec (close-on-exec does not apply
 * there): close every fd from `lowfd` up except the `n_keep` in `keep`. */
int fds_close_except(int lowfd, const int *keep, size_t n_keep);

#endif
