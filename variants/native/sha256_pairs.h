/*
 * The 64 rounds of one block in two interleaved SHA-256 streams, as the
 * pairs of SHA-NI (sha256_many_amd64.c) and of AArch64's SHA2
 * (sha256_many_arm64.c) run them: each step of the one stream beside the
 * same step of the other, so that the unit's latency is filled. The includer
 * defines ROUNDS4_X2(wa, wb, i) (four rounds of both streams with words
 * W[4i..4i+3]) and SCHEDULE(w0, w1, w2, w3) (the next four words of the
 * message schedule, w0 the oldest), with its own instructions.
 */
#ifndef VARIANTS_NATIVE_SHA256_PAIRS_H
#define VARIANTS_NATIVE_SHA256_PAIRS_H

/* a0..a3 and b0..b3: the two streams' words, overwritten by the schedule. */
#define SHA256_PAIR_ROUNDS64(a0, a1, a2, a3, b0, b1, b2, b3) \
    do {                                                     \
        ROUNDS4_X2(a0, b0, 0);                               \
        ROUNDS4_X2(a1, b1, 1);                               \
        ROUNDS4_X2(a2, b2, 2);                               \
        ROUNDS4_X2(a3, b3, 3);                               \
        _Pragma("GCC unroll 3")                              \
        for (int i_ = 4; i_ < 16; i_ += 4) {                 \
            a0 = SCHEDULE(a0, a1, a2, a3);                   \
            b0 = SCHEDULE(b0, b1, b2, b3);                   \
            ROUNDS4_X2(a0, b0, i_);                          \
            a1 = SCHEDULE(a1, a2, a3, a0);                   \
            b1 = SCHEDULE(b1, b2, b3, b0);                   \
            ROUNDS4_X2(a1, b1, i_ + 1);                      \
            a2 = SCHEDULE(a2, a3, a0, a1);                   \
            b2 = SCHEDULE(b2, b3, b0, b1);                   \
            ROUNDS4_X2(a2, b2, i_ + 2);                      \
            a3 = SCHEDULE(a3, a0, a1, a2);                   \
            b3 = SCHEDULE(b3, b0, b1, b2);                   \
            ROUNDS4_X2(a3, b3, i_ + 3);                      \
        }                                                    \
    } while (0)

#endif
