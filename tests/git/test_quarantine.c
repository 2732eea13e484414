/* SPDX-License-Identifier: MIT */
/* Unit tests of plugins/git/quarantine.c's pure part: which config keys a
 * repository made inside keeps, and that what it writes back is a config
 * real git reads as the same keys and values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "quarantine.h"

static void test_kept(void **state)
{
	(void)state;
	static const char *const kept[] = {"core.repositoryformatversion",
	                                   "core.bare",
	                                   "core.logallrefupdates",
	                                   "extensions.objectformat",
	                                   "extensions.worktreeconfig",
	                                   "remote.origin.url",
	                                   "remote.my.dotted.name.fetch",
	                                   "branch.main.merge",
	                                   "branch.feature/x.remote",
	                                   "submodule.lib.url",
	                                   "user.email",
	                                   "init.defaultbranch"};
	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
		assert_true(qr_key_kept(kept[i]));
}

static void test_dropped(void **state)
{
	(void)state;
	/* The list, and what git runs besides. */
	static const char *const dropped[] = {"core.hookspath",
	                                      "core.fsmonitor",
	                                      "core.pager",
	                                      "core.editor",
	                                      "core.sshcommand",
	                                      "core.askpass",
	                                      "core.gitproxy",
	                                      "core.alternaterefscommand",
	                                      "core.worktree",
	                                      "alias.st",
	                                      "pager.log",
	                                      "filter.lfs.process",
	                                      "filter.x.clean",
	                                      "diff.x.textconv",
	                                      "diff.x.command",
	                                      "diff.external",
	                                      "merge.x.driver",
	                                      "credential.helper",
	                                      "credential.https://example.com.helper",
	                                      "include.path",
	                                      "includeif.gitdir:/x/.path",
	                                      "hook.x.command",
	                                      "sequence.editor",
	                                      "gpg.program",
	                                      "remote.origin.uploadpack",
	                                      "remote.origin.receivepack",
	                                      "remote.origin.vcs",
	                                      "submodule.x.update",
	                                      "protocol.ext.allow",
	                                      "init.templatedir",
	                                      "uploadpack.packobjectshook",
	                                      "sendemail.smtpserver",
	                                      "web.browser",
	                                      "difftool.x.cmd",
	                                      "trailer.x.command",
	                                      "remote.url",
	                                      "nodot",
	                                      "core."};
	for (size_t i = 0; i < sizeof(dropped) / sizeof(*dropped); i++) {
		if (qr_key_kept(dropped[i]))
			fail_msg("%s is kept", dropped[i]);
	}
}

static void test_render_roundtrip(void **state)
{
	(void)state;
	const char *keys[] = {"core.repositoryformatversion", "core.bare",
	                      "remote.a \"b\\c.url",          "remote.a \"b\\c.fetch",
	                      "branch.main.description",      "core.flag"};
	const char *vals[] = {"0",
	                      "false",
	                      "https://e.com/\"q\"\\",
	                      "+refs/heads/*:refs/x/*",
	                      "two\nlines\tand # ; hash",
	                      NULL};
	char *text = qr_render_config(keys, vals, 6);
	assert_non_null(text);
	char path[] = "/tmp/asb-qr-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	free(text);
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
	         "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config --file %s --list -z",
	         path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char out[4096];
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	assert_int_equal(pclose(p), 0);
	unlink(path);
	out[n] = '\0';
	/* -z: key\nvalue\0 (key\0 without a value); section and name lower case. */
	const char *want[] = {"core.repositoryformatversion\n0",
	                      "core.bare\nfalse",
	                      "remote.a \"b\\c.url\nhttps://e.com/\"q\"\\",
	                      "remote.a \"b\\c.fetch\n+refs/heads/*:refs/x/*",
	                      "branch.main.description\ntwo\nlines\tand # ; hash",
	                      "core.flag"};
	const char *e = out;
	for (size_t i = 0; i < 6; i++) {
		assert_true(e < out + n);
		assert_string_equal(e, want[i]);
		e += strlen(e) + 1;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kept),
	    cmocka_unit_test(test_dropped),
	    cmocka_unit_test(test_render_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
