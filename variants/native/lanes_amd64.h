/*
 * Loading one block per lane for the x86-64 many-kernels (md5_many_amd64.c,
 * sha256_many_amd64.c): each lane's block is loaded as it is, a row of 16
 * words, and the rows are transposed in registers into one vector per word.
 * Words come out in memory order (little-endian); SHA-256 swaps their bytes
 * afterwards. And the padding of messages shorter than a block, in those
 * registers, for the short kernels.
 */
#ifndef VARIANTS_NATIVE_LANES_AMD64_H
#define VARIANTS_NATIVE_LANES_AMD64_H

#include <immintrin.h>
#include <stddef.h>

#include "native.h"

/* x[0..7] = word 0..7 of the rows r[0..7] (8 words each): an 8 x 8 transpose. */
__attribute__((target("avx2"), always_inline)) static inline void
transpose32_x8(__m256i x[8], const __m256i r[8]) {
    __m256i t[8], u[8];
    /* pairs of lanes: (r0 w0, r1 w0, r0 w1, r1 w1 | the same for w4, w5), ... */
    #pragma GCC unroll 16
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    /* fours of lanes: u[4g + k] has word k (low half) and k + 4 (high half) of lanes 4g.. */
    #pragma GCC unroll 16
    for (int g = 0; g < 8; g += 4) {
        u[g] = _mm256_unpacklo_epi64(t[g], t[g + 2]);
        u[g + 1] = _mm256_unpackhi_epi64(t[g], t[g + 2]);
        u[g + 2] = _mm256_unpacklo_epi64(t[g + 1], t[g + 3]);
        u[g + 3] = _mm256_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    #pragma GCC unroll 16
    for (int k = 0; k < 4; k++) {
        x[k] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x20);
        x[k + 4] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x31);
    }
}

/* x[j] = word j of the block at p[lane] + offset, for 8 lanes: two 8 x 8
 * transposes (words 0-7, then 8-15). */
__attribute__((target("avx2"), always_inline)) static inline void
load_words32_x8(__m256i x[16], const unsigned char *const *p, size_t offset) {
    #pragma GCC unroll 16
    for (int half = 0; half < 2; half++) {
        __m256i r[8];
        #pragma GCC unroll 16
        for (int i = 0; i < 8; i++) {
            r[i] = _mm256_loadu_si256((const __m256i *)(p[i] + offset + 32 * half));
        }
        transpose32_x8(x + 8 * half, r);
    }
}

/* x[j] = word j of the block at p[lane] + offset, for 16 lanes: one 16 x 16
 * transpose. After two rounds of unpacking, b[4g + k] holds, in its 128-bit
 * part c, word 4c + k of lanes 4g .. 4g+3; two rounds of 128-bit moves then
 * gather part c of b[k], b[4 + k], b[8 + k], b[12 + k] into word 4c + k. */
__attribute__((target("avx512f"), always_inline)) static inline void
load_words32_x16(__m512i x[16], const unsigned char *const *p, size_t offset) {
    __m512i r[16], a[16], b[16];
    #pragma GCC unroll 16
    for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_si512((const void *)(p[i] + offset));
    #pragma GCC unroll 16
    for (int i = 0; i < 16; i += 2) {
        a[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        a[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    #pragma GCC unroll 16
    for (int g = 0; g < 16; g += 4) {
        b[g] = _mm512_unpacklo_epi64(a[g], a[g + 2]);
        b[g + 1] = _mm512_unpackhi_epi64(a[g], a[g + 2]);
        b[g + 2] = _mm512_unpacklo_epi64(a[g + 1], a[g + 3]);
        b[g + 3] = _mm512_unpackhi_epi64(a[g + 1], a[g + 3]);
    }
    #pragma GCC unroll 16
    for (int k = 0; k < 4; k++) {
        const __m512i e0 = _mm512_shuffle_i32x4(b[k], b[4 + k], 0x44);
        const __m512i e1 = _mm512_shuffle_i32x4(b[k], b[4 + k], 0xee);
        const __m512i f0 = _mm512_shuffle_i32x4(b[8 + k], b[12 + k], 0x44);
        const __m512i f1 = _mm512_shuffle_i32x4(b[8 + k], b[12 + k], 0xee);
        x[k] = _mm512_shuffle_i32x4(e0, f0, 0x88);
        x[4 + k] = _mm512_shuffle_i32x4(e0, f0, 0xdd);
        x[8 + k] = _mm512_shuffle_i32x4(e1, f1, 0x88);
        x[12 + k] = _mm512_shuffle_i32x4(e1, f1, 0xdd);
    }
}

/* Block `block` of `blocks` of 16 lanes' messages padded in registers: x[]
 * holds the block's words as loaded from the message (little-endian, or
 * big-endian ones when `big_endian`; all zeros for a block past the bytes
 * read), and is padded in place: the bytes from each lane's length (at most
 * 64 * blocks - 9) on masked to 0, the 0x80 after the message, and in the
 * last block the length in bits in its last two words (MD5: word 14;
 * SHA-256: word 15). Bit offset s = 8 * length - 32 * (16 * block + j) into
 * word j (counted from the word's first byte in memory): from 32 on the word
 * is the message's, from 0 to 31 its first s bits are, then 0x80 follows at
 * bit s, below 0 the word is all padding zeros. */
__attribute__((target("avx512f"), always_inline)) static inline void
pad_short32_x16(__m512i x[16], const uint32_t *lengths, int big_endian, int block, int blocks) {
    const __m512i bits = _mm512_slli_epi32(_mm512_loadu_si512((const void *)lengths), 3);
    const __m512i zero = _mm512_setzero_si512(), ones = _mm512_set1_epi32(-1);
    const __m512i word = _mm512_set1_epi32(32);
    const __m512i first = _mm512_set1_epi32(big_endian ? (int)0x80000000u : 0x80);
    const int last = block == blocks - 1, words = last ? 14 : 16;
    #pragma GCC unroll 16
    for (int j = 0; j < words; j++) {
        const __m512i s = _mm512_sub_epi32(bits, _mm512_set1_epi32(32 * (16 * block + j)));
        const __mmask16 started = _mm512_cmpge_epi32_mask(s, zero);
        const __m512i kept = _mm512_min_epi32(_mm512_max_epi32(s, zero), word);
        const __m512i rest = _mm512_sub_epi32(word, kept);
        /* the message's bits and the 0x80 after them, at the word's first bytes */
        const __m512i mask =
            big_endian ? _mm512_sllv_epi32(ones, rest) : _mm512_srlv_epi32(ones, rest);
        const __m512i pad = big_endian ? _mm512_maskz_srlv_epi32(started, first, kept)
                                       : _mm512_maskz_sllv_epi32(started, first, kept);
        x[j] = _mm512_ternarylogic_epi32(x[j], mask, pad, 0xea); /* x & mask | pad */
    }
    if (last) {
        x[14] = big_endian ? zero : bits;
        x[15] = big_endian ? bits : zero;
    }
}

/* Each 32-bit word's bytes reversed: big-endian words. */
#define BSWAP_BYTES 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12

/* x[0..15] with each word's bytes reversed (SHA-256's big-endian words): 8 lanes. */
__attribute__((target("avx2"), always_inline)) static inline void bswap_words32_x8(__m256i x[16]) {
    const __m256i bswap = _mm256_setr_epi8(BSWAP_BYTES, BSWAP_BYTES);
    #pragma GCC unroll 16
    for (int j = 0; j < 16; j++) x[j] = _mm256_shuffle_epi8(x[j], bswap);
}

/* The same for 16 lanes. */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline void
bswap_words32_x16(__m512i x[16]) {
    const __m512i bswap = _mm512_broadcast_i32x4(_mm_setr_epi8(BSWAP_BYTES));
    #pragma GCC unroll 16
    for (int j = 0; j < 16; j++) x[j] = _mm512_shuffle_epi8(x[j], bswap);
}

/* Words x[0..15] of block `block` of `blocks` of 16 lanes' messages (see
 * vn_short_fn): loaded and padded, or zeros and padding past the 64 bytes
 * read; as they are where the blocks are padded already (lengths NULL). */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline void
short_words32_x16(__m512i x[16], const unsigned char *const *p, const uint32_t *lengths,
                int big_endian, int block, int blocks) {
    if (!lengths || block == 0) {
        load_words32_x16(x, p, 64 * (size_t)block);
        if (big_endian) bswap_words32_x16(x);
    } else {
        for (int j = 0; j < 16; j++) x[j] = _mm512_setzero_si512();
    }
    if (lengths) pad_short32_x16(x, lengths, big_endian, block, blocks);
}

/* The same for 8 lanes with AVX2, which has no masks to pad words with as
 * pad_short32_x16 does: each lane's row is padded as it is loaded, by the
 * tables (native.h: vn_short_keep), then transposed; the length in bits goes
 * into the last block's word 14 (MD5) or 15 (SHA-256, big-endian). */
__attribute__((target("avx2"), always_inline)) static inline void
short_words32_x8(__m256i x[16], const unsigned char *const *p, const uint32_t *lengths,
               int big_endian, int block, int blocks) {
    if (!lengths) {
        load_words32_x8(x, p, 64 * (size_t)block);
    } else {
        #pragma GCC unroll 16
        for (int half = 0; half < 2; half++) {
            __m256i r[8];
            #pragma GCC unroll 16
            for (int i = 0; i < 8; i++) {
                const size_t at = vn_short_at(lengths[i], block) + 32 * (size_t)half;
                r[i] = _mm256_loadu_si256((const __m256i *)(vn_short_end + at));
                if (block == 0) {
                    const __m256i keep = _mm256_loadu_si256((const __m256i *)(vn_short_keep + at));
                    const __m256i bytes = _mm256_loadu_si256((const __m256i *)(p[i] + 32 * half));
                    r[i] = _mm256_or_si256(r[i], _mm256_and_si256(bytes, keep));
                }
            }
            transpose32_x8(x + 8 * half, r);
        }
    }
    if (big_endian) bswap_words32_x8(x);
    if (lengths && block == blocks - 1) {
        x[big_endian ? 15 : 14] =
            _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)lengths), 3);
    }
}

/* Each lane's words a, b, c, d (in memory order) to out[lane], 16 bytes, for 8
 * lanes: two rounds of unpacking leave lane k's four words in the low half of
 * u[k], lane 4 + k's in its high half. MD5's digests, and SHA-1's first 16
 * bytes. */
__attribute__((target("avx2"), always_inline)) static inline void
store_four_words32_x8(unsigned char *const *out, __m256i a, __m256i b, __m256i c, __m256i d) {
    const __m256i ab0 = _mm256_unpacklo_epi32(a, b), ab1 = _mm256_unpackhi_epi32(a, b);
    const __m256i cd0 = _mm256_unpacklo_epi32(c, d), cd1 = _mm256_unpackhi_epi32(c, d);
    const __m256i u[4] = {_mm256_unpacklo_epi64(ab0, cd0), _mm256_unpackhi_epi64(ab0, cd0),
                          _mm256_unpacklo_epi64(ab1, cd1), _mm256_unpackhi_epi64(ab1, cd1)};
    #pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        _mm_storeu_si128((__m128i *)out[k], _mm256_castsi256_si128(u[k]));
        _mm_storeu_si128((__m128i *)out[4 + k], _mm256_extracti128_si256(u[k], 1));
    }
}

/* The same for 16 lanes: lane 4c + k's words in 128-bit part c of u[k]. */
__attribute__((target("avx512f"), always_inline)) static inline void
store_four_words32_x16(unsigned char *const *out, __m512i a, __m512i b, __m512i c, __m512i d) {
    const __m512i ab0 = _mm512_unpacklo_epi32(a, b), ab1 = _mm512_unpackhi_epi32(a, b);
    const __m512i cd0 = _mm512_unpacklo_epi32(c, d), cd1 = _mm512_unpackhi_epi32(c, d);
    const __m512i u[4] = {_mm512_unpacklo_epi64(ab0, cd0), _mm512_unpackhi_epi64(ab0, cd0),
                          _mm512_unpacklo_epi64(ab1, cd1), _mm512_unpackhi_epi64(ab1, cd1)};
    #pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        _mm_storeu_si128((__m128i *)out[k], _mm512_castsi512_si128(u[k]));
        _mm_storeu_si128((__m128i *)out[4 + k], _mm512_extracti32x4_epi32(u[k], 1));
        _mm_storeu_si128((__m128i *)out[8 + k], _mm512_extracti32x4_epi32(u[k], 2));
        _mm_storeu_si128((__m128i *)out[12 + k], _mm512_extracti32x4_epi32(u[k], 3));
    }
}

#endif
