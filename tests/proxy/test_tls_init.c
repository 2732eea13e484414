/* OpenSSL's set-up (proxy/tls_init.c): the kernel's random bytes from the
 * start (a Hash_DRBG where OpenSSL lacks RAND_METHOD), no
 * configuration file read until TLS is first needed, and then the system's
 * (OPENSSL_CONF here) applied to the contexts made after, towards servers
 * and towards the sandbox's clients; one that fails to load is said. What
 * OpenSSL loads, it loads once a process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <openssl/rand.h>
#include <openssl/ssl.h>

#include "conn.h"
#include "tls_init.h"
#include "upstream.h"

/* A configuration that fails to load (a module OpenSSL does not know, with
 * config_diagnostics on): said on the log (stderr here), and the proxy's
 * contexts are made with OpenSSL's defaults. In a child: OpenSSL loads its
 * configuration once a process. */
static void test_broken_system_config(void **state)
{
	(void)state;
	char conf[] = "/tmp/asb-openssl-conf.XXXXXX", err[] = "/tmp/asb-openssl-err.XXXXXX";
	int fd = mkstemp(conf), efd = mkstemp(err);
	assert_true(fd >= 0 && efd >= 0);
	static const char text[] = "config_diagnostics = 1\n"
	                           "openssl_conf = init\n"
	                           "[init]\nno_such_module = x\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(efd, STDERR_FILENO);
		setenv("OPENSSL_CONF", conf, 1);
		SSL_CTX *ctx = NULL;
		_exit(tls_init_early() == 0 && upstream_tls_ctx(NULL, &ctx) == 0 && ctx ? 0 : 1);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	char said[4096] = "";
	ssize_t n = pread(efd, said, sizeof(said) - 1, 0);
	assert_true(n > 0);
	said[n] = '\0';
	if (!strstr(said, "the system's OpenSSL configuration did not load"))
		fail_msg("no warning on the log: %s", said);
	close(efd);
	unlink(conf);
	unlink(err);
}

/* A system_default section, as crypto policies write one, at conf. */
static void write_system_default(char *conf)
{
	int fd = mkstemp(conf);
	assert_true(fd >= 0);
	static const char text[] = "openssl_conf = init\n"
	                           "[init]\nssl_conf = ssl\n"
	                           "[ssl]\nsystem_default = sysdef\n"
	                           "[sysdef]\nMaxProtocol = TLSv1.2\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
}

/* The context towards the sandbox's clients loads it too, made first (as
 * the proxy makes it): in a child, for the same reason as above. */
static void test_client_side_first(void **state)
{
	(void)state;
	char conf[] = "/tmp/asb-openssl-conf.XXXXXX";
	write_system_default(conf);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("OPENSSL_CONF", conf, 1);
		SSL_CTX *ctx = NULL;
		_exit(tls_init_early() == 0 && proxy_server_tls_ctx(&ctx) == 0 &&
		              SSL_CTX_get_max_proto_version(ctx) == TLS1_2_VERSION
		          ? 0
		          : 1);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	unlink(conf);
}

#if ASB_OPENSSL_LOWLEVEL
/* In a child, a draw, then getrandom(2) made to fail: whether the next
 * draws still succeed (1) or fail (0). */
static int draw_without_getrandom(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_filter prog[] = {
		    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getrandom, 0, 1),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog fprog = {sizeof(prog) / sizeof(prog[0]), prog};
		unsigned char b[16];
		if (RAND_bytes(b, sizeof(b)) != 1 || RAND_priv_bytes(b, sizeof(b)) != 1)
			_exit(3);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) < 0)
			_exit(2);
		_exit(RAND_bytes(b, sizeof(b)) == 1 || RAND_priv_bytes(b, sizeof(b)) == 1 ? 1 : 0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}
#endif

static void test_early_then_system_config(void **state)
{
	(void)state;
	char conf[] = "/tmp/asb-openssl-conf.XXXXXX";
	write_system_default(conf);
	setenv("OPENSSL_CONF", conf, 1);

	assert_int_equal(tls_init_early(), 0);
#if ASB_OPENSSL_LOWLEVEL
	/* Each draw is the kernel's: once getrandom fails, so does it
	 * (OpenSSL's DRBG, seeded by then, would draw on). */
	assert_int_equal(draw_without_getrandom(), 0);
#endif
	unsigned char buf[16], again[16];
	assert_int_equal(RAND_bytes(buf, sizeof(buf)), 1);
	assert_int_equal(RAND_priv_bytes(again, sizeof(again)), 1);
	assert_memory_not_equal(buf, again, sizeof(buf));
#if !ASB_OPENSSL_LOWLEVEL
	EVP_RAND_CTX *drbg = RAND_get0_public(NULL);
	assert_non_null(drbg);
	assert_string_equal(EVP_RAND_get0_name(EVP_RAND_CTX_get0_rand(drbg)), "HASH-DRBG");
#endif

	/* Not read yet: a context made without tls_load_system_config has
	 * OpenSSL's own defaults. */
	SSL_CTX *before = SSL_CTX_new(TLS_client_method());
	assert_non_null(before);
	assert_int_equal(SSL_CTX_get_max_proto_version(before), 0);
	SSL_CTX_free(before);

	/* The proxy's own contexts load it first. */
	SSL_CTX *ctx = NULL;
	assert_int_equal(upstream_tls_ctx(NULL, &ctx), 0);
	assert_int_equal(SSL_CTX_get_max_proto_version(ctx), TLS1_2_VERSION);
	SSL_CTX_free(ctx);
	unlink(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    /* first: before this process's OpenSSL */
	    cmocka_unit_test(test_broken_system_config),
	    cmocka_unit_test(test_client_side_first),
	    cmocka_unit_test(test_early_then_system_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
