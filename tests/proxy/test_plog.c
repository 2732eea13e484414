/* proxy.log: client text is escaped, floods are rate-limited and deduplicated, the
 * file stops at its cap. Each test runs in its own process (the log is global). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"

static char tmpl[64];

static int setup(void **state)
{
	snprintf(tmpl, sizeof(tmpl), "/tmp/asb-plog.XXXXXX");
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(tmpl);
	return 0;
}

static char *slurp(size_t *len)
{
	FILE *f = fopen(tmpl, "r");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 22);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 22) - 1, f);
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Run fn in a child, so every test starts from a fresh log state. */
static void in_child(void (*fn)(void))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		plog_flush();
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void write_injection(void)
{
	if (plog_open(tmpl, 0) < 0)
		_exit(1);
	plog_blocked("GET", "a.test",
	             "/x\n2025-01-01T00:00:00Z allowed: GET evil.test/\r\x1b[2J\\\x80", "r");
	plog_info("cannot resolve %s", "bad\nname");
}

static void test_escaping(void **state)
{
	in_child(write_injection);
	size_t len;
	char *out = slurp(&len);
	assert_int_equal(count(out, "\n"), 2); /* two lines, however many newlines were sent */
	assert_non_null(strstr(out, "blocked: GET a.test/x\\x0a2025-01-01T00:00:00Z allowed: GET "
	                            "evil.test/\\x0d\\x1b[2J\\x5c\\x80 (r)\n"));
	assert_non_null(strstr(out, "proxy: cannot resolve bad\\x0aname\n"));
	for (size_t i = 0; i < len; i++)
		assert_true(out[i] == '\n' || (out[i] >= 0x20 && out[i] < 0x7f));
	free(out);
	char esc[32];
	assert_int_equal(plog_escape("a\tb", 3, esc), 6);
	assert_string_equal(esc, "a\\x09b");
}

static void write_repeats(void)
{
	if (plog_open(tmpl, 0) < 0)
		_exit(1);
	for (int i = 0; i < 1000; i++)
		plog_blocked("GET", "evil.test", "/", "domain not allowed");
	plog_blocked("GET", "other.test", "/", "domain not allowed");
}

static void test_dedup(void **state)
{
	in_child(write_repeats);
	size_t len;
	char *out = slurp(&len);
	assert_int_equal(count(out, "blocked: GET evil.test/ (domain not allowed)\n"), 3);
	assert_non_null(strstr(out, "proxy: last blocked line repeated 997 more times\n"));
	/* the summary comes before the next different line */
	assert_true(strstr(out, "repeated 997") < strstr(out, "other.test"));
	free(out);
}

static void write_flood(void)
{
	if (plog_open(tmpl, 0) < 0)
		_exit(1);
	plog_set_rate(5); /* bursts of 50 */
	char path[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(path, sizeof(path), "/%d", i);
		plog_blocked("GET", "evil.test", path, "domain not allowed");
	}
	plog_info("still here");
}

static void test_rate(void **state)
{
	in_child(write_flood);
	size_t len;
	char *out = slurp(&len);
	size_t n = count(out, " blocked: ");
	assert_true(n >= 50 && n <= 52);
	assert_non_null(strstr(out, "blocked lines not logged (more than 5 a second)"));
	assert_non_null(strstr(out, "proxy: still here")); /* another kind has its own budget */
	free(out);
}

static void write_capped(void)
{
	if (plog_open(tmpl, 4096) < 0)
		_exit(1);
	char path[32];
	for (int i = 0; i < 500; i++) {
		snprintf(path, sizeof(path), "/%d", i);
		plog_allowed("GET", "a.test", path);
	}
}

static void test_cap(void **state)
{
	in_child(write_capped);
	struct stat st;
	assert_int_equal(stat(tmpl, &st), 0);
	assert_true(st.st_size <= 4096 && st.st_size > 3000);
	size_t len;
	char *out = slurp(&len);
	const char *last = strstr(out, "proxy: proxy.log reached its cap of 4096 bytes");
	assert_non_null(last);
	assert_null(strchr(strchr(last, '\n') + 1, '\n')); /* and it is the last line */
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dedup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
