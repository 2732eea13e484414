/* SPDX-License-Identifier: MIT */
/* Pure parsing for plugins/desktop: which socket a display or bus address
 * names (tests/host/test_display.c). */
#ifndef ASB_DESKTOP_DISPLAY_H
#define ASB_DESKTOP_DISPLAY_H

#include <stddef.h>

/* DISPLAY ":N", ":N.S", "unix:N[.S]" → N (-EINVAL for a TCP display such as
 * "localhost:10.0" or "host/unix:0", which no socket path names). */
int display_x11_number(const char *display, unsigned *out);

/* WAYLAND_DISPLAY: an absolute path, or a name in XDG_RUNTIME_DIR. The
 * socket's path into `out`; -EINVAL for a name with a slash, -ENOENT when
 * a name needs a runtime directory that is not known. */
int display_wayland_socket(const char *wayland_display, const char *runtime_dir, char *out,
                           size_t len);

/* D-Bus: "unix:path=P[,guid=...]" → P; "unix:abstract=..." and others:
 * -EOPNOTSUPP (xdg-dbus-proxy could still reach them, the launcher does
 * not check them); the first of several ';'-separated addresses counts. */
int display_dbus_path(const char *address, char *out, size_t len);

/* PULSE_SERVER "unix:/path" or "/path" → the path; -EINVAL otherwise (a
 * TCP server). */
int display_pulse_path(const char *server, char *out, size_t len);

#endif
