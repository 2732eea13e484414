/* SPDX-License-Identifier: MIT */
/* core/spawn.c: what the started program inherits (the fds named and no
 * other, the limits, no_new_privs, signals), and that a failure before its
 * program ran is this call's error, with its child reaped. And core/
 * platform.h's stop in two halves (child_signal, then child_stop with no
 * signal of its own), as network_stop uses it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform.h"
#include "spawn.h"
#include "util.h"

#include <time.h>

static void no_child_left(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Run `script` under /bin/sh with opts (its stdout captured); its output. */
static char *run_sh(const char *script, struct spawn_opts *o, int *wstatus)
{
	int p[2];
	assert_int_equal(pipe_cloexec(p), 0);
	o->stdout_fd = p[1];
	const char *const argv[] = {"/bin/sh", "-c", script, NULL};
	const char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
	pid_t pid = 0;
	assert_int_equal(spawn_exec(argv, envp, o, &pid), 0);
	close(p[1]);
	static char buf[8192];
	size_t len = 0;
	ssize_t n;
	while ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, wstatus, 0), pid);
	return buf;
}

static void test_exec_failure_is_the_error(void **state)
{
	(void)state;
	char why[256] = "";
	struct spawn_opts o = {
	    .stdout_fd = -1, .stderr_fd = -1, .why = why, .why_len = sizeof(why)};
	const char *const argv[] = {"/nonexistent/program", NULL};
	pid_t pid = 0;
	assert_int_equal(spawn_exec(argv, NULL, &o, &pid), -ENOENT);
	assert_non_null(strstr(why, "cannot run /nonexistent/program"));
	assert_int_equal(pid, 0); /* written on success only */
	no_child_left();
}

static void test_chdir_failure_is_the_error(void **state)
{
	(void)state;
	char why[256] = "";
	struct spawn_opts o = {.stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .cwd = "/nonexistent/dir",
	                       .why = why,
	                       .why_len = sizeof(why)};
	const char *const argv[] = {"/bin/true", NULL};
	pid_t pid = 0;
	assert_int_equal(spawn_exec(argv, NULL, &o, &pid), -ENOENT);
	assert_non_null(strstr(why, "cannot enter /nonexistent/dir"));
	no_child_left();
}

/* Only 0-2 and the named fds, though all of them were close-on-exec. */
static void test_fds_named_and_no_other(void **state)
{
	(void)state;
	int keep = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int other = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(keep > 2 && other > 2);
	char script[256];
	snprintf(script, sizeof(script),
	         "[ -e /proc/self/fd/%d ] && echo keep; [ -e /proc/self/fd/%d ] && echo other; "
	         "pwd",
	         keep, other);
	struct spawn_opts o = {.keep_fds = &keep, .n_keep_fds = 1, .stderr_fd = -1, .cwd = "/"};
	int st = 0;
	char *out = run_sh(script, &o, &st);
	assert_true(WIFEXITED(st));
	assert_string_equal(out, "keep\n/\n");
	/* The launcher's own copy stays close-on-exec. */
	assert_int_equal(fcntl(keep, F_GETFD), FD_CLOEXEC);
	close(keep);
	close(other);
}

static void test_limits_and_no_new_privs(void **state)
{
	(void)state;
	struct limits_set set;
	for (int w = 0; w < LIMIT_COUNT; w++)
		assert_int_equal(getrlimit(limits_resource(w), &set.lim[w]), 0);
	set.lim[0].rlim_cur = set.lim[0].rlim_max = 64; /* nofile */
	struct spawn_opts o = {.limits = &set, .no_new_privs = true, .stderr_fd = -1};
	int st = 0;
	char *out = run_sh("ulimit -n; ulimit -c; grep NoNewPrivs /proc/self/status", &o, &st);
	assert_true(WIFEXITED(st));
	assert_non_null(strstr(out, "64\n0\n"));
	assert_non_null(strstr(out, "NoNewPrivs:\t1"));
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* The child starts with no signal blocked and what was ignored still
 * ignored; the launcher's mask and handlers are as they were. */
static void test_signals(void **state)
{
	(void)state;
	struct sigaction sa = {.sa_handler = on_usr1}, ign = {.sa_handler = SIG_IGN}, old_usr1,
	                 old_pipe;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ign.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old_usr1), 0);
	assert_int_equal(sigaction(SIGPIPE, &ign, &old_pipe), 0);
	sigset_t usr2, before, after;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	assert_int_equal(sigprocmask(SIG_BLOCK, &usr2, &before), 0);
	struct spawn_opts o = {.stderr_fd = -1};
	int st = 0;
	char *out = run_sh("exec grep -E '^Sig(Blk|Ign)' /proc/self/status", &o, &st);
	assert_true(WIFEXITED(st));
	assert_non_null(strstr(out, "SigBlk:\t0000000000000000"));
	/* SIGPIPE (13) is bit 12. */
	const char *ign_line = strstr(out, "SigIgn:\t");
	assert_non_null(ign_line);
	unsigned long long mask = strtoull(ign_line + 8, NULL, 16);
	assert_true(mask & (1ULL << (SIGPIPE - 1)));
	assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &after), 0);
	assert_true(sigismember(&after, SIGUSR2));
	assert_false(sigismember(&after, SIGUSR1));
	assert_false(sigismember(&after, SIGTERM));
	got_usr1 = 0;
	raise(SIGUSR1);
	assert_int_equal(got_usr1, 1); /* still the launcher's handler */
	assert_int_equal(sigprocmask(SIG_SETMASK, &before, NULL), 0);
	sigaction(SIGUSR1, &old_usr1, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
}

/* Helpers: stdout captured, exec failure the call's error. */
static void test_spawn_run(void **state)
{
	(void)state;
	const char *const argv[] = {"/bin/echo", "hello", NULL};
	char out[64];
	int st = -1;
	assert_int_equal(spawn_run(argv, NULL, false, &st, out, sizeof(out)), 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_string_equal(out, "hello\n");
	const char *const missing[] = {"/nonexistent/helper", NULL};
	assert_int_equal(spawn_run(missing, NULL, false, &st, out, sizeof(out)), -ENOENT);
	no_child_left();
}

/* A child that says it is ready on `ready` (after ignoring SIGTERM when
 * asked), then waits for a signal. */
static pid_t waiting_child(bool ignore_term)
{
	int p[2];
	assert_int_equal(pipe_cloexec(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (ignore_term)
			signal(SIGTERM, SIG_IGN);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Asked to end first, waited for later: it ends of the first signal, and
 * the wait reaps it without sending another. */
static void test_stop_after_signal(void **state)
{
	(void)state;
	struct child c;
	child_track(&c, waiting_child(false));
	child_signal(&c, SIGTERM);
	double t0 = now_s();
	child_stop(&c, 0, 5000);
	assert_true(now_s() - t0 < 2.0);
	assert_int_equal(c.pid, 0);
	no_child_left();
}

/* One that ignores the request is killed once the wait runs out: nothing
 * is left either way. */
static void test_stop_kills_what_ignores_the_signal(void **state)
{
	(void)state;
	struct child c;
	child_track(&c, waiting_child(true));
	child_signal(&c, SIGTERM);
	double t0 = now_s();
	child_stop(&c, 0, 300);
	double took = now_s() - t0;
	assert_true(took >= 0.25);
	assert_true(took < 3.0);
	assert_int_equal(c.pid, 0);
	no_child_left();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exec_failure_is_the_error),
	    cmocka_unit_test(test_chdir_failure_is_the_error),
	    cmocka_unit_test(test_fds_named_and_no_other),
	    cmocka_unit_test(test_limits_and_no_new_privs),
	    cmocka_unit_test(test_signals),
	    cmocka_unit_test(test_spawn_run),
	    cmocka_unit_test(test_stop_after_signal),
	    cmocka_unit_test(test_stop_kills_what_ignores_the_signal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
