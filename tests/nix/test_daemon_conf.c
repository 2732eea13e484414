/* SPDX-License-Identifier: MIT */
/* Reading nix-daemon's configuration as the daemon does (plugins/nix). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon_conf.h"

/* An in-memory file system: path -> text, or path -> errno. */
struct fake_file {
	const char *path;
	const char *text;
	int err;
};

static const struct fake_file *fs;

static int fake_read(void *ud, const char *path, char **out)
{
	(void)ud;
	for (const struct fake_file *f = fs; f != NULL && f->path != NULL; f++) {
		if (strcmp(f->path, path) != 0)
			continue;
		if (f->err != 0)
			return -f->err;
		*out = strdup(f->text);
		return *out == NULL ? -ENOMEM : 0;
	}
	return -ENOENT;
}

static char err[256];

static int load(struct nix_daemon_conf *c, const struct fake_file *files, int linux_defaults)
{
	fs = files;
	err[0] = '\0';
	assert_int_equal(nix_daemon_conf_init(c, linux_defaults), 0);
	return nix_daemon_conf_apply_file(c, "/etc/nix/nix.conf", 1, fake_read, NULL, err,
	                                  sizeof(err));
}

static const char *const alice_groups[] = {"alice", "users", "wheel", NULL};

static int trusted(const struct nix_daemon_conf *c, const char *user, const char *const *groups)
{
	return nix_daemon_conf_match(&c->trusted_users, user, groups, NULL);
}

static void defaults_linux(void **state)
{
	struct nix_daemon_conf c;

	assert_int_equal(load(&c, NULL, 1), 0);
	assert_int_equal(c.sandbox, NIX_SANDBOX_TRUE);
	assert_true(trusted(&c, "root", NULL));
	assert_false(trusted(&c, "alice", alice_groups));
	assert_true(nix_daemon_conf_match(&c.allowed_users, "alice", alice_groups, NULL));
	assert_string_equal(c.sandbox_origin, "");
	nix_daemon_conf_free(&c);
}

static void defaults_darwin(void **state)
{
	struct nix_daemon_conf c;

	assert_int_equal(load(&c, NULL, 0), 0);
	assert_int_equal(c.sandbox, NIX_SANDBOX_FALSE);
	nix_daemon_conf_free(&c);
}

static void trusted_user_forms(void **state)
{
	static const struct fake_file direct[] = {
	    {"/etc/nix/nix.conf", "trusted-users = root alice\n", 0}, {NULL, NULL, 0}};
	static const struct fake_file group[] = {
	    {"/etc/nix/nix.conf", "trusted-users = root @wheel\n", 0}, {NULL, NULL, 0}};
	static const struct fake_file star[] = {{"/etc/nix/nix.conf", "trusted-users = *\n", 0},
	                                        {NULL, NULL, 0}};
	static const struct fake_file other[] = {
	    {"/etc/nix/nix.conf", "trusted-users = root bob @admin\n", 0}, {NULL, NULL, 0}};
	struct nix_daemon_conf c;
	const char *why = NULL;

	assert_int_equal(load(&c, direct, 1), 0);
	assert_true(nix_daemon_conf_match(&c.trusted_users, "alice", alice_groups, &why));
	assert_string_equal(why, "alice");
	assert_string_equal(c.trusted_users_origin, "/etc/nix/nix.conf");
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, group, 1), 0);
	assert_true(nix_daemon_conf_match(&c.trusted_users, "alice", alice_groups, &why));
	assert_string_equal(why, "@wheel");
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, star, 1), 0);
	assert_true(nix_daemon_conf_match(&c.trusted_users, "alice", alice_groups, &why));
	assert_string_equal(why, "*");
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, other, 1), 0);
	assert_false(trusted(&c, "alice", alice_groups));
	assert_false(trusted(&c, "alice", NULL));
	nix_daemon_conf_free(&c);
}

static void comments_extra_and_override(void **state)
{
	static const struct fake_file files[] = {{"/etc/nix/nix.conf",
	                                          "# trusted-users = alice\n"
	                                          "trusted-users = root # alice\n"
	                                          "\n"
	                                          "   \t\n"
	                                          "extra-trusted-users = carol\n"
	                                          "sandbox = false\n"
	                                          "sandbox = relaxed\n"
	                                          "substituters = https://cache.nixos.org\n",
	                                          0},
	                                         {NULL, NULL, 0}};
	struct nix_daemon_conf c;

	assert_int_equal(load(&c, files, 1), 0);
	assert_false(trusted(&c, "alice", alice_groups));
	assert_true(trusted(&c, "carol", NULL));
	assert_true(trusted(&c, "root", NULL));
	assert_int_equal(c.sandbox, NIX_SANDBOX_RELAXED);
	assert_string_equal(nix_sandbox_name(c.sandbox), "relaxed");
	nix_daemon_conf_free(&c);
}

static void later_assignment_replaces(void **state)
{
	static const struct fake_file files[] = {
	    {"/etc/nix/nix.conf", "trusted-users = alice\ntrusted-users = root\n", 0},
	    {NULL, NULL, 0}};
	struct nix_daemon_conf c;

	assert_int_equal(load(&c, files, 1), 0);
	assert_false(trusted(&c, "alice", alice_groups));
	nix_daemon_conf_free(&c);
}

static void includes(void **state)
{
	static const struct fake_file files[] = {
	    {"/etc/nix/nix.conf",
	     "sandbox = true\n"
	     "include machine.conf\n"
	     "!include /etc/nix/missing.conf\n"
	     "!include sub/extra.conf\n",
	     0},
	    {"/etc/nix/machine.conf", "sandbox = false\n", 0},
	    {"/etc/nix/sub/extra.conf", "include ../../users.conf\n", 0},
	    {"/etc/nix/sub/../../users.conf", "trusted-users = @wheel\n", 0},
	    {NULL, NULL, 0}};
	struct nix_daemon_conf c;

	assert_int_equal(load(&c, files, 1), 0);
	assert_int_equal(c.sandbox, NIX_SANDBOX_FALSE);
	assert_string_equal(c.sandbox_origin, "/etc/nix/machine.conf");
	assert_true(trusted(&c, "alice", alice_groups));
	assert_string_equal(c.trusted_users_origin, "/etc/nix/sub/../../users.conf");
	nix_daemon_conf_free(&c);
}

static void errors(void **state)
{
	static const struct fake_file missing_include[] = {
	    {"/etc/nix/nix.conf", "include nope.conf\n", 0}, {NULL, NULL, 0}};
	static const struct fake_file unreadable[] = {{"/etc/nix/nix.conf", NULL, EACCES},
	                                              {NULL, NULL, 0}};
	static const struct fake_file unreadable_include[] = {
	    {"/etc/nix/nix.conf", "!include secret.conf\n", 0},
	    {"/etc/nix/secret.conf", NULL, EACCES},
	    {NULL, NULL, 0}};
	static const struct fake_file no_spaces[] = {
	    {"/etc/nix/nix.conf", "trusted-users=alice\n", 0}, {NULL, NULL, 0}};
	static const struct fake_file lone_word[] = {{"/etc/nix/nix.conf", "sandbox\n", 0},
	                                             {NULL, NULL, 0}};
	static const struct fake_file bad_sandbox[] = {{"/etc/nix/nix.conf", "sandbox = yes\n", 0},
	                                               {NULL, NULL, 0}};
	static const struct fake_file loop[] = {{"/etc/nix/nix.conf", "include nix.conf\n", 0},
	                                        {NULL, NULL, 0}};
	struct nix_daemon_conf c;

	assert_int_equal(load(&c, missing_include, 1), -ENOENT);
	assert_non_null(strstr(err, "nope.conf not found"));
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, unreadable, 1), -EACCES);
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, unreadable_include, 1), -EACCES);
	assert_non_null(strstr(err, "/etc/nix/secret.conf"));
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, no_spaces, 1), -EINVAL);
	assert_non_null(strstr(err, "/etc/nix/nix.conf:1"));
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, lone_word, 1), -EINVAL);
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, bad_sandbox, 1), -EINVAL);
	assert_non_null(strstr(err, "true, false or relaxed"));
	nix_daemon_conf_free(&c);

	assert_int_equal(load(&c, loop, 1), -ELOOP);
	nix_daemon_conf_free(&c);
}

static void missing_main_file_is_defaults(void **state)
{
	struct nix_daemon_conf c;

	fs = NULL;
	assert_int_equal(nix_daemon_conf_init(&c, 1), 0);
	assert_int_equal(nix_daemon_conf_apply_file(&c, "/etc/nix/nix.conf", 0, fake_read, NULL,
	                                            err, sizeof(err)),
	                 -ENOENT);
	assert_int_equal(nix_daemon_conf_apply_file(&c, "/etc/nix/nix.conf", 1, fake_read, NULL,
	                                            err, sizeof(err)),
	                 0);
	assert_int_equal(c.sandbox, NIX_SANDBOX_TRUE);
	nix_daemon_conf_free(&c);
}

static void allowed_users(void **state)
{
	struct nix_daemon_conf c;

	assert_int_equal(nix_daemon_conf_init(&c, 1), 0);
	assert_int_equal(nix_daemon_conf_apply_text(&c, "allowed-users = @nixers bob\n",
	                                            "/x/nix.conf", fake_read, NULL, err,
	                                            sizeof(err)),
	                 0);
	assert_false(nix_daemon_conf_match(&c.allowed_users, "alice", alice_groups, NULL));
	assert_true(nix_daemon_conf_match(&c.allowed_users, "bob", NULL, NULL));
	nix_daemon_conf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults_linux),
	    cmocka_unit_test(defaults_darwin),
	    cmocka_unit_test(trusted_user_forms),
	    cmocka_unit_test(comments_extra_and_override),
	    cmocka_unit_test(later_assignment_replaces),
	    cmocka_unit_test(includes),
	    cmocka_unit_test(errors),
	    cmocka_unit_test(missing_main_file_is_defaults),
	    cmocka_unit_test(allowed_users),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
