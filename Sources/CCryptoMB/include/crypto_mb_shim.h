/* Intel's crypto_mb (the Intel Cryptography Primitives Library's multi-buffer part), loaded at run
 * time: nothing at build time depends on it, and a program that never finds it runs as before.
 *
 * The library is opened with dlopen(RTLD_LOCAL) after its runtime libraries (libintlc, libirng,
 * libimf, libsvml), each by full path and also RTLD_LOCAL: their symbols (Intel's math library
 * among them) never take over libm's in the process. The runtime libraries also resolve their
 * own symbols first (RTLD_DEEPBIND, except under a sanitizer's runtime, which refuses it). Only
 * the few functions used are looked up, with the prototypes below (from crypto_mb's rsa.h,
 * status.h, cpu_features.h, version.h). It is used only when mbx_is_crypto_mb_applicable(0) says
 * this CPU has what it needs (AVX-512 IFMA).
 * Two of its operations are used: RSA public operations (mbx_rsa_public_ssl_mb8) and products of
 * P-256's generator (mbx_nistp256_ecpublic_key_mb8, the u1*G of an ES256 check). With crypto_mb
 * 2.3, the RSA operation runs through the functions behind mbx_rsa_public_ssl_mb8 instead, with
 * each key's Montgomery constants computed once and kept with the key (rsa_lanes.h says when).
 *
 * The header carries no OpenSSL or crypto_mb types. */
#ifndef JWTV_CRYPTO_MB_SHIM_H
#define JWTV_CRYPTO_MB_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include "rsa_montgomery.h"

/** Where a search looked and what it found, for `jwtverify --version` and errors. */
#define JWTV_MB_MESSAGE_MAX 512

/** Opens crypto_mb, once per process (later calls return the first answer; calls from other
 *  threads meanwhile wait for it). Every other function here is safe on any thread at any time:
 *  before the load is done they answer as if nothing were loaded.
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

/** 1 when the engine, once loaded, would take this key (jwtv_mb_takes_rsa_key without asking
 *  whether it is loaded): for planning before the engine is there. */
int jwtv_mb_fits_rsa_key(const jwtv_rsa_key *key);

/** Up to 8 RSASSA-PKCS1-v1_5 verifications in one call. Lane i: keys[i] (NULL: an unused lane),
 *  the signature (`signatures[i]`, the modulus's length), its digest kind and digest. Every key
 *  of a call must have a modulus of `bits` bits and be taken (jwtv_mb_takes_rsa_key). Each lane
 *  is checked for s < n first, then s^e mod n computed in crypto_mb's lanes and compared with
 *  the whole expected encoding, octet for octet. valid[i] is 1 or 0; a bad lane never changes
 *  another's verdict. */
void jwtv_mb_rsa_verify8(const jwtv_rsa_key *const keys[8], const void *const signatures[8], const jwtv_rsa_digest kinds[8],
                         const void *const digests[8], const size_t digest_lengths[8], int bits, unsigned char valid[8]);

/** 1 when RSA keys' Montgomery constants are kept (crypto_mb 2.3 on a CPU with AVX-512 IFMA),
 *  0 when every call computes them (mbx_rsa_public_ssl_mb8) or nothing is loaded. */
int jwtv_mb_keeps_rsa_constants(void);

/** What is kept of `key`: 0 nothing yet (computed at its first engine call), 1 its constants,
 *  2 constants refused by their self-test (its calls go through mbx_rsa_public_ssl_mb8). */
int jwtv_mb_rsa_key_constants(const jwtv_rsa_key *key);

/** For tests: marks `key`, which must have nothing kept yet, as if its self-test had failed.
 *  1 when marked. */
int jwtv_mb_refuse_rsa_key_constants(const jwtv_rsa_key *key);

/** 1 when the loaded engine also multiplies P-256's generator (jwtv_mb_p256_base_mul8), else 0. */
int jwtv_mb_has_p256_base(void);

/** u*G on P-256 for 8 lanes at once (crypto_mb's fixed-base comb in IFMA lanes; the 8 lanes cost
 *  about as much as 4 of OpenSSL's own products). Lane i: scalars[i], 4 little-endian 64-bit
 *  words with 1 <= u < n; the product goes to x[i], y[i], z[i] (4 words each, Jacobian
 *  coordinates X/Z^2, Y/Z^3, not in Montgomery form). Every pointer must be set: fill unused
 *  lanes with a copy of a used one. Returns a mask with bit i set for each lane computed; 0 when
 *  the engine is not loaded or lacks the operation. */
unsigned jwtv_mb_p256_base_mul8(const uint64_t *const scalars[8], uint64_t *const x[8], uint64_t *const y[8],
                                uint64_t *const z[8]);

#endif
