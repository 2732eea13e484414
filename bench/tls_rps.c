/* HTTPS requests/s through a CONNECT proxy (what wrk cannot do): CONNS threads,
 * each with one kept-alive TLS connection through the proxy, sending GETs for
 * SECONDS; prints "RESULT requests/s". Built by bench/proxy.sh.
 *
 *   tls_rps PROXY_PORT HOST PORT CA_FILE PATH SECONDS CONNS [HEADER [BODY_BYTES]]
 *
 * With BODY_BYTES, POSTs of that many bytes instead. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static int proxy_port, port, seconds;
static const char *host, *cafile, *path, *header;
static size_t body_len;
static atomic_long total;
static atomic_int stop;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One response: the head, then Content-Length bytes. */
static int read_response(SSL *ssl, char *buf, size_t cap)
{
	size_t len = 0;
	char *end = NULL;
	while (!end) {
		int n = SSL_read(ssl, buf + len, (int)(cap - len - 1));
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	const char *cl = strcasestr(buf, "\r\nContent-Length:");
	size_t want = cl ? (size_t)strtoul(cl + 17, NULL, 10) : 0;
	size_t have = len - (size_t)(end + 4 - buf);
	while (have < want) {
		int n = SSL_read(ssl, buf, (int)cap);
		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
	return strncmp(buf, "HTTP/1.1 200", 12) == 0 || have >= want ? 0 : -1;
}

static void *worker(void *arg)
{
	SSL_CTX *ctx = arg;
	char buf[65536], req[4096 + 65536];
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)proxy_port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return NULL;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	int n = snprintf(req, sizeof(req), "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host,
	                 port, host, port);
	if (write(fd, req, (size_t)n) != n || read(fd, buf, sizeof(buf)) <= 0 ||
	    strncmp(buf, "HTTP/1.1 200", 12) != 0)
		return NULL;
	SSL *ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	SSL_set_tlsext_host_name(ssl, host);
	if (SSL_connect(ssl) != 1)
		return NULL;
	char cl[64] = "";
	if (body_len)
		snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", body_len);
	n = snprintf(req, 4096, "%s %s HTTP/1.1\r\nHost: %s:%d\r\n%s%s%s\r\n",
	             body_len ? "POST" : "GET", path, host, port, header && *header ? header : "",
	             header && *header ? "\r\n" : "", cl);
	memset(req + n, 'a', body_len);
	n += (int)body_len;
	long done = 0;
	while (!atomic_load(&stop)) {
		if (SSL_write(ssl, req, n) != n || read_response(ssl, buf, sizeof(buf)) < 0)
			break;
		done++;
	}
	atomic_fetch_add(&total, done);
	SSL_free(ssl);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 8) {
		fprintf(
		    stderr,
		    "usage: tls_rps PROXY_PORT HOST PORT CA_FILE PATH SECONDS CONNS [HEADER]\n");
		return 2;
	}
	proxy_port = atoi(argv[1]);
	host = argv[2];
	port = atoi(argv[3]);
	cafile = argv[4];
	path = argv[5];
	seconds = atoi(argv[6]);
	int conns = atoi(argv[7]);
	header = argc > 8 ? argv[8] : NULL;
	body_len = argc > 9 ? (size_t)strtoul(argv[9], NULL, 10) : 0;
	if (body_len > 65536)
		body_len = 65536;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL_CTX_load_verify_locations(ctx, cafile, NULL);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	pthread_t *t = calloc((size_t)conns, sizeof(*t));
	double t0 = now();
	for (int i = 0; i < conns; i++)
		pthread_create(&t[i], NULL, worker, ctx);
	sleep((unsigned)seconds);
	atomic_store(&stop, 1);
	for (int i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	printf("RESULT %.0f\n", (double)atomic_load(&total) / (now() - t0));
	SSL_CTX_free(ctx);
	free(t);
	return 0;
}
