/*
 * The SHA-512 core for AArch64 with the ARMv8.2 SHA512 instructions.
 *
 * The state is held as four pairs of words, (a, b), (c, d), (e, f), (g, h),
 * low lane first. sha512h does the T1 part of two rounds, given (d, e),
 * (f, g) and h plus the words and constants; sha512h2 the rest, given the
 * two T1 values, c and (a, b); sha512su0 and sha512su1 compute the message
 * schedule two words at a time. Only this function is compiled for the
 * instructions; the dispatcher calls it only where the kernel reports
 * HWCAP_SHA512.
 */
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

#if defined(__clang__)
#define TARGET_SHA512 __attribute__((target("sha3")))
#else
#define TARGET_SHA512 __attribute__((target("arch=armv8.2-a+sha3")))
#endif

/* Two big-endian words. */
#define LOAD(p) vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(p)))

/* Two rounds with words plus constants wk (round t's in the low lane). The
 * pairs move down one place: the new (a, b) is made, (c, d) is the old
 * (a, b), (e, f) the old (c, d) plus the two T1, (g, h) the old (e, f). */
#define ROUNDS2(wk)                                                                   \
    {                                                                                 \
        const uint64x2_t fg = vextq_u64(ef, gh, 1), de = vextq_u64(cd, ef, 1);        \
        /* h + W[t] + K[t] in the high lane, g + W[t+1] + K[t+1] in the low */        \
        const uint64x2_t t1 = vsha512hq_u64(vaddq_u64(vextq_u64((wk), (wk), 1), gh), fg, de); \
        const uint64x2_t ab_next = vsha512h2q_u64(t1, cd, ab);                        \
        gh = ef;                                                                      \
        ef = vaddq_u64(cd, t1);                                                       \
        cd = ab;                                                                      \
        ab = ab_next;                                                                 \
    }

TARGET_SHA512 void vn_sha512_arm64_sha512(uint64_t *state, const unsigned char *data,
                                          size_t blocks) {
    uint64x2_t ab = vld1q_u64(state), cd = vld1q_u64(state + 2);
    uint64x2_t ef = vld1q_u64(state + 4), gh = vld1q_u64(state + 6);
    for (; blocks; blocks--, data += 128) {
        const uint64x2_t ab0 = ab, cd0 = cd, ef0 = ef, gh0 = gh;
        uint64x2_t w[8];
#pragma GCC unroll 8
        for (int m = 0; m < 8; m++) {
            w[m] = LOAD(data + 16 * m);
            ROUNDS2(vaddq_u64(w[m], vld1q_u64(vn_sha512_k + 2 * m)))
        }
        /* W[t], W[t+1] = σ1(W[t-2..t-1]) + W[t-7..t-6] + σ0(W[t-15..t-14]) + W[t-16..t-15] */
#pragma GCC unroll 32
        for (int m = 8; m < 40; m++) {
            uint64x2_t *x = &w[m & 7];
            *x = vsha512su1q_u64(vsha512su0q_u64(*x, w[(m + 1) & 7]), w[(m + 7) & 7],
                                 vextq_u64(w[(m + 4) & 7], w[(m + 5) & 7], 1));
            ROUNDS2(vaddq_u64(*x, vld1q_u64(vn_sha512_k + 2 * m)))
        }
        ab = vaddq_u64(ab, ab0);
        cd = vaddq_u64(cd, cd0);
        ef = vaddq_u64(ef, ef0);
        gh = vaddq_u64(gh, gh0);
    }
    vst1q_u64(state, ab);
    vst1q_u64(state + 2, cd);
    vst1q_u64(state + 4, ef);
    vst1q_u64(state + 6, gh);
}

#endif
