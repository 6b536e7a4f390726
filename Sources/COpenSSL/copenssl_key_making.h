/* Key making, for tests, benchmarks and sample data: key generation, PKCS#8 export and
 * certificate minting. An explicit submodule (`import COpenSSL.KeyMaking`): JWTVerify, which
 * makes no keys, does not see it. */
#ifndef COPENSSL_KEY_MAKING_H
#define COPENSSL_KEY_MAKING_H

#include "copenssl_x509.h"
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

/** Writes a private key as PKCS#8 PEM into `out` (up to `cap` octets); returns the length, 0 on
 *  failure. */
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
    if (ctx != NULL && exponent != NULL && EVP_PKEY_keygen_init(ctx) == 1 &&
        EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits) == 1 &&
        EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx, exponent) == 1 && EVP_PKEY_keygen(ctx, &pkey) != 1)
        pkey = NULL;
    BN_free(exponent);
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/** Generates an EC key on the named group (tests, benchmarks, sample data). */
static inline EVP_PKEY *copenssl_generate_ec(const char *group) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", group);
}

/** Generates an Ed25519 key (tests, benchmarks). */
static inline EVP_PKEY *copenssl_generate_ed25519(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"); }

/** Makes a certificate for `key` (its public half) named CN=`common_name`, issued by `issuer`
 *  (DER; NULL: self-signed) and signed with `issuer_key` (SHA-256), valid from `not_before` to
 *  `not_after` (seconds since the epoch), a CA when `is_ca`, carrying the extension `oid` (dotted,
 *  an ASN.1 NULL; NULL for none). Writes the DER into `out` (up to `cap`); returns its length, 0 on
 *  failure. For generated benchmark corpora and tests, never for verification. */
static inline size_t copenssl_make_certificate(EVP_PKEY *key, const char *common_name,
                                               const unsigned char *issuer_der, size_t issuer_len, EVP_PKEY *issuer_key,
                                               int64_t not_before, int64_t not_after, int is_ca, const char *oid,
                                               long serial, unsigned char *out, size_t cap) {
    size_t written = 0;
    X509 *cert = X509_new();
    X509 *issuer = issuer_der == NULL ? NULL : copenssl_x509_from_der(issuer_der, issuer_len);
    X509_NAME *name = X509_NAME_new();
    X509_EXTENSION *constraints = NULL, *usage = NULL, *custom = NULL;
    ASN1_OBJECT *object = NULL;
    ASN1_OCTET_STRING *null_der = NULL;
    if (cert == NULL || name == NULL || (issuer_der != NULL && issuer == NULL)) goto done;
    if (X509_set_version(cert, 2) != 1 || ASN1_INTEGER_set(X509_get_serialNumber(cert), serial) != 1) goto done;
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1)
        goto done;
    if (X509_set_subject_name(cert, name) != 1 ||
        X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name) != 1)
        goto done;
    if (ASN1_TIME_set(X509_getm_notBefore(cert), (time_t)not_before) == NULL ||
        ASN1_TIME_set(X509_getm_notAfter(cert), (time_t)not_after) == NULL)
        goto done;
    if (X509_set_pubkey(cert, key) != 1) goto done;
    constraints = X509V3_EXT_conf_nid(NULL, NULL, NID_basic_constraints,
                                      is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
    usage = X509V3_EXT_conf_nid(NULL, NULL, NID_key_usage,
                                is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
    if (constraints == NULL || usage == NULL || X509_add_ext(cert, constraints, -1) != 1 ||
        X509_add_ext(cert, usage, -1) != 1)
        goto done;
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
