/* SPDX-License-Identifier: MIT */
#include "daemon_proto.h"
#include "errbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define WORKER_MAGIC_1 0x6e697863u
#define WORKER_MAGIC_2 0x6478696fu
#define STDERR_NEXT    0x6f6c6d67u
#define STDERR_ERROR   0x63787470u
#define STDERR_LAST    0x616c7473u
#define STDERR_START   0x53545254u
#define STDERR_STOP    0x53544f50u
#define STDERR_RESULT  0x52534c54u

/* We speak 1.35: the first version in which the daemon reports trust. We
 * only handshake, so nothing later matters. */
#define CLIENT_VERSION ((1u << 8) | 35u)

/* send(), not write(): a daemon that hangs up must not raise SIGPIPE. */
static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Integers are 64-bit little-endian. */
static int write_u64(int fd, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return send_all(fd, b, sizeof(b));
}

static int read_u64(int fd, uint64_t *v)
{
	unsigned char b[8];
	int r = read_all(fd, b, sizeof(b));

	if (r < 0)
		return r;
	*v = 0;
	for (int i = 0; i < 8; i++)
		*v |= (uint64_t)b[i] << (8 * i);
	return 0;
}

/* Strings: length, bytes, zero padding to 8. Kept up to out_len - 1 bytes. */
static int read_string(int fd, char *out, size_t out_len)
{
	uint64_t len;
	char buf[256];
	size_t kept = 0;
	int r = read_u64(fd, &len);

	if (r < 0)
		return r;
	if (len > (1u << 20))
		return -EPROTO;
	uint64_t padded = (len + 7) & ~(uint64_t)7;
	for (uint64_t done = 0; done < padded;) {
		size_t chunk = padded - done > sizeof(buf) ? sizeof(buf) : (size_t)(padded - done);
		r = read_all(fd, buf, chunk);
		if (r < 0)
			return r;
		for (size_t i = 0; i < chunk && done + i < len; i++)
			if (out != NULL && kept + 1 < out_len)
				out[kept++] = buf[i];
		done += chunk;
	}
	if (out != NULL && out_len > 0)
		out[kept] = '\0';
	return 0;
}

/* Log messages up to STDERR_LAST; an error message fails the handshake. */
static int drain_stderr(int fd, char *err, size_t err_len)
{
	for (int guard = 0; guard < 1024; guard++) {
		uint64_t msg;
		char text[200];
		int r = read_u64(fd, &msg);

		if (r < 0)
			return r;
		switch (msg) {
		case STDERR_LAST:
			return 0;
		case STDERR_NEXT:
			r = read_string(fd, NULL, 0);
			break;
		case STDERR_ERROR:
			/* Old daemons: message string then status; newer ones send a
			 * structured error we do not need to parse beyond its type. */
			r = read_string(fd, text, sizeof(text));
			if (r >= 0)
				set_err(err, err_len, "nix-daemon replied with an error: %s", text);
			return r < 0 ? r : -EACCES;
		case STDERR_START:
		case STDERR_STOP:
		case STDERR_RESULT:
			/* Not sent during a handshake; give up rather than guess. */
			set_err(err, err_len, "unexpected activity message during handshake");
			return -EPROTO;
		default:
			set_err(err, err_len, "unexpected message 0x%llx from nix-daemon",
			        (unsigned long long)msg);
			return -EPROTO;
		}
		if (r < 0)
			return r;
	}
	return -EPROTO;
}

int nix_daemon_handshake(int fd, struct nix_daemon_info *info, char *err, size_t err_len)
{
	struct nix_daemon_info out;
	uint64_t magic, version, trust;
	int r;

	memset(&out, 0, sizeof(out));
	r = write_u64(fd, WORKER_MAGIC_1);
	if (r >= 0)
		r = read_u64(fd, &magic);
	if (r >= 0 && magic != WORKER_MAGIC_2) {
		set_err(err, err_len, "not a nix-daemon (bad magic)");
		return -EPROTO;
	}
	if (r >= 0)
		r = read_u64(fd, &version);
	if (r < 0)
		goto io;
	out.proto_major = (unsigned)((version >> 8) & 0xff);
	out.proto_minor = (unsigned)(version & 0xff);
	if (out.proto_major != 1 || out.proto_minor < 10) {
		set_err(err, err_len, "unsupported nix-daemon protocol %u.%u", out.proto_major,
		        out.proto_minor);
		return -EPROTO;
	}
	r = write_u64(fd, CLIENT_VERSION);
	if (r >= 0 && out.proto_minor >= 14)
		r = write_u64(fd, 0); /* no CPU affinity */
	if (r >= 0 && out.proto_minor >= 11)
		r = write_u64(fd, 0); /* reserveSpace: obsolete */
	if (r >= 0 && out.proto_minor >= 33)
		r = read_string(fd, out.version, sizeof(out.version));
	out.trust = NIX_TRUST_UNKNOWN;
	if (r >= 0 && out.proto_minor >= 35) {
		r = read_u64(fd, &trust);
		if (r >= 0)
			out.trust = trust == 1   ? NIX_TRUST_TRUSTED
			            : trust == 2 ? NIX_TRUST_NOT
			                         : NIX_TRUST_UNKNOWN;
	}
	if (r < 0)
		goto io;
	r = drain_stderr(fd, err, err_len);
	if (r == -EACCES || r == -EPROTO)
		return r;
	if (r < 0)
		goto io;
	*info = out;
	return 0;
io:
	if (r == -ECONNRESET)
		set_err(
		    err, err_len,
		    "nix-daemon closed the connection (is your user outside its allowed-users?)");
	else if (r == -ETIMEDOUT)
		set_err(err, err_len, "nix-daemon did not answer in time");
	else
		set_err(err, err_len, "talking to nix-daemon: %s", strerror(-r));
	return r;
}

int nix_daemon_query(const char *path, int timeout_ms, struct nix_daemon_info *info, char *err,
                     size_t err_len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	struct nix_daemon_info out;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		set_err(err, err_len, "socket path too long");
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		set_err(err, err_len, "cannot connect to %s: %s", path, strerror(-r));
		return r;
	}
	r = nix_daemon_handshake(fd, &out, err, err_len);
	if (r < 0)
		return r;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) == 0) {
		out.daemon_uid = cred.uid;
		out.have_daemon_uid = 1;
	}
	*info = out;
	return 0;
}
