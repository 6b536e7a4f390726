/* Signatures: the ECDSA encodings JWS and OpenSSL use, and the RSA padding a signature context
 * takes (the macro-free 3.0 setters, declared here so Swift sees them). */
#ifndef COPENSSL_SIGNATURES_H
#define COPENSSL_SIGNATURES_H

#include "copenssl_base.h"
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>

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

/** Sets RSA padding on a signature context. */
static inline int copenssl_set_rsa_padding(EVP_PKEY_CTX *ctx, int padding) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, padding);
}

/** Sets the RSA-PSS salt length on a signature context. */
static inline int copenssl_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int len) {
    return EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, len);
}

/** Sets the RSA-PSS MGF1 digest on a signature context. */
static inline int copenssl_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) {
    return EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md);
}

#endif
