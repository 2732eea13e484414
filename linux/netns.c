/* SPDX-License-Identifier: MIT */
#include "netns.h"
#include "fdpass.h"
#include "loopback.h"
#include "platform.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

/* Sockets inside the sandbox's network namespace, without shell bridges: a
 * helper process joins the sandbox's user and network namespaces and hands
 * back, on request, listening or connecting sockets created there. It lives
 * as long as the launcher (it dies with it) and serves requests in order. */
struct netns_link {
	struct child proc;
	int sock; /* the launcher's end of the request channel */
	int net;  /* the namespace it joined, once it did */
};

enum { OP_LISTEN = 1, OP_CONNECT = 2, OP_DESCRIBE = 3, OP_TAP = 4 };

struct request {
	uint32_t op;
	uint32_t port;
	char name[IFNAMSIZ]; /* OP_TAP */
};

struct reply {
	int32_t err;  /* 0 or an errno */
	uint32_t len; /* bytes of text following (describe) */
};

static int send_reply(int sock, int err, int fd, const char *text)
{
	struct reply rep = {err, text ? (uint32_t)strlen(text) : 0};
	struct iovec iov[2] = {{&rep, sizeof(rep)}, {(void *)text, rep.len}};
	return fd_send(sock, iov, text ? 2 : 1, fd);
}

static int make_socket(uint32_t op, uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int r = 0;
	if (op == OP_LISTEN) {
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0)
			r = -errno;
	} else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
		r = -errno;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static char *describe_here(void)
{
	_cleanup_close_ int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	char *text = NULL;
	if (sock < 0 || platform_route_describe(sock, &text) < 0)
		return strdup("");
	return text;
}

/* A persistent tap device `name`: an engine that opens it by name only
 * attaches to it, and its exit then leaves the device in place instead of
 * unregistering it (two RCU grace periods, ~20 ms, spent in the exiting
 * engine while the launcher waits). The device goes with the namespace,
 * in the kernel's own clean-up work. */
static int make_tap(const char *name)
{
	/* Also in a child sharing the launcher's memory: no stdio. */
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	_cleanup_close_ int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	memcpy(ifr.ifr_name, name, strlen(name) + 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETPERSIST, 1) < 0)
		return -errno;
	return 0;
}

static void serve(int sock) __attribute__((noreturn));
static void serve(int sock)
{
	for (;;) {
		struct request req;
		ssize_t n = recv(sock, &req, sizeof(req), 0);
		if (n <= 0)
			_exit(0); /* the launcher is gone or done */
		if (n != (ssize_t)sizeof(req)) {
			send_reply(sock, EINVAL, -1, NULL);
			continue;
		}
		if (req.op == OP_DESCRIBE) {
			char *text = describe_here();
			send_reply(sock, text ? 0 : ENOMEM, -1, text);
			free(text);
			continue;
		}
		if (req.op == OP_TAP) {
			req.name[sizeof(req.name) - 1] = '\0';
			int r = req.name[0] ? make_tap(req.name) : -EINVAL;
			send_reply(sock, -r, -1, NULL);
			continue;
		}
		if ((req.op != OP_LISTEN && req.op != OP_CONNECT) || req.port == 0 ||
		    req.port > 65535) {
			send_reply(sock, EINVAL, -1, NULL);
			continue;
		}
		int fd = make_socket(req.op, (uint16_t)req.port);
		send_reply(sock, fd < 0 ? -fd : 0, fd, NULL);
		if (fd >= 0)
			close(fd);
	}
}

/* Polling for what bubblewrap does in its own time: short sleeps first (it
 * is usually a matter of microseconds), growing to 1 ms, until `limit_ms`
 * have passed. False once the time is up. */
struct poll_wait {
	long sleep_us;
	struct timespec deadline;
};

static void poll_wait_init(struct poll_wait *w, int limit_ms)
{
	w->sleep_us = 20;
	clock_gettime(CLOCK_MONOTONIC, &w->deadline);
	w->deadline.tv_sec += limit_ms / 1000;
	w->deadline.tv_nsec += (long)(limit_ms % 1000) * 1000000L;
	if (w->deadline.tv_nsec >= 1000000000L) {
		w->deadline.tv_sec++;
		w->deadline.tv_nsec -= 1000000000L;
	}
}

static bool poll_wait_more(struct poll_wait *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > w->deadline.tv_sec ||
	    (now.tv_sec == w->deadline.tv_sec && now.tv_nsec >= w->deadline.tv_nsec))
		return false;
	struct timespec ts = {0, w->sleep_us * 1000};
	nanosleep(&ts, NULL);
	if (w->sleep_us < 1000)
		w->sleep_us = w->sleep_us * 2 > 1000 ? 1000 : w->sleep_us * 2;
	return true;
}

/* bubblewrap brings up the namespace's loopback in its child, which may
 * still be at it when the sandbox's pid reaches us: wait until lo is up
 * with 127.0.0.1, so nothing configures the namespace at the same time. */
static int wait_loopback(void)
{
	struct poll_wait w;
	poll_wait_init(&w, 5000);
	do {
		struct ifaddrs *ifa = NULL;
		bool ready = false;
		if (getifaddrs(&ifa) == 0) {
			for (struct ifaddrs *a = ifa; a && !ready; a = a->ifa_next)
				ready = a->ifa_addr && a->ifa_addr->sa_family == AF_INET &&
				        (a->ifa_flags & IFF_UP) && strcmp(a->ifa_name, "lo") == 0;
			freeifaddrs(ifa);
		}
		if (ready)
			return 0;
	} while (poll_wait_more(&w));
	return -ETIMEDOUT;
}

/* Join the sandbox's network namespace, and first the user namespace that
 * owns it (which grants what joining the network namespace needs, also to an
 * unprivileged launcher). Not /proc/PID/ns/user: bubblewrap may have moved
 * its pid 1 into a nested user namespace by then (--disable-userns), and
 * from there the network namespace is out of reach.
 * While bubblewrap switches credentials the process is briefly not dumpable
 * and its /proc entries refuse us: retry for a moment. */
static int open_netns(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	struct poll_wait w;
	poll_wait_init(&w, 2000);
	do {
		int net = open(path, O_RDONLY | O_CLOEXEC);
		if (net >= 0)
			return net;
		if (errno != EPERM && errno != EACCES)
			return -errno;
	} while (poll_wait_more(&w));
	return -EPERM;
}

static int join_net(int net)
{
	int r = 0;
	int user = ioctl(net, NS_GET_USERNS);
	if (user < 0) {
		r = -errno;
	} else {
		/* Already there (a launcher inside the same user namespace): EINVAL. */
		if (setns(user, CLONE_NEWUSER) < 0 && errno != EINVAL)
			r = -errno;
		close(user);
	}
	if (r == 0 && setns(net, CLONE_NEWNET) < 0)
		r = -errno;
	return r;
}

/* The sandbox's pid reaches us right after clone(); unprivileged, its user
 * namespace gets its uid map a moment later (and nothing can join it
 * before). Wait for the map. */
static int wait_uid_map(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	struct poll_wait w;
	poll_wait_init(&w, 5000);
	do {
		_cleanup_free_ char *map = NULL;
		int r = read_file(path, &map, NULL);
		if (r < 0)
			return r; /* gone */
		if (map[0])
			return 0;
	} while (poll_wait_more(&w));
	return -ETIMEDOUT;
}

int platform_netns_prefork(struct netns_link **out)
{
	struct netns_link *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->sock = h->net = -1;
	h->proc = CHILD_NONE;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		free(h);
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int r = -errno;
		close(sv[0]);
		close(sv[1]);
		free(h);
		return r;
	}
	if (pid == 0) {
		/* It serves for the whole session: of the launcher's fds (the
		 * session's files, the sandbox's pipes, anything it inherited)
		 * it keeps only its own. */
		int keep[] = {sv[1]};
		(void)platform_fds_close_except(STDERR_FILENO + 1, keep, ARRAY_SIZE(keep));
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The engine joins the namespaces through this process's /proc
		 * entries, which need it dumpable (the supervisor is not). */
		prctl(PR_SET_DUMPABLE, 1);

		/* It never execs: drop the launcher's handlers too. */
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				(void)signal(sig, SIG_DFL);
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		/* The namespace to join, once the sandbox has one; nothing (the
		 * launch ended first): leave. */
		char c;
		int net = -1;
		if (fd_recv(sv[1], &c, 1, &net) <= 0 || net < 0)
			_exit(0);
		int r = join_net(net);
		close(net);
		if (r == 0)
			r = wait_loopback();
		int err = -r;
		(void)!send(sv[1], &err, sizeof(err), MSG_NOSIGNAL);
		if (r < 0)
			_exit(1);
		serve(sv[1]);
	}
	close(sv[1]);
	child_track(&h->proc, pid);
	h->sock = sv[0];
	*out = h;
	return 0;
}

int platform_netns_attach(struct netns_link **link, pid_t sandbox_pid, int netns_fd)
{
	int r;
	if (!*link && (r = platform_netns_prefork(link)) < 0)
		return r;
	struct netns_link *h = *link;
	if (netns_fd < 0 && (r = wait_uid_map(sandbox_pid)) < 0)
		return r;
	_cleanup_close_ int net =
	    netns_fd >= 0 ? fcntl(netns_fd, F_DUPFD_CLOEXEC, 3) : open_netns(sandbox_pid);
	if (net < 0)
		return netns_fd >= 0 ? -errno : net;
	struct iovec iov = {(void *)"N", 1};
	if ((r = fd_send(h->sock, &iov, 1, net)) < 0)
		return r;
	int err = EIO;
	ssize_t n;
	do
		n = recv(h->sock, &err, sizeof(err), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(err) || err != 0)
		return -(err ? err : EIO);
	h->net = TAKE_FD(net);
	return 0;
}

static int request(struct netns_link *h, const struct request *req, int *fd_out, char **text)
{
	if (send(h->sock, req, sizeof(*req), MSG_NOSIGNAL) < 0)
		return -errno;
	char buf[sizeof(struct reply) + 4096];
	int fd = -1;
	ssize_t n = fd_recv(h->sock, buf, sizeof(buf) - 1, &fd);
	if (n < (ssize_t)sizeof(struct reply)) {
		if (fd >= 0)
			close(fd);
		return n < 0 ? (int)n : -EIO;
	}
	struct reply rep;
	memcpy(&rep, buf, sizeof(rep));
	if (rep.err) {
		if (fd >= 0)
			close(fd);
		return -rep.err;
	}
	if (fd_out)
		*fd_out = fd;
	else if (fd >= 0)
		close(fd);
	if (text) {
		buf[n] = '\0';
		*text = strdup(buf + sizeof(rep));
		if (!*text)
			return -ENOMEM;
	}
	return 0;
}

int platform_netns_listen(struct netns_link *h, uint16_t port)
{
	int fd = -1;
	int r = request(h, &(struct request){.op = OP_LISTEN, .port = port}, &fd, NULL);
	return r < 0 ? r : fd;
}

int platform_netns_connect(struct netns_link *h, uint16_t port)
{
	int fd = -1;
	int r = request(h, &(struct request){.op = OP_CONNECT, .port = port}, &fd, NULL);
	return r < 0 ? r : fd;
}

int platform_netns_describe(struct netns_link *h, char **out)
{
	return request(h, &(struct request){.op = OP_DESCRIBE}, NULL, out);
}

int netns_make_tap(struct netns_link *h, const char *name)
{
	struct request req = {.op = OP_TAP};
	if (strlen(name) >= sizeof(req.name))
		return -ENAMETOOLONG;
	memcpy(req.name, name, strlen(name) + 1);
	return request(h, &req, NULL, NULL);
}

int platform_netns_fd(const struct netns_link *h)
{
	return h->net;
}

void platform_netns_close(struct netns_link *h)
{
	if (h && h->sock >= 0) {
		close(h->sock);
		h->sock = -1;
	}
	if (h && h->net >= 0) {
		close(h->net);
		h->net = -1;
	}
}

void platform_netns_detach(struct netns_link *h)
{
	if (!h)
		return;
	platform_netns_close(h);
	/* It exits on its own once its channel closes. */
	child_stop(&h->proc, SIGTERM, 1000);
	free(h);
}

/* Bring `lo` up in the current network namespace. */
/* "ID ID 1\n" without stdio: the caller may share the launcher's memory. */
static void id_map_line(unsigned id, char out[32])
{
	char digits[12];
	size_t n = 0, len = 0;
	do
		digits[n++] = (char)('0' + id % 10);
	while ((id /= 10) && n < sizeof(digits));
	for (int copy = 0; copy < 2; copy++) {
		for (size_t i = n; i-- > 0;)
			out[len++] = digits[i];
		out[len++] = ' ';
	}
	out[len++] = '1';
	out[len++] = '\n';
	out[len] = '\0';
}

static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

bool platform_netns_at_spawn_usable(void)
{
	if (geteuid() == 0)
		return true;
	_cleanup_free_ char *v = NULL;
	return read_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v, NULL) < 0 ||
	       atoi(v) == 0;
}

int platform_child_new_netns(const struct netns_at_spawn *s)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[32];
	/* Unprivileged, a user namespace owns it, with the launcher's ids
	 * mapped to themselves: the backend's command runs as the same user
	 * there and makes its own user namespace inside. */
	if (unshare(CLONE_NEWNET | (uid != 0 ? CLONE_NEWUSER : 0)) < 0)
		return -errno;
	int r = 0;
	if (uid != 0) {
		id_map_line((unsigned)uid, map);
		r = write_proc("/proc/self/uid_map", map);
		if (r == 0)
			r = write_proc("/proc/self/setgroups", "deny\n");
		id_map_line((unsigned)gid, map);
		if (r == 0)
			r = write_proc("/proc/self/gid_map", map);
	}
	if (r == 0)
		r = loopback_up();
	/* Failing that, the engine makes its own. */
	if (r == 0 && s->tap)
		(void)make_tap(NETNS_TAP_NAME);
	int fd = r < 0 ? -1 : open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (r == 0 && fd < 0)
		r = -errno;
	struct iovec iov = {(void *)"N", 1};
	if (r == 0)
		r = fd_send(s->report, &iov, 1, fd);
	if (fd >= 0)
		close(fd);
	if (r == 0 && s->route) {
		/* None made: the record goes without the addresses. */
		int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		struct iovec rt = {(void *)"R", 1};
		r = fd_send(s->report, &rt, 1, sock);
		if (sock >= 0)
			close(sock);
	}
	return r;
}

int platform_netns_new(int *out)
{
	/* A child makes it (and, unprivileged, a user namespace to own it),
	 * brings loopback up and hands back an fd: the launcher's own
	 * namespaces stay as they are. */
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int r = -errno;
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (pid == 0) {
		(void)platform_fds_close_except(STDERR_FILENO + 1, &sv[1], 1);
		int flags = CLONE_NEWNET | (geteuid() != 0 ? CLONE_NEWUSER : 0);
		int r = unshare(flags) < 0 ? -errno : loopback_up();
		int fd = r < 0 ? -1 : open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (r == 0 && fd < 0)
			r = -errno;
		send_reply(sv[1], -r, fd, NULL);
		_exit(r < 0 ? 1 : 0);
	}
	close(sv[1]);
	struct reply rep = {EIO, 0};
	int fd = -1;
	ssize_t n = fd_recv(sv[0], &rep, sizeof(rep), &fd);
	close(sv[0]);
	(void)waitpid(pid, NULL, 0);
	if (n < (ssize_t)sizeof(rep) || rep.err || fd < 0) {
		if (fd >= 0)
			close(fd);
		return -(rep.err ? rep.err : EIO);
	}
	*out = fd;
	return 0;
}
