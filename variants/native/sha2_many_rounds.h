/*
 * SHA-2's rounds for the lanes (sha_many_lanes.h's BLOCK_ROUNDS), FIPS
 * 180-4 sections 6.2.2 and 6.4.2 as the portable kernels write them, for
 * SHA-256 and the SHA-512 core alike. Before the template, define
 *
 *   SHA2_K          the round constants (vn_sha256_k, vn_sha512_k)
 *   SHA2_ROUNDS     their number (64, 80)
 *   SHA2_FN(name)   the macro that is function `name` for the vector at hand
 *                   (BSIG0, BSIG1, SSIG0, SSIG1 (x); CH(e, f, g); MAJ(a, b, c)):
 *                   AVX2_##name, say, so that each set of them keeps its names
 *
 * and BLOCK_SETUP, BLOCK_ROUNDS as below.
 *
 * A round has much work off the chain from one round to the next (the chain
 * is e -> Σ1(e) -> T1 -> the next e, about four instructions; a round is
 * about seventeen with AVX-512, thirty-five to forty with AVX2), so one set
 * of vectors already keeps the units busy: no interleaving, unlike MD5's.
 * The eight working variables are never moved: each round is written with
 * its names rotated (as the MD5 steps are), and only d and h change. The
 * message schedule is a rolling window of 16 vectors.
 */
#ifndef VARIANTS_NATIVE_SHA2_MANY_ROUNDS_H
#define VARIANTS_NATIVE_SHA2_MANY_ROUNDS_H

/* Round t = base + j, j = t % 16 the schedule's slot; k[t] its constant. */
#define SHA2_ROUND(a, b, c, d, e, f, g, h, j)                                                \
    {                                                                                        \
        const V t1 = V_ADD(V_ADD(h, V_ADD(w[j], V_SET1(k[base + (j)]))), V_ADD(SHA2_FN(BSIG1)(e), SHA2_FN(CH)(e, f, g))); \
        d = V_ADD(d, t1);                                                                    \
        h = V_ADD(t1, V_ADD(SHA2_FN(BSIG0)(a), SHA2_FN(MAJ)(a, b, c)));                                        \
    }
/* The next word of the schedule into slot j (from the 16 before it). */
#define SHA2_SCHEDULE(j)                                                  \
    w[j] = V_ADD(V_ADD(w[j], SHA2_FN(SSIG1)(w[((j) + 14) & 15])),                 \
                 V_ADD(w[((j) + 9) & 15], SHA2_FN(SSIG0)(w[((j) + 1) & 15])));
#define SHA2_NONE(j)
/* Sixteen rounds, each after `before` (the schedule, or nothing). */
#define SHA2_ROUNDS16(before)                                  \
    before(0) SHA2_ROUND(a, b, c, d, e, f, g, h, 0)            \
    before(1) SHA2_ROUND(h, a, b, c, d, e, f, g, 1)            \
    before(2) SHA2_ROUND(g, h, a, b, c, d, e, f, 2)            \
    before(3) SHA2_ROUND(f, g, h, a, b, c, d, e, 3)            \
    before(4) SHA2_ROUND(e, f, g, h, a, b, c, d, 4)            \
    before(5) SHA2_ROUND(d, e, f, g, h, a, b, c, 5)            \
    before(6) SHA2_ROUND(c, d, e, f, g, h, a, b, 6)            \
    before(7) SHA2_ROUND(b, c, d, e, f, g, h, a, 7)            \
    before(8) SHA2_ROUND(a, b, c, d, e, f, g, h, 8)            \
    before(9) SHA2_ROUND(h, a, b, c, d, e, f, g, 9)            \
    before(10) SHA2_ROUND(g, h, a, b, c, d, e, f, 10)          \
    before(11) SHA2_ROUND(f, g, h, a, b, c, d, e, 11)          \
    before(12) SHA2_ROUND(e, f, g, h, a, b, c, d, 12)          \
    before(13) SHA2_ROUND(d, e, f, g, h, a, b, c, 13)          \
    before(14) SHA2_ROUND(c, d, e, f, g, h, a, b, 14)          \
    before(15) SHA2_ROUND(b, c, d, e, f, g, h, a, 15)

/* The constants come through a pointer k that the compiler cannot see
 * through, so that it loads each at its use instead of hoisting them all
 * out of the block loop and spilling them. Where k is made is the one thing
 * the instances differ in, each as it was measured fastest (GCC 12, Zen 3:
 * the other way costs SHA-256's short kernel and SHA-512's 4 KiB blocks 4 %
 * each, by register allocation alone):
 *
 *   SHA-256   BLOCK_SETUP SHA2_K_SETUP, once a block before its words are
 *             loaded; BLOCK_ROUNDS SHA2_ROUNDS_INDEXED
 *   SHA-512   BLOCK_SETUP empty; BLOCK_ROUNDS SHA2_ROUNDS_STEPPED, which
 *             makes k itself and steps it by 16 */
#define SHA2_K_SETUP             \
    const LANE_WORD *k = SHA2_K; \
    __asm__("" : "+r"(k));
#define SHA2_ROUNDS_INDEXED                               \
    {                                                     \
        int base = 0;                                     \
        SHA2_ROUNDS16(SHA2_NONE)                          \
        for (base = 16; base < SHA2_ROUNDS; base += 16) { \
            SHA2_ROUNDS16(SHA2_SCHEDULE)                  \
        }                                                 \
    }
#define SHA2_ROUNDS_STEPPED                           \
    {                                                 \
        SHA2_K_SETUP                                  \
        const int base = 0;                           \
        SHA2_ROUNDS16(SHA2_NONE)                      \
        for (int t_ = 16; t_ < SHA2_ROUNDS; t_ += 16) { \
            k += 16;                                  \
            SHA2_ROUNDS16(SHA2_SCHEDULE)              \
        }                                             \
    }

#endif
