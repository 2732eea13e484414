/* SPDX-License-Identifier: MIT */
#include "display.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int display_x11_number(const char *d, unsigned *out)
{
	if (!d)
		return -EINVAL;
	if (strncmp(d, "unix:", 5) == 0)
		d += 4;
	if (d[0] != ':' || d[1] < '0' || d[1] > '9')
		return -EINVAL;
	char *end;
	unsigned long n = strtoul(d + 1, &end, 10);
	if ((*end && *end != '.') || n > 65535)
		return -EINVAL;
	if (*end == '.') {
		char *e2;
		(void)strtoul(end + 1, &e2, 10);
		if (e2 == end + 1 || *e2)
			return -EINVAL;
	}
	*out = (unsigned)n;
	return 0;
}

int display_wayland_socket(const char *w, const char *runtime_dir, char *out, size_t len)
{
	if (!w || !*w)
		return -EINVAL;
	int n;
	if (w[0] == '/')
		n = snprintf(out, len, "%s", w);
	else if (strchr(w, '/') || strcmp(w, ".") == 0 || strcmp(w, "..") == 0)
		return -EINVAL;
	else if (!runtime_dir || runtime_dir[0] != '/')
		return -ENOENT;
	else
		n = snprintf(out, len, "%s/%s", runtime_dir, w);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int display_dbus_path(const char *a, char *out, size_t len)
{
	if (!a || strncmp(a, "unix:", 5) != 0)
		return -EOPNOTSUPP;
	const char *end = a + strcspn(a, ";");
	for (const char *p = a + 5; p < end;) {
		size_t kl = strcspn(p, ",;");
		if (kl > 5 && strncmp(p, "path=", 5) == 0) {
			if (kl - 5 >= len || p[5] != '/')
				return -EINVAL;
			memcpy(out, p + 5, kl - 5);
			out[kl - 5] = '\0';
			/* D-Bus escapes bytes as %XX: a path with them is refused
			 * rather than mis-read. */
			return strchr(out, '%') ? -EINVAL : 0;
		}
		p += kl + (p[kl] == ',');
	}
	return -EOPNOTSUPP;
}

int display_pulse_path(const char *s, char *out, size_t len)
{
	if (!s)
		return -EINVAL;
	if (strncmp(s, "unix:", 5) == 0)
		s += 5;
	if (s[0] != '/' || strchr(s, ' '))
		return -EINVAL;
	int n = snprintf(out, len, "%s", s);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
