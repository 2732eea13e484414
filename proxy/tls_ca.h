/* The per-session CA: an EC P-256 key and self-signed certificate made at start
 * (the key never leaves this process), and leaf certificates minted per host with
 * the right subjectAltName, cached. */
#pragma once

#include <openssl/ssl.h>
#include <stdbool.h>

struct tls_ca;

int tls_ca_new(struct tls_ca **out);
void tls_ca_free(struct tls_ca *ca);

/* Write the CA certificate (PEM, mode 0644) atomically: temp file then rename. */
int tls_ca_write_pem(const struct tls_ca *ca, const char *path);

/* Put a leaf certificate for host (a normalised name or IP literal) and its key on
 * ssl. Certificates are cached per host. */
int tls_ca_use_leaf(struct tls_ca *ca, SSL *ssl, const char *host);
