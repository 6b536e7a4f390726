/* jansson, as JWTVerify sees it.
 *
 * Swift cannot import function-like macros (json_typeof, json_is_*, json_decref, ...), so each one
 * the library needs is re-declared here as a small prefixed static inline function. */
#ifndef CJANSSON_SHIM_H
#define CJANSSON_SHIM_H

#include <jansson.h>

#if JANSSON_VERSION_HEX < 0x020b00
#error "JWTVerify needs jansson >= 2.11"
#endif

/** The type tag of a (non-NULL) value: JSON_OBJECT, JSON_ARRAY, JSON_STRING, ... */
static inline json_type cjansson_typeof(const json_t *json) { return json_typeof(json); }

/** Drops one reference (json_decref is a macro). */
static inline void cjansson_decref(json_t *json) { json_decref(json); }

/** Flags every parse in JWTVerify uses: duplicate member names are an error at every depth,
 *  escaped NUL (\u0000) is a valid character (strings then carry an explicit length). */
static inline size_t cjansson_strict_flags(void) { return JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL; }

/** The strict flags, with every integer read as a double: for a document that holds an integer
 *  beyond 64 bits, which is valid JSON (RFC 8259) that jansson's integers cannot hold. */
static inline size_t cjansson_wide_number_flags(void) { return cjansson_strict_flags() | JSON_DECODE_INT_AS_REAL; }

/** Whether a parse failed on an integer beyond 64 bits (jansson's numeric overflow). */
static inline int cjansson_failed_on_overflow(const json_error_t *error) { return json_error_code(error) == json_error_numeric_overflow; }

/** Flags for echoing a caller's value back (compact, any top-level type). */
static inline size_t cjansson_dump_flags(void) { return JSON_COMPACT | JSON_ENCODE_ANY; }

/** jansson allocates dump output with its own allocator. */
static inline void cjansson_free(void *p) { json_free_t f; json_get_alloc_funcs(NULL, &f); f(p); }

#endif
