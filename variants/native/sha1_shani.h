/*
 * What the SHA-NI SHA-1 kernels share (sha1_amd64.c, one stream; the
 * many-kernels, two interleaved): the 80 rounds of one block. Include it
 * inside the VN_AMD64 part, after <immintrin.h>, in functions compiled for
 * sha,sse4.1.
 */
#ifndef VARIANTS_NATIVE_SHA1_SHANI_H
#define VARIANTS_NATIVE_SHA1_SHANI_H

/* The shuffle (for _mm_shuffle_epi8) that reverses the 16 bytes of a vector:
 * four big-endian words, the first in the top lane, as sha1rnds4 takes them. */
#define SHA1_SHANI_BSWAP _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL)

/* W[t..t+3] from the previous sixteen words, w0 the oldest four:
 * W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]). */
#define SHA1_SCHEDULE(w0, w1, w2, w3) \
    _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32((w0), (w1)), (w2)), (w3))

/* Four rounds with words w (W[4i..4i+3]), f the round function's number:
 * `e` is E plus the words (the first four rounds: E itself, added here), `prev`
 * the ABCD of four rounds before, from which sha1nexte takes E. */
#define SHA1_SHANI_FIRST4(abcd, e, prev, w) \
    prev = abcd;                            \
    abcd = _mm_sha1rnds4_epu32(abcd, _mm_add_epi32(e, w), 0);
#define SHA1_SHANI_NEXT4(abcd, prev, w, f)                                 \
    {                                                                      \
        const __m128i ew_ = _mm_sha1nexte_epu32(prev, w);                  \
        prev = abcd;                                                       \
        abcd = _mm_sha1rnds4_epu32(abcd, ew_, f);                          \
    }

/* The next four words into w0 (the oldest of w0..w3), then four rounds with them. */
#define SHA1_SHANI_STEP(abcd, prev, w0, w1, w2, w3, f) \
    w0 = SHA1_SCHEDULE(w0, w1, w2, w3);               \
    SHA1_SHANI_NEXT4(abcd, prev, w0, f)

/* Sixteen rounds (four steps) of function f, the words rotating through w0..w3. */
#define SHA1_SHANI_STEPS16(abcd, prev, w0, w1, w2, w3, f) \
    SHA1_SHANI_STEP(abcd, prev, w0, w1, w2, w3, f)        \
    SHA1_SHANI_STEP(abcd, prev, w1, w2, w3, w0, f)        \
    SHA1_SHANI_STEP(abcd, prev, w2, w3, w0, w1, f)        \
    SHA1_SHANI_STEP(abcd, prev, w3, w0, w1, w2, f)

/* One block: the 80 rounds from ABCD `abcd` and E (top lane of `e`), words
 * w0..w3 (W[0..15], overwritten by the schedule), both added back after. The
 * function changes every 20 rounds, which is every five steps: rounds 0-15
 * take the loaded words, 16-19 the first scheduled ones. */
#define SHA1_SHANI_ROUNDS80(abcd, e, w0, w1, w2, w3)                 \
    do {                                                             \
        const __m128i abcd0_ = abcd, e0_ = e;                        \
        __m128i prev_;                                               \
        SHA1_SHANI_FIRST4(abcd, e, prev_, w0)                        \
        SHA1_SHANI_NEXT4(abcd, prev_, w1, 0)                         \
        SHA1_SHANI_NEXT4(abcd, prev_, w2, 0)                         \
        SHA1_SHANI_NEXT4(abcd, prev_, w3, 0)                         \
        SHA1_SHANI_STEP(abcd, prev_, w0, w1, w2, w3, 0)              \
        SHA1_SHANI_STEPS16(abcd, prev_, w1, w2, w3, w0, 1)           \
        SHA1_SHANI_STEP(abcd, prev_, w1, w2, w3, w0, 1)              \
        SHA1_SHANI_STEPS16(abcd, prev_, w2, w3, w0, w1, 2)           \
        SHA1_SHANI_STEP(abcd, prev_, w2, w3, w0, w1, 2)              \
        SHA1_SHANI_STEPS16(abcd, prev_, w3, w0, w1, w2, 3)           \
        SHA1_SHANI_STEP(abcd, prev_, w3, w0, w1, w2, 3)              \
        e = _mm_sha1nexte_epu32(prev_, e0_);                         \
        abcd = _mm_add_epi32(abcd, abcd0_);                          \
    } while (0)

#endif
