/* SPDX-License-Identifier: MIT */
/* The seccomp filter's cost per launch (bench/launch.sh builds and runs
 * this): compiles it N times and prints the mean; installs it N times, each
 * in a child of its own, as init does (the kernel checks it, JITs it and runs
 * it for every system call number to cache the constant answers), and
 * prints the mean; writes one program to the file given (for the raw-bwrap
 * comparison). */
#include "syscall_filter.h"

#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

static double elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return ((double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec)) / 1e3;
}

/* The mean time of prctl(PR_SET_SECCOMP) over n children, -1 on failure. */
static double install_us(struct sock_filter *prog, size_t len, int n)
{
	struct sock_fprog fprog = {.len = (unsigned short)len, .filter = prog};
	double total = 0;
	for (int i = 0; i < n; i++) {
		int p[2];
		if (pipe(p) < 0)
			return -1;
		pid_t pid = fork();
		if (pid == 0) {
			struct timespec a, b;
			double us = -1;
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
				clock_gettime(CLOCK_MONOTONIC, &a);
				if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == 0) {
					clock_gettime(CLOCK_MONOTONIC, &b);
					us = elapsed_us(&a, &b);
				}
			}
			_exit(write(p[1], &us, sizeof(us)) == sizeof(us) ? 0 : 1);
		}
		double us = -1;
		if (pid < 0 || read(p[0], &us, sizeof(us)) != sizeof(us))
			us = -1;
		close(p[0]);
		close(p[1]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (us < 0)
			return -1;
		total += us;
	}
	return total / n;
}

int main(int argc, char **argv)
{
	const int n = 200;
	struct timespec a, b;
	int fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		if (fd >= 0)
			close(fd);
		if (seccomp_compile(0, &fd) < 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = elapsed_us(&a, &b) / n;
	struct stat st;
	fstat(fd, &st);
	printf("seccomp filter compile: %.0f us per launch (%lld BPF instructions)\n", us,
	       (long long)st.st_size / 8);
	struct sock_filter *prog = malloc((size_t)st.st_size);
	if (!prog || pread(fd, prog, (size_t)st.st_size, 0) != st.st_size)
		return 1;
	printf("seccomp filter install: %.0f us per launch (in init, before the agent)\n",
	       install_us(prog, (size_t)st.st_size / sizeof(*prog), 1000));
	free(prog);
	if (argc > 1) {
		int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		off_t off = 0;
		if (out < 0 || sendfile(out, fd, &off, (size_t)st.st_size) != st.st_size)
			return 1;
		close(out);
	}
	return 0;
}
