/* RSASSA-PKCS1-v1_5 verification (RS256, RS384, RS512) by a chain of Montgomery products
 * (JWTVerify's path for RSA keys with a public exponent of at most 64 bits).
 *
 * RSAVP1 is s^e mod n. OpenSSL's EVP_PKEY_verify computes it with BN_mod_exp_mont, which converts
 * s into Montgomery form and the result back out, and around it makes about 19 allocations
 * (a BN_CTX among them) and takes 5 read locks per call. Here each key keeps its Montgomery
 * context and one constant K = R^e mod n (R = 2^(64 * words of n)). Starting from s itself, each
 * Montgomery squaring or product with s keeps x = s^a * R^-(a-1) (mod n); after the exponent's
 * bits x = s^e * R^-(e-1), and one product with K gives s^e. For e = 65537 that is 16 squarings
 * and 2 products. Every arithmetic step is an OpenSSL BN call; none is deprecated in OpenSSL 3.0.
 *
 * The check is RFC 8017 section 8.2.2 step 4: the result must equal, octet for octet, the
 * EMSA-PKCS1-v1_5 encoding 0x00 || 0x01 || 0xFF... || 0x00 || DigestInfo || H, with DigestInfo
 * DER-encoded by OpenSSL (i2d_X509_SIG, parameters NULL). Nothing of the result is parsed.
 *
 * The header carries no OpenSSL types. */
#ifndef JWTV_RSA_MONTGOMERY_H
#define JWTV_RSA_MONTGOMERY_H

#include <stddef.h>

/** An RSA public key prepared for the chain: immutable once built, so shared by threads. */
typedef struct jwtv_rsa_key jwtv_rsa_key;

/** Per-thread temporaries (a BN_CTX, two numbers, the encoded message); never shared. */
typedef struct jwtv_rsa_scratch jwtv_rsa_scratch;

/** The digests of RS256, RS384 and RS512. */
typedef enum { JWTV_RSA_SHA256 = 0, JWTV_RSA_SHA384 = 1, JWTV_RSA_SHA512 = 2 } jwtv_rsa_digest;

/** The largest modulus, in bits, a key may have (the scratch's encoded-message buffer). */
#define JWTV_RSA_MAX_MODULUS_BITS 16384

/** Prepares the key with big-endian `modulus` and `exponent` octets. NULL when the modulus is
 *  even, under 512 or over JWTV_RSA_MAX_MODULUS_BITS bits, when the exponent is even, below 3,
 *  over 64 bits or not below the modulus, or on failure. */
jwtv_rsa_key *jwtv_rsa_key_new(const void *modulus, size_t modulus_length, const void *exponent, size_t exponent_length);

/** Frees a key built by jwtv_rsa_key_new (NULL is ignored). */
void jwtv_rsa_key_free(jwtv_rsa_key *key);

/** New per-thread temporaries; NULL on allocation failure. */
jwtv_rsa_scratch *jwtv_rsa_scratch_new(void);

/** Frees temporaries (NULL is ignored). */
void jwtv_rsa_scratch_free(jwtv_rsa_scratch *scratch);

/** Whether `signature` (`signature_length` octets, big-endian) is a valid RSASSA-PKCS1-v1_5
 *  signature under `key` of the message whose `digest` (32, 48 or 64 octets, matching `kind`)
 *  is given: 1 valid, 0 not (a length other than the modulus's, s >= n, any internal failure).
 *  Adds nothing to the thread's OpenSSL error queue. */
int jwtv_rsa_verify_pkcs1(const jwtv_rsa_key *key, jwtv_rsa_scratch *scratch, jwtv_rsa_digest kind, const void *digest,
                          size_t digest_length, const void *signature, size_t signature_length);

/* For other engines of the public operation (crypto_mb's eight lanes): the key's parts, the
 * s < n check and the encoding check, so that every engine compares the same octets. */

/** The modulus and the public exponent as OpenSSL `const BIGNUM *`, owned by the key. */
const void *jwtv_rsa_key_modulus(const jwtv_rsa_key *key);
const void *jwtv_rsa_key_exponent(const jwtv_rsa_key *key);

/** The public exponent, the modulus's length in octets and in bits. */
unsigned long long jwtv_rsa_key_public_exponent(const jwtv_rsa_key *key);
size_t jwtv_rsa_key_length(const jwtv_rsa_key *key);
int jwtv_rsa_key_bits(const jwtv_rsa_key *key);

/** The modulus as big-endian octets (jwtv_rsa_key_length of them), owned by the key. */
const void *jwtv_rsa_key_modulus_octets(const jwtv_rsa_key *key);

/** What another engine derived from the key and attached to it (jwtv_rsa_key_attach_engine_data),
 *  or NULL until then. Safe on any thread. */
void *jwtv_rsa_key_engine_data(const jwtv_rsa_key *key);

/** Attaches `data` (from malloc or aligned_alloc; the key frees it with free) to the key, unless
 *  some data is attached already: returns 1 when attached, 0 when not (then the caller frees
 *  `data`). The one part of a key written after it is built: atomically, at most once, so
 *  threads sharing the key may race to attach and all read the winner's. */
int jwtv_rsa_key_attach_engine_data(const jwtv_rsa_key *key, void *data);

/** 1 when `signature` has the modulus's length and, as a big-endian number, is below it
 *  (RSAVP1 step 1), else 0. */
int jwtv_rsa_below_modulus(const jwtv_rsa_key *key, const void *signature, size_t signature_length);

/** 1 when `encoded` (the modulus's length in octets) is exactly the EMSA-PKCS1-v1_5 encoding of
 *  `digest` under `kind`: 0x00 0x01 0xFF... 0x00 DigestInfo H. */
int jwtv_rsa_is_encoding(const jwtv_rsa_key *key, jwtv_rsa_digest kind, const void *encoded, const void *digest, size_t digest_length);

#endif
