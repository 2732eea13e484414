/* OpenSSL's set-up, in two steps: what the session CA needs at start, and the
 * system's configuration once TLS is first needed. */
#pragma once

/* Before any other OpenSSL call. No configuration file yet (reading one, even
 * an empty one, costs ~1-2 ms of CPU while the sandbox waits for this process
 * to be ready), and a Hash_DRBG over SHA-256 as the random generator (NIST SP
 * 800-90A, as the default CTR_DRBG; that one fetches AES first, ~1 ms more,
 * where the CA's signature needs SHA-256 anyway). 0, or -EIO. */
int tls_init_early(void);

/* The system's OpenSSL configuration (OPENSSL_CONF, else OPENSSLDIR's
 * openssl.cnf: crypto policies, system_default TLS settings, providers), loaded
 * as OpenSSL loads it on its own, once; before each TLS context is made. Its
 * [random] section cannot apply any more: the generator is made at start.
 * One that fails to load is logged (plog), and OpenSSL's defaults apply. */
void tls_load_system_config(void);
