/* OpenSSL 3 (libcrypto), as JWTVerify sees it: what every header of this module shares.
 *
 * - Deprecated 1.x APIs are hidden, so using one is a compile error.
 * - Swift cannot import function-like macros or variadic functions, and Swift strings bridged to
 *   `const char *` live only for one call. Every sequence whose pointers must outlive a single call
 *   (OSSL_PARAM_BLD key building, i2d output) is therefore done in C, behind one prefixed static
 *   inline function that frees everything it allocated on every path.
 * - One header per concern, listed by module.modulemap: keys, signatures, X.509 chains, OCSP
 *   messages, and (an explicit submodule, for tests and tooling only) key making. No header speaks
 *   to the network: an OCSP exchange goes through the transport the caller injects. */
#ifndef COPENSSL_BASE_H
#define COPENSSL_BASE_H

#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <string.h>

#if OPENSSL_VERSION_NUMBER < 0x30000000L /* 0xMNN00PP0L: 3.0.0 */
#error "JWTVerify needs OpenSSL >= 3.0"
#endif

/** Frees what OpenSSL allocated and handed over (i2d output, strings). */
static inline void copenssl_free(void *p) { OPENSSL_free(p); }

#endif
