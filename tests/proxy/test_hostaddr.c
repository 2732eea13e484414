/* The host's own addresses, as the routing table reports them: every address of
 * every interface (getifaddrs), loopback in all its spellings, and nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

#include "hostaddr.h"

static int is_local(const char *text)
{
	struct host_addr a;
	assert_int_equal(host_parse_ip(text, &a), 1);
	return hostaddr_is_local(&a);
}

static void test_loopback_and_not(void **state)
{
	assert_int_equal(hostaddr_init(), 0);
	assert_int_equal(is_local("127.0.0.1"), 1);
	assert_int_equal(is_local("127.9.9.9"), 1);
	assert_int_equal(is_local("::ffff:127.0.0.1"), 1);
	assert_int_equal(is_local("64:ff9b::127.0.0.1"), 1);
	assert_int_equal(is_local("2002:7f00:1::"), 1);
	assert_int_equal(is_local("192.0.2.1"), 0); /* documentation: nobody's */
	assert_int_equal(is_local("2001:db8::1"), 0);
}

static void test_every_interface_address(void **state)
{
	struct ifaddrs *ifa, *i;
	size_t n = 0;

	assert_int_equal(hostaddr_init(), 0);
	assert_int_equal(getifaddrs(&ifa), 0);
	for (i = ifa; i; i = i->ifa_next) {
		struct host_addr a;
		char buf[INET6_ADDRSTRLEN];
		if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) ||
		    host_addr_from_sockaddr(i->ifa_addr, &a) < 0)
			continue;
		if (a.family == AF_INET6 && a.v6.s6_addr[0] == 0xfe &&
		    (a.v6.s6_addr[1] & 0xc0) == 0x80)
			continue; /* link-local: needs a scope; refused by class anyway */
		inet_ntop(a.family, a.family == AF_INET ? (void *)&a.v4 : (void *)&a.v6, buf,
		          sizeof(buf));
		if (hostaddr_is_local(&a) != 1)
			fail_msg("%s on %s is not seen as the host's own", buf, i->ifa_name);
		n++;
	}
	freeifaddrs(ifa);
	assert_true(n >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loopback_and_not),
	    cmocka_unit_test(test_every_interface_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
