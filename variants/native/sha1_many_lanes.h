/*
 * SHA-1 of many messages in vector lanes: the kernel body that
 * sha1_many_amd64.c instantiates (AVX2, AVX-512), one message per 32-bit
 * lane. Its rounds (V_ROUNDS80, over w[0..15] and a .. e) and round
 * functions are that file's, defined for the width at hand.
 *
 * Include once per kernel, inside the architecture guard, after defining:
 *
 *   KERNEL_NAME     the many-kernel (native.h: vn_many_fn)
 *   KERNEL_SHORT    its short kernel (vn_short_fn, size 20)
 *   TARGET          the function attribute naming the instruction sets
 *   V, VL           the vector type and its number of lanes
 *   V_LOAD(p), V_STORE(p, v), V_SET1(x) (and V_ADD, for V_ROUNDS80)
 *   LOAD_WORDS(x, p, offset)
 *                   x[j] = big-endian word j of the block at p[lane] + offset
 *   SHORT_WORDS(x, p, lengths, block, blocks)
 *                   the same for block `block` of message p[lane] padded to
 *                   `blocks` blocks (see vn_short_fn)
 *   STORE_DIGESTS(out, a, b, c, d, e)
 *                   lane i's state, big-endian, to out[i] (20 bytes)
 *
 * The file undefines these (but V_ADD) at its end, so the next instance
 * starts clean.
 */
#include "native.h"

TARGET void KERNEL_NAME(vn_lanes *lanes, int count, size_t blocks) {
    /* idle lanes hash the first lane's data again; their state is not used */
    const unsigned char *p[VL];
    for (int i = 0; i < VL; i++) p[i] = lanes->data[i < count ? i : 0];
    uint32_t(*state)[VN_MAX_LANES] = lanes->state;
    V a = V_LOAD(state[0]), b = V_LOAD(state[1]), c = V_LOAD(state[2]);
    V d = V_LOAD(state[3]), e = V_LOAD(state[4]);
    for (size_t offset = 0; offset < 64 * blocks; offset += 64) {
        V w[16];
        LOAD_WORDS(w, p, offset);
        V_ROUNDS80
        a = V_ADD(a, V_LOAD(state[0]));
        b = V_ADD(b, V_LOAD(state[1]));
        c = V_ADD(c, V_LOAD(state[2]));
        d = V_ADD(d, V_LOAD(state[3]));
        e = V_ADD(e, V_LOAD(state[4]));
        V_STORE(state[0], a);
        V_STORE(state[1], b);
        V_STORE(state[2], c);
        V_STORE(state[3], d);
        V_STORE(state[4], e);
    }
}

/* The short kernel: VL messages of one or two blocks from the IV; the
 * number of blocks a constant in each branch, so that both are unrolled. */
TARGET void KERNEL_SHORT(const uint32_t *iv, int size, int blocks,
                         const unsigned char *const *data, const uint32_t *lengths,
                         unsigned char *const *out) {
    (void)size; /* always 20 */
    V w[16];
    V a = V_SET1(iv[0]), b = V_SET1(iv[1]), c = V_SET1(iv[2]), d = V_SET1(iv[3]);
    V e = V_SET1(iv[4]);
    if (blocks == 1) {
        SHORT_WORDS(w, data, lengths, 0, 1);
    } else {
        SHORT_WORDS(w, data, lengths, 0, 2);
    }
    V_ROUNDS80
    a = V_ADD(a, V_SET1(iv[0]));
    b = V_ADD(b, V_SET1(iv[1]));
    c = V_ADD(c, V_SET1(iv[2]));
    d = V_ADD(d, V_SET1(iv[3]));
    e = V_ADD(e, V_SET1(iv[4]));
    if (blocks == 2) {
        const V a0 = a, b0 = b, c0 = c, d0 = d, e0 = e;
        SHORT_WORDS(w, data, lengths, 1, 2);
        V_ROUNDS80
        a = V_ADD(a, a0);
        b = V_ADD(b, b0);
        c = V_ADD(c, c0);
        d = V_ADD(d, d0);
        e = V_ADD(e, e0);
    }
    STORE_DIGESTS(out, a, b, c, d, e);
}

#undef KERNEL_NAME
#undef KERNEL_SHORT
#undef TARGET
#undef V
#undef VL
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef LOAD_WORDS
#undef SHORT_WORDS
#undef STORE_DIGESTS
