/* Client connections: the request/response state machine on one libev loop. */
#pragma once

#include "creds.h"
#include "netrules.h"
#include "tls_ca.h"
#include "upstream.h"

#include <ev.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

/* Per-session bounds on what the sandbox can make the host hold (README, --help).
 * Socket buffers are fixed, so the kernel cannot autotune them to megabytes for
 * a client that stops reading; Linux doubles what is set, for its bookkeeping. */
#define PROXY_DEFAULT_MAX_CONNS        256
#define PROXY_DEFAULT_CLIENT_SOCKBUF   (128u << 10) /* each way, on the sandbox's side */
#define PROXY_DEFAULT_UPSTREAM_SOCKBUF (256u << 10) /* each way, towards servers */
#define PROXY_PIPE_SIZE                (256u << 10) /* per direction, plain HTTP bodies */

struct proxy {
	struct ev_loop *loop;
	const struct netrules *rules;
	struct creds *creds; /* network.credentials and the guard (creds.h); NULL: none */
	const struct hosts_table *hosts;
	struct tls_ca *ca;
	/* Made on first use (proxy_tls_ctxs): OpenSSL's set-up of a context is
	 * the larger part of the proxy's start, which every launch waits for. */
	SSL_CTX *server_ctx; /* towards clients, leaves minted per host */
	SSL_CTX *client_ctx; /* towards servers, always verifying */
	int listen_fd;
	ev_io listen_io;
	struct sockaddr_storage self; /* where we listen: dialing it is refused */
	socklen_t self_len;
	size_t n_conns, max_conns; /* beyond max_conns a new connection gets a 503 */
	int client_sockbuf, upstream_sockbuf;
	ev_timer accept_retry; /* out of fds: accepting pauses a moment */
	struct conn *conns;    /* every open connection, to close them at exit */
	double header_timeout, idle_timeout, connect_timeout, io_timeout;
};

int proxy_server_tls_ctx(SSL_CTX **out);
/* Both contexts, made now if they were not yet: 0 or -errno. */
int proxy_tls_ctxs(struct proxy *px);
/* Start accepting on px->listen_fd (already listening, non-blocking). */
void proxy_start(struct proxy *px);
/* Stop accepting and close every connection. */
void proxy_stop(struct proxy *px);
