/* OpenSSL's set-up: tls_init.h. */
#include "tls_init.h"

#include <errno.h>
#include <stdbool.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

static bool early;

int tls_init_early(void)
{
	/* No clean-up of OpenSSL's own tables at exit: the launcher waits for
	 * this process to end, and the kernel frees them at once. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1 ||
	    RAND_set_DRBG_type(NULL, "HASH-DRBG", NULL, NULL, "SHA256") != 1)
		return -EIO;
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
	/* OpenSSL's own defaults for it: a missing file or a failing module
	 * is no error (it ignores them as well). */
	(void)CONF_modules_load_file_ex(NULL, NULL, NULL,
	                                CONF_MFLAGS_DEFAULT_SECTION |
	                                    CONF_MFLAGS_IGNORE_MISSING_FILE |
	                                    CONF_MFLAGS_IGNORE_RETURN_CODES);
}
