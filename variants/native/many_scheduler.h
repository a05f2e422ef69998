/*
 * What many.c's scheduler and many_short.c's short messages share: the
 * scheduler's state (the kernels a call can use, the lanes, the buffers and
 * the work), its small helpers, and its setup and teardown
 * (many_scheduler.c). Not part of the interface (many.h).
 */
#ifndef VARIANTS_NATIVE_MANY_SCHEDULER_H
#define VARIANTS_NATIVE_MANY_SCHEDULER_H

#include <stddef.h>
#include <stdint.h>

#include "dispatch.h"
#include "hash.h"

/* The kernels one call can use, narrowest first, one of each kind of the
 * core's word width: the scheduler's `wide` says which member of each union
 * (native.h's vn_many_any, vn_blocks_any, vn_short_any) holds the function,
 * words64 or words32, as a kernel record's tag does. Rung 0 is always the
 * single-message kernel (one lane; its run is NULL); pick[n] is the rung
 * that takes n messages. */
struct ladder {
    int rungs;
    int lanes[8];
    vn_many_any run[8];
    unsigned char *ran[8]; /* each rung's flag (vn_note; the single-message kernel's for rung 0) */
    unsigned char pick[VN_MAX_LANES + 1];
    vn_blocks_any single;
    vn_short_any shorts; /* the widest rung's short kernel, if it has one */
};

/* What the scheduler knows of the message in a lane, beside lanes.data[i]
 * (where the lane's current segment goes on) and lanes.state[.][i]. */
struct lane {
    size_t left;               /* blocks left in the current segment */
    const unsigned char *then; /* the next segment; NULL: none */
    size_t then_blocks;
    size_t job;                /* which message (or state) */
    int buffer;                /* which of the buffers this lane's copies go to */
};

struct scheduler {
    union {
        struct { /* messages at least a block long, and states */
            union {
                vn_lanes lanes;
                vn_lanes64 lanes64; /* the SHA-512 core's: the same bytes, data[] where lanes' is */
            };
            struct lane lane[VN_MAX_LANES];
            /* each lane's two blocks (buffer_of: 16 lanes of 256 bytes when wide) */
            _Alignas(64) unsigned char buffer[VN_MAX_LANES * 128];
        };
        struct { /* short messages: copies of those that cannot be read in place */
            _Alignas(64) unsigned char copy[2][VN_MAX_LANES * 64]; /* (copy_of) */
            /* a part-full group's idle lanes' digests */
            unsigned char scratch[VN_MAX_LANES][VN_MAX_DIGEST];
        };
    };
    struct ladder ladder;
    int width;         /* messages in flight at most: the widest rung */
    int words;         /* state words: 4 (MD5), 5 (SHA-1) or 8 */
    int wide;          /* the SHA-512 core: 64-bit words, 128-byte blocks (the ladder's words64) */
    size_t block;      /* 64 or 128 */
    int algorithm;     /* digests: the algorithm; absorbing: -1 */
    union {
        uint32_t iv[8];
        uint64_t iv64[8];
    };
    /* the work */
    size_t count, next;
    const unsigned char *const *data;
    const size_t *lengths;
    unsigned char *out;
    vn_state *const *states;
};

static inline int many_core(int algorithm) { return vn_many_core_of(algorithm); }

/* Lane k's two blocks of buffer, and short message k's copy in class c (flat
 * arrays: a wide lane's blocks are twice as long, half as many fit). */
static inline unsigned char *buffer_of(struct scheduler *s, int k) {
    return s->buffer + (size_t)k * 2 * s->block;
}

static inline unsigned char *copy_of(struct scheduler *s, int c, int k) {
    return s->copy[c] + (size_t)k * s->block;
}

/* Where each lane's current segment goes on (at the same place for both kinds of lanes). */
static inline const unsigned char **lane_data(struct scheduler *s) {
    return s->wide ? s->lanes64.data : s->lanes.data;
}

/* Whether the scheduler's ladder has a short kernel (native.h: vn_short_fn). */
static inline int has_shorts(const struct scheduler *s) {
    return s->wide ? s->ladder.shorts.words64 != NULL : s->ladder.shorts.words32 != NULL;
}

/* How many padded blocks a message of at most a block takes: 1 below 56
 * bytes, 2 from 56 on (its length no longer fits; a message of exactly a
 * block is its 64 bytes and a block of padding, which the short kernel
 * makes in registers); 0 for a longer one. The SHA-512 core's (`wide`):
 * the same with 128-byte blocks and 16 bytes of length, 1 below 112. Without a
 * branch (a mixed column's lengths mispredicted it). */
static inline size_t short_blocks(size_t length, int wide) {
    const size_t block = VN_BLOCK_SIZE(wide), room = VN_LENGTH_ROOM(wide);
    return (size_t)(length <= block) * (1 + (size_t)(length >= room));
}

/* many_scheduler.c: a scheduler for many-kernel `index` of `core` (usable),
 * or NULL without memory (many_free_scheduler() it); set for the digests of
 * `algorithm` (its IV). */
struct scheduler *many_new_scheduler(int core, int index);
void many_free_scheduler(struct scheduler *s);
void many_start_digests(struct scheduler *s, int algorithm);
/* many_short.c: the short messages among s's work through the short kernel
 * in one pass; the number of long ones (whether schedule() has work). */
size_t many_digest_short(struct scheduler *s);

#endif
