/* SPDX-License-Identifier: MIT */
/* plugins/bwrap/init_mounts.c against its reference (init_mounts_old.c, the
 * quadratic scan it replaced): on edge cases and many random plans (nested,
 * duplicate and sibling destinations, odd spellings, every kind, pinned and
 * unpinned fds, real /etc directories for the staged binds), the same
 * entries delegated, the same counts, the same list byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "init_mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int old_init_mounts_plan(const struct asb_host *host, struct asb_ctx *ctx, bool caps_allowed,
                         const char *const *ro_dirs, size_t n_ro, struct init_mounts *m);

#define MAX_ENTRIES 700
#define PATH_LEN    256

struct fake {
	struct asb_entry es[MAX_ENTRIES];
	char dest[MAX_ENTRIES][PATH_LEN];
	char host[MAX_ENTRIES][PATH_LEN];
	int n;
	const char *mode;
	uint32_t hardening;
};

static int entry_count(struct asb_ctx *ctx)
{
	return ((struct fake *)ctx)->n;
}

static int entry_get(struct asb_ctx *ctx, uint32_t i, struct asb_entry *out)
{
	struct fake *f = (struct fake *)ctx;
	if (i >= (uint32_t)f->n)
		return -EINVAL;
	*out = f->es[i];
	return 0;
}

static uint32_t hardening(struct asb_ctx *ctx)
{
	return ((struct fake *)ctx)->hardening;
}

static int config_string(struct asb_ctx *ctx, const char *key, const char **out)
{
	struct fake *f = (struct fake *)ctx;
	if (strcmp(key, "init_mounts") != 0 || !f->mode)
		return -ENOENT;
	*out = f->mode;
	return 0;
}

static const struct asb_host host = {
    .struct_size = sizeof(struct asb_host),
    .config_string = config_string,
    .plan_entry_count = entry_count,
    .plan_entry_get = entry_get,
    .plan_hardening = hardening,
};

/* O_PATH fds of real directories (the staged binds' pins) and others. */
static const char *const pinned_paths[] = {"/",        "/etc", "/etc/ssl",
                                           "/etc/apt", "/tmp", "/etc/dpkg"};
#define N_PINNED (sizeof(pinned_paths) / sizeof(pinned_paths[0]))
static int pinned[N_PINNED];

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PINNED; i++)
		pinned[i] = open(pinned_paths[i], O_PATH | O_CLOEXEC);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PINNED; i++)
		if (pinned[i] >= 0)
			close(pinned[i]);
	return 0;
}

static void add(struct fake *f, uint32_t type, uint32_t flags, const char *dest,
                const char *host_path, int fd, const char *data, uint64_t data_len)
{
	assert_true(f->n < MAX_ENTRIES);
	int i = f->n++;
	snprintf(f->dest[i], PATH_LEN, "%s", dest);
	if (host_path)
		snprintf(f->host[i], PATH_LEN, "%s", host_path);
	f->es[i] = (struct asb_entry){
	    .struct_size = sizeof(struct asb_entry),
	    .type = type,
	    .flags = flags,
	    .mode = (uint32_t)(i % 3 == 0 ? 0700 : 0),
	    .fd = fd,
	    .host_path = host_path ? f->host[i] : NULL,
	    .dest = f->dest[i],
	    .origin = "test",
	    .data = data,
	    .data_len = data_len,
	};
}

/* How many plans had entries delegated, staged, and kept: the generator
 * reaches every decision. */
static unsigned seen_delegated, seen_staged, seen_mixed;

/* Both decide the plan; everything they hand back is the same. */
static void compare(struct fake *f, bool caps)
{
	static const char *const ro[] = {"/etc", "/usr"};
	struct init_mounts a, b;
	int ra = init_mounts_plan(&host, (struct asb_ctx *)f, caps, ro, 2, &a);
	int rb = old_init_mounts_plan(&host, (struct asb_ctx *)f, caps, ro, 2, &b);
	assert_int_equal(ra, rb);
	assert_int_equal(a.n_entries, b.n_entries);
	assert_int_equal(a.n_delegated, b.n_delegated);
	assert_int_equal(a.n_staged, b.n_staged);
	assert_int_equal(!a.delegated, !b.delegated);
	if (a.delegated)
		assert_memory_equal(a.delegated, b.delegated, a.n_entries);
	assert_int_equal(a.list_len, b.list_len);
	assert_int_equal(a.shown_len, b.shown_len);
	assert_int_equal(!a.list, !b.list);
	if (a.list) {
		assert_memory_equal(a.list, b.list, a.list_len);
		assert_memory_equal(a.shown, b.shown, a.shown_len);
	}
	seen_delegated += a.n_delegated > 0;
	seen_staged += a.n_staged > 0;
	seen_mixed += a.n_delegated > 0 && a.n_delegated < a.n_entries;
	init_mounts_clear(&a);
	init_mounts_clear(&b);
}

static void compare_modes(struct fake *f)
{
	static const char *const modes[] = {"always", "auto", NULL, "never"};
	for (size_t m = 0; m < 4; m++) {
		f->mode = modes[m];
		compare(f, true);
	}
	f->mode = "always";
	compare(f, false);
	f->hardening = ASB_HARD_LANDLOCK;
	compare(f, true);
	f->hardening = 0;
	compare(f, true);
	f->hardening = ASB_HARD_SECCOMP;
}

static void self(struct fake *f, uint32_t type, const char *path)
{
	add(f, type, ASB_ENTRY_F_DIR, path, path, pinned[0], NULL, 0);
}

static void test_edges(void **state)
{
	(void)state;
	struct fake *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->hardening = ASB_HARD_SECCOMP;
	/* "/" and what lies under it; siblings sharing a prefix; duplicates. */
	self(f, ASB_ENTRY_READ, "/");
	self(f, ASB_ENTRY_WRITE, "/a");
	self(f, ASB_ENTRY_WRITE, "/a/b");
	add(f, ASB_ENTRY_EPHEMERAL, 0, "/a/bc", NULL, -1, NULL, 0);
	add(f, ASB_ENTRY_EPHEMERAL, 0, "/a/bc", NULL, -1, NULL, 0);
	add(f, ASB_ENTRY_MASK, ASB_ENTRY_F_DIR, "/a/b/c", NULL, -1, NULL, 0);
	add(f, ASB_ENTRY_FILE, 0, "/a/b.c", NULL, -1, "x\n", 2);
	add(f, ASB_ENTRY_MASK, 0, "/a/b/", NULL, -1, NULL, 0);
	self(f, ASB_ENTRY_READ, "/a/b/");
	self(f, ASB_ENTRY_READ, "/a//b");
	add(f, ASB_ENTRY_EPHEMERAL, 0, "//", NULL, -1, NULL, 0);
	add(f, ASB_ENTRY_EPHEMERAL, 0, "/x/./y", NULL, -1, NULL, 0);
	self(f, ASB_ENTRY_WRITE, "/x/.");
	add(f, ASB_ENTRY_FILE, 0, "/x/./y/z", NULL, -1, "", 0);
	add(f, ASB_ENTRY_FILE, 0, "/run/agentsandbox/f", NULL, -1, "f", 1);
	add(f, ASB_ENTRY_FILE, 0, "/run/agentsandboxx", NULL, -1, "f", 1);
	add(f, ASB_ENTRY_FILE, 0, "/run", NULL, -1, "f", 1);
	add(f, ASB_ENTRY_READ, 0, "/etc/ssl", "/etc/ssl", pinned[2], NULL, 0);
	add(f, ASB_ENTRY_READ, 0, "/etc/apt", "/etc/apt", pinned[2], NULL, 0);
	add(f, ASB_ENTRY_READ, 0, "/etc/dpkg/", "/etc/dpkg/", -1, NULL, 0);
	add(f, ASB_ENTRY_READ, 0, "/etc", "/etc", -1, NULL, 0);
	add(f, ASB_ENTRY_EPHEMERAL, 0, "", NULL, -1, NULL, 0);
	add(f, ASB_ENTRY_EPHEMERAL, 0, "rel/a", NULL, -1, NULL, 0);
	/* Every prefix of the plan, then every suffix. */
	struct fake *g = calloc(1, sizeof(*g));
	assert_non_null(g);
	for (int n = 1; n <= f->n; n++) {
		*g = *f;
		g->n = n;
		for (int i = 0; i < n; i++) {
			g->es[i].dest = g->dest[i];
			g->es[i].host_path = f->es[i].host_path ? g->host[i] : NULL;
		}
		compare_modes(g);
	}
	for (int s = 0; s < f->n; s++) {
		memset(g, 0, sizeof(*g));
		g->hardening = ASB_HARD_SECCOMP;
		for (int i = s; i < f->n; i++)
			add(g, f->es[i].type, f->es[i].flags, f->dest[i], f->es[i].host_path,
			    f->es[i].fd, f->es[i].data, f->es[i].data_len);
		compare_modes(g);
	}
	free(g);
	free(f);
}

/* A deterministic generator: the same plans on every run. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static const char *const comps[] = {"a",   "b",   "bc",  "ab",  "a.b",          "b-",
                                    "etc", "ssl", "apt", "run", "agentsandbox", "."};
#define N_COMPS (sizeof(comps) / sizeof(comps[0]))
static const char *const tops[] = {"", "/a", "/ab", "/etc", "/run/agentsandbox", "/run", "/b"};
#define N_TOPS (sizeof(tops) / sizeof(tops[0]))

static void append(char *p, const char *c)
{
	size_t l = strlen(p);
	if (l + strlen(c) + 3 < PATH_LEN)
		snprintf(p + l, PATH_LEN - l, "%s%s", rnd(40) ? "/" : "//", c);
}

static void random_dest(struct fake *f, char *p)
{
	uint32_t how = rnd(100);
	if (f->n > 0 && how < 35) { /* below an earlier one */
		snprintf(p, PATH_LEN, "%s", f->dest[rnd((uint32_t)f->n)]);
		append(p, comps[rnd(N_COMPS)]);
	} else if (f->n > 0 && how < 50) { /* the same place */
		snprintf(p, PATH_LEN, "%s", f->dest[rnd((uint32_t)f->n)]);
	} else if (f->n > 0 && how < 58) { /* above an earlier one */
		snprintf(p, PATH_LEN, "%s", f->dest[rnd((uint32_t)f->n)]);
		char *s = strrchr(p, '/');
		if (s)
			*s = '\0';
	} else if (how < 60) {
		static const char *const odd[] = {"/", "//", "", "a", "/a/", "/a//", "/etc/"};
		snprintf(p, PATH_LEN, "%s", odd[rnd(7)]);
	} else {
		snprintf(p, PATH_LEN, "%s", tops[rnd(N_TOPS)]);
		for (uint32_t d = rnd(5); d-- > 0;)
			append(p, comps[rnd(N_COMPS)]);
		if (!p[0])
			snprintf(p, PATH_LEN, "/");
	}
	if (rnd(30) == 0 && strlen(p) + 2 < PATH_LEN)
		strcat(p, "/");
}

static void random_plan(struct fake *f, int n)
{
	memset(f, 0, sizeof(*f));
	f->hardening = ASB_HARD_SECCOMP;
	f->mode = "always";
	char p[PATH_LEN], h[PATH_LEN];
	/* Most plans start as real ones do: a self bind at or near "/". */
	if (rnd(4))
		self(f, rnd(2) ? ASB_ENTRY_READ : ASB_ENTRY_WRITE, rnd(3) ? "/" : "/a");
	while (f->n < n) {
		random_dest(f, p);
		uint32_t type = 1 + rnd(8), flags = rnd(2) ? ASB_ENTRY_F_DIR : 0;
		int fd = rnd(5) ? pinned[rnd(N_PINNED)] : -1;
		const char *host_path = NULL, *data = NULL;
		uint64_t len = 0;
		switch (type) {
		case ASB_ENTRY_READ:
		case ASB_ENTRY_WRITE:
		case ASB_ENTRY_DEVICE:
			if (rnd(4) == 0) {
				random_dest(f, h);
				host_path = h;
			} else {
				host_path = p;
			}
			if (rnd(3) == 0) { /* a real /etc directory, staged or not */
				static const char *const etc[] = {"/etc/ssl", "/etc/apt",
				                                  "/etc/dpkg", "/etc/hostname",
				                                  "/etc/none"};
				snprintf(p, PATH_LEN, "%s", etc[rnd(5)]);
				host_path = p;
			}
			break;
		case ASB_ENTRY_MASK:
		case ASB_ENTRY_FILE:
			if (rnd(3)) {
				data = "data";
				len = rnd(5);
			} else if (rnd(2)) {
				len = 3; /* no data, a length: not init's */
			}
			break;
		case ASB_ENTRY_SYMLINK:
			host_path = "/target";
			break;
		default:
			break;
		}
		add(f, type, flags, p, host_path, fd, data, len);
	}
}

static void test_random(void **state)
{
	(void)state;
	struct fake *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	for (int round = 0; round < 30000; round++) {
		random_plan(f, 1 + (int)rnd(round % 10 == 0 ? 120 : 30));
		compare(f, true);
		if (round % 50 == 0)
			compare_modes(f);
	}
	for (int round = 0; round < 40; round++) {
		random_plan(f, 300 + (int)rnd(MAX_ENTRIES - 300));
		compare_modes(f);
	}
	free(f);
	print_message("delegated %u, staged %u, mixed %u plans\n", seen_delegated, seen_staged,
	              seen_mixed);
	assert_true(seen_delegated > 5000 && seen_staged > 200 && seen_mixed > 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
