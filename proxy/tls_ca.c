/* Session CA and leaf minting. */
#if ASB_OPENSSL_LOWLEVEL
#define OPENSSL_SUPPRESS_DEPRECATED /* EC_KEY, ECDSA_do_sign_ex, SHA*_Init: see ca_key_new */
#endif
#include "tls_ca.h"
#include "hostcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>

#define CACHE_SLOTS 1024 /* direct-mapped: bounded memory, a miss only costs a signature */

struct leaf_slot {
	char *host;
	X509 *cert;
};

struct tls_ca {
	EVP_PKEY *ca_key;
	X509 *ca_cert;
	long lifetime; /* seconds from now the CA was made for */
	time_t made;
	EVP_PKEY *leaf_key; /* one key for all leaves: minting is then one signature;
	                     * made with the first leaf, off the launch's path */
	struct leaf_slot cache[CACHE_SLOTS];
};

void tls_ca_free(struct tls_ca *ca)
{
	if (!ca)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		free(ca->cache[i].host);
		X509_free(ca->cache[i].cert);
	}
	EVP_PKEY_free(ca->ca_key);
	EVP_PKEY_free(ca->leaf_key);
	X509_free(ca->ca_cert);
	free(ca);
}

static void tls_ca_freep(struct tls_ca **ca)
{
	tls_ca_free(*ca);
}

static void x509_freep(X509 **x)
{
	X509_free(*x);
}

static int set_serial(X509 *x)
{
	unsigned char buf[16];
	if (RAND_bytes(buf, sizeof(buf)) != 1)
		return -EIO;
	buf[0] &= 0x7f; /* positive */
	BIGNUM *bn = BN_bin2bn(buf, sizeof(buf), NULL);
	int ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
	BN_free(bn);
	return ok ? 0 : -EIO;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ext)
		return -EINVAL;
	int ok = X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -EIO;
}

#define EC_POINT_LEN 65 /* P-256, uncompressed: 04 || X || Y */

#if ASB_OPENSSL_LOWLEVEL
/* The CA's key, its point, and later its self-signature, through OpenSSL's
 * EC functions rather than EVP: EVP's first key generation and signature
 * fetch their algorithms from the provider, which sets up every key manager,
 * digest and signature OpenSSL has: ~2.7 ms of CPU at each proxy's start,
 * for one key and one signature. These fetch nothing. They are deprecated
 * in OpenSSL 3 but in every 3.x; where they are not (ASB_OPENSSL_LOWLEVEL is
 * 0), EVP makes both. Leaves are signed through EVP, after the launch. */
static int ca_key_new(struct tls_ca *ca, unsigned char point[EC_POINT_LEN])
{
	EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
	if (!key || EC_KEY_generate_key(key) != 1 ||
	    EC_POINT_point2oct(EC_KEY_get0_group(key), EC_KEY_get0_public_key(key),
	                       POINT_CONVERSION_UNCOMPRESSED, point, EC_POINT_LEN,
	                       NULL) != EC_POINT_LEN ||
	    !(ca->ca_key = EVP_PKEY_new()) || EVP_PKEY_assign_EC_KEY(ca->ca_key, key) != 1) {
		EC_KEY_free(key);
		return -EIO;
	}
	return 0;
}

static int sha1(const unsigned char *data, size_t len, unsigned char out[SHA_DIGEST_LENGTH])
{
	SHA_CTX c;
	return SHA1_Init(&c) == 1 && SHA1_Update(&c, data, len) == 1 && SHA1_Final(out, &c) == 1
	           ? 0
	           : -EIO;
}

static void ec_key_freep(EC_KEY **key)
{
	EC_KEY_free(*key);
}

/* ecdsa-with-SHA256 over the to-be-signed part, set as X509_sign sets it:
 * the algorithm in both places, the DER signature as the bit string. The
 * nonce is drawn from the random generator (ECDSA_sign_setup without a
 * digest), not derived from the key and digest: that derivation fetches
 * SHA-512. */
static int ca_self_sign(struct tls_ca *ca)
{
	X509 *x = ca->ca_cert;
	__attribute__((cleanup(ec_key_freep))) EC_KEY *key = EVP_PKEY_get1_EC_KEY(ca->ca_key);
	const ASN1_BIT_STRING *sig_bits;
	const X509_ALGOR *outer;
	X509_get0_signature(&sig_bits, &outer, x);
	/* X509_sign's own way in, const in the API but owned by x. */
	if (!key ||
	    X509_ALGOR_set0((X509_ALGOR *)X509_get0_tbs_sigalg(x),
	                    OBJ_nid2obj(NID_ecdsa_with_SHA256), V_ASN1_UNDEF, NULL) != 1 ||
	    X509_ALGOR_set0((X509_ALGOR *)outer, OBJ_nid2obj(NID_ecdsa_with_SHA256), V_ASN1_UNDEF,
	                    NULL) != 1)
		return -EIO;
	unsigned char *tbs = NULL, digest[SHA256_DIGEST_LENGTH];
	int tbs_len = i2d_re_X509_tbs(x, &tbs);
	if (tbs_len <= 0)
		return -EIO;
	SHA256_CTX c;
	int hashed = SHA256_Init(&c) == 1 && SHA256_Update(&c, tbs, (size_t)tbs_len) == 1 &&
	             SHA256_Final(digest, &c) == 1;
	OPENSSL_free(tbs);
	if (!hashed)
		return -EIO;
	BIGNUM *kinv = NULL, *r = NULL;
	ECDSA_SIG *sig = NULL;
	unsigned char *der = NULL;
	int der_len = -1;
	if (ECDSA_sign_setup(key, NULL, &kinv, &r) == 1 &&
	    (sig = ECDSA_do_sign_ex(digest, sizeof(digest), kinv, r, key)))
		der_len = i2d_ECDSA_SIG(sig, &der);
	ECDSA_SIG_free(sig);
	BN_clear_free(kinv);
	BN_clear_free(r);
	ASN1_BIT_STRING *bits = (ASN1_BIT_STRING *)sig_bits;
	int ok = der_len > 0 && ASN1_BIT_STRING_set(bits, der, der_len) == 1;
	OPENSSL_free(der);
	if (!ok)
		return -EIO;
	/* No unused bits, as X509_sign leaves it. */
	bits->flags &= ~(ASN1_STRING_FLAG_BITS_LEFT | 0x07);
	bits->flags |= ASN1_STRING_FLAG_BITS_LEFT;
	return 0;
}
#else
static int ca_key_new(struct tls_ca *ca, unsigned char point[EC_POINT_LEN])
{
	size_t len = 0;
	if (!(ca->ca_key = EVP_EC_gen("P-256")) ||
	    EVP_PKEY_get_octet_string_param(ca->ca_key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point,
	                                    EC_POINT_LEN, &len) != 1 ||
	    len != EC_POINT_LEN)
		return -EIO;
	return 0;
}

static int sha1(const unsigned char *data, size_t len, unsigned char out[SHA_DIGEST_LENGTH])
{
	return EVP_Digest(data, len, out, NULL, EVP_sha1(), NULL) == 1 ? 0 : -EIO;
}

static int ca_self_sign(struct tls_ca *ca)
{
	return X509_sign(ca->ca_cert, ca->ca_key, EVP_sha256()) ? 0 : -EIO;
}
#endif

/* The CA's P-256 key as its certificate's SubjectPublicKeyInfo, made here:
 * X509_set_pubkey builds it through OpenSSL 3's encoders, whose first use
 * (setting up every provider's encoder) costs ~1.5 ms of CPU at the proxy's
 * start. The same DER (id-ecPublicKey, the named curve, the uncompressed
 * point): tests/proxy/test_tls_ca.c compares the two. The certificate then
 * has no decoded key of its own (X509_get0_pubkey): nothing asks the CA's.
 * Its SKID is RFC 5280's first method, the SHA-1 of these bits (as
 * "hash" makes it, which would fetch SHA-1). A leaf, which
 * SSL_use_certificate checks against its key, keeps X509_set_pubkey, after
 * the launch. */
static int set_ca_pubkey(X509 *x, const unsigned char point[EC_POINT_LEN])
{
	if (point[0] != POINT_CONVERSION_UNCOMPRESSED)
		return -EINVAL;
	unsigned char *bits = OPENSSL_memdup(point, EC_POINT_LEN);
	if (!bits)
		return -ENOMEM;
	if (X509_PUBKEY_set0_param(X509_get_X509_PUBKEY(x), OBJ_nid2obj(NID_X9_62_id_ecPublicKey),
	                           V_ASN1_OBJECT, OBJ_nid2obj(NID_X9_62_prime256v1), bits,
	                           EC_POINT_LEN) != 1) {
		OPENSSL_free(bits);
		return -EIO;
	}
	unsigned char id[SHA_DIGEST_LENGTH];
	if (sha1(point, EC_POINT_LEN, id) < 0)
		return -EIO;
	ASN1_OCTET_STRING *skid = ASN1_OCTET_STRING_new();
	int ok = skid && ASN1_OCTET_STRING_set(skid, id, sizeof(id)) == 1 &&
	         X509_add1_ext_i2d(x, NID_subject_key_identifier, skid, 0, X509V3_ADD_DEFAULT) == 1;
	ASN1_OCTET_STRING_free(skid);
	return ok ? 0 : -EIO;
}

/* Common skeleton: serial, validity (backdated an hour for clock skew) up to
 * not_after, name; the caller sets the key. */
static X509 *new_cert(const char *cn, time_t not_after)
{
	X509 *x = X509_new();
	if (!x)
		return NULL;
	X509_NAME *name = X509_get_subject_name(x);
	if (!X509_set_version(x, 2) || set_serial(x) < 0 ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
	    !ASN1_TIME_set(X509_getm_notAfter(x), not_after) ||
	    !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
	                                (const unsigned char *)"agentsandbox", -1, -1, 0) ||
	    (cn && !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn,
	                                       -1, -1, 0))) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static int add_subtree(STACK_OF(GENERAL_SUBTREE) * *sk, int type, const void *data, int len)
{
	GENERAL_SUBTREE *st = GENERAL_SUBTREE_new();
	ASN1_STRING *v = type == GEN_DNS ? ASN1_IA5STRING_new() : ASN1_OCTET_STRING_new();
	if (!st || !v || !ASN1_STRING_set(v, data, len) ||
	    !(*sk || (*sk = sk_GENERAL_SUBTREE_new_null()))) {
		GENERAL_SUBTREE_free(st);
		ASN1_STRING_free(v);
		return -ENOMEM;
	}
	GENERAL_NAME_set0_value(st->base, type, v);
	if (!sk_GENERAL_SUBTREE_push(*sk, st)) {
		GENERAL_SUBTREE_free(st);
		return -ENOMEM;
	}
	return 0;
}

/* See tls_ca.h for what is permitted. */
static int add_name_constraints(X509 *cert, const struct netrules *rules)
{
	static const unsigned char none4[8], none6[32]; /* 0.0.0.0/0, ::/0 */
	NAME_CONSTRAINTS *nc = NAME_CONSTRAINTS_new();
	bool star = false, any_dns = false, any_ip = false;
	int rc = nc ? 0 : -ENOMEM;

	for (size_t i = 0; rules && rc == 0 && i < rules->n_rules; i++) {
		const struct netrule *r = &rules->rules[i];
		struct host_addr a;
		unsigned char ip[32];
		if (!r->ascii)
			continue; /* can never match */
		if (strcmp(r->domain, "*") == 0) {
			star = true;
		} else if (r->is_ip && host_parse_ip(r->domain, &a) == 1) {
			size_t n = a.family == AF_INET ? 4 : 16;
			memcpy(ip, a.family == AF_INET ? (void *)&a.v4 : (void *)&a.v6, n);
			memset(ip + n, 0xff, n); /* the mask: this one address */
			rc = add_subtree(&nc->permittedSubtrees, GEN_IPADD, ip, (int)(2 * n));
			any_ip = true;
		} else {
			any_dns = true;
		}
	}
	for (size_t i = 0; rules && !star && rc == 0 && i < rules->n_rules; i++) {
		const struct netrule *r = &rules->rules[i];
		if (r->ascii && !r->is_ip)
			rc = add_subtree(&nc->permittedSubtrees, GEN_DNS, r->domain,
			                 (int)strlen(r->domain));
	}
	if (rc == 0 && !star && !any_dns)
		rc = add_subtree(&nc->permittedSubtrees, GEN_DNS, "invalid", 7);
	if (rc == 0 && !any_ip) {
		rc = add_subtree(&nc->excludedSubtrees, GEN_IPADD, none4, sizeof(none4));
		if (rc == 0)
			rc = add_subtree(&nc->excludedSubtrees, GEN_IPADD, none6, sizeof(none6));
	}
	if (rc == 0 &&
	    X509_add1_ext_i2d(cert, NID_name_constraints, nc, 1, X509V3_ADD_DEFAULT) != 1)
		rc = -EIO;
	NAME_CONSTRAINTS_free(nc);
	return rc;
}

int tls_ca_new(const struct netrules *rules, unsigned validity_hours, struct tls_ca **out)
{
	__attribute__((cleanup(tls_ca_freep))) struct tls_ca *ca = calloc(1, sizeof(*ca));
	char cn[64];
	unsigned char id[4];

	if (!ca)
		return -ENOMEM;
	ca->made = time(NULL);
	ca->lifetime = (long)validity_hours * 3600;
	unsigned char point[EC_POINT_LEN];
	if (ca_key_new(ca, point) < 0 || RAND_bytes(id, sizeof(id)) != 1)
		return -EIO;
	snprintf(cn, sizeof(cn), "agentsandbox session CA %02x%02x%02x%02x", id[0], id[1], id[2],
	         id[3]);
	ca->ca_cert = new_cert(cn, ca->made + ca->lifetime);
	if (!ca->ca_cert ||
	    !X509_set_issuer_name(ca->ca_cert, X509_get_subject_name(ca->ca_cert)) ||
	    add_ext(ca->ca_cert, ca->ca_cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") <
	        0 ||
	    add_ext(ca->ca_cert, ca->ca_cert, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
	    set_ca_pubkey(ca->ca_cert, point) < 0 || add_name_constraints(ca->ca_cert, rules) < 0 ||
	    ca_self_sign(ca) < 0)
		return -EIO;
	*out = ca;
	ca = NULL;
	return 0;
}

int tls_ca_write_pem(const struct tls_ca *ca, const char *path)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = -errno;
		close(fd);
		unlink(tmp);
		return e;
	}
	int ok = fchmod(fd, 0644) == 0 && PEM_write_X509(f, ca->ca_cert);
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) < 0) {
		int e = errno ? -errno : -EIO;
		unlink(tmp);
		return e;
	}
	return 0;
}

static X509 *mint_leaf(struct tls_ca *ca, const char *host)
{
	struct host_addr ip;
	char san[HOST_MAX + 8];
	bool is_ip = host_parse_ip(host, &ip) == 1;

	/* CN is capped at 64 characters; the SAN is what clients check anyway. An IP
	 * leaf has none: name-constraint checks would take an address there for a DNS
	 * name, outside the permitted ones. */
	__attribute__((cleanup(x509_freep))) X509 *x =
	    new_cert(!is_ip && strlen(host) < 64 ? host : NULL, ca->made + ca->lifetime);
	snprintf(san, sizeof(san), "%s:%s", is_ip ? "IP" : "DNS", host);
	if (!x || !X509_set_pubkey(x, ca->leaf_key) ||
	    !X509_set_issuer_name(x, X509_get_subject_name(ca->ca_cert)) ||
	    add_ext(x, ca->ca_cert, NID_subject_alt_name, san) < 0 ||
	    add_ext(x, ca->ca_cert, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
	    add_ext(x, ca->ca_cert, NID_key_usage, "critical,digitalSignature") < 0 ||
	    add_ext(x, ca->ca_cert, NID_ext_key_usage, "serverAuth") < 0 ||
	    add_ext(x, ca->ca_cert, NID_authority_key_identifier, "keyid:always") < 0 ||
	    !X509_sign(x, ca->ca_key, EVP_sha256()))
		return NULL;
	X509 *ret = x;
	x = NULL;
	return ret;
}

static size_t slot_of(const char *host)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *p = host; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return (size_t)(h % CACHE_SLOTS);
}

int tls_ca_use_leaf(struct tls_ca *ca, SSL *ssl, const char *host)
{
	struct leaf_slot *slot = &ca->cache[slot_of(host)];

	if (!ca->leaf_key && !(ca->leaf_key = EVP_EC_gen("P-256")))
		return -EIO;
	if (!slot->host || strcmp(slot->host, host) != 0) {
		X509 *cert = mint_leaf(ca, host);
		char *dup = strdup(host);
		if (!cert || !dup) {
			X509_free(cert);
			free(dup);
			return -EIO;
		}
		free(slot->host);
		X509_free(slot->cert);
		slot->host = dup;
		slot->cert = cert;
	}
	if (SSL_use_certificate(ssl, slot->cert) != 1 || SSL_use_PrivateKey(ssl, ca->leaf_key) != 1)
		return -EIO;
	return 0;
}
