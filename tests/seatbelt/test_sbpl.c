/* SPDX-License-Identifier: MIT */
/*
 * The generator, asked through the evaluator what tests/integration asks of
 * the real sandbox on Linux (core.sh, network.sh, the git tests), plus what
 * only matters on macOS: case variants of protected paths, credential paths
 * below a declared directory, names that try to break out of a string.
 * Every answer is checked under both readings of precedence (sbpl_eval.h)
 * and against the plan itself (plan_ref.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixture.h"
#include "plan_ref.h"
#include "sbpl.h"
#include "sbpl_eval.h"
#include "sbpl_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct built {
	char *text;
	size_t len;
	struct sbe_profile *p;
	struct sbpl_layout lay;
};

static struct fixture fx;
static struct built B;

#define PRIV FX_HOME "/.local/state/agentsandbox/20250101T000000.000Z-4242-t/seatbelt"

static void build_input(const struct sbpl_input *in, struct built *b)
{
	char why[512] = "";
	int r = sbpl_generate(in, &b->text, &b->len, why, sizeof(why));
	if (r < 0)
		fail_msg("generate: %d %s", r, why);
	char err[256] = "";
	if (sbe_parse(b->text, b->len, &b->p, err, sizeof(err)) < 0)
		fail_msg("the profile does not parse: %s\n%s", err, b->text);
	memset(why, 0, sizeof(why));
	if (sbpl_layout_build(in, &b->lay, why, sizeof(why)) < 0)
		fail_msg("layout: %s", why);
}

static void build(void)
{
	build_input(fx_input(&fx), &B);
}

static void built_free(struct built *b)
{
	free(b->text);
	sbe_free(b->p);
	sbpl_layout_free(&b->lay);
	memset(b, 0, sizeof(*b));
}

static int teardown(void **state)
{
	(void)state;
	built_free(&B);
	fx_free(&fx);
	return 0;
}

/* An answer, the same under both readings; and never more than the plan. */
static int ask(int (*q)(const struct sbe_profile *, const char *), int op, const char *path)
{
	int r = q(B.p, path);
	if (r == -2)
		fail_msg("the two readings of precedence disagree on %s", path);
	assert_true(r >= 0);
	if (r == 1 && op && !ref_file(fx_input(&fx), &B.lay, path, op))
		fail_msg("the profile grants %s on %s, the plan does not", ref_op_name(op), path);
	return r;
}

#define READ(p)   ask(sbe_may_read, REF_READ, p)
#define STAT(p)   ask(sbe_may_stat, REF_STAT, p)
#define WRITE(p)  ask(sbe_may_write, REF_WRITE, p)
#define CREATE(p) ask(sbe_may_create, REF_CREATE, p)
#define UNLINK(p) ask(sbe_may_unlink, REF_UNLINK, p)
#define LINK(p)   ask(sbe_may_link, REF_LINK, p)
#define EXEC(p)   ask(sbe_may_exec, REF_EXEC, p)
#define UCONN(p)  ask(sbe_may_unix_connect, REF_UNIX_CONNECT, p)
#define UBIND(p)  ask(sbe_may_unix_bind, REF_UNIX_BIND, p)

static int connect_(const char *addr, unsigned port, int proto)
{
	int r = sbe_may_connect(B.p, addr, port, proto);
	assert_true(r >= 0);
	if (r == 1 && !ref_connect(fx_input(&fx), addr, port, proto))
		fail_msg("the profile lets %s:%u through, the plan does not", addr, port);
	return r;
}

static int bind_(const char *addr, unsigned port)
{
	int r = sbe_may_bind(B.p, addr, port, SBE_PROTO_TCP);
	assert_true(r >= 0);
	if (r == 1 && !ref_bind(fx_input(&fx), addr, port, SBE_PROTO_TCP))
		fail_msg("the profile lets the sandbox listen on %s:%u, the plan does not", addr,
		         port);
	return r;
}

#define WS FX_WS

/* ------------------------------------------------ core.sh, on a Mac */

static void claude_files(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	build();
	/* ~/.ssh/id_ed25519 is invisible; so is ~/.ssh itself. */
	assert_int_equal(READ(FX_HOME "/.ssh/id_ed25519"), 0);
	assert_int_equal(STAT(FX_HOME "/.ssh"), 0);
	assert_int_equal(READ(FX_HOME "/Library/Keychains/login.keychain-db"), 0);
	assert_int_equal(READ(FX_HOME "/notes/readme"), 0);
	/* The workspace and rw_dirs are writable; the rest of the real home
	 * is not (the private home stands in for it). */
	assert_int_equal(WRITE(WS "/inside.txt"), 1);
	assert_int_equal(CREATE(WS "/src/new.c"), 1);
	assert_int_equal(UNLINK(WS "/old.txt"), 1);
	assert_int_equal(WRITE(FX_HOME "/.claude/state"), 1);
	assert_int_equal(WRITE(FX_HOME "/scratch"), 0);
	const char *home = "/Users/alice/.local/state/agentsandbox/"
	                   "20250101T000000.000Z-4242-claude/seatbelt/home";
	char p[512];
	snprintf(p, sizeof(p), "%s/scratch", home);
	assert_int_equal(WRITE(p), 1);
	/* Temporary files go to the private TMPDIR, not the shared /tmp. */
	assert_int_equal(WRITE("/Users/alice/.local/state/agentsandbox/"
	                       "20250101T000000.000Z-4242-claude/seatbelt/tmp/x"),
	                 1);
	assert_int_equal(WRITE("/private/tmp/x"), 0);
	assert_int_equal(WRITE("/private/var/folders/zz/abc/T/x"), 0);
	/* Nothing outside is written. */
	assert_int_equal(WRITE("/Users/alice/other/new"), 0);
	assert_int_equal(WRITE("/usr/bin/planted"), 0);
	assert_int_equal(WRITE("/private/etc/hosts"), 0);
	assert_int_equal(READ("/private/etc/hosts"), 1);
	assert_int_equal(READ("/private/etc/master.passwd"), 0);
	assert_int_equal(READ("/private/etc/sudoers"), 0);
	assert_int_equal(READ("/Library/Keychains/System.keychain"), 0);
	assert_int_equal(READ("/System/Library/CoreServices/SystemVersion.plist"), 1);
	/* The data volume's spelling of the home is no way around it. */
	assert_int_equal(READ("/System/Volumes/Data/Users/alice/.ssh/id_ed25519"), 0);
	assert_int_equal(READ("/System/Volumes/Data/Users/alice/src/project/x"), 0);
	/* stat() of the way to what is allowed, but no listing. */
	assert_int_equal(STAT("/Users/alice"), 1);
	assert_int_equal(READ("/Users/alice"), 0);
	assert_int_equal(STAT("/Users/bob"), 0);
	assert_int_equal(READ("/"), 1);
}

static void claude_executables(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	build();
	const char *bin = "/Users/alice/.local/state/agentsandbox/"
	                  "20250101T000000.000Z-4242-claude/seatbelt/bin";
	char p[512];
	/* Declared packages and the command run; bash is always there. */
	assert_int_equal(EXEC("/usr/bin/git"), 1);
	assert_int_equal(EXEC("/bin/bash"), 1);
	assert_int_equal(EXEC("/opt/homebrew/Cellar/node/23.11.0/bin/node"), 1);
	snprintf(p, sizeof(p), "%s/git", bin);
	assert_int_equal(EXEC(p), 1);
	assert_int_equal(READ(bin), 1);
	/* git behind the /usr/bin shim, and its helpers. */
	assert_int_equal(EXEC("/Library/Developer/CommandLineTools/usr/bin/git"), 1);
	assert_int_equal(
	    EXEC("/Library/Developer/CommandLineTools/usr/libexec/git-core/git-remote-https"), 1);
	/* An undeclared executable does not run, system or not. */
	assert_int_equal(EXEC("/usr/bin/perl"), 0);
	assert_int_equal(EXEC("/usr/bin/ssh"), 0);
	assert_int_equal(EXEC("/usr/bin/osascript"), 0);
	assert_int_equal(EXEC("/usr/bin/open"), 0);
	assert_int_equal(EXEC("/usr/libexec/security_authtrampoline"), 0);
	assert_int_equal(EXEC("/Library/Developer/CommandLineTools/usr/bin/clang"), 0);
	assert_int_equal(EXEC("/opt/homebrew/Cellar/node/23.11.0/bin/npm"), 0);
	snprintf(p, sizeof(p), "%s/perl", bin);
	assert_int_equal(EXEC(p), 0);
	/* What the agent writes, it may run (as on Linux: it could run it
	 * through an interpreter anyway), but not a git hook. */
	assert_int_equal(EXEC(WS "/build/a.out"), 1);
	assert_int_equal(EXEC(WS "/.git/hooks/pre-commit"), 0);
	/* Libraries map; nothing outside the plan does. */
	assert_int_equal(ask(sbe_may_map_exec, REF_MAP, "/usr/lib/libSystem.B.dylib"), 1);
	assert_int_equal(ask(sbe_may_map_exec, REF_MAP, FX_HOME "/evil.dylib"), 0);
}

/* ------------------------------------------------ git protection */

static void git_protected(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	build();
	assert_int_equal(WRITE(WS "/.git/hooks/pre-commit"), 0);
	assert_int_equal(CREATE(WS "/.git/hooks/post-checkout"), 0);
	assert_int_equal(UNLINK(WS "/.git/hooks/pre-commit.sample"), 0);
	assert_int_equal(READ(WS "/.git/hooks/pre-commit.sample"), 1);
	assert_int_equal(WRITE(WS "/.git/config"), 0);
	assert_int_equal(READ(WS "/.git/config"), 1);
	assert_int_equal(CREATE(WS "/.git/config.worktree"), 0);
	assert_int_equal(CREATE(WS "/.git/info/attributes"), 0);
	assert_int_equal(CREATE(WS "/.git/objects/info/alternates"), 0);
	/* The rest of the git directory works. */
	assert_int_equal(WRITE(WS "/.git/index"), 1);
	assert_int_equal(CREATE(WS "/.git/objects/ab/cdef"), 1);
	assert_int_equal(WRITE(WS "/.git/info/exclude"), 1);
	assert_int_equal(WRITE(WS "/.git/refs/heads/main"), 1);
	/* No way around it by another spelling (case-insensitive volumes). */
	assert_int_equal(WRITE(WS "/.GIT/HOOKS/pre-commit"), 0);
	assert_int_equal(WRITE(WS "/.git/Hooks/pre-commit"), 0);
	assert_int_equal(WRITE(WS "/.git/hoo\xe2\x84\xaa\xc5\xbf/pre-commit"), 0); /* K, long s */
	assert_int_equal(WRITE(WS "/.Git/Config"), 0);
	assert_int_equal(WRITE(WS "/.git/con\xef\xac\x81g"), 0); /* U+FB01 for fi */
	assert_int_equal(WRITE(WS "/.git/con\xef\xac\x81"), 1);  /* "confi": another name */
	assert_int_equal(CREATE(WS "/.git/CONFIG.worktree"), 0);
	/* ...by moving a directory above it, or hard-linking it. */
	assert_int_equal(UNLINK(WS "/.git"), 0);
	assert_int_equal(UNLINK(WS "/.GIT"), 0);
	assert_int_equal(CREATE(WS "/.git"), 0);
	assert_int_equal(UNLINK(WS "/.git/hooks"), 0);
	assert_int_equal(UNLINK(WS), 0);
	assert_int_equal(LINK(WS "/.git/config"), 0);
	assert_int_equal(LINK(WS "/.git/hooks/pre-push"), 0);
	assert_int_equal(LINK(WS "/src/a.c"), 1);
	/* ...or through the data volume. */
	assert_int_equal(WRITE("/System/Volumes/Data" WS "/.git/hooks/pre-commit"), 0);
}

/* ------------------------------------------------ network.sh */

static void network_filtered(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	build();
	assert_int_equal(connect_("127.0.0.1", 53128, SBE_PROTO_TCP), 1);
	assert_int_equal(connect_("::1", 53128, SBE_PROTO_TCP), 1);
	assert_int_equal(connect_("127.0.0.1", 5432, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("127.0.0.1", 22, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("127.0.0.1", 53128, SBE_PROTO_UDP), 0);
	assert_int_equal(connect_("::ffff:127.0.0.1", 5432, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("93.184.216.34", 443, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("192.168.1.5", 8080, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("8.8.8.8", 53, SBE_PROTO_UDP), 0);
	assert_int_equal(bind_("127.0.0.1", 3000), 0);
	/* No unix sockets: not the ssh agent, not mDNSResponder, not docker. */
	assert_int_equal(sbe_may_socket(B.p, "AF_UNIX"), 0);
	assert_int_equal(UCONN("/private/var/run/mDNSResponder"), 0);
	assert_int_equal(UCONN("/private/tmp/com.apple.launchd.x/Listeners"), 0);
	assert_int_equal(UCONN(WS "/.sock"), 0);
	assert_int_equal(UBIND(WS "/.sock"), 0);
	/* No keychain, no preferences, no LaunchServices; trustd only when the
	 * network is open (it fetches on the client's behalf). */
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.system.opendirectoryd.libinfo"), 1);
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.SecurityServer"), 0);
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.cfprefsd.agent"), 0);
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.coreservices.launchservicesd"), 0);
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.trustd.agent"), 0);
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.pasteboard.1"), 0);
}

static void network_open_and_ports(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	fx.net.mode = ASB_NET_OPEN;
	fx.net.proxy_port = 0;
	fx.host_ports[0] = 5432;
	fx.net.n_host_ports = 1;
	fx.published[0] = 3000;
	fx.net.n_published_ports = 1;
	build();
	assert_int_equal(connect_("93.184.216.34", 443, SBE_PROTO_TCP), 1);
	assert_int_equal(connect_("8.8.8.8", 53, SBE_PROTO_UDP), 1);
	assert_int_equal(connect_("127.0.0.1", 5432, SBE_PROTO_TCP), 1);
	assert_int_equal(connect_("127.0.0.1", 6379, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("::1", 6379, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("127.0.0.1", 3000, SBE_PROTO_TCP), 0);
	/* The documented gap: SBPL cannot name the host's other addresses. */
	assert_int_equal(sbe_may_connect(B.p, "::ffff:127.0.0.1", 6379, SBE_PROTO_TCP), 1);
	assert_int_equal(bind_("127.0.0.1", 3000), 1);
	assert_int_equal(bind_("127.0.0.1", 9999), 1);
	assert_int_equal(UCONN("/private/var/run/mDNSResponder"), 1);
	assert_int_equal(UCONN("/private/var/run/other"), 0);
	assert_int_equal(UBIND(WS "/sock"), 0);
	assert_int_equal(sbe_may_lookup(B.p, "com.apple.trustd.agent"), 1);
	built_free(&B);

	fx.net.flags |= ASB_NET_F_ALL_HOST_PORTS;
	build();
	assert_int_equal(connect_("127.0.0.1", 6379, SBE_PROTO_TCP), 1);
	built_free(&B);

	/* Filtered: a port the sandbox listens on must be published, and
	 * reaching it needs it among the host ports too (the seed's macOS
	 * note: localhost is the host's). */
	fx.net.mode = ASB_NET_FILTERED;
	fx.net.flags = 0;
	fx.net.proxy_port = 53128;
	build();
	assert_int_equal(bind_("127.0.0.1", 3000), 1);
	assert_int_equal(bind_("0.0.0.0", 3000), 1);
	assert_int_equal(bind_("127.0.0.1", 3001), 0);
	assert_int_equal(connect_("127.0.0.1", 5432, SBE_PROTO_TCP), 1);
	assert_int_equal(connect_("127.0.0.1", 3000, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("93.184.216.34", 443, SBE_PROTO_TCP), 0);
	built_free(&B);

	/* Off: nothing but what is listed. */
	fx.net.mode = ASB_NET_OFF;
	fx.net.proxy_port = 0;
	fx.net.n_published_ports = 0;
	build();
	assert_int_equal(connect_("127.0.0.1", 53128, SBE_PROTO_TCP), 0);
	assert_int_equal(connect_("127.0.0.1", 5432, SBE_PROTO_TCP), 1);
	assert_int_equal(connect_("93.184.216.34", 443, SBE_PROTO_TCP), 0);
	assert_int_equal(bind_("127.0.0.1", 3000), 0);
}

static void unix_sockets(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	fx.net.flags |= ASB_NET_F_UNIX_SOCKETS;
	fx.groups[0].denied = 0; /* the core lifts the group with the policy */
	fx_add(&fx, ASB_ENTRY_READ, ASB_ENTRY_F_DIR, "/nix/var/nix/daemon-socket", NULL,
	       SBPL_ST_EXISTS, "nix");
	build();
	assert_int_equal(sbe_may_socket(B.p, "AF_UNIX"), 1);
	assert_int_equal(UCONN("/nix/var/nix/daemon-socket/socket"), 1);
	assert_int_equal(UBIND("/nix/var/nix/daemon-socket/socket"), 0);
	assert_int_equal(UCONN(WS "/.bsp/sock"), 1);
	assert_int_equal(UBIND(WS "/.bsp/sock"), 1);
	assert_int_equal(UBIND(WS "/.git/hooks/sock"), 0);
	assert_int_equal(UCONN("/private/var/run/docker.sock"), 0);
	assert_int_equal(UCONN(FX_HOME "/.ssh/agent.sock"), 0);
	assert_int_equal(UCONN("/private/tmp/com.apple.launchd.x/Listeners"), 0);
	built_free(&B);
	/* The seccomp group wins over the flag: the most restrictive says. */
	fx.groups[0].denied = 1;
	build();
	assert_int_equal(sbe_may_socket(B.p, "AF_UNIX"), 0);
	assert_int_equal(UCONN("/nix/var/nix/daemon-socket/socket"), 0);
}

static void processes(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "claude"), 0);
	build();
	assert_int_equal(sbe_may_signal(B.p, "self"), 1);
	assert_int_equal(sbe_may_signal(B.p, "same-sandbox"), 1);
	assert_int_equal(sbe_may_signal(B.p, "others"), 0);
	struct sbe_query q = {.op = "process-info-pidinfo", .target = "others"};
	assert_int_equal(sbe_check(B.p, &q), 0);
	q.target = "same-sandbox";
	assert_int_equal(sbe_check(B.p, &q), 1);
	assert_int_equal(sbe_may_sysctl(B.p, "hw.ncpu"), 1);
	assert_int_equal(sbe_may_sysctl(B.p, "kern.proc.all"), 0);
	assert_int_equal(sbe_may_sysctl(B.p, "kern.procargs2"), 0);
	struct sbe_query w = {.op = "sysctl-write", .name = "kern.hostname"};
	assert_int_equal(sbe_check(B.p, &w), 0);
}

/* ------------------------------------------------ a shared $HOME */

static void credentials_below_declared(void **state)
{
	(void)state;
	fx_init(&fx, "t");
	fx_system(&fx);
	/* --allow-home: the whole home read-only, then ~/.config writable. */
	fx_add(&fx, ASB_ENTRY_READ, ASB_ENTRY_F_DIR, FX_HOME, NULL, SBPL_ST_EXISTS, "flag");
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, FX_HOME "/.config", NULL, SBPL_ST_EXISTS,
	       "sandbox.rw_dirs");
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, WS, NULL, SBPL_ST_EXISTS, "workspace");
	fx_exec(&fx, "bash", "/bin/bash", 0);
	build();
	assert_int_equal(READ(FX_HOME "/notes/readme"), 1);
	assert_int_equal(READ(FX_HOME "/.ssh/id_ed25519"), 0);
	assert_int_equal(STAT(FX_HOME "/.ssh"), 0);
	assert_int_equal(READ(FX_HOME "/.SSH/id_ed25519"), 0);
	assert_int_equal(READ(FX_HOME "/.\xc5\xbfsh/id_ed25519"), 0);
	/* ...and with one character for two letters (full case folding). */
	assert_int_equal(READ(FX_HOME "/.\xc3\x9fh/id_ed25519"), 0);     /* U+00DF */
	assert_int_equal(READ(FX_HOME "/.\xe1\xba\x9eH/id_ed25519"), 0); /* U+1E9E */
	assert_int_equal(READ(FX_HOME "/.con\xef\xac\x81g/gh/hosts.yml"), 0);
	assert_int_equal(READ(FX_HOME "/.sh/x"), 1);
	assert_int_equal(READ(FX_HOME "/.\xc3\x9f/x"), 1);
	assert_int_equal(READ(FX_HOME "/.aws/credentials"), 0);
	assert_int_equal(READ(FX_HOME "/.Aws/credentials"), 0);
	assert_int_equal(READ(FX_HOME "/.gnupg/private-keys-v1.d/x.key"), 0);
	assert_int_equal(READ(FX_HOME "/.netrc"), 0);
	assert_int_equal(READ(FX_HOME "/.npmrc"), 0);
	assert_int_equal(READ(FX_HOME "/.docker/config.json"), 0);
	assert_int_equal(READ(FX_HOME "/.kube/config"), 0);
	assert_int_equal(READ(FX_HOME "/Library/Keychains/login.keychain-db"), 0);
	assert_int_equal(READ(FX_HOME "/Library/Application Support/Google/Chrome/Default/Cookies"),
	                 0);
	assert_int_equal(READ(FX_HOME "/Library/Application Support/Firefox/Profiles/x/key4.db"),
	                 0);
	assert_int_equal(READ(FX_HOME "/Library/Safari/History.db"), 0);
	assert_int_equal(READ(FX_HOME "/Library/Cookies/Cookies.binarycookies"), 0);
	/* Below the writable ~/.config: gh's and gcloud's tokens stay out,
	 * git's config does not. */
	assert_int_equal(READ(FX_HOME "/.config/gh/hosts.yml"), 0);
	assert_int_equal(WRITE(FX_HOME "/.config/gh/hosts.yml"), 0);
	assert_int_equal(READ(FX_HOME "/.config/GH/hosts.yml"), 0);
	assert_int_equal(READ(FX_HOME "/.config/gcloud/credentials.db"), 0);
	assert_int_equal(WRITE(FX_HOME "/.config/git/config"), 1);
	/* Nor can ~/.config be moved away from its deny and read elsewhere. */
	assert_int_equal(UNLINK(FX_HOME "/.config"), 0);
	assert_int_equal(UNLINK(FX_HOME "/.CONFIG"), 0);
	assert_int_equal(LINK(FX_HOME "/.config/gh/hosts.yml"), 0);
	assert_int_equal(WRITE(FX_HOME "/.config/x"), 1);
	/* The data volume's spelling of them. */
	assert_int_equal(READ("/System/Volumes/Data" FX_HOME "/.ssh/id_ed25519"), 0);
}

static void credential_declared_itself(void **state)
{
	(void)state;
	fx_init(&fx, "t");
	fx_system(&fx);
	fx_home(&fx);
	/* --allow-ssh: the ssh directory read-only, named by the plan itself. */
	fx_add(&fx, ASB_ENTRY_READ, ASB_ENTRY_F_DIR, FX_HOME "/.ssh", NULL, SBPL_ST_EXISTS,
	       "allow_ssh");
	fx_add(&fx, ASB_ENTRY_READ, 0, FX_HOME "/.gitconfig", NULL, SBPL_ST_EXISTS,
	       "sandbox.ro_files");
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, WS, NULL, SBPL_ST_EXISTS, "workspace");
	build();
	assert_int_equal(READ(FX_HOME "/.ssh/id_ed25519"), 1);
	assert_int_equal(WRITE(FX_HOME "/.ssh/id_ed25519"), 0);
	assert_int_equal(READ(FX_HOME "/.gitconfig"), 1);
	assert_int_equal(WRITE(FX_HOME "/.gitconfig"), 0);
	assert_int_equal(READ(FX_HOME "/.aws/credentials"), 0);
	/* The private home links to them. */
	bool ssh = false, gitconfig = false, ws = false;
	for (size_t i = 0; i < B.lay.n_places; i++) {
		const struct sbpl_place *pl = &B.lay.places[i];
		if (pl->kind != SBPL_PLACE_LINK)
			continue;
		ssh |= strcmp(pl->path, PRIV "/home/.ssh") == 0 &&
		       strcmp(pl->target, FX_HOME "/.ssh") == 0;
		gitconfig |= strcmp(pl->path, PRIV "/home/.gitconfig") == 0;
		ws |=
		    strcmp(pl->path, PRIV "/home/src/project") == 0 && strcmp(pl->target, WS) == 0;
	}
	assert_true(ssh);
	assert_true(gitconfig);
	assert_true(ws);
	built_free(&B);
	fx_free(&fx);

	/* Named in another case, before the ephemeral home (a case the fuzzer
	 * found): on the default volume the same directory, so named by the
	 * plan itself all the same. */
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_READ, ASB_ENTRY_F_DIR, FX_HOME "/.SSH", NULL, SBPL_ST_EXISTS,
	       "sandbox.ro_dirs");
	fx_home(&fx);
	build();
	assert_int_equal(READ(FX_HOME "/.SSH"), 1);
	assert_int_equal(READ(FX_HOME "/.SSH/id_ed25519"), 1);
	assert_int_equal(WRITE(FX_HOME "/.SSH/id_ed25519"), 0);
	assert_int_equal(READ(FX_HOME "/.aws/credentials"), 0);
}

/* The plan spells one path two ways (the same file on a case-insensitive
 * volume): the later entry still decides for both spellings. */
static void two_spellings(void **state)
{
	(void)state;
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, WS, NULL, SBPL_ST_EXISTS, "workspace");
	fx_add(&fx, ASB_ENTRY_READ, 0, WS "/Notes.md", NULL, SBPL_ST_EXISTS, "sandbox.ro_files");
	fx_add(&fx, ASB_ENTRY_MASK, ASB_ENTRY_F_DIR, NULL, WS "/notes.md", SBPL_ST_EXISTS, "test");
	build();
	assert_int_equal(sbe_may_read(B.p, WS "/Notes.md"), 0);
	assert_int_equal(sbe_may_read(B.p, WS "/notes.md"), 0);
	assert_int_equal(sbe_may_write(B.p, WS "/NOTES.md"), 0);
	assert_int_equal(sbe_may_write(B.p, WS "/other.md"), 1);
}

/* /Users is also /System/Volumes/Data/Users (a firmlink): a declared
 * /System does not open the home that way. */
static void data_volume(void **state)
{
	(void)state;
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_READ, ASB_ENTRY_F_DIR, "/System", NULL, SBPL_ST_EXISTS,
	       "sandbox.ro_dirs");
	fx_home(&fx);
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, WS, NULL, SBPL_ST_EXISTS, "workspace");
	fx_git(&fx, WS);
	build();
	assert_int_equal(READ("/System/Library/CoreServices/SystemVersion.plist"), 1);
	assert_int_equal(READ("/System/Volumes/Data" FX_HOME "/.ssh/id_ed25519"), 0);
	assert_int_equal(READ("/System/Volumes/Data" FX_HOME "/notes"), 0);
	assert_int_equal(READ(WS "/x"), 1);
}

/* ------------------------------------------------ the layout */

static const char *env_of(const struct sbpl_layout *l, const char *key)
{
	for (size_t i = 0; i < l->n_env; i++)
		if (strcmp(l->env[i].key, key) == 0)
			return l->env[i].value;
	return NULL;
}

static void layout(void **state)
{
	(void)state;
	assert_int_equal(fx_example(&fx, "opencode"), 0);
	build();
	const char *priv = "/Users/alice/.local/state/agentsandbox/"
	                   "20250101T000000.000Z-4242-opencode/seatbelt";
	char want[512];
	snprintf(want, sizeof(want), "%s/home", priv);
	assert_string_equal(env_of(&B.lay, "HOME"), want);
	snprintf(want, sizeof(want), "%s/tmp/", priv);
	assert_string_equal(env_of(&B.lay, "TMPDIR"), want);
	snprintf(want, sizeof(want), "%s/bin", priv);
	assert_string_equal(env_of(&B.lay, "PATH"), want);
	assert_string_equal(B.lay.bin_dir, want);
	/* ~/.config/opencode and the other three are links in the private
	 * home; ~/.config itself is a directory made there. */
	int links = 0, dirs = 0;
	for (size_t i = 0; i < B.lay.n_places; i++) {
		const struct sbpl_place *pl = &B.lay.places[i];
		const char *rel =
		    strncmp(pl->path, priv, strlen(priv)) == 0 ? pl->path + strlen(priv) : pl->path;
		if (pl->kind == SBPL_PLACE_LINK && strncmp(rel, "/home/", 6) == 0)
			links++;
		if (pl->kind == SBPL_PLACE_DIR && strcmp(rel, "/home/.config") == 0)
			dirs++;
	}
	assert_int_equal(links, 5); /* four rw_dirs and the workspace */
	assert_int_equal(dirs, 1);
}

static void sealed_and_refused(void **state)
{
	(void)state;
	char why[512];
	char *text = NULL;
	size_t len;
	/* An ephemeral directory with no stand-in is sealed: nothing of the
	 * host there, nothing written. */
	fx_init(&fx, "t");
	fx_system(&fx);
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, WS, NULL, SBPL_ST_EXISTS, "workspace");
	fx_add(&fx, ASB_ENTRY_EPHEMERAL, ASB_ENTRY_F_DIR, NULL, WS "/.git/info", 0, "git");
	fx_add(&fx, ASB_ENTRY_MASK, 0, NULL, WS "/.git/info/attributes", 0, "git");
	build();
	assert_int_equal(WRITE(WS "/.git/info/exclude"), 0);
	assert_int_equal(READ(WS "/.git/info/exclude"), 0);
	assert_int_equal(CREATE(WS "/.git/info"), 0);
	assert_int_equal(WRITE(WS "/.git/index"), 1);
	built_free(&B);
	fx_free(&fx);

	/* A generated file in the private home is written there; anywhere
	 * else seatbelt has no way to make it appear. */
	fx_init(&fx, "t");
	fx_home(&fx);
	fx_add(&fx, ASB_ENTRY_FILE, 0, NULL, FX_HOME "/.gitconfig", 0, "git");
	fx.entries[fx.n - 1].data = "[user]\n";
	fx.entries[fx.n - 1].data_len = 7;
	build();
	assert_int_equal(READ(PRIV "/home/.gitconfig"), 1);
	assert_int_equal(WRITE(PRIV "/home/.gitconfig"), 0);
	assert_int_equal(UNLINK(PRIV "/home/.gitconfig"), 0);
	assert_int_equal(READ(FX_HOME "/.gitconfig"), 0);
	bool placed = false;
	for (size_t i = 0; i < B.lay.n_places; i++)
		placed |= B.lay.places[i].kind == SBPL_PLACE_FILE &&
		          strcmp(B.lay.places[i].path, PRIV "/home/.gitconfig") == 0 &&
		          B.lay.places[i].data_len == 7;
	assert_true(placed);
	built_free(&B);
	fx_free(&fx);

	/* Nothing of the host is below a generated file, even where a later
	 * entry gives the host's directory above it back (a case the fuzzer
	 * found). */
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_EPHEMERAL, ASB_ENTRY_F_DIR, NULL, "/private/tmp", 0, "core");
	fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, "/private/tmp", NULL, SBPL_ST_EXISTS,
	       "config");
	fx_add(&fx, ASB_ENTRY_FILE, 0, NULL, "/private/tmp/a/b", 0, "plugin");
	/* Nor of the host below a symlink made there (below it is its target). */
	fx_add(&fx, ASB_ENTRY_SYMLINK, 0, "/usr/share", "/private/tmp/a/l", 0, "plugin");
	build();
	assert_int_equal(READ("/private/tmp/a/b"), 0);
	assert_int_equal(READ("/private/tmp/a/b/c"), 0);
	assert_int_equal(CREATE("/private/tmp/a/b/c"), 0);
	assert_int_equal(READ("/private/tmp/a/l/c"), 0);
	assert_int_equal(CREATE("/private/tmp/a/l/c"), 0);
	assert_int_equal(READ("/private/tmp/a/c"), 1);
	built_free(&B);
	fx_free(&fx);

	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_FILE, 0, NULL, "/etc/resolv.conf", 0, "network");
	why[0] = '\0';
	assert_int_equal(sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "/private/etc/resolv.conf"));
	fx_free(&fx);

	/* A path shown somewhere else: no remapping on macOS. */
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_READ, 0, "/Users/alice/ca.pem", "/run/agentsandbox-ca.pem",
	       SBPL_ST_EXISTS, "network");
	why[0] = '\0';
	assert_int_equal(sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "cannot remap"));
	fx_free(&fx);

	/* A symlink the host does not already have. */
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_SYMLINK, 0, "usr/bin", "/bin", 0, "core");
	assert_int_equal(sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why)), -EOPNOTSUPP);
	fx_free(&fx);
	assert_null(text);
}

static void setuid_not_executable(void **state)
{
	(void)state;
	fx_init(&fx, "t");
	fx_system(&fx);
	fx_exec(&fx, "ps", "/bin/ps", SBPL_X_SETID);
	fx_exec(&fx, "ls", "/bin/ls", 0);
	build();
	assert_int_equal(EXEC("/bin/ps"), 0);
	assert_int_equal(EXEC("/bin/ls"), 1);
	assert_non_null(strstr(B.text, "ps -> /bin/ps: setuid or setgid"));
}

/* ------------------------------------------------ hostile names */

static void hostile_names(void **state)
{
	(void)state;
	static const char *const names[] = {
	    "/Users/alice/a\"b",
	    "/Users/alice/a\\b",
	    "/Users/alice/a\\\"))(allow default)(literal \"",
	    "/Users/alice/x\")) (allow file-write* (subpath \"/x",
	    "/Users/alice/(p)[q]{r}*+?.^$|",
	    "/Users/alice/;; not a comment",
	    "/Users/alice/#\"raw",
	    "/Users/alice/\xc3\xa9t\xc3\xa9 \xe2\x80\xae\xf0\x9f\x98\x80",
	    "/Users/alice/ space ",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fx_init(&fx, "t");
		fx_system(&fx);
		fx_add(&fx, ASB_ENTRY_WRITE, ASB_ENTRY_F_DIR, names[i], NULL, SBPL_ST_EXISTS,
		       "sandbox.rw_dirs");
		char inner[512];
		snprintf(inner, sizeof(inner), "%s/.git/hooks", names[i]);
		fx_add(&fx, ASB_ENTRY_READ, ASB_ENTRY_F_DIR, inner, NULL, SBPL_ST_EXISTS, "git");
		build();
		char p[600];
		snprintf(p, sizeof(p), "%s/file", names[i]);
		assert_int_equal(WRITE(p), 1);
		snprintf(p, sizeof(p), "%s/pre-commit", inner);
		assert_int_equal(WRITE(p), 0);
		assert_int_equal(READ(p), 1);
		assert_int_equal(WRITE("/Users/alice/other"), 0);
		assert_int_equal(WRITE("/"), 0);
		assert_int_equal(WRITE("/usr/bin/x"), 0);
		assert_int_equal(EXEC("/usr/bin/perl"), 0);
		/* One rule per allow: the name never became rules of its own. */
		assert_null(strstr(B.text, "\n(allow default"));
		built_free(&B);
		fx_free(&fx);
	}
	/* What no string can hold is refused, naming the entry. */
	static const char *const bad[] = {
	    "/Users/alice/a\nb",     "/Users/alice/tab\there", "/Users/alice/\x7f",
	    "/Users/alice/\xff\xfe", "/Users/alice/\xc0\xaf",  "/Users/alice/\xed\xa0\x80",
	    "relative/path",         "/Users/alice/../bob",    "/Users/alice/./x",
	    "/Users//alice",         "/Users/alice/",          "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_init(&fx, "t");
		fx_add(&fx, ASB_ENTRY_READ, 0, bad[i], NULL, SBPL_ST_EXISTS, "sandbox.ro_files");
		char why[512] = "", *text = NULL;
		size_t len;
		int r = sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why));
		if (r != -EINVAL)
			fail_msg("%zu: %d, want -EINVAL (%s)", i, r, why);
		assert_non_null(strstr(why, "READ entry 0"));
		for (const char *c = why; *c; c++)
			assert_true((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f);
		fx_free(&fx);
	}
	char longp[1100];
	memset(longp, 'a', sizeof(longp));
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	fx_init(&fx, "t");
	fx_add(&fx, ASB_ENTRY_READ, 0, longp, NULL, SBPL_ST_EXISTS, "sandbox.ro_files");
	char why[256], *text = NULL;
	size_t len;
	assert_int_equal(sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why)),
	                 -ENAMETOOLONG);
	fx_free(&fx);
	/* An executable's name cannot leave the link directory. */
	fx_init(&fx, "t");
	fx_exec(&fx, "../../evil", "/bin/sh", 0);
	assert_int_equal(sbpl_generate(fx_input(&fx), &text, &len, why, sizeof(why)), -EINVAL);
	fx_free(&fx);
}

/* ------------------------------------------------ all examples */

static void examples_sound(void **state)
{
	(void)state;
	static const char *const names[] = {"claude", "codex",    "copilot",
	                                    "gemini", "opencode", "pi"};
	for (size_t n = 0; n < 6; n++) {
		assert_int_equal(fx_example(&fx, names[n]), 0);
		build();
		/* Every path the plan names, one below it, its parent, its
		 * upper-case spelling: never more than the plan, and the two
		 * readings agree. */
		const struct sbpl_input *in = fx_input(&fx);
		for (uint32_t i = 0; i < in->n_entries; i++) {
			const char *d = in->entries[i].dest;
			if (!d)
				continue;
			char probes[4][1100];
			snprintf(probes[0], sizeof(probes[0]), "%s", d);
			snprintf(probes[1], sizeof(probes[1]), "%s/x", d);
			snprintf(probes[2], sizeof(probes[2]), "%s", d);
			char *slash = strrchr(probes[2], '/');
			if (slash && slash != probes[2])
				*slash = '\0';
			snprintf(probes[3], sizeof(probes[3]), "%s/x", d);
			for (char *c = probes[3] + strlen(FX_HOME); *c; c++)
				if (*c >= 'a' && *c <= 'z')
					*c = (char)(*c - 32);
			for (int k = 0; k < 4; k++) {
				READ(probes[k]);
				STAT(probes[k]);
				WRITE(probes[k]);
				CREATE(probes[k]);
				UNLINK(probes[k]);
				LINK(probes[k]);
				EXEC(probes[k]);
			}
		}
		assert_int_equal(READ(FX_HOME "/.ssh/id_ed25519"), 0);
		assert_int_equal(WRITE(WS "/.git/hooks/pre-commit"), 0);
		assert_int_equal(WRITE(WS "/x"), 1);
		assert_int_equal(EXEC("/usr/bin/perl"), 0);
		assert_int_equal(connect_("127.0.0.1", 5432, SBE_PROTO_TCP), 0);
		built_free(&B);
		fx_free(&fx);
	}
}

/* Does the fold regex for tail (below /a) match subject? */
static int fold_match(const char *tail, const char *subject)
{
	struct sbpl_buf b;
	sbpl_buf_init(&b);
	sbpl_fold_regex(&b, "/a", 2, tail, "$");
	assert_int_equal(b.err, 0);
	assert_true(b.len + 2 <= SBPL_STRING_MAX);
	int r = sbe_regex_search(b.data, subject);
	sbpl_buf_free(&b);
	return r;
}

static void fold_regex_spellings(void **state)
{
	(void)state;
	/* Every way of splitting "sst": ß or ẞ for "ss", ﬅ or ﬆ for "st". */
	static const char *const sst[] = {
	    "/a/sst",           "/a/SsT",           "/a/\xc5\xbfst",    "/a/\xc3\x9ft",
	    "/a/\xe1\xba\x9eT", "/a/s\xef\xac\x86", "/a/S\xef\xac\x85", "/a/\xc5\xbf\xef\xac\x86"};
	for (size_t i = 0; i < sizeof(sst) / sizeof(*sst); i++)
		assert_int_equal(fold_match("/sst", sst[i]), 1);
	static const char *const not_sst[] = {
	    "/a/st",        "/a/\xc3\x9f", "/a/ssst", "/a/\xc3\x9f\xef\xac\x86",
	    "/a/s\xc3\x9f", "/a/sstx",     "/a/ssx"};
	for (size_t i = 0; i < sizeof(not_sst) / sizeof(*not_sst); i++)
		assert_int_equal(fold_match("/sst", not_sst[i]), 0);
	/* "ffi": ﬃ, ﬀ and i, f and ﬁ. */
	assert_int_equal(fold_match("/ffi", "/a/\xef\xac\x83"), 1);
	assert_int_equal(fold_match("/ffi", "/a/\xef\xac\x80I"), 1);
	assert_int_equal(fold_match("/ffi", "/a/F\xef\xac\x81"), 1);
	assert_int_equal(fold_match("/ffi", "/a/\xef\xac\x81"), 0);
	/* Two Greek marks stand for ; and `. */
	assert_int_equal(fold_match("/x;y", "/a/X\xcd\xbeY"), 1);
	assert_int_equal(fold_match("/x`y", "/a/x\xe1\xbf\xafy"), 1);
	/* A run of letters too long for every split to fit in a profile
	 * string: still every case, U+017F and U+212A, not refused. */
	char run[64], upper[64];
	memset(run, 's', 40);
	run[0] = '/';
	run[40] = '\0';
	for (size_t i = 0; i <= 40; i++)
		upper[i] = run[i] == 's' ? 'S' : run[i];
	char subject[80];
	snprintf(subject, sizeof(subject), "/a%s", upper);
	assert_int_equal(fold_match(run, subject), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(claude_files, teardown),
	    cmocka_unit_test_teardown(claude_executables, teardown),
	    cmocka_unit_test_teardown(git_protected, teardown),
	    cmocka_unit_test_teardown(network_filtered, teardown),
	    cmocka_unit_test_teardown(network_open_and_ports, teardown),
	    cmocka_unit_test_teardown(unix_sockets, teardown),
	    cmocka_unit_test_teardown(processes, teardown),
	    cmocka_unit_test_teardown(credentials_below_declared, teardown),
	    cmocka_unit_test_teardown(credential_declared_itself, teardown),
	    cmocka_unit_test_teardown(two_spellings, teardown),
	    cmocka_unit_test_teardown(data_volume, teardown),
	    cmocka_unit_test_teardown(layout, teardown),
	    cmocka_unit_test_teardown(sealed_and_refused, teardown),
	    cmocka_unit_test_teardown(setuid_not_executable, teardown),
	    cmocka_unit_test_teardown(hostile_names, teardown),
	    cmocka_unit_test_teardown(examples_sound, teardown),
	    cmocka_unit_test(fold_regex_spellings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
