/* Host name normalisation, IP literal parsing and address classification.
 *
 * The rules are checked on the normalised name before any lookup, so every
 * spelling of one host must normalise to one string, and every spelling of an
 * IPv4 address (0x7f.1, 2130706433, 0177.0.0.1, 127.1) must be recognised as
 * the address it is: resolvers accept them all. */
#include "hostcheck.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One part of an IPv4 literal: 0x.. hex, 0.. octal, else decimal (what inet_aton
 * and browsers accept). */
static int parse_v4_part(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (len == 0)
		return -EINVAL;
	if (len >= 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		i = 2;
		if (len == 2) /* "0x" alone is zero for browsers; refuse the oddity */
			return -EINVAL;
	} else if (len >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < len; i++) {
		int d = base == 16 ? hex_value(s[i]) : (is_digit(s[i]) ? s[i] - '0' : -1);
		if (d < 0 || (unsigned)d >= base)
			return -EINVAL;
		v = v * base + (unsigned)d;
		if (v > 0xffffffffULL)
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_v4_literal(const char *s, size_t len, struct in_addr *out)
{
	uint64_t parts[4];
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n == 4)
			return -EINVAL;
		if (parse_v4_part(s + start, i - start, &parts[n]) < 0)
			return -EINVAL;
		n++;
		start = i + 1;
	}
	uint32_t addr = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (parts[i] > 255)
			return -EINVAL;
		addr |= (uint32_t)parts[i] << (24 - 8 * i);
	}
	uint64_t last_max = 0xffffffffULL >> (8 * (n - 1));
	if (parts[n - 1] > last_max)
		return -EINVAL;
	addr |= (uint32_t)parts[n - 1];
	out->s_addr = htonl(addr);
	return 0;
}

/* Whether the last label looks numeric: then the whole name must be an IPv4
 * literal (the WHATWG URL rule), never a DNS name. */
static bool ends_in_number(const char *s, size_t len)
{
	size_t start = len;
	while (start > 0 && s[start - 1] != '.')
		start--;
	const char *l = s + start;
	size_t n = len - start;
	if (n == 0)
		return false;
	if (n >= 2 && l[0] == '0' && l[1] == 'x') {
		for (size_t i = 2; i < n; i++)
			if (hex_value(l[i]) < 0)
				return false;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (!is_digit(l[i]))
			return false;
	return true;
}

static int write_v6(const char *in, size_t len, char *out, size_t outlen)
{
	char tmp[INET6_ADDRSTRLEN + 1];
	struct in6_addr a;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, in, len);
	tmp[len] = '\0';
	/* Zone ids (%eth0) and anything else inet_pton refuses are refused. */
	if (inet_pton(AF_INET6, tmp, &a) != 1)
		return -EINVAL;
	if (!inet_ntop(AF_INET6, &a, out, (socklen_t)outlen))
		return -ENAMETOOLONG;
	return 0;
}

int host_normalize(const char *in, size_t len, char *out, size_t outlen, bool *is_ip)
{
	char buf[HOST_MAX];

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)in[i] >= 0x80)
			return -EILSEQ;
	if (in[0] == '[') {
		if (len < 3 || in[len - 1] != ']')
			return -EINVAL;
		int r = write_v6(in + 1, len - 2, out, outlen);
		if (r == 0)
			*is_ip = true;
		return r;
	}
	if (memchr(in, ':', len)) { /* a bare IPv6 literal, as config entries write them */
		int r = write_v6(in, len, out, outlen);
		if (r == 0)
			*is_ip = true;
		return r;
	}
	if (in[len - 1] == '.')
		len--;
	if (len == 0 || len >= sizeof(buf))
		return len == 0 ? -EINVAL : -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++) {
		char c = in[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '.' || c == '_'))
			return -EINVAL;
		if (c == '.' && (i == 0 || buf[i - 1] == '.'))
			return -EINVAL;
		buf[i] = c;
	}
	if (buf[len - 1] == '.')
		return -EINVAL; /* "a.." : an empty last label */
	if (ends_in_number(buf, len)) {
		struct in_addr a;
		if (parse_v4_literal(buf, len, &a) < 0)
			return -EINVAL;
		if (!inet_ntop(AF_INET, &a, out, (socklen_t)outlen))
			return -ENAMETOOLONG;
		*is_ip = true;
		return 0;
	}
	if (len + 1 > outlen)
		return -ENAMETOOLONG;
	memcpy(out, buf, len);
	out[len] = '\0';
	*is_ip = false;
	return 0;
}

int host_parse_ip(const char *host, struct host_addr *out)
{
	if (inet_pton(AF_INET, host, &out->v4) == 1) {
		out->family = AF_INET;
		return 1;
	}
	if (inet_pton(AF_INET6, host, &out->v6) == 1) {
		out->family = AF_INET6;
		return 1;
	}
	return 0;
}

static enum addr_class classify_v4(uint32_t a)
{
	if (a == 0)
		return ADDR_UNSPECIFIED;
	if ((a >> 24) == 0)
		return ADDR_RESERVED; /* "this network" */
	if ((a >> 24) == 127)
		return ADDR_LOOPBACK;
	if ((a >> 24) == 10 || (a >> 20) == (172u << 4 | 1) || (a >> 16) == (192u << 8 | 168))
		return ADDR_PRIVATE;
	if ((a >> 16) == (169u << 8 | 254))
		return ADDR_LINKLOCAL;
	if ((a >> 22) == (100u << 2 | 1))
		return ADDR_CGNAT;
	if ((a >> 28) == 0xe)
		return ADDR_MULTICAST;
	if ((a >> 28) == 0xf)
		return ADDR_RESERVED; /* class E and broadcast */
	if ((a >> 8) == (192u << 16) || (a >> 8) == (192u << 16 | 2) ||
	    (a >> 8) == (198u << 16 | 51 << 8 | 100) || (a >> 8) == (203u << 16 | 113) ||
	    (a >> 17) == (198u << 7 | 18 >> 1) || (a >> 8) == (192u << 16 | 88 << 8 | 99))
		return ADDR_RESERVED;
	return ADDR_PUBLIC;
}

static uint32_t v4_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The IPv4 address an IPv6 address stands for, where the form says so: mapped
 * (::ffff:a.b.c.d), compatible (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96),
 * 6to4 (2002:AABB:CCDD::/48), ISATAP (any /64 with interface id [02]00:5efe:a.b.c.d). */
static bool embedded_v4(const uint8_t *b, uint32_t *out)
{
	static const uint8_t zero[12];
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t siit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
	static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};

	if (memcmp(b, mapped, 12) == 0 || memcmp(b, zero, 12) == 0 || memcmp(b, siit, 12) == 0 ||
	    memcmp(b, nat64, 12) == 0) {
		*out = v4_at(b + 12);
		return true;
	}
	if (b[0] == 0x20 && b[1] == 0x02) {
		*out = v4_at(b + 2);
		return true;
	}
	if ((b[8] == 0 || b[8] == 0x02) && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe) {
		*out = v4_at(b + 12);
		return true;
	}
	return false;
}

bool host_addr_embedded_v4(const struct host_addr *a, struct in_addr *out)
{
	uint32_t v4;
	if (a->family != AF_INET6 || !embedded_v4(a->v6.s6_addr, &v4))
		return false;
	out->s_addr = htonl(v4);
	return true;
}

static enum addr_class classify_v6(const uint8_t *b)
{
	static const uint8_t zero[16];
	static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
	uint32_t v4;

	if (memcmp(b, zero, 15) == 0)
		return b[15] == 0 ? ADDR_UNSPECIFIED : b[15] == 1 ? ADDR_LOOPBACK : ADDR_RESERVED;
	if (embedded_v4(b, &v4)) {
		enum addr_class c = classify_v4(v4);
		/* An ISATAP interface id sits in any /64, so the prefix still counts: the
		 * IPv4 address it names only ever makes the address less dialable. */
		bool isatap = b[10] == 0x5e && b[11] == 0xfe && !(b[0] == 0x20 && b[1] == 0x02);
		if (!isatap || c != ADDR_PUBLIC)
			return c;
	}
	if (memcmp(b, nat64_local, 6) == 0)
		return ADDR_PRIVATE;
	if ((b[0] & 0xfe) == 0xfc)
		return ADDR_PRIVATE;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return ADDR_LINKLOCAL;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
		return ADDR_RESERVED; /* site-local, deprecated but still routed by some */
	if (b[0] == 0xff)
		return ADDR_MULTICAST;
	if ((b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) ||
	    (b[0] == 0x3f && b[1] == 0xff && (b[2] & 0xf0) == 0))
		return ADDR_RESERVED; /* documentation: 2001:db8::/32, 3fff::/20 */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0)
		return ADDR_RESERVED; /* Teredo: hides an IPv4 address we cannot vet */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0x02 && b[4] == 0 && b[5] == 0)
		return ADDR_RESERVED; /* benchmarking, 2001:2::/48 */
	if (b[0] == 0x01 && b[1] == 0 && memcmp(b + 2, zero, 6) == 0)
		return ADDR_RESERVED; /* discard prefix */
	return ADDR_PUBLIC;
}

enum addr_class host_addr_classify(const struct host_addr *a)
{
	if (a->family == AF_INET)
		return classify_v4(ntohl(a->v4.s_addr));
	return classify_v6(a->v6.s6_addr);
}

const char *host_addr_class_name(enum addr_class c)
{
	switch (c) {
	case ADDR_PUBLIC:
		return "public";
	case ADDR_LOOPBACK:
		return "loopback";
	case ADDR_PRIVATE:
		return "private";
	case ADDR_LINKLOCAL:
		return "link-local";
	case ADDR_CGNAT:
		return "CGNAT";
	case ADDR_MULTICAST:
		return "multicast";
	case ADDR_UNSPECIFIED:
		return "unspecified";
	case ADDR_RESERVED:
		return "reserved";
	}
	return "unknown";
}

int host_addr_from_sockaddr(const struct sockaddr *sa, struct host_addr *out)
{
	if (sa->sa_family == AF_INET) {
		out->family = AF_INET;
		out->v4 = ((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		out->family = AF_INET6;
		out->v6 = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		return 0;
	}
	return -EAFNOSUPPORT;
}
