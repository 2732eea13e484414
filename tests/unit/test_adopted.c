/* SPDX-License-Identifier: MIT */
/* platform_kill_adopted_sandboxes (linux/platform.c): of a subreaper's
 * children, those that head a pid namespace of their own (a sandbox's pid
 * 1, orphaned by a backend process killed before it named it) are killed
 * and reaped; those in its own namespace (the proxy, slirp4netns, the
 * namespace helper) are left alone. Runs as any user who may make a user
 * namespace (skipped otherwise). */
#define _GNU_SOURCE /* unshare(), CLONE_NEW* */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the test made, killed by the teardown whatever happened: a failed
 * assertion must not leave them running. */
static pid_t sibling = -1, orphan = -1;

static int teardown(void **state)
{
	(void)state;
	for (pid_t *p = (pid_t[]){sibling, orphan}, *end = p + 2; p < end; p++)
		if (*p > 0) {
			kill(*p, SIGKILL);
			waitpid(*p, NULL, 0);
		}
	return 0;
}

/* A grandchild that is the first process of a new pid namespace, orphaned
 * to this process: its pid, or -1 where no namespace could be made. */
static pid_t orphan_in_new_pidns(void)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t g = -1;
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0 && (g = fork()) == 0) {
			close(p[0]);
			close(p[1]);
			for (;;)
				pause();
		}
		(void)!write(p[1], &g, sizeof(g));
		_exit(0);
	}
	close(p[1]);
	pid_t g = -1;
	assert_int_equal(read(p[0], &g, sizeof(g)), (ssize_t)sizeof(g));
	close(p[0]);
	assert_int_equal(waitpid(child, NULL, 0), child);
	return g;
}

static void test_kills_only_other_namespaces(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	sibling = fork();
	assert_true(sibling >= 0);
	if (sibling == 0) {
		for (;;)
			pause();
	}
	orphan = orphan_in_new_pidns();
	if (orphan <= 0)
		skip(); /* no user namespace for this user here */
	platform_kill_adopted_sandboxes();
	/* Reaped already: no longer a child of ours. */
	errno = 0;
	assert_int_equal(waitpid(orphan, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	orphan = -1;
	/* The child in this namespace is untouched. */
	assert_int_equal(waitpid(sibling, NULL, WNOHANG), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_kills_only_other_namespaces, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
