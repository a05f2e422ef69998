/*
 * The SHA-512 core of many messages at once on x86-64.
 *
 *   avx2-x4   one message per 64-bit lane of ymm, FIPS 180-4 section 6.4.2
 *             as the portable kernel writes it
 *
 * AVX2 has no rotate: each is two shifts and an or (the schedule's rotate
 * by 8 one byte shuffle), so a round is about forty instructions and the
 * shifts' two ports bound it. The lanes' blocks are loaded as rows of four
 * words and transposed in registers (4 x 4 of 64 bits: unpack, then 128-bit
 * moves). The working variables are never moved (each round is written with
 * its names rotated) and the schedule is a rolling window of 16 vectors.
 *
 * The short kernel beside it (native.h: vn_short64_fn) pads each lane's row
 * by the tables as it is loaded (vn_short_keep: a message shorter than 128
 * bytes fits their 256 bytes), puts the length in bits into the last block's
 * word 15, and stores the digests from the state's registers.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha512_avx2.h"

#define TARGET_AVX2 __attribute__((target("avx2")))

#define V __m256i
#define V_ADD(a, b) _mm256_add_epi64((a), (b))
#define V_X(a, b) _mm256_xor_si256((a), (b))
#define V_ROTR3(x, r1, r2, r3) \
    V_X(V_X(SHA512_ROTR64(x, r1), SHA512_ROTR64(x, r2)), SHA512_ROTR64(x, r3))
#define BSIG0(x) V_ROTR3(x, 28, 34, 39)
#define BSIG1(x) V_ROTR3(x, 14, 18, 41)
#define SSIG0(x) SHA512_SSIG0(x)
#define SSIG1(x) SHA512_SSIG1(x)
#define CH(e, f, g) V_X((g), _mm256_and_si256((e), V_X((f), (g))))
#define MAJ(a, b, c) V_X((b), _mm256_and_si256(V_X((a), (b)), V_X((b), (c))))
#define BSWAP64 SHA512_AVX2_BSWAP

/* One round, j = t % 16 the schedule's slot, k the constants from this
 * sixteen's first. */
#define ROUND(a, b, c, d, e, f, g, h, j)                                                       \
    {                                                                                          \
        const V t1 = V_ADD(V_ADD(h, V_ADD(w[j], _mm256_set1_epi64x((long long)k[j]))),       \
                           V_ADD(BSIG1(e), CH(e, f, g)));                                      \
        d = V_ADD(d, t1);                                                                      \
        h = V_ADD(t1, V_ADD(BSIG0(a), MAJ(a, b, c)));                                          \
    }
/* The next word of the schedule into slot j (from the 16 before it). */
#define SCHEDULE(j)                                                                   \
    w[j] = V_ADD(V_ADD(w[j], SSIG1(w[((j) + 14) & 15])),                             \
                 V_ADD(w[((j) + 9) & 15], SSIG0(w[((j) + 1) & 15])));
#define NONE(j)
#define ROUNDS16(before)                                    \
    before(0) ROUND(a, b, c, d, e, f, g, h, 0)              \
    before(1) ROUND(h, a, b, c, d, e, f, g, 1)              \
    before(2) ROUND(g, h, a, b, c, d, e, f, 2)              \
    before(3) ROUND(f, g, h, a, b, c, d, e, 3)              \
    before(4) ROUND(e, f, g, h, a, b, c, d, 4)              \
    before(5) ROUND(d, e, f, g, h, a, b, c, 5)              \
    before(6) ROUND(c, d, e, f, g, h, a, b, 6)              \
    before(7) ROUND(b, c, d, e, f, g, h, a, 7)              \
    before(8) ROUND(a, b, c, d, e, f, g, h, 8)              \
    before(9) ROUND(h, a, b, c, d, e, f, g, 9)              \
    before(10) ROUND(g, h, a, b, c, d, e, f, 10)            \
    before(11) ROUND(f, g, h, a, b, c, d, e, 11)            \
    before(12) ROUND(e, f, g, h, a, b, c, d, 12)            \
    before(13) ROUND(d, e, f, g, h, a, b, c, 13)            \
    before(14) ROUND(c, d, e, f, g, h, a, b, 14)            \
    before(15) ROUND(b, c, d, e, f, g, h, a, 15)

/* The 80 rounds of a block whose words are w[0..15]. */
#define ROUNDS80                                         \
    {                                                    \
        const uint64_t *k = vn_sha512_k;                 \
        __asm__("" : "+r"(k)); /* loaded at each use */  \
        ROUNDS16(NONE)                                   \
        for (int t_ = 16; t_ < 80; t_ += 16) {           \
            k += 16;                                     \
            ROUNDS16(SCHEDULE)                           \
        }                                                \
    }

/* The working variables plus the block's starting state, word i of it START(i). */
#define ADD_START(START)        \
    a = V_ADD(a, START(0));     \
    b = V_ADD(b, START(1));     \
    c = V_ADD(c, START(2));     \
    d = V_ADD(d, START(3));     \
    e = V_ADD(e, START(4));     \
    f = V_ADD(f, START(5));     \
    g = V_ADD(g, START(6));     \
    h = V_ADD(h, START(7));

/* x[4q + j] = word 4q + j of the rows r[lane] (words 4q..4q+3 of each). */
TARGET_AVX2 __attribute__((always_inline)) static inline void transpose_x4(V x[4], const V r[4]) {
    const V t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
    const V t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    x[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    x[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    x[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    x[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* x[j] = big-endian word j of the block at p[lane] + offset. */
TARGET_AVX2 __attribute__((always_inline)) static inline void
load_words_x4(V x[16], const unsigned char *const *p, size_t offset) {
    const V bswap = BSWAP64;
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        V r[4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            r[i] = _mm256_shuffle_epi8(
                _mm256_loadu_si256((const __m256i *)(p[i] + offset + 32 * q)), bswap);
        }
        transpose_x4(x + 4 * q, r);
    }
}

TARGET_AVX2 void vn_sha512_many_avx2_x4(vn_lanes64 *lanes, int count, size_t blocks) {
    /* idle lanes hash the first lane's data again; their state is not used */
    const unsigned char *p[4];
    for (int i = 0; i < 4; i++) p[i] = lanes->data[i < count ? i : 0];
    uint64_t(*state)[VN_MAX_LANES64] = lanes->state;
#define STATE(i) _mm256_load_si256((const __m256i *)state[i])
    V a = STATE(0), b = STATE(1), c = STATE(2), d = STATE(3);
    V e = STATE(4), f = STATE(5), g = STATE(6), h = STATE(7);
    for (size_t offset = 0; offset < 128 * blocks; offset += 128) {
        V w[16];
        load_words_x4(w, p, offset);
        ROUNDS80
        ADD_START(STATE)
        _mm256_store_si256((__m256i *)state[0], a);
        _mm256_store_si256((__m256i *)state[1], b);
        _mm256_store_si256((__m256i *)state[2], c);
        _mm256_store_si256((__m256i *)state[3], d);
        _mm256_store_si256((__m256i *)state[4], e);
        _mm256_store_si256((__m256i *)state[5], f);
        _mm256_store_si256((__m256i *)state[6], g);
        _mm256_store_si256((__m256i *)state[7], h);
    }
#undef STATE
}

/* Words x[0..15] of block `block` of `blocks` of four lanes' messages (see
 * vn_short64_fn). Block 0: each lane's row masked and padded by the tables
 * (byte j of a message of n bytes at vn_short_keep/end[128 - n + j]). Block
 * 1 (of a message of 112 to 128 bytes) has no byte of the message: its
 * 0x80 if the message is 128 bytes, else zeros. The last block's word 15 is
 * the length in bits (word 14, its high half, stays 0). As they are where
 * the blocks are padded already (lengths NULL). */
TARGET_AVX2 __attribute__((always_inline)) static inline void
short_words_x4(V x[16], const unsigned char *const *p, const uint32_t *lengths, int block,
               int blocks) {
    if (!lengths) {
        load_words_x4(x, p, 128 * (size_t)block);
        return;
    }
    const V bits = _mm256_slli_epi64(
        _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)lengths)), 3);
    if (block == 0) {
        const V bswap = BSWAP64;
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) {
            V r[4];
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++) {
                const size_t at = 128 - (size_t)lengths[i] + 32 * (size_t)q;
                const V keep = _mm256_loadu_si256((const __m256i *)(vn_short_keep + at));
                const V end = _mm256_loadu_si256((const __m256i *)(vn_short_end + at));
                const V bytes = _mm256_loadu_si256((const __m256i *)(p[i] + 32 * q));
                r[i] = _mm256_shuffle_epi8(_mm256_or_si256(end, _mm256_and_si256(bytes, keep)),
                                           bswap);
            }
            transpose_x4(x + 4 * q, r);
        }
    } else {
        const V full = _mm256_cmpeq_epi64(bits, _mm256_set1_epi64x(128 * 8));
        x[0] = _mm256_and_si256(full, _mm256_set1_epi64x((long long)0x8000000000000000ULL));
#pragma GCC unroll 16
        for (int j = 1; j < 16; j++) x[j] = _mm256_setzero_si256();
    }
    if (block == blocks - 1) x[15] = bits;
}

/* Lane i's state words, big-endian, to out[i]: its first `size` bytes (28,
 * 32, 48 or 64), by the same 4 x 4 transpose. */
TARGET_AVX2 __attribute__((always_inline)) static inline void
store_digests_x4(unsigned char *const *out, int size, const V s[8]) {
    const V bswap = BSWAP64;
    V lo[4], hi[4];
    transpose_x4(lo, s);
    transpose_x4(hi, s + 4);
    const int first = size < 32 ? size / 4 : 8, second = size > 32 ? (size - 32) / 4 : 0;
    const V index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const V mask_lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(first), index);
    const V mask_hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(second), index);
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        _mm256_maskstore_epi32((int *)out[i], mask_lo, _mm256_shuffle_epi8(lo[i], bswap));
        if (second) {
            _mm256_maskstore_epi32((int *)(out[i] + 32), mask_hi,
                                   _mm256_shuffle_epi8(hi[i], bswap));
        }
    }
}

/* The short kernel beside avx2-x4: four messages of one or two blocks from
 * the IV, their words never stored; the number of blocks a constant in each
 * branch, so that both are unrolled. */
TARGET_AVX2 void vn_sha512_short_avx2_x4(const uint64_t *iv, int size, int blocks,
                                         const unsigned char *const *data,
                                         const uint32_t *lengths, unsigned char *const *out) {
    V w[16];
#define IV(i) _mm256_set1_epi64x((long long)iv[i])
    V a = IV(0), b = IV(1), c = IV(2), d = IV(3), e = IV(4), f = IV(5), g = IV(6), h = IV(7);
    if (blocks == 1) {
        short_words_x4(w, data, lengths, 0, 1);
    } else {
        short_words_x4(w, data, lengths, 0, 2);
    }
    ROUNDS80
    ADD_START(IV)
#undef IV
    if (blocks == 2) {
        const V start[8] = {a, b, c, d, e, f, g, h};
        short_words_x4(w, data, lengths, 1, 2);
#define START(i) start[i]
        ROUNDS80
        ADD_START(START)
#undef START
    }
    const V s[8] = {a, b, c, d, e, f, g, h};
    store_digests_x4(out, size, s);
}

#endif
