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
 */
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

/* x[j] = word j of the block at p[lane] + offset, for 4 lanes. */
static inline void load_words_x4(uint32x4_t x[16], const unsigned char *const *p, size_t offset) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        const uint32x4_t r0 = vld1q_u32((const uint32_t *)(const void *)(p[0] + offset + 16 * q));
        const uint32x4_t r1 = vld1q_u32((const uint32_t *)(const void *)(p[1] + offset + 16 * q));
        const uint32x4_t r2 = vld1q_u32((const uint32_t *)(const void *)(p[2] + offset + 16 * q));
        const uint32x4_t r3 = vld1q_u32((const uint32_t *)(const void *)(p[3] + offset + 16 * q));
        /* (r0 w0, r1 w0, r0 w2, r1 w2), (r0 w1, r1 w1, r0 w3, r1 w3), and for r2, r3 */
        const uint32x4_t t0 = vtrn1q_u32(r0, r1), t1 = vtrn2q_u32(r0, r1);
        const uint32x4_t t2 = vtrn1q_u32(r2, r3), t3 = vtrn2q_u32(r2, r3);
#define PAIRS(op, a, b) \
    vreinterpretq_u32_u64(op(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b)))
        x[4 * q] = PAIRS(vtrn1q_u64, t0, t2);
        x[4 * q + 1] = PAIRS(vtrn1q_u64, t1, t3);
        x[4 * q + 2] = PAIRS(vtrn2q_u64, t0, t2);
        x[4 * q + 3] = PAIRS(vtrn2q_u64, t1, t3);
#undef PAIRS
    }
}

#define NEON_ROL(v, s)                                                           \
    ((s) == 16 ? vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(v))) \
               : vsriq_n_u32(vshlq_n_u32((v), (s)), (v), 32 - (s)))

#define KERNEL_NAME vn_md5_many_neon_x4
#define TARGET
#define V uint32x4_t
#define VL 4
#define SETS 1
#define V_LOAD(p) vld1q_u32(p)
#define V_STORE(p, v) vst1q_u32((p), (v))
#define V_ADD(a, b) vaddq_u32((a), (b))
#define KADD(v, n) vaddq_u32((v), vld1q_dup_u32(&KT[n]))
#define ROL(v, s) NEON_ROL(v, s)
#define BARRIER(v) __asm__("" : "+w"(v))
#define LATE1(b, c, d) vbslq_u32((b), (c), (d))
#define EARLY2(sum, c, d)
#define LATE2(b, c, d) vbslq_u32((d), (b), (c))
#define LATE3(b, c, d) veorq_u32((b), veorq_u32((c), (d)))
#define LATE4(b, c, d) veorq_u32((c), vornq_u32((b), (d)))
#define LOAD_WORDS(x, p, offset) load_words_x4((x), (p), (offset))
#include "md5_many_lanes.h"

#define KERNEL_NAME vn_md5_many_neon_x8
#define TARGET
#define V uint32x4_t
#define VL 4
#define SETS 2
#define V_LOAD(p) vld1q_u32(p)
#define V_STORE(p, v) vst1q_u32((p), (v))
#define V_ADD(a, b) vaddq_u32((a), (b))
#define KADD(v, n) vaddq_u32((v), vld1q_dup_u32(&KT[n]))
#define ROL(v, s) NEON_ROL(v, s)
#define BARRIER(v) __asm__("" : "+w"(v))
#define LATE1(b, c, d) vbslq_u32((b), (c), (d))
#define EARLY2(sum, c, d)
#define LATE2(b, c, d) vbslq_u32((d), (b), (c))
#define LATE3(b, c, d) veorq_u32((b), veorq_u32((c), (d)))
#define LATE4(b, c, d) veorq_u32((c), vornq_u32((b), (d)))
#define LOAD_WORDS(x, p, offset) load_words_x4((x), (p), (offset))
#include "md5_many_lanes.h"

#endif
