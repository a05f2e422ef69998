/*
 * The 64 rounds of one block in two interleaved SHA-256 streams, as the
 * pairs of SHA-NI (sha256_many_amd64.c) and of AArch64's SHA2
 * (sha256_many_arm64.c) run them: each step of the one stream beside the
 * same step of the other, so that the unit's latency is filled. The includer
 * defines SHA256_PAIR_ROUNDS4(wa, wb, i) (four rounds of both streams with
 * words W[4i..4i+3]) and includes the header of SHA256_SCHEDULE4(w0, w1, w2,
 * w3) (the next four words of the message schedule, w0 the oldest) of its
 * instructions: sha256_shani.h or sha256_sha2.h.
 */
#ifndef VARIANTS_NATIVE_SHA256_PAIRS_H
#define VARIANTS_NATIVE_SHA256_PAIRS_H

/* a0..a3 and b0..b3: the two streams' words, overwritten by the schedule. */
#define SHA256_PAIR_ROUNDS64(a0, a1, a2, a3, b0, b1, b2, b3) \
    do {                                                 \
        SHA256_PAIR_ROUNDS4(a0, b0, 0);                  \
        SHA256_PAIR_ROUNDS4(a1, b1, 1);                  \
        SHA256_PAIR_ROUNDS4(a2, b2, 2);                  \
        SHA256_PAIR_ROUNDS4(a3, b3, 3);                  \
        _Pragma("GCC unroll 3")                          \
        for (int i_ = 4; i_ < 16; i_ += 4) {             \
            a0 = SHA256_SCHEDULE4(a0, a1, a2, a3);       \
            b0 = SHA256_SCHEDULE4(b0, b1, b2, b3);       \
            SHA256_PAIR_ROUNDS4(a0, b0, i_);             \
            a1 = SHA256_SCHEDULE4(a1, a2, a3, a0);       \
            b1 = SHA256_SCHEDULE4(b1, b2, b3, b0);       \
            SHA256_PAIR_ROUNDS4(a1, b1, i_ + 1);         \
            a2 = SHA256_SCHEDULE4(a2, a3, a0, a1);       \
            b2 = SHA256_SCHEDULE4(b2, b3, b0, b1);       \
            SHA256_PAIR_ROUNDS4(a2, b2, i_ + 2);         \
            a3 = SHA256_SCHEDULE4(a3, a0, a1, a2);       \
            b3 = SHA256_SCHEDULE4(b3, b0, b1, b2);       \
            SHA256_PAIR_ROUNDS4(a3, b3, i_ + 3);         \
        }                                                \
    } while (0)

#endif
