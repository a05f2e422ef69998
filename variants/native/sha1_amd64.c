/*
 * SHA-1 for x86-64 with the SHA extensions (SHA-NI).
 *
 * The state is held as ABCD in one vector (A in the top lane) and E beside
 * it, the rounds four at a time (sha1_shani.h). Only this function is
 * compiled for SHA-NI (and SSE4.1); the dispatcher calls it only where
 * cpuid reports both.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha1_shani.h"

__attribute__((target("sha,sse4.1"))) void vn_sha1_amd64_shani(uint32_t *state,
                                                                const unsigned char *data,
                                                                size_t blocks) {
    /* (a, b, c, d) from lane 0 turned into (d, c, b, a); e in the top lane. */
    __m128i abcd_a = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1b);
    __m128i e_a = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (; blocks; blocks--, data += 64) {
        __m128i a0, a1, a2, a3;
        SHA1_SHANI_LOAD(a, data)
        SHA1_SHANI_BLOCK_A;
    }
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd_a, 0x1b));
    state[4] = (uint32_t)_mm_extract_epi32(e_a, 3);
}

#endif
