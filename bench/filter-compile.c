/* SPDX-License-Identifier: MIT */
/* The seccomp filter's compile cost per launch (bench/launch.sh builds and
 * runs this): compiles it N times, prints the mean, writes one program to
 * the file given (for the raw-bwrap comparison). */
#include "syscall_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

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
	double us =
	    ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n / 1e3;
	struct stat st;
	fstat(fd, &st);
	printf("seccomp filter compile: %.0f us per launch (%lld BPF instructions)\n", us,
	       (long long)st.st_size / 8);
	if (argc > 1) {
		int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		off_t off = 0;
		if (out < 0 || sendfile(out, fd, &off, (size_t)st.st_size) != st.st_size)
			return 1;
		close(out);
	}
	return 0;
}
