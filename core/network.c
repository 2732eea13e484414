/* SPDX-License-Identifier: MIT */
#include "network.h"

#include "allowlist.h"
#include "bridge.h"
#include "config.h"
#include "fdpass.h"
#include "log.h"
#include "netrules.h"
#include "util.h"

#include <agentsandbox/plugin.h>

#include "exec.h"
#include "spawn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define READY_TIMEOUT_MS 10000
#define EXIT_GRACE_MS    2000 /* a program that closed its ready pipe, until it is reaped */
#define SYSTEM_BUNDLE    "/etc/ssl/certs/ca-certificates.crt"

const char *network_mode_name(int mode)
{
	switch (mode) {
	case NET_FILTERED:
		return "filtered";
	case NET_OPEN:
		return "open";
	default:
		return "off";
	}
}

void network_init(struct network *n)
{
	*n = (struct network){.ca_fd = -1,
	                      .host_listen_fd = -1,
	                      .proxy_ready = -1,
	                      .proxy_via = -1,
	                      .proxy_secrets = -1,
	                      .spawn_netns_fd = -1,
	                      .route_fd = -1};
	n->proxy = CHILD_NONE;
	for (size_t i = 0; i < NET_MAX_PORTS; i++)
		n->published[i].fd = -1;
}

static int port_of(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT64 ? (int)config_setting_get_int64(s)
	                                                   : config_setting_get_int(s);
}

static int read_ports(struct network *n, const config_setting_t *g)
{
	const config_setting_t *s = config_setting_get_member(g, "host_ports");
	if (s && config_setting_type(s) == CONFIG_TYPE_STRING) {
		n->all_host_ports = true; /* validated as "all" by config.c */
	} else if (s) {
		for (int i = 0; i < config_setting_length(s); i++) {
			if (n->n_host_ports == NET_MAX_PORTS) {
				err_set("%s: network.host_ports: at most %d ports", config_where(s),
				        NET_MAX_PORTS);
				return -E2BIG;
			}
			n->host_ports[n->n_host_ports++] =
			    (uint16_t)port_of(config_setting_get_elem(s, (unsigned)i));
		}
	}
	s = config_setting_get_member(g, "published_ports");
	for (int i = 0; s && i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (n->n_published == NET_MAX_PORTS) {
			err_set("%s: network.published_ports: at most %d ports", config_where(e),
			        NET_MAX_PORTS);
			return -E2BIG;
		}
		struct published *pub = &n->published[n->n_published++];
		snprintf(pub->bind, sizeof(pub->bind), "127.0.0.1");
		if (config_setting_type(e) == CONFIG_TYPE_GROUP) {
			pub->port = (uint16_t)port_of(config_setting_get_member(e, "port"));
			const config_setting_t *b = config_setting_get_member(e, "bind");
			if (b) {
				struct in_addr a;
				if (config_setting_type(b) != CONFIG_TYPE_STRING ||
				    inet_pton(AF_INET, config_setting_get_string(b), &a) != 1) {
					err_set("%s: network.published_ports: bind must be an IPv4 "
					        "address such as \"127.0.0.1\" or \"0.0.0.0\"",
					        config_where(b));
					return -EINVAL;
				}
				snprintf(pub->bind, sizeof(pub->bind), "%s",
				         config_setting_get_string(b));
			}
		} else {
			pub->port = (uint16_t)port_of(e);
		}
	}
	return 0;
}

int network_configure(struct network *n, const struct policy *p)
{
	char err[512] = "";
	int r = netrules_from_setting(p->network, &n->rules, err, sizeof(err));
	if (r < 0) {
		err_set("%s", err[0] ? err : "network: invalid");
		return r;
	}
	if (!p->network_enabled.value)
		n->mode = NET_OFF;
	else
		n->mode = n->rules->filtering ? NET_FILTERED : NET_OPEN;
	/* The proxy prints its rules' warnings itself when it starts. */
	for (char **w = n->rules->warnings; w && *w; w++)
		log_msg(n->mode == NET_FILTERED ? LOG_INFO : LOG_WARN, "%s", *w);
	if (p->network && (r = read_ports(n, p->network)) < 0)
		return r;
	if (n->all_host_ports && n->mode != NET_OPEN) {
		err_set("%s: network.host_ports = \"all\" needs the open network mode (reached at "
		        "%s:PORT); list the ports in the %s mode",
		        p->config_file ? p->config_file : "(config)",
		        platform_engine_layout()->gateway, network_mode_name(n->mode));
		return -EINVAL;
	}
	for (size_t i = 0; i < n->n_host_ports; i++)
		if (n->mode == NET_FILTERED && n->host_ports[i] == NET_PROXY_PORT) {
			err_set(
			    "network.host_ports: %d is where the filtering proxy listens inside",
			    NET_PROXY_PORT);
			return -EINVAL;
		}
	return 0;
}

static int ports_into_plan(const struct network *n, struct plan *plan)
{
	plan->net_mode = (uint32_t)n->mode;
	plan->net_flags = n->all_host_ports ? ASB_NET_F_ALL_HOST_PORTS : 0;
	if (n->made_at_spawn)
		plan->net_flags |= ASB_NET_F_IN_NAMESPACE;
	plan->proxy_port = n->mode == NET_FILTERED ? n->proxy_port : 0;
	if (n->n_host_ports) {
		if (!(plan->host_ports = calloc(n->n_host_ports, sizeof(uint16_t))))
			return -ENOMEM;
		memcpy(plan->host_ports, n->host_ports, n->n_host_ports * sizeof(uint16_t));
		plan->n_host_ports = n->n_host_ports;
	}
	if (n->n_published) {
		if (!(plan->published_ports = calloc(n->n_published, sizeof(uint16_t))))
			return -ENOMEM;
		for (size_t i = 0; i < n->n_published; i++)
			plan->published_ports[i] = n->published[i].port;
		plan->n_published_ports = n->n_published;
	}
	return 0;
}

/* The bundle the sandbox trusts (the system roots plus the session CA):
 * written once the proxy made its CA, but exposed now (a backend sets up
 * its view before the core wires the network), so the file exists already:
 * it is made beside the session directories, linked into the session's once
 * that exists, and its first name goes at exit. */
static int add_ca_bundle(struct network *n, struct plan *plan, const char *state_root,
                         const char *session_dir, uint64_t caps)
{
	int r;
	bool remap = caps & ASB_CAP_REMAP;
	const char *inside = remap ? NET_CA_BUNDLE : NULL;
	_cleanup_free_ char *shown = NULL;
	if (!state_root) {
		/* --show-config: show where it would be. */
		if (!(shown = str_printf("%s/ca-bundle.pem", session_dir)))
			return -ENOMEM;
		if ((r = plan_path_unopened(plan, ASB_ENTRY_READ, shown,
		                            remap ? NET_CA_BUNDLE : NULL, 0, "network")) < 0)
			return r;
		inside = remap ? NET_CA_BUNDLE : shown;
	} else {
		if ((r = mkdir_p(state_root, 0700)) < 0)
			return r;
		_cleanup_free_ char *tmpl =
		    str_printf("%s/.new-%d-ca-XXXXXX", state_root, (int)getpid());
		if (!tmpl)
			return -ENOMEM;
		int fd = mkstemp(tmpl);
		if (fd < 0)
			return -errno;
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		fchmod(fd, 0644);
		n->ca_fd = fd;
		n->ca_tmp_path = TAKE_PTR(tmpl);
		if ((r = plan_path(plan, ASB_ENTRY_READ, n->ca_tmp_path, inside, 0, "network")) < 0)
			return r;
		/* Programs that ignore the variables read the system bundle. */
		struct stat st;
		if (remap && stat(SYSTEM_BUNDLE, &st) == 0 &&
		    (r = plan_path(plan, ASB_ENTRY_READ, n->ca_tmp_path, SYSTEM_BUNDLE, 0,
		                   "network")) < 0)
			return r;
		if (!inside)
			inside = n->ca_tmp_path;
	}
	static const char *const ca_vars[] = {"SSL_CERT_FILE",
	                                      "NIX_SSL_CERT_FILE",
	                                      "REQUESTS_CA_BUNDLE",
	                                      "CURL_CA_BUNDLE",
	                                      "GIT_SSL_CAINFO",
	                                      "NODE_EXTRA_CA_CERTS",
	                                      NULL};
	for (const char *const *v = ca_vars; *v; v++)
		if ((r = plan_setenv(plan, *v, inside)) < 0)
			return r;
	return 0;
}

/* A backend that shares the host's loopback gets the proxy on a port of it,
 * bound now so that the port is known to the plan. */
static int bind_host_listener(struct network *n)
{
	int fd = socket_cloexec(AF_INET, SOCK_STREAM, true);
	if (fd < 0)
		return fd;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof(sa);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	n->host_listen_fd = fd;
	n->proxy_port = ntohs(sa.sin_port);
	return 0;
}

int network_plan(struct network *n, struct plan *plan, const char *state_root,
                 const char *session_dir, uint64_t caps)
{
	int r;
	n->in_namespace = caps & ASB_CAP_NETNS;
	/* Where the backend's sandbox can live in the namespace its command
	 * starts in, the core makes it then: wired from the spawn on, not
	 * from the backend's own clone on. */
	n->made_at_spawn = n->in_namespace && (caps & ASB_CAP_NETNS_INHERIT) &&
	                   network_needs_wiring(n) && platform_netns_at_spawn_usable();
	n->proxy_port = NET_PROXY_PORT;
	if (n->mode == NET_FILTERED && !n->in_namespace) {
		if (state_root && (r = bind_host_listener(n)) < 0) {
			err_set("cannot listen for the filtering proxy on 127.0.0.1: %s",
			        strerror(-r));
			return r;
		}
	}
	if ((r = ports_into_plan(n, plan)) < 0)
		return r;
	/* Without a route there is no resolver either; the open mode's engine
	 * has its own. Only where the backend places files. */
	if (caps & ASB_CAP_FILES) {
		static const char no_resolver[] =
		    "# agentsandbox: no resolver in this network mode\n";
		_cleanup_free_ char *engine_resolver =
		    str_printf("nameserver %s\n", platform_engine_layout()->resolver);
		if (!engine_resolver)
			return -ENOMEM;
		bool open = n->mode == NET_OPEN && n->in_namespace;
		const char *text = open ? engine_resolver : no_resolver;
		if ((r = plan_file(plan, "/etc/resolv.conf", text, strlen(text), 0444, "network")) <
		    0)
			return r;
	}
	if (n->mode != NET_FILTERED)
		return 0;
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)n->proxy_port);
	static const char *const proxy_vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
	                                         "http_proxy", "https_proxy", "all_proxy",
	                                         NULL};
	for (const char *const *v = proxy_vars; *v; v++)
		if ((r = plan_setenv(plan, *v, url)) < 0)
			return r;
	if ((r = plan_setenv(plan, "NO_PROXY", "localhost,127.0.0.1,::1")) < 0 ||
	    (r = plan_setenv(plan, "no_proxy", "localhost,127.0.0.1,::1")) < 0)
		return r;
	plan->proxy_port = n->proxy_port;
	return add_ca_bundle(n, plan, state_root, session_dir, caps);
}

int network_plan_credentials(struct network *n, struct plan *plan, const struct policy *p,
                             const char *state_root, uint64_t caps)
{
	const struct netcreds *defs = &n->rules->creds;
	if (defs->n == 0 && defs->n_guard_files == 0)
		return 0;
	if (n->mode != NET_FILTERED) {
		log_msg(LOG_INFO,
		        "network %s: the credentials are not used (no proxy to inject "
		        "them)",
		        network_mode_name(n->mode));
		return 0;
	}
	int r = credentials_resolve(&n->creds, defs, p, state_root == NULL);
	if (r < 0)
		return r;
	return credentials_plan(&n->creds, plan, state_root, caps);
}

int network_bind_published(struct network *n)
{
	for (size_t i = 0; i < n->n_published; i++) {
		struct published *pub = &n->published[i];
		int fd = socket_cloexec(AF_INET, SOCK_STREAM, true);
		if (fd < 0)
			return fd;
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(pub->port)};
		inet_pton(AF_INET, pub->bind, &sa.sin_addr);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0) {
			int e = errno;
			close(fd);
			err_set("network.published_ports: cannot listen on %s:%d: %s%s", pub->bind,
			        pub->port, strerror(e),
			        e == EADDRINUSE ? " (another program uses that port)" : "");
			return -e;
		}
		pub->fd = fd;
	}
	return 0;
}

bool network_needs_wiring(const struct network *n)
{
	return n->in_namespace && (n->mode != NET_OFF || n->n_host_ports > 0 || n->n_published > 0);
}

/* Sockets made inside: the proxy's listener, host ports' listeners, dials
 * to published ports. Without them a namespace made at the spawn needs no
 * helper to join it (the open mode's engine joins through descriptors). */
static bool needs_sockets_inside(const struct network *n)
{
	return n->mode == NET_FILTERED || n->n_host_ports > 0 || n->n_published > 0;
}

/* Wait for one byte on `fd` (a program's ready notification). */
static int wait_ready(int fd, pid_t pid, const char *what)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r;
	do
		r = poll(&pfd, 1, READY_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	char c;
	ssize_t got = r == 1 ? read(fd, &c, 1) : -1;
	if (got == 1)
		return 0;
	/* End of file: it is exiting. Its fds close before the kernel makes it
	 * a zombie, so give it a moment (a sanitizer build's exit is slow). */
	int status;
	pid_t w = waitpid(pid, &status, WNOHANG);
	for (int waited = 0; got == 0 && w == 0 && waited < EXIT_GRACE_MS; waited += 5) {
		(void)nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
		w = waitpid(pid, &status, WNOHANG);
	}
	if (w == pid)
		err_set("%s exited before it was ready (status %d)", what,
		        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	else if (got == 0)
		err_set("%s closed its ready pipe without being ready", what);
	else
		err_set("%s was not ready within %d s", what, READY_TIMEOUT_MS / 1000);
	return -ETIMEDOUT;
}

static void on_proxy_exit(struct ev_loop *loop, ev_child *w, int revents)
{
	(void)loop;
	(void)revents;
	struct network *n = w->data;
	ev_child_stop(loop, w);
	if (n->stopping)
		return;
	int st = w->rstatus;
	log_msg(LOG_WARN,
	        "the filtering proxy exited during the session (%s %d): the agent's network "
	        "requests now fail",
	        WIFEXITED(st) ? "status" : "signal",
	        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* Start the proxy: on `lfd` (closed here), or, with lfd < 0, on a listener
 * that follows later over n->proxy_via (the sandbox's namespace does not
 * exist yet). It makes its CA while the launcher goes on; its secrets follow
 * over n->proxy_secrets (proxy_send_secrets), and proxy_await_ready then
 * waits for it. */
static int proxy_spawn(struct network *n, const struct policy *p, const char *session_dir, int lfd)
{
	_cleanup_close_ int listen_fd = lfd;
	_cleanup_free_ char *proxy = NULL;
	int r = exec_find_helper("agentsandbox-proxy", &proxy);
	if (r < 0) {
		err_set("agentsandbox-proxy was not found (next to agentsandbox or in %s)",
		        ASB_LIBEXECDIR);
		return r;
	}
	if (!p->config_file) {
		err_set("the filtered network needs its rules from a config file");
		return -EINVAL;
	}
	/* Also with no binding active: the proxy then knows it is on purpose.
	 * Resolved (network_plan_credentials) or not, they are the rules'. */
	bool secrets = n->rules->creds.n || n->rules->creds.n_guard_files;
	_cleanup_close_ int ready_w = -1, sec_r = -1, via_theirs = -1;
	int fds[2];
	if ((r = pipe_cloexec(fds)) < 0)
		return r;
	n->proxy_ready = fds[0];
	ready_w = fds[1];
	if (secrets) {
		if ((r = pipe_cloexec(fds)) < 0)
			return r;
		sec_r = fds[0];
		n->proxy_secrets = fds[1];
	}
	if (listen_fd < 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
			return -errno;
		(void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		(void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
		n->proxy_via = fds[0];
		via_theirs = fds[1];
	}
	char lfd_s[16], ready_s[16], sec_s[16];
	snprintf(lfd_s, sizeof(lfd_s), "%d", listen_fd >= 0 ? listen_fd : via_theirs);
	snprintf(ready_s, sizeof(ready_s), "%d", ready_w);
	snprintf(sec_s, sizeof(sec_s), "%d", sec_r);
	_cleanup_free_ char *ca = str_printf("%s/ca.pem", session_dir);
	_cleanup_free_ char *logf = str_printf("%s/proxy.log", session_dir);
	free(n->session_dir);
	n->session_dir = strdup(session_dir);
	if (!ca || !logf || !n->session_dir)
		return -ENOMEM;
	/* The secrets go over a pipe, read once at start: never an argument. */
	const char *argv[] = {proxy,
	                      "--config",
	                      p->config_file,
	                      listen_fd >= 0 ? "--listen-fd" : "--listen-fd-from",
	                      lfd_s,
	                      "--ca-out",
	                      ca,
	                      "--log",
	                      logf,
	                      "--ready-fd",
	                      ready_s,
	                      secrets ? "--secrets-fd" : NULL,
	                      sec_s,
	                      NULL};
	int keep[] = {listen_fd >= 0 ? listen_fd : via_theirs, ready_w, sec_r};
	struct spawn_opts o = {.keep_fds = keep,
	                       .n_keep_fds = secrets ? 3 : 2,
	                       .quiet_stdin = true,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .own_group = true};
	pid_t pid;
	if ((r = spawn_exec(argv, NULL, &o, &pid)) < 0)
		return r;
	child_track(&n->proxy, pid);
	log_msg(LOG_INFO, "started the filtering proxy %s (pid %d)", proxy, (int)pid);
	return 0;
}

/* Once the plan resolved them: the proxy reads them after its CA. */
static int proxy_send_secrets(struct network *n)
{
	if (n->proxy_secrets < 0)
		return 0;
	_cleanup_close_ int fd = TAKE_FD(n->proxy_secrets);
	credentials_log(&n->creds);
	int r = credentials_send(&n->creds, &n->rules->creds, fd);
	if (r < 0)
		err_set("cannot hand the credentials to the filtering proxy: %s", strerror(-r));
	return r;
}

/* The proxy listens and its CA is written: the bundle the sandbox trusts
 * gets the session CA, and the proxy is watched from here on. */
static int proxy_await_ready(struct network *n)
{
	/* The system roots go first in the bundle, while the proxy gets ready. */
	_cleanup_free_ char *sys = NULL;
	size_t sys_len = 0;
	(void)read_file(SYSTEM_BUNDLE, &sys, &sys_len);
	int w = ftruncate(n->ca_fd, 0) < 0 ? -errno : 0;
	if (w == 0 && sys)
		w = write_all(n->ca_fd, sys, sys_len);
	int r = wait_ready(n->proxy_ready, n->proxy.pid, "the filtering proxy");
	close(n->proxy_ready);
	n->proxy_ready = -1;
	if (r < 0)
		return r;
	if (w < 0)
		return w;
	ev_child_init(&n->proxy_watch, on_proxy_exit, n->proxy.pid, 0);
	n->proxy_watch.data = n;
	ev_child_start(EV_DEFAULT, &n->proxy_watch);
	log_msg(LOG_INFO, "the filtering proxy listens on %s127.0.0.1:%u",
	        n->in_namespace ? "the sandbox's " : "the host's ", (unsigned)n->proxy_port);

	_cleanup_free_ char *ca = str_printf("%s/ca.pem", n->session_dir);
	_cleanup_free_ char *sess = NULL;
	size_t sess_len = 0;
	if (!ca)
		return -ENOMEM;
	if ((r = read_file(ca, &sess, &sess_len)) < 0) {
		err_set("the proxy wrote no CA certificate at %s: %s", ca, strerror(-r));
		return r;
	}
	if ((r = write_all(n->ca_fd, sess, sess_len)) < 0)
		return r;
	/* Recorded in the session; the first name goes at exit (a backend may
	 * still be resolving it while it sets up). */
	_cleanup_free_ char *dest = str_printf("%s/ca-bundle.pem", n->session_dir);
	if (dest && n->ca_tmp_path && link(n->ca_tmp_path, dest) < 0)
		log_msg(LOG_INFO, "could not record the CA bundle: %s", strerror(errno));
	return 0;
}

/* The listener made in the sandbox's namespace, to the proxy started
 * before it existed (proxy_await_ready waits for it next). A proxy that
 * could not start has closed the channel: its ready pipe then says how it
 * ended, so that is asked first. */
static int proxy_hand_listener(struct network *n, int lfd)
{
	_cleanup_close_ int fd = lfd;
	struct iovec iov = {(void *)"L", 1};
	int sent = fd_send(n->proxy_via, &iov, 1, fd);
	close(n->proxy_via);
	n->proxy_via = -1;
	if (sent < 0) {
		int r = proxy_await_ready(n);
		if (r < 0)
			return r;
		err_set("cannot hand the filtering proxy its listener: %s", strerror(-sent));
		return sent;
	}
	return 0;
}

static int dial_host_port(void *userdata)
{
	uint16_t port = (uint16_t)(uintptr_t)userdata;
	int fd = socket_cloexec(AF_INET, SOCK_STREAM, true);
	if (fd < 0)
		return fd;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

struct inside_dial {
	struct network *n;
	uint16_t port;
};
static struct inside_dial inside_dials[NET_MAX_PORTS];

static int dial_inside(void *userdata)
{
	struct inside_dial *d = userdata;
	return platform_netns_connect(d->n->link, d->port);
}

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The entries this session ran with, as config text: `agentsandbox
 * allowlist` merges what it derives with them (core/allowlist.c). */
static void write_rules(const struct network *n, const char *session_dir)
{
	_cleanup_free_ char *path = str_printf("%s/allowed_domains.cfg", session_dir);
	_cleanup_fclose_ FILE *f = path ? fopen(path, "we") : NULL;
	if (!f)
		return;
	fputs("# The allowed_domains this session ran with (agentsandbox allowlist reads "
	      "it).\nnetwork: {\n  allowed_domains = (",
	      f);
	for (size_t i = 0; i < n->rules->n_rules; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		allowlist_print_rule(f, &n->rules->rules[i]);
	}
	fputs("\n  );\n};\n", f);
}

void network_record(struct network *n, const char *session_dir)
{
	_cleanup_free_ char *path = str_printf("%s/network.json", session_dir);
	_cleanup_free_ char *addrs = NULL;
	if (n->link) {
		(void)platform_netns_describe(n->link, &addrs);
	} else if (n->route_fd >= 0) {
		(void)platform_route_describe(n->route_fd, &addrs);
		close(n->route_fd);
		n->route_fd = -1;
	}
	_cleanup_fclose_ FILE *f = path ? fopen(path, "we") : NULL;
	if (!f)
		return;
	const struct engine_layout *lay = platform_engine_layout();
	bool engine = n->engine != NULL;
	fprintf(f, "{\n  \"mode\": \"%s\",\n", network_mode_name(n->mode));
	fprintf(f, "  \"namespace\": \"%s\",\n",
	        n->in_namespace ? "the sandbox's own" : "shared with the host (backend rules)");
	fputs("  \"addresses\": [", f);
	bool first = true;
	char *save = NULL;
	for (char *line = addrs ? strtok_r(addrs, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		fputs(first ? "" : ", ", f);
		json_str(f, line);
		first = false;
	}
	fputs("],\n  \"routes\": [", f);
	if (engine)
		fprintf(f, "\"default via %s dev tap0\"", lay->gateway);
	fputs("],\n  \"resolver\": ", f);
	json_str(f, engine ? lay->resolver : NULL);
	fputs(",\n", f);
	if (n->mode == NET_FILTERED && n->rules)
		write_rules(n, session_dir);
	if (n->mode == NET_FILTERED) {
		fprintf(f, "  \"proxy\": { \"address\": \"127.0.0.1:%u\", \"pid\": %d },\n",
		        (unsigned)n->proxy_port, (int)n->proxy.pid);
		fprintf(f, "  \"rules\": [");
		for (size_t i = 0; i < n->rules->n_rules; i++) {
			const struct netrule *r = &n->rules->rules[i];
			fprintf(f, "%s\n    { \"domain\": ", i ? "," : "");
			json_str(f, r->domain);
			if (r->path) {
				fputs(", \"path\": ", f);
				json_str(f, r->path);
			}
			fputs(", \"methods\": ", f);
			if (!r->methods) {
				fputs("\"*\"", f);
			} else {
				fputc('[', f);
				for (char **m = r->methods; *m; m++) {
					fputs(m == r->methods ? "" : ", ", f);
					json_str(f, *m);
				}
				fputc(']', f);
			}
			fputs(" }", f);
		}
		fputs(n->rules->n_rules ? "\n  ],\n" : "],\n", f);
	}
	if (engine) {
		fprintf(f, "  \"engine\": { \"name\": ");
		json_str(f, platform_engine_name(n->engine));
		fprintf(f, ", \"pid\": %d, \"args\": ", (int)platform_engine_pid(n->engine));
		json_str(f, platform_engine_args(n->engine));
		fputs(" },\n", f);
	}
	fputs("  \"host_ports\": ", f);
	if (n->all_host_ports) {
		fprintf(f, "\"all (via %s)\"", lay->gateway);
	} else {
		fputc('[', f);
		for (size_t i = 0; i < n->n_host_ports; i++)
			fprintf(f, "%s%d", i ? ", " : "", n->host_ports[i]);
		fputc(']', f);
	}
	fputs(",\n  \"published_ports\": [", f);
	for (size_t i = 0; i < n->n_published; i++)
		fprintf(f, "%s{ \"host\": \"%s:%d\", \"sandbox\": \"127.0.0.1:%d\" }",
		        i ? ", " : "", n->published[i].bind, n->published[i].port,
		        n->published[i].port);
	fputs("]\n}\n", f);
}

int network_start_early(struct network *n, const struct policy *p, const char *session_dir,
                        uint64_t caps)
{
	if (n->mode != NET_FILTERED || !(caps & ASB_CAP_NETNS) || n->proxy.pid > 0)
		return 0;
	return proxy_spawn(n, p, session_dir, -1);
}

int network_start_host(struct network *n, const struct policy *p, const char *session_dir)
{
	int r;
	if (n->in_namespace) { /* its listener follows once the namespace exists */
		if (n->mode != NET_FILTERED)
			return 0;
		if (n->proxy.pid <= 0 && (r = proxy_spawn(n, p, session_dir, -1)) < 0)
			return r;
		if ((r = proxy_send_secrets(n)) < 0)
			return r;
		/* The session directory exists: the proxy writes its log and CA
		 * now, while the sandbox is set up, not once the sandbox waits
		 * for them. A proxy gone by now is reported by network_wire. */
		struct iovec iov = {(void *)"W", 1};
		if (n->proxy_via >= 0)
			(void)fd_send(n->proxy_via, &iov, 1, -1);
		return 0;
	}
	if (n->mode == NET_FILTERED && n->host_listen_fd >= 0 &&
	    ((r = proxy_spawn(n, p, session_dir, TAKE_FD(n->host_listen_fd))) < 0 ||
	     (r = proxy_send_secrets(n)) < 0 || (r = proxy_await_ready(n)) < 0))
		return r;
	network_record(n, session_dir);
	return 0;
}

static int engine_error(int r)
{
	const char *pinned = platform_engine_pinned();
	if (r == -ENOENT && pinned)
		err_set("the open network mode needs slirp4netns at %s, the path this build was "
		        "pinned to (-Dslirp4netns), and it cannot be run there; or set "
		        "network.allowed_domains, or --no-network",
		        pinned);
	else if (r == -ENOENT)
		err_set("the open network mode needs slirp4netns (apt-get install slirp4netns); or "
		        "set network.allowed_domains, or --no-network");
	else if (r == -EACCES) {
		struct stat st;
		int mode = stat("/dev/net/tun", &st) == 0 ? (int)(st.st_mode & 0777) : -1;
		err_set(
		    "the open network mode needs /dev/net/tun (for slirp4netns), which you cannot "
		    "open (%s%o); it is normally 0666. Fix its mode, or set "
		    "network.allowed_domains (filtered) or --no-network",
		    mode < 0 ? "missing, mode " : "mode 0", mode < 0 ? 0 : mode);
	} else if (r == -ECHILD)
		err_set("the open network mode's engine exited before it was ready (its messages: "
		        "slirp4netns.log in the session directory)");
	else if (!err_get())
		err_set("cannot start the open network mode's engine: %s", strerror(-r));
	return r;
}

int network_engine_check(const struct network *n)
{
	if (n->mode != NET_OPEN || !n->in_namespace)
		return 0;
	int r = platform_engine_usable();
	return r < 0 ? engine_error(r) : 0;
}

void network_prepare_wiring(struct network *n)
{
	/* The helper that joins the namespace: its fork and set-up off the
	 * path between the namespace's creation and the sandbox's release;
	 * none where nothing is made inside a namespace made at the spawn. */
	if (network_needs_wiring(n) && !n->link &&
	    (n->spawn_netns_fd < 0 || needs_sockets_inside(n)))
		(void)platform_netns_prefork(&n->link);
}

void network_at_spawn(struct network *n, int report, struct netns_at_spawn *s)
{
	*s = (struct netns_at_spawn){
	    .report = report, .tap = n->mode == NET_OPEN, .route = !needs_sockets_inside(n)};
}

int network_take_spawned(struct network *n, int report)
{
	char c;
	if (fd_recv(report, &c, 1, &n->spawn_netns_fd) != 1 || n->spawn_netns_fd < 0)
		return -EIO;
	/* Its route socket follows (maybe without one: then no addresses). */
	if (!needs_sockets_inside(n) && fd_recv(report, &c, 1, &n->route_fd) != 1)
		return -EIO;
	return 0;
}

/* The open mode's engine, attached to the namespace made at the spawn
 * (its tap made there) or to the one the helper joined. */
static int start_engine(struct network *n, const char *session_dir)
{
	_cleanup_free_ char *log_path = str_printf("%s/slirp4netns.log", session_dir);
	struct engine_opts eo = {.all_host_ports = n->all_host_ports, .log_path = log_path};
	bool at_spawn = n->spawn_netns_fd >= 0;
	int net = at_spawn ? n->spawn_netns_fd : platform_netns_fd(n->link);
	int r = platform_engine_start(&n->engine, at_spawn ? NULL : n->link, net, &eo);
	if (r < 0)
		return engine_error(r);
	log_msg(LOG_INFO, "%s (pid %d): %s", platform_engine_name(n->engine),
	        (int)platform_engine_pid(n->engine), platform_engine_args(n->engine));
	return 0;
}

/* Everything that wires the namespace the helper is in, waiting for none
 * of it: the proxy's listener handed over, the engine started, the bridges
 * listening. */
static int wire(struct network *n, const char *session_dir)
{
	int r;
	if (n->mode == NET_FILTERED) {
		if (n->proxy_via < 0) {
			err_set("the filtering proxy was not started before the sandbox");
			return -ESRCH;
		}
		int lfd = platform_netns_listen(n->link, NET_PROXY_PORT);
		if (lfd < 0) {
			err_set("cannot listen on 127.0.0.1:%d inside the sandbox: %s",
			        NET_PROXY_PORT, strerror(-lfd));
			return lfd;
		}
		if ((r = proxy_hand_listener(n, lfd)) < 0)
			return r;
	}
	if (n->mode == NET_OPEN && !n->engine && (r = start_engine(n, session_dir)) < 0)
		return r;
	for (size_t i = 0; i < n->n_host_ports; i++) {
		uint16_t port = n->host_ports[i];
		int lfd = platform_netns_listen(n->link, port);
		if (lfd < 0) {
			err_set("network.host_ports: cannot listen on 127.0.0.1:%d inside: %s",
			        port, strerror(-lfd));
			return lfd;
		}
		char name[48];
		snprintf(name, sizeof(name), "host port %d", port);
		if ((r = bridge_listen(EV_DEFAULT, lfd, dial_host_port, (void *)(uintptr_t)port,
		                       name, &n->bridges[n->n_bridges])) < 0)
			return r;
		n->n_bridges++;
		log_msg(LOG_INFO, "host port %d: the sandbox's 127.0.0.1:%d reaches the host's",
		        port, port);
	}
	for (size_t i = 0; i < n->n_published; i++) {
		struct published *pub = &n->published[i];
		inside_dials[i] = (struct inside_dial){n, pub->port};
		char name[96];
		snprintf(name, sizeof(name), "published port %s:%d", pub->bind, pub->port);
		if ((r = bridge_listen(EV_DEFAULT, pub->fd, dial_inside, &inside_dials[i], name,
		                       &n->bridges[n->n_bridges])) < 0) {
			pub->fd = -1;
			return r;
		}
		pub->fd = -1; /* the bridge owns it now */
		n->n_bridges++;
		log_msg(LOG_INFO, "published port: host %s:%d reaches the sandbox's 127.0.0.1:%d",
		        pub->bind, pub->port, pub->port);
	}
	return 0;
}

/* What wire() started, ready: the proxy listens, the engine runs. */
static int wired(struct network *n)
{
	int r;
	if (n->mode == NET_FILTERED && (r = proxy_await_ready(n)) < 0)
		return r;
	if (n->engine && (r = platform_engine_await(n->engine)) < 0)
		return engine_error(r);
	return 0;
}

/* The helper joins the namespace (pid's, or netns_fd where >= 0), then
 * everything is wired there. */
static int join_and_wire(struct network *n, const char *session_dir, pid_t pid, int netns_fd)
{
	int r = platform_netns_attach(&n->link, pid, netns_fd);
	if (r < 0) {
		err_set("cannot enter the sandbox's network namespace: %s", strerror(-r));
		return r;
	}
	if ((r = wire(n, session_dir)) < 0)
		return r;
	n->wire_started = true;
	return 0;
}

int network_wire_start(struct network *n, const char *session_dir)
{
	int r;
	/* The engine first (it needs no helper: its tap came with the
	 * namespace), then the helper's fork. */
	if (n->mode == NET_OPEN && (r = start_engine(n, session_dir)) < 0)
		return r;
	if (!needs_sockets_inside(n)) {
		n->wire_started = true;
		return 0;
	}
	return join_and_wire(n, session_dir, 0, n->spawn_netns_fd);
}

int network_wire(struct network *n, const char *session_dir, pid_t pid, int netns_fd)
{
	int r;
	if (!n->wire_started && (r = join_and_wire(n, session_dir, pid, netns_fd)) < 0)
		return r;
	return wired(n);
}

void network_stop_begin(struct network *n)
{
	if (n->session_dir) {
		_cleanup_free_ char *plog = str_printf("%s/proxy.log", n->session_dir);
		if (!n->stopping)
			credentials_log_use(&n->creds, plog);
		free(n->session_dir);
		n->session_dir = NULL;
	}
	n->stopping = true;
	if (n->proxy_via >= 0) { /* never wired: the proxy leaves on its own */
		close(n->proxy_via);
		n->proxy_via = -1;
	}
	if (n->proxy_ready >= 0) {
		close(n->proxy_ready);
		n->proxy_ready = -1;
	}
	if (n->proxy_secrets >= 0) { /* never sent: the proxy leaves on its own */
		close(n->proxy_secrets);
		n->proxy_secrets = -1;
	}
	for (size_t i = 0; i < n->n_bridges; i++)
		bridge_close(n->bridges[i]);
	n->n_bridges = 0;
	/* The helper leaves while the proxy or the engine stops: two exits at
	 * once. */
	platform_netns_close(n->link);
	if (n->proxy.pid > 0 && !n->proxy_asked) {
		ev_child_stop(EV_DEFAULT, &n->proxy_watch);
		child_signal(&n->proxy, SIGTERM);
		n->proxy_asked = true;
	}
	platform_engine_ask_stop(n->engine);
}

void network_stop(struct network *n)
{
	network_stop_begin(n);
	/* Signalled above: waited for here, killed if it takes too long. */
	if (n->proxy.pid > 0)
		child_stop(&n->proxy, 0, 1000);
	platform_engine_stop(n->engine);
	n->engine = NULL;
	platform_netns_detach(n->link);
	n->link = NULL;
	for (size_t i = 0; i < n->n_published; i++)
		if (n->published[i].fd >= 0) {
			close(n->published[i].fd);
			n->published[i].fd = -1;
		}
	if (n->host_listen_fd >= 0) {
		close(n->host_listen_fd);
		n->host_listen_fd = -1;
	}
	if (n->spawn_netns_fd >= 0) {
		close(n->spawn_netns_fd);
		n->spawn_netns_fd = -1;
	}
	if (n->route_fd >= 0) {
		close(n->route_fd);
		n->route_fd = -1;
	}
	if (n->ca_fd >= 0) {
		close(n->ca_fd);
		n->ca_fd = -1;
	}
	if (n->ca_tmp_path) {
		unlink(n->ca_tmp_path);
		free(n->ca_tmp_path);
		n->ca_tmp_path = NULL;
	}
	credentials_free(&n->creds);
	if (n->rules) {
		netrules_free(n->rules);
		n->rules = NULL;
	}
}
