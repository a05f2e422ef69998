/*
 * The SHA-512 core of many messages in vector lanes: the kernel body that
 * sha512_many_amd64.c instantiates (AVX2, AVX-512), one message per 64-bit
 * lane, FIPS 180-4 section 6.4.2 as the portable kernel writes it. The
 * working variables are never moved (each round is written with its names
 * rotated) and the schedule is a rolling window of 16 vectors.
 *
 * Include once per kernel, inside the architecture guard, after defining:
 *
 *   KERNEL_NAME     the many-kernel (native.h: vn_many64_fn)
 *   KERNEL_SHORT    its short kernel (vn_short64_fn)
 *   TARGET          the function attribute naming the instruction sets
 *   V, VL           the vector type and its number of 64-bit lanes
 *   V_LOAD(p), V_STORE(p, v), V_SET1(x), V_ADD(a, b)
 *   BSIG0, BSIG1, SSIG0, SSIG1 (x), CH(e, f, g), MAJ(a, b, c)
 *   LOAD_WORDS(x, p, offset)
 *                   x[j] = big-endian word j of the block at p[lane] + offset
 *   SHORT_WORDS(x, p, lengths, block, blocks)
 *                   x[j] = big-endian word j of block `block` of message
 *                   p[lane] padded to `blocks` blocks (see vn_short64_fn)
 *   STORE_DIGESTS(out, size, s)
 *                   lane i's state words s[0..7], big-endian, to out[i]
 *                   (size bytes)
 *
 * The file undefines these at its end, so the next instance starts clean.
 */
#include "native.h"

/* One round, j = t % 16 the schedule's slot, k the constants from this
 * sixteen's first. */
#define MANY64_ROUND(a, b, c, d, e, f, g, h, j)                                          \
    {                                                                                    \
        const V t1 = V_ADD(V_ADD(h, V_ADD(w[j], V_SET1(k[j]))), V_ADD(BSIG1(e), CH(e, f, g))); \
        d = V_ADD(d, t1);                                                                \
        h = V_ADD(t1, V_ADD(BSIG0(a), MAJ(a, b, c)));                                    \
    }
/* The next word of the schedule into slot j (from the 16 before it). */
#define MANY64_SCHEDULE(j)                                                            \
    w[j] = V_ADD(V_ADD(w[j], SSIG1(w[((j) + 14) & 15])),                             \
                 V_ADD(w[((j) + 9) & 15], SSIG0(w[((j) + 1) & 15])));
#define MANY64_NONE(j)
#define MANY64_ROUNDS16(before)                                    \
    before(0) MANY64_ROUND(a, b, c, d, e, f, g, h, 0)              \
    before(1) MANY64_ROUND(h, a, b, c, d, e, f, g, 1)              \
    before(2) MANY64_ROUND(g, h, a, b, c, d, e, f, 2)              \
    before(3) MANY64_ROUND(f, g, h, a, b, c, d, e, 3)              \
    before(4) MANY64_ROUND(e, f, g, h, a, b, c, d, 4)              \
    before(5) MANY64_ROUND(d, e, f, g, h, a, b, c, 5)              \
    before(6) MANY64_ROUND(c, d, e, f, g, h, a, b, 6)              \
    before(7) MANY64_ROUND(b, c, d, e, f, g, h, a, 7)              \
    before(8) MANY64_ROUND(a, b, c, d, e, f, g, h, 8)              \
    before(9) MANY64_ROUND(h, a, b, c, d, e, f, g, 9)              \
    before(10) MANY64_ROUND(g, h, a, b, c, d, e, f, 10)            \
    before(11) MANY64_ROUND(f, g, h, a, b, c, d, e, 11)            \
    before(12) MANY64_ROUND(e, f, g, h, a, b, c, d, 12)            \
    before(13) MANY64_ROUND(d, e, f, g, h, a, b, c, 13)            \
    before(14) MANY64_ROUND(c, d, e, f, g, h, a, b, 14)            \
    before(15) MANY64_ROUND(b, c, d, e, f, g, h, a, 15)

/* The 80 rounds of a block whose words are w[0..15]. */
#define MANY64_ROUNDS80                                  \
    {                                                    \
        const uint64_t *k = vn_sha512_k;                 \
        __asm__("" : "+r"(k)); /* loaded at each use */  \
        MANY64_ROUNDS16(MANY64_NONE)                     \
        for (int t_ = 16; t_ < 80; t_ += 16) {           \
            k += 16;                                     \
            MANY64_ROUNDS16(MANY64_SCHEDULE)             \
        }                                                \
    }

/* The working variables plus the block's starting state, word i of it START(i). */
#define MANY64_ADD_START(START) \
    a = V_ADD(a, START(0));     \
    b = V_ADD(b, START(1));     \
    c = V_ADD(c, START(2));     \
    d = V_ADD(d, START(3));     \
    e = V_ADD(e, START(4));     \
    f = V_ADD(f, START(5));     \
    g = V_ADD(g, START(6));     \
    h = V_ADD(h, START(7));

TARGET void KERNEL_NAME(vn_lanes64 *lanes, int count, size_t blocks) {
    /* idle lanes hash the first lane's data again; their state is not used */
    const unsigned char *p[VL];
    for (int i = 0; i < VL; i++) p[i] = lanes->data[i < count ? i : 0];
    uint64_t(*state)[VN_MAX_LANES64] = lanes->state;
#define MANY64_STATE(i) V_LOAD(state[i])
    V a = MANY64_STATE(0), b = MANY64_STATE(1), c = MANY64_STATE(2), d = MANY64_STATE(3);
    V e = MANY64_STATE(4), f = MANY64_STATE(5), g = MANY64_STATE(6), h = MANY64_STATE(7);
    for (size_t offset = 0; offset < 128 * blocks; offset += 128) {
        V w[16];
        LOAD_WORDS(w, p, offset);
        MANY64_ROUNDS80
        MANY64_ADD_START(MANY64_STATE)
        V_STORE(state[0], a);
        V_STORE(state[1], b);
        V_STORE(state[2], c);
        V_STORE(state[3], d);
        V_STORE(state[4], e);
        V_STORE(state[5], f);
        V_STORE(state[6], g);
        V_STORE(state[7], h);
    }
#undef MANY64_STATE
}

/* The short kernel: VL messages of one or two blocks from the IV, their
 * words never stored; the number of blocks a constant in each branch, so
 * that both are unrolled. */
TARGET void KERNEL_SHORT(const uint64_t *iv, int size, int blocks,
                         const unsigned char *const *data, const uint32_t *lengths,
                         unsigned char *const *out) {
    V w[16];
#define MANY64_IV(i) V_SET1(iv[i])
    V a = MANY64_IV(0), b = MANY64_IV(1), c = MANY64_IV(2), d = MANY64_IV(3);
    V e = MANY64_IV(4), f = MANY64_IV(5), g = MANY64_IV(6), h = MANY64_IV(7);
    if (blocks == 1) {
        SHORT_WORDS(w, data, lengths, 0, 1);
    } else {
        SHORT_WORDS(w, data, lengths, 0, 2);
    }
    MANY64_ROUNDS80
    MANY64_ADD_START(MANY64_IV)
#undef MANY64_IV
    if (blocks == 2) {
        const V start[8] = {a, b, c, d, e, f, g, h};
        SHORT_WORDS(w, data, lengths, 1, 2);
#define MANY64_START(i) start[i]
        MANY64_ROUNDS80
        MANY64_ADD_START(MANY64_START)
#undef MANY64_START
    }
    const V s[8] = {a, b, c, d, e, f, g, h};
    STORE_DIGESTS(out, size, s);
}

#undef MANY64_ROUND
#undef MANY64_SCHEDULE
#undef MANY64_NONE
#undef MANY64_ROUNDS16
#undef MANY64_ROUNDS80
#undef MANY64_ADD_START
#undef KERNEL_NAME
#undef KERNEL_SHORT
#undef TARGET
#undef V
#undef VL
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_ADD
#undef BSIG0
#undef BSIG1
#undef SSIG0
#undef SSIG1
#undef CH
#undef MAJ
#undef LOAD_WORDS
#undef SHORT_WORDS
#undef STORE_DIGESTS
