/* X.509 chains (App Store signed data: leaf <- intermediate <- a pinned root): certificates from
 * PEM or DER, a store of trust anchors, and the one path validation made against it. */
#ifndef COPENSSL_X509_H
#define COPENSSL_X509_H

#include "copenssl_base.h"
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdint.h>
#include <time.h>

/** Parses one DER certificate that must fill `len` octets exactly (+1 reference), or NULL. */
static inline X509 *copenssl_x509_from_der(const unsigned char *der, size_t len) {
    const unsigned char *p = der;
    X509 *cert = d2i_X509(NULL, &p, (long)len);
    if (cert != NULL && p != der + len) {
        X509_free(cert);
        return NULL;
    }
    return cert;
}

/** Reads one certificate given as PEM or DER into `out` as DER (up to `cap` octets); returns the
 *  DER length, 0 when it is neither (or longer than `cap`). */
static inline size_t copenssl_certificate_der(const void *data, size_t len, unsigned char *out, size_t cap) {
    X509 *cert = NULL;
    BIO *bio = BIO_new_mem_buf(data, (int)len);
    if (bio != NULL) {
        cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        BIO_free(bio);
    }
    if (cert == NULL) {
        ERR_clear_error();
        cert = copenssl_x509_from_der(data, len);
    }
    if (cert == NULL) return 0;
    int need = i2d_X509(cert, NULL);
    size_t written = 0;
    if (need > 0 && (size_t)need <= cap) {
        unsigned char *p = out;
        written = (size_t)i2d_X509(cert, &p);
    }
    X509_free(cert);
    return written;
}

/** A store of trust anchors, empty (+1), or NULL. */
static inline X509_STORE *copenssl_x509_store_new(void) { return X509_STORE_new(); }
/** Frees a store made by copenssl_x509_store_new. */
static inline void copenssl_x509_store_free(X509_STORE *store) { X509_STORE_free(store); }

/** Adds the DER certificate to `store` as a trust anchor; 1 on success. */
static inline int copenssl_x509_store_add_der(X509_STORE *store, const unsigned char *der, size_t len) {
    X509 *cert = copenssl_x509_from_der(der, len);
    if (cert == NULL) return 0;
    int ok = X509_STORE_add_cert(store, cert);
    X509_free(cert);
    return ok;
}

/** What ``copenssl_verify_chain`` found. */
enum copenssl_chain_status {
    COPENSSL_CHAIN_OK = 0,
    COPENSSL_CHAIN_NOT_DER = 1,          /* a certificate is not one DER certificate */
    COPENSSL_CHAIN_UNTRUSTED = 2,        /* X.509 path validation failed (error code in `x509_error`) */
    COPENSSL_CHAIN_LEAF_EXTENSION = 3,   /* the leaf lacks the required extension */
    COPENSSL_CHAIN_CA_EXTENSION = 4,     /* the intermediate lacks the required extension */
    COPENSSL_CHAIN_SHAPE = 5,            /* the validated path is not leaf, intermediate, root */
    COPENSSL_CHAIN_LEAF_KEY = 6,         /* the leaf's key is not a P-256 key */
    COPENSSL_CHAIN_FAILURE = 7,          /* out of memory or an OpenSSL failure */
};

struct copenssl_chain_result {
    /** The leaf's public key (+1) when the status is OK; the caller frees it. */
    EVP_PKEY *leaf_key;
    /** The X509_V_ERR_* code of an UNTRUSTED status. */
    int x509_error;
    /** Which certificate it concerns (0 leaf, 1 intermediate, 2 root), when known. */
    int depth;
    /** The seconds since the epoch within which all three certificates are valid (OK only). */
    int64_t valid_from;
    int64_t valid_until;
    /** The anchor the path ended at, DER (OK only; the caller frees it with copenssl_free). */
    unsigned char *root_der;
    int root_len;
};

/** `time` as seconds since the epoch into `out`; 0 when it does not convert. */
static inline int copenssl_asn1_time_seconds(const ASN1_TIME *time, int64_t *out) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (time == NULL || ASN1_TIME_to_tm(time, &tm) != 1) return 0;
    *out = (int64_t)timegm(&tm);
    return 1;
}

/** Whether `cert` carries the extension with the dotted OID `oid`. */
static inline int copenssl_has_extension(X509 *cert, const char *oid) {
    ASN1_OBJECT *object = OBJ_txt2obj(oid, 1);
    if (object == NULL) return 0;
    int found = X509_get_ext_by_OBJ(cert, object, -1) >= 0;
    ASN1_OBJECT_free(object);
    return found;
}

/** Validates `leaf` <- `intermediate` <- a trust anchor of `store` with OpenSSL's X.509
 *  verification, every check but the certificates' validity periods (the caller judges them from
 *  `valid_from`/`valid_until` at its evaluation time), the intermediate the only untrusted
 *  certificate offered; then requires the path to be exactly those three, the leaf to carry
 *  `leaf_oid` and the intermediate `ca_oid` (dotted OIDs), and the leaf key to be P-256. Every
 *  object made here is freed here; `result->leaf_key` is the caller's on OK. */
static inline int copenssl_verify_chain(X509_STORE *store, const unsigned char *leaf_der, size_t leaf_len,
                                        const unsigned char *ca_der, size_t ca_len, const char *leaf_oid,
                                        const char *ca_oid, struct copenssl_chain_result *result) {
    memset(result, 0, sizeof *result);
    X509 *leaf = copenssl_x509_from_der(leaf_der, leaf_len);
    X509 *ca = copenssl_x509_from_der(ca_der, ca_len);
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int status = COPENSSL_CHAIN_FAILURE;
    if (leaf == NULL || ca == NULL) {
        status = COPENSSL_CHAIN_NOT_DER;
        result->depth = leaf == NULL ? 0 : 1;
        goto done;
    }
    if (untrusted == NULL || ctx == NULL || !sk_X509_push(untrusted, ca)) goto done;
    if (X509_STORE_CTX_init(ctx, store, leaf, untrusted) != 1) goto done;
    /* The validity periods are judged by the caller, at the evaluation time. */
    X509_VERIFY_PARAM_set_flags(X509_STORE_CTX_get0_param(ctx), X509_V_FLAG_NO_CHECK_TIME);
    if (X509_verify_cert(ctx) != 1) {
        status = COPENSSL_CHAIN_UNTRUSTED;
        result->x509_error = X509_STORE_CTX_get_error(ctx);
        result->depth = X509_STORE_CTX_get_error_depth(ctx);
        goto done;
    }
    STACK_OF(X509) *path = X509_STORE_CTX_get0_chain(ctx);
    if (path == NULL || sk_X509_num(path) != 3 || X509_cmp(sk_X509_value(path, 0), leaf) != 0 ||
        X509_cmp(sk_X509_value(path, 1), ca) != 0) {
        status = COPENSSL_CHAIN_SHAPE;
        goto done;
    }
    if (!copenssl_has_extension(leaf, leaf_oid)) {
        status = COPENSSL_CHAIN_LEAF_EXTENSION;
        result->depth = 0;
        goto done;
    }
    if (!copenssl_has_extension(ca, ca_oid)) {
        status = COPENSSL_CHAIN_CA_EXTENSION;
        result->depth = 1;
        goto done;
    }
    int64_t from = INT64_MIN, until = INT64_MAX;
    for (int i = 0; i < 3; i++) {
        X509 *cert = sk_X509_value(path, i);
        int64_t before, after;
        if (!copenssl_asn1_time_seconds(X509_get0_notBefore(cert), &before) ||
            !copenssl_asn1_time_seconds(X509_get0_notAfter(cert), &after)) goto done;
        if (before > from) from = before;
        if (after < until) until = after;
    }
    EVP_PKEY *key = X509_get_pubkey(leaf);
    if (key == NULL || EVP_PKEY_is_a(key, "EC") != 1 || EVP_PKEY_get_bits(key) != 256) {
        EVP_PKEY_free(key);
        status = COPENSSL_CHAIN_LEAF_KEY;
        goto done;
    }
    char group[32] = {0};
    size_t group_len = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &group_len) != 1 ||
        strcmp(group, "prime256v1") != 0) {
        EVP_PKEY_free(key);
        status = COPENSSL_CHAIN_LEAF_KEY;
        goto done;
    }
    unsigned char *root_der = NULL;
    int root_len = i2d_X509(sk_X509_value(path, 2), &root_der);
    if (root_len <= 0) {
        EVP_PKEY_free(key);
        goto done;
    }
    result->root_der = root_der;
    result->root_len = root_len;
    result->leaf_key = key;
    result->valid_from = from;
    result->valid_until = until;
    status = COPENSSL_CHAIN_OK;
done:
    X509_STORE_CTX_free(ctx);
    sk_X509_free(untrusted);
    X509_free(ca);
    X509_free(leaf);
    ERR_clear_error();
    return status;
}

/** The words OpenSSL has for an X509_V_ERR_* code. */
static inline const char *copenssl_x509_error_string(int code) { return X509_verify_cert_error_string(code); }

#endif
