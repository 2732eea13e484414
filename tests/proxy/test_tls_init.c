/* OpenSSL's set-up (proxy/tls_init.c): a Hash_DRBG from the start, no
 * configuration file read until TLS is first needed, and then the system's
 * (OPENSSL_CONF here) applied to the contexts made after. One process: what
 * OpenSSL loads, it loads once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>
#include <openssl/ssl.h>

#include "tls_init.h"
#include "upstream.h"

static void test_early_then_system_config(void **state)
{
	(void)state;
	/* A system_default section, as crypto policies write one. */
	char conf[] = "/tmp/asb-openssl-conf.XXXXXX";
	int fd = mkstemp(conf);
	assert_true(fd >= 0);
	static const char text[] = "openssl_conf = init\n"
	                           "[init]\nssl_conf = ssl\n"
	                           "[ssl]\nsystem_default = sysdef\n"
	                           "[sysdef]\nMaxProtocol = TLSv1.2\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	setenv("OPENSSL_CONF", conf, 1);

	assert_int_equal(tls_init_early(), 0);
	unsigned char buf[16];
	assert_int_equal(RAND_bytes(buf, sizeof(buf)), 1);
	EVP_RAND_CTX *drbg = RAND_get0_public(NULL);
	assert_non_null(drbg);
	assert_string_equal(EVP_RAND_get0_name(EVP_RAND_CTX_get0_rand(drbg)), "HASH-DRBG");

	/* Not read yet: a context made without tls_load_system_config has
	 * OpenSSL's own defaults. */
	SSL_CTX *before = SSL_CTX_new(TLS_client_method());
	assert_non_null(before);
	assert_int_equal(SSL_CTX_get_max_proto_version(before), 0);
	SSL_CTX_free(before);

	/* The proxy's own contexts load it first. */
	SSL_CTX *ctx = NULL;
	assert_int_equal(upstream_tls_ctx(NULL, &ctx), 0);
	assert_int_equal(SSL_CTX_get_max_proto_version(ctx), TLS1_2_VERSION);
	SSL_CTX_free(ctx);
	unlink(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_early_then_system_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
