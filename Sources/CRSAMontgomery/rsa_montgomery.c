/* See include/rsa_montgomery.h. Only OpenSSL 3.0 calls that are not deprecated. */
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include "rsa_montgomery.h"

#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JWTV_RSA_MAX_MODULUS_OCTETS (JWTV_RSA_MAX_MODULUS_BITS / 8)
#define JWTV_RSA_DIGESTS 3
/* DigestInfo for SHA-512 is 19 octets of prefix plus the digest; room to spare. */
#define JWTV_RSA_PREFIX_MAX 32

struct jwtv_rsa_key {
    BIGNUM *n;
    BIGNUM *e_bn;      /* the public exponent as a number, for engines that take BIGNUMs */
    unsigned char n_octets[JWTV_RSA_MAX_MODULUS_OCTETS]; /* n, big-endian, `length` octets */
    BN_MONT_CTX *mont;
    BIGNUM *k;         /* R^e mod n */
    uint64_t e;        /* the public exponent, odd, >= 3 */
    size_t length;     /* octets of n */
    int bits;          /* bits of n */
    /* DigestInfo without its digest octets, per jwtv_rsa_digest, as OpenSSL encodes it */
    unsigned char prefix[JWTV_RSA_DIGESTS][JWTV_RSA_PREFIX_MAX];
    size_t prefix_length[JWTV_RSA_DIGESTS];
    /* What another engine derived from the key (jwtv_rsa_key_attach_engine_data): set at most
     * once, then read by any thread; freed with the key. */
    _Atomic(void *) engine_data;
};

struct jwtv_rsa_scratch {
    BN_CTX *ctx;
    BIGNUM *s, *x;
    unsigned char encoded[JWTV_RSA_MAX_MODULUS_OCTETS];
};

static const int digest_nids[JWTV_RSA_DIGESTS] = {NID_sha256, NID_sha384, NID_sha512};
static const size_t digest_sizes[JWTV_RSA_DIGESTS] = {32, 48, 64};

/* The DER DigestInfo { AlgorithmIdentifier { nid, NULL }, OCTET STRING of `size` octets } up to
 * its digest octets, encoded by OpenSSL: the encoding of a zero digest less its last `size` octets. */
static int digest_info_prefix(int nid, size_t size, unsigned char *out, size_t *out_length) {
    X509_SIG *sig = X509_SIG_new();
    X509_ALGOR *algorithm = NULL;
    ASN1_OCTET_STRING *digest = NULL;
    unsigned char zeros[64] = {0};
    unsigned char *der = NULL;
    int ok = 0;
    if (sig == NULL) return 0;
    X509_SIG_getm(sig, &algorithm, &digest);
    if (X509_ALGOR_set0(algorithm, OBJ_nid2obj(nid), V_ASN1_NULL, NULL) != 1) goto done;
    if (ASN1_OCTET_STRING_set(digest, zeros, (int)size) != 1) goto done;
    int length = i2d_X509_SIG(sig, &der);
    if (length <= (int)size || (size_t)length - size > JWTV_RSA_PREFIX_MAX) goto done;
    *out_length = (size_t)length - size;
    memcpy(out, der, *out_length);
    ok = 1;
done:
    OPENSSL_free(der);
    X509_SIG_free(sig);
    return ok;
}

void jwtv_rsa_key_free(jwtv_rsa_key *key) {
    if (key == NULL) return;
    free(atomic_load_explicit(&key->engine_data, memory_order_acquire));
    BN_free(key->n);
    BN_free(key->e_bn);
    BN_free(key->k);
    BN_MONT_CTX_free(key->mont);
    free(key);
}

jwtv_rsa_key *jwtv_rsa_key_new(const void *modulus, size_t modulus_length, const void *exponent, size_t exponent_length) {
    jwtv_rsa_key *key = calloc(1, sizeof *key);
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *e = BN_bin2bn(exponent, (int)exponent_length, NULL);
    BIGNUM *r = BN_new();
    if (key == NULL || ctx == NULL || e == NULL || r == NULL || modulus_length > JWTV_RSA_MAX_MODULUS_OCTETS) goto fail;
    atomic_init(&key->engine_data, NULL);
    if ((key->n = BN_bin2bn(modulus, (int)modulus_length, NULL)) == NULL) goto fail;
    int bits = BN_num_bits(key->n);
    if (bits < 512 || bits > JWTV_RSA_MAX_MODULUS_BITS || !BN_is_odd(key->n)) goto fail;
    if (BN_num_bits(e) > 64 || !BN_is_odd(e) || BN_is_one(e) || BN_cmp(e, key->n) >= 0) goto fail;
    key->e = 0;
    for (int i = BN_num_bits(e) - 1; i >= 0; i--) key->e = key->e << 1 | (uint64_t)BN_is_bit_set(e, i);
    key->length = (size_t)BN_num_bytes(key->n);
    key->bits = BN_num_bits(key->n);
    if (BN_bn2binpad(key->n, key->n_octets, (int)key->length) != (int)key->length) goto fail;
    if ((key->e_bn = BN_dup(e)) == NULL) goto fail;
    if ((key->mont = BN_MONT_CTX_new()) == NULL || BN_MONT_CTX_set(key->mont, key->n, ctx) != 1) goto fail;
    /* R mod n is 1 in Montgomery form; K = (R mod n)^e mod n. */
    if ((key->k = BN_new()) == NULL || BN_to_montgomery(r, BN_value_one(), key->mont, ctx) != 1) goto fail;
    if (BN_mod_exp_mont(key->k, r, e, key->n, ctx, key->mont) != 1) goto fail;
    for (int d = 0; d < JWTV_RSA_DIGESTS; d++) {
        if (!digest_info_prefix(digest_nids[d], digest_sizes[d], key->prefix[d], &key->prefix_length[d])) goto fail;
    }
    BN_free(e);
    BN_free(r);
    BN_CTX_free(ctx);
    return key;
fail:
    BN_free(e);
    BN_free(r);
    BN_CTX_free(ctx);
    jwtv_rsa_key_free(key);
    ERR_clear_error();
    return NULL;
}

void jwtv_rsa_scratch_free(jwtv_rsa_scratch *scratch) {
    if (scratch == NULL) return;
    BN_free(scratch->s);
    BN_free(scratch->x);
    BN_CTX_free(scratch->ctx);
    free(scratch);
}

jwtv_rsa_scratch *jwtv_rsa_scratch_new(void) {
    jwtv_rsa_scratch *scratch = calloc(1, sizeof *scratch);
    if (scratch == NULL) return NULL;
    if ((scratch->ctx = BN_CTX_new()) == NULL || (scratch->s = BN_new()) == NULL || (scratch->x = BN_new()) == NULL) {
        jwtv_rsa_scratch_free(scratch);
        ERR_clear_error();
        return NULL;
    }
    return scratch;
}

/* x = s^e mod n for 0 <= s < n, through the chain described in the header. */
static int public_operation(const jwtv_rsa_key *key, jwtv_rsa_scratch *c) {
    BIGNUM *x = c->x;
    const BIGNUM *s = c->s;
    if (BN_copy(x, s) == NULL) return 0;
    int top = 63;
    while (!(key->e >> top & 1)) top--;
    for (int bit = top - 1; bit >= 0; bit--) {
        if (BN_mod_mul_montgomery(x, x, x, key->mont, c->ctx) != 1) return 0;
        if ((key->e >> bit & 1) && BN_mod_mul_montgomery(x, x, s, key->mont, c->ctx) != 1) return 0;
    }
    return BN_mod_mul_montgomery(x, x, key->k, key->mont, c->ctx) == 1;
}

/* RFC 8017 9.2 steps 2-5 compared in place: em == 0x00 0x01 PS 0x00 T, PS of 0xFF, at least 8. */
static int is_encoding(const unsigned char *em, size_t length, const unsigned char *prefix, size_t prefix_length,
                       const unsigned char *digest, size_t digest_length) {
    size_t t = prefix_length + digest_length;
    if (length < t + 11) return 0;
    unsigned char difference = em[0] | (em[1] ^ 0x01) | em[length - t - 1];
    for (size_t i = 2; i < length - t - 1; i++) difference |= em[i] ^ 0xFF;
    if (difference != 0) return 0;
    return memcmp(em + length - t, prefix, prefix_length) == 0 && memcmp(em + length - digest_length, digest, digest_length) == 0;
}

const void *jwtv_rsa_key_modulus(const jwtv_rsa_key *key) { return key->n; }

const void *jwtv_rsa_key_exponent(const jwtv_rsa_key *key) { return key->e_bn; }

unsigned long long jwtv_rsa_key_public_exponent(const jwtv_rsa_key *key) { return key->e; }

size_t jwtv_rsa_key_length(const jwtv_rsa_key *key) { return key->length; }

int jwtv_rsa_key_bits(const jwtv_rsa_key *key) { return key->bits; }

const void *jwtv_rsa_key_modulus_octets(const jwtv_rsa_key *key) { return key->n_octets; }

void *jwtv_rsa_key_engine_data(const jwtv_rsa_key *key) {
    /* The slot is the one part of a key written after it is built: atomically, once. */
    jwtv_rsa_key *slot = (jwtv_rsa_key *)key;
    return atomic_load_explicit(&slot->engine_data, memory_order_acquire);
}

int jwtv_rsa_key_attach_engine_data(const jwtv_rsa_key *key, void *data) {
    jwtv_rsa_key *slot = (jwtv_rsa_key *)key;
    void *expected = NULL;
    return atomic_compare_exchange_strong_explicit(&slot->engine_data, &expected, data, memory_order_acq_rel,
                                                   memory_order_acquire);
}

int jwtv_rsa_below_modulus(const jwtv_rsa_key *key, const void *signature, size_t signature_length) {
    /* Both big-endian and of the modulus's length: the order of the octet strings is the numbers'. */
    return signature_length == key->length && memcmp(signature, key->n_octets, key->length) < 0;
}

int jwtv_rsa_is_encoding(const jwtv_rsa_key *key, jwtv_rsa_digest kind, const void *encoded, const void *digest, size_t digest_length) {
    if ((int)kind < 0 || (int)kind >= JWTV_RSA_DIGESTS || digest_length != digest_sizes[kind]) return 0;
    return is_encoding(encoded, key->length, key->prefix[kind], key->prefix_length[kind], digest, digest_length);
}

int jwtv_rsa_verify_pkcs1(const jwtv_rsa_key *key, jwtv_rsa_scratch *c, jwtv_rsa_digest kind, const void *digest,
                          size_t digest_length, const void *signature, size_t signature_length) {
    if (key == NULL || c == NULL || (int)kind < 0 || (int)kind >= JWTV_RSA_DIGESTS) return 0;
    if (digest_length != digest_sizes[kind] || signature_length != key->length) return 0;
    if (BN_bin2bn(signature, (int)signature_length, c->s) == NULL) goto failed;
    /* RSAVP1 step 1: the signature representative must be below n. */
    if (BN_ucmp(c->s, key->n) >= 0) return 0;
    if (!public_operation(key, c) || BN_bn2binpad(c->x, c->encoded, (int)key->length) != (int)key->length) goto failed;
    return is_encoding(c->encoded, key->length, key->prefix[kind], key->prefix_length[kind], digest, digest_length);
failed:
    /* Only a failed OpenSSL call (out of memory) leaves errors behind. */
    ERR_clear_error();
    return 0;
}
