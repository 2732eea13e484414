/* SPDX-License-Identifier: MIT */
/* plugins/desktop/display.c: which socket a display or bus address names. */
#include "display.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void x11(void **state)
{
	(void)state;
	unsigned n = 99;
	assert_int_equal(display_x11_number(":0", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(display_x11_number(":12.1", &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(display_x11_number("unix:3", &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(display_x11_number("localhost:10.0", &n), -EINVAL);
	assert_int_equal(display_x11_number("host/unix:0", &n), -EINVAL);
	assert_int_equal(display_x11_number(":", &n), -EINVAL);
	assert_int_equal(display_x11_number(":1x", &n), -EINVAL);
	assert_int_equal(display_x11_number(":1.", &n), -EINVAL);
	assert_int_equal(display_x11_number(NULL, &n), -EINVAL);
}

static void wayland(void **state)
{
	(void)state;
	char out[PATH_MAX];
	assert_int_equal(display_wayland_socket("wayland-0", "/run/user/1000", out, sizeof(out)),
	                 0);
	assert_string_equal(out, "/run/user/1000/wayland-0");
	assert_int_equal(display_wayland_socket("/tmp/w.sock", NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/tmp/w.sock");
	assert_int_equal(display_wayland_socket("../x", "/run/user/1", out, sizeof(out)), -EINVAL);
	assert_int_equal(display_wayland_socket("..", "/run/user/1", out, sizeof(out)), -EINVAL);
	assert_int_equal(display_wayland_socket("wayland-0", NULL, out, sizeof(out)), -ENOENT);
	assert_int_equal(display_wayland_socket("", "/r", out, sizeof(out)), -EINVAL);
	assert_int_equal(display_wayland_socket("wayland-0", "/r", out, 4), -ENAMETOOLONG);
}

static void dbus(void **state)
{
	(void)state;
	char out[PATH_MAX];
	assert_int_equal(display_dbus_path("unix:path=/run/user/1/bus", out, sizeof(out)), 0);
	assert_string_equal(out, "/run/user/1/bus");
	assert_int_equal(display_dbus_path("unix:guid=ab,path=/b;tcp:host=x", out, sizeof(out)), 0);
	assert_string_equal(out, "/b");
	assert_int_equal(display_dbus_path("unix:abstract=/tmp/dbus-x", out, sizeof(out)),
	                 -EOPNOTSUPP);
	assert_int_equal(display_dbus_path("tcp:host=localhost,port=1", out, sizeof(out)),
	                 -EOPNOTSUPP);
	assert_int_equal(display_dbus_path("unix:path=rel", out, sizeof(out)), -EINVAL);
	assert_int_equal(display_dbus_path("unix:path=/a%2cb", out, sizeof(out)), -EINVAL);
	assert_int_equal(display_dbus_path("unix:tmpdir=/tmp;unix:path=/x", out, sizeof(out)),
	                 -EOPNOTSUPP);
}

static void pulse(void **state)
{
	(void)state;
	char out[PATH_MAX];
	assert_int_equal(display_pulse_path("unix:/run/user/1/pulse/native", out, sizeof(out)), 0);
	assert_string_equal(out, "/run/user/1/pulse/native");
	assert_int_equal(display_pulse_path("/p", out, sizeof(out)), 0);
	assert_int_equal(display_pulse_path("tcp:localhost:4713", out, sizeof(out)), -EINVAL);
	assert_int_equal(display_pulse_path("unix:/a /b", out, sizeof(out)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(x11),
	    cmocka_unit_test(wayland),
	    cmocka_unit_test(dbus),
	    cmocka_unit_test(pulse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
