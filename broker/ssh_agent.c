/* SPDX-License-Identifier: MIT */
/* The ssh-agent broker (plugins/ssh): the agent inside may list identities
 * and ask for signatures, optionally only with the keys whose SHA256
 * fingerprints are listed; adding, removing, locking keys, smartcards and
 * extensions other than session-bind are refused here, never forwarded.
 * Each signature (and each refusal) is a line in the session's log.
 * Protocol: draft-miller-ssh-agent (OpenSSH's PROTOCOL.agent). */
#include "broker.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#define MAX_MSG (256 * 1024) /* OpenSSH's AGENT_MAX_LEN */

#define AGENT_FAILURE           5
#define REQUEST_IDENTITIES      11
#define IDENTITIES_ANSWER       12
#define SIGN_REQUEST            13
#define ADD_IDENTITY            17
#define REMOVE_IDENTITY         18
#define REMOVE_ALL_IDENTITIES   19
#define ADD_SMARTCARD_KEY       20
#define REMOVE_SMARTCARD_KEY    21
#define LOCK                    22
#define UNLOCK                  23
#define ADD_ID_CONSTRAINED      25
#define ADD_SMARTCARD_CONSTRAIN 26
#define EXTENSION               27

static const char *type_name(unsigned t)
{
	switch (t) {
	case ADD_IDENTITY:
	case ADD_ID_CONSTRAINED:
		return "add key";
	case REMOVE_IDENTITY:
		return "remove key";
	case REMOVE_ALL_IDENTITIES:
	case 9: /* SSH_AGENTC_REMOVE_ALL_RSA_IDENTITIES, protocol 1 */
		return "remove all keys";
	case ADD_SMARTCARD_KEY:
	case ADD_SMARTCARD_CONSTRAIN:
		return "add smartcard key";
	case REMOVE_SMARTCARD_KEY:
		return "remove smartcard key";
	case LOCK:
		return "lock";
	case UNLOCK:
		return "unlock";
	}
	return "unknown request";
}

/* A cursor over a message. */
struct rd {
	const unsigned char *p;
	size_t n;
};

static int get_u32(struct rd *r, uint32_t *v)
{
	if (r->n < 4)
		return -EINVAL;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->n -= 4;
	return 0;
}

static int get_str(struct rd *r, const unsigned char **s, size_t *len)
{
	uint32_t l;
	if (get_u32(r, &l) < 0 || l > r->n)
		return -EINVAL;
	*s = r->p;
	*len = l;
	r->p += l;
	r->n -= l;
	return 0;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* "SHA256:" + unpadded base64 of the key blob, as ssh-keygen -l prints. */
static void fingerprint(const unsigned char *blob, size_t len, char out[64])
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	unsigned char b64[48];
	EVP_Digest(blob, len, md, &mdlen, EVP_sha256(), NULL);
	int n = EVP_EncodeBlock(b64, md, (int)mdlen);
	while (n > 0 && b64[n - 1] == '=')
		n--;
	snprintf(out, 64, "SHA256:%.*s", n, (const char *)b64);
}

static bool allowed(const struct broker *b, const char *fp)
{
	return b->keys.n == 0 || strv_contains(&b->keys, fp);
}

static int read_msg(int fd, unsigned char **buf, uint32_t *len)
{
	unsigned char hdr[4];
	int r = read_full(fd, hdr, 4);
	if (r < 0)
		return r;
	uint32_t l =
	    (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (l == 0 || l > MAX_MSG)
		return -EMSGSIZE;
	unsigned char *m = malloc(l);
	if (!m)
		return -ENOMEM;
	if ((r = read_full(fd, m, l)) < 0) {
		free(m);
		return r;
	}
	*buf = m;
	*len = l;
	return 0;
}

static int write_msg(int fd, const unsigned char *m, uint32_t len)
{
	unsigned char hdr[4];
	put_u32(hdr, len);
	int r = write_all(fd, hdr, 4);
	return r < 0 ? r : write_all(fd, m, len);
}

static int failure(int fd)
{
	unsigned char f = AGENT_FAILURE;
	return write_msg(fd, &f, 1);
}

/* What is being signed, for the log: an ssh user authentication, an
 * SSHSIG (ssh-keygen -Y sign: git commits), or just its size. */
static void describe_data(const unsigned char *d, size_t n, char *out, size_t len)
{
	struct rd r = {d, n};
	const unsigned char *s1, *s2, *s3;
	size_t l1, l2, l3;
	if (n > 6 && memcmp(d, "SSHSIG", 6) == 0) {
		r.p += 6, r.n -= 6;
		if (get_str(&r, &s1, &l1) == 0) {
			snprintf(out, len, "sshsig namespace=%.*s", (int)(l1 > 64 ? 64 : l1),
			         (const char *)s1);
			return;
		}
	}
	if (get_str(&r, &s1, &l1) == 0 && r.n > 0 && r.p[0] == 50 /* USERAUTH_REQUEST */) {
		r.p++, r.n--;
		if (get_str(&r, &s2, &l2) == 0 && get_str(&r, &s3, &l3) == 0) {
			snprintf(out, len, "userauth user=%.*s service=%.*s",
			         (int)(l2 > 64 ? 64 : l2), (const char *)s2,
			         (int)(l3 > 64 ? 64 : l3), (const char *)s3);
			return;
		}
	}
	snprintf(out, len, "%zu bytes", n);
}

/* The upstream's answer to REQUEST_IDENTITIES, less the keys not allowed. */
static int filter_identities(const struct broker *b, unsigned char *m, uint32_t *len)
{
	struct rd r = {m + 1, *len - 1};
	uint32_t nkeys;
	if (m[0] != IDENTITIES_ANSWER || get_u32(&r, &nkeys) < 0)
		return 0; /* a failure reply: passed on as is */
	unsigned char *w = m + 5;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < nkeys; i++) {
		const unsigned char *blob, *comment;
		size_t bl, cl;
		const unsigned char *start = r.p;
		if (get_str(&r, &blob, &bl) < 0 || get_str(&r, &comment, &cl) < 0)
			return -EINVAL;
		char fp[64];
		fingerprint(blob, bl, fp);
		if (!allowed(b, fp))
			continue;
		size_t span = (size_t)(r.p - start);
		memmove(w, start, span);
		w += span;
		kept++;
	}
	put_u32(m + 1, kept);
	*len = (uint32_t)(w - m);
	if (kept != nkeys)
		blog(b, "identities: %u of %u listed (the others are not allowed)", kept, nkeys);
	return 0;
}

static int forward(int up, int client, const unsigned char *m, uint32_t len, const struct broker *b,
                   bool filter)
{
	int r = write_msg(up, m, len);
	unsigned char *resp = NULL;
	uint32_t rl = 0;
	if (r < 0 || (r = read_msg(up, &resp, &rl)) < 0)
		return r;
	if (filter && (r = filter_identities(b, resp, &rl)) < 0) {
		free(resp);
		return failure(client);
	}
	r = write_msg(client, resp, rl);
	free(resp);
	return r;
}

static int handle(const struct broker *b, int up, int client, unsigned char *m, uint32_t len)
{
	unsigned type = m[0];
	struct rd r = {m + 1, len - 1};
	if (type == REQUEST_IDENTITIES)
		return forward(up, client, m, len, b, true);
	if (type == SIGN_REQUEST) {
		const unsigned char *blob, *data;
		size_t bl, dl;
		uint32_t flags = 0;
		if (get_str(&r, &blob, &bl) < 0 || get_str(&r, &data, &dl) < 0 ||
		    get_u32(&r, &flags) < 0) {
			blog(b, "refused: a malformed sign request");
			return failure(client);
		}
		char fp[64], what[200];
		fingerprint(blob, bl, fp);
		describe_data(data, dl, what, sizeof(what));
		if (!allowed(b, fp)) {
			blog(b, "refused: sign with %s (%s): key not allowed", fp, what);
			return failure(client);
		}
		blog(b, "sign: %s (%s)", fp, what);
		return forward(up, client, m, len, b, false);
	}
	if (type == EXTENSION) {
		const unsigned char *name = (const unsigned char *)"";
		size_t nl = 0;
		/* session-bind ties the connection to the server's host key: it
		 * only restricts what the keys may do. */
		if (get_str(&r, &name, &nl) == 0 && nl == strlen("session-bind@openssh.com") &&
		    memcmp(name, "session-bind@openssh.com", nl) == 0)
			return forward(up, client, m, len, b, false);
		blog(b, "refused: extension %.*s", (int)(nl > 64 ? 64 : nl), (const char *)name);
		return failure(client);
	}
	blog(b, "refused: %s (request %u)", type_name(type), type);
	return failure(client);
}

int ssh_agent_serve(const struct broker *b, int client)
{
	int up = upstream_connect(b);
	if (up < 0) {
		blog(b, "cannot reach the agent at %s: %s", b->upstream, strerror(-up));
		return up;
	}
	for (;;) {
		unsigned char *m = NULL;
		uint32_t len = 0;
		int r = read_msg(client, &m, &len);
		if (r < 0) {
			if (r == -EMSGSIZE)
				blog(b, "refused: a message of more than %d bytes", MAX_MSG);
			break;
		}
		r = handle(b, up, client, m, len);
		free(m);
		if (r < 0)
			break;
	}
	close(up);
	return 0;
}
