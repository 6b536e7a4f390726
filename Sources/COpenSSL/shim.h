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
#include <openssl/x509v3.h>
#include <openssl/objects.h>
#include <openssl/ocsp.h>
#include <openssl/http.h>
#include <string.h>
#include <time.h>
#include <stdio.h>

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

/* ---- X.509 chains (App Store signed data: leaf <- intermediate <- a pinned root) ---- */

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

static inline int copenssl_asn1_time_seconds(const ASN1_TIME *time, int64_t *out) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (time == NULL || ASN1_TIME_to_tm(time, &tm) != 1) return 0;
    *out = (int64_t)timegm(&tm);
    return 1;
}

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
    if (!copenssl_has_extension(leaf, leaf_oid)) { status = COPENSSL_CHAIN_LEAF_EXTENSION; result->depth = 0; goto done; }
    if (!copenssl_has_extension(ca, ca_oid)) { status = COPENSSL_CHAIN_CA_EXTENSION; result->depth = 1; goto done; }
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

/** What an OCSP responder said of a certificate. */
enum copenssl_ocsp_status {
    COPENSSL_OCSP_GOOD = 0,
    COPENSSL_OCSP_REVOKED = 1,
    COPENSSL_OCSP_UNKNOWN = 2,      /* the responder does not know the certificate */
    COPENSSL_OCSP_UNAVAILABLE = 3,  /* no answer that can be trusted: no responder, unreachable, unsigned, stale */
};

/** Asks the OCSP responder named in `cert`'s Authority Information Access about `cert`, issued by
 *  `issuer` (both DER), within `timeout` seconds; the response must be signed by the issuer (or a
 *  responder it delegated to) and current. Writes what went wrong into `detail` (up to `cap`).
 *  Every object made here is freed here. */
static inline int copenssl_ocsp_status(const unsigned char *cert_der, size_t cert_len, const unsigned char *issuer_der,
                                       size_t issuer_len, X509_STORE *store, int timeout, char *detail, size_t cap) {
    int status = COPENSSL_OCSP_UNAVAILABLE;
    X509 *cert = copenssl_x509_from_der(cert_der, cert_len);
    X509 *issuer = copenssl_x509_from_der(issuer_der, issuer_len);
    STACK_OF(OPENSSL_STRING) *urls = NULL;
    char *host = NULL, *port = NULL, *path = NULL;
    int use_ssl = 0;
    OCSP_REQUEST *request = NULL;
    OCSP_CERTID *wanted = NULL;
    BIO *body = NULL, *answer = NULL;
    OCSP_RESPONSE *response = NULL;
    OCSP_BASICRESP *basic = NULL;
    STACK_OF(X509) *signers = NULL;
    snprintf(detail, cap, "%s", "no OCSP answer");
    if (cert == NULL || issuer == NULL) goto done;
    urls = X509_get1_ocsp(cert);
    if (urls == NULL || sk_OPENSSL_STRING_num(urls) == 0) {
        snprintf(detail, cap, "%s", "the certificate names no OCSP responder");
        goto done;
    }
    const char *url = sk_OPENSSL_STRING_value(urls, 0);
    if (OSSL_HTTP_parse_url(url, &use_ssl, NULL, &host, &port, NULL, &path, NULL, NULL) != 1) {
        snprintf(detail, cap, "%s", "the OCSP responder's URL does not parse");
        goto done;
    }
    request = OCSP_REQUEST_new();
    OCSP_CERTID *id = OCSP_cert_to_id(NULL, cert, issuer);
    wanted = OCSP_cert_to_id(NULL, cert, issuer);
    if (request == NULL || id == NULL || wanted == NULL || OCSP_request_add0_id(request, id) == NULL) {
        OCSP_CERTID_free(id);
        goto done;
    }
    body = ASN1_item_i2d_mem_bio(ASN1_ITEM_rptr(OCSP_REQUEST), (const ASN1_VALUE *)request);
    if (body == NULL) goto done;
    answer = OSSL_HTTP_transfer(NULL, host, port, path, use_ssl, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL,
                                "application/ocsp-request", body, "application/ocsp-response", 1, 1 << 20, timeout, 0);
    if (answer == NULL) {
        snprintf(detail, cap, "the OCSP responder %s did not answer", url);
        goto done;
    }
    response = ASN1_item_d2i_bio(ASN1_ITEM_rptr(OCSP_RESPONSE), answer, NULL);
    if (response == NULL || OCSP_response_status(response) != OCSP_RESPONSE_STATUS_SUCCESSFUL ||
        (basic = OCSP_response_get1_basic(response)) == NULL) {
        snprintf(detail, cap, "the OCSP responder %s gave no usable answer", url);
        goto done;
    }
    signers = sk_X509_new_null();
    if (signers == NULL || !sk_X509_push(signers, issuer)) goto done;
    if (OCSP_basic_verify(basic, signers, store, 0) <= 0) {
        snprintf(detail, cap, "the OCSP answer from %s is not signed by the issuer", url);
        goto done;
    }
    int state = 0, reason = 0;
    ASN1_GENERALIZEDTIME *revoked = NULL, *this_update = NULL, *next_update = NULL;
    if (OCSP_resp_find_status(basic, wanted, &state, &reason, &revoked, &this_update, &next_update) != 1) {
        snprintf(detail, cap, "the OCSP answer from %s says nothing of the certificate", url);
        goto done;
    }
    if (OCSP_check_validity(this_update, next_update, 300, -1) != 1) {
        snprintf(detail, cap, "the OCSP answer from %s is not current", url);
        goto done;
    }
    switch (state) {
    case V_OCSP_CERTSTATUS_GOOD: status = COPENSSL_OCSP_GOOD; snprintf(detail, cap, "%s", "good"); break;
    case V_OCSP_CERTSTATUS_REVOKED: status = COPENSSL_OCSP_REVOKED; snprintf(detail, cap, "revoked (reason %d)", reason); break;
    default: status = COPENSSL_OCSP_UNKNOWN; snprintf(detail, cap, "the OCSP responder %s does not know the certificate", url); break;
    }
done:
    sk_X509_free(signers);
    OCSP_BASICRESP_free(basic);
    OCSP_RESPONSE_free(response);
    BIO_free(answer);
    BIO_free(body);
    OCSP_CERTID_free(wanted);
    OCSP_REQUEST_free(request);
    OPENSSL_free(host);
    OPENSSL_free(port);
    OPENSSL_free(path);
    X509_email_free(urls);
    X509_free(issuer);
    X509_free(cert);
    ERR_clear_error();
    return status;
}

/** Makes a certificate for `key` (its public half) named CN=`common_name`, issued by `issuer`
 *  (DER; NULL: self-signed) and signed with `issuer_key` (SHA-256), valid from `not_before` to
 *  `not_after` (seconds since the epoch), a CA when `is_ca`, carrying the extension `oid` (dotted,
 *  an ASN.1 NULL; NULL for none). Writes the DER into `out` (up to `cap`); returns its length, 0 on
 *  failure. For generated benchmark corpora and tests, never for verification. */
static inline size_t copenssl_make_certificate(EVP_PKEY *key, const char *common_name, const unsigned char *issuer_der,
                                               size_t issuer_len, EVP_PKEY *issuer_key, int64_t not_before, int64_t not_after,
                                               int is_ca, const char *oid, long serial, unsigned char *out, size_t cap) {
    size_t written = 0;
    X509 *cert = X509_new();
    X509 *issuer = issuer_der == NULL ? NULL : copenssl_x509_from_der(issuer_der, issuer_len);
    X509_NAME *name = X509_NAME_new();
    X509_EXTENSION *constraints = NULL, *usage = NULL, *custom = NULL;
    ASN1_OBJECT *object = NULL;
    ASN1_OCTET_STRING *null_der = NULL;
    if (cert == NULL || name == NULL || (issuer_der != NULL && issuer == NULL)) goto done;
    if (X509_set_version(cert, 2) != 1 || ASN1_INTEGER_set(X509_get_serialNumber(cert), serial) != 1) goto done;
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1) goto done;
    if (X509_set_subject_name(cert, name) != 1 || X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name) != 1) goto done;
    if (ASN1_TIME_set(X509_getm_notBefore(cert), (time_t)not_before) == NULL || ASN1_TIME_set(X509_getm_notAfter(cert), (time_t)not_after) == NULL) goto done;
    if (X509_set_pubkey(cert, key) != 1) goto done;
    constraints = X509V3_EXT_conf_nid(NULL, NULL, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
    usage = X509V3_EXT_conf_nid(NULL, NULL, NID_key_usage, is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
    if (constraints == NULL || usage == NULL || X509_add_ext(cert, constraints, -1) != 1 || X509_add_ext(cert, usage, -1) != 1) goto done;
    if (oid != NULL) {
        static const unsigned char asn1_null[2] = {0x05, 0x00};
        object = OBJ_txt2obj(oid, 1);
        null_der = ASN1_OCTET_STRING_new();
        if (object == NULL || null_der == NULL || ASN1_OCTET_STRING_set(null_der, asn1_null, 2) != 1) goto done;
        custom = X509_EXTENSION_create_by_OBJ(NULL, object, 0, null_der);
        if (custom == NULL || X509_add_ext(cert, custom, -1) != 1) goto done;
    }
    if (X509_sign(cert, issuer_key, EVP_sha256()) <= 0) goto done;
    int need = i2d_X509(cert, NULL);
    if (need > 0 && (size_t)need <= cap) {
        unsigned char *p = out;
        written = (size_t)i2d_X509(cert, &p);
    }
done:
    X509_EXTENSION_free(custom);
    X509_EXTENSION_free(usage);
    X509_EXTENSION_free(constraints);
    ASN1_OCTET_STRING_free(null_der);
    ASN1_OBJECT_free(object);
    X509_NAME_free(name);
    X509_free(issuer);
    X509_free(cert);
    ERR_clear_error();
    return written;
}

#endif
