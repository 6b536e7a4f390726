/* crypto_mb's RSA public operation with each key's constants kept (private to the shim).
 *
 * mbx_rsa_public_ssl_mb8 converts the eight moduli to crypto_mb's radix-2^52 form and computes
 * each one's Montgomery constants (k0 = -n^-1 mod 2^52 and RR = R^2 mod n) on every call: about a
 * fifth of its time for e = 65537. Here each key's share of those is computed once, by crypto_mb's
 * own functions, and attached to the key (jwtv_rsa_key_attach_engine_data); a call gathers its
 * lanes' constants and runs crypto_mb's exponentiation (EXP52x*_pub65537_mb8) between its own
 * conversions of the input and the result.
 *
 * Those functions are exported by libcrypto_mb but are not its public API. They are used only
 * with the version they were read from (crypto_mb 2.3, the pinned wheel), on a CPU with AVX-512
 * IFMA (they are its mb8 code), and for a key only after one call of both paths over the same
 * input gave the same eight results; otherwise the public API does the work. */
#ifndef JWTV_RSA_LANES_H
#define JWTV_RSA_LANES_H

#include <stdint.h>

#include "rsa_montgomery.h"

/** The public API's RSA operation: mbx_rsa_public_ssl_mb8's prototype, BIGNUMs opaque. */
typedef uint32_t (*jwtv_mb_rsa_public_fn)(const unsigned char *const from[8], unsigned char *const to[8],
                                          const void *const e[8], const void *const n[8], int expected_bits);

/** Looks up the functions in `handle` when `major`.`minor` is the version they were read from
 *  and this CPU runs them; `public_api` is the reference each key's self-test compares with.
 *  Called once, by the loading thread, before the engine is published as loaded. */
void jwtv_mb_rsa_lanes_bind(void *handle, int major, int minor, jwtv_mb_rsa_public_fn public_api);

/** Whether keys' constants are used (the functions were found and apply here). */
int jwtv_mb_rsa_lanes_bound(void);

/** s^e mod n for 8 lanes, all with a modulus of `bits` bits (1024, 2048, 3072 or 4096) and
 *  e = 65537, each from[i]/to[i] the modulus's length (every lane set: repeat a used lane in the
 *  others). A key without constants gets them computed here, once (threads may race;
 *  one set is kept). Returns 1 when done here; 0 when some key's constants cannot be used (its
 *  self-test failed, or there was no memory for them): then the caller uses the public API. */
int jwtv_mb_rsa_lanes_public(const jwtv_rsa_key *const keys[8], const unsigned char *const from[8],
                             unsigned char *const to[8], int bits);

/** A key's constants: 0 none yet, 1 computed and used, 2 refused (the self-test failed). */
int jwtv_mb_rsa_lanes_state(const jwtv_rsa_key *key);

/** Attaches refused constants to a key that has none (as a failed self-test would): 1 when done. */
int jwtv_mb_rsa_lanes_refuse(const jwtv_rsa_key *key);

#endif
