/*
 * The SHA-512 core of many messages at once on x86-64.
 *
 *   avx2-x4   one message per 64-bit lane of ymm, FIPS 180-4 section 6.4.2
 *             as the portable kernel writes it
 *   avx512-x8 one message per 64-bit lane of zmm: vprorq rotates, vpternlogq
 *             for Ch, Maj and the sigmas' three-way xors, so a round is
 *             about half as many instructions as avx2-x4's for twice the
 *             lanes
 *
 * AVX2 has no rotate: each is two shifts and an or (the schedule's rotate
 * by 8 one byte shuffle), so a round is about forty instructions and the
 * shifts' two ports bound it. The lanes' blocks are loaded as rows of four
 * words and transposed in registers (4 x 4 of 64 bits: unpack, then 128-bit
 * moves).
 *
 * avx512-x8 hashes about twice as fast as avx2-x4, even where zmm
 * instructions take two passes through 256-bit units: the shift units'
 * throughput bounds both (bench/product/bench_many.c; the figures, dated:
 * docs/development.md, "The kernels' measurements").
 *
 * Each has a short kernel beside it (native.h: vn_short64_fn): avx2-x4's
 * pads each lane's row by the tables as it is loaded (vn_short_keep: a
 * message shorter than 128 bytes fits their 256 bytes), avx512-x8's the
 * words in the registers with masks; both put the length in bits into the
 * last block's word 15 and store the digests from the state's registers.
 * The kernels' bodies are sha_many_lanes.h's, with SHA-2's rounds
 * (sha2_many_rounds.h), once per vector.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha2_many_rounds.h"
#include "sha512_avx2.h"

/* ---- AVX2: four lanes in ymm ------------------------------------------------ */

#define TARGET_AVX2 __attribute__((target("avx2")))

/* x[4q + j] = word 4q + j of the rows r[lane] (words 4q..4q+3 of each). */
TARGET_AVX2 __attribute__((always_inline)) static inline void transpose64_x4(__m256i x[4],
                                                                           const __m256i r[4]) {
    const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    x[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    x[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    x[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    x[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* x[j] = big-endian word j of the block at p[lane] + offset. */
TARGET_AVX2 __attribute__((always_inline)) static inline void
load_words64_x4(__m256i x[16], const unsigned char *const *p, size_t offset) {
    const __m256i bswap = SHA512_AVX2_BSWAP;
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        __m256i r[4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            r[i] = _mm256_shuffle_epi8(
                _mm256_loadu_si256((const __m256i *)(p[i] + offset + 32 * q)), bswap);
        }
        transpose64_x4(x + 4 * q, r);
    }
}

/* Words x[0..15] of block `block` of `blocks` of four lanes' messages (see
 * vn_short64_fn). Block 0: each lane's row masked and padded by the tables
 * (byte j of a message of n bytes at vn_short_keep/end[128 - n + j]). Block
 * 1 (of a message of 112 to 128 bytes) has no byte of the message: its
 * 0x80 if the message is 128 bytes, else zeros. The last block's word 15 is
 * the length in bits (word 14, its high half, stays 0). As they are where
 * the blocks are padded already (lengths NULL). */
TARGET_AVX2 __attribute__((always_inline)) static inline void
short_words64_x4(__m256i x[16], const unsigned char *const *p, const uint32_t *lengths, int block,
               int blocks) {
    if (!lengths) {
        load_words64_x4(x, p, 128 * (size_t)block);
        return;
    }
    const __m256i bits = _mm256_slli_epi64(
        _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)lengths)), 3);
    if (block == 0) {
        const __m256i bswap = SHA512_AVX2_BSWAP;
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) {
            __m256i r[4];
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++) {
                const size_t at = 128 - (size_t)lengths[i] + 32 * (size_t)q;
                const __m256i keep = _mm256_loadu_si256((const __m256i *)(vn_short_keep + at));
                const __m256i end = _mm256_loadu_si256((const __m256i *)(vn_short_end + at));
                const __m256i bytes = _mm256_loadu_si256((const __m256i *)(p[i] + 32 * q));
                r[i] = _mm256_shuffle_epi8(_mm256_or_si256(end, _mm256_and_si256(bytes, keep)),
                                           bswap);
            }
            transpose64_x4(x + 4 * q, r);
        }
    } else {
        const __m256i full = _mm256_cmpeq_epi64(bits, _mm256_set1_epi64x(128 * 8));
        x[0] = _mm256_and_si256(full, _mm256_set1_epi64x((long long)0x8000000000000000ULL));
#pragma GCC unroll 16
        for (int j = 1; j < 16; j++) x[j] = _mm256_setzero_si256();
    }
    if (block == blocks - 1) x[15] = bits;
}

/* Lane i's state words, big-endian, to out[i]: its first `size` bytes (28,
 * 32, 48 or 64), by the same 4 x 4 transpose. */
TARGET_AVX2 __attribute__((always_inline)) static inline void
store_digests64_x4(unsigned char *const *out, int size, const __m256i s[8]) {
    const __m256i bswap = SHA512_AVX2_BSWAP;
    __m256i lo[4], hi[4];
    transpose64_x4(lo, s);
    transpose64_x4(hi, s + 4);
    const int first = size < 32 ? size / 4 : 8, second = size > 32 ? (size - 32) / 4 : 0;
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask_lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(first), index);
    const __m256i mask_hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(second), index);
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        _mm256_maskstore_epi32((int *)out[i], mask_lo, _mm256_shuffle_epi8(lo[i], bswap));
        if (second) {
            _mm256_maskstore_epi32((int *)(out[i] + 32), mask_hi,
                                   _mm256_shuffle_epi8(hi[i], bswap));
        }
    }
}

#define SHA2_K vn_sha512_k
#define SHA2_ROUNDS 80
#define STATE_WORDS 8
#define BLOCK_SETUP
#define BLOCK_ROUNDS SHA2_ROUNDS_STEPPED

#define VECTOR_BITS 256
#define WORD_BITS 64
#include "lanes_vector_amd64.h"
#define V_X(a, b) _mm256_xor_si256((a), (b))
#define V_ROTR3(x, r1, r2, r3) \
    V_X(V_X(SHA512_ROTR64(x, r1), SHA512_ROTR64(x, r2)), SHA512_ROTR64(x, r3))
#define AVX2_BSIG0(x) V_ROTR3(x, 28, 34, 39)
#define AVX2_BSIG1(x) V_ROTR3(x, 14, 18, 41)
#define AVX2_SSIG0(x) SHA512_SSIG0(x)
#define AVX2_SSIG1(x) SHA512_SSIG1(x)
#define AVX2_CH(e, f, g) V_X((g), _mm256_and_si256((e), V_X((f), (g))))
#define AVX2_MAJ(a, b, c) V_X((b), _mm256_and_si256(V_X((a), (b)), V_X((b), (c))))
#define SHA2_FN(name) AVX2_##name
#define TARGET TARGET_AVX2
#define KERNEL_NAME vn_sha512_many_avx2_x4
#define KERNEL_SHORT vn_sha512_short_avx2_x4
#define LOAD_WORDS(x, p, offset) load_words64_x4((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words64_x4((x), (p), (lengths), (block), (blocks))
#define STORE_DIGESTS(out, size, s) store_digests64_x4((out), (size), (s))
#include "sha_many_lanes.h"
#undef SHA2_FN
#undef TARGET

/* ---- AVX-512: eight lanes in zmm ------------------------------------------- */

#define TARGET_AVX512 __attribute__((target("avx2,avx512f,avx512vl,avx512bw")))

/* x[j] = word j of the rows r[lane] (8 words each), an 8 x 8 transpose of
 * 64-bit words: its own inverse. After the unpacking, t[o] holds in 128-bit
 * part c words 2c + o of lanes 0, 1 (t[2 + o] of lanes 2, 3, and so on); two
 * rounds of 128-bit moves gather each word's four pairs. */
TARGET_AVX512 __attribute__((always_inline)) static inline void transpose64_x8(__m512i x[8],
                                                                             const __m512i r[8]) {
    __m512i t[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
    }
    /* t[o] + t[2 + o] (even parts 0x88, odd 0xdd), then with t[4 + o] + t[6 + o] */
#pragma GCC unroll 2
    for (int o = 0; o < 2; o++) {
        const __m512i u0 = _mm512_shuffle_i64x2(t[o], t[2 + o], 0x88);
        const __m512i v0 = _mm512_shuffle_i64x2(t[4 + o], t[6 + o], 0x88);
        const __m512i u1 = _mm512_shuffle_i64x2(t[o], t[2 + o], 0xdd);
        const __m512i v1 = _mm512_shuffle_i64x2(t[4 + o], t[6 + o], 0xdd);
        x[o] = _mm512_shuffle_i64x2(u0, v0, 0x88);
        x[o + 4] = _mm512_shuffle_i64x2(u0, v0, 0xdd);
        x[o + 2] = _mm512_shuffle_i64x2(u1, v1, 0x88);
        x[o + 6] = _mm512_shuffle_i64x2(u1, v1, 0xdd);
    }
}

/* The shuffle that reverses the bytes of each 64-bit word of a zmm. */
#define BSWAP64_X8 _mm512_broadcast_i32x4(_mm_set_epi64x(0x08090a0b0c0d0e0fLL, 0x0001020304050607LL))

/* x[j] = big-endian word j of the block at p[lane] + offset. */
TARGET_AVX512 __attribute__((always_inline)) static inline void
load_words64_x8(__m512i x[16], const unsigned char *const *p, size_t offset) {
    const __m512i bswap = BSWAP64_X8;
#pragma GCC unroll 2
    for (int half = 0; half < 2; half++) {
        __m512i r[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            r[i] = _mm512_shuffle_epi8(
                _mm512_loadu_si512((const void *)(p[i] + offset + 64 * half)), bswap);
        }
        transpose64_x8(x + 8 * half, r);
    }
}

/* Words x[0..15] of block `block` of `blocks` of eight lanes' messages (see
 * vn_short64_fn), padded in the registers as lanes_amd64.h's pad_short32_x16
 * pads 32-bit words: block 0 is loaded as it is, block 1 (of a message of
 * 112 to 128 bytes) holds none of the message's bytes and starts from zeros.
 * Bit offset s = 8 * length - 64 * (16 * block + j) into big-endian word j:
 * from 64 on the word is the message's, from 0 to 63 its first s bits are,
 * then the 0x80 at bit s; below 0 all padding zeros. The last block's word
 * 15 is the length in bits (word 14, its high half, 0). As they are where
 * the blocks are padded already (lengths NULL). */
TARGET_AVX512 __attribute__((always_inline)) static inline void
short_words64_x8(__m512i x[16], const unsigned char *const *p, const uint32_t *lengths, int block,
               int blocks) {
    if (!lengths || block == 0) {
        load_words64_x8(x, p, 128 * (size_t)block);
    } else {
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) x[j] = _mm512_setzero_si512();
    }
    if (!lengths) return;
    const __m512i bits =
        _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)lengths)), 3);
    const __m512i zero = _mm512_setzero_si512(), ones = _mm512_set1_epi64(-1);
    const __m512i word = _mm512_set1_epi64(64);
    const __m512i first = _mm512_set1_epi64((long long)0x8000000000000000ULL);
    const int last = block == blocks - 1, words = last ? 14 : 16;
#pragma GCC unroll 16
    for (int j = 0; j < words; j++) {
        const __m512i s = _mm512_sub_epi64(bits, _mm512_set1_epi64(64 * (16 * block + j)));
        const __mmask8 started = _mm512_cmpge_epi64_mask(s, zero);
        const __m512i kept = _mm512_min_epi64(_mm512_max_epi64(s, zero), word);
        const __m512i mask = _mm512_sllv_epi64(ones, _mm512_sub_epi64(word, kept));
        const __m512i pad = _mm512_maskz_srlv_epi64(started, first, kept);
        x[j] = _mm512_ternarylogic_epi64(x[j], mask, pad, 0xea); /* x & mask | pad */
    }
    if (last) {
        x[14] = zero;
        x[15] = bits;
    }
}

/* Lane i's state words, big-endian, to out[i]: its first `size` bytes (28,
 * 32, 48 or 64), by the same transpose. */
TARGET_AVX512 __attribute__((always_inline)) static inline void
store_digests64_x8(unsigned char *const *out, int size, const __m512i s[8]) {
    const __m512i bswap = BSWAP64_X8;
    __m512i rows[8];
    transpose64_x8(rows, s);
    const __mmask16 words = (__mmask16)((1u << (size / 4)) - 1);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        _mm512_mask_storeu_epi32(out[i], words, _mm512_shuffle_epi8(rows[i], bswap));
    }
}

/* Ch = e ? f : g (0xca), Maj = majority (0xe8), three-way xor (0x96). */
#define VECTOR_BITS 512
#define WORD_BITS 64
#include "lanes_vector_amd64.h"
#define X3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define ROR(x, n) _mm512_ror_epi64((x), (n))
#define SHR(x, n) _mm512_srli_epi64((x), (n))
#define AVX512_BSIG0(x) X3(ROR(x, 28), ROR(x, 34), ROR(x, 39))
#define AVX512_BSIG1(x) X3(ROR(x, 14), ROR(x, 18), ROR(x, 41))
#define AVX512_SSIG0(x) X3(ROR(x, 1), ROR(x, 8), SHR(x, 7))
#define AVX512_SSIG1(x) X3(ROR(x, 19), ROR(x, 61), SHR(x, 6))
#define AVX512_CH(e, f, g) _mm512_ternarylogic_epi64((e), (f), (g), 0xca)
#define AVX512_MAJ(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0xe8)
#define SHA2_FN(name) AVX512_##name
#define TARGET TARGET_AVX512
#define KERNEL_NAME vn_sha512_many_avx512_x8
#define KERNEL_SHORT vn_sha512_short_avx512_x8
#define LOAD_WORDS(x, p, offset) load_words64_x8((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words64_x8((x), (p), (lengths), (block), (blocks))
#define STORE_DIGESTS(out, size, s) store_digests64_x8((out), (size), (s))
#include "sha_many_lanes.h"

#endif
