/*
 * SHA-256 of many messages in vector lanes: the kernel body that
 * sha256_many_amd64.c instantiates (AVX2, AVX-512), one message per 32-bit
 * lane, FIPS 180-4 section 6.2.2 as the portable kernel writes it.
 *
 * Unlike MD5, a round has much work off the chain from one round to the next
 * (the chain is e -> Σ1(e) -> T1 -> the next e, about four instructions; a
 * round is about seventeen with AVX-512, thirty-five with AVX2), so one set of
 * vectors already keeps the units busy: no interleaving. The eight working
 * variables are never moved: each round is written with its names rotated
 * (as the MD5 steps are), and only d and h change. The message schedule is a
 * rolling window of 16 vectors; the state is added back from memory after
 * each block, so that no register holds a copy of it.
 *
 * Include once per kernel, inside the architecture guard, after defining:
 *
 *   KERNEL_NAME, TARGET, V, VL          as md5_many_lanes.h
 *   KERNEL_AT       the name of the static function behind KERNEL_NAME
 *                   that starts at any lane (a multiple of VL)
 *   V_LOAD(p), V_STORE(p, v), V_ADD(a, b)
 *   KADD(v, n)      v + round constant n in every lane (KT is vn_sha256_k)
 *   BSIG0, BSIG1, SSIG0, SSIG1 (x), CH(e, f, g), MAJ(a, b, c)
 *   LOAD_WORDS(x, p, offset)
 *                   x[j] = big-endian word j of the block at p[lane] + offset
 *
 * and, for a short kernel (native.h: vn_short_fn) beside it:
 *
 *   KERNEL_SHORT    its name
 *   V_SET1(x)       x in every lane
 *   SHORT_WORDS(x, p, lengths, block, blocks)
 *                   x[j] = big-endian word j of block `block` of message
 *                   p[lane] padded to `blocks` blocks (see vn_short_fn)
 *   STORE_DIGESTS(out, size, a, b, c, d, e, f, g, h)
 *                   lane i's state words, big-endian, to out[i] (size bytes)
 *
 * The file undefines these at its end, so the next instance starts clean.
 */
#include "native.h"

/* One round, t the constant's number and j = t % 16 the schedule's slot. */
#define MANY_ROUND(a, b, c, d, e, f, g, h, j)                                            \
    {                                                                                    \
        const V t1 = V_ADD(V_ADD(h, KADD(w[j], base + (j))), V_ADD(BSIG1(e), CH(e, f, g))); \
        d = V_ADD(d, t1);                                                                \
        h = V_ADD(t1, V_ADD(BSIG0(a), MAJ(a, b, c)));                                    \
    }
/* The next word of the schedule into slot j (from the 16 before it). */
#define MANY_SCHEDULE(j)                                                                  \
    w[j] = V_ADD(V_ADD(w[j], SSIG1(w[((j) + 14) & 15])),                                 \
                 V_ADD(w[((j) + 9) & 15], SSIG0(w[((j) + 1) & 15])));
#define MANY_NONE(j)
/* Sixteen rounds, each after `before` (the schedule, or nothing). */
#define MANY_ROUNDS16(before)                                             \
    before(0) MANY_ROUND(a, b, c, d, e, f, g, h, 0)                       \
    before(1) MANY_ROUND(h, a, b, c, d, e, f, g, 1)                       \
    before(2) MANY_ROUND(g, h, a, b, c, d, e, f, 2)                       \
    before(3) MANY_ROUND(f, g, h, a, b, c, d, e, 3)                       \
    before(4) MANY_ROUND(e, f, g, h, a, b, c, d, 4)                       \
    before(5) MANY_ROUND(d, e, f, g, h, a, b, c, 5)                       \
    before(6) MANY_ROUND(c, d, e, f, g, h, a, b, 6)                       \
    before(7) MANY_ROUND(b, c, d, e, f, g, h, a, 7)                       \
    before(8) MANY_ROUND(a, b, c, d, e, f, g, h, 8)                       \
    before(9) MANY_ROUND(h, a, b, c, d, e, f, g, 9)                       \
    before(10) MANY_ROUND(g, h, a, b, c, d, e, f, 10)                     \
    before(11) MANY_ROUND(f, g, h, a, b, c, d, e, 11)                     \
    before(12) MANY_ROUND(e, f, g, h, a, b, c, d, 12)                     \
    before(13) MANY_ROUND(d, e, f, g, h, a, b, c, 13)                     \
    before(14) MANY_ROUND(c, d, e, f, g, h, a, b, 14)                     \
    before(15) MANY_ROUND(b, c, d, e, f, g, h, a, 15)

/* The 64 rounds of a block whose words are w[0..15]. */
#define MANY_ROUNDS64                         \
    {                                         \
        int base = 0;                         \
        MANY_ROUNDS16(MANY_NONE)              \
        for (base = 16; base < 64; base += 16) { \
            MANY_ROUNDS16(MANY_SCHEDULE)      \
        }                                     \
    }
/* The working variables plus the block's starting state, word i of it
 * START(i). */
#define MANY_ADD_START(START)   \
    a = V_ADD(a, START(0));     \
    b = V_ADD(b, START(1));     \
    c = V_ADD(c, START(2));     \
    d = V_ADD(d, START(3));     \
    e = V_ADD(e, START(4));     \
    f = V_ADD(f, START(5));     \
    g = V_ADD(g, START(6));     \
    h = V_ADD(h, START(7));
#define MANY_FROM_STATE(i) V_LOAD(state[i])

/* Lanes first .. first+count-1 (count at most VL; first a multiple of VL). */
TARGET static inline void KERNEL_AT(vn_lanes *lanes, int first, int count, size_t blocks) {
    /* idle lanes hash the first lane's data again; their state is not used */
    const unsigned char *p[VL];
    for (int i = 0; i < VL; i++) p[i] = lanes->data[first + (i < count ? i : 0)];
    uint32_t(*state)[VN_MAX_LANES] = (uint32_t(*)[VN_MAX_LANES])&lanes->state[0][first];

    V a = V_LOAD(state[0]), b = V_LOAD(state[1]), c = V_LOAD(state[2]), d = V_LOAD(state[3]);
    V e = V_LOAD(state[4]), f = V_LOAD(state[5]), g = V_LOAD(state[6]), h = V_LOAD(state[7]);
    for (size_t offset = 0; offset < 64 * blocks; offset += 64) {
        const uint32_t *KT = vn_sha256_k;
        __asm__("" : "+r"(KT)); /* loaded at each use, not hoisted and spilled */
        V w[16];
        LOAD_WORDS(w, p, offset);
        MANY_ROUNDS64
        MANY_ADD_START(MANY_FROM_STATE)
        V_STORE(state[0], a);
        V_STORE(state[1], b);
        V_STORE(state[2], c);
        V_STORE(state[3], d);
        V_STORE(state[4], e);
        V_STORE(state[5], f);
        V_STORE(state[6], g);
        V_STORE(state[7], h);
    }
}

TARGET void KERNEL_NAME(vn_lanes *lanes, int count, size_t blocks) {
    KERNEL_AT(lanes, 0, count, blocks);
}

#if defined(KERNEL_SHORT)
/* One or two padded blocks per lane from the IV, their words never stored:
 * the state starts as constants and goes from registers to the digests. The
 * first block's padding is chosen by `blocks` with constants, so that either
 * is unrolled. */
TARGET void KERNEL_SHORT(const uint32_t *iv, int size, int blocks,
                         const unsigned char *const *data, const uint32_t *lengths,
                         unsigned char *const *out) {
    const uint32_t *KT = vn_sha256_k;
    __asm__("" : "+r"(KT)); /* loaded at each use, not hoisted and spilled */
    V w[16];
    V a = V_SET1(iv[0]), b = V_SET1(iv[1]), c = V_SET1(iv[2]), d = V_SET1(iv[3]);
    V e = V_SET1(iv[4]), f = V_SET1(iv[5]), g = V_SET1(iv[6]), h = V_SET1(iv[7]);
    if (blocks == 1) {
        SHORT_WORDS(w, data, lengths, 0, 1);
    } else {
        SHORT_WORDS(w, data, lengths, 0, 2);
    }
    MANY_ROUNDS64
#define MANY_FROM_IV(i) V_SET1(iv[i])
    MANY_ADD_START(MANY_FROM_IV)
#undef MANY_FROM_IV
    if (blocks == 2) {
        const V start[8] = {a, b, c, d, e, f, g, h};
        SHORT_WORDS(w, data, lengths, 1, 2);
        MANY_ROUNDS64
#define MANY_FROM_FIRST(i) start[i]
        MANY_ADD_START(MANY_FROM_FIRST)
#undef MANY_FROM_FIRST
    }
    STORE_DIGESTS(out, size, a, b, c, d, e, f, g, h);
}
#undef KERNEL_SHORT
#undef V_SET1
#undef SHORT_WORDS
#undef STORE_DIGESTS
#endif

#undef MANY_ROUND
#undef MANY_ROUNDS64
#undef MANY_ADD_START
#undef MANY_FROM_STATE
#undef MANY_SCHEDULE
#undef MANY_NONE
#undef MANY_ROUNDS16
#undef KERNEL_NAME
#undef KERNEL_AT
#undef TARGET
#undef V
#undef VL
#undef V_LOAD
#undef V_STORE
#undef V_ADD
#undef KADD
#undef BSIG0
#undef BSIG1
#undef SSIG0
#undef SSIG1
#undef CH
#undef MAJ
#undef LOAD_WORDS
