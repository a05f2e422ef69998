/*
 * SHA-1 of many messages at once on x86-64.
 *
 *   shani-x2   messages through the SHA extensions, the instructions of two
 *              streams interleaved (sha1rnds4 has a latency of several
 *              cycles: one stream leaves the unit idle), of four when the
 *              messages are longer than a block: each stream's blocks
 *              follow one another, and only four keep the unit busy
 *   avx2-x8    one message per 32-bit lane of ymm, FIPS 180-4 section 6.1.2
 *              as the portable kernel writes it: for CPUs without SHA-NI
 *   avx512-x16 the same in the 16 lanes of zmm, with vprold rotates and
 *              vpternlogd for the round functions and the schedule's xors
 *
 * A round in AVX2 is about a dozen instructions (two rotates of three, the
 * round function, four adds) and the schedule's word five more; the eight
 * lanes' blocks are loaded as rows and transposed in registers, as the
 * other AVX2 many-kernels do (lanes_amd64.h).
 *
 * Each has a short kernel beside it (native.h: vn_short_fn, size 20):
 * messages of at most 64 bytes read in place, padded in registers, the
 * digests stored from the state's registers. shani-x2 beats avx2-x8 at 4 KiB
 * (and four streams beat two) and at 32 bytes (the short kernels); SHA-NI is
 * then bound by its unit's throughput (sha1msg1, sha1msg2 and sha1nexte use
 * it too). AVX2 lanes beside SHA-NI
 * streams in one function did not help: the SHA instructions have only
 * legacy SSE encodings, and with ymm registers live that ran a hundred
 * times slower here.
 *
 * With AVX-512 a round is about half as many instructions, on zmm:
 * avx512-x16 beats shani-x2 at 32 bytes and 4 KiB but not over 8 streams
 * (half its lanes idle); avx512-shani takes zmm when all 16 lanes are busy
 * and SHA-NI streams otherwise. (The figures, dated, of both paragraphs:
 * docs/development.md, "The kernels' measurements".)
 */
#include "constants.h"
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>
#include <string.h>

#include "lanes_amd64.h"
#include "sha1_shani.h"
#include "shani_short.h"

/* ---- AVX2 lanes ------------------------------------------------------------ */

#define VECTOR_BITS 256
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#define V_XOR(a, b) _mm256_xor_si256((a), (b))
#define V_ROL(x, n) _mm256_or_si256(_mm256_slli_epi32((x), (n)), _mm256_srli_epi32((x), 32 - (n)))

/* The round functions: Ch, parity and Maj (FIPS 180-4, 4.1.1). */
#define V_F1(b, c, d) V_XOR((d), _mm256_and_si256((b), V_XOR((c), (d))))
#define V_F2(b, c, d) V_XOR(V_XOR((b), (c)), (d))
#define V_F3(b, c, d) \
    _mm256_or_si256(_mm256_and_si256((b), (c)), _mm256_and_si256((d), _mm256_or_si256((b), (c))))

/* Word t's slot of the rolling window, the first 16 as loaded, then
 * W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]). */
#define V_W0(t) w[t]
#define V_WN(t)                                                                        \
    (w[(t) & 15] = V_ROL(V_XOR4(w[((t) - 3) & 15], w[((t) - 8) & 15], w[((t) - 14) & 15], \
                                w[(t) & 15]),                                          \
                         1))
#define V_XOR4(a, b, c, d) V_XOR(V_XOR((a), (b)), V_XOR((c), (d)))

/* One round, the caller naming the variables in the order it rotates them. */
#define V_ROUND(f, k, wt, a, b, c, d, e)                                                  \
    e = V_ADD(V_ADD(e, V_ROL(a, 5)), V_ADD(f(b, c, d), V_ADD((wt), V_SET1(k)))); \
    b = V_ROL(b, 30);
#define V_FIVE(f, k, W, t)                   \
    V_ROUND(f, k, W(t), a, b, c, d, e)       \
    V_ROUND(f, k, W(t + 1), e, a, b, c, d)   \
    V_ROUND(f, k, W(t + 2), d, e, a, b, c)   \
    V_ROUND(f, k, W(t + 3), c, d, e, a, b)   \
    V_ROUND(f, k, W(t + 4), b, c, d, e, a)
#define V_TWENTY(f, k, t)                                                        \
    V_FIVE(f, k, V_WN, t) V_FIVE(f, k, V_WN, t + 5) V_FIVE(f, k, V_WN, t + 10) \
        V_FIVE(f, k, V_WN, t + 15)

/* The 80 rounds of a block whose big-endian words are w[0..15]. */
#define V_ROUNDS80                                       \
    V_FIVE(V_F1, VN_SHA1_K0, V_W0, 0)                    \
    V_FIVE(V_F1, VN_SHA1_K0, V_W0, 5)                    \
    V_FIVE(V_F1, VN_SHA1_K0, V_W0, 10)                   \
    V_ROUND(V_F1, VN_SHA1_K0, V_W0(15), a, b, c, d, e)   \
    V_ROUND(V_F1, VN_SHA1_K0, V_WN(16), e, a, b, c, d)   \
    V_ROUND(V_F1, VN_SHA1_K0, V_WN(17), d, e, a, b, c)   \
    V_ROUND(V_F1, VN_SHA1_K0, V_WN(18), c, d, e, a, b)   \
    V_ROUND(V_F1, VN_SHA1_K0, V_WN(19), b, c, d, e, a)   \
    V_TWENTY(V_F2, VN_SHA1_K1, 20)                       \
    V_TWENTY(V_F3, (int)VN_SHA1_K2, 40)                  \
    V_TWENTY(V_F2, (int)VN_SHA1_K3, 60)

/* Lane i's five state words s[0..4], big-endian, to out[i] (20 bytes): the
 * first four as MD5's digests are stored, then the fifth as one word. */
__attribute__((target("avx2"), always_inline)) static inline void
store_five_words32_x8(unsigned char *const *out, const __m256i s[5]) {
    const __m256i bswap = _mm256_setr_epi8(BSWAP_BYTES, BSWAP_BYTES);
    const __m256i a = _mm256_shuffle_epi8(s[0], bswap);
    const __m256i b = _mm256_shuffle_epi8(s[1], bswap);
    const __m256i c = _mm256_shuffle_epi8(s[2], bswap);
    const __m256i d = _mm256_shuffle_epi8(s[3], bswap);
    const __m256i e = _mm256_shuffle_epi8(s[4], bswap);
    _Alignas(32) uint32_t last[8];
    _mm256_store_si256((__m256i *)last, e);
    store_four_words32_x8(out, a, b, c, d);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) memcpy(out[i] + 16, &last[i], 4);
}

#define STATE_WORDS 5
#define BLOCK_SETUP
#define BLOCK_ROUNDS V_ROUNDS80
#define TARGET __attribute__((target("avx2")))
#define KERNEL_NAME vn_sha1_many_avx2_x8
#define KERNEL_SHORT vn_sha1_short_avx2_x8
#define LOAD_WORDS(x, p, offset) (load_words32_x8((x), (p), (offset)), bswap_words32_x8(x))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x8((x), (p), (lengths), 1, (block), (blocks))
#define STORE_DIGESTS(out, size, s) ((void)(size), store_five_words32_x8((out), (s))) /* 20 */
#include "sha_many_lanes.h"
#undef TARGET

/* ---- SHA-NI, two streams ------------------------------------------------ */

/* Two blocks' 80 rounds side by side: each step of the one stream beside
 * the same step of the other. */
/* Lane i's state as ABCD (A in the top lane), and back with E. */
#define SHANI_GET_ABCD(i) \
    _mm_set_epi32((int)state[0][i], (int)state[1][i], (int)state[2][i], (int)state[3][i])
#define SHANI_PUT_STATE(abcd, e, i)                             \
    do {                                                        \
        state[0][i] = (uint32_t)_mm_extract_epi32((abcd), 3);   \
        state[1][i] = (uint32_t)_mm_extract_epi32((abcd), 2);   \
        state[2][i] = (uint32_t)_mm_extract_epi32((abcd), 1);   \
        state[3][i] = (uint32_t)_mm_cvtsi128_si32(abcd);        \
        state[4][i] = (uint32_t)_mm_extract_epi32((e), 3);      \
    } while (0)

/* Lanes ia and ib (the same lane twice is fine: both write the same). */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_pair(uint32_t (*state)[VN_MAX_LANES], int ia, int ib, const unsigned char *pa,
           const unsigned char *pb, size_t blocks) {
    __m128i abcd_a = SHANI_GET_ABCD(ia), e_a = _mm_set_epi32((int)state[4][ia], 0, 0, 0);
    __m128i abcd_b = SHANI_GET_ABCD(ib), e_b = _mm_set_epi32((int)state[4][ib], 0, 0, 0);
    for (; blocks; blocks--, pa += 64, pb += 64) {
        __m128i a0, a1, a2, a3, b0, b1, b2, b3;
        SHA1_SHANI_LOAD(a, pa)
        SHA1_SHANI_LOAD(b, pb)
        SHA1_SHANI_BLOCK_AB;
    }
    SHANI_PUT_STATE(abcd_a, e_a, ia);
    SHANI_PUT_STATE(abcd_b, e_b, ib);
}

/* A short message's words s0..s3 of block `block` of `blocks` (see
 * vn_short_fn): its rows padded by the tables (shani_short_rows), its length
 * in bits in the last block's word 15 (lane 0 of s3); as they are where the
 * blocks are padded already (length NULL). */
#define SHANI_SHORT_WORDS(s, p, length, block, blocks)                                     \
    if (!(length)) {                                                                       \
        SHA1_SHANI_LOAD(s, (p) + 64 * (block))                                             \
    } else {                                                                               \
        __m128i rows_[4];                                                                  \
        shani_short_rows(rows_, (p), *(length), (block), SHA1_SHANI_BSWAP);                \
        s##0 = rows_[0];                                                                   \
        s##1 = rows_[1];                                                                   \
        s##2 = rows_[2];                                                                   \
        s##3 = rows_[3];                                                                   \
        if ((block) == (blocks) - 1) s##3 = _mm_insert_epi32(s##3, (int)(*(length) << 3), 0); \
    }

/* A stream's digest, big-endian a, b, c, d, e, to out (20 bytes). */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_store_digest(unsigned char *out, __m128i abcd, __m128i e) {
    _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(abcd, SHA1_SHANI_BSWAP));
    const uint32_t last = __builtin_bswap32((uint32_t)_mm_extract_epi32(e, 3));
    memcpy(out + 16, &last, 4);
}

/* Four short messages of `blocks` blocks from the IV to their digests. */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_short_four(const uint32_t *iv, int blocks, const unsigned char *const *data,
                 const uint32_t *lengths, unsigned char *const *out) {
    __m128i abcd_a = _mm_set_epi32((int)iv[0], (int)iv[1], (int)iv[2], (int)iv[3]);
    __m128i e_a = _mm_set_epi32((int)iv[4], 0, 0, 0), abcd_b = abcd_a, e_b = e_a;
    __m128i abcd_c = abcd_a, e_c = e_a, abcd_d = abcd_a, e_d = e_a;
    for (int block = 0; block < blocks; block++) {
        __m128i a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3;
        SHANI_SHORT_WORDS(a, data[0], lengths, block, blocks)
        SHANI_SHORT_WORDS(b, data[1], lengths ? lengths + 1 : NULL, block, blocks)
        SHANI_SHORT_WORDS(c, data[2], lengths ? lengths + 2 : NULL, block, blocks)
        SHANI_SHORT_WORDS(d, data[3], lengths ? lengths + 3 : NULL, block, blocks)
        SHA1_SHANI_BLOCK_ABCD;
    }
    shani_store_digest(out[0], abcd_a, e_a);
    shani_store_digest(out[1], abcd_b, e_b);
    shani_store_digest(out[2], abcd_c, e_c);
    shani_store_digest(out[3], abcd_d, e_d);
}

/* The short kernel (native.h: vn_short_fn) of shani-x2: sixteen messages,
 * four at a time; the blocks padded in registers as the lanes' are, the digests
 * stored from the state's. The number of blocks is a constant in each of the
 * two calls, so that both are unrolled. */
__attribute__((target("sha,sse4.1"))) void
vn_sha1_short_shani_x2(const uint32_t *iv, int size, int blocks, const unsigned char *const *data,
                       const uint32_t *lengths, unsigned char *const *out) {
    (void)size; /* always 20 */
    for (int i = 0; i < 16; i += 4) {
        const uint32_t *four = lengths ? lengths + i : NULL;
        if (blocks == 1) {
            shani_short_four(iv, 1, data + i, four, out + i);
        } else {
            shani_short_four(iv, 2, data + i, four, out + i);
        }
    }
}

/* Lanes ia, ib, ic and id (any of them the same is fine). */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_four(uint32_t (*state)[VN_MAX_LANES], const int lane[4], const unsigned char *const *data,
           size_t blocks) {
    __m128i abcd_a = SHANI_GET_ABCD(lane[0]), e_a = _mm_set_epi32((int)state[4][lane[0]], 0, 0, 0);
    __m128i abcd_b = SHANI_GET_ABCD(lane[1]), e_b = _mm_set_epi32((int)state[4][lane[1]], 0, 0, 0);
    __m128i abcd_c = SHANI_GET_ABCD(lane[2]), e_c = _mm_set_epi32((int)state[4][lane[2]], 0, 0, 0);
    __m128i abcd_d = SHANI_GET_ABCD(lane[3]), e_d = _mm_set_epi32((int)state[4][lane[3]], 0, 0, 0);
    const unsigned char *pa = data[lane[0]], *pb = data[lane[1]], *pc = data[lane[2]],
                        *pd = data[lane[3]];
    for (; blocks; blocks--, pa += 64, pb += 64, pc += 64, pd += 64) {
        __m128i a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3;
        SHA1_SHANI_LOAD(a, pa)
        SHA1_SHANI_LOAD(b, pb)
        SHA1_SHANI_LOAD(c, pc)
        SHA1_SHANI_LOAD(d, pd)
        SHA1_SHANI_BLOCK_ABCD;
    }
    SHANI_PUT_STATE(abcd_a, e_a, lane[0]);
    SHANI_PUT_STATE(abcd_b, e_b, lane[1]);
    SHANI_PUT_STATE(abcd_c, e_c, lane[2]);
    SHANI_PUT_STATE(abcd_d, e_d, lane[3]);
}

/* All the lanes, two at a time; an odd one out runs as a pair with itself.
 * Messages of more than one block go four at a time. */
__attribute__((target("sha,sse4.1"))) void vn_sha1_many_shani_x2(vn_lanes *lanes, int count,
                                                                  size_t blocks) {
    int i = 0;
    if (blocks > 1) {
        for (; i + 4 <= count; i += 4) {
            const int lane[4] = {i, i + 1, i + 2, i + 3};
            shani_four(lanes->state, lane, lanes->data, blocks);
        }
    }
    for (; i < count; i += 2) {
        const int j = i + 1 < count ? i + 1 : i;
        shani_pair(lanes->state, i, j, lanes->data[i], lanes->data[j], blocks);
    }
}

/* ---- AVX-512 lanes --------------------------------------------------------- */

/* The AVX2 lanes' rounds (V_ROUNDS80) on zmm: each rotate one vprold, each
 * round function one vpternlogd (Ch 0xca, parity 0x96, Maj 0xe8), the
 * schedule's four-way xor two instructions. */
#define AVX512_TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512bw")))
#define VECTOR_BITS 512
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#undef V_ROL
#undef V_F1
#undef V_F2
#undef V_F3
#undef V_XOR4
#define V_ROL(x, n) _mm512_rol_epi32((x), (n))
#define V_F1(b, c, d) _mm512_ternarylogic_epi32((b), (c), (d), 0xca)
#define V_F2(b, c, d) _mm512_ternarylogic_epi32((b), (c), (d), 0x96)
#define V_F3(b, c, d) _mm512_ternarylogic_epi32((b), (c), (d), 0xe8)
#define V_XOR4(a, b, c, d) _mm512_xor_si512(V_F2((a), (b), (c)), (d))

/* The same for 16 lanes. */
AVX512_TARGET __attribute__((always_inline)) static inline void
store_five_words32_x16(unsigned char *const *out, const __m512i s[5]) {
    const __m512i bswap = _mm512_broadcast_i32x4(_mm_setr_epi8(BSWAP_BYTES));
    const __m512i a = _mm512_shuffle_epi8(s[0], bswap);
    const __m512i b = _mm512_shuffle_epi8(s[1], bswap);
    const __m512i c = _mm512_shuffle_epi8(s[2], bswap);
    const __m512i d = _mm512_shuffle_epi8(s[3], bswap);
    const __m512i e = _mm512_shuffle_epi8(s[4], bswap);
    _Alignas(64) uint32_t last[16];
    _mm512_store_si512((void *)last, e);
    store_four_words32_x16(out, a, b, c, d);
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) memcpy(out[i] + 16, &last[i], 4);
}

#define TARGET AVX512_TARGET
#define KERNEL_NAME vn_sha1_many_avx512_x16
#define KERNEL_SHORT vn_sha1_short_avx512_x16
#define LOAD_WORDS(x, p, offset) (load_words32_x16((x), (p), (offset)), bswap_words32_x16(x))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x16((x), (p), (lengths), 1, (block), (blocks))
#define STORE_DIGESTS(out, size, s) ((void)(size), store_five_words32_x16((out), (s))) /* 20 */
#include "sha_many_lanes.h"

/* ---- both ------------------------------------------------------------------ */

/* Sixteen lanes in zmm when all sixteen are in use, else SHA-NI streams: a
 * zmm call costs the same however few of its lanes work, and a full one
 * costs a message about three quarters of what a SHA-NI stream does (as
 * vn_sha256_many_avx512_shani decides). */
__attribute__((target("sha,sse4.1,avx2,avx512f,avx512vl,avx512bw"))) void
vn_sha1_many_avx512_shani(vn_lanes *lanes, int count, size_t blocks) {
    if (count == 16) {
        vn_sha1_many_avx512_x16(lanes, 16, blocks);
    } else {
        vn_sha1_many_shani_x2(lanes, count, blocks);
    }
}

#endif
