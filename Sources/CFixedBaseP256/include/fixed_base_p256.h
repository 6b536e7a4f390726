/* ES256 verification with a per-key fixed-base table (JWTVerify's fast path for P-256 keys).
 *
 * An ECDSA verification computes R = u1*G + u2*Q. OpenSSL's P-256 code multiplies G with a
 * precomputed comb table but Q from scratch on every call. Here each key gets a second P-256
 * group whose generator is Q, with OpenSSL's own table built once (EC_GROUP_precompute_mult), so
 * both products are fixed-base. In a batch, the inverses of all s are found with one modular
 * inversion (Montgomery's trick), and where Intel's crypto_mb is loaded (crypto_mb_shim.h), u1*G
 * for each group of four to eight signatures comes from one call to its eight IFMA lanes (about
 * half of OpenSSL's cost per product). Every other arithmetic step is an OpenSSL call.
 *
 * The header carries no OpenSSL types; the one C file that implements it is the only place in
 * JWTVerify that uses OpenSSL APIs deprecated in 3.0. Where the build lacks them,
 * jwtv_p256_available() is 0 and every constructor returns NULL. */
#ifndef JWTV_FIXED_BASE_P256_H
#define JWTV_FIXED_BASE_P256_H

#include <stddef.h>

/** A P-256 public key with its fixed-base table: immutable once built, so shared by threads. */
typedef struct jwtv_p256_key jwtv_p256_key;

/** Per-thread temporaries (a BN_CTX and scratch numbers and points); never shared. */
typedef struct jwtv_p256_scratch jwtv_p256_scratch;

/** The most signatures one jwtv_p256_verify_batch call takes. */
#define JWTV_P256_BATCH_MAX 128

/** The fewest u1*G products of a group of eight worth one call to crypto_mb's eight lanes (about
 *  25 us a call against about 6.8 us for each of OpenSSL's own products). */
#define JWTV_P256_MB_MIN_LANES 4

/** 1 when this OpenSSL build has the calls the fast path needs, else 0. */
int jwtv_p256_available(void);

/** Builds the table for the uncompressed SEC1 point `point` (65 octets: 0x04 || X || Y).
 *  NULL when the point is not on P-256, on failure, or when the fast path is unavailable. */
jwtv_p256_key *jwtv_p256_key_new(const void *point, size_t length);

/** Frees a key built by jwtv_p256_key_new (NULL is ignored). */
void jwtv_p256_key_free(jwtv_p256_key *key);

/** New per-thread temporaries; NULL on allocation failure. */
jwtv_p256_scratch *jwtv_p256_scratch_new(void);

/** Frees temporaries (NULL is ignored). */
void jwtv_p256_scratch_free(jwtv_p256_scratch *scratch);

/** Whether `signature` (r || s, 32 octets each, the JWS form) is a valid ECDSA signature of the
 *  32-octet SHA-256 `digest` under `key`: 1 valid, 0 not (including any internal failure). */
int jwtv_p256_verify(const jwtv_p256_key *key, jwtv_p256_scratch *scratch, const void *digest, const void *signature);

/** Verifies `count` (at most JWTV_P256_BATCH_MAX) signatures at once: entry i is keys[i],
 *  digests[i] (32 octets) and signatures[i] (64 octets), and its verdict goes to valid[i] (1 or 0).
 *  The inverses of all s share one modular inversion; each verdict is decided by its own entry
 *  alone, so a bad entry never changes another's. Returns 0 if count is out of range. */
int jwtv_p256_verify_batch(size_t count, const jwtv_p256_key *const *keys, const void *const *digests,
                           const void *const *signatures, unsigned char *valid, jwtv_p256_scratch *scratch);

#endif
