/*
 * SHA-512's message schedule in AVX2, four 64-bit words to a ymm vector:
 * what the x86-64 SHA-512 kernels with vectors share. Include it inside the
 * VN_AMD64 part, after <immintrin.h>, in functions compiled for avx2.
 */
#ifndef VARIANTS_NATIVE_SHA512_AVX2_H
#define VARIANTS_NATIVE_SHA512_AVX2_H

/* The shuffle (for _mm256_shuffle_epi8) that reverses the bytes of each 64-bit lane. */
#define SHA512_AVX2_BSWAP                                                                \
    _mm256_set_epi64x(0x08090a0b0c0d0e0fLL, 0x0001020304050607LL, 0x08090a0b0c0d0e0fLL, \
                      0x0001020304050607LL)
/* The shuffle that rotates each 64-bit lane right by 8 bits. */
#define SHA512_AVX2_ROTR8                                                                \
    _mm256_set_epi64x(0x080f0e0d0c0b0a09LL, 0x0007060504030201LL, 0x080f0e0d0c0b0a09LL, \
                      0x0007060504030201LL)

/* x rotated right by n bits in each 64-bit lane (AVX2 has no rotate). */
#define SHA512_ROTR64(x, n) \
    _mm256_or_si256(_mm256_srli_epi64((x), (n)), _mm256_slli_epi64((x), 64 - (n)))

/* σ0(x) = ROTR1 ^ ROTR8 ^ SHR7 (ROTR8 a byte shuffle) and σ1(x) = ROTR19 ^ ROTR61 ^ SHR6. */
#define SHA512_SSIG0(x)                                                                \
    _mm256_xor_si256(_mm256_xor_si256(SHA512_ROTR64(x, 1), _mm256_srli_epi64((x), 7)), \
                     _mm256_shuffle_epi8((x), SHA512_AVX2_ROTR8))
#define SHA512_SSIG1(x)                                                                   \
    _mm256_xor_si256(_mm256_xor_si256(SHA512_ROTR64(x, 19), SHA512_ROTR64(x, 61)), \
                     _mm256_srli_epi64((x), 6))

/* W[t..t+3] from the previous sixteen words, x0 the oldest four:
 * W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]. W[t-15..t-12] and
 * W[t-7..t-4] straddle two vectors; σ1 needs W[t-2..t-1] for the low half and
 * the new W[t..t+1] for the high half, so it is taken twice. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
sha512_avx2_schedule(__m256i x0, __m256i x1, __m256i x2, __m256i x3) {
    const __m256i w15 = _mm256_alignr_epi8(_mm256_permute2x128_si256(x0, x1, 0x21), x0, 8);
    const __m256i w7 = _mm256_alignr_epi8(_mm256_permute2x128_si256(x2, x3, 0x21), x2, 8);
    const __m256i p = _mm256_add_epi64(_mm256_add_epi64(x0, w7), SHA512_SSIG0(w15));
    const __m256i low = _mm256_add_epi64(p, SHA512_SSIG1(_mm256_permute4x64_epi64(x3, 0xee)));
    const __m256i high = _mm256_add_epi64(p, SHA512_SSIG1(_mm256_permute4x64_epi64(low, 0x44)));
    return _mm256_blend_epi32(low, high, 0xf0);
}

/* Words t..t+3 in x, plus their round constants, to wk[t..t+3]. */
#define SHA512_AVX2_STORE_WK(wk, x, t)                                      \
    _mm256_store_si256(                                                     \
        (__m256i *)((wk) + (t)),                                            \
        _mm256_add_epi64((x), _mm256_loadu_si256((const __m256i *)(vn_sha512_k + (t)))))

#endif
