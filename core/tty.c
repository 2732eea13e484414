/* SPDX-License-Identifier: MIT */
#include "tty.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

int tty_confirm(const char *question)
{
	_cleanup_close_ int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -ENXIO;
	int r = write_all(fd, question, strlen(question));
	if (r < 0)
		return r;
	if ((r = write_all(fd, " [y/N] ", 7)) < 0)
		return r;
	char answer[16] = {0};
	ssize_t n = read(fd, answer, sizeof(answer) - 1);
	if (n <= 0)
		return 0;
	return answer[0] == 'y' || answer[0] == 'Y';
}
