/*
 * SHA-256 for x86-64 with the SHA extensions (SHA-NI).
 *
 * sha256rnds2 does two rounds on the state held as two vectors, ABEF and
 * CDGH, taking the two message words already added to their round constants;
 * sha256msg1 and sha256msg2 compute the message schedule four words at a
 * time. Only this function is compiled for SHA-NI (and SSE4.1, for the
 * shuffles); the dispatcher calls it only where cpuid reports both.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha256_shani.h"

/* Four rounds with message words w (W[4i..4i+3]): two rnds2, each taking two
 * of the four word-plus-constant sums. After them ABEF and CDGH have traded
 * places twice, so each name holds its own half of the state again. */
#define ROUNDS4(w, i)                                                                   \
    do {                                                                                \
        const __m128i wk =                                                              \
            _mm_add_epi32((w), _mm_loadu_si128((const __m128i *)&vn_sha256_k[4 * (i)])); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                   \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));          \
    } while (0)

__attribute__((target("sha,sse4.1"))) void vn_sha256_amd64_shani(uint32_t *state,
                                                                  const unsigned char *data,
                                                                  size_t blocks) {
    /* Big-endian words: reverse the bytes of each 32-bit lane. */
    const __m128i bswap = SHANI_BSWAP;
    /* From (a, b, c, d), (e, f, g, h) to ABEF = (f, e, b, a), CDGH = (h, g, d, c),
     * listed from lane 0. */
    __m128i lo = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0xb1);
    __m128i hi = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state + 4)), 0x1b);
    __m128i abef = _mm_alignr_epi8(lo, hi, 8);
    __m128i cdgh = _mm_blend_epi16(hi, lo, 0xf0);

    for (; blocks; blocks--, data += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)data), bswap);
        __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), bswap);
        __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), bswap);
        __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), bswap);
        ROUNDS4(w0, 0);
        ROUNDS4(w1, 1);
        ROUNDS4(w2, 2);
        ROUNDS4(w3, 3);
#pragma GCC unroll 3
        for (int i = 4; i < 16; i += 4) {
            w0 = SHA256_SCHEDULE4(w0, w1, w2, w3);
            ROUNDS4(w0, i);
            w1 = SHA256_SCHEDULE4(w1, w2, w3, w0);
            ROUNDS4(w1, i + 1);
            w2 = SHA256_SCHEDULE4(w2, w3, w0, w1);
            ROUNDS4(w2, i + 2);
            w3 = SHA256_SCHEDULE4(w3, w0, w1, w2);
            ROUNDS4(w3, i + 3);
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }

    /* Back to (a, b, c, d), (e, f, g, h). */
    lo = _mm_shuffle_epi32(abef, 0x1b);  /* (a, b, e, f) */
    hi = _mm_shuffle_epi32(cdgh, 0xb1);  /* (g, h, c, d) */
    _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(lo, hi, 0xf0));
    _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(hi, lo, 8));
}

#endif
