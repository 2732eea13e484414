/* The way out: name resolution (hosts_file first, then the system resolver on a
 * worker thread so the loop never blocks), non-blocking connects and the
 * verifying TLS client context. */
#pragma once

#include "hostcheck.h"

#include <ev.h>
#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#define UPSTREAM_MAX_ADDRS 8

struct hosts_table;

int hosts_load(const char *path, struct hosts_table **out, char *err, size_t errlen);
void hosts_free(struct hosts_table *t);
/* Addresses listed for name (normalised); 0 when not listed. *port (when given):
 * the port its first line moves the connection to, 0 for none (lines with
 * another port are left out). */
size_t hosts_lookup(const struct hosts_table *t, const char *name, struct host_addr *out,
                    size_t max, uint16_t *port);

typedef void (*dns_cb)(void *arg, int err, const struct host_addr *addrs, size_t n);
struct dns_job;

int dns_init(struct ev_loop *loop);
/* Resolve name on a worker thread; cb runs on the loop unless cancelled first. */
int dns_start(const char *name, dns_cb cb, void *arg, struct dns_job **out);
void dns_cancel(struct dns_job *job);

/* Start a non-blocking connect; 0 or -errno. The caller waits for writability and
 * then checks SO_ERROR with upstream_connect_result. sockbuf > 0 fixes the socket's
 * send and receive buffers (before the SYN, so the window is scaled for them). */
int upstream_connect(const struct host_addr *a, uint16_t port, int sockbuf, int *fd_out);
int upstream_connect_result(int fd);

/* Verifies against the system trust store plus extra_ca_file (may be NULL). */
int upstream_tls_ctx(const char *extra_ca_file, SSL_CTX **out);
/* A client SSL for host with SNI (names only) and name/IP verification. */
int upstream_tls_new(SSL_CTX *ctx, int fd, const char *host, SSL **out);
