/*
 * Many messages of at most a block (one or two padded blocks), through the
 * short kernel beside a many-kernel (native.h: vn_short_fn), a full width at
 * a time: many.c hands its short messages here (many_digest_short), and the
 * batch API its messages padded already (vn_digest_padded_with). See many.c
 * for why they skip the lanes.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "many.h"
#include "many_scheduler.h"
#include "padding.h"

/* The short kernel beside the widest rung on messages of `blocks` blocks
 * (see vn_short_fn), noted as that rung's run. */
static void run_short(const struct scheduler *s, size_t blocks, const unsigned char *const *data,
                      const uint32_t *lengths, unsigned char *const *out) {
    vn_note(s->ladder.ran[s->ladder.rungs - 1]);
    const int size = vn_digest_size(s->algorithm);
    if (s->wide) {
        s->ladder.shorts.words64(s->iv64, size, (int)blocks, data, lengths, out);
    } else {
        s->ladder.shorts.words32(s->iv, size, (int)blocks, data, lengths, out);
    }
}

/* A group of messages for the short kernel: where each is read, its length
 * (none for blocks padded already) and where its digest goes. */
struct group {
    const unsigned char *data[VN_MAX_LANES];
    uint32_t lengths[VN_MAX_LANES];
    unsigned char *out[VN_MAX_LANES];
};

/* The first n (1 .. width) messages of group `g`, of `blocks` blocks,
 * through the short kernel (`padded`: g->lengths unused, the blocks padded
 * already): a group part full runs with its free lanes repeating its first
 * message, into scratch digests. */
static void run_group(struct scheduler *s, size_t blocks, struct group *g, int n, int padded) {
    for (int i = n; i < s->width; i++) {
        g->data[i] = g->data[0];
        if (!padded) g->lengths[i] = g->lengths[0];
        g->out[i] = s->scratch[i];
    }
    run_short(s, blocks, g->data, padded ? NULL : g->lengths, g->out);
}

/* The short messages (one or two padded blocks, see short_blocks) through
 * the short kernel in one pass: each joins its class's group, read where it
 * is when its block's bytes may be (span_readable; a message of a block always
 * is), else from a copy padded with zeros, and a group runs when it is full,
 * the ones left part full at the end after the pass (run_group). Joining is
 * branch-free (group 0 takes the long messages and is emptied at once): a
 * test of the class per message mispredicted on mixed lengths, and two
 * passes cost a quarter of a mixed column's time. The groups' counts are
 * kept in registers, not in an array indexed by the class (whose store and
 * reload each message waited for), and the scheduler's fields in locals
 * (the stores to the groups might alias them). Returns the number of long
 * messages: whether schedule() has any work. */
size_t many_digest_short(struct scheduler *s) {
    const size_t size = (size_t)vn_digest_size(s->algorithm), count = s->count;
    const size_t *const lengths = s->lengths;
    const unsigned char *const *const data = s->data;
    unsigned char *const out = s->out;
    const int width = s->width, wide = s->wide;
    const size_t block = s->block;
    struct group g[3];
    int ones = 0, twos = 0;
    size_t longs = 0;
    for (size_t m = 0; m < count; m++) {
        const size_t length = lengths[m];
        const int c = (int)short_blocks(length, wide);
        const int i = c == 2 ? twos : c == 1 ? ones : 0;
        const unsigned char *p = data[m];
        if (c && length < block && !span_readable(p, length, block)) {
            unsigned char *to = copy_of(s, c - 1, i);
            memset(to, 0, block);
            if (length) memcpy(to, p, length);
            p = to;
        }
        g[c].data[i] = p;
        g[c].lengths[i] = (uint32_t)length;
        g[c].out[i] = out + m * size;
        ones += c == 1;
        twos += c == 2;
        longs += c == 0;
        if (i + 1 == width && c) {
            run_group(s, (size_t)c, &g[c], width, 0);
            ones = c == 1 ? 0 : ones;
            twos = c == 2 ? 0 : twos;
        }
    }
    if (ones) run_group(s, 1, &g[1], ones, 0);
    if (twos) run_group(s, 2, &g[2], twos, 0);
    return longs;
}

/* ---- messages padded already ------------------------------------------ */

/* Through the short kernel, a width at a time (the last group part full,
 * see run_group): no lanes, no emit. */
int vn_digest_padded_with(int index, int algorithm, size_t blocks, size_t count,
                          const unsigned char *padded, const size_t *job,
                          unsigned char *const *out) {
    if (vn_many_lanes(index, algorithm) != 1 || blocks < 1 || blocks > 2) return -1;
    if (!count) return 0;
    const int core = many_core(algorithm);
    if (index < 0) index = vn_kernel_chosen(core);
    struct scheduler *s = many_new_scheduler(core, index);
    if (!s) return -2;
    const size_t stride = (size_t)vn_block_size(algorithm) * blocks;
    many_start_digests(s, algorithm);
    struct group g;
    for (size_t first = 0; first < count; first += (size_t)s->width) {
        const size_t left = count - first;
        const int n = left < (size_t)s->width ? (int)left : s->width;
        for (int i = 0; i < n; i++) {
            g.data[i] = padded + stride * (first + (size_t)i);
            g.out[i] = out[job[first + (size_t)i]];
        }
        run_group(s, blocks, &g, n, 1);
    }
    many_free_scheduler(s);
    return 0;
}
