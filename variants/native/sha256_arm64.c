/*
 * SHA-256 for AArch64 with the ARMv8 SHA2 instructions.
 *
 * sha256h and sha256h2 do four rounds on the state held as ABCD and EFGH,
 * given the four message words already added to their round constants;
 * sha256su0 and sha256su1 compute the message schedule four words at a time.
 * Only this function is compiled for SHA2; the dispatcher calls it only where
 * the kernel reports HWCAP_SHA2.
 */
#include "native.h"

#if defined(VN_ARM64)
#include <arm_neon.h>

#include "sha256_sha2.h"

/* Four rounds with message words w (W[4i..4i+3]). */
#define ROUNDS4(w, i)                                             \
    do {                                                          \
        const uint32x4_t wk = vaddq_u32((w), vld1q_u32(&vn_sha256_k[4 * (i)])); \
        const uint32x4_t abcd_in = abcd;                          \
        abcd = vsha256hq_u32(abcd, efgh, wk);                     \
        efgh = vsha256h2q_u32(efgh, abcd_in, wk);                 \
    } while (0)


TARGET_SHA2 void vn_sha256_arm64_sha2(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32x4_t abcd = vld1q_u32(state), efgh = vld1q_u32(state + 4);
    for (; blocks; blocks--, data += 64) {
        const uint32x4_t abcd0 = abcd, efgh0 = efgh;
        uint32x4_t w0 = SHA256_LOAD4(data), w1 = SHA256_LOAD4(data + 16),
                   w2 = SHA256_LOAD4(data + 32), w3 = SHA256_LOAD4(data + 48);
        ROUNDS4(w0, 0);
        ROUNDS4(w1, 1);
        ROUNDS4(w2, 2);
        ROUNDS4(w3, 3);
#pragma GCC unroll 3
        for (int i = 4; i < 16; i += 4) {
            w0 = SHA256_SCHEDULE4(w0, w1, w2, w3);
            ROUNDS4(w0, i);
            w1 = SHA256_SCHEDULE4(w1, w2, w3, w0);
            ROUNDS4(w1, i + 1);
            w2 = SHA256_SCHEDULE4(w2, w3, w0, w1);
            ROUNDS4(w2, i + 2);
            w3 = SHA256_SCHEDULE4(w3, w0, w1, w2);
            ROUNDS4(w3, i + 3);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
    }
    vst1q_u32(state, abcd);
    vst1q_u32(state + 4, efgh);
}

#endif
