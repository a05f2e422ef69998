/*
 * The SHA family's many-kernel body in vector lanes, one message per lane:
 * SHA-1 and SHA-256 in 32-bit lanes (vn_lanes), the SHA-512 core in 64-bit
 * ones (vn_lanes64). The including file brings the algorithm's rounds
 * (SHA-1's in sha1_many_amd64.c, SHA-2's from sha2_many_rounds.h) and the
 * vector's loads, padding and stores; this file the rest, the same for all:
 * the lanes' state in and out, the blocks, and the short kernel beside it.
 * The state is added back from memory after each block, so that no register
 * holds a copy of it.
 *
 * Include once per kernel, inside the architecture guard, after defining:
 *
 *   KERNEL_NAME     the many-kernel (native.h: vn_many_fn, or vn_many64_fn
 *                   for 64-bit words)
 *   KERNEL_SHORT    its short kernel (vn_short_fn, or vn_short64_fn)
 *   KERNEL_AT       (optional) the name of the static function that is the
 *                   many-kernel's body from any lane (a multiple of VL)
 *   TARGET          the function attribute naming the instruction sets
 *   V, VL, LANE_WORD_BITS, V_LOAD(p), V_STORE(p, v), V_ADD(a, b), V_SET1(x)
 *                   the vector, as lanes_vector_amd64.h defines them
 *   STATE_WORDS     5 (SHA-1: working variables a .. e) or 8 (SHA-2: a .. h)
 *   BLOCK_SETUP     what a block's rounds need made before its words are
 *                   loaded (may be empty)
 *   BLOCK_ROUNDS    a block's rounds on the working variables, its words in
 *                   w[0..15] (which it may overwrite); LANE_WORD is the
 *                   type of a lane's word
 *   LOAD_WORDS(x, p, offset)
 *                   x[j] = big-endian word j of the block at p[lane] + offset
 *   SHORT_WORDS(x, p, lengths, block, blocks)
 *                   the same for block `block` of message p[lane] padded to
 *                   `blocks` blocks (see vn_short_fn)
 *   STORE_DIGESTS(out, size, s)
 *                   lane i's state words s[0 .. STATE_WORDS - 1], big-endian,
 *                   to out[i] (size bytes)
 *
 * It undefines KERNEL_NAME, KERNEL_AT, KERNEL_SHORT, LOAD_WORDS, SHORT_WORDS and
 * STORE_DIGESTS at its end; the rest holds for the next instance until the
 * including file changes it.
 */
#include "native.h"

#if LANE_WORD_BITS == 32
#define LANE_WORD uint32_t
#define LANES_OF vn_lanes
#define LANES_MAX VN_MAX_LANES
#define LANES_BLOCK 64
#else
#define LANE_WORD uint64_t
#define LANES_OF vn_lanes64
#define LANES_MAX VN_MAX_LANES64
#define LANES_BLOCK 128
#endif

/* X(v, i) for each working variable v, state word i. */
#if STATE_WORDS == 5
#define LANES_EACH(X) X(a, 0) X(b, 1) X(c, 2) X(d, 3) X(e, 4)
#else
#define LANES_EACH(X) X(a, 0) X(b, 1) X(c, 2) X(d, 3) X(e, 4) X(f, 5) X(g, 6) X(h, 7)
#endif
#define LANES_FROM_STATE(v, i) V v = V_LOAD(state[i]);
#define LANES_ADD_STATE(v, i) v = V_ADD(v, V_LOAD(state[i]));
#define LANES_STORE(v, i) V_STORE(state[i], v);
#define LANES_FROM_IV(v, i) V v = V_SET1(iv[i]);
#define LANES_ADD_IV(v, i) v = V_ADD(v, V_SET1(iv[i]));
#define LANES_ADD_START(v, i) v = V_ADD(v, start[i]);
#define LANES_LIST(v, i) v,

#if defined(KERNEL_AT)
/* Lanes first .. first + count - 1 (first a multiple of VL): the body as a
 * function of its own, for a kernel that runs it besides KERNEL_NAME
 * (SHA-256's avx512-shani). GCC compiles it apart from the wrapper, and so
 * differently: SHA-256's kernels keep this, the code that was measured. */
TARGET static inline void KERNEL_AT(LANES_OF *lanes, int first, int count, size_t blocks) {
#define LANES_FIRST first
#else
TARGET void KERNEL_NAME(LANES_OF *lanes, int count, size_t blocks) {
#define LANES_FIRST 0
#endif
    /* idle lanes hash the first lane's data again; their state is not used */
    const unsigned char *p[VL];
    for (int i = 0; i < VL; i++) p[i] = lanes->data[LANES_FIRST + (i < count ? i : 0)];
    LANE_WORD(*state)[LANES_MAX] = (LANE_WORD(*)[LANES_MAX])&lanes->state[0][LANES_FIRST];
    LANES_EACH(LANES_FROM_STATE)
    for (size_t offset = 0; offset < LANES_BLOCK * blocks; offset += LANES_BLOCK) {
        BLOCK_SETUP
        V w[16];
        LOAD_WORDS(w, p, offset);
        BLOCK_ROUNDS
        LANES_EACH(LANES_ADD_STATE)
        LANES_EACH(LANES_STORE)
    }
}
#undef LANES_FIRST

#if defined(KERNEL_AT)
TARGET void KERNEL_NAME(LANES_OF *lanes, int count, size_t blocks) {
    KERNEL_AT(lanes, 0, count, blocks);
}
#endif

/* VL messages of one or two blocks from the IV, their words never stored:
 * the state starts as constants and goes from registers to the digests. The
 * number of blocks is a constant in each branch, so that both are unrolled. */
TARGET void KERNEL_SHORT(const LANE_WORD *iv, int size, int blocks,
                         const unsigned char *const *data, const uint32_t *lengths,
                         unsigned char *const *out) {
    BLOCK_SETUP
    V w[16];
    LANES_EACH(LANES_FROM_IV)
    if (blocks == 1) {
        SHORT_WORDS(w, data, lengths, 0, 1);
    } else {
        SHORT_WORDS(w, data, lengths, 0, 2);
    }
    BLOCK_ROUNDS
    LANES_EACH(LANES_ADD_IV)
    if (blocks == 2) {
        const V start[STATE_WORDS] = {LANES_EACH(LANES_LIST)};
        SHORT_WORDS(w, data, lengths, 1, 2);
        BLOCK_ROUNDS
        LANES_EACH(LANES_ADD_START)
    }
    const V s[STATE_WORDS] = {LANES_EACH(LANES_LIST)};
    STORE_DIGESTS(out, size, s);
}

#undef LANE_WORD
#undef LANES_OF
#undef LANES_MAX
#undef LANES_BLOCK
#undef LANES_EACH
#undef LANES_FROM_STATE
#undef LANES_ADD_STATE
#undef LANES_STORE
#undef LANES_FROM_IV
#undef LANES_ADD_IV
#undef LANES_ADD_START
#undef LANES_LIST
#undef KERNEL_NAME
#undef KERNEL_AT
#undef KERNEL_SHORT
#undef LOAD_WORDS
#undef SHORT_WORDS
#undef STORE_DIGESTS
