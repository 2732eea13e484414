/* Session CA and leaf minting. */
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
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
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

/* The CA's P-256 key as its certificate's SubjectPublicKeyInfo, made here:
 * X509_set_pubkey builds it through OpenSSL 3's encoders, whose first use
 * (setting up every provider's encoder) costs ~1.5 ms of CPU at the proxy's
 * start. The same DER (id-ecPublicKey, the named curve, the uncompressed
 * point): tests/proxy/test_tls_ca.c compares the two. The certificate then
 * has no decoded key of its own (X509_get0_pubkey): nothing asks the CA's,
 * its SKID is a hash of these bits. A leaf, which SSL_use_certificate
 * checks against its key, keeps X509_set_pubkey, after the launch. */
static int set_ca_pubkey(X509 *x, EVP_PKEY *key)
{
	unsigned char point[65]; /* 04 || X || Y */
	size_t len = 0;
	if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point,
	                                    sizeof(point), &len) != 1 ||
	    len != sizeof(point) || point[0] != POINT_CONVERSION_UNCOMPRESSED)
		return -EINVAL;
	unsigned char *bits = OPENSSL_memdup(point, len);
	if (!bits)
		return -ENOMEM;
	if (X509_PUBKEY_set0_param(X509_get_X509_PUBKEY(x), OBJ_nid2obj(NID_X9_62_id_ecPublicKey),
	                           V_ASN1_OBJECT, OBJ_nid2obj(NID_X9_62_prime256v1), bits,
	                           (int)len) != 1) {
		OPENSSL_free(bits);
		return -EIO;
	}
	return 0;
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
	ca->ca_key = EVP_EC_gen("P-256");
	if (!ca->ca_key || RAND_bytes(id, sizeof(id)) != 1)
		return -EIO;
	snprintf(cn, sizeof(cn), "agentsandbox session CA %02x%02x%02x%02x", id[0], id[1], id[2],
	         id[3]);
	ca->ca_cert = new_cert(cn, ca->made + ca->lifetime);
	if (!ca->ca_cert || set_ca_pubkey(ca->ca_cert, ca->ca_key) < 0 ||
	    !X509_set_issuer_name(ca->ca_cert, X509_get_subject_name(ca->ca_cert)) ||
	    add_ext(ca->ca_cert, ca->ca_cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") <
	        0 ||
	    add_ext(ca->ca_cert, ca->ca_cert, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
	    add_ext(ca->ca_cert, ca->ca_cert, NID_subject_key_identifier, "hash") < 0 ||
	    add_name_constraints(ca->ca_cert, rules) < 0 ||
	    !X509_sign(ca->ca_cert, ca->ca_key, EVP_sha256()))
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
