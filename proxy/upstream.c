/* Resolution, connects and upstream TLS. */
#include "upstream.h"

#include "tls_init.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509v3.h>

struct hosts_entry {
	char *name;
	struct host_addr addr;
	uint16_t port; /* "ADDRESS:PORT NAME": dial that port whatever was asked; 0: as asked */
};

struct hosts_table {
	struct hosts_entry *e;
	size_t n;
};

void hosts_free(struct hosts_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].name);
	free(t->e);
	free(t);
}

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* /etc/hosts syntax: "ADDRESS NAME [NAME...]", '#' comments; "ADDRESS:PORT" (an
 * IPv6 one in brackets) also moves the port, so tests and mirrors can stand in
 * for https://name/ on a port of their own. */
int hosts_load(const char *path, struct hosts_table **out, char *err, size_t errlen)
{
	__attribute__((cleanup(fclosep))) FILE *f = fopen(path, "re");
	struct hosts_table *t;
	char line[1024];
	int lineno = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *hash = strchr(line, '#');
		struct host_addr a;
		lineno++;
		if (hash)
			*hash = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		uint16_t port = 0;
		/* A port: after "a.b.c.d:" or "[v6]:" (a bare IPv6 address has colons of its own).
		 */
		char *colon = strrchr(tok, ':');
		if (colon && (tok[0] == '[' ? colon[-1] == ']' : strchr(tok, ':') == colon)) {
			char *end;
			unsigned long v = strtoul(colon + 1, &end, 10);
			if (colon[1] < '0' || colon[1] > '9' || *end || v == 0 || v > 65535) {
				snprintf(err, errlen, "%s:%d: \"%s\": a bad port", path, lineno,
				         tok);
				hosts_free(t);
				return -EINVAL;
			}
			port = (uint16_t)v;
			*colon = '\0';
			if (tok[0] == '[' && colon[-1] == ']') {
				colon[-1] = '\0';
				tok++;
			}
		}
		if (host_parse_ip(tok, &a) != 1) {
			snprintf(err, errlen, "%s:%d: \"%s\" is not an IP address", path, lineno,
			         tok);
			hosts_free(t);
			return -EINVAL;
		}
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			char norm[HOST_MAX];
			bool is_ip;
			if (host_normalize(tok, strlen(tok), norm, sizeof(norm), &is_ip) < 0 ||
			    is_ip) {
				snprintf(err, errlen, "%s:%d: \"%s\" is not a host name", path,
				         lineno, tok);
				hosts_free(t);
				return -EINVAL;
			}
			struct hosts_entry *ne = realloc(t->e, (t->n + 1) * sizeof(*ne));
			if (!ne) {
				hosts_free(t);
				return -ENOMEM;
			}
			t->e = ne;
			t->e[t->n].addr = a;
			t->e[t->n].port = port;
			if (!(t->e[t->n].name = strdup(norm))) {
				hosts_free(t);
				return -ENOMEM;
			}
			t->n++;
		}
	}
	*out = t;
	return 0;
}

size_t hosts_lookup(const struct hosts_table *t, const char *name, struct host_addr *out,
                    size_t max, uint16_t *port)
{
	size_t n = 0;
	for (size_t i = 0; t && i < t->n && n < max; i++)
		if (strcmp(t->e[i].name, name) == 0) {
			if (n == 0 && port)
				*port = t->e[i].port;
			if (t->e[i].port == (port ? *port : 0) || !port)
				out[n++] = t->e[i].addr;
		}
	return n;
}

/* Resolver threads hand finished jobs back through a pipe the loop watches. */
struct dns_job {
	struct dns_job *next; /* waiting for a thread */
	char name[HOST_MAX];
	dns_cb cb;
	void *arg;
	bool cancelled;
	int err;
	struct host_addr addrs[UPSTREAM_MAX_ADDRS];
	size_t n;
};

#define DNS_THREADS 32 /* lookups in flight; more wait in line */

static int dns_pipe[2] = {-1, -1};
static ev_io dns_watcher;
static size_t dns_running;
static struct dns_job *dns_queue, **dns_tail = &dns_queue;

static int dns_spawn(struct dns_job *job);

static void *dns_thread(void *p)
{
	struct dns_job *job = p;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG}, *res;
	int rc = getaddrinfo(job->name, NULL, &hints, &res);

	if (rc != 0) {
		job->err = rc == EAI_NONAME || rc == EAI_NODATA ? -ENOENT : -EHOSTUNREACH;
	} else {
		for (struct addrinfo *ai = res; ai && job->n < UPSTREAM_MAX_ADDRS; ai = ai->ai_next)
			if (host_addr_from_sockaddr(ai->ai_addr, &job->addrs[job->n]) == 0)
				job->n++;
		freeaddrinfo(res);
		if (job->n == 0)
			job->err = -ENOENT;
	}
	/* A pointer is smaller than PIPE_BUF: the write is atomic. */
	ssize_t w = write(dns_pipe[1], &job, sizeof(job));
	(void)w;
	return NULL;
}

static void dns_ready(struct ev_loop *loop, ev_io *w, int revents)
{
	struct dns_job *job;
	while (read(dns_pipe[0], &job, sizeof(job)) == (ssize_t)sizeof(job)) {
		dns_running--;
		if (!job->cancelled)
			job->cb(job->arg, job->err, job->addrs, job->n);
		free(job);
	}
	while (dns_queue && dns_running < DNS_THREADS) {
		struct dns_job *next = dns_queue;
		dns_queue = next->next;
		if (!dns_queue)
			dns_tail = &dns_queue;
		if (next->cancelled) {
			free(next);
		} else if (dns_spawn(next) < 0) {
			next->cb(next->arg, -EAGAIN, NULL, 0);
			free(next);
		}
	}
}

int dns_init(struct ev_loop *loop)
{
	if (pipe2(dns_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	ev_io_init(&dns_watcher, dns_ready, dns_pipe[0], EV_READ);
	ev_io_start(loop, &dns_watcher);
	return 0;
}

static int dns_spawn(struct dns_job *job)
{
	pthread_attr_t attr;
	pthread_t th;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	rc = pthread_create(&th, &attr, dns_thread, job);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return -rc;
	dns_running++;
	return 0;
}

int dns_start(const char *name, dns_cb cb, void *arg, struct dns_job **out)
{
	struct dns_job *job = calloc(1, sizeof(*job));
	int rc;

	if (!job)
		return -ENOMEM;
	snprintf(job->name, sizeof(job->name), "%s", name);
	job->cb = cb;
	job->arg = arg;
	if (dns_running >= DNS_THREADS) {
		*dns_tail = job;
		dns_tail = &job->next;
	} else if ((rc = dns_spawn(job)) < 0) {
		free(job);
		return rc;
	}
	*out = job;
	return 0;
}

void dns_cancel(struct dns_job *job)
{
	if (job)
		job->cancelled =
		    true; /* freed by dns_ready when its thread reports or it leaves the line */
}

int upstream_connect(const struct host_addr *a, uint16_t port, int sockbuf, int *fd_out)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int one = 1;

	if (a->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
		sin->sin_family = AF_INET;
		sin->sin_addr = a->v4;
		sin->sin_port = htons(port);
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = a->v6;
		sin6->sin6_port = htons(port);
		len = sizeof(*sin6);
	}
	int fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (sockbuf > 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof(sockbuf)) < 0 ||
	                    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof(sockbuf)) < 0)) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS) {
		int e = -errno;
		close(fd);
		return e;
	}
	*fd_out = fd;
	return 0;
}

int upstream_connect_result(int fd)
{
	int e = 0;
	socklen_t l = sizeof(e);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
		return -errno;
	return -e;
}

/* The system trust store. Parsing the whole bundle file costs ~25 ms at every
 * start; the hashed certificate directory is read on demand instead. An
 * explicit SSL_CERT_FILE/SSL_CERT_DIR, or a host without the directory, gets
 * OpenSSL's defaults. */
static int load_system_trust(SSL_CTX *ctx)
{
	static SSL_CTX *loaded; /* once per context: the first TLS upstream pays */
	if (loaded == ctx)
		return 1;
	const char *dir = X509_get_default_cert_dir();
	struct stat st;
	int ok;
	if (getenv(X509_get_default_cert_file_env()) || getenv(X509_get_default_cert_dir_env()) ||
	    !dir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		ok = SSL_CTX_set_default_verify_paths(ctx);
	else
		ok = SSL_CTX_load_verify_dir(ctx, dir);
	if (ok == 1)
		loaded = ctx;
	return ok;
}

int upstream_tls_ctx(const char *extra_ca_file, SSL_CTX **out)
{
	static const unsigned char alpn[] = "\x08http/1.1";
	tls_load_system_config();
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx)
		return -ENOMEM;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
	                          SSL_MODE_ENABLE_PARTIAL_WRITE);
	/* One read() per burst of records rather than two per record. */
	SSL_CTX_set_read_ahead(ctx, 1);
	if ((extra_ca_file && SSL_CTX_load_verify_locations(ctx, extra_ca_file, NULL) != 1) ||
	    SSL_CTX_set_alpn_protos(ctx, alpn, sizeof(alpn) - 1) != 0) {
		SSL_CTX_free(ctx);
		return -EINVAL;
	}
	*out = ctx;
	return 0;
}

int upstream_tls_new(SSL_CTX *ctx, int fd, const char *host, SSL **out)
{
	/* The system roots load on first use, not at start: parsing a bundle
	 * file (SSL_CERT_FILE) costs tens of ms on every sandbox launch. */
	if (load_system_trust(ctx) != 1)
		return -EINVAL;
	struct host_addr ip;
	bool is_ip = host_parse_ip(host, &ip) == 1;
	SSL *ssl = SSL_new(ctx);

	if (!ssl)
		return -ENOMEM;
	if (SSL_set_fd(ssl, fd) != 1 || (!is_ip && SSL_set_tlsext_host_name(ssl, host) != 1) ||
	    (is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
	           : SSL_set1_host(ssl, host)) != 1) {
		SSL_free(ssl);
		return -EINVAL;
	}
	SSL_set_connect_state(ssl);
	*out = ssl;
	return 0;
}
