/*
 * SHA-256 of many messages at once on AArch64 with the ARMv8 SHA2
 * instructions: two messages, their instructions interleaved.
 *
 *   sha2-x2   sha256h and sha256h2 each wait for the other's previous result
 *             (a latency of 3 to 4 cycles on common cores, one issued a
 *             cycle), so one stream leaves the unit idle most of the time; a
 *             second, independent stream fills it, as Linux's arm64
 *             sha256_finup_2x does for the same reason
 *
 * As sha256_arm64.c, twice; only the functions that run rounds are compiled
 * for SHA2. The short kernel beside it (vn_sha256_short_sha2_x2) pads each
 * stream's four words by the tables, as x86-64's SHA-NI one does.
 */
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

#include "sha256_sha2.h"
#include "sha256_pairs.h"

/* The two streams' four rounds with message words wa, wb (W[4i..4i+3]). */
#define SHA256_PAIR_ROUNDS4(wa, wb, i)                               \
    do {                                                             \
        const uint32x4_t k = vld1q_u32(&vn_sha256_k[4 * (i)]);       \
        const uint32x4_t wka = vaddq_u32((wa), k), wkb = vaddq_u32((wb), k); \
        const uint32x4_t abcd_a_in = abcd_a, abcd_b_in = abcd_b;     \
        abcd_a = vsha256hq_u32(abcd_a, efgh_a, wka);                 \
        abcd_b = vsha256hq_u32(abcd_b, efgh_b, wkb);                 \
        efgh_a = vsha256h2q_u32(efgh_a, abcd_a_in, wka);             \
        efgh_b = vsha256h2q_u32(efgh_b, abcd_b_in, wkb);             \
    } while (0)


/* Lane i's state words 4h .. 4h+3. */
static inline uint32x4_t get_state(uint32_t (*state)[VN_MAX_LANES], int h, int i) {
    const uint32_t words[4] = {state[4 * h][i], state[4 * h + 1][i], state[4 * h + 2][i],
                               state[4 * h + 3][i]};
    return vld1q_u32(words);
}

static inline void put_state(uint32_t (*state)[VN_MAX_LANES], int h, int i, uint32x4_t v) {
    uint32_t words[4];
    vst1q_u32(words, v);
    for (int j = 0; j < 4; j++) state[4 * h + j][i] = words[j];
}

/* One block of both streams: the words wa[0..3], wb[0..3] (big-endian,
 * W[4q..4q+3]) through the states abcd[s], efgh[s] (s = 0, 1), which are
 * added back. */
TARGET_SHA2 static inline void sha2_pair_block(uint32x4_t abcd[2], uint32x4_t efgh[2],
                                               const uint32x4_t wa[4], const uint32x4_t wb[4]) {
    uint32x4_t abcd_a = abcd[0], efgh_a = efgh[0], abcd_b = abcd[1], efgh_b = efgh[1];
    uint32x4_t a0 = wa[0], a1 = wa[1], a2 = wa[2], a3 = wa[3];
    uint32x4_t b0 = wb[0], b1 = wb[1], b2 = wb[2], b3 = wb[3];
    SHA256_PAIR_ROUNDS64(a0, a1, a2, a3, b0, b1, b2, b3);
    abcd[0] = vaddq_u32(abcd[0], abcd_a);
    efgh[0] = vaddq_u32(efgh[0], efgh_a);
    abcd[1] = vaddq_u32(abcd[1], abcd_b);
    efgh[1] = vaddq_u32(efgh[1], efgh_b);
}

/* The block at p as big-endian words w[0..3]. */
static inline void sha2_words(uint32x4_t w[4], const unsigned char *p) {
    w[0] = SHA256_LOAD4(p);
    w[1] = SHA256_LOAD4(p + 16);
    w[2] = SHA256_LOAD4(p + 32);
    w[3] = SHA256_LOAD4(p + 48);
}

/* Lanes ia and ib (the same lane twice is fine: both write the same). */
TARGET_SHA2 static inline void sha2_pair(uint32_t (*state)[VN_MAX_LANES], int ia, int ib,
                                         const unsigned char *pa, const unsigned char *pb,
                                         size_t blocks) {
    uint32x4_t abcd[2] = {get_state(state, 0, ia), get_state(state, 0, ib)};
    uint32x4_t efgh[2] = {get_state(state, 1, ia), get_state(state, 1, ib)};
    for (; blocks; blocks--, pa += 64, pb += 64) {
        uint32x4_t wa[4], wb[4];
        sha2_words(wa, pa);
        sha2_words(wb, pb);
        sha2_pair_block(abcd, efgh, wa, wb);
    }
    put_state(state, 0, ia, abcd[0]);
    put_state(state, 1, ia, efgh[0]);
    put_state(state, 0, ib, abcd[1]);
    put_state(state, 1, ib, efgh[1]);
}

/* A short message's words w[0..3] of block `block` of `blocks` (see
 * vn_short_fn): its bytes at p masked and padded by the tables (native.h:
 * vn_short_keep), its length in bits in the last block's word 15; as they
 * are where the blocks are padded already (length NULL). */
static inline void sha2_short_words(uint32x4_t w[4], const unsigned char *p,
                                    const uint32_t *length, int block, int blocks) {
    if (!length) {
        sha2_words(w, p + 64 * block);
        return;
    }
    const size_t at = vn_short_at(*length, block);
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        uint8x16_t row = vld1q_u8(vn_short_end + at + 16 * q);
        if (block == 0) row = vorrq_u8(row, vandq_u8(vld1q_u8(p + 16 * q),
                                                     vld1q_u8(vn_short_keep + at + 16 * q)));
        w[q] = vreinterpretq_u32_u8(vrev32q_u8(row));
    }
    if (block == blocks - 1) w[3] = vsetq_lane_u32(*length << 3, w[3], 3);
}

/* A state's first `size` bytes (28 or 32) of digest at out. */
static inline void sha2_store_digest(unsigned char *out, int size, uint32x4_t abcd,
                                     uint32x4_t efgh) {
    const uint8x16_t first = vrev32q_u8(vreinterpretq_u8_u32(abcd));
    const uint8x16_t second = vrev32q_u8(vreinterpretq_u8_u32(efgh));
    vst1q_u8(out, first);
    if (size == 32) {
        vst1q_u8(out + 16, second);
    } else {
        vst1_u8(out + 16, vget_low_u8(second));
        vst1q_lane_u32((uint32_t *)(void *)(out + 24), vreinterpretq_u32_u8(second), 2);
    }
}

/* Two short messages of `blocks` blocks from the IV (abcd0, efgh0) to their digests. */
TARGET_SHA2 static inline void sha2_short_pair(uint32x4_t abcd0, uint32x4_t efgh0, int size,
                                               int blocks, const unsigned char *const *data,
                                               const uint32_t *lengths,
                                               unsigned char *const *out) {
    uint32x4_t abcd[2] = {abcd0, abcd0}, efgh[2] = {efgh0, efgh0};
    for (int block = 0; block < blocks; block++) {
        uint32x4_t wa[4], wb[4];
        sha2_short_words(wa, data[0], lengths, block, blocks);
        sha2_short_words(wb, data[1], lengths ? lengths + 1 : NULL, block, blocks);
        sha2_pair_block(abcd, efgh, wa, wb);
    }
    sha2_store_digest(out[0], size, abcd[0], efgh[0]);
    sha2_store_digest(out[1], size, abcd[1], efgh[1]);
}

/* The short kernel (native.h: vn_short_fn) of sha2-x2: sixteen messages in
 * eight pairs, as vn_sha256_short_shani_x2 on x86-64. */
TARGET_SHA2 void vn_sha256_short_sha2_x2(const uint32_t *iv, int size, int blocks,
                                         const unsigned char *const *data,
                                         const uint32_t *lengths, unsigned char *const *out) {
    const uint32x4_t abcd0 = vld1q_u32(iv), efgh0 = vld1q_u32(iv + 4);
    for (int i = 0; i < 16; i += 2) {
        const uint32_t *pair = lengths ? lengths + i : NULL;
        if (blocks == 1) {
            sha2_short_pair(abcd0, efgh0, size, 1, data + i, pair, out + i);
        } else {
            sha2_short_pair(abcd0, efgh0, size, 2, data + i, pair, out + i);
        }
    }
}

/* All the lanes, two at a time (an odd one out as a pair with itself). */
TARGET_SHA2 void vn_sha256_many_sha2_x2(vn_lanes *lanes, int count, size_t blocks) {
    for (int i = 0; i < count; i += 2) {
        const int j = i + 1 < count ? i + 1 : i;
        sha2_pair(lanes->state, i, j, lanes->data[i], lanes->data[j], blocks);
    }
}

#endif
