/* SPDX-License-Identifier: MIT */
/*
 * An evaluator for the subset of SBPL (Apple's Sandbox Profile Language)
 * that plugins/seatbelt emits, to ask of a profile what the Linux
 * integration tests ask of the real sandbox: may a process read, write or
 * execute this path, connect to that port. It shares no code with the
 * generator: it parses the text the way sandbox-exec reads it and applies
 * seatbelt's semantics as documented and observed (sources in sbpl_eval.c).
 *
 * Two readings of rule precedence are modelled, because the public sources
 * disagree on one point (see sbpl_eval.c): SBE_FLAT, where of every rule
 * naming the operation or a wildcard covering it the last that matches
 * decides, and SBE_SPECIFIC, where rules naming the operation itself are
 * consulted before rules naming a wildcard. A profile for seatbelt must mean
 * the same under both.
 */
#ifndef ASB_TESTS_SBPL_EVAL_H
#define ASB_TESTS_SBPL_EVAL_H

#include <stdbool.h>
#include <stddef.h>

struct sbe_profile;

#define SBE_FLAT     0
#define SBE_SPECIFIC 1

/* Parse `len` bytes. 0 on success; -EINVAL with a message ("line N: ...")
 * for anything outside the subset or not well formed. */
int sbe_parse(const char *text, size_t len, struct sbe_profile **out, char *err, size_t err_len);
void sbe_free(struct sbe_profile *p);
size_t sbe_rule_count(const struct sbe_profile *p);

/* One question. Unset fields are absent from the operation (a path filter
 * never matches a mach-lookup). */
#define SBE_PROTO_TCP 1
#define SBE_PROTO_UDP 2

struct sbe_query {
	const char *op;         /* an SBPL operation: "file-read-data", "network-outbound" */
	const char *path;       /* file operations; the socket path for unix sockets */
	const char *vnode_type; /* "REGULAR-FILE", "DIRECTORY", ... or NULL */
	/* network: an IP endpoint (remote for outbound, local for bind and
	 * inbound) or a unix socket (path) */
	bool ip, unix_socket;
	const char *addr; /* "127.0.0.1", "::1", "::ffff:127.0.0.1", "93.184.216.34" */
	unsigned port;
	int proto;                 /* SBE_PROTO_* */
	const char *target;        /* signal, process-info: "self", "same-sandbox", "others" */
	const char *name;          /* mach-lookup service, sysctl name */
	const char *socket_domain; /* system-socket: "AF_UNIX", "AF_INET", ... */
};

/* 1 allowed, 0 denied, < 0 the query names an unknown operation. The index
 * of the deciding rule goes to *rule (-1: the built-in default). */
int sbe_decide(const struct sbe_profile *p, int model, const struct sbe_query *q, int *rule);
/* The line of rule `index` in the text. */
int sbe_rule_line(const struct sbe_profile *p, int index);

/* Both models: 1 / 0 when they agree, -2 when they do not. */
int sbe_check(const struct sbe_profile *p, const struct sbe_query *q);

/* The questions the tests ask, under both models (-2: they disagree). */
int sbe_may_read(const struct sbe_profile *p, const char *path);     /* file-read-data */
int sbe_may_stat(const struct sbe_profile *p, const char *path);     /* file-read-metadata */
int sbe_may_write(const struct sbe_profile *p, const char *path);    /* file-write-data */
int sbe_may_create(const struct sbe_profile *p, const char *path);   /* file-write-create */
int sbe_may_unlink(const struct sbe_profile *p, const char *path);   /* file-write-unlink */
int sbe_may_link(const struct sbe_profile *p, const char *path);     /* file-link */
int sbe_may_exec(const struct sbe_profile *p, const char *path);     /* process-exec */
int sbe_may_map_exec(const struct sbe_profile *p, const char *path); /* file-map-executable */
int sbe_may_connect(const struct sbe_profile *p, const char *addr, unsigned port, int proto);
int sbe_may_bind(const struct sbe_profile *p, const char *addr, unsigned port, int proto);
int sbe_may_unix_connect(const struct sbe_profile *p, const char *path);
int sbe_may_unix_bind(const struct sbe_profile *p, const char *path);
int sbe_may_socket(const struct sbe_profile *p, const char *domain);
int sbe_may_signal(const struct sbe_profile *p, const char *target);
int sbe_may_lookup(const struct sbe_profile *p, const char *service);
int sbe_may_sysctl(const struct sbe_profile *p, const char *name);

/* Regex alone (the AppleMatch subset), for tests: 1 match, 0 none, < 0 bad. */
int sbe_regex_search(const char *re, const char *subject);

#endif /* ASB_TESTS_SBPL_EVAL_H */
