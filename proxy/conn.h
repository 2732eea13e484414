/* Client connections: the request/response state machine on one libev loop. */
#pragma once

#include "netrules.h"
#include "tls_ca.h"
#include "upstream.h"

#include <ev.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

struct proxy {
	struct ev_loop *loop;
	const struct netrules *rules;
	const struct hosts_table *hosts;
	struct tls_ca *ca;
	SSL_CTX *server_ctx; /* towards clients, leaves minted per host */
	SSL_CTX *client_ctx; /* towards servers, always verifying */
	int listen_fd;
	ev_io listen_io;
	struct sockaddr_storage self; /* where we listen: dialing it is refused */
	socklen_t self_len;
	size_t n_conns, max_conns;
	struct conn *conns; /* every open connection, to close them at exit */
	double header_timeout, idle_timeout, connect_timeout, io_timeout;
};

int proxy_server_tls_ctx(SSL_CTX **out);
/* Start accepting on px->listen_fd (already listening, non-blocking). */
void proxy_start(struct proxy *px);
/* Stop accepting and close every connection. */
void proxy_stop(struct proxy *px);
