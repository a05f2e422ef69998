/*
 * What the AArch64 SHA2 SHA-256 kernels share (sha256_arm64.c, one stream;
 * sha256_many_arm64.c, two interleaved): the attribute that compiles a
 * function for the SHA2 instructions, the big-endian load and the message
 * schedule step.
 * Include it inside the VN_ARM64 part, after <arm_neon.h>.
 */
#ifndef VARIANTS_NATIVE_SHA256_SHA2_H
#define VARIANTS_NATIVE_SHA256_SHA2_H

#if defined(__clang__)
#define TARGET_SHA2 __attribute__((target("sha2")))
#else
#define TARGET_SHA2 __attribute__((target("+crypto")))
#endif

/* Four big-endian words. */
#define SHA256_LOAD4(p) vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)))

/* W[t..t+3] from the previous sixteen words, w0 the oldest four. */
#define SHA256_SCHEDULE4(w0, w1, w2, w3) vsha256su1q_u32(vsha256su0q_u32((w0), (w1)), (w2), (w3))

#endif
