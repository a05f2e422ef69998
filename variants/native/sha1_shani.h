/*
 * What the SHA-NI SHA-1 kernels share (sha1_amd64.c, one stream;
 * sha1_many_amd64.c, two interleaved): the 80 rounds of a block. Include it
 * inside the VN_AMD64 part, after <immintrin.h>, in functions compiled for
 * sha,sse4.1.
 *
 * A stream s (the letter a or b) is the variables abcd_s (A in the top lane,
 * D in lane 0), e_s (E in the top lane) and s0..s3, its block's words W[0..15]
 * four to a vector (the first in the top lane), which the schedule overwrites.
 * sha1rnds4 does four rounds on ABCD, taking E + W[t] in the top lane and
 * W[t+1..t+3] below (its immediate chooses the round function and constant);
 * sha1nexte gives the E of the next four rounds (the A of four rounds before,
 * rotated by 30) already added to their first word; sha1msg1, an xor and
 * sha1msg2 compute the schedule four words at a time.
 */
#ifndef VARIANTS_NATIVE_SHA1_SHANI_H
#define VARIANTS_NATIVE_SHA1_SHANI_H

/* The shuffle (for _mm_shuffle_epi8) that reverses the 16 bytes of a vector:
 * four big-endian words, the first in the top lane, as sha1rnds4 takes them. */
#define SHA1_SHANI_BSWAP _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL)

/* Words 4g..4g+3 from the sixteen before them, w0 the oldest four:
 * W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]). */
#define SHA1_SCHEDULE(w0, w1, w2, w3) \
    _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32((w0), (w1)), (w2)), (w3))

/* The twenty groups of four rounds: the first with words s0 and E as it is,
 * the next three with the loaded words s1..s3, then sixteen that first
 * compute their words into the oldest vector, i (from i, j, k, l, oldest
 * first). f is the round function's number, which changes every five groups. */
#define SHA1_SHANI_GROUPS(FIRST, LOADED, NEXT)                                           \
    FIRST(0) LOADED(1) LOADED(2) LOADED(3) NEXT(0, 1, 2, 3, 0)                            \
    NEXT(1, 2, 3, 0, 1) NEXT(2, 3, 0, 1, 1) NEXT(3, 0, 1, 2, 1) NEXT(0, 1, 2, 3, 1)       \
    NEXT(1, 2, 3, 0, 1) NEXT(2, 3, 0, 1, 2) NEXT(3, 0, 1, 2, 2) NEXT(0, 1, 2, 3, 2)       \
    NEXT(1, 2, 3, 0, 2) NEXT(2, 3, 0, 1, 2) NEXT(3, 0, 1, 2, 3) NEXT(0, 1, 2, 3, 3)       \
    NEXT(1, 2, 3, 0, 3) NEXT(2, 3, 0, 1, 3) NEXT(3, 0, 1, 2, 3)

/* A group of stream s; prev_s is the ABCD of four rounds before, from which
 * sha1nexte takes E. */
#define SHA1_SHANI_FIRST(s, i) \
    prev_##s = abcd_##s;       \
    abcd_##s = _mm_sha1rnds4_epu32(abcd_##s, _mm_add_epi32(e_##s, s##i), 0);
#define SHA1_SHANI_LOADED(s, i, f)                                  \
    {                                                               \
        const __m128i ew_ = _mm_sha1nexte_epu32(prev_##s, s##i);    \
        prev_##s = abcd_##s;                                        \
        abcd_##s = _mm_sha1rnds4_epu32(abcd_##s, ew_, f);           \
    }
#define SHA1_SHANI_NEXT(s, i, j, k, l, f)              \
    s##i = SHA1_SCHEDULE(s##i, s##j, s##k, s##l);      \
    SHA1_SHANI_LOADED(s, i, f)

/* Before and after a block: its starting state kept, then added back (E
 * after the 80 rounds is the A of four rounds before, rotated). */
#define SHA1_SHANI_START(s)                             \
    const __m128i abcd0_##s = abcd_##s, e0_##s = e_##s; \
    __m128i prev_##s;
#define SHA1_SHANI_END(s)                            \
    e_##s = _mm_sha1nexte_epu32(prev_##s, e0_##s);   \
    abcd_##s = _mm_add_epi32(abcd_##s, abcd0_##s);

/* One block of stream a. */
#define SHA1_FIRST_A(i) SHA1_SHANI_FIRST(a, i)
#define SHA1_LOADED_A(i) SHA1_SHANI_LOADED(a, i, 0)
#define SHA1_NEXT_A(i, j, k, l, f) SHA1_SHANI_NEXT(a, i, j, k, l, f)
#define SHA1_SHANI_BLOCK_A                                          \
    do {                                                            \
        SHA1_SHANI_START(a)                                         \
        SHA1_SHANI_GROUPS(SHA1_FIRST_A, SHA1_LOADED_A, SHA1_NEXT_A) \
        SHA1_SHANI_END(a)                                           \
    } while (0)

/* One block of each of streams a and b, each group of the one beside the
 * same group of the other, so that the unit's latency is filled. */
#define SHA1_FIRST_AB(i) SHA1_SHANI_FIRST(a, i) SHA1_SHANI_FIRST(b, i)
#define SHA1_LOADED_AB(i) SHA1_SHANI_LOADED(a, i, 0) SHA1_SHANI_LOADED(b, i, 0)
#define SHA1_NEXT_AB(i, j, k, l, f) \
    SHA1_SHANI_NEXT(a, i, j, k, l, f) SHA1_SHANI_NEXT(b, i, j, k, l, f)
#define SHA1_SHANI_BLOCK_AB                                            \
    do {                                                               \
        SHA1_SHANI_START(a)                                            \
        SHA1_SHANI_START(b)                                            \
        SHA1_SHANI_GROUPS(SHA1_FIRST_AB, SHA1_LOADED_AB, SHA1_NEXT_AB) \
        SHA1_SHANI_END(a)                                              \
        SHA1_SHANI_END(b)                                              \
    } while (0)

/* The same for four streams, a, b, c and d: for long messages, where each
 * stream's blocks follow one another and two streams alone leave the unit
 * waiting on their latency. */
#define SHA1_FIRST_ABCD(i) SHA1_FIRST_AB(i) SHA1_SHANI_FIRST(c, i) SHA1_SHANI_FIRST(d, i)
#define SHA1_LOADED_ABCD(i) \
    SHA1_LOADED_AB(i) SHA1_SHANI_LOADED(c, i, 0) SHA1_SHANI_LOADED(d, i, 0)
#define SHA1_NEXT_ABCD(i, j, k, l, f) \
    SHA1_NEXT_AB(i, j, k, l, f) SHA1_SHANI_NEXT(c, i, j, k, l, f) SHA1_SHANI_NEXT(d, i, j, k, l, f)
#define SHA1_SHANI_BLOCK_ABCD                                                \
    do {                                                                     \
        SHA1_SHANI_START(a)                                                  \
        SHA1_SHANI_START(b)                                                  \
        SHA1_SHANI_START(c)                                                  \
        SHA1_SHANI_START(d)                                                  \
        SHA1_SHANI_GROUPS(SHA1_FIRST_ABCD, SHA1_LOADED_ABCD, SHA1_NEXT_ABCD) \
        SHA1_SHANI_END(a)                                                    \
        SHA1_SHANI_END(b)                                                    \
        SHA1_SHANI_END(c)                                                    \
        SHA1_SHANI_END(d)                                                    \
    } while (0)

/* Stream s's words from the block at p. */
#define SHA1_SHANI_LOAD(s, p)                                                                \
    {                                                                                        \
        const __m128i bswap_ = SHA1_SHANI_BSWAP;                                             \
        s##0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p)), bswap_);              \
        s##1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((p) + 16)), bswap_);       \
        s##2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((p) + 32)), bswap_);       \
        s##3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((p) + 48)), bswap_);       \
    }

#endif
