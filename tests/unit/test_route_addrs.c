/* SPDX-License-Identifier: MIT */
/* The addresses of a network namespace read over a route socket made in it
 * (linux/route_addrs.c): what network.json records for an open sandbox
 * without ports. Here, this process's own namespace: its loopback has
 * 127.0.0.1, and the socket, not the caller, decides which namespace
 * answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform.h"
#include "util.h"

#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void test_loopback_listed(void **state)
{
	(void)state;
	int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	assert_true(sock >= 0);
	_cleanup_free_ char *text = NULL;
	assert_int_equal(platform_route_describe(sock, &text), 0);
	close(sock);
	assert_non_null(text);
	/* "IFACE ADDR" lines, each ending in a newline. */
	assert_true(strncmp(text, "lo 127.0.0.1\n", 13) == 0 || strstr(text, "\nlo 127.0.0.1\n"));
	assert_true(text[0] == '\0' || text[strlen(text) - 1] == '\n');
}

/* Twice over the same socket: each dump is answered in full (its sequence
 * numbers keep them apart). */
static void test_same_socket_twice(void **state)
{
	(void)state;
	int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	assert_true(sock >= 0);
	_cleanup_free_ char *first = NULL, *second = NULL;
	assert_int_equal(platform_route_describe(sock, &first), 0);
	assert_int_equal(platform_route_describe(sock, &second), 0);
	close(sock);
	assert_string_equal(first, second);
}

static void test_not_a_route_socket(void **state)
{
	(void)state;
	char *text = NULL;
	assert_int_equal(platform_route_describe(-1, &text), -EBADF);
	assert_null(text);
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]); /* the request goes nowhere: an error, not a hang */
	assert_true(platform_route_describe(sv[0], &text) < 0);
	assert_null(text);
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loopback_listed),
	    cmocka_unit_test(test_same_socket_twice),
	    cmocka_unit_test(test_not_a_route_socket),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
