/* SPDX-License-Identifier: MIT */
/* The gpg-agent broker (plugins/gpg), in front of the agent's own
 * restricted socket (agent-extra-socket, the one gpg-agent offers for
 * forwarding to remote hosts). Assuan is line based: what the client sends
 * is checked line by line, what the agent answers passes unchanged. Only
 * the commands signing needs pass (and the data lines of an INQUIRE);
 * OPTIONs other than the terminal and locale ones are answered here and
 * not forwarded (putenv, display: pinentry runs on the host). Decryption,
 * key import, export, deletion, passphrase presets and smartcard commands
 * are refused with an Assuan error. Each PKSIGN is logged with its key. */
#include "broker.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define LINE_MAX_LEN 4096

static const char *const commands[] = {"RESET", "NOP", "BYE", "GETINFO", "HAVEKEY", "KEYINFO",
                                       "READKEY", "SIGKEY", "SETKEY", "SETHASH", "SETKEYDESC",
                                       "PKSIGN", "ISTRUSTED",
                                       /* the client's side of an INQUIRE */
                                       "D", "END", "CAN", NULL};

static const char *const options[] = {
    "ttyname",         "ttytype",       "lc-ctype", "lc-messages", "allow-pinentry-notify",
    "agent-awareness", "pinentry-mode", NULL};

struct conn {
	const struct broker *b;
	int client, up;
	char sigkey[128];
	char sethash[64];
};

static bool in_list(const char *const *list, const char *word, size_t len)
{
	for (const char *const *c = list; *c; c++)
		if (strlen(*c) == len && strncasecmp(*c, word, len) == 0)
			return true;
	return false;
}

static void remember(char *dst, size_t size, const char *arg)
{
	snprintf(dst, size, "%.*s", (int)strcspn(arg, " \r\n"), arg);
}

/* One line from the client: forwarded (1), answered here (0), or -errno. */
static int check_line(struct conn *c, const char *line, size_t len)
{
	size_t w = strcspn(line, " \r\n");
	const char *arg = line + w + (line[w] == ' ');
	if (w == 6 && strncasecmp(line, "OPTION", 6) == 0) {
		size_t o = strcspn(arg, " =\r\n");
		if (in_list(options, arg, o))
			return 1;
		blog(c->b, "option %.*s: answered by the broker, not forwarded", (int)o, arg);
		return write_all(c->client, "OK\n", 3) < 0 ? -EPIPE : 0;
	}
	if (!in_list(commands, line, w)) {
		blog(c->b, "refused: %.*s", (int)(w > 64 ? 64 : w), line);
		static const char err[] = "ERR 67109115 Forbidden <agentsandbox broker>\n";
		return write_all(c->client, err, sizeof(err) - 1) < 0 ? -EPIPE : 0;
	}
	if (w == 6 && strncasecmp(line, "SIGKEY", 6) == 0)
		remember(c->sigkey, sizeof(c->sigkey), arg);
	else if (w == 6 && strncasecmp(line, "SETKEY", 6) == 0)
		remember(c->sigkey, sizeof(c->sigkey), arg);
	else if (w == 7 && strncasecmp(line, "SETHASH", 7) == 0)
		remember(c->sethash, sizeof(c->sethash), arg);
	else if (w == 6 && strncasecmp(line, "PKSIGN", 6) == 0)
		blog(c->b, "sign: keygrip %s, hash %s", c->sigkey[0] ? c->sigkey : "?",
		     c->sethash[0] ? c->sethash : "?");
	(void)len;
	return 1;
}

static int pump_client(struct conn *c, char *buf, size_t *have)
{
	ssize_t n = read(c->client, buf + *have, LINE_MAX_LEN - *have);
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0)
		return -EPIPE;
	*have += (size_t)n;
	for (;;) {
		char *nl = memchr(buf, '\n', *have);
		if (!nl) {
			if (*have >= LINE_MAX_LEN) {
				blog(c->b, "refused: a line of more than %d bytes", LINE_MAX_LEN);
				return -EMSGSIZE;
			}
			return 0;
		}
		size_t len = (size_t)(nl - buf) + 1;
		*nl = '\0';
		int r = check_line(c, buf, len);
		*nl = '\n';
		if (r < 0)
			return r;
		if (r == 1 && write_all(c->up, buf, len) < 0)
			return -EPIPE;
		memmove(buf, buf + len, *have - len);
		*have -= len;
	}
}

int gpg_agent_serve(const struct broker *b, int client)
{
	struct conn c = {.b = b, .client = client};
	if ((c.up = upstream_connect(b)) < 0) {
		blog(b, "cannot reach gpg-agent at %s: %s", b->upstream, strerror(-c.up));
		return c.up;
	}
	char buf[LINE_MAX_LEN];
	size_t have = 0;
	for (;;) {
		struct pollfd p[2] = {{.fd = client, .events = POLLIN},
		                      {.fd = c.up, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			char out[8192];
			ssize_t n = read(c.up, out, sizeof(out));
			if (n <= 0 || write_all(client, out, (size_t)n) < 0)
				break;
		}
		if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    pump_client(&c, buf, &have) < 0)
			break;
	}
	close(c.up);
	return 0;
}
