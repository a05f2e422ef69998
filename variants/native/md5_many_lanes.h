/*
 * MD5 of many messages in vector lanes: the kernel body that md5_many_amd64.c
 * (AVX2, AVX-512) and md5_many_arm64.c (NEON) instantiate, one message per
 * 32-bit lane, with one or two independent sets of vectors interleaved.
 *
 * Why two sets: a step of MD5 needs the b the previous step made, so one set
 * of vectors runs at the latency of that chain (4 to 6 cycles a step) with
 * the vector units mostly idle; a second, independent set fills them
 * (bench/product/bench_many.c measures one set against two).
 *
 * Per step, everything that does not need b (a + X[i] + K, and the part of
 * round 2's function without b) is summed first, then pinned with BARRIER: an
 * empty asm that stops GCC from reassociating the adds so that the round
 * function comes first and K + X[i] last, which put one more add on the
 * chain. The round
 * constants come from a table through a pointer the compiler cannot see
 * through (KT), so that it loads them at each use instead of hoisting 64
 * broadcast constants out of the block loop and spilling them at each call.
 *
 * Include once per kernel, inside the architecture guard, after defining:
 *
 *   KERNEL_NAME     the vn_many_fn to define
 *   SETS            1 or 2: the lanes are VL * SETS
 *   TARGET          its target attribute (may be empty)
 *   V, VL           the vector type and its 32-bit lanes
 *   V_LOAD(p), V_STORE(p, v)   aligned loads and stores of VL words
 *   V_ADD(a, b)     lane-wise addition
 *   KADD(v, n)      v + round constant n in every lane (KT is the table)
 *   ROL(v, s)       rotate every lane left by the constant s
 *   BARRIER(v)      the empty asm that pins v
 *   EARLY2(sum, c, d), LATE1..4(b, c, d)
 *                   the round functions, split: LATEr is what needs b;
 *                   EARLY2 adds to sum the part of round 2's that does not
 *   LOAD_WORDS(x, p, offset)
 *                   x[j] = word j of the block at p[lane] + offset, each lane
 *
 * and, for a short kernel (native.h: vn_short_fn) beside it:
 *
 *   KERNEL_SHORT    its name
 *   V_SET1(x)       x in every lane
 *   SHORT_WORDS(x, p, lengths, block, blocks)
 *                   x[j] = word j of block `block` of message p[lane] padded
 *                   to `blocks` blocks (see vn_short_fn), for VL lanes
 *   STORE_DIGESTS(out, a, b, c, d)
 *                   lane i's state words, little-endian, to out[i], VL lanes
 *
 * It undefines KERNEL_NAME, SETS and KERNEL_SHORT at its end; the rest holds
 * for the next instance (the other number of sets) until the including file
 * changes it.
 */
#include "md5_steps.h"
#include "native.h"

#if !defined(VN_MD5_MANY_K)
#define VN_MD5_MANY_K
/* MD5's 64 step constants in step order, taken from the one list of steps. */
#define MD5_K_ENTRY(a, b, c, d, i, s, t) (uint32_t)(t),
static const uint32_t md5_many_k[64] = {
    MD5_STEPS(MD5_K_ENTRY, MD5_K_ENTRY, MD5_K_ENTRY, MD5_K_ENTRY)};
#undef MD5_K_ENTRY
#endif

/* One step of MD5 on set k: a = b + ((a + X[i] + K + f(b, c, d)) <<< s). */
#define MANY_ONE(r, a, b, c, d, i, s, k)                                                \
    {                                                                                   \
        V sum_ = KADD(V_ADD(a##k, x##k[i]), step);                                      \
        EARLY##r(sum_, c##k, d##k);                                                     \
        BARRIER(sum_);                                                                  \
        a##k = V_ADD(b##k, ROL(V_ADD(sum_, LATE##r(b##k, c##k, d##k)), s));             \
    }
#if SETS == 2
#define MANY_STEP(r, a, b, c, d, i, s) \
    MANY_ONE(r, a, b, c, d, i, s, 0) MANY_ONE(r, a, b, c, d, i, s, 1) step++;
#else
#define MANY_STEP(r, a, b, c, d, i, s) MANY_ONE(r, a, b, c, d, i, s, 0) step++;
#endif
#define MANY_R1(a, b, c, d, i, s, t) MANY_STEP(1, a, b, c, d, i, s)
#define MANY_R2(a, b, c, d, i, s, t) MANY_STEP(2, a, b, c, d, i, s)
#define MANY_R3(a, b, c, d, i, s, t) MANY_STEP(3, a, b, c, d, i, s)
#define MANY_R4(a, b, c, d, i, s, t) MANY_STEP(4, a, b, c, d, i, s)
#define EARLY1(sum, c, d)
#define EARLY3(sum, c, d)
#define EARLY4(sum, c, d)

#if SETS == 2
#define MANY_SET1(LOAD1)                              \
    V x1[16];                                         \
    LOAD1;                                            \
    const V a10 = a1, b10 = b1, c10 = c1, d10 = d1;
#define MANY_ADD1 \
    a1 = V_ADD(a1, a10); b1 = V_ADD(b1, b10); c1 = V_ADD(c1, c10); d1 = V_ADD(d1, d10);
#else
#define MANY_SET1(LOAD1)
#define MANY_ADD1
#endif
/* One block on the working variables: LOAD0 fills x0[] (and LOAD1 x1[], the
 * second set's), then the 64 steps and the block's state added back. */
#define MANY_BLOCK(LOAD0, LOAD1)                                            \
    {                                                                       \
        int step = 0;                                                       \
        V x0[16];                                                           \
        LOAD0;                                                              \
        const V a00 = a0, b00 = b0, c00 = c0, d00 = d0;                     \
        MANY_SET1(LOAD1)                                                    \
        MD5_STEPS(MANY_R1, MANY_R2, MANY_R3, MANY_R4)                       \
        a0 = V_ADD(a0, a00);                                                \
        b0 = V_ADD(b0, b00);                                                \
        c0 = V_ADD(c0, c00);                                                \
        d0 = V_ADD(d0, d00);                                                \
        MANY_ADD1                                                           \
        (void)step;                                                         \
    }

TARGET void KERNEL_NAME(vn_lanes *lanes, int count, size_t blocks) {
    /* idle lanes hash lane 0's data again; their state is not used */
    const unsigned char *p[VL * SETS];
    for (int i = 0; i < VL * SETS; i++) p[i] = lanes->data[i < count ? i : 0];

    V a0 = V_LOAD(&lanes->state[0][0]), b0 = V_LOAD(&lanes->state[1][0]);
    V c0 = V_LOAD(&lanes->state[2][0]), d0 = V_LOAD(&lanes->state[3][0]);
#if SETS == 2
    V a1 = V_LOAD(&lanes->state[0][VL]), b1 = V_LOAD(&lanes->state[1][VL]);
    V c1 = V_LOAD(&lanes->state[2][VL]), d1 = V_LOAD(&lanes->state[3][VL]);
#endif
    for (size_t offset = 0; offset < 64 * blocks; offset += 64) {
        const uint32_t *KT = md5_many_k;
        __asm__("" : "+r"(KT)); /* see the top of the file */
        MANY_BLOCK(LOAD_WORDS(x0, p, offset), LOAD_WORDS(x1, p + VL, offset))
    }
    V_STORE(&lanes->state[0][0], a0);
    V_STORE(&lanes->state[1][0], b0);
    V_STORE(&lanes->state[2][0], c0);
    V_STORE(&lanes->state[3][0], d0);
#if SETS == 2
    V_STORE(&lanes->state[0][VL], a1);
    V_STORE(&lanes->state[1][VL], b1);
    V_STORE(&lanes->state[2][VL], c1);
    V_STORE(&lanes->state[3][VL], d1);
#endif
}

#if defined(KERNEL_SHORT)
/* One or two padded blocks per lane from the IV, their words never stored:
 * the state starts as constants and goes from registers to the digests. The
 * first block's padding is chosen by `blocks` with constants, so that either
 * is unrolled. */
TARGET void KERNEL_SHORT(const uint32_t *iv, int size, int blocks,
                         const unsigned char *const *data, const uint32_t *lengths,
                         unsigned char *const *out) {
    (void)size; /* always 16 */
    const uint32_t *KT = md5_many_k;
    __asm__("" : "+r"(KT)); /* see the top of the file */
    const uint32_t *lengths1 = lengths && SETS == 2 ? lengths + VL : NULL;
    (void)lengths1;
    V a0 = V_SET1(iv[0]), b0 = V_SET1(iv[1]), c0 = V_SET1(iv[2]), d0 = V_SET1(iv[3]);
#if SETS == 2
    V a1 = a0, b1 = b0, c1 = c0, d1 = d0;
#endif
    MANY_BLOCK(blocks == 1 ? SHORT_WORDS(x0, data, lengths, 0, 1)
                           : SHORT_WORDS(x0, data, lengths, 0, 2),
               blocks == 1 ? SHORT_WORDS(x1, data + VL, lengths1, 0, 1)
                           : SHORT_WORDS(x1, data + VL, lengths1, 0, 2))
    if (blocks == 2) {
        MANY_BLOCK(SHORT_WORDS(x0, data, lengths, 1, 2),
                   SHORT_WORDS(x1, data + VL, lengths1, 1, 2))
    }
    STORE_DIGESTS(out, a0, b0, c0, d0);
#if SETS == 2
    STORE_DIGESTS(out + VL, a1, b1, c1, d1);
#endif
}
#undef KERNEL_SHORT
#endif

#undef MANY_SET1
#undef MANY_ADD1
#undef MANY_BLOCK
#undef MANY_ONE
#undef MANY_STEP
#undef MANY_R1
#undef MANY_R2
#undef MANY_R3
#undef MANY_R4
#undef EARLY1
#undef EARLY3
#undef EARLY4
#undef KERNEL_NAME
#undef SETS
