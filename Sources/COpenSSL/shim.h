/* OpenSSL 3 (libcrypto), as JWTVerify sees it.
 *
 * - Deprecated 1.x APIs are hidden, so using one is a compile error.
 * - Swift cannot import function-like macros or variadic functions, and Swift strings bridged to
 *   `const char *` live only for one call. Every sequence whose pointers must outlive a single call
 *   (OSSL_PARAM_BLD key building, i2d output) is therefore done here, in C, behind one prefixed
 *   static inline function that frees everything it allocated on every path. */
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/opensslv.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <string.h>

#if OPENSSL_VERSION_NUMBER < 0x30000000L /* 0xMNN00PP0L: 3.0.0 */
#error "JWTVerify needs OpenSSL >= 3.0"
#endif

static inline void copenssl_free(void *p) { OPENSSL_free(p); }

/** Builds an RSA public key from big-endian modulus and exponent octets. NULL on failure
 *  (error queue left for the caller to drain). */
static inline EVP_PKEY *copenssl_rsa_public_key(const unsigned char *n, size_t n_len,
                                                const unsigned char *e, size_t e_len) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *bn_n = BN_bin2bn(n, (int)n_len, NULL);
    BIGNUM *bn_e = BN_bin2bn(e, (int)e_len, NULL);
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (bld == NULL || bn_n == NULL || bn_e == NULL) goto done;
    if (!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n)) goto done;
    if (!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e)) goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0) goto done;
    if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0) pkey = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    BN_free(bn_n);
    BN_free(bn_e);
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

/** Builds an EC public key on the named group ("P-256", "P-384", "P-521") from an uncompressed
 *  SEC1 point (0x04 || X || Y), then checks the point is on the curve and not infinity. */
static inline EVP_PKEY *copenssl_ec_public_key(const char *group, const unsigned char *point, size_t len) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY_CTX *check = NULL;
    if (bld == NULL) goto done;
    if (!OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0)) goto done;
    if (!OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, len)) goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0) goto done;
    if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0) { pkey = NULL; goto done; }
    check = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (check == NULL || EVP_PKEY_public_check(check) != 1) { EVP_PKEY_free(pkey); pkey = NULL; }
done:
    EVP_PKEY_CTX_free(check);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

/** Builds an Ed25519/Ed448 public key from its raw octets. */
static inline EVP_PKEY *copenssl_raw_public_key(const char *type, const unsigned char *raw, size_t len) {
    return EVP_PKEY_new_raw_public_key_ex(NULL, type, NULL, raw, len);
}

/** Converts a JWS ECDSA signature (R || S, each `len / 2` octets) into DER for OpenSSL, using
 *  ECDSA_SIG so the encoding is always minimal. Writes at most `cap` octets to `out`; returns the
 *  DER length, or 0 on failure. */
static inline size_t copenssl_ecdsa_raw_to_der(const unsigned char *raw, size_t len, unsigned char *out, size_t cap) {
    size_t result = 0;
    if (len == 0 || len % 2 != 0) return 0;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, (int)(len / 2), NULL);
    BIGNUM *s = BN_bin2bn(raw + len / 2, (int)(len / 2), NULL);
    if (sig == NULL || r == NULL || s == NULL) goto done;
    if (!ECDSA_SIG_set0(sig, r, s)) goto done;
    r = NULL; /* owned by sig now */
    s = NULL;
    int needed = i2d_ECDSA_SIG(sig, NULL);
    if (needed <= 0 || (size_t)needed > cap) goto done;
    unsigned char *p = out;
    if (i2d_ECDSA_SIG(sig, &p) == needed) result = (size_t)needed;
done:
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return result;
}

/** Converts a DER ECDSA signature into R || S with each half `half` octets (for signing). */
static inline int copenssl_ecdsa_der_to_raw(const unsigned char *der, size_t len, unsigned char *out, size_t half) {
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    if (sig == NULL) return 0;
    const BIGNUM *r = ECDSA_SIG_get0_r(sig);
    const BIGNUM *s = ECDSA_SIG_get0_s(sig);
    int ok = BN_bn2binpad(r, out, (int)half) == (int)half && BN_bn2binpad(s, out + half, (int)half) == (int)half;
    ECDSA_SIG_free(sig);
    return ok;
}

/** The public key of the first PEM certificate in `pem` (+1 reference), or NULL. */
static inline EVP_PKEY *copenssl_certificate_public_key(const void *pem, size_t len) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) return NULL;
    X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (cert == NULL) return NULL;
    EVP_PKEY *key = X509_get_pubkey(cert);
    X509_free(cert);
    return key;
}

/** Writes a private key as PKCS#8 PEM into `out` (up to `cap` octets); returns the length, 0 on failure. */
static inline size_t copenssl_private_key_pem(EVP_PKEY *pkey, unsigned char *out, size_t cap) {
    BIO *bio = BIO_new(BIO_s_mem());
    size_t result = 0;
    if (bio == NULL) return 0;
    if (PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long len = BIO_get_mem_data(bio, &data);
        if (len > 0 && (size_t)len <= cap) {
            memcpy(out, data, (size_t)len);
            result = (size_t)len;
        }
    }
    BIO_free(bio);
    return result;
}

/** Generates an RSA key of `bits` bits with the big-endian public exponent `e` (tests,
 *  benchmarks, sample data). */
static inline EVP_PKEY *copenssl_generate_rsa(unsigned int bits, const unsigned char *e, size_t e_len) {
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_len, NULL);
    if (ctx != NULL && exponent != NULL && EVP_PKEY_keygen_init(ctx) == 1 && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits) == 1 &&
        EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx, exponent) == 1 && EVP_PKEY_keygen(ctx, &pkey) != 1)
        pkey = NULL;
    BN_free(exponent);
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/** Generates an EC key on the named group (tests, benchmarks, sample data). */
static inline EVP_PKEY *copenssl_generate_ec(const char *group) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", group); }

/** Generates an Ed25519 key (tests, benchmarks). */
static inline EVP_PKEY *copenssl_generate_ed25519(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"); }

/** Reads a PEM private key (PKCS#8 or traditional) from memory. */
static inline EVP_PKEY *copenssl_read_private_key_pem(const void *pem, size_t len) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) return NULL;
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return pkey;
}

/** Reads a big-number parameter of a key as big-endian octets padded to `len` (0: minimal). Returns
 *  the number of octets written, 0 on failure. */
static inline size_t copenssl_get_bn_param(const EVP_PKEY *pkey, const char *name, unsigned char *out, size_t cap) {
    BIGNUM *bn = NULL;
    size_t result = 0;
    if (!EVP_PKEY_get_bn_param(pkey, name, &bn)) return 0;
    int n = BN_num_bytes(bn);
    if (n >= 0 && (size_t)n <= cap) result = (size_t)BN_bn2bin(bn, out);
    BN_free(bn);
    return result;
}

/** Reads an octet-string parameter of a key (e.g. an EC public point). */
static inline size_t copenssl_get_octet_param(const EVP_PKEY *pkey, const char *name, unsigned char *out, size_t cap) {
    size_t len = 0;
    if (!EVP_PKEY_get_octet_string_param(pkey, name, out, cap, &len)) return 0;
    return len;
}

/** Sets RSA padding on a signature context (the macro-free 3.0 function, declared here for clarity). */
static inline int copenssl_set_rsa_padding(EVP_PKEY_CTX *ctx, int padding) { return EVP_PKEY_CTX_set_rsa_padding(ctx, padding); }

static inline int copenssl_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int len) { return EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, len); }

static inline int copenssl_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) { return EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md); }

#endif
