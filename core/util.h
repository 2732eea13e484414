/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the core: scoped cleanup, string vectors. */
#ifndef ASB_CORE_UTIL_H
#define ASB_CORE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

#define _cleanup_(f)    __attribute__((cleanup(f)))
#define _cleanup_free_  _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _printf_(a, b)  __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)   (sizeof(a) / sizeof((a)[0]))

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
/* Number of '/'-separated components, for ordering mounts parent-first. */
size_t path_depth(const char *path);

/* Write all of buf to fd, retrying on EINTR/short writes. */
int write_all(int fd, const void *buf, size_t len);
/* Read a whole (small) file into a NUL-terminated buffer. */
int read_file(const char *path, char **out, size_t *len_out);
/* Recursively remove a directory tree without following symlinks. */
int rm_rf(const char *path);
/* mkdir -p with mode for the created components. */
int mkdir_p(const char *path, unsigned mode);

/* A child process we started, held by pidfd as well: signals and waits go
 * to that very process even if something else reaped it and its pid was
 * reused (the supervisor's event loop reaps any child that exits). */
struct child {
	pid_t pid;
	int pidfd;
};

#define CHILD_NONE ((struct child){.pid = 0, .pidfd = -1})

/* Start tracking `pid` (call right after fork, before any loop runs). */
void child_track(struct child *c, pid_t pid);
/* Send `sig`, wait up to timeout_ms for it to end, then SIGKILL; reap. */
void child_stop(struct child *c, int sig, int timeout_ms);

#endif
