/* OCSP messages, without the exchange: a request for a certificate and its issuer (with a fresh
 * nonce), and the judgment of the DER answer a transport brought back (its signature, its nonce,
 * its freshness, the certificate's status). Nothing here opens a connection: the caller carries
 * the request to the responder the certificate names and hands the answer's octets back. */
#ifndef COPENSSL_OCSP_H
#define COPENSSL_OCSP_H

#include "copenssl_x509.h"
#include <openssl/ocsp.h>
#include <stdio.h>

/** What ``copenssl_ocsp_request_new`` made. */
enum copenssl_ocsp_request_status {
    COPENSSL_OCSP_REQUEST_OK = 0,
    COPENSSL_OCSP_REQUEST_NOT_DER = 1,      /* the certificate or its issuer is not one DER certificate */
    COPENSSL_OCSP_REQUEST_NO_RESPONDER = 2, /* the certificate names no OCSP responder */
    COPENSSL_OCSP_REQUEST_FAILURE = 3,      /* out of memory or an OpenSSL failure */
};

/** An OCSP request and where to send it (OK only; the caller frees both with copenssl_free). */
struct copenssl_ocsp_request {
    /** The request, DER: one certificate ID (SHA-1, as responders expect) and a 16-octet nonce. */
    unsigned char *der;
    int der_len;
    /** The first OCSP responder URL of the certificate's Authority Information Access, NUL-ended. */
    char *responder;
};

/** Builds the OCSP request for `cert` issued by `issuer` (both DER, each filling its length
 *  exactly) into `out`. Every object made here is freed here but what `out` hands over. */
static inline int copenssl_ocsp_request_new(const unsigned char *cert_der, size_t cert_len,
                                            const unsigned char *issuer_der, size_t issuer_len,
                                            struct copenssl_ocsp_request *out) {
    memset(out, 0, sizeof *out);
    int status = COPENSSL_OCSP_REQUEST_FAILURE;
    X509 *cert = copenssl_x509_from_der(cert_der, cert_len);
    X509 *issuer = copenssl_x509_from_der(issuer_der, issuer_len);
    STACK_OF(OPENSSL_STRING) *urls = NULL;
    OCSP_REQUEST *request = NULL;
    OCSP_CERTID *id = NULL;
    unsigned char *der = NULL;
    char *responder = NULL;
    if (cert == NULL || issuer == NULL) {
        status = COPENSSL_OCSP_REQUEST_NOT_DER;
        goto done;
    }
    urls = X509_get1_ocsp(cert);
    if (urls == NULL || sk_OPENSSL_STRING_num(urls) == 0) {
        status = COPENSSL_OCSP_REQUEST_NO_RESPONDER;
        goto done;
    }
    responder = OPENSSL_strdup(sk_OPENSSL_STRING_value(urls, 0));
    request = OCSP_REQUEST_new();
    id = OCSP_cert_to_id(NULL, cert, issuer);
    if (responder == NULL || request == NULL || id == NULL) goto done;
    if (OCSP_request_add0_id(request, id) == NULL) goto done; /* on failure `id` is still ours */
    id = NULL;                                                /* owned by `request` now */
    if (OCSP_request_add1_nonce(request, NULL, -1) != 1) goto done;
    int len = i2d_OCSP_REQUEST(request, &der);
    if (len <= 0) {
        der = NULL;
        goto done;
    }
    out->der = der;
    out->der_len = len;
    out->responder = responder;
    der = NULL; /* handed over */
    responder = NULL;
    status = COPENSSL_OCSP_REQUEST_OK;
done:
    OPENSSL_free(der);
    OPENSSL_free(responder);
    OCSP_CERTID_free(id);
    OCSP_REQUEST_free(request);
    X509_email_free(urls);
    X509_free(issuer);
    X509_free(cert);
    ERR_clear_error();
    return status;
}

/** What an OCSP answer said of a certificate. */
enum copenssl_ocsp_status {
    COPENSSL_OCSP_GOOD = 0,
    COPENSSL_OCSP_REVOKED = 1,
    COPENSSL_OCSP_UNKNOWN = 2,     /* the responder does not know the certificate */
    COPENSSL_OCSP_UNAVAILABLE = 3, /* no answer that can be trusted: not DER, unsigned, replayed, stale */
};

/** Judges `response_der`, the answer to `request_der` (as ``copenssl_ocsp_request_new`` made it)
 *  about `cert` issued by `issuer` (all DER, each filling its length exactly): it must be a
 *  successful basic response signed by the issuer (or a responder it delegated to, chaining to
 *  `store`), carry the request's nonce when it echoes one (a responder may send a pre-produced
 *  answer without any; a different nonce is a replay), be current (thisUpdate not ahead by more
 *  than 5 minutes, nextUpdate not past), and speak of the certificate. Writes what it found into
 *  `detail` (up to `cap`). Every object made here is freed here. */
static inline int copenssl_ocsp_check(const unsigned char *request_der, size_t request_len,
                                      const unsigned char *response_der, size_t response_len,
                                      const unsigned char *cert_der, size_t cert_len,
                                      const unsigned char *issuer_der, size_t issuer_len, X509_STORE *store,
                                      char *detail, size_t cap) {
    int status = COPENSSL_OCSP_UNAVAILABLE;
    X509 *cert = copenssl_x509_from_der(cert_der, cert_len);
    X509 *issuer = copenssl_x509_from_der(issuer_der, issuer_len);
    const unsigned char *p = request_der;
    OCSP_REQUEST *request = d2i_OCSP_REQUEST(NULL, &p, (long)request_len);
    if (request != NULL && p != request_der + request_len) {
        OCSP_REQUEST_free(request);
        request = NULL;
    }
    p = response_der;
    OCSP_RESPONSE *response = response_len == 0 ? NULL : d2i_OCSP_RESPONSE(NULL, &p, (long)response_len);
    if (response != NULL && p != response_der + response_len) {
        OCSP_RESPONSE_free(response);
        response = NULL;
    }
    OCSP_BASICRESP *basic = NULL;
    OCSP_CERTID *wanted = NULL;
    STACK_OF(X509) *signers = NULL;
    snprintf(detail, cap, "%s", "no usable answer");
    if (cert == NULL || issuer == NULL || request == NULL) {
        snprintf(detail, cap, "%s", "the certificates or the request are not DER");
        goto done;
    }
    if (response == NULL) {
        snprintf(detail, cap, "%s", "the answer is not one DER OCSP response");
        goto done;
    }
    int answered = OCSP_response_status(response);
    if (answered != OCSP_RESPONSE_STATUS_SUCCESSFUL) {
        snprintf(detail, cap, "the responder answered %s", OCSP_response_status_str(answered));
        goto done;
    }
    basic = OCSP_response_get1_basic(response);
    if (basic == NULL) {
        snprintf(detail, cap, "%s", "the answer is not a basic OCSP response");
        goto done;
    }
    signers = sk_X509_new_null();
    if (signers == NULL || !sk_X509_push(signers, issuer)) goto done; /* `signers` borrows `issuer` */
    if (OCSP_basic_verify(basic, signers, store, 0) <= 0) {
        snprintf(detail, cap, "%s", "the answer is not signed by the issuer");
        goto done;
    }
    /* 1: the nonce echoed; -1: none echoed (a pre-produced answer); 0: another nonce. */
    if (OCSP_check_nonce(request, basic) == 0) {
        snprintf(detail, cap, "%s", "the answer's nonce is not the request's (a replayed answer)");
        goto done;
    }
    wanted = OCSP_cert_to_id(NULL, cert, issuer);
    int state = 0, reason = 0;
    ASN1_GENERALIZEDTIME *revoked = NULL, *this_update = NULL, *next_update = NULL;
    if (wanted == NULL ||
        OCSP_resp_find_status(basic, wanted, &state, &reason, &revoked, &this_update, &next_update) != 1) {
        snprintf(detail, cap, "%s", "the answer says nothing of the certificate");
        goto done;
    }
    if (OCSP_check_validity(this_update, next_update, 300, -1) != 1) {
        snprintf(detail, cap, "%s", "the answer is not current");
        goto done;
    }
    switch (state) {
    case V_OCSP_CERTSTATUS_GOOD:
        status = COPENSSL_OCSP_GOOD;
        snprintf(detail, cap, "%s", "good");
        break;
    case V_OCSP_CERTSTATUS_REVOKED:
        status = COPENSSL_OCSP_REVOKED;
        snprintf(detail, cap, "revoked (reason %d)", reason);
        break;
    default:
        status = COPENSSL_OCSP_UNKNOWN;
        snprintf(detail, cap, "%s", "the responder does not know the certificate");
        break;
    }
done:
    sk_X509_free(signers);
    OCSP_CERTID_free(wanted);
    OCSP_BASICRESP_free(basic);
    OCSP_RESPONSE_free(response);
    OCSP_REQUEST_free(request);
    X509_free(issuer);
    X509_free(cert);
    ERR_clear_error();
    return status;
}

#endif
