/*
 * Digests as lowercase hexadecimal digits: every hexdigest of both bridges,
 * and a column's whole run of them (hex.h).
 */
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "hex.h"

/* Four bytes as eight hexadecimal digits, in the bytes of a 64-bit word
 * (little-endian: the first digit in the lowest byte), by arithmetic on all
 * eight at once: no table, no branch. */
static inline uint64_t hex8(uint32_t four) {
    uint64_t x = four; /* byte k of the input in bits 8k .. 8k+7 */
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    x = (x | x << 8) & 0x00FF00FF00FF00FFull; /* byte k in the low half of 16-bit lane k */
    const uint64_t low = 0x000F000F000F000Full;
    x = ((x >> 4) & low) | ((x & low) << 8); /* lane k: its high nibble, then its low one */
    /* a nibble n becomes '0' + n, or 'a' + n - 10 from 10 on (+39 more) */
    const uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
    return x + 0x3030303030303030ull + letters * 39;
}

#if defined(__SSE2__)
/* Sixteen bytes as 32 digits in SSE2 (the x86-64 baseline): the nibbles
 * interleaved, then '0' + n, and 39 more where n > 9; stored straight to
 * memory past the cache if `stream` (out 16-byte aligned). */
static inline void hex16(const unsigned char *in, char *out, int stream) {
    const __m128i x = _mm_loadu_si128((const __m128i *)in), low = _mm_set1_epi8(15);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), low), lo = _mm_and_si128(x, low);
    __m128i a = _mm_unpacklo_epi8(hi, lo), b = _mm_unpackhi_epi8(hi, lo);
    const __m128i nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0'), more = _mm_set1_epi8(39);
    a = _mm_add_epi8(_mm_add_epi8(a, zero), _mm_and_si128(_mm_cmpgt_epi8(a, nine), more));
    b = _mm_add_epi8(_mm_add_epi8(b, zero), _mm_and_si128(_mm_cmpgt_epi8(b, nine), more));
    if (stream) {
        _mm_stream_si128((__m128i *)out, a);
        _mm_stream_si128((__m128i *)(out + 16), b);
    } else {
        _mm_storeu_si128((__m128i *)out, a);
        _mm_storeu_si128((__m128i *)(out + 16), b);
    }
}
#endif

void vn_hex(const unsigned char *in, size_t size, char *out) {
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= size; i += 16) hex16(in + i, out + 2 * i, 0);
#endif
    for (; i + 4 <= size; i += 4) {
        uint32_t four;
        memcpy(&four, in + i, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        four = __builtin_bswap32(four);
#endif
        uint64_t digits = hex8(four);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        digits = __builtin_bswap64(digits);
#endif
        memcpy(out + 2 * i, &digits, 8);
    }
    static const char digits[] = "0123456789abcdef";
    for (; i < size; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
}

void vn_hex_many(const unsigned char *in, size_t size, size_t count, char *out) {
#if defined(__SSE2__)
    /* a column's digests: too many for the cache, written past it (no read of
     * each line before it is written). The digests lie one after another, and
     * so do their digits: the hex of the whole run, 16 bytes at a time
     * whatever the digest's size (20, 28, 48 as well), the last few by vn_hex. */
    if ((uintptr_t)out % 16 == 0) {
        const size_t total = count * size, whole = total / 16 * 16;
        for (size_t i = 0; i < whole; i += 16) hex16(in + i, out + 2 * i, 1);
        _mm_sfence();
        vn_hex(in + whole, total - whole, out + 2 * whole);
        return;
    }
#endif
    for (size_t k = 0; k < count; k++) vn_hex(in + k * size, size, out + 2 * k * size);
}
