/*
 * SHA-1 for x86-64 with the SHA extensions (SHA-NI).
 *
 * The state is held as ABCD in one vector (A in the top lane) and E beside
 * it: sha1rnds4 does four rounds on ABCD, taking E + W[t] in the top lane and
 * W[t+1..t+3] below (the round function and constant chosen by its
 * immediate); sha1nexte gives the E of the next four rounds (A of four
 * rounds before, rotated by 30) already added to their first word;
 * sha1msg1, an xor and sha1msg2 compute the message schedule four words at a
 * time. Only this function is compiled for SHA-NI (and SSE4.1); the
 * dispatcher calls it only where cpuid reports both.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha1_shani.h"

__attribute__((target("sha,sse4.1"))) void vn_sha1_amd64_shani(uint32_t *state,
                                                                const unsigned char *data,
                                                                size_t blocks) {
    const __m128i bswap = SHA1_SHANI_BSWAP;
    /* (a, b, c, d) from lane 0 turned into (d, c, b, a); e in the top lane. */
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1b);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (; blocks; blocks--, data += 64) {
        __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)data), bswap);
        __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), bswap);
        __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), bswap);
        __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), bswap);
        SHA1_SHANI_ROUNDS80(abcd, e0, w0, w1, w2, w3);
    }
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1b));
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#endif
