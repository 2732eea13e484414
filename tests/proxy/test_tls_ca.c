/* The session CA vouches only for what the policy can allow: leaves it mints for
 * other names fail verification (name constraints, as OpenSSL enforces them), and
 * its validity is the session's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "netrules.h"
#include "tls_ca.h"

static struct netrules *rules_of(const char *text)
{
	config_t cfg;
	struct netrules *r = NULL;
	char err[256];
	config_init(&cfg);
	assert_true(config_read_string(&cfg, text));
	assert_int_equal(
	    netrules_from_setting(config_lookup(&cfg, "network"), &r, err, sizeof(err)), 0);
	config_destroy(&cfg);
	return r;
}

static X509 *ca_cert_of(struct tls_ca *ca)
{
	char path[] = "/tmp/asb-ca.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tls_ca_write_pem(ca, path), 0);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	unlink(path);
	assert_non_null(x);
	return x;
}

/* X509_V_OK or the error verifying the leaf minted for host gives. */
static int verify(struct tls_ca *ca, X509 *ca_cert, const char *host)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	SSL *ssl = SSL_new(ctx);
	assert_int_equal(tls_ca_use_leaf(ca, ssl, host), 0);
	X509 *leaf = SSL_get_certificate(ssl);
	X509_STORE *store = X509_STORE_new();
	X509_STORE_add_cert(store, ca_cert);
	X509_STORE_CTX *vctx = X509_STORE_CTX_new();
	X509_STORE_CTX_init(vctx, store, leaf, NULL);
	X509_STORE_CTX_set_purpose(vctx, X509_PURPOSE_SSL_SERVER);
	int ok = X509_verify_cert(vctx);
	int err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(vctx);
	X509_STORE_CTX_free(vctx);
	X509_STORE_free(store);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	return err;
}

static void expect(struct tls_ca *ca, X509 *cert, const char *host, int want)
{
	int got = verify(ca, cert, host);
	if (got != want)
		fail_msg("%s: %s, want %s", host, X509_verify_cert_error_string(got),
		         X509_verify_cert_error_string(want));
}

#define OK_      X509_V_OK
#define OUTSIDE  X509_V_ERR_PERMITTED_VIOLATION
#define EXCLUDED X509_V_ERR_EXCLUDED_VIOLATION

static void test_domains_and_ips(void **state)
{
	struct netrules *r = rules_of("network: { allowed_domains = ( \"a.test\", { domain = "
	                              "\"b.test\"; path = \"/x\"; }, \"10.1.2.3\", "
	                              "\"[2001:db8::5]\", \"b\xc3\xbc"
	                              "cher.de\" ); };");
	struct tls_ca *ca;
	assert_int_equal(tls_ca_new(r, 24, &ca), 0);
	X509 *cert = ca_cert_of(ca);
	expect(ca, cert, "a.test", OK_);
	expect(ca, cert, "deep.sub.a.test", OK_);
	expect(ca, cert, "b.test", OK_);
	expect(ca, cert, "10.1.2.3", OK_);
	expect(ca, cert, "2001:db8::5", OK_);
	expect(ca, cert, "evil.test", OUTSIDE);
	expect(ca, cert, "a.test.evil", OUTSIDE);
	expect(ca, cert, "xa.test", OUTSIDE);
	expect(ca, cert, "10.1.2.4", OUTSIDE);
	expect(ca, cert, "127.0.0.1", OUTSIDE);
	expect(ca, cert, "::1", OUTSIDE);

	int crit = -1;
	NAME_CONSTRAINTS *nc = X509_get_ext_d2i(cert, NID_name_constraints, &crit, NULL);
	assert_non_null(nc);
	assert_int_equal(crit, 1);
	NAME_CONSTRAINTS_free(nc);
	/* valid from an hour ago for the hours asked, leaves too */
	time_t now = time(NULL), t;
	t = now - 3600 - 5;
	assert_true(X509_cmp_time(X509_get0_notBefore(cert), &t) > 0);
	t = now - 3600 + 5;
	assert_true(X509_cmp_time(X509_get0_notBefore(cert), &t) < 0);
	t = now + 24 * 3600 + 5;
	assert_true(X509_cmp_time(X509_get0_notAfter(cert), &t) < 0);
	t = now + 24 * 3600 - 5;
	assert_true(X509_cmp_time(X509_get0_notAfter(cert), &t) > 0);
	X509_free(cert);
	tls_ca_free(ca);
	netrules_free(r);
}

static void test_star(void **state)
{
	struct netrules *r = rules_of("network: { allowed_domains = ( \"*\", \"a.test\" ); };");
	struct tls_ca *ca;
	assert_int_equal(tls_ca_new(r, 1, &ca), 0);
	X509 *cert = ca_cert_of(ca);
	expect(ca, cert, "anything.example", OK_); /* "*": names cannot be constrained */
	expect(ca, cert, "127.0.0.1", EXCLUDED);   /* addresses still are */
	expect(ca, cert, "::ffff:8.8.8.8", EXCLUDED);
	X509_free(cert);
	tls_ca_free(ca);
	netrules_free(r);
}

static void test_nothing_allowed(void **state)
{
	struct netrules *r = rules_of("network: { allowed_domains = ( ); };");
	struct tls_ca *ca;
	assert_int_equal(tls_ca_new(r, 1, &ca), 0);
	X509 *cert = ca_cert_of(ca);
	expect(ca, cert, "a.test", OUTSIDE);
	expect(ca, cert, "1.2.3.4", EXCLUDED);
	X509_free(cert);
	tls_ca_free(ca);
	netrules_free(r);
}

/* The CA's SubjectPublicKeyInfo (made by hand, tls_ca.c) is the DER OpenSSL's
 * own encoder gives for the same key, that key verifies the CA's signature
 * (made by hand too where OpenSSL has the EC functions), and its SKID is the
 * SHA-1 of the key's bits (RFC 5280, 4.2.1.2). */
static void spki_same_as_encoder(X509 *cert)
{
	EVP_PKEY *key = X509_get0_pubkey(cert);
	assert_non_null(key);
	assert_int_equal(X509_verify(cert, key), 1);
	assert_int_equal(X509_get_signature_nid(cert), NID_ecdsa_with_SHA256);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;
	const unsigned char *pk;
	int pk_len = 0;
	assert_int_equal(
	    X509_PUBKEY_get0_param(NULL, &pk, &pk_len, NULL, X509_get_X509_PUBKEY(cert)), 1);
	assert_int_equal(EVP_Digest(pk, (size_t)pk_len, md, &md_len, EVP_sha1(), NULL), 1);
	const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(cert);
	assert_non_null(skid);
	assert_int_equal(ASN1_STRING_length(skid), (int)md_len);
	assert_memory_equal(ASN1_STRING_get0_data(skid), md, md_len);
	X509 *ref = X509_new();
	assert_int_equal(X509_set_pubkey(ref, key), 1);
	unsigned char *ours = NULL, *theirs = NULL;
	int n_ours = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &ours);
	int n_theirs = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(ref), &theirs);
	assert_true(n_ours > 0);
	assert_int_equal(n_ours, n_theirs);
	assert_memory_equal(ours, theirs, (size_t)n_ours);
	OPENSSL_free(ours);
	OPENSSL_free(theirs);
	X509_free(ref);
}

/* The CA's key as written, and the leaves it signs. */
static void test_public_keys(void **state)
{
	struct netrules *r = rules_of("network: { allowed_domains = ( \"a.test\" ); };");
	struct tls_ca *ca;
	assert_int_equal(tls_ca_new(r, 1, &ca), 0);
	X509 *cert = ca_cert_of(ca);
	spki_same_as_encoder(cert);
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	SSL *ssl = SSL_new(ctx);
	assert_int_equal(tls_ca_use_leaf(ca, ssl, "a.test"), 0);
	X509 *leaf = SSL_get_certificate(ssl);
	assert_int_equal(X509_verify(leaf, X509_get0_pubkey(cert)), 1);
	/* the leaf's own key is the one its certificate names */
	assert_int_equal(SSL_check_private_key(ssl), 1);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	X509_free(cert);
	tls_ca_free(ca);
	netrules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_domains_and_ips),
	    cmocka_unit_test(test_star),
	    cmocka_unit_test(test_nothing_allowed),
	    cmocka_unit_test(test_public_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
