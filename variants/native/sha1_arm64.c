/*
 * SHA-1 for AArch64 with the ARMv8 SHA1 instructions.
 *
 * sha1c, sha1p and sha1m do four rounds (choose, parity, majority) on ABCD
 * (A in lane 0), given E and the four message words already added to their
 * round constant; sha1h gives the E of the next four rounds (A rotated by
 * 30); sha1su0 and sha1su1 compute the message schedule four words at a
 * time. Only this function is compiled for the instructions; the dispatcher
 * calls it only where the kernel reports HWCAP_SHA1.
 */
#include "constants.h"
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

#if defined(__clang__)
#define TARGET_SHA1 __attribute__((target("sha2")))
#else
#define TARGET_SHA1 __attribute__((target("+crypto")))
#endif

/* Four big-endian words. */
#define LOAD(p) vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)))

/* Four rounds with words w (W[4g..4g+3]) and round function op (its
 * constant k): E for the next four taken from A before they change it. */
#define ROUNDS4(op, k, w)                                                  \
    {                                                                      \
        const uint32_t next = vsha1h_u32(vgetq_lane_u32(abcd, 0));         \
        abcd = op(abcd, e, vaddq_u32((w), vdupq_n_u32(k)));                \
        e = next;                                                          \
    }
/* The next four words into w0, from the sixteen before them (w0 the
 * oldest four), then four rounds with them. */
#define NEXT4(op, k, w0, w1, w2, w3)                                \
    w0 = vsha1su1q_u32(vsha1su0q_u32((w0), (w1), (w2)), (w3));       \
    ROUNDS4(op, k, w0)
/* Twenty rounds (five groups) of one function, from the group whose words
 * go into w0. */
#define NEXT20(op, k, w0, w1, w2, w3) \
    NEXT4(op, k, w0, w1, w2, w3)      \
    NEXT4(op, k, w1, w2, w3, w0)      \
    NEXT4(op, k, w2, w3, w0, w1)      \
    NEXT4(op, k, w3, w0, w1, w2)      \
    NEXT4(op, k, w0, w1, w2, w3)

TARGET_SHA1 void vn_sha1_arm64_sha1(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32x4_t abcd = vld1q_u32(state);
    uint32_t e = state[4];
    for (; blocks; blocks--, data += 64) {
        const uint32x4_t abcd0 = abcd;
        const uint32_t e0 = e;
        uint32x4_t w0 = LOAD(data), w1 = LOAD(data + 16), w2 = LOAD(data + 32),
                   w3 = LOAD(data + 48);
        ROUNDS4(vsha1cq_u32, VN_SHA1_K0, w0)
        ROUNDS4(vsha1cq_u32, VN_SHA1_K0, w1)
        ROUNDS4(vsha1cq_u32, VN_SHA1_K0, w2)
        ROUNDS4(vsha1cq_u32, VN_SHA1_K0, w3)
        NEXT4(vsha1cq_u32, VN_SHA1_K0, w0, w1, w2, w3)
        NEXT20(vsha1pq_u32, VN_SHA1_K1, w1, w2, w3, w0)
        NEXT20(vsha1mq_u32, VN_SHA1_K2, w2, w3, w0, w1)
        NEXT20(vsha1pq_u32, VN_SHA1_K3, w3, w0, w1, w2)
        abcd = vaddq_u32(abcd, abcd0);
        e += e0;
    }
    vst1q_u32(state, abcd);
    state[4] = e;
}

#endif
