/* See rsa_lanes.h. */
#define _GNU_SOURCE
#include "rsa_lanes.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* crypto_mb 2.3's prototypes (internal/common/ifma_cvt52.h, internal/rsa/ifma_rsa_arith.h):
 * numbers in radix 2^52, lane-interleaved (digit d of lane l at [d][l]). */
typedef uint64_t u64;
typedef unsigned char (*to_lanes_fn)(u64 out[][8], const unsigned char *const in[8], int bits);
typedef unsigned char (*from_lanes_fn)(unsigned char *const out[8], const u64 in[][8], int bits);
typedef unsigned char (*bignum_to_lanes_fn)(u64 out[][8], const void *const in[8], int bits);
typedef void (*mont_factor_fn)(u64 k0[8], const u64 m0[8]);
typedef void (*mont_rr_fn)(u64 rr[][8], u64 m[][8], int bits);
typedef void (*exp65537_fn)(u64 out[][8], const u64 base[][8], const u64 modulus[][8], const u64 to_mont[][8],
                            const u64 k0[8], u64 work[][8]);

#define SIZES 4
/* 4096 bits are 79 digits of 52; the exponentiation reads the modulus in rows of 10. */
#define MAX_ROWS 80
#define MULTIPLE_OF_10(x) (((x) + 9) / 10 * 10)

static const int size_bits[SIZES] = {1024, 2048, 3072, 4096};
static const char *const exp_names[SIZES] = {"EXP52x20_pub65537_mb8", "EXP52x40_pub65537_mb8",
                                             "EXP52x60_pub65537_mb8", "EXP52x79_pub65537_mb8"};

/* Written once by jwtv_mb_rsa_lanes_bind before the shim publishes the engine (release order);
 * read only after a thread has seen it published (acquire order). */
static int bound;
static to_lanes_fn to_lanes;
static from_lanes_fn from_lanes;
static bignum_to_lanes_fn bignum_to_lanes;
static mont_factor_fn mont_factor;
static mont_rr_fn mont_rr;
static exp65537_fn exponentiations[SIZES];
static jwtv_mb_rsa_public_fn reference;

/* A key's constants, attached to it. */
typedef struct {
    _Alignas(64) u64 n[MAX_ROWS];  /* the modulus, zero past its digits */
    _Alignas(64) u64 rr[MAX_ROWS]; /* R^2 mod n, R = 2^(52 * digits) */
    u64 k0;                        /* -n^-1 mod 2^52 */
    int usable;                    /* 0: the self-test failed; the public API serves this key */
} key_constants;

static int size_index(int bits) {
    for (int i = 0; i < SIZES; i++)
        if (size_bits[i] == bits) return i;
    return -1;
}

static int digits(int bits) { return (bits + 51) / 52; }

static int cpu_runs_mb8(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512ifma");
#else
    return 0; /* crypto_mb is x86-64 code */
#endif
}

void jwtv_mb_rsa_lanes_bind(void *handle, int major, int minor, jwtv_mb_rsa_public_fn public_api) {
    if (major != 2 || minor != 3 || public_api == NULL || !cpu_runs_mb8()) return;
    to_lanes = (to_lanes_fn)dlsym(handle, "ifma_HexStr8_to_mb8");
    from_lanes = (from_lanes_fn)dlsym(handle, "ifma_mb8_to_HexStr8");
    bignum_to_lanes = (bignum_to_lanes_fn)dlsym(handle, "ifma_BN_to_mb8");
    mont_factor = (mont_factor_fn)dlsym(handle, "ifma_montFactor52_mb8");
    mont_rr = (mont_rr_fn)dlsym(handle, "ifma_montRR52x_mb8");
    int found = to_lanes && from_lanes && bignum_to_lanes && mont_factor && mont_rr;
    for (int i = 0; i < SIZES; i++) {
        exponentiations[i] = (exp65537_fn)dlsym(handle, exp_names[i]);
        found = found && exponentiations[i] != NULL;
    }
    reference = public_api;
    bound = found;
}

int jwtv_mb_rsa_lanes_bound(void) { return bound; }

/* The exponentiation over gathered constants: lane i uses constants[i]. */
static void run_lanes(const key_constants *const constants[8], const unsigned char *const from[8],
                      unsigned char *const to[8], int size) {
    int bits = size_bits[size], count = digits(bits), rows = MULTIPLE_OF_10(count);
    _Alignas(64) u64 n[MAX_ROWS][8];
    _Alignas(64) u64 rr[MAX_ROWS][8];
    _Alignas(64) u64 k0[8];
    _Alignas(64) u64 value[MAX_ROWS][8];
    _Alignas(64) u64 work[2 * MAX_ROWS + 1][8];
    for (int d = 0; d < rows; d++) {
        for (int lane = 0; lane < 8; lane++) {
            n[d][lane] = constants[lane]->n[d];
            rr[d][lane] = constants[lane]->rr[d];
        }
    }
    for (int lane = 0; lane < 8; lane++) k0[lane] = constants[lane]->k0;
    to_lanes(value, from, bits);
    exponentiations[size](value, (const u64(*)[8])value, (const u64(*)[8])n, (const u64(*)[8])rr, k0, work);
    from_lanes(to, (const u64(*)[8])value, bits);
}

/* Computes the key's constants with crypto_mb's own conversions (the key in all 8 lanes, lane 0
 * kept), then checks them: both paths over one input must agree in all 8 lanes. */
static key_constants *compute(const jwtv_rsa_key *key, int size) {
    key_constants *constants = aligned_alloc(64, sizeof *constants);
    if (constants == NULL) return NULL;
    memset(constants, 0, sizeof *constants);
    int bits = size_bits[size], count = digits(bits), rows = MULTIPLE_OF_10(count);
    _Alignas(64) u64 n[MAX_ROWS][8];
    _Alignas(64) u64 rr[MAX_ROWS][8];
    _Alignas(64) u64 k0[8];
    memset(n, 0, sizeof n);
    const void *moduli[8], *exponents[8];
    for (int lane = 0; lane < 8; lane++) {
        moduli[lane] = jwtv_rsa_key_modulus(key);
        exponents[lane] = jwtv_rsa_key_exponent(key);
    }
    bignum_to_lanes(n, moduli, bits);
    mont_factor(k0, n[0]);
    mont_rr(rr, n, bits);
    for (int d = 0; d < rows; d++) {
        constants->n[d] = n[d][0];
        constants->rr[d] = d < count ? rr[d][0] : 0;
    }
    constants->k0 = k0[0];

    /* The self-test's input: the modulus with its top octet halved, below n and of its length. */
    size_t length = jwtv_rsa_key_length(key);
    unsigned char input[512], expected[8][512], got[8][512];
    memcpy(input, jwtv_rsa_key_modulus_octets(key), length);
    input[0] >>= 1;
    const unsigned char *from[8];
    unsigned char *to_expected[8], *to_got[8];
    const key_constants *all[8];
    for (int lane = 0; lane < 8; lane++) {
        from[lane] = input;
        to_expected[lane] = expected[lane];
        to_got[lane] = got[lane];
        all[lane] = constants;
    }
    uint32_t status = reference(from, to_expected, exponents, moduli, bits);
    run_lanes(all, from, to_got, size);
    constants->usable = status == 0;
    for (int lane = 0; lane < 8; lane++) constants->usable &= memcmp(expected[lane], got[lane], length) == 0;
    return constants;
}

/* The key's constants: attached, or computed and attached now (by whichever thread gets there
 * first); NULL when they cannot be used. */
static const key_constants *constants_of(const jwtv_rsa_key *key, int size) {
    const key_constants *attached = jwtv_rsa_key_engine_data(key);
    if (attached == NULL) {
        key_constants *made = compute(key, size);
        if (made == NULL) return NULL;
        if (jwtv_rsa_key_attach_engine_data(key, made)) {
            attached = made;
        } else {
            free(made);
            attached = jwtv_rsa_key_engine_data(key);
        }
    }
    return attached->usable ? attached : NULL;
}

int jwtv_mb_rsa_lanes_public(const jwtv_rsa_key *const keys[8], const unsigned char *const from[8],
                             unsigned char *const to[8], int bits) {
    int size = size_index(bits);
    if (!bound || size < 0) return 0;
    const key_constants *constants[8];
    for (int lane = 0; lane < 8; lane++) {
        if (keys[lane] == NULL || jwtv_rsa_key_bits(keys[lane]) != bits) return 0;
        if ((constants[lane] = constants_of(keys[lane], size)) == NULL) return 0;
    }
    run_lanes(constants, from, to, size);
    return 1;
}

int jwtv_mb_rsa_lanes_state(const jwtv_rsa_key *key) {
    const key_constants *attached = jwtv_rsa_key_engine_data(key);
    return attached == NULL ? 0 : attached->usable ? 1 : 2;
}

int jwtv_mb_rsa_lanes_refuse(const jwtv_rsa_key *key) {
    key_constants *refused = aligned_alloc(64, sizeof *refused);
    if (refused == NULL) return 0;
    memset(refused, 0, sizeof *refused);
    if (jwtv_rsa_key_attach_engine_data(key, refused)) return 1;
    free(refused);
    return 0;
}
