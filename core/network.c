/* SPDX-License-Identifier: MIT */
#include "network.h"

#include "bridge.h"
#include "config.h"
#include "log.h"
#include "netrules.h"
#include "util.h"

#include <agentsandbox/plugin.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#ifndef ASB_LIBEXECDIR
#define ASB_LIBEXECDIR "/usr/local/libexec/agentsandbox"
#endif

#define READY_TIMEOUT_MS 10000
#define SYSTEM_BUNDLE    "/etc/ssl/certs/ca-certificates.crt"

/* slirp4netns's fixed layout (--configure): the sandbox's side of it. */
#define SLIRP_ADDR    "10.0.2.100/24"
#define SLIRP_GATEWAY "10.0.2.2"
#define SLIRP_DNS     "10.0.2.3"

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
	*n = (struct network){.ca_fd = -1, .engine_exit_fd = -1};
	n->proxy = CHILD_NONE;
	n->engine = CHILD_NONE;
	n->helper.sock = -1;
	n->helper.proc = CHILD_NONE;
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
		        p->config_file ? p->config_file : "(config)", SLIRP_GATEWAY,
		        network_mode_name(n->mode));
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

static int add_ca_bundle(struct network *n, struct plan *plan, const char *state_root)
{
	int r;
	if (!state_root) {
		/* --show-config: show where it would be. */
		r = plan_add_mount(plan, ASB_MOUNT_RO_BIND, 0, 0, -1, "<session>/ca-bundle.pem",
		                   NET_CA_BUNDLE, "network");
	} else {
		/* Written once the proxy made its CA; bound now (mounts happen before
		 * the sandbox waits for us), so the file must exist already: it is
		 * made beside the session directories, linked into the session's
		 * once that exists, and its first name goes at exit. */
		if ((r = mkdir_p(state_root, 0700)) < 0)
			return r;
		_cleanup_free_ char *tmpl =
		    str_printf("%s/.new-%d-ca-XXXXXX", state_root, (int)getpid());
		if (!tmpl)
			return -ENOMEM;
		int fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0)
			return -errno;
		fchmod(fd, 0644);
		n->ca_fd = fd;
		n->ca_tmp_path = TAKE_PTR(tmpl);
		r = plan_add_mount(plan, ASB_MOUNT_RO_BIND, 0, 0, fd, n->ca_tmp_path, NET_CA_BUNDLE,
		                   "network");
		struct stat st;
		if (r >= 0 && stat(SYSTEM_BUNDLE, &st) == 0)
			r = plan_add_mount(plan, ASB_MOUNT_RO_BIND, 0, 0, fd, n->ca_tmp_path,
			                   SYSTEM_BUNDLE, "network");
	}
	if (r < 0)
		return r;
	static const char *const ca_vars[] = {"SSL_CERT_FILE",
	                                      "NIX_SSL_CERT_FILE",
	                                      "REQUESTS_CA_BUNDLE",
	                                      "CURL_CA_BUNDLE",
	                                      "GIT_SSL_CAINFO",
	                                      "NODE_EXTRA_CA_CERTS",
	                                      NULL};
	for (const char *const *v = ca_vars; *v; v++)
		if ((r = plan_setenv(plan, *v, NET_CA_BUNDLE)) < 0)
			return r;
	return 0;
}

int network_plan(struct network *n, struct plan *plan, const char *state_root)
{
	int r;
	static const char no_resolver[] = "# agentsandbox: no resolver in this network mode\n";
	static const char slirp_resolver[] = "nameserver " SLIRP_DNS "\n";
	switch (n->mode) {
	case NET_OFF:
		return plan_add_data(plan, "/etc/resolv.conf", no_resolver, sizeof(no_resolver) - 1,
		                     0444, "network");
	case NET_OPEN:
		return plan_add_data(plan, "/etc/resolv.conf", slirp_resolver,
		                     sizeof(slirp_resolver) - 1, 0444, "network");
	}
	if ((r = plan_add_data(plan, "/etc/resolv.conf", no_resolver, sizeof(no_resolver) - 1, 0444,
	                       "network")) < 0)
		return r;
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", NET_PROXY_PORT);
	static const char *const proxy_vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
	                                         "http_proxy", "https_proxy", "all_proxy",
	                                         NULL};
	for (const char *const *v = proxy_vars; *v; v++)
		if ((r = plan_setenv(plan, *v, url)) < 0)
			return r;
	if ((r = plan_setenv(plan, "NO_PROXY", "localhost,127.0.0.1,::1")) < 0 ||
	    (r = plan_setenv(plan, "no_proxy", "localhost,127.0.0.1,::1")) < 0)
		return r;
	/* Second layer (Landlock ABI >= 4): TCP connect inside only to the
	 * proxy and the ports the config names. */
	if ((r = plan_filter_tcp_connect(plan, NET_PROXY_PORT)) < 0)
		return r;
	for (size_t i = 0; i < n->n_host_ports; i++)
		if ((r = plan_filter_tcp_connect(plan, n->host_ports[i])) < 0)
			return r;
	for (size_t i = 0; i < n->n_published; i++)
		if ((r = plan_filter_tcp_connect(plan, n->published[i].port)) < 0)
			return r;

	return add_ca_bundle(n, plan, state_root);
}

int network_bind_published(struct network *n)
{
	for (size_t i = 0; i < n->n_published; i++) {
		struct published *pub = &n->published[i];
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -errno;
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
	return n->mode != NET_OFF || n->n_host_ports > 0 || n->n_published > 0;
}

int network_find_libexec(const char *name, char **out)
{
	/* Next to the launcher in a build tree (build/proxy/NAME or build/NAME),
	 * then the installed libexec directory. */
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		self[len] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		const char *const subdirs[] = {"proxy", "init", "."};
		for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
			_cleanup_free_ char *cand = str_printf("%s/%s/%s", self, subdirs[i], name);
			if (cand && access(cand, X_OK) == 0) {
				*out = TAKE_PTR(cand);
				return 0;
			}
		}
	}
	_cleanup_free_ char *inst = str_printf("%s/%s", ASB_LIBEXECDIR, name);
	if (inst && access(inst, X_OK) == 0) {
		*out = TAKE_PTR(inst);
		return 0;
	}
	return -ENOENT;
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
	if (r == 1 && read(fd, &c, 1) == 1)
		return 0;
	int status;
	if (waitpid(pid, &status, WNOHANG) == pid)
		err_set("%s exited before it was ready (status %d)", what,
		        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	else
		err_set("%s was not ready within %d s", what, READY_TIMEOUT_MS / 1000);
	return -ETIMEDOUT;
}

/* fork/exec with `keep` fds inherited; the child dies with the launcher.
 * With log_fd >= 0 its stdout and stderr go there. */
static int spawn_helper(char **argv, const int *keep, size_t n_keep, int log_fd, struct child *out)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		for (size_t i = 0; i < n_keep; i++) {
			int flags = fcntl(keep[i], F_GETFD);
			if (flags >= 0)
				fcntl(keep[i], F_SETFD, flags & ~FD_CLOEXEC);
		}
		if (log_fd >= 0) {
			dup2(log_fd, STDOUT_FILENO);
			dup2(log_fd, STDERR_FILENO);
		}
		/* Its own process group: a ^C at the terminal is the agent's. */
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	child_track(out, pid);
	return 0;
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

static int start_proxy(struct network *n, const struct policy *p, const char *session_dir)
{
	_cleanup_free_ char *proxy = NULL;
	int r = network_find_libexec("agentsandbox-proxy", &proxy);
	if (r < 0) {
		err_set("agentsandbox-proxy was not found (next to agentsandbox or in %s)",
		        ASB_LIBEXECDIR);
		return r;
	}
	if (!p->config_file) {
		err_set("the filtered network needs its rules from a config file");
		return -EINVAL;
	}
	_cleanup_close_ int lfd = netns_listen(&n->helper, NET_PROXY_PORT);
	if (lfd < 0) {
		err_set("cannot listen on 127.0.0.1:%d inside the sandbox: %s", NET_PROXY_PORT,
		        strerror(-lfd));
		return lfd;
	}
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) < 0)
		return -errno;
	char lfd_s[16], ready_s[16];
	snprintf(lfd_s, sizeof(lfd_s), "%d", lfd);
	snprintf(ready_s, sizeof(ready_s), "%d", ready[1]);
	_cleanup_free_ char *ca = str_printf("%s/ca.pem", session_dir);
	_cleanup_free_ char *logf = str_printf("%s/proxy.log", session_dir);
	char *argv[] = {proxy, "--config", p->config_file, "--listen-fd", lfd_s,   "--ca-out",
	                ca,    "--log",    logf,           "--ready-fd",  ready_s, NULL};
	int keep[] = {lfd, ready[1]};
	r = spawn_helper(argv, keep, ARRAY_SIZE(keep), -1, &n->proxy);
	close(ready[1]);
	if (r < 0) {
		close(ready[0]);
		return r;
	}
	r = wait_ready(ready[0], n->proxy.pid, "the filtering proxy");
	close(ready[0]);
	if (r < 0)
		return r;
	ev_child_init(&n->proxy_watch, on_proxy_exit, n->proxy.pid, 0);
	n->proxy_watch.data = n;
	ev_child_start(EV_DEFAULT, &n->proxy_watch);
	log_msg(LOG_INFO, "filtering proxy %s (pid %d) listens on the sandbox's 127.0.0.1:%d",
	        proxy, (int)n->proxy.pid, NET_PROXY_PORT);

	/* The bundle the sandbox trusts: the system roots plus the session CA
	 * (whose key never left the proxy). */
	_cleanup_free_ char *sys = NULL, *sess = NULL;
	size_t sys_len = 0, sess_len = 0;
	(void)read_file(SYSTEM_BUNDLE, &sys, &sys_len);
	if ((r = read_file(ca, &sess, &sess_len)) < 0) {
		err_set("the proxy wrote no CA certificate at %s: %s", ca, strerror(-r));
		return r;
	}
	if (ftruncate(n->ca_fd, 0) < 0)
		return -errno;
	if ((sys && (r = write_all(n->ca_fd, sys, sys_len)) < 0) ||
	    (r = write_all(n->ca_fd, sess, sess_len)) < 0)
		return r;
	/* Recorded in the session; the first name goes at exit (bubblewrap may
	 * still be resolving it while it sets up the mounts). */
	_cleanup_free_ char *dest = str_printf("%s/ca-bundle.pem", session_dir);
	if (dest && n->ca_tmp_path)
		if (link(n->ca_tmp_path, dest) < 0)
			log_msg(LOG_INFO, "could not record the CA bundle: %s", strerror(errno));
	return 0;
}

static int start_engine(struct network *n, pid_t pid, const char *session_dir)
{
	_cleanup_free_ char *slirp = NULL;
	static const char *const dirs[] = {"/usr/bin", "/bin", "/usr/local/bin", NULL};
	for (const char *const *d = dirs; *d && !slirp; d++) {
		_cleanup_free_ char *cand = str_printf("%s/slirp4netns", *d);
		if (cand && access(cand, X_OK) == 0)
			slirp = TAKE_PTR(cand);
	}
	if (!slirp) {
		err_set("the open network mode needs slirp4netns (apt-get install slirp4netns); or "
		        "set network.allowed_domains, or --no-network");
		return -ENOENT;
	}
	if (access("/dev/net/tun", R_OK | W_OK) < 0) {
		struct stat st;
		int mode = stat("/dev/net/tun", &st) == 0 ? (int)(st.st_mode & 0777) : -1;
		err_set(
		    "the open network mode needs /dev/net/tun (for slirp4netns), which you cannot "
		    "open (%s%o); it is normally 0666. Fix its mode, or set "
		    "network.allowed_domains (filtered) or --no-network",
		    mode < 0 ? "missing, mode " : "mode 0", mode < 0 ? 0 : mode);
		return -EACCES;
	}
	int ready[2], exitp[2];
	if (pipe2(ready, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(exitp, O_CLOEXEC) < 0) {

		close(ready[0]);
		close(ready[1]);
		return -errno;
	}
	char ready_s[32], exit_s[32], userns[64], netns[64];
	snprintf(ready_s, sizeof(ready_s), "--ready-fd=%d", ready[1]);
	snprintf(exit_s, sizeof(exit_s), "--exit-fd=%d", exitp[0]);
	/* Through the helper, which sits in the sandbox's namespaces and stays
	 * put, unlike bubblewrap's pid 1 while it sets up. */
	(void)pid;
	snprintf(userns, sizeof(userns), "--userns-path=/proc/%d/ns/user", (int)n->helper.proc.pid);
	snprintf(netns, sizeof(netns), "/proc/%d/ns/net", (int)n->helper.proc.pid);
	/* The host's loopback stays closed (unless host_ports = "all"), and
	 * slirp4netns confines itself too. */
	char *argv[16];
	size_t a = 0;
	argv[a++] = slirp;
	argv[a++] = (char *)"--configure";
	argv[a++] = (char *)"--mtu=65520";
	if (!n->all_host_ports)
		argv[a++] = (char *)"--disable-host-loopback";
	/* Its own mount-namespace sandbox needs root (it switches to gid 0);
	 * its seccomp filter works for everyone. */
	if (geteuid() == 0)
		argv[a++] = (char *)"--enable-sandbox";
	argv[a++] = (char *)"--enable-seccomp";

	argv[a++] = ready_s;
	argv[a++] = exit_s;
	argv[a++] = userns;
	argv[a++] = (char *)"--netns-type=path";
	argv[a++] = netns;
	argv[a++] = (char *)"tap0";
	argv[a] = NULL;
	int keep[] = {ready[1], exitp[0]};
	_cleanup_free_ char *log_path = str_printf("%s/slirp4netns.log", session_dir);
	_cleanup_close_ int log_fd =
	    log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	int r = spawn_helper(argv, keep, ARRAY_SIZE(keep), log_fd, &n->engine);
	close(ready[1]);
	close(exitp[0]);
	if (r < 0) {
		close(ready[0]);
		close(exitp[1]);
		return r;
	}
	n->engine_exit_fd = exitp[1];
	r = wait_ready(ready[0], n->engine.pid, "slirp4netns");
	close(ready[0]);
	size_t len = 0;
	for (char **arg = argv; *arg; arg++)
		len += strlen(*arg) + 1;
	n->engine_args = calloc(1, len + 1);
	for (char **arg = argv; n->engine_args && *arg; arg++) {
		if (arg != argv)
			strcat(n->engine_args, " ");
		strcat(n->engine_args, *arg);
	}
	if (r >= 0)
		log_msg(LOG_INFO, "slirp4netns (pid %d): %s", (int)n->engine.pid,
		        n->engine_args ? n->engine_args : "");
	return r;
}

static int dial_host_port(void *userdata)
{
	uint16_t port = (uint16_t)(uintptr_t)userdata;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
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
	return netns_connect(&d->n->helper, d->port);
}

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_record(struct network *n, const char *session_dir)
{
	_cleanup_free_ char *path = str_printf("%s/network.json", session_dir);
	_cleanup_free_ char *addrs = NULL;
	(void)netns_describe(&n->helper, &addrs);
	FILE *f = path ? fopen(path, "we") : NULL;
	if (!f)
		return;
	fprintf(f, "{\n  \"mode\": \"%s\",\n", network_mode_name(n->mode));
	fputs("  \"addresses\": [", f);
	bool first = true;
	for (char *line = addrs ? strtok(addrs, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		fputs(first ? "" : ", ", f);
		json_str(f, line);
		first = false;
	}
	fputs("],\n  \"routes\": [", f);
	if (n->mode == NET_OPEN)
		fputs("\"default via " SLIRP_GATEWAY " dev tap0\"", f);
	fputs("],\n  \"resolver\": ", f);
	json_str(f, n->mode == NET_OPEN ? SLIRP_DNS : NULL);
	fputs(",\n", f);
	if (n->mode == NET_FILTERED) {
		fprintf(f, "  \"proxy\": { \"address\": \"127.0.0.1:%d\", \"pid\": %d },\n",
		        NET_PROXY_PORT, (int)n->proxy.pid);
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
	if (n->mode == NET_OPEN) {
		fprintf(f, "  \"engine\": { \"name\": \"slirp4netns\", \"pid\": %d, \"args\": ",
		        (int)n->engine.pid);
		json_str(f, n->engine_args);
		fputs(" },\n", f);
	}
	fputs("  \"host_ports\": ", f);
	if (n->all_host_ports) {
		fputs("\"all (via " SLIRP_GATEWAY ")\"", f);
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
	fclose(f);
}

int network_wire(struct network *n, const struct policy *p, const char *session_dir,
                 pid_t sandbox_pid)
{
	int r = netns_helper_start(&n->helper, sandbox_pid);
	if (r < 0) {
		err_set("cannot enter the sandbox's network namespace: %s", strerror(-r));
		return r;
	}
	if (n->mode == NET_FILTERED && (r = start_proxy(n, p, session_dir)) < 0)
		return r;
	if (n->mode == NET_OPEN && (r = start_engine(n, sandbox_pid, session_dir)) < 0)
		return r;
	for (size_t i = 0; i < n->n_host_ports; i++) {
		uint16_t port = n->host_ports[i];
		int lfd = netns_listen(&n->helper, port);
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
	write_record(n, session_dir);
	return 0;
}

void network_stop(struct network *n)
{
	n->stopping = true;
	for (size_t i = 0; i < n->n_bridges; i++)
		bridge_close(n->bridges[i]);
	n->n_bridges = 0;
	if (n->proxy.pid > 0) {
		ev_child_stop(EV_DEFAULT, &n->proxy_watch);
		child_stop(&n->proxy, SIGTERM, 1000);
	}
	if (n->engine_exit_fd >= 0) {
		close(n->engine_exit_fd); /* slirp4netns exits on its own */
		n->engine_exit_fd = -1;
	}
	child_stop(&n->engine, SIGTERM, 1000);
	netns_helper_stop(&n->helper);
	for (size_t i = 0; i < n->n_published; i++)
		if (n->published[i].fd >= 0) {
			close(n->published[i].fd);
			n->published[i].fd = -1;
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
	free(n->engine_args);
	n->engine_args = NULL;
	if (n->rules) {
		netrules_free(n->rules);
		n->rules = NULL;
	}
}
