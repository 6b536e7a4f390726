/* Bulk SIMD passes for the byte loops every token goes through: reading JSON strings (and
 * writing them), finding the extent of base64url text and decoding it. Most passes handle whole
 * blocks only and stop at the first block that needs a closer look; the Swift caller
 * (JSONStringBytes, Base64URL) finishes byte by byte. The one exception marks, in one pass over
 * a short document, every byte a JSON string may not hold as plain (jwtv_json_special_masks),
 * so that the scanner finds where each string ends without reading it; its scalar form is the
 * reference the SIMD forms are tested against.
 *
 * On x86-64 the scans use SSE2 (always present there), the JSON scans 64 octets at a time with
 * AVX2 or AVX-512BW when the CPU has it, and the base64url scan and decoding AVX-512 VBMI (64
 * characters a block) or AVX2 (32). Elsewhere the block passes return 0 and the Swift loops do all the work;
 * the masks are made one octet at a time. */
#ifndef JWTV_BYTE_KERNELS_H
#define JWTV_BYTE_KERNELS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* memmem */
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** What JSON text escapes: bytes below 0x20, the quote, the backslash and DEL. */
#define JWTV_JSON_ESCAPE 0
/** The escape bytes plus every byte of 0x80 and above: what the scanner does not read as plain. */
#define JWTV_JSON_SPECIAL 1

/** The length of the longest prefix of `bytes` made of whole 16-octet blocks none of which holds
 *  a byte of the `stop` kind (JWTV_JSON_ESCAPE or JWTV_JSON_SPECIAL): a multiple of 16, at most
 *  `count`. The first stop byte, if any, lies at or after the returned offset. */
size_t jwtv_json_plain_blocks(const void *bytes, size_t count, int stop);

/** Marks every octet the scanner does not read as plain inside a string (JWTV_JSON_SPECIAL: the
 *  quote, the backslash, bytes below 0x20, DEL and bytes of 0x80 and up): bit k of masks[w] is set
 *  when octet 64·w + k of `bytes` is one. Fills (count + 63) / 64 words; bits past `count` are
 *  clear. Reads no octet past `count`. */
void jwtv_json_special_masks(const void *bytes, size_t count, uint64_t *masks);

/** The instruction sets jwtv_json_special_masks_using can be asked for (tests compare them). */
#define JWTV_ISA_SCALAR 0
#define JWTV_ISA_AVX2 1
#define JWTV_ISA_AVX512 2

/** jwtv_json_special_masks with the given instruction set; -1 (and nothing written) when this CPU
 *  or build lacks it. */
int jwtv_json_special_masks_using(const void *bytes, size_t count, uint64_t *masks, int isa);

/** Decodes the longest prefix of `input` made of whole 32-character blocks of the base64url
 *  alphabet (A-Z a-z 0-9 - _) into `output` (24 octets per block; 64-character blocks of 48
 *  octets first where the CPU has AVX-512 VBMI). Returns the number of characters decoded, a
 *  multiple of 32 that leaves at least one character of `count` over (so the caller always
 *  decodes the final quantum itself), or -1 when a block holds a byte outside the alphabet. */
ptrdiff_t jwtv_base64url_decode_blocks(const void *input, size_t count, void *output);

/** The length of the longest prefix of `bytes` made of whole 16-octet blocks of base64url
 *  characters (A-Z a-z 0-9 - _): a multiple of 16, at most `count`. */
size_t jwtv_base64url_run_blocks(const void *bytes, size_t count);

/** libc's memmem, which Swift's Glibc module leaves out (a GNU extension). */
static inline void *jwtv_memmem(const void *haystack, size_t count, const void *needle, size_t needle_count) {
    return memmem(haystack, count, needle, needle_count);
}

#endif
