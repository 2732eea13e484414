/* SPDX-License-Identifier: MIT */
/* Plan → view → config.json, through a mock host: what is dropped, the
 * order, where links and mount points go, what is refused, what the
 * record shows and hides. */
#include "../runsc.h"
#include "mock_host.h"

#include <errno.h>
#include <stdlib.h>

#include "check.h"

static struct asb_ctx ctx;
static const struct asb_host *host;

static int find(const struct view *v, const char *dest)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i].dest, dest) == 0)
			return (int)i;
	return -1;
}

static int build(struct view *v)
{
	ctx.log[0] = '\0';
	return view_build(host, &ctx, v);
}

static int render(struct runsc *rs, bool redact, char **out)
{
	size_t len;
	snprintf(rs->sh, sizeof(rs->sh), "/bin/sh");
	snprintf(rs->flock, sizeof(rs->flock), "/usr/bin/flock");
	rs->dir = "/priv";
	rs->is_root = true;
	int r = view_build(host, &ctx, &rs->view);
	if (r < 0)
		return r;
	return spec_render(host, &ctx, rs, redact, out, &len);
}

static void test_cover_and_order(void)
{
	struct view v = {0};
	mock_reset(&ctx);
	mock_entry(&ctx, ASB_ENTRY_WRITE, "/h/claude", "/home/u/.claude", ASB_ENTRY_F_DIR);
	mock_entry(&ctx, ASB_ENTRY_READ, "/usr", "/usr", ASB_ENTRY_F_DIR);
	mock_entry(&ctx, ASB_ENTRY_EPHEMERAL, NULL, "/home/u", 0);
	mock_entry(&ctx, ASB_ENTRY_WRITE, "/h/proj", "/home/u/proj", ASB_ENTRY_F_DIR);
	mock_entry(&ctx, ASB_ENTRY_READ, "/etc/hosts", "/etc/hosts", 0);
	mock_entry(&ctx, ASB_ENTRY_READ, "/h/other-hosts", "/etc/hosts", 0);
	CHECK(build(&v) == 0, "a plain plan builds");
	CHECK(find(&v, "/home/u/.claude") < 0, "an entry a later one covers is dropped");
	int home = find(&v, "/home/u"), proj = find(&v, "/home/u/proj");
	CHECK(home >= 0 && proj > home, "ancestors come first (%d < %d)", home, proj);
	int hosts = find(&v, "/etc/hosts");
	CHECK(hosts >= 0 && strcmp(v.v[hosts].source, "/h/other-hosts") == 0,
	      "of two entries at one place the later wins");
	for (size_t i = 1; i < v.n; i++)
		CHECK(strlen(v.v[i - 1].dest) <= strlen(v.v[i].dest), "sorted by length: %s",
		      v.v[i].dest);
	CHECK(v.v[proj].container == home, "the project lies in the home");
	CHECK(v.v[proj].rw && v.v[proj].mount == M_BIND, "a WRITE entry is a rw bind");
	CHECK(v.v[home].mount == M_TMPFS && v.v[home].mode == 0755,
	      "an EPHEMERAL entry is a tmpfs (0755 by default)");
	int sys = find(&v, "/sys"), proc = find(&v, "/proc"), dev = find(&v, "/dev");
	CHECK(sys >= 0 && proc >= 0 && dev >= 0 && v.v[sys].gen == G_DIR &&
	          v.v[proc].gen == G_DIR && v.v[dev].gen == G_DIR,
	      "no /proc, /sys, /dev in the plan: empty read-only directories there");
	CHECK(find(&v, ASB_RUN_DIR) >= 0, "ASB_RUN_DIR is ours");
	view_free(&v);
}

static void test_links_and_own_dirs(void)
{
	struct view v = {0};
	mock_reset(&ctx);
	mock_entry(&ctx, ASB_ENTRY_SYMLINK, "usr/bin", "/bin", 0);
	mock_entry(&ctx, ASB_ENTRY_PROC, NULL, "/proc", 0);
	mock_entry(&ctx, ASB_ENTRY_DEVFS, NULL, "/dev", 0);
	mock_entry(&ctx, ASB_ENTRY_EPHEMERAL, NULL, "/run", 0);
	mock_entry(&ctx, ASB_ENTRY_EPHEMERAL, NULL, "/tmp", 0);
	mock_entry(&ctx, ASB_ENTRY_SYMLINK, "/tmp/x", "/tmp/link", 0);
	mock_entry(&ctx, ASB_ENTRY_READ, "/l/init", ASB_RUN_DIR "/init", 0);
	static const char bpf[] = "BPF";
	mock_entry(&ctx, ASB_ENTRY_FILE, NULL, ASB_RUN_DIR "/seccomp.bpf", 0);
	ctx.entries[ctx.n_entries - 1].data = bpf;
	ctx.entries[ctx.n_entries - 1].data_len = 3;
	mock_entry(&ctx, ASB_ENTRY_MASK, NULL, "/h/secret", ASB_ENTRY_F_DIR);
	mock_entry(&ctx, ASB_ENTRY_MASK, NULL, "/h/key", 0);
	CHECK(build(&v) == 0, "links, files, masks, procfs, /dev");
	int bin = find(&v, "/bin");
	CHECK(bin >= 0 && v.v[bin].gen == G_SYMLINK && v.v[bin].container == -1,
	      "a top-level link goes into the bundle's root");
	int proc = find(&v, "/proc");
	CHECK(proc >= 0 && v.v[proc].mount == M_PROC, "PROC replaces our empty /proc");
	int dev = find(&v, "/dev"), shm = find(&v, "/dev/shm");
	CHECK(dev >= 0 && v.v[dev].mount == M_DEVFS && shm >= 0 && v.v[shm].mode == 01777,
	      "DEVFS is gVisor's /dev and a /dev/shm");
	int tmp = find(&v, "/tmp"), link = find(&v, "/tmp/link");
	CHECK(tmp >= 0 && v.v[tmp].gen == G_EPHEMERAL && v.v[tmp].rw && v.v[link].container == tmp,
	      "a link inside an ephemeral directory makes that directory ours");
	int run = find(&v, ASB_RUN_DIR), init = find(&v, ASB_RUN_DIR "/init");
	CHECK(run >= 0 && v.v[run].gen == G_RUN_DIR && init >= 0 && v.v[init].container == run,
	      "the core's files under ASB_RUN_DIR lie in ours");
	int runtop = find(&v, "/run");
	CHECK(runtop >= 0 && v.v[runtop].mount == M_TMPFS, "/run stays a tmpfs");
	int bpff = find(&v, ASB_RUN_DIR "/seccomp.bpf");
	CHECK(bpff >= 0 && v.v[bpff].gen == G_FILE && v.v[bpff].data_len == 3 &&
	          memcmp(v.v[bpff].data, "BPF", 3) == 0 && v.v[bpff].mode == 0444,
	      "a FILE keeps a copy of its content, 0444 by default");
	int md = find(&v, "/h/secret"), mf = find(&v, "/h/key");
	CHECK(md >= 0 && v.v[md].gen == G_DIR && !v.v[md].rw,
	      "a directory mask: an empty read-only directory");
	CHECK(mf >= 0 && v.v[mf].gen == G_FILE && v.v[mf].data_len == 0 && !v.v[mf].rw,
	      "a file mask: an empty read-only file");
	CHECK(v.v[md].gen_index != v.v[tmp].gen_index, "directories of ours are numbered apart");
	view_free(&v);
}

static void test_try(void)
{
	struct view v = {0};
	mock_reset(&ctx);
	mock_entry(&ctx, ASB_ENTRY_READ, "/nonexistent/asb-runsc-test", "/opt/a", ASB_ENTRY_F_TRY);
	mock_entry(&ctx, ASB_ENTRY_READ, "/", "/opt/b", ASB_ENTRY_F_TRY);
	mock_entry(&ctx, ASB_ENTRY_READ, "/nonexistent/asb-runsc-test", "/opt/c", 0);
	CHECK(build(&v) == 0, "a plan with missing paths builds");
	CHECK(find(&v, "/opt/a") < 0, "an unpinned F_TRY entry whose path is missing is skipped");
	int b = find(&v, "/opt/b");
	CHECK(b >= 0 && v.v[b].dir, "one whose path exists is kept (a directory, by name)");
	CHECK(find(&v, "/opt/c") >= 0, "without F_TRY it stays (and the mount fails, closed)");
	view_free(&v);
}

static void test_refusals(void)
{
	struct view v = {0};
	static const struct {
		uint32_t type;
		const char *host, *dest;
		int err;
		const char *what;
	} cases[] = {
	    {ASB_ENTRY_DEVICE, "/dev/kvm", "/dev/kvm", -EOPNOTSUPP, "a host device"},
	    {ASB_ENTRY_DEVFS, NULL, "/mydev", -EOPNOTSUPP, "a /dev elsewhere"},
	    {ASB_ENTRY_READ, "/x", "/a/../b", -EINVAL, "a dest with .."},
	    {ASB_ENTRY_READ, "/x", "/a/", -EINVAL, "a dest with a trailing /"},
	    {ASB_ENTRY_READ, "/x", "//a", -EINVAL, "a dest with //"},
	    {ASB_ENTRY_READ, "/x", "a", -EINVAL, "a relative dest"},
	    {ASB_ENTRY_READ, "/x", "/", -EINVAL, "the root itself"},
	    {ASB_ENTRY_READ, "/x", "/a\nb", -EINVAL, "a control character"},
	    {ASB_ENTRY_READ, "/x", ASB_BIN_DIR "/sh", -EINVAL, "an entry among the executables"},
	    {ASB_ENTRY_EPHEMERAL, NULL, ASB_RUN_DIR, -EINVAL, "an entry over ASB_RUN_DIR"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mock_reset(&ctx);
		mock_entry(&ctx, cases[i].type, cases[i].host, cases[i].dest, 0);
		int r = build(&v);
		CHECK(r == cases[i].err, "refused: %s (%d)", cases[i].what, r);
		view_free(&v);
	}
	mock_reset(&ctx);
	mock_entry(&ctx, ASB_ENTRY_READ, "/h/p", "/p", ASB_ENTRY_F_DIR);
	mock_entry(&ctx, ASB_ENTRY_SYMLINK, "x", "/p/link", 0);
	CHECK(build(&v) == -EOPNOTSUPP && strstr(ctx.log, "/p/link"),
	      "refused, naming it: a link inside a host directory");
	view_free(&v);
	mock_reset(&ctx);
	mock_entry(&ctx, ASB_ENTRY_SYMLINK, "usr/lib", "/lib", 0);
	mock_entry(&ctx, ASB_ENTRY_READ, "/x", "/lib/x", 0);
	CHECK(build(&v) == -EOPNOTSUPP, "refused: an entry under a link");
	view_free(&v);
}

static void test_spec(void)
{
	struct runsc rs = {0};
	char *spec = NULL, *record = NULL;
	mock_reset(&ctx);
	mock_entry(&ctx, ASB_ENTRY_READ, "/usr", "/usr", ASB_ENTRY_F_DIR);
	ctx.env_keys[0] = "TOKEN";
	ctx.env_values[0] = "s3cr\"et";
	ctx.n_env = 1;
	ctx.limits[0] = (struct asb_limit){.struct_size = sizeof(struct asb_limit),
	                                   .resource = ASB_LIMIT_NOFILE,
	                                   .soft = 100,
	                                   .hard = 200};
	ctx.limits[1] = (struct asb_limit){.struct_size = sizeof(struct asb_limit),
	                                   .resource = ASB_LIMIT_AS,
	                                   .soft = ASB_LIMIT_INFINITY,
	                                   .hard = ASB_LIMIT_INFINITY};
	ctx.n_limits = 2;
	ctx.chdir = "/w";
	CHECK(render(&rs, false, &spec) == 0, "a spec renders");
	CHECK(spec && strstr(spec, "\"TOKEN=s3cr\\\"et\""), "the spec carries the environment");
	CHECK(spec && strstr(spec, "\"type\": \"RLIMIT_NOFILE\",\n        \"hard\": 200,\n        "
	                           "\"soft\": 100"),
	      "rlimits");
	CHECK(spec && strstr(spec, "18446744073709551615"), "an unlimited limit");
	CHECK(spec && strstr(spec, "\"noNewPrivileges\": true") && strstr(spec, "\"bounding\": []"),
	      "no_new_privs, no capabilities");
	CHECK(spec && strstr(spec, "\"cwd\": \"/w\"") && strstr(spec, "\"readonly\": true"),
	      "the working directory; a read-only root");
	CHECK(spec && !strstr(spec, "prestart") && strstr(spec, "poststart"),
	      "not held: no prestart hook; the started mark always");
	view_free(&rs.view);
	rs.hooked = true;
	CHECK(render(&rs, true, &record) == 0, "a record renders");
	CHECK(record && !strstr(record, "s3cr") && strstr(record, "\"TOKEN=(redacted)\""),
	      "the record has no environment value");
	CHECK(record && strstr(record, "prestart") && strstr(record, "/usr/bin/flock"),
	      "held: the prestart hook waits with flock");
	free(spec);
	free(record);
	view_free(&rs.view);

	ctx.env_values[0] = "bad\xff value";
	CHECK(render(&rs, false, &spec) == -EILSEQ && strstr(ctx.log, "TOKEN") &&
	          !strstr(ctx.log, "bad"),
	      "an environment value that is not UTF-8 is refused, naming the key only");
	view_free(&rs.view);
	ctx.env_values[0] = "ok";
	ctx.limits[2] = (struct asb_limit){.struct_size = sizeof(struct asb_limit),
	                                   .resource = ASB_LIMIT_CPU,
	                                   .soft = 60,
	                                   .hard = 60};
	ctx.n_limits = 3;
	CHECK(render(&rs, false, &spec) == -EOPNOTSUPP && strstr(ctx.log, "RLIMIT_CPU"),
	      "a CPU limit is refused (gVisor does not enforce it)");
	view_free(&rs.view);
	ctx.n_limits = 0;
	mock_entry(&ctx, ASB_ENTRY_READ, "/h/\xc3\x28", "/bad", 0);
	CHECK(render(&rs, false, &spec) == -EILSEQ, "a path that is not UTF-8 is refused");
	view_free(&rs.view);
	mock_free(&ctx);
}

int main(void)
{
	host = mock_host();
	test_cover_and_order();
	test_links_and_own_dirs();
	test_try();
	test_refusals();
	test_spec();
	return check_done();
}
