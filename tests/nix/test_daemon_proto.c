/* SPDX-License-Identifier: MIT */
/* The nix-daemon handshake (plugins/nix/daemon_proto.c) against scripted
 * daemons on a socketpair, and store-path arithmetic (closure.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "closure.h"
#include "daemon_proto.h"

static size_t put_u64(unsigned char *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return 8;
}

static size_t put_str(unsigned char *b, const char *s)
{
	size_t len = strlen(s), n = put_u64(b, len);
	memset(b + n, 0, (len + 7) & ~(size_t)7);
	memcpy(b + n, s, len);
	return n + ((len + 7) & ~(size_t)7);
}

/* Run the handshake against a daemon whose whole reply is pre-written. */
static int handshake(const unsigned char *reply, size_t len, struct nix_daemon_info *info,
                     char *err, size_t err_len)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(write(sv[1], reply, len), (ssize_t)len);
	shutdown(sv[1], SHUT_WR);
	int r = nix_daemon_handshake(sv[0], info, err, err_len);
	close(sv[0]);
	close(sv[1]);
	return r;
}

static void trust_reported(void **state)
{
	unsigned char b[256];
	struct nix_daemon_info info;
	char err[256] = "";

	for (uint64_t t = 0; t <= 2; t++) {
		size_t n = 0;
		n += put_u64(b + n, 0x6478696f);
		n += put_u64(b + n, (1 << 8) | 37);
		n += put_str(b + n, "2.24.9");
		n += put_u64(b + n, t);
		n += put_u64(b + n, 0x616c7473); /* STDERR_LAST */
		assert_int_equal(handshake(b, n, &info, err, sizeof(err)), 0);
		assert_int_equal(info.proto_minor, 37);
		assert_string_equal(info.version, "2.24.9");
		assert_int_equal(info.trust, t == 1   ? NIX_TRUST_TRUSTED
		                             : t == 2 ? NIX_TRUST_NOT
		                                      : NIX_TRUST_UNKNOWN);
	}
}

static void old_daemon(void **state)
{
	unsigned char b[256];
	struct nix_daemon_info info;
	char err[256] = "";
	size_t n = 0;

	/* Nix 2.8: protocol 1.34, version string, no trust, a log line. */
	n += put_u64(b + n, 0x6478696f);
	n += put_u64(b + n, (1 << 8) | 34);
	n += put_str(b + n, "2.8.0");
	n += put_u64(b + n, 0x6f6c6d67); /* STDERR_NEXT */
	n += put_str(b + n, "hello");
	n += put_u64(b + n, 0x616c7473);
	assert_int_equal(handshake(b, n, &info, err, sizeof(err)), 0);
	assert_string_equal(info.version, "2.8.0");
	assert_int_equal(info.trust, NIX_TRUST_UNKNOWN);

	/* 1.21: no version string at all. */
	n = 0;
	n += put_u64(b + n, 0x6478696f);
	n += put_u64(b + n, (1 << 8) | 21);
	n += put_u64(b + n, 0x616c7473);
	assert_int_equal(handshake(b, n, &info, err, sizeof(err)), 0);
	assert_string_equal(info.version, "");
}

static void refusals(void **state)
{
	unsigned char b[256] = {0};
	struct nix_daemon_info info;
	char err[256] = "";
	size_t n = 0;

	/* Hung up at once: outside allowed-users. */
	assert_int_equal(handshake(b, 0, &info, err, sizeof(err)), -ECONNRESET);
	assert_non_null(strstr(err, "allowed-users"));

	n += put_u64(b + n, 0x12345678);
	assert_int_equal(handshake(b, n, &info, err, sizeof(err)), -EPROTO);

	n = 0;
	n += put_u64(b + n, 0x6478696f);
	n += put_u64(b + n, (1 << 8) | 34);
	n += put_str(b + n, "2.8.0");
	n += put_u64(b + n, 0x63787470); /* STDERR_ERROR */
	n += put_str(b + n, "not allowed");
	n += put_u64(b + n, 1);
	assert_int_equal(handshake(b, n, &info, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "not allowed"));

	/* Truncated mid-handshake. */
	n = 0;
	n += put_u64(b + n, 0x6478696f);
	n += put_u64(b + n, (1 << 8) | 35);
	n += put_str(b + n, "2.15.0");
	assert_int_equal(handshake(b, n, &info, err, sizeof(err)), -ECONNRESET);
}

static void no_socket(void **state)
{
	struct nix_daemon_info info;
	char err[256] = "";

	assert_int_equal(nix_daemon_query("/nonexistent/socket", 100, &info, err, sizeof(err)),
	                 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/socket"));
}

static void store_paths(void **state)
{
	const char *p = "/nix/store/0123456789abcdfghijklmnpqrsvwxyz-ripgrep-14.1.0/bin/rg";

	assert_int_equal(nix_store_path_len(p),
	                 strlen("/nix/store/"
	                        "0123456789abcdfghijklmnpqrsvwxyz-ripgrep-14.1.0"));
	assert_int_equal(nix_store_path_len("/nix/store/0123456789abcdfghijklmnpqrsvwxyz-x"),
	                 strlen("/nix/store/0123456789abcdfghijklmnpqrsvwxyz-x"));
	assert_int_equal(nix_store_path_len("/nix/store"), 0);
	assert_int_equal(nix_store_path_len("/nix/store/"), 0);
	assert_int_equal(nix_store_path_len("/nix/store/short-name"), 0);
	assert_int_equal(nix_store_path_len("/nix/storex/0123456789abcdfghijklmnpqrsvwxyz-x"), 0);
	assert_int_equal(nix_store_path_len("/usr/bin/rg"), 0);
}

static void closure_from_fake_nix_store(void **state)
{
	char dir[] = "/tmp/asb-nix-closure.XXXXXX";
	char script[256], err[256] = "";
	struct strv out = {0};
	char *const envp[] = {NULL};

	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof(script), "%s/nix-store", dir);
	FILE *f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n[ \"$1\" = -qR ] && [ \"$2\" = -- ] || exit 3\n"
	           "echo \"$3\"\necho /nix/store/0123456789abcdfghijklmnpqrsvwxyz-glibc-2.39\n");
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);

	assert_int_equal(nix_closure_add(script,
	                                 "/nix/store/0123456789abcdfghijklmnpqrsvwxyz-ripgrep-14",
	                                 envp, &out, err, sizeof(err)),
	                 0);
	assert_int_equal(nix_closure_add(script,
	                                 "/nix/store/0123456789abcdfghijklmnpqrsvwxyz-fd-10", envp,
	                                 &out, err, sizeof(err)),
	                 0);
	assert_int_equal(out.n, 3); /* glibc once */
	assert_string_equal(out.v[1], "/nix/store/0123456789abcdfghijklmnpqrsvwxyz-glibc-2.39");
	/* Not a store path: nix-store never prints that. */
	assert_int_equal(nix_closure_add(script, "/etc/passwd", envp, &out, err, sizeof(err)),
	                 -EPROTO);
	strv_clear(&out);
	unlink(script);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(trust_reported), cmocka_unit_test(old_daemon),
	    cmocka_unit_test(refusals),       cmocka_unit_test(no_socket),
	    cmocka_unit_test(store_paths),    cmocka_unit_test(closure_from_fake_nix_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
