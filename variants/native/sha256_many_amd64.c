/*
 * SHA-256 of many messages at once on x86-64.
 *
 *   shani-x2      messages two at a time through the SHA extensions, the two
 *                 streams' instructions interleaved: sha256rnds2 has a latency
 *                 of several cycles, so one stream leaves the unit idle and
 *                 two fill it; three or four were no faster (the unit is
 *                 then busy, and the instructions only reach xmm0-15). Up
 *                 to 16 messages a call, in pairs, so that the scheduler's
 *                 work is shared by more.
 *   avx2-x8       one message per 32-bit lane of ymm (sha_many_lanes.h):
 *                 for CPUs without SHA-NI
 *   avx512-x8     AVX-512 VL on ymm: vprord rotates, vpternlogd for the
 *                 three-input functions and the three-way xors of the sigmas
 *   avx512-x16    the same on zmm: about the cost of a SHA-NI stream a lane
 *                 here, as it is bound by the vector units' throughput
 *                 (formulations with plain xors, or nested rotates, were no
 *                 faster)
 *   avx512-shani  zmm when all 16 lanes are busy, else SHA-NI pairs
 *
 * Each kernel has a short kernel beside it (native.h: vn_short_fn): sixteen
 * (or eight) messages of at most 64 bytes read in place, padded in the
 * registers, the digests stored from the state's registers. Both kernels
 * with zmm lanes have vn_sha256_short_avx512_x16; the ymm ones pad each
 * lane's row by the tables (short_words32_x8), and so does shani-x2 each
 * stream's four words (vn_sha256_short_shani_x2). (What a 32-byte message
 * costs through them: docs/development.md, "The kernels' measurements".)
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>
#include <string.h>

#include "lanes_amd64.h"
#include "sha2_many_rounds.h"
#include "sha256_shani.h"
#include "shani_short.h"
#include "sha256_pairs.h"

/* ---- SHA-NI, two streams ------------------------------------------------ */

/* The two streams' four rounds with message words wa, wb (W[4i..4i+3]); as
 * ROUNDS4 in sha256_amd64.c, each instruction once per stream in turn. */
#define SHA256_PAIR_ROUNDS4(wa, wb, i)                                                 \
    do {                                                                               \
        const __m128i k = _mm_loadu_si128((const __m128i *)&vn_sha256_k[4 * (i)]);    \
        const __m128i wka = _mm_add_epi32((wa), k), wkb = _mm_add_epi32((wb), k);      \
        cdgh_a = _mm_sha256rnds2_epu32(cdgh_a, abef_a, wka);                           \
        cdgh_b = _mm_sha256rnds2_epu32(cdgh_b, abef_b, wkb);                           \
        abef_a = _mm_sha256rnds2_epu32(abef_a, cdgh_a, _mm_shuffle_epi32(wka, 0x0e));  \
        abef_b = _mm_sha256rnds2_epu32(abef_b, cdgh_b, _mm_shuffle_epi32(wkb, 0x0e));  \
    } while (0)

/* Lane `i`'s state as ABEF = (f, e, b, a) and CDGH = (h, g, d, c), from vector lane 0. */
#define GET_STATE(abef, cdgh, i)                                                  \
    do {                                                                          \
        abef = _mm_set_epi32((int)state[0][i], (int)state[1][i], (int)state[4][i], \
                             (int)state[5][i]);                                   \
        cdgh = _mm_set_epi32((int)state[2][i], (int)state[3][i], (int)state[6][i], \
                             (int)state[7][i]);                                   \
    } while (0)
#define PUT_STATE(abef, cdgh, i)                                \
    do {                                                        \
        state[0][i] = (uint32_t)_mm_extract_epi32((abef), 3);   \
        state[1][i] = (uint32_t)_mm_extract_epi32((abef), 2);   \
        state[4][i] = (uint32_t)_mm_extract_epi32((abef), 1);   \
        state[5][i] = (uint32_t)_mm_cvtsi128_si32(abef);        \
        state[2][i] = (uint32_t)_mm_extract_epi32((cdgh), 3);   \
        state[3][i] = (uint32_t)_mm_extract_epi32((cdgh), 2);   \
        state[6][i] = (uint32_t)_mm_extract_epi32((cdgh), 1);   \
        state[7][i] = (uint32_t)_mm_cvtsi128_si32(cdgh);        \
    } while (0)

/* One block of both streams: the words wa[0..3], wb[0..3] (big-endian,
 * W[4q..4q+3]) through the states abef[s], cdgh[s] (s = 0, 1), which are
 * added back. */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_pair_block(__m128i abef[2], __m128i cdgh[2], const __m128i wa[4], const __m128i wb[4]) {
    __m128i abef_a = abef[0], cdgh_a = cdgh[0], abef_b = abef[1], cdgh_b = cdgh[1];
    __m128i a0 = wa[0], a1 = wa[1], a2 = wa[2], a3 = wa[3];
    __m128i b0 = wb[0], b1 = wb[1], b2 = wb[2], b3 = wb[3];
    SHA256_PAIR_ROUNDS64(a0, a1, a2, a3, b0, b1, b2, b3);
    abef[0] = _mm_add_epi32(abef[0], abef_a);
    cdgh[0] = _mm_add_epi32(cdgh[0], cdgh_a);
    abef[1] = _mm_add_epi32(abef[1], abef_b);
    cdgh[1] = _mm_add_epi32(cdgh[1], cdgh_b);
}

/* The block at p as big-endian words w[0..3]. */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_words(__m128i w[4], const unsigned char *p) {
    const __m128i bswap = SHANI_BSWAP;
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        w[q] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * q)), bswap);
    }
}

/* Lanes ia and ib (the same lane twice is fine: both write the same). */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_pair(uint32_t (*state)[VN_MAX_LANES], int ia, int ib, const unsigned char *pa,
           const unsigned char *pb, size_t blocks) {
    __m128i abef[2], cdgh[2];
    GET_STATE(abef[0], cdgh[0], ia);
    GET_STATE(abef[1], cdgh[1], ib);
    for (; blocks; blocks--, pa += 64, pb += 64) {
        __m128i wa[4], wb[4];
        shani_words(wa, pa);
        shani_words(wb, pb);
        shani_pair_block(abef, cdgh, wa, wb);
    }
    PUT_STATE(abef[0], cdgh[0], ia);
    PUT_STATE(abef[1], cdgh[1], ib);
}

/* A short message's words w[0..3] of block `block` of `blocks` (see
 * vn_short_fn): its rows padded by the tables (shani_short_rows), its length
 * in bits in the last block's word 15; as they are where the blocks are
 * padded already (length NULL). */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_short_words(__m128i w[4], const unsigned char *p, const uint32_t *length, int block,
                  int blocks) {
    if (!length) {
        shani_words(w, p + 64 * block);
        return;
    }
    shani_short_rows(w, p, *length, block, SHANI_BSWAP);
    if (block == blocks - 1) w[3] = _mm_insert_epi32(w[3], (int)(*length << 3), 3);
}

/* A state's first `size` bytes (28 or 32) of digest at out. */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_store_digest(unsigned char *out, int size, __m128i abef, __m128i cdgh) {
    const __m128i bswap = SHANI_BSWAP;
    const __m128i abef_in_order = _mm_shuffle_epi32(abef, 0x1b); /* (a, b, e, f) */
    const __m128i cdgh_in_order = _mm_shuffle_epi32(cdgh, 0x1b); /* (c, d, g, h) */
    const __m128i abcd = _mm_shuffle_epi8(_mm_unpacklo_epi64(abef_in_order, cdgh_in_order), bswap);
    const __m128i efgh = _mm_shuffle_epi8(_mm_unpackhi_epi64(abef_in_order, cdgh_in_order), bswap);
    _mm_storeu_si128((__m128i *)out, abcd);
    if (size == 32) {
        _mm_storeu_si128((__m128i *)(out + 16), efgh);
    } else {
        _mm_storel_epi64((__m128i *)(out + 16), efgh);
        const int g = _mm_extract_epi32(efgh, 2);
        memcpy(out + 24, &g, 4);
    }
}

/* Two short messages of `blocks` blocks from the IV (abef0, cdgh0) to their
 * digests. */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_short_pair(__m128i abef0, __m128i cdgh0, int size, int blocks,
                 const unsigned char *const *data, const uint32_t *lengths,
                 unsigned char *const *out) {
    __m128i abef[2] = {abef0, abef0}, cdgh[2] = {cdgh0, cdgh0};
    for (int block = 0; block < blocks; block++) {
        __m128i wa[4], wb[4];
        shani_short_words(wa, data[0], lengths, block, blocks);
        shani_short_words(wb, data[1], lengths ? lengths + 1 : NULL, block, blocks);
        shani_pair_block(abef, cdgh, wa, wb);
    }
    shani_store_digest(out[0], size, abef[0], cdgh[0]);
    shani_store_digest(out[1], size, abef[1], cdgh[1]);
}

/* The short kernel (native.h: vn_short_fn) of shani-x2: sixteen messages in
 * eight pairs; the blocks padded in registers as the lanes' are, the digests
 * stored from the state's. The number of blocks is a constant in each of the
 * two calls, so that both are unrolled. */
__attribute__((target("sha,sse4.1"))) void
vn_sha256_short_shani_x2(const uint32_t *iv, int size, int blocks,
                         const unsigned char *const *data, const uint32_t *lengths,
                         unsigned char *const *out) {
    const __m128i abef0 = _mm_set_epi32((int)iv[0], (int)iv[1], (int)iv[4], (int)iv[5]);
    const __m128i cdgh0 = _mm_set_epi32((int)iv[2], (int)iv[3], (int)iv[6], (int)iv[7]);
    for (int i = 0; i < 16; i += 2) {
        const uint32_t *pair = lengths ? lengths + i : NULL;
        if (blocks == 1) {
            shani_short_pair(abef0, cdgh0, size, 1, data + i, pair, out + i);
        } else {
            shani_short_pair(abef0, cdgh0, size, 2, data + i, pair, out + i);
        }
    }
}

/* All the lanes, two at a time: the scheduler keeps many messages in flight
 * (fewer, longer calls from it), and an odd one out runs as a pair with
 * itself, which costs what one stream alone does. */
__attribute__((target("sha,sse4.1"))) void vn_sha256_many_shani_x2(vn_lanes *lanes, int count,
                                                                    size_t blocks) {
    for (int i = 0; i < count; i += 2) {
        const int j = i + 1 < count ? i + 1 : i;
        shani_pair(lanes->state, i, j, lanes->data[i], lanes->data[j], blocks);
    }
}

/* ---- vector lanes ------------------------------------------------------- */

__attribute__((target("avx2"), always_inline)) static inline void
load_be_words32_x8(__m256i x[16], const unsigned char *const *p, size_t offset) {
    load_words32_x8(x, p, offset);
    bswap_words32_x8(x);
}

/* AVX2: rotates are two shifts and an or; a sigma's three rotates, six
 * shifts and five xors. Ch and Maj in three instructions each (Maj's a ^ b
 * is the next round's b ^ c: the compiler keeps it). */
#define AVX2_SHR(x, n) _mm256_srli_epi32((x), (n))
#define AVX2_SHL(x, n) _mm256_slli_epi32((x), (n))
#define AVX2_X(a, b) _mm256_xor_si256((a), (b))
#define AVX2_ROR3(x, r1, r2, r3)                                                            \
    AVX2_X(AVX2_X(AVX2_X(AVX2_SHR(x, r1), AVX2_SHL(x, 32 - (r1))),                         \
                  AVX2_X(AVX2_SHR(x, r2), AVX2_SHL(x, 32 - (r2)))),                        \
           AVX2_X(AVX2_SHR(x, r3), AVX2_SHL(x, 32 - (r3))))
#define AVX2_SSIG(x, r1, r2, s)                                                             \
    AVX2_X(AVX2_X(AVX2_X(AVX2_SHR(x, r1), AVX2_SHL(x, 32 - (r1))),                         \
                  AVX2_X(AVX2_SHR(x, r2), AVX2_SHL(x, 32 - (r2)))),                        \
           AVX2_SHR(x, s))

/* Lane i's eight state words, big-endian, to out[i]: its first `size` bytes
 * (28 or 32). Two rounds of unpacking leave lane k's a, b, c, d in the low
 * half of u[k] and its e, f, g, h in the low half of v[k], lane 4 + k's in
 * their high halves. */
__attribute__((target("avx2"), always_inline)) static inline void
store_digests32_x8(unsigned char *const *out, int size, const __m256i s[8]) {
    const __m256i a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    const __m256i bswap = _mm256_setr_epi8(BSWAP_BYTES, BSWAP_BYTES);
    const __m256i ab0 = _mm256_unpacklo_epi32(a, b), ab1 = _mm256_unpackhi_epi32(a, b);
    const __m256i cd0 = _mm256_unpacklo_epi32(c, d), cd1 = _mm256_unpackhi_epi32(c, d);
    const __m256i ef0 = _mm256_unpacklo_epi32(e, f), ef1 = _mm256_unpackhi_epi32(e, f);
    const __m256i gh0 = _mm256_unpacklo_epi32(g, h), gh1 = _mm256_unpackhi_epi32(g, h);
    const __m256i u[4] = {_mm256_unpacklo_epi64(ab0, cd0), _mm256_unpackhi_epi64(ab0, cd0),
                          _mm256_unpacklo_epi64(ab1, cd1), _mm256_unpackhi_epi64(ab1, cd1)};
    const __m256i v[4] = {_mm256_unpacklo_epi64(ef0, gh0), _mm256_unpackhi_epi64(ef0, gh0),
                          _mm256_unpacklo_epi64(ef1, gh1), _mm256_unpackhi_epi64(ef1, gh1)};
    const __m256i words = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, -1, size == 32 ? -1 : 0);
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        const __m256i lo = _mm256_shuffle_epi8(_mm256_permute2x128_si256(u[k], v[k], 0x20), bswap);
        const __m256i hi = _mm256_shuffle_epi8(_mm256_permute2x128_si256(u[k], v[k], 0x31), bswap);
        _mm256_maskstore_epi32((int *)out[k], words, lo);
        _mm256_maskstore_epi32((int *)out[4 + k], words, hi);
    }
}

#define SHA2_K vn_sha256_k
#define SHA2_ROUNDS 64
#define STATE_WORDS 8
#define BLOCK_SETUP SHA2_K_SETUP
#define BLOCK_ROUNDS SHA2_ROUNDS_INDEXED

#define VECTOR_BITS 256
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#define AVX2_BSIG0(x) AVX2_ROR3(x, 2, 13, 22)
#define AVX2_BSIG1(x) AVX2_ROR3(x, 6, 11, 25)
#define AVX2_SSIG0(x) AVX2_SSIG(x, 7, 18, 3)
#define AVX2_SSIG1(x) AVX2_SSIG(x, 17, 19, 10)
#define AVX2_CH(e, f, g) AVX2_X((g), _mm256_and_si256((e), AVX2_X((f), (g))))
#define AVX2_MAJ(a, b, c) AVX2_X((b), _mm256_and_si256(AVX2_X((a), (b)), AVX2_X((b), (c))))
#define SHA2_FN(name) AVX2_##name
#define TARGET __attribute__((target("avx2")))
#define KERNEL_NAME vn_sha256_many_avx2_x8
#define KERNEL_AT avx2_x8_at
#define KERNEL_SHORT vn_sha256_short_avx2_x8
#define LOAD_WORDS(x, p, offset) load_be_words32_x8((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x8((x), (p), (lengths), 1, (block), (blocks))
#define STORE_DIGESTS(out, size, s) store_digests32_x8((out), (size), (s))
#include "sha_many_lanes.h"
#undef SHA2_FN
#undef TARGET

/* AVX-512, at either width: Ch = e ? f : g (0xca), Maj = majority (0xe8),
 * three-way xor (0x96). */
#define AVX512_TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512bw")))
#define TARGET AVX512_TARGET
#define X3(a, b, c) V_OP(ternarylogic_epi32)((a), (b), (c), 0x96)
#define ROR(x, n) V_OP(ror_epi32)((x), (n))
#define SHR(x, n) V_OP(srli_epi32)((x), (n))
#define AVX512_BSIG0(x) X3(ROR(x, 2), ROR(x, 13), ROR(x, 22))
#define AVX512_BSIG1(x) X3(ROR(x, 6), ROR(x, 11), ROR(x, 25))
#define AVX512_SSIG0(x) X3(ROR(x, 7), ROR(x, 18), SHR(x, 3))
#define AVX512_SSIG1(x) X3(ROR(x, 17), ROR(x, 19), SHR(x, 10))
#define AVX512_CH(e, f, g) V_OP(ternarylogic_epi32)((e), (f), (g), 0xca)
#define AVX512_MAJ(a, b, c) V_OP(ternarylogic_epi32)((a), (b), (c), 0xe8)
#define SHA2_FN(name) AVX512_##name

#define VECTOR_BITS 256
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#define KERNEL_NAME vn_sha256_many_avx512_x8
#define KERNEL_AT avx512_x8_at
#define KERNEL_SHORT vn_sha256_short_avx512_x8
#define LOAD_WORDS(x, p, offset) load_be_words32_x8((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x8((x), (p), (lengths), 1, (block), (blocks))
#define STORE_DIGESTS(out, size, s) store_digests32_x8((out), (size), (s))
#include "sha_many_lanes.h"

/* Lane i's eight state words, big-endian, to out[i]: its first `size` bytes
 * (28 or 32). Two rounds of unpacking leave lane 4c + k's a, b, c, d in
 * 128-bit part c of u[k] and its e, f, g, h in part c of v[k]; a permute
 * puts two lanes' 32 bytes into each zmm. */
AVX512_TARGET static inline void store_digests32_x16(unsigned char *const *out, int size,
                                                     const __m512i s[8]) {
    const __m512i a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    const __m512i bswap = _mm512_broadcast_i32x4(_mm_setr_epi8(BSWAP_BYTES));
    const __m512i ab0 = _mm512_unpacklo_epi32(a, b), ab1 = _mm512_unpackhi_epi32(a, b);
    const __m512i cd0 = _mm512_unpacklo_epi32(c, d), cd1 = _mm512_unpackhi_epi32(c, d);
    const __m512i ef0 = _mm512_unpacklo_epi32(e, f), ef1 = _mm512_unpackhi_epi32(e, f);
    const __m512i gh0 = _mm512_unpacklo_epi32(g, h), gh1 = _mm512_unpackhi_epi32(g, h);
    const __m512i u[4] = {_mm512_unpacklo_epi64(ab0, cd0), _mm512_unpackhi_epi64(ab0, cd0),
                          _mm512_unpacklo_epi64(ab1, cd1), _mm512_unpackhi_epi64(ab1, cd1)};
    const __m512i v[4] = {_mm512_unpacklo_epi64(ef0, gh0), _mm512_unpackhi_epi64(ef0, gh0),
                          _mm512_unpacklo_epi64(ef1, gh1), _mm512_unpackhi_epi64(ef1, gh1)};
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);  /* parts 0, 1 */
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15); /* parts 2, 3 */
    const __mmask8 words = size == 32 ? 0xff : 0x7f;
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        __m512i lo = _mm512_permutex2var_epi64(u[k], first, v[k]);
        __m512i hi = _mm512_permutex2var_epi64(u[k], second, v[k]);
        lo = _mm512_shuffle_epi8(lo, bswap);
        hi = _mm512_shuffle_epi8(hi, bswap);
        _mm256_mask_storeu_epi32(out[k], words, _mm512_castsi512_si256(lo));
        _mm256_mask_storeu_epi32(out[4 + k], words, _mm512_extracti64x4_epi64(lo, 1));
        _mm256_mask_storeu_epi32(out[8 + k], words, _mm512_castsi512_si256(hi));
        _mm256_mask_storeu_epi32(out[12 + k], words, _mm512_extracti64x4_epi64(hi, 1));
    }
}

#define VECTOR_BITS 512
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#define KERNEL_NAME vn_sha256_many_avx512_x16
#define KERNEL_AT avx512_x16_at
#define KERNEL_SHORT vn_sha256_short_avx512_x16
#define LOAD_WORDS(x, p, offset) (load_words32_x16((x), (p), (offset)), bswap_words32_x16(x))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x16((x), (p), (lengths), 1, (block), (blocks))
#define STORE_DIGESTS(out, size, s) store_digests32_x16((out), (size), (s))
#include "sha_many_lanes.h"

/* ---- both ------------------------------------------------------------------- */

/* Sixteen lanes in zmm when all sixteen are in use, else SHA-NI pairs: a zmm
 * call costs the same with one lane as with sixteen, and here a zmm lane
 * costs about what a SHA-NI stream does (a little less), so zmm pays only
 * when full; with fewer messages in flight (a handful of files streaming,
 * the last messages of a batch) the pairs keep all of them at SHA-NI's
 * speed. */
__attribute__((target("sha,sse4.1,avx2,avx512f,avx512vl,avx512bw"))) void
vn_sha256_many_avx512_shani(vn_lanes *lanes, int count, size_t blocks) {
    if (count == 16) {
        avx512_x16_at(lanes, 0, 16, blocks);
        return;
    }
    for (int i = 0; i < count; i += 2) {
        const int j = i + 1 < count ? i + 1 : i;
        shani_pair(lanes->state, i, j, lanes->data[i], lanes->data[j], blocks);
    }
}

#endif
