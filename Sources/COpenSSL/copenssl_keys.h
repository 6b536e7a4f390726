/* Keys: public keys from JWK members or a certificate, a private key from PEM, and a key's
 * parameters read back as octets. */
#ifndef COPENSSL_KEYS_H
#define COPENSSL_KEYS_H

#include "copenssl_base.h"
#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

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

/** Reads a PEM private key (PKCS#8 or traditional) from memory. */
static inline EVP_PKEY *copenssl_read_private_key_pem(const void *pem, size_t len) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) return NULL;
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return pkey;
}

/** Reads a big-number parameter of a key as minimal big-endian octets into `out` (up to `cap`).
 *  Returns the number of octets written, 0 on failure. */
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

#endif
