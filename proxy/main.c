/* agentsandbox-proxy: the filtering HTTP/HTTPS proxy. Parses options, loads the
 * rules, makes the session CA, listens, and runs the loop. */
#include "conn.h"
#include "fdpass.h"
#include "hostaddr.h"
#include "log.h"
#include "netrules.h"
#include "tls_ca.h"
#include "tls_init.h"
#include "upstream.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef ASB_VERSION
#define ASB_VERSION "unknown"
#endif

#define PROG "agentsandbox-proxy"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: " PROG " --config FILE (--listen HOST:PORT | --listen unix:PATH | "
	    "--listen-fd N) [options]\n"
	    "\n"
	    "The filtering HTTP/HTTPS proxy of agentsandbox. Reads the `network` group of an\n"
	    "agentsandbox config file and allows only what its allowed_domains permit; HTTPS\n"
	    "(CONNECT) is intercepted with a per-session CA so methods and paths are checked.\n"
	    "\n"
	    "  --config FILE        agentsandbox config file (only `network` is read)\n"
	    "  --listen HOST:PORT   listen on a TCP address ([v6]:port too; port 0 picks one)\n"
	    "  --listen unix:PATH   listen on a unix socket\n"
	    "  --listen-fd N        accept on an already-listening socket\n"
	    "  --listen-fd-from N   ... which arrives later (SCM_RIGHTS) on the unix socket N:\n"
	    "                       the CA is made by then, the log and --ca-out are written\n"
	    "                       after it, or on a \"W\" before it (how the launcher starts\n"
	    "                       the proxy before its session and the sandbox it listens\n"
	    "                       in exist)\n"
	    "  --ca-out FILE        write the session CA certificate (PEM, mode 0644); it\n"
	    "                       vouches only for the allowed domains (name constraints)\n"
	    "  --ca-validity H      hours the session CA is valid (default 168: a week)\n"
	    "  --log FILE           allow/deny log (default: stderr)\n"
	    "  --log-max BYTES      stop writing the log at this size (default 16M; 0: no cap)\n"
	    "  --log-rate N         log lines a second per kind: allowed, blocked, proxy\n"
	    "                       (default 100, bursts of 10 s worth); beyond it repeats\n"
	    "                       and drops are counted and reported\n"
	    "  --ready-fd N         write one byte to N once listening and the CA is written\n"
	    "  --secrets-fd N       read the credentials' values from N (until EOF), once the\n"
	    "                       CA is made: how the launcher hands them over\n"
	    "                       (network.credentials); closed unused, the proxy exits\n"
	    "  --check              validate the rules, print warnings, exit\n"
	    "  --header-timeout S   seconds for a request head to arrive (default 30)\n"
	    "  --idle-timeout S     seconds an idle keep-alive connection lives (default 60)\n"
	    "  --connect-timeout S  seconds to reach a server (default 10)\n"
	    "  --io-timeout S       seconds without traffic on an exchange (default 600)\n"
	    "  --max-conns N        concurrent client connections; beyond, a 503 (default 256,\n"
	    "                       fewer when RLIMIT_NOFILE is low)\n"
	    "  --client-sockbuf B   send and receive buffer of each client socket (default 128K)\n"
	    "  --upstream-sockbuf B ... of each server socket (default 256K); fixed sizes, so\n"
	    "                       the kernel cannot grow them for a client that stops reading.\n"
	    "                       The proxy logs the bound they give at start.\n"
	    "  --help, --version\n"
	    "\n"
	    "The limits can also be set in the config, which the flags override:\n"
	    "  network.proxy_limits = { max_connections = 256; client_buffer = \"128K\";\n"
	    "    server_buffer = \"256K\"; log_max = \"16M\"; log_rate = 100;\n"
	    "    ca_validity_hours = 168; };\n"
	    "\n"
	    "Proxy environment variables (http_proxy, ...) are never used.\n");
}

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static int die(const char *fmt, ...)
{
	va_list ap;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int parse_int(const char *s, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0' || v < min || v > max)
		die("%s: \"%s\" is not a number between %ld and %ld", what, s, min, max);
	return (int)v;
}

static double parse_secs(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(v > 0) || v > 86400)
		die("%s: \"%s\" is not a number of seconds", what, s);
	return v;
}

/* A size: digits with an optional K, M or G (powers of 1024). */
static size_t parse_size(const char *s, size_t max, const char *what)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (errno || *s < '0' || *s > '9' || *end != '\0' || v > (max >> shift))
		die("%s: \"%s\" is not a size up to %zu (K, M, G suffixes allowed)", what, s, max);
	return (size_t)(v << shift);
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sun.sun_path))
		die("--listen unix:%s: path too long", path);
	strcpy(sun.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	unlink(path); /* a stale socket from an earlier run */
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 1024) < 0)
		die("--listen unix:%s: %s", path, strerror(errno));
	return fd;
}

static int listen_tcp(const char *spec)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(host))
		die("--listen %s: expected HOST:PORT or unix:PATH", spec);
	size_t hl = (size_t)(colon - spec);
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
	                         .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE},
	                *res;
	int rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc != 0)
		die("--listen %s: %s (a numeric address is needed)", spec, gai_strerror(rc));
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 4096) < 0)
		die("--listen %s: %s", spec, strerror(errno));
	freeaddrinfo(res);
	return fd;
}

static int adopt_fd(int fd)
{
	int acc = 0;
	socklen_t l = sizeof(acc);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 || !acc)
		die("--listen-fd %d: not a listening socket", fd);
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		die("--listen-fd %d: %s", fd, strerror(errno));
	return fd;
}

/* What the proxy writes (the log, the CA certificate), once the launcher's
 * session directory exists. */
struct outputs {
	const char *log_path, *ca_out;
	long long log_max;
	const struct tls_ca *ca;
	char *const *warnings;
	bool written;
};

static void write_outputs(struct outputs *o)
{
	if (o->written)
		return;
	o->written = true;
	if (plog_open(o->log_path, (size_t)o->log_max) < 0)
		die("--log %s: %s", o->log_path, strerror(errno));
	for (char *const *w = o->warnings; o->log_path && w && *w; w++)
		plog_info("warning: %s", *w);
	if (o->ca_out) {
		int rc = tls_ca_write_pem(o->ca, o->ca_out);
		if (rc < 0)
			die("--ca-out %s: %s", o->ca_out, strerror(-rc));
	}
}

/* The listener made elsewhere (in the sandbox's namespace), sent over `via`
 * once it exists ("L" with it); a "W" before it says the session directory
 * exists: the outputs are written then, while the sandbox that will hold
 * the listener is still being set up. The launcher closing the channel
 * instead means it gave up: nothing to do. */
static int receive_listener(int via, struct outputs *o)
{
	for (;;) {
		char byte = 0;
		int fd = -1;
		ssize_t n = fd_recv(via, &byte, 1, &fd);
		if (n == 0 && fd < 0)
			exit(0);
		if (n < 0)
			die("--listen-fd-from %d: %s", via, strerror((int)-n));
		if (fd < 0 && byte == 'W') {
			write_outputs(o);
			continue;
		}
		if (fd < 0)
			die("--listen-fd-from %d: no socket came", via);
		close(via);
		return fd;
	}
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	ev_break(loop, EVBREAK_ALL);
}

static void on_log_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	plog_tick();
}

/* What one session can make the host hold, said once at start. Linux doubles the
 * buffer sizes set (for its bookkeeping); pipes exist only for plain HTTP bodies. */
static void log_limits(const struct proxy *px, size_t log_max, unsigned log_rate)
{
	size_t per_conn = 4 * (size_t)(px->client_sockbuf) + 4 * (size_t)(px->upstream_sockbuf) +
	                  2 * (size_t)PROXY_PIPE_SIZE;
	char logcap[64] = "no cap";
	if (log_max)
		snprintf(logcap, sizeof(logcap), "capped at %zu KiB", log_max >> 10);
	plog_info("limits: %zu connections; socket buffers %d KiB (client) and %d KiB (server) "
	          "each way; at most %zu MiB of kernel buffers in all; log %s, %u lines a second "
	          "per kind",
	          px->max_conns, px->client_sockbuf >> 10, px->upstream_sockbuf >> 10,
	          (px->max_conns * per_conn) >> 20, logcap, log_rate);
}

/* Room for every connection's fds: client, server and two splice pipes. */
static size_t raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 256;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	size_t n = rl.rlim_cur == RLIM_INFINITY ? 65536 : (size_t)rl.rlim_cur;
	return n > 64 ? n - 64 : n;
}

int main(int argc, char **argv)
{
	enum {
		O_CONFIG = 256,
		O_LISTEN,
		O_LISTEN_FD,
		O_LISTEN_FD_FROM,
		O_CA_OUT,
		O_CA_VALIDITY,
		O_LOG,
		O_LOG_MAX,
		O_LOG_RATE,
		O_CHECK,
		O_READY_FD,
		O_SECRETS_FD,
		O_HEADER_TO,
		O_IDLE_TO,
		O_CONNECT_TO,
		O_IO_TO,
		O_MAX_CONNS,
		O_CLIENT_SOCKBUF,
		O_UPSTREAM_SOCKBUF,
		O_HELP,
		O_VERSION,
	};
	static const struct option opts[] = {
	    {"config", required_argument, NULL, O_CONFIG},
	    {"listen", required_argument, NULL, O_LISTEN},
	    {"listen-fd", required_argument, NULL, O_LISTEN_FD},
	    {"listen-fd-from", required_argument, NULL, O_LISTEN_FD_FROM},
	    {"ca-out", required_argument, NULL, O_CA_OUT},
	    {"ca-validity", required_argument, NULL, O_CA_VALIDITY},
	    {"log", required_argument, NULL, O_LOG},
	    {"log-max", required_argument, NULL, O_LOG_MAX},
	    {"log-rate", required_argument, NULL, O_LOG_RATE},
	    {"check", no_argument, NULL, O_CHECK},
	    {"ready-fd", required_argument, NULL, O_READY_FD},
	    {"secrets-fd", required_argument, NULL, O_SECRETS_FD},
	    {"header-timeout", required_argument, NULL, O_HEADER_TO},
	    {"idle-timeout", required_argument, NULL, O_IDLE_TO},
	    {"connect-timeout", required_argument, NULL, O_CONNECT_TO},
	    {"io-timeout", required_argument, NULL, O_IO_TO},
	    {"max-conns", required_argument, NULL, O_MAX_CONNS},
	    {"client-sockbuf", required_argument, NULL, O_CLIENT_SOCKBUF},
	    {"upstream-sockbuf", required_argument, NULL, O_UPSTREAM_SOCKBUF},
	    {"help", no_argument, NULL, O_HELP},
	    {"version", no_argument, NULL, O_VERSION},
	    {0},
	};
	const char *config = NULL, *listen_spec = NULL, *ca_out = NULL, *log_path = NULL;
	/* Limits: a flag, else network.proxy_limits, else the default (0 / -1: not given). */
	int listen_fd = -1, listen_via = -1, ready_fd = -1, secrets_fd = -1, max_conns = 0,
	    log_rate = 0, opt;
	long long log_max = -1;
	unsigned ca_validity = 0;
	bool check = false;
	struct proxy px = {
	    .header_timeout = 30,
	    .idle_timeout = 60,
	    .connect_timeout = 10,
	    .io_timeout = 600,
	};

	if (tls_init_early() < 0)
		die("cannot set up OpenSSL");
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case O_CONFIG:
			config = optarg;
			break;
		case O_LISTEN:
			listen_spec = optarg;
			break;
		case O_LISTEN_FD:
			listen_fd = parse_int(optarg, 0, 65535, "--listen-fd");
			break;
		case O_LISTEN_FD_FROM:
			listen_via = parse_int(optarg, 0, 65535, "--listen-fd-from");
			break;
		case O_CA_OUT:
			ca_out = optarg;
			break;
		case O_CA_VALIDITY:
			ca_validity = (unsigned)parse_int(optarg, 1, 24 * 366, "--ca-validity");
			break;
		case O_LOG:
			log_path = optarg;
			break;
		case O_LOG_MAX:
			log_max = (long long)parse_size(optarg, (size_t)1 << 40, "--log-max");
			break;
		case O_LOG_RATE:
			log_rate = parse_int(optarg, 1, 1000000, "--log-rate");
			break;
		case O_CHECK:
			check = true;
			break;
		case O_READY_FD:
			ready_fd = parse_int(optarg, 0, 65535, "--ready-fd");
			break;
		case O_SECRETS_FD:
			secrets_fd = parse_int(optarg, 0, 65535, "--secrets-fd");
			break;
		case O_HEADER_TO:
			px.header_timeout = parse_secs(optarg, "--header-timeout");
			break;
		case O_IDLE_TO:
			px.idle_timeout = parse_secs(optarg, "--idle-timeout");
			break;
		case O_CONNECT_TO:
			px.connect_timeout = parse_secs(optarg, "--connect-timeout");
			break;
		case O_IO_TO:
			px.io_timeout = parse_secs(optarg, "--io-timeout");
			break;
		case O_MAX_CONNS:
			max_conns = parse_int(optarg, 1, 1 << 20, "--max-conns");
			break;
		case O_CLIENT_SOCKBUF:
			px.client_sockbuf = (int)parse_size(optarg, 64u << 20, "--client-sockbuf");
			if (px.client_sockbuf < 4096)
				die("--client-sockbuf: at least 4K");
			break;
		case O_UPSTREAM_SOCKBUF:
			px.upstream_sockbuf =
			    (int)parse_size(optarg, 64u << 20, "--upstream-sockbuf");
			if (px.upstream_sockbuf < 4096)
				die("--upstream-sockbuf: at least 4K");
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		case O_VERSION:
			printf(PROG " %s\n", ASB_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		die("unexpected argument \"%s\" (see --help)", argv[optind]);
	if (!config)
		die("--config FILE is required (see --help)");

	char err[1024];
	struct netrules *rules;
	if (netrules_load_file(config, &rules, err, sizeof(err)) < 0)
		die("%s", err);
	for (char **w = rules->warnings; w && *w; w++)
		fprintf(stderr, PROG ": warning: %s\n", *w);
	if (!rules->filtering)
		die("%s: network.allowed_domains is not set: the network is open and no proxy is "
		    "needed",
		    config);

	/* Nothing of the secrets is ever on a command line, in the environment or
	 * in a file. This process is not dumpable before they come, so no other
	 * process of the user reads them (or the CA's key) from its memory. */
	if (secrets_fd >= 0)
		prctl(PR_SET_DUMPABLE, 0);
	else if (rules->creds.n && !check) {
		for (size_t i = 0; i < rules->creds.n; i++)
			fprintf(stderr,
			        PROG
			        ": warning: credential %s: no --secrets-fd, so it is not used\n",
			        rules->creds.v[i].name);
	}

	struct hosts_table *hosts = NULL;
	if (rules->hosts_file && hosts_load(rules->hosts_file, &hosts, err, sizeof(err)) < 0)
		die("hosts_file: %s", err);
	/* The TLS contexts wait for the first connection that needs them
	 * (proxy_tls_ctxs), but a CA file that does not load is an error now. */
	if ((check || rules->upstream_ca_file) &&
	    upstream_tls_ctx(rules->upstream_ca_file, &px.client_ctx) < 0)
		die("upstream_ca_file %s: cannot load it", rules->upstream_ca_file);
	if (check) {
		printf("%s: %zu allowed_domains entr%s; ok\n", config, rules->n_rules,
		       rules->n_rules == 1 ? "y" : "ies");
		SSL_CTX_free(px.client_ctx);
		hosts_free(hosts);
		netrules_free(rules);
		return 0;
	}

	int n_listen = (listen_spec != NULL) + (listen_fd >= 0) + (listen_via >= 0);
	if (n_listen != 1)
		die("give exactly one of --listen, --listen-fd or --listen-fd-from");
	const struct netrules_limits *lim = &rules->limits;
#define PICK(flag, conf, def) ((flag) ? (flag) : (conf) ? (conf) : (def))
	log_rate = (int)PICK(log_rate, lim->log_rate, PLOG_DEFAULT_RATE);
	log_max = log_max >= 0 ? log_max : lim->log_max_set ? lim->log_max : PLOG_DEFAULT_MAX;
	ca_validity =
	    (unsigned)PICK(ca_validity, lim->ca_validity_hours, TLS_CA_DEFAULT_VALIDITY_HOURS);
	px.client_sockbuf =
	    (int)PICK(px.client_sockbuf, lim->client_buffer, PROXY_DEFAULT_CLIENT_SOCKBUF);
	px.upstream_sockbuf =
	    (int)PICK(px.upstream_sockbuf, lim->server_buffer, PROXY_DEFAULT_UPSTREAM_SOCKBUF);
	max_conns = (int)PICK(max_conns, lim->max_connections, 0);
#undef PICK
	plog_set_rate((unsigned)log_rate);

	/* What takes time first (OpenSSL's set-up, the CA): the launcher starts
	 * this process early, and plans and sets up the sandbox meanwhile. */
	if (tls_ca_new(rules, ca_validity, &px.ca) < 0)
		die("cannot create the session CA");

	signal(SIGPIPE, SIG_IGN);
	size_t fds = raise_nofile();
	/* Each connection may hold six fds: client, server, two pipes. */
	px.max_conns =
	    max_conns ? (size_t)max_conns
	              : (fds / 6 < PROXY_DEFAULT_MAX_CONNS ? fds / 6 : PROXY_DEFAULT_MAX_CONNS);
	px.loop = EV_DEFAULT;
	px.rules = rules;
	px.hosts = hosts;
	if (dns_init(px.loop) < 0)
		die("resolver: %s", strerror(errno));
	int hrc = hostaddr_init();
	if (hrc < 0)
		die("cannot open a routing socket (to recognise the host's own addresses): %s",
		    strerror(-hrc));

	/* All that needs no listener is done. The secrets and the listener
	 * come once the launcher has them; it closing either unused means it
	 * gave up: nothing to do. */
	static struct creds creds;
	if (secrets_fd >= 0) {
		int rc = creds_load(&creds, rules, secrets_fd, err, sizeof(err));
		if (rc == -ENODATA)
			exit(0);
		if (rc < 0)
			die("%s", err);
		px.creds = &creds;
	}
	struct outputs out = {.log_path = log_path,
	                      .ca_out = ca_out,
	                      .log_max = log_max,
	                      .ca = px.ca,
	                      .warnings = rules->warnings};
	if (listen_via >= 0)
		px.listen_fd = adopt_fd(receive_listener(listen_via, &out));
	else if (listen_fd >= 0)
		px.listen_fd = adopt_fd(listen_fd);
	else if (strncmp(listen_spec, "unix:", 5) == 0)
		px.listen_fd = listen_unix(listen_spec + 5);
	else
		px.listen_fd = listen_tcp(listen_spec);
	/* Accepted sockets inherit the listener's buffer sizes (and their lock). */
	if (setsockopt(px.listen_fd, SOL_SOCKET, SO_RCVBUF, &px.client_sockbuf,
	               sizeof(px.client_sockbuf)) < 0 ||
	    setsockopt(px.listen_fd, SOL_SOCKET, SO_SNDBUF, &px.client_sockbuf,
	               sizeof(px.client_sockbuf)) < 0)
		die("--client-sockbuf: %s", strerror(errno));
	/* The log and the CA go where the launcher's session directory is by
	 * now (it exists before the sandbox that holds the listener). */
	write_outputs(&out);
	px.self_len = sizeof(px.self);
	getsockname(px.listen_fd, (struct sockaddr *)&px.self, &px.self_len);
	if (px.self.ss_family == AF_INET || px.self.ss_family == AF_INET6) {
		char h[64], p[8];
		if (getnameinfo((struct sockaddr *)&px.self, px.self_len, h, sizeof(h), p,
		                sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV) == 0)
			plog_info("listening on %s%s%s:%s", strchr(h, ':') ? "[" : "", h,
			          strchr(h, ':') ? "]" : "", p);
	}
	log_limits(&px, log_path ? (size_t)log_max : 0, (unsigned)log_rate);
	ev_signal sigterm, sigint;
	ev_signal_init(&sigterm, on_signal, SIGTERM);
	ev_signal_init(&sigint, on_signal, SIGINT);
	ev_signal_start(px.loop, &sigterm);
	ev_signal_start(px.loop, &sigint);
	ev_timer log_tick;
	ev_timer_init(&log_tick, on_log_tick, 1, 1);
	ev_timer_start(px.loop, &log_tick);
	proxy_start(&px);

	if (ready_fd >= 0) {
		ssize_t w = write(ready_fd, "1", 1);
		(void)w;
		close(ready_fd);
	}
	ev_run(px.loop, 0);
	proxy_stop(&px);
	plog_flush();
	close(px.listen_fd);
	if (listen_spec && strncmp(listen_spec, "unix:", 5) == 0)
		unlink(listen_spec + 5);
	SSL_CTX_free(px.server_ctx);
	SSL_CTX_free(px.client_ctx);
	tls_ca_free(px.ca);
	hosts_free(hosts);
	creds_free(&creds);
	netrules_free(rules);
	return 0;
}
