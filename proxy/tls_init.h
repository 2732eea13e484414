/* OpenSSL's set-up, in two steps: what the session CA needs at start, and the
 * system's configuration once TLS is first needed. */
#pragma once

/* Before any other OpenSSL call. No configuration file yet (reading one, even
 * an empty one, costs ~1-2 ms of CPU while the sandbox waits for this process
 * to be ready), and the kernel's generator (getrandom) for all of OpenSSL's
 * random bytes: OpenSSL's own DRBG, seeded from it, first fetches a digest or
 * a cipher from the provider, which sets up every one OpenSSL has (~1.5 ms of
 * CPU). Through RAND_METHOD, deprecated in OpenSSL 3 but in every 3.x; where
 * it is not (ASB_OPENSSL_LOWLEVEL is 0), a Hash_DRBG over SHA-256 as before.
 * 0, or -EIO. */
int tls_init_early(void);

/* The system's OpenSSL configuration (OPENSSL_CONF, else OPENSSLDIR's
 * openssl.cnf: crypto policies, system_default TLS settings, providers), loaded
 * as OpenSSL loads it on its own, once; before each TLS context is made. Its
 * [random] section cannot apply any more: the generator is made at start.
 * One that fails to load is logged (plog), and OpenSSL's defaults apply. */
void tls_load_system_config(void);
