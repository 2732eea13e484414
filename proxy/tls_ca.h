/* The per-session CA: an EC P-256 key and self-signed certificate made at start
 * (the key never leaves this process), and leaf certificates minted per host with
 * the right subjectAltName, cached.
 *
 * The CA can vouch only for what the policy can allow: a critical nameConstraints
 * extension permits each allowed domain (and its subdomains) as a dNSName subtree
 * and each allowed IP literal as a single iPAddress; without IP entries every
 * address is excluded, without domain entries only names under "invalid" (RFC 6761,
 * never minted) are permitted. A "*" entry allows any name, so it leaves names
 * unconstrained; addresses stay constrained (rules allow an IP only by an entry
 * naming it). Clients that honour name constraints (OpenSSL, Go, NSS, GnuTLS,
 * rustls) then refuse a leaf for anything else even if the key leaked. Valid from
 * an hour ago for validity_hours; leaves never outlive it. */
#pragma once

#include "netrules.h"

#include <openssl/ssl.h>
#include <stdbool.h>

#define TLS_CA_DEFAULT_VALIDITY_HOURS 168 /* a week: longer than any session should be */

struct tls_ca;

int tls_ca_new(const struct netrules *rules, unsigned validity_hours, struct tls_ca **out);
void tls_ca_free(struct tls_ca *ca);

/* Write the CA certificate (PEM, mode 0644) atomically: temp file then rename. */
int tls_ca_write_pem(const struct tls_ca *ca, const char *path);

/* Put a leaf certificate for host (a normalised name or IP literal) and its key on
 * ssl. Certificates are cached per host. */
int tls_ca_use_leaf(struct tls_ca *ca, SSL *ssl, const char *host);
