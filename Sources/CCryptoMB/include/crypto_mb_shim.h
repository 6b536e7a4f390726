/* Intel's crypto_mb (the Intel Cryptography Primitives Library's multi-buffer part), loaded at run
 * time: nothing at build time depends on it, and a program that never finds it runs as before.
 *
 * The library is opened with dlopen(RTLD_LOCAL) after its runtime libraries (libintlc, libirng,
 * libimf, libsvml), each by full path and also RTLD_LOCAL: their symbols (Intel's math library
 * among them) never take over libm's in the process. Only the few functions used are looked up,
 * with the prototypes below (from crypto_mb's rsa.h, status.h, cpu_features.h, version.h). It is
 * used only when mbx_is_crypto_mb_applicable(0) says this CPU has what it needs (AVX-512 IFMA).
 *
 * The header carries no OpenSSL or crypto_mb types. */
#ifndef JWTV_CRYPTO_MB_SHIM_H
#define JWTV_CRYPTO_MB_SHIM_H

#include <stddef.h>
#include "rsa_montgomery.h"

/** Where a search looked and what it found, for `jwtverify --version` and errors. */
#define JWTV_MB_MESSAGE_MAX 512

/** Opens crypto_mb, once per process (later calls return the first answer).
 *  `setting`: a path to libcrypto_mb.so.* or to the folder holding it and its runtime libraries,
 *  or "off"; NULL or "" to search `default_folder`, then the system's library path. Returns 1
 *  when the library is loaded and applicable, else 0; `message` (JWTV_MB_MESSAGE_MAX octets)
 *  says which library, or why not. */
int jwtv_mb_load(const char *setting, const char *default_folder, char *message);

/** The loaded library's version ("crypto_mb 1.2.3"), or NULL. */
const char *jwtv_mb_version(void);

/** 1 when the loaded engine takes this key: public exponent 65537 and a modulus of 1024, 2048,
 *  3072 or 4096 bits. 0 when not, or when nothing is loaded. */
int jwtv_mb_takes_rsa_key(const jwtv_rsa_key *key);

/** Up to 8 RSASSA-PKCS1-v1_5 verifications in one call. Lane i: keys[i] (NULL: an unused lane),
 *  the signature (`signatures[i]`, the modulus's length), its digest kind and digest. Every key
 *  of a call must have a modulus of `bits` bits and be taken (jwtv_mb_takes_rsa_key). Each lane
 *  is checked for s < n first, then s^e mod n computed in crypto_mb's lanes and compared with
 *  the whole expected encoding, octet for octet. valid[i] is 1 or 0; a bad lane never changes
 *  another's verdict. */
void jwtv_mb_rsa_verify8(const jwtv_rsa_key *const keys[8], const void *const signatures[8], const jwtv_rsa_digest kinds[8],
                         const void *const digests[8], const size_t digest_lengths[8], int bits, unsigned char valid[8]);

#endif
