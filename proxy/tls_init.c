/* OpenSSL's set-up: tls_init.h. */
#if ASB_OPENSSL_LOWLEVEL
#define OPENSSL_SUPPRESS_DEPRECATED /* RAND_METHOD: see tls_init.h */
#endif
#include "tls_init.h"

#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/random.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>

static bool early;

#if ASB_OPENSSL_LOWLEVEL
/* getrandom(2): blocks only until the kernel's generator is seeded, which
 * is what seeds OpenSSL's own. */
static int kernel_bytes(unsigned char *buf, int num)
{
	while (num > 0) {
		ssize_t n = getrandom(buf, (size_t)num, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		buf += n;
		num -= (int)n;
	}
	return 1;
}

static int kernel_status(void)
{
	return 1;
}

static const RAND_METHOD kernel_rand = {
    .bytes = kernel_bytes,
    .pseudorand = kernel_bytes,
    .status = kernel_status,
};
#endif

int tls_init_early(void)
{
	/* No clean-up of OpenSSL's own tables at exit: the launcher waits for
	 * this process to end, and the kernel frees them at once. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		return -EIO;
#if ASB_OPENSSL_LOWLEVEL
	if (RAND_set_rand_method(&kernel_rand) != 1)
		return -EIO;
#else
	if (RAND_set_DRBG_type(NULL, "HASH-DRBG", NULL, NULL, "SHA256") != 1)
		return -EIO;
#endif
	early = true;
	return 0;
}

void tls_load_system_config(void)
{
	static bool loaded;
	/* Without tls_init_early, OpenSSL loads it itself (the unit tests). */
	if (!early || loaded)
		return;
	loaded = true;
	/* OpenSSL's own flags for it: a missing file is no error, a failing
	 * module neither unless the file asks (config_diagnostics). What
	 * failed is said, and TLS goes on with OpenSSL's defaults. */
	if (CONF_modules_load_file_ex(NULL, NULL, NULL,
	                              CONF_MFLAGS_DEFAULT_SECTION |
	                                  CONF_MFLAGS_IGNORE_MISSING_FILE |
	                                  CONF_MFLAGS_IGNORE_RETURN_CODES) > 0)
		return;
	char why[256] = "unknown error";
	unsigned long e = ERR_peek_last_error();
	if (e)
		ERR_error_string_n(e, why, sizeof(why));
	ERR_clear_error();
	plog_info("warning: the system's OpenSSL configuration did not load (%s): OpenSSL's "
	          "defaults apply",
	          why);
}
