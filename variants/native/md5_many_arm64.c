/*
 * MD5 of many messages at once on AArch64: one message per 32-bit lane of
 * the 128-bit NEON registers (part of the AArch64 baseline), the body in
 * md5_many_lanes.h.
 *
 *   neon-x4   one set of 4 lanes
 *   neon-x8   two interleaved sets of 4: a step's chain is four or five
 *             dependent instructions (bsl or two eors, add, shl + sri for the
 *             rotate, add), each of 2 or more cycles' latency on common cores,
 *             so one set leaves the vector pipes mostly idle
 *
 * The round functions: F = bsl(b, c, d) and G = bsl(d, b, c) select bits in
 * one instruction, I uses orn (b | ~d). Rotates by 16 are one rev32 on
 * halfwords. Blocks are loaded 16 bytes per lane and transposed in fours
 * (trn1/trn2 on words, then on doublewords). Dispatch takes neon-x8: its
 * speed on hardware was not measured here (the tests run under qemu); two
 * sets is what the chain's latency calls for, as on x86-64.
 *
 * Each has a short kernel beside it (native.h: vn_short_fn, as on x86-64):
 * messages of at most 64 bytes read in place, each lane's row padded by the
 * tables as it is loaded (short_words32_x4), the digests stored from the
 * state's registers with one interleaving store a lane.
 */
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

/* x[0..3] = word 0..3 of the rows r[0..3] (4 words each): a 4 x 4 transpose. */
static inline void transpose32_x4(uint32x4_t x[4], const uint32x4_t r[4]) {
    /* (r0 w0, r1 w0, r0 w2, r1 w2), (r0 w1, r1 w1, r0 w3, r1 w3), and for r2, r3 */
    const uint32x4_t t0 = vtrn1q_u32(r[0], r[1]), t1 = vtrn2q_u32(r[0], r[1]);
    const uint32x4_t t2 = vtrn1q_u32(r[2], r[3]), t3 = vtrn2q_u32(r[2], r[3]);
#define PAIRS(op, a, b) \
    vreinterpretq_u32_u64(op(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b)))
    x[0] = PAIRS(vtrn1q_u64, t0, t2);
    x[1] = PAIRS(vtrn1q_u64, t1, t3);
    x[2] = PAIRS(vtrn2q_u64, t0, t2);
    x[3] = PAIRS(vtrn2q_u64, t1, t3);
#undef PAIRS
}

/* x[j] = word j of the block at p[lane] + offset, for 4 lanes. */
static inline void load_words32_x4(uint32x4_t x[16], const unsigned char *const *p, size_t offset) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        uint32x4_t r[4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            r[i] = vld1q_u32((const uint32_t *)(const void *)(p[i] + offset + 16 * q));
        }
        transpose32_x4(x + 4 * q, r);
    }
}

/* Words x[0..15] of block `block` of `blocks` of 4 lanes' messages (native.h:
 * vn_short_fn): each lane's row padded as it is loaded, by the tables
 * (vn_short_keep), then transposed, the length in bits in the last block's
 * word 14; as they are where the blocks are padded already (lengths NULL). */
static inline void short_words32_x4(uint32x4_t x[16], const unsigned char *const *p,
                                  const uint32_t *lengths, int block, int blocks) {
    if (!lengths) {
        load_words32_x4(x, p, 64 * (size_t)block);
        return;
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        uint32x4_t r[4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            const size_t at = vn_short_at(lengths[i], block) + 16 * (size_t)q;
            uint8x16_t row = vld1q_u8(vn_short_end + at);
            if (block == 0) row = vorrq_u8(row, vandq_u8(vld1q_u8(p[i] + 16 * q),
                                                         vld1q_u8(vn_short_keep + at)));
            r[i] = vreinterpretq_u32_u8(row);
        }
        transpose32_x4(x + 4 * q, r);
    }
    if (block == blocks - 1) x[14] = vshlq_n_u32(vld1q_u32(lengths), 3);
}

/* Lane i's four state words to out[i], for 4 lanes: each lane's a, b, c, d
 * stored together by one interleaving store. */
static inline void store_four_words32_x4(unsigned char *const *out, uint32x4_t a, uint32x4_t b,
                                    uint32x4_t c, uint32x4_t d) {
    const uint32x4x4_t state = {{a, b, c, d}};
    vst4q_lane_u32((uint32_t *)(void *)out[0], state, 0);
    vst4q_lane_u32((uint32_t *)(void *)out[1], state, 1);
    vst4q_lane_u32((uint32_t *)(void *)out[2], state, 2);
    vst4q_lane_u32((uint32_t *)(void *)out[3], state, 3);
}

#define TARGET
#define V uint32x4_t
#define VL 4
#define V_LOAD(p) vld1q_u32(p)
#define V_STORE(p, v) vst1q_u32((p), (v))
#define V_ADD(a, b) vaddq_u32((a), (b))
#define V_SET1(x) vdupq_n_u32(x)
#define KADD(v, n) vaddq_u32((v), vld1q_dup_u32(&KT[n]))
#define ROL(v, s)                                                                \
    ((s) == 16 ? vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(v))) \
               : vsriq_n_u32(vshlq_n_u32((v), (s)), (v), 32 - (s)))
#define BARRIER(v) __asm__("" : "+w"(v))
#define LATE1(b, c, d) vbslq_u32((b), (c), (d))
#define EARLY2(sum, c, d)
#define LATE2(b, c, d) vbslq_u32((d), (b), (c))
#define LATE3(b, c, d) veorq_u32((b), veorq_u32((c), (d)))
#define LATE4(b, c, d) veorq_u32((c), vornq_u32((b), (d)))
#define LOAD_WORDS(x, p, offset) load_words32_x4((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x4((x), (p), (lengths), (block), (blocks))
#define STORE_DIGESTS(out, a, b, c, d) store_four_words32_x4((out), (a), (b), (c), (d))

#define KERNEL_NAME vn_md5_many_neon_x4
#define KERNEL_SHORT vn_md5_short_neon_x4
#define SETS 1
#include "md5_many_lanes.h"

#define KERNEL_NAME vn_md5_many_neon_x8
#define KERNEL_SHORT vn_md5_short_neon_x8
#define SETS 2
#include "md5_many_lanes.h"

#endif
