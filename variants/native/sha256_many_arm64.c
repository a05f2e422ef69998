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
 * As sha256_arm64.c, twice; only this function is compiled for SHA2.
 */
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

#include "sha256_sha2.h"

/* The two streams' four rounds with message words wa, wb (W[4i..4i+3]). */
#define ROUNDS4_X2(wa, wb, i)                                        \
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

/* Lanes ia and ib (the same lane twice is fine: both write the same). */
TARGET_SHA2 static inline void sha2_pair(uint32_t (*state)[VN_MAX_LANES], int ia, int ib,
                                         const unsigned char *pa, const unsigned char *pb,
                                         size_t blocks) {
    uint32x4_t abcd_a = get_state(state, 0, ia), efgh_a = get_state(state, 1, ia);
    uint32x4_t abcd_b = get_state(state, 0, ib), efgh_b = get_state(state, 1, ib);
    for (; blocks; blocks--, pa += 64, pb += 64) {
        const uint32x4_t abcd_a0 = abcd_a, efgh_a0 = efgh_a, abcd_b0 = abcd_b, efgh_b0 = efgh_b;
        uint32x4_t a0 = LOAD(pa), a1 = LOAD(pa + 16), a2 = LOAD(pa + 32), a3 = LOAD(pa + 48);
        uint32x4_t b0 = LOAD(pb), b1 = LOAD(pb + 16), b2 = LOAD(pb + 32), b3 = LOAD(pb + 48);
        ROUNDS4_X2(a0, b0, 0);
        ROUNDS4_X2(a1, b1, 1);
        ROUNDS4_X2(a2, b2, 2);
        ROUNDS4_X2(a3, b3, 3);
#pragma GCC unroll 3
        for (int i = 4; i < 16; i += 4) {
            a0 = SCHEDULE(a0, a1, a2, a3);
            b0 = SCHEDULE(b0, b1, b2, b3);
            ROUNDS4_X2(a0, b0, i);
            a1 = SCHEDULE(a1, a2, a3, a0);
            b1 = SCHEDULE(b1, b2, b3, b0);
            ROUNDS4_X2(a1, b1, i + 1);
            a2 = SCHEDULE(a2, a3, a0, a1);
            b2 = SCHEDULE(b2, b3, b0, b1);
            ROUNDS4_X2(a2, b2, i + 2);
            a3 = SCHEDULE(a3, a0, a1, a2);
            b3 = SCHEDULE(b3, b0, b1, b2);
            ROUNDS4_X2(a3, b3, i + 3);
        }
        abcd_a = vaddq_u32(abcd_a, abcd_a0);
        efgh_a = vaddq_u32(efgh_a, efgh_a0);
        abcd_b = vaddq_u32(abcd_b, abcd_b0);
        efgh_b = vaddq_u32(efgh_b, efgh_b0);
    }
    put_state(state, 0, ia, abcd_a);
    put_state(state, 1, ia, efgh_a);
    put_state(state, 0, ib, abcd_b);
    put_state(state, 1, ib, efgh_b);
}

/* All the lanes, two at a time (an odd one out as a pair with itself). */
TARGET_SHA2 void vn_sha256_many_sha2_x2(vn_lanes *lanes, int count, size_t blocks) {
    for (int i = 0; i < count; i += 2) {
        const int j = i + 1 < count ? i + 1 : i;
        sha2_pair(lanes->state, i, j, lanes->data[i], lanes->data[j], blocks);
    }
}

#endif
