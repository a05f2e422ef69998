/*
 * The hash state machine around the kernels (64-byte blocks of 32-bit words,
 * or the SHA-512 core's 128-byte blocks of 64-bit words): start, absorb with buffering,
 * the final digest (which leaves the state as it was), and a one-shot
 * digest of a whole message. No locks: the bridges bring their own.
 */
#include <string.h>

#include "constants.h"
#include "dispatch.h"
#include "hash.h"
#include "padding.h"

/* Each algorithm's initial value: the 32-bit ones' (zeros past the words
 * an algorithm uses, and for the 64-bit ones), the 64-bit ones'. */
static const uint32_t ivs32[VN_ALGORITHMS][8] = VN_IVS32;
static const uint64_t ivs64[VN_ALGORITHMS][8] = VN_IVS64;

int vn_digest_size(int algorithm) {
    static const unsigned char size[VN_ALGORITHMS] = VN_DIGEST_SIZES;
    return size[algorithm];
}

/* The initial chaining state of `algorithm` (the words it does not use zero)
 * and the kernel it runs unless told otherwise, with that kernel's flag
 * (vn_note), into `s`. */
static void initial(int algorithm, vn_state *s) {
    const int core = vn_core_of(algorithm);
    const vn_blocks_ref chosen = vn_chosen(core);
    s->ran = vn_ran_flag(core, vn_kernel_chosen(core));
    if (vn_wide(algorithm)) {
        memcpy(s->state64, ivs64[algorithm], sizeof s->state64);
        s->blocks64 = chosen.fn.words64;
        return;
    }
    memset(s->state64, 0, sizeof s->state64); /* all of the union: copies read it whole */
    memcpy(s->state, ivs32[algorithm], sizeof s->state);
    s->blocks = chosen.fn.words32;
}

void vn_init(vn_state *s, int algorithm, const vn_blocks_ref *blocks) {
    initial(algorithm, s);
    if (blocks) {
        if (vn_wide(algorithm)) {
            s->blocks64 = blocks->fn.words64;
        } else {
            s->blocks = blocks->fn.words32;
        }
        s->ran = vn_ran_flag_of(vn_core_of(algorithm), *blocks);
    }
    s->algorithm = algorithm;
    s->length = 0;
}

/* `blocks` whole blocks at `data` into the chaining state of `s`. */
static inline void run(vn_state *s, const unsigned char *data, size_t blocks, const int wide) {
    if (wide) {
        s->blocks64(s->state64, data, blocks);
    } else {
        s->blocks(s->state, data, blocks);
    }
}

/* Complete a buffered block, run the whole blocks straight from `data`,
 * buffer what is left (`wide`: 128-byte blocks, a constant where inlined). */
static inline void absorb(vn_state *s, const unsigned char *data, size_t length, const int wide) {
    const size_t block = VN_BLOCK_SIZE(wide);
    const size_t used = (size_t)(s->length % block);
    s->length += length;
    if (used) {
        const size_t need = block - used;
        if (length < need) {
            memcpy(s->buffer + used, data, length);
            return;
        }
        memcpy(s->buffer + used, data, need);
        run(s, s->buffer, 1, wide);
        vn_note(s->ran);
        data += need;
        length -= need;
    }
    const size_t whole = length / block;
    if (whole) {
        run(s, data, whole, wide);
        vn_note(s->ran);
        data += block * whole;
        length -= block * whole;
    }
    if (length) memcpy(s->buffer, data, length);
}

void vn_absorb(vn_state *s, const unsigned char *data, size_t length) {
    if (!length) return;
    if (vn_wide(s->algorithm)) {
        absorb(s, data, length, 1);
    } else {
        absorb(s, data, length, 0);
    }
}

/* Pad the message of `s->length` bytes whose last `length % block` are
 * `tail` (the blocks before them are already in the chaining state of `s`,
 * a copy), run the last block or two, and write the digest to `out`.
 * Returns the digest size. */
static int finish(vn_state *s, const unsigned char *tail, unsigned char *out) {
    vn_note(s->ran);
    unsigned char last[2 * VN_MAX_BLOCK];
    const int algorithm = s->algorithm, digest_size = vn_digest_size(algorithm);
    const size_t blocks = pad(algorithm, tail, s->length, last);
    if (vn_wide(algorithm)) {
        run(s, last, blocks, 1);
        put_digest64(s->state64, digest_size, out);
    } else {
        run(s, last, blocks, 0);
        put_digest32(algorithm, s->state, digest_size, out);
    }
    return digest_size;
}

int vn_final(const vn_state *s, unsigned char *out) {
    vn_state copy;
    memcpy(copy.state64, s->state64, sizeof copy.state64);
    copy.length = s->length;
    copy.blocks = s->blocks;
    copy.ran = s->ran;
    copy.algorithm = s->algorithm;
    return finish(&copy, s->buffer, out);
}

int vn_oneshot(int algorithm, const char *data, size_t length, char *out) {
    vn_state s;
    initial(algorithm, &s);
    s.algorithm = algorithm;
    s.length = length;
    const size_t block = (size_t)vn_block_size(algorithm), whole = length / block;
    if (whole) run(&s, (const unsigned char *)data, whole, vn_wide(algorithm));
    const unsigned char *tail = length % block ? (const unsigned char *)data + block * whole : NULL;
    return finish(&s, tail, (unsigned char *)out);
}
