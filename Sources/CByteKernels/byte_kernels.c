/* See include/byte_kernels.h. */
#include "byte_kernels.h"

#include <string.h>

/* One octet at a time: the reference the SIMD forms must equal, and the form for other CPUs. */
static void special_masks_scalar(const uint8_t *bytes, size_t count, uint64_t *masks) {
    for (size_t w = 0; w * 64 < count; w++) masks[w] = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t b = bytes[i];
        if (b < 0x20 || b >= 0x7F || b == '"' || b == '\\') masks[i / 64] |= (uint64_t)1 << (i % 64);
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

static size_t json_plain_blocks_sse2(const uint8_t *bytes, size_t count, int stop) {
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i del = _mm_set1_epi8(0x7F);
    const __m128i space = _mm_set1_epi8(0x20);
    const __m128i minus_one = _mm_set1_epi8(-1);
    size_t i = 0;
    while (i + 16 <= count) {
        __m128i block = _mm_loadu_si128((const __m128i *)(bytes + i));
        /* As signed octets, "below 0x20" holds the control bytes and every byte of 0x80 and up. */
        __m128i low = _mm_cmpgt_epi8(space, block);
        if (stop == JWTV_JSON_ESCAPE) low = _mm_and_si128(low, _mm_cmpgt_epi8(block, minus_one));
        __m128i hit = _mm_or_si128(_mm_or_si128(low, _mm_cmpeq_epi8(block, quote)),
                                   _mm_or_si128(_mm_cmpeq_epi8(block, backslash), _mm_cmpeq_epi8(block, del)));
        if (_mm_movemask_epi8(hit) != 0) break;
        i += 16;
    }
    return i;
}

/* The stop bytes of one 32-octet block, as a mask of their lanes. */
__attribute__((target("avx2")))
static inline __m256i json_stops_avx2(__m256i block, int stop) {
    __m256i low = _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), block);
    if (stop == JWTV_JSON_ESCAPE) low = _mm256_and_si256(low, _mm256_cmpgt_epi8(block, _mm256_set1_epi8(-1)));
    return _mm256_or_si256(_mm256_or_si256(low, _mm256_cmpeq_epi8(block, _mm256_set1_epi8('"'))),
                           _mm256_or_si256(_mm256_cmpeq_epi8(block, _mm256_set1_epi8('\\')),
                                           _mm256_cmpeq_epi8(block, _mm256_set1_epi8(0x7F))));
}

/* 64 octets per test while they last (long strings: tokens, signatures), then 16 at a time. */
__attribute__((target("avx2")))
static size_t json_plain_blocks_avx2(const uint8_t *bytes, size_t count, int stop) {
    size_t i = 0;
    while (i + 64 <= count) {
        __m256i first = json_stops_avx2(_mm256_loadu_si256((const __m256i *)(bytes + i)), stop);
        __m256i second = json_stops_avx2(_mm256_loadu_si256((const __m256i *)(bytes + i + 32)), stop);
        if (!_mm256_testz_si256(_mm256_or_si256(first, second), _mm256_set1_epi8(-1))) break;
        i += 64;
    }
    return i + json_plain_blocks_sse2(bytes + i, count - i, stop);
}

size_t jwtv_json_plain_blocks(const void *start, size_t count, int stop) {
    const uint8_t *bytes = start;
    return __builtin_cpu_supports("avx2") ? json_plain_blocks_avx2(bytes, count, stop) : json_plain_blocks_sse2(bytes, count, stop);
}

/* Each octet's 6-bit base64url value, or a value with the high bit set when it is outside the
 * alphabet. The permutation reads only an octet's low seven bits, so an octet of 0x80 and up maps
 * like its low half: callers OR the octet itself in, whose high bit then marks it. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx2")))
static inline __m512i base64url_values_avx512(__m512i block) {
    /* The value of each ASCII character 0-63 and 64-127; 0x80 where it is not base64url. */
    const __m512i low_half = _mm512_set_epi8(
        -128, -128, -128, -128, -128, -128, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52,      /* '0'-'9' */
        -128, -128, 62, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, /* '-' */
        -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
        -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128);
    const __m512i high_half = _mm512_set_epi8(
        -128, -128, -128, -128, -128, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,        /* 'p'-'z' */
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, -128,                /* 'a'-'o' */
        63, -128, -128, -128, -128, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15,          /* 'P'-'Z', '_' */
        14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -128);                         /* 'A'-'O' */
    return _mm512_permutex2var_epi8(low_half, block, high_half);
}

static size_t base64url_run_blocks_sse2(const void *start, size_t count) {
    const uint8_t *bytes = start;
    const __m128i upper_from = _mm_set1_epi8('A' - 1), upper_to = _mm_set1_epi8('Z' + 1);
    const __m128i lower_from = _mm_set1_epi8('a' - 1), lower_to = _mm_set1_epi8('z' + 1);
    const __m128i digit_from = _mm_set1_epi8('0' - 1), digit_to = _mm_set1_epi8('9' + 1);
    const __m128i dash = _mm_set1_epi8('-'), underscore = _mm_set1_epi8('_');
    size_t i = 0;
    while (i + 16 <= count) {
        __m128i block = _mm_loadu_si128((const __m128i *)(bytes + i));
        /* Signed comparisons: octets of 0x80 and up are negative, below every range. */
        __m128i upper = _mm_and_si128(_mm_cmpgt_epi8(block, upper_from), _mm_cmpgt_epi8(upper_to, block));
        __m128i lower = _mm_and_si128(_mm_cmpgt_epi8(block, lower_from), _mm_cmpgt_epi8(lower_to, block));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(block, digit_from), _mm_cmpgt_epi8(digit_to, block));
        __m128i known = _mm_or_si128(_mm_or_si128(upper, lower),
                                     _mm_or_si128(digit, _mm_or_si128(_mm_cmpeq_epi8(block, dash), _mm_cmpeq_epi8(block, underscore))));
        if (_mm_movemask_epi8(known) != 0xFFFF) break;
        i += 16;
    }
    return i;
}

/* 32 octets per test with AVX2, the same ranges as above; the SSE2 pass finds which 16. */
__attribute__((target("avx2")))
static size_t base64url_run_blocks_avx2(const uint8_t *bytes, size_t count) {
    const __m256i upper_from = _mm256_set1_epi8('A' - 1), upper_to = _mm256_set1_epi8('Z' + 1);
    const __m256i lower_from = _mm256_set1_epi8('a' - 1), lower_to = _mm256_set1_epi8('z' + 1);
    const __m256i digit_from = _mm256_set1_epi8('0' - 1), digit_to = _mm256_set1_epi8('9' + 1);
    const __m256i dash = _mm256_set1_epi8('-'), underscore = _mm256_set1_epi8('_');
    size_t i = 0;
    while (i + 32 <= count) {
        __m256i block = _mm256_loadu_si256((const __m256i *)(bytes + i));
        __m256i upper = _mm256_and_si256(_mm256_cmpgt_epi8(block, upper_from), _mm256_cmpgt_epi8(upper_to, block));
        __m256i lower = _mm256_and_si256(_mm256_cmpgt_epi8(block, lower_from), _mm256_cmpgt_epi8(lower_to, block));
        __m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(block, digit_from), _mm256_cmpgt_epi8(digit_to, block));
        __m256i known = _mm256_or_si256(_mm256_or_si256(upper, lower),
                                        _mm256_or_si256(digit, _mm256_or_si256(_mm256_cmpeq_epi8(block, dash),
                                                                               _mm256_cmpeq_epi8(block, underscore))));
        if ((unsigned)_mm256_movemask_epi8(known) != 0xFFFFFFFFu) break;
        i += 32;
    }
    return i + base64url_run_blocks_sse2(bytes + i, count - i);
}

/* 64 octets per test with AVX-512 VBMI: the decoder's permutation (decode_blocks_avx512) maps
 * every octet outside the alphabet to a value with its high bit set; the first such octet's
 * 16-octet block ends the run. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx2")))
static size_t base64url_run_blocks_avx512(const uint8_t *bytes, size_t count) {
    size_t i = 0;
    while (i + 64 <= count) {
        __m512i block = _mm512_loadu_si512((const void *)(bytes + i));
        __mmask64 outside = _mm512_movepi8_mask(_mm512_or_si512(base64url_values_avx512(block), block));
        if (outside != 0) return i + ((size_t)__builtin_ctzll(outside) & ~(size_t)15);
        i += 64;
    }
    return i + base64url_run_blocks_avx2(bytes + i, count - i);
}

size_t jwtv_base64url_run_blocks(const void *start, size_t count) {
    const uint8_t *bytes = start;
    if (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw")) {
        return base64url_run_blocks_avx512(bytes, count);
    }
    return __builtin_cpu_supports("avx2") ? base64url_run_blocks_avx2(bytes, count) : base64url_run_blocks_sse2(bytes, count);
}

/* 32 characters to 24 octets (Muła and Lemire's packing): each character is checked against
 * the five ranges of the alphabet and shifted to its 6-bit value, then pairs and quads of
 * values are merged by multiply-add and the three octets of each quad gathered by shuffles. */
__attribute__((target("avx2")))
static ptrdiff_t decode_blocks_avx2(const uint8_t *input, size_t count, uint8_t *output) {
    const __m256i upper_from = _mm256_set1_epi8('A' - 1), upper_to = _mm256_set1_epi8('Z' + 1);
    const __m256i lower_from = _mm256_set1_epi8('a' - 1), lower_to = _mm256_set1_epi8('z' + 1);
    const __m256i digit_from = _mm256_set1_epi8('0' - 1), digit_to = _mm256_set1_epi8('9' + 1);
    const __m256i dash = _mm256_set1_epi8('-'), underscore = _mm256_set1_epi8('_');
    const __m256i upper_shift = _mm256_set1_epi8(-'A'), lower_shift = _mm256_set1_epi8(26 - 'a');
    const __m256i digit_shift = _mm256_set1_epi8(52 - '0');
    const __m256i dash_shift = _mm256_set1_epi8(62 - '-'), underscore_shift = _mm256_set1_epi8(63 - '_');
    const __m256i pairs = _mm256_set1_epi32(0x01400140);
    const __m256i quads = _mm256_set1_epi32(0x00011000);
    const __m256i gather = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                            2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    size_t i = 0, o = 0;
    /* `<` and not `<=`: the final quantum, whose padding bits need checking, stays with the caller. */
    while (i + 32 < count) {
        __m256i block = _mm256_loadu_si256((const __m256i *)(input + i));
        __m256i upper = _mm256_and_si256(_mm256_cmpgt_epi8(block, upper_from), _mm256_cmpgt_epi8(upper_to, block));
        __m256i lower = _mm256_and_si256(_mm256_cmpgt_epi8(block, lower_from), _mm256_cmpgt_epi8(lower_to, block));
        __m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(block, digit_from), _mm256_cmpgt_epi8(digit_to, block));
        __m256i is_dash = _mm256_cmpeq_epi8(block, dash), is_underscore = _mm256_cmpeq_epi8(block, underscore);
        __m256i known = _mm256_or_si256(_mm256_or_si256(upper, lower), _mm256_or_si256(digit, _mm256_or_si256(is_dash, is_underscore)));
        if ((unsigned)_mm256_movemask_epi8(known) != 0xFFFFFFFFu) return -1;
        __m256i shift = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(upper, upper_shift), _mm256_and_si256(lower, lower_shift)),
            _mm256_or_si256(_mm256_and_si256(digit, digit_shift),
                            _mm256_or_si256(_mm256_and_si256(is_dash, dash_shift), _mm256_and_si256(is_underscore, underscore_shift))));
        __m256i values = _mm256_add_epi8(block, shift);
        __m256i merged = _mm256_madd_epi16(_mm256_maddubs_epi16(values, pairs), quads);
        __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(merged, gather), pack);
        uint8_t octets[32];
        _mm256_storeu_si256((__m256i *)octets, packed);
        memcpy(output + o, octets, 24);
        i += 32;
        o += 24;
    }
    return (ptrdiff_t)i;
}

/* 64 characters to 48 octets with AVX-512 VBMI (Muła and Lemire's AVX-512 decoding): one
 * two-register byte permutation maps each character to its 6-bit value, or to a value with the
 * high bit set when it is outside the alphabet (a character of 0x80 and up keeps its own high
 * bit: the permutation reads only the low seven); the same multiply-adds as above merge the
 * values, and one more permutation packs the 48 octets. Then the AVX2 blocks take what is left. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx2")))
static ptrdiff_t decode_blocks_avx512(const uint8_t *input, size_t count, uint8_t *output) {
    const __m512i pairs = _mm512_set1_epi32(0x01400140);
    const __m512i quads = _mm512_set1_epi32(0x00011000);
    /* Octets 2, 1, 0 of each 32-bit lane, lane after lane: 48 octets; the last 16 are unused. */
    const __m512i pack = _mm512_set_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        60, 61, 62, 56, 57, 58, 52, 53, 54, 48, 49, 50, 44, 45, 46, 40,
        41, 42, 36, 37, 38, 32, 33, 34, 28, 29, 30, 24, 25, 26, 20, 21,
        22, 16, 17, 18, 12, 13, 14, 8, 9, 10, 4, 5, 6, 0, 1, 2);
    size_t i = 0, o = 0;
    while (i + 64 < count) {
        __m512i block = _mm512_loadu_si512((const void *)(input + i));
        __m512i values = base64url_values_avx512(block);
        if (_mm512_movepi8_mask(_mm512_or_si512(values, block)) != 0) return -1;
        __m512i merged = _mm512_madd_epi16(_mm512_maddubs_epi16(values, pairs), quads);
        __m512i packed = _mm512_permutexvar_epi8(pack, merged);
        _mm512_mask_storeu_epi8(output + o, 0x0000FFFFFFFFFFFFull, packed);
        i += 64;
        o += 48;
    }
    ptrdiff_t rest = decode_blocks_avx2(input + i, count - i, output + o);
    return rest < 0 ? -1 : (ptrdiff_t)i + rest;
}

/* The special octets as masks, 64 octets to a word (see jwtv_json_special_masks); with AVX-512BW
 * one masked load takes the last block's tail, which never reads past `count`. */
__attribute__((target("avx512f,avx512bw")))
static void special_masks_avx512(const uint8_t *bytes, size_t count, uint64_t *masks) {
    const __m512i space = _mm512_set1_epi8(0x20), del = _mm512_set1_epi8(0x7F);
    const __m512i quote = _mm512_set1_epi8('"'), backslash = _mm512_set1_epi8('\\');
    for (size_t i = 0, w = 0; i < count; i += 64, w++) {
        size_t left = count - i;
        __mmask64 live = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        __m512i block = _mm512_maskz_loadu_epi8(live, bytes + i);
        __mmask64 hit = _mm512_cmplt_epu8_mask(block, space) | _mm512_cmpge_epu8_mask(block, del)
                        | _mm512_cmpeq_epi8_mask(block, quote) | _mm512_cmpeq_epi8_mask(block, backslash);
        masks[w] = (uint64_t)(hit & live);
    }
}

__attribute__((target("avx2")))
static void special_masks_avx2(const uint8_t *bytes, size_t count, uint64_t *masks) {
    size_t i = 0, w = 0;
    for (; i + 64 <= count; i += 64, w++) {
        uint32_t low = (uint32_t)_mm256_movemask_epi8(json_stops_avx2(_mm256_loadu_si256((const __m256i *)(bytes + i)), JWTV_JSON_SPECIAL));
        uint32_t high = (uint32_t)_mm256_movemask_epi8(json_stops_avx2(_mm256_loadu_si256((const __m256i *)(bytes + i + 32)), JWTV_JSON_SPECIAL));
        masks[w] = (uint64_t)low | (uint64_t)high << 32;
    }
    if (i < count) {
        /* The tail through the same test, from a copy padded with spaces (plain octets). */
        uint8_t tail[64];
        memset(tail, ' ', sizeof tail);
        memcpy(tail, bytes + i, count - i);
        uint32_t low = (uint32_t)_mm256_movemask_epi8(json_stops_avx2(_mm256_loadu_si256((const __m256i *)tail), JWTV_JSON_SPECIAL));
        uint32_t high = (uint32_t)_mm256_movemask_epi8(json_stops_avx2(_mm256_loadu_si256((const __m256i *)(tail + 32)), JWTV_JSON_SPECIAL));
        masks[w] = (uint64_t)low | (uint64_t)high << 32;
    }
}

int jwtv_json_special_masks_using(const void *bytes, size_t count, uint64_t *masks, int isa) {
    switch (isa) {
    case JWTV_ISA_SCALAR: special_masks_scalar(bytes, count, masks); return 0;
    case JWTV_ISA_AVX2:
        if (!__builtin_cpu_supports("avx2")) return -1;
        special_masks_avx2(bytes, count, masks);
        return 0;
    case JWTV_ISA_AVX512:
        if (!__builtin_cpu_supports("avx512bw")) return -1;
        special_masks_avx512(bytes, count, masks);
        return 0;
    default: return -1;
    }
}

void jwtv_json_special_masks(const void *bytes, size_t count, uint64_t *masks) {
    if (__builtin_cpu_supports("avx512bw")) special_masks_avx512(bytes, count, masks);
    else if (__builtin_cpu_supports("avx2")) special_masks_avx2(bytes, count, masks);
    else special_masks_scalar(bytes, count, masks);
}

/* __builtin_cpu_supports reads the CPU model libgcc filled in at start-up: cheap enough for every call. */
ptrdiff_t jwtv_base64url_decode_blocks(const void *input, size_t count, void *output) {
    if (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw")) {
        return decode_blocks_avx512(input, count, output);
    }
    return __builtin_cpu_supports("avx2") ? decode_blocks_avx2(input, count, output) : 0;
}

#else

size_t jwtv_json_plain_blocks(const void *bytes, size_t count, int stop) {
    (void)bytes; (void)count; (void)stop;
    return 0;
}

ptrdiff_t jwtv_base64url_decode_blocks(const void *input, size_t count, void *output) {
    (void)input; (void)count; (void)output;
    return 0;
}

size_t jwtv_base64url_run_blocks(const void *bytes, size_t count) {
    (void)bytes; (void)count;
    return 0;
}

int jwtv_json_special_masks_using(const void *bytes, size_t count, uint64_t *masks, int isa) {
    if (isa != JWTV_ISA_SCALAR) return -1;
    special_masks_scalar(bytes, count, masks);
    return 0;
}

void jwtv_json_special_masks(const void *bytes, size_t count, uint64_t *masks) {
    special_masks_scalar(bytes, count, masks);
}

#endif
