/* Host normalisation, IP literals in every spelling, address classification. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "hostcheck.h"

static void test_normalize(void **state)
{
	static const struct {
		const char *in, *out;
		bool ip;
	} ok[] = {
	    {"Example.COM.", "example.com", false},
	    {"exa_mple.com", "exa_mple.com", false},
	    {"1e100.net", "1e100.net", false},
	    {"123.example", "123.example", false},
	    {"xn--bcher-kva.de", "xn--bcher-kva.de", false},
	    {"127.0.0.1", "127.0.0.1", true},
	    {"127.1", "127.0.0.1", true},
	    {"127.0.1", "127.0.0.1", true},
	    {"0x7f.1", "127.0.0.1", true},
	    {"0X7F.0.0.1", "127.0.0.1", true},
	    {"0x7f000001", "127.0.0.1", true},
	    {"2130706433", "127.0.0.1", true},
	    {"0177.0.0.1", "127.0.0.1", true},
	    {"017700000001", "127.0.0.1", true},
	    {"127.0.0.1.", "127.0.0.1", true},
	    {"0", "0.0.0.0", true},
	    {"4294967295", "255.255.255.255", true},
	    {"10.0.0.0x1", "10.0.0.1", true},
	    {"[::1]", "::1", true},
	    {"[0:0:0:0:0:0:0:1]", "::1", true},
	    {"[::FFFF:127.0.0.1]", "::ffff:127.0.0.1", true},
	    {"::1", "::1", true},
	    {"[2001:DB8::1]", "2001:db8::1", true},
	};
	static const struct {
		const char *in;
		int err;
	} bad[] = {
	    {"", -EINVAL},
	    {".", -EINVAL},
	    {"a..b", -EINVAL},
	    {".a.com", -EINVAL},
	    {"a b", -EINVAL},
	    {"allowed.com@evil.com", -EINVAL},
	    {"evil.com#allowed.com", -EINVAL},
	    {"a.com/x", -EINVAL},
	    {"a.com:80", -EINVAL},
	    {"b\xc3\xbc"
	     "cher.de",
	     -EILSEQ},
	    {"1.2.3.4.5", -EINVAL},
	    {"256.1.1.1", -EINVAL},
	    {"1.2.3.256", -EINVAL},
	    {"4294967296", -EINVAL},
	    {"foo.123", -EINVAL},
	    {"08.1.1.1", -EINVAL}, /* 8 is no octal digit */
	    {"0x", -EINVAL},
	    {"[::1", -EINVAL},
	    {"[fe80::1%25eth0]", -EINVAL},
	    {"[127.0.0.1]", -EINVAL},
	    {"[]", -EINVAL},
	    {"a\x01.com", -EINVAL},
	};
	char out[HOST_MAX];
	bool ip;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int rc = host_normalize(ok[i].in, strlen(ok[i].in), out, sizeof(out), &ip);
		if (rc != 0)
			fail_msg("\"%s\" refused: %d", ok[i].in, rc);
		assert_string_equal(out, ok[i].out);
		assert_int_equal(ip, ok[i].ip);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = host_normalize(bad[i].in, strlen(bad[i].in), out, sizeof(out), &ip);
		if (rc != bad[i].err)
			fail_msg("\"%s\": got %d, want %d", bad[i].in, rc, bad[i].err);
	}
	char longname[300];
	memset(longname, 'a', sizeof(longname));
	assert_int_equal(host_normalize(longname, sizeof(longname), out, sizeof(out), &ip),
	                 -ENAMETOOLONG);
}

static void test_classify(void **state)
{
	static const struct {
		const char *addr;
		enum addr_class want;
	} v[] = {
	    {"127.0.0.1", ADDR_LOOPBACK},
	    {"127.255.0.9", ADDR_LOOPBACK},
	    {"10.1.2.3", ADDR_PRIVATE},
	    {"172.16.0.1", ADDR_PRIVATE},
	    {"172.31.255.255", ADDR_PRIVATE},
	    {"172.32.0.1", ADDR_PUBLIC},
	    {"192.168.1.1", ADDR_PRIVATE},
	    {"169.254.169.254", ADDR_LINKLOCAL},
	    {"100.64.0.1", ADDR_CGNAT},
	    {"100.127.255.255", ADDR_CGNAT},
	    {"100.128.0.1", ADDR_PUBLIC},
	    {"224.0.0.1", ADDR_MULTICAST},
	    {"239.255.255.250", ADDR_MULTICAST},
	    {"240.0.0.1", ADDR_RESERVED},
	    {"255.255.255.255", ADDR_RESERVED},
	    {"0.0.0.0", ADDR_UNSPECIFIED},
	    {"0.1.2.3", ADDR_RESERVED},
	    {"192.0.0.8", ADDR_RESERVED},
	    {"192.0.2.1", ADDR_RESERVED},
	    {"198.18.0.1", ADDR_RESERVED},
	    {"198.19.255.1", ADDR_RESERVED},
	    {"198.20.0.1", ADDR_PUBLIC},
	    {"198.51.100.7", ADDR_RESERVED},
	    {"203.0.113.9", ADDR_RESERVED},
	    {"8.8.8.8", ADDR_PUBLIC},
	    {"1.1.1.1", ADDR_PUBLIC},
	    {"::1", ADDR_LOOPBACK},
	    {"::", ADDR_UNSPECIFIED},
	    {"::ffff:127.0.0.1", ADDR_LOOPBACK},
	    {"::ffff:10.0.0.1", ADDR_PRIVATE},
	    {"::ffff:8.8.8.8", ADDR_PUBLIC},
	    {"::127.0.0.1", ADDR_LOOPBACK},
	    {"64:ff9b::a00:1", ADDR_PRIVATE},
	    {"64:ff9b::7f00:1", ADDR_LOOPBACK},
	    {"64:ff9b::a9fe:a9fe", ADDR_LINKLOCAL},
	    {"64:ff9b::808:808", ADDR_PUBLIC},
	    {"64:ff9b:1::1", ADDR_PRIVATE},
	    {"2002:7f00:1::", ADDR_LOOPBACK},
	    {"2002:808:808::1", ADDR_PUBLIC},
	    {"fd00::1", ADDR_PRIVATE},
	    {"fc00::1", ADDR_PRIVATE},
	    {"fe80::1", ADDR_LINKLOCAL},
	    {"febf::1", ADDR_LINKLOCAL},
	    {"fec0::1", ADDR_RESERVED},
	    {"ff02::1", ADDR_MULTICAST},
	    {"2001:db8::1", ADDR_RESERVED},
	    {"2001::1", ADDR_RESERVED},
	    {"100::1", ADDR_RESERVED},
	    {"2606:4700::1111", ADDR_PUBLIC},
	    {"2a00:1450::1", ADDR_PUBLIC},
	    /* every form that embeds an IPv4 address is classified by it */
	    {"::ffff:0:127.0.0.1", ADDR_LOOPBACK}, /* SIIT */
	    {"::ffff:0:10.1.2.3", ADDR_PRIVATE},
	    {"::ffff:0:8.8.8.8", ADDR_PUBLIC},
	    {"::10.0.0.1", ADDR_PRIVATE},
	    {"::169.254.169.254", ADDR_LINKLOCAL},
	    {"64:ff9b::127.0.0.1", ADDR_LOOPBACK},
	    {"64:ff9b::100.64.0.1", ADDR_CGNAT},
	    {"2002:a9fe:a9fe::1", ADDR_LINKLOCAL},
	    {"2002:0:0::1", ADDR_UNSPECIFIED},
	    {"2a00:1450:1:2:0:5efe:127.0.0.1", ADDR_LOOPBACK}, /* ISATAP */
	    {"2a00:1450:1:2:200:5efe:192.168.0.1", ADDR_PRIVATE},
	    {"2a00:1450:1:2:0:5efe:8.8.8.8", ADDR_PUBLIC},
	    {"fd00::5efe:8.8.8.8", ADDR_PRIVATE},
	    {"3fff::1", ADDR_RESERVED},
	    {"3fff:fff::1", ADDR_RESERVED},
	    {"3fff:1000::1", ADDR_PUBLIC},
	    {"2001:2::1", ADDR_RESERVED},
	    {"2001:3::1", ADDR_PUBLIC},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct host_addr a;
		assert_int_equal(host_parse_ip(v[i].addr, &a), 1);
		enum addr_class c = host_addr_classify(&a);
		if (c != v[i].want)
			fail_msg("%s: got %s, want %s", v[i].addr, host_addr_class_name(c),
			         host_addr_class_name(v[i].want));
	}
	struct host_addr a;
	assert_int_equal(host_parse_ip("example.com", &a), 0);
	assert_int_equal(host_parse_ip("127.1", &a), 0); /* canonical text only */
}

static void test_embedded(void **state)
{
	static const struct {
		const char *addr, *v4; /* v4 NULL: no embedded address */
	} v[] = {
	    {"::ffff:1.2.3.4", "1.2.3.4"},   {"::1.2.3.4", "1.2.3.4"},
	    {"::ffff:0:1.2.3.4", "1.2.3.4"}, {"64:ff9b::1.2.3.4", "1.2.3.4"},
	    {"2002:102:304::1", "1.2.3.4"},  {"2a00::200:5efe:1.2.3.4", "1.2.3.4"},
	    {"2a00:1450::1", NULL},          {"1.2.3.4", NULL},
	    {"64:ff9b:1::1.2.3.4", NULL}, /* local-use NAT64: where it embeds is the
	                                   * operator's choice; classified private */
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct host_addr a;
		struct in_addr out;
		char buf[INET_ADDRSTRLEN];
		assert_int_equal(host_parse_ip(v[i].addr, &a), 1);
		bool got = host_addr_embedded_v4(&a, &out);
		if (got != (v[i].v4 != NULL))
			fail_msg("%s: embedded %d", v[i].addr, got);
		if (got)
			assert_string_equal(inet_ntop(AF_INET, &out, buf, sizeof(buf)), v[i].v4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalize),
	    cmocka_unit_test(test_classify),
	    cmocka_unit_test(test_embedded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
