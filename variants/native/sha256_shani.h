/*
 * What the SHA-NI SHA-256 kernels share (sha256_amd64.c, one stream;
 * sha256_many_amd64.c, two interleaved): the message schedule step and the
 * shuffle that makes message words big-endian. Include it inside the
 * VN_AMD64 part, after <immintrin.h>, in functions compiled for sha,sse4.1.
 */
#ifndef VARIANTS_NATIVE_SHA256_SHANI_H
#define VARIANTS_NATIVE_SHA256_SHANI_H

/* W[t..t+3] from the previous sixteen words, w0 the oldest four:
 * W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]. */
#define SHA256_SCHEDULE4(w0, w1, w2, w3) \
    _mm_sha256msg2_epu32(                \
        _mm_add_epi32(_mm_sha256msg1_epu32((w0), (w1)), _mm_alignr_epi8((w3), (w2), 4)), (w3))

/* The shuffle (for _mm_shuffle_epi8) that reverses the bytes of each 32-bit lane. */
#define SHANI_BSWAP _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL)

#endif
