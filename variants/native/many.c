/*
 * Many messages at once: the scheduler that keeps a many-kernel's lanes full.
 *
 * A many-kernel (native.h: vn_many_fn) runs the same number of blocks in each
 * of its lanes, one message per lane. The scheduler gives every lane a
 * message, runs the kernel for as many blocks as the lane closest to the end
 * of its current piece has left, and at once hands each lane that finished
 * its message the next one: messages of any mix of lengths keep the lanes
 * full. A message is a series of pieces ("segments") of whole blocks:
 *
 *   digests   the message's whole blocks, read where they are; then its
 *             padded last block or two (a copy)
 *   absorbing a block completed from the state's buffered bytes (a copy);
 *             then the new data's whole blocks, read where they are; what is
 *             left over goes to the state's buffer at once
 *
 * When fewer messages are left than the kernel has lanes, the last ones go
 * to the kernel's narrower relative (vn_kernel_narrower: the cheapest one that
 * takes them all), down to the chosen single-message kernel for one message.
 * The lanes in use are always 0 .. active-1: a lane that finishes with nothing
 * left to take is filled by moving the last lane into it.
 *
 * Messages of at most a block (one or two padded blocks) skip that
 * machinery: every many-kernel with lanes has a short kernel beside it
 * (native.h: vn_short_fn), which takes them a full width at a time
 * (many_digest_short, many_short.c): read where they are, padded in registers, their
 * digests stored straight from the state's registers, with no bookkeeping
 * per message. (Through the lanes, for a million 32-byte messages the
 * per-lane bookkeeping cost more than the hashing; padded into batches of
 * blocks, as before the short kernels, the padding and the state's round
 * trip through memory were a third of a 32-byte message's time.) A message
 * of exactly 64 bytes is one of them: through the lanes it cost 1.6 times a
 * 56-63-byte one.
 *
 * The batch API pads the short bytes of a list itself, as it reads them with
 * the GIL held, and hands them over padded already: vn_digest_padded_with
 * runs them through the short kernel from the IV, a width at a time.
 *
 * The SHA-512 core runs the same scheduler on 64-bit words and 128-byte
 * blocks (`wide`): its lanes (vn_lanes64) have the same size and layout of
 * bytes as vn_lanes, so every buffer below serves both, half as many lanes
 * of twice the bytes.
 *
 * Memory: one allocation per call (or per thread), of about 18 KiB, whatever
 * the number or the length of the messages.
 */
#include <pthread.h>
#include <string.h>

#include "dispatch.h"
#include "many.h"
#include "many_scheduler.h"
#include "padding.h"

/* Below this many bytes a part of vn_digest_many is not worth a thread. */
#define MIN_PART_BYTES (256 * 1024)

/* ---- padding and digests ------------------------------------------------- */

/* The digest of the message that lane `lane` finished (MD5 writes its words
 * little-endian, SHA-1 and SHA-2 big-endian). */
static inline void emit(const struct scheduler *s, int lane, unsigned char *out) {
    const int algorithm = s->algorithm, size = vn_digest_size(algorithm);
    if (s->wide) {
        uint64_t state[8];
        for (int j = 0; j < 8; j++) state[j] = s->lanes64.state[j][lane];
        put_digest64(state, size, out);
    } else if (algorithm == VN_MD5) {
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) put_le32(out + 4 * i, s->lanes.state[i][lane]);
    } else {
#pragma GCC unroll 8
        for (int i = 0; i < size / 4; i++) put_be32(out + 4 * i, s->lanes.state[i][lane]);
    }
}

/* Run `blocks` blocks in lanes 0 .. active-1 with the rung that takes them. */
static void run_kernel(struct scheduler *s, int active, size_t blocks) {
    const struct ladder *ladder = &s->ladder;
    const int rung = ladder->pick[active];
    vn_note(ladder->ran[rung]);
    if (s->wide) {
        if (ladder->run[rung].words64) {
            ladder->run[rung].words64(&s->lanes64, active, blocks);
            return;
        }
        uint64_t state[8];
        for (int j = 0; j < 8; j++) state[j] = s->lanes64.state[j][0];
        ladder->single.words64(state, s->lanes64.data[0], blocks);
        for (int j = 0; j < 8; j++) s->lanes64.state[j][0] = state[j];
        return;
    }
    if (ladder->run[rung].words32) {
        ladder->run[rung].words32(&s->lanes, active, blocks);
        return;
    }
    uint32_t state[8];
    for (int j = 0; j < s->words; j++) state[j] = s->lanes.state[j][0];
    ladder->single.words32(state, s->lanes.data[0], blocks);
    for (int j = 0; j < s->words; j++) s->lanes.state[j][0] = state[j];
}

/* ---- giving lanes their messages ----------------------------------------- */

/* Start message `m` (at least a block long) in lane `i`: digests. Its
 * padded tail is read only after its whole blocks: the stores are done by
 * then. */
static void start_message(struct scheduler *s, int i, size_t m) {
    struct lane *l = &s->lane[i];
    const size_t length = s->lengths[m];
    const size_t whole = length / s->block;
    unsigned char *buffer = buffer_of(s, l->buffer);
    if (s->wide) {
        for (int j = 0; j < 8; j++) s->lanes64.state[j][i] = s->iv64[j];
    } else {
        for (int j = 0; j < s->words; j++) s->lanes.state[j][i] = s->iv[j];
    }
    l->job = m;
    lane_data(s)[i] = s->data[m];
    l->left = whole;
    l->then = buffer;
    l->then_blocks = pad(s->algorithm, s->data[m] + s->block * whole, length, buffer);
}

/* Start state `m` in lane `i`: absorbing (the state has a whole block to
 * hash, see next_job). Everything but the chaining state is brought up to
 * date at once: the length, and the bytes left over in the buffer. */
static void start_state(struct scheduler *s, int i, size_t m) {
    struct lane *l = &s->lane[i];
    vn_state *state = s->states[m];
    const unsigned char *data = s->data[m];
    size_t length = s->lengths[m];
    const size_t block = s->block, used = (size_t)(state->length % block);
    state->length += length;
    if (s->wide) {
        for (int j = 0; j < 8; j++) s->lanes64.state[j][i] = state->state64[j];
    } else {
        for (int j = 0; j < s->words; j++) s->lanes.state[j][i] = state->state[j];
    }
    l->job = m;
    l->then = NULL;
    if (used) {
        /* complete the buffered block in this lane's buffer */
        unsigned char *buffer = buffer_of(s, l->buffer);
        const size_t need = block - used;
        memcpy(buffer, state->buffer, used);
        memcpy(buffer + used, data, need);
        data += need;
        length -= need;
        lane_data(s)[i] = buffer;
        l->left = 1;
        if (length >= block) {
            l->then = data;
            l->then_blocks = length / block;
        }
    } else {
        lane_data(s)[i] = data;
        l->left = length / block;
    }
    const size_t whole = length / block;
    if (length % block) memcpy(state->buffer, data + block * whole, length % block);
}

/* The next job that needs a lane (count if none is left). Digests: the next
 * message longer than a block (many_digest_short takes the others). Absorbing:
 * the next state that gets a whole block; one that does not just buffers
 * its bytes here. */
static size_t next_job(struct scheduler *s) {
    if (s->algorithm >= 0) {
        if (!has_shorts(s)) return s->next < s->count ? s->next++ : s->count;
        for (; s->next < s->count; s->next++) {
            if (!short_blocks(s->lengths[s->next], s->wide)) return s->next++;
        }
        return s->count;
    }
    while (s->next < s->count) {
        const size_t m = s->next++;
        vn_state *state = s->states[m];
        const size_t length = s->lengths[m];
        const size_t used = (size_t)(state->length % s->block);
        if (length >= s->block - used) return m;
        if (length) {
            memcpy(state->buffer + used, s->data[m], length);
            state->length += length;
        }
    }
    return s->count;
}

static void start(struct scheduler *s, int i, size_t m) {
    if (s->algorithm >= 0) {
        start_message(s, i, m);
    } else {
        start_state(s, i, m);
    }
}

/* Lane `i` has hashed all of its job's blocks. */
static void finish(struct scheduler *s, int i) {
    const size_t m = s->lane[i].job;
    if (s->algorithm >= 0) {
        emit(s, i, s->out + m * (size_t)vn_digest_size(s->algorithm));
    } else if (s->wide) {
        for (int j = 0; j < 8; j++) s->states[m]->state64[j] = s->lanes64.state[j][i];
    } else {
        for (int j = 0; j < s->words; j++) s->states[m]->state[j] = s->lanes.state[j][i];
    }
}

/* Move the job in lane `from` to lane `to` (whose job has finished). */
static void move(struct scheduler *s, int from, int to) {
    if (s->wide) {
        for (int j = 0; j < 8; j++) s->lanes64.state[j][to] = s->lanes64.state[j][from];
    } else {
        for (int j = 0; j < s->words; j++) s->lanes.state[j][to] = s->lanes.state[j][from];
    }
    lane_data(s)[to] = lane_data(s)[from];
    const struct lane moved = s->lane[from];
    s->lane[from] = s->lane[to]; /* so that `from` keeps a buffer nobody uses */
    s->lane[to] = moved;
}

/* ---- the loop -------------------------------------------------------------- */

/* The number of the highest bit set in x (not 0). */
static inline int highest(uint32_t x) {
#if defined(__GNUC__)
    return 31 - __builtin_clz(x);
#else
    int i = 31;
    while (!(x >> i)) i--;
    return i;
#endif
}

static void schedule(struct scheduler *s) {
    /* (the short messages' copies, which share the lanes' memory, are done with) */
    for (int i = 0; i < VN_MAX_LANES; i++) s->lane[i].buffer = i;
    int active = 0;
    for (; active < s->width; active++) {
        const size_t m = next_job(s);
        if (m == s->count) break;
        start(s, active, m);
    }
    while (active) {
        size_t blocks = s->lane[0].left;
        for (int i = 1; i < active; i++) {
            if (s->lane[i].left < blocks) blocks = s->lane[i].left;
        }
        /* (0 when a lane starts a message shorter than a block: its padded blocks next) */
        if (blocks) run_kernel(s, active, blocks);
        /* every lane moves on; only those whose segment ended need more (with
         * mixed lengths, a test per lane mispredicted about half the time) */
        uint32_t ended = 0;
        const unsigned char **data = lane_data(s);
        const size_t step = s->block * blocks;
        for (int i = 0; i < active; i++) {
            s->lane[i].left -= blocks;
            data[i] += step;
            ended |= (uint32_t)(s->lane[i].left == 0) << i;
        }
        /* downwards, so that the lane moved into a finished one is done */
        while (ended) {
            const int i = highest(ended);
            ended &= ~((uint32_t)1 << i);
            struct lane *l = &s->lane[i];
            if (l->then) {
                lane_data(s)[i] = l->then;
                l->left = l->then_blocks;
                l->then = NULL;
            } else {
                finish(s, i);
                const size_t m = next_job(s);
                if (m < s->count) {
                    start(s, i, m);
                } else if (i != --active) {
                    move(s, active, i);
                }
            }
        }
    }
}

/* ---- digests --------------------------------------------------------------- */

/* The digests of messages [0, count) with many-kernel `index` (usable). */
static void digest_range(int index, int algorithm, size_t count, const unsigned char *const *data,
                         const size_t *lengths, unsigned char *out) {
    const size_t size = (size_t)vn_digest_size(algorithm);
    const int core = many_core(algorithm);
    struct scheduler *s = NULL;
    /* one message, or the portable kernel: one message after another */
    if (count > 1 && vn_kernel_has_lanes(core, index)) s = many_new_scheduler(core, index);
    if (!s) {
        if (!vn_kernel_has_lanes(core, index)) vn_note(vn_ran_flag(core, index));
        for (size_t i = 0; i < count; i++) {
            vn_oneshot(algorithm, (const char *)data[i], lengths[i], (char *)out + i * size);
        }
        return;
    }
    many_start_digests(s, algorithm);
    s->count = count;
    s->data = data;
    s->lengths = lengths;
    s->out = out;
    s->states = NULL;
    if (!has_shorts(s) || many_digest_short(s)) schedule(s);
    many_free_scheduler(s);
}

struct part {
    int index, algorithm;
    size_t count;
    const unsigned char *const *data;
    const size_t *lengths;
    unsigned char *out;
    pthread_t thread;
    int started;
};

static void *run_part(void *arg) {
    const struct part *p = arg;
    digest_range(p->index, p->algorithm, p->count, p->data, p->lengths, p->out);
    return NULL;
}

int vn_digest_many_with(int index, int algorithm, size_t count, const unsigned char *const *data,
                        const size_t *lengths, unsigned char *out, int threads) {
    if (algorithm < 0 || algorithm >= VN_ALGORITHMS) return -1;
    const int core = many_core(algorithm);
    if (index < 0) index = vn_kernel_chosen(core);
    if (!vn_kernel_usable(core, index)) return -1;
    if (threads > VN_MANY_MAX_THREADS) threads = VN_MANY_MAX_THREADS;
    /* each message weighs its bytes and a block for its padding and upkeep */
    unsigned long long total = 0;
    if (threads > 1) {
        for (size_t i = 0; i < count; i++) total += lengths[i] + 64;
    }
    size_t parts = threads > 1 ? (size_t)threads : 1;
    if (parts > count) parts = count;
    if (parts > total / MIN_PART_BYTES) parts = (size_t)(total / MIN_PART_BYTES);
    if (parts <= 1) {
        digest_range(index, algorithm, count, data, lengths, out);
        return 0;
    }
    /* contiguous parts of about equal weight: part k ends where the running
     * weight reaches (k + 1) / parts of the total */
    struct part part[VN_MANY_MAX_THREADS];
    const size_t size = (size_t)vn_digest_size(algorithm);
    size_t first = 0;
    unsigned long long weight = 0;
    for (size_t k = 0; k < parts; k++) {
        const unsigned long long goal = total / parts * (k + 1);
        size_t end = first;
        if (k == parts - 1) {
            end = count;
        } else {
            while (end < count && weight < goal) weight += lengths[end++] + 64;
        }
        part[k].index = index;
        part[k].algorithm = algorithm;
        part[k].count = end - first;
        part[k].data = data + first;
        part[k].lengths = lengths + first;
        part[k].out = out + first * size;
        first = end;
    }
    /* the other parts on threads, the last one here */
    for (size_t k = 0; k + 1 < parts; k++) {
        part[k].started = part[k].count &&
                          pthread_create(&part[k].thread, NULL, run_part, &part[k]) == 0;
    }
    run_part(&part[parts - 1]);
    for (size_t k = 0; k + 1 < parts; k++) {
        if (part[k].started) {
            pthread_join(part[k].thread, NULL);
        } else {
            run_part(&part[k]); /* no thread to be had: here, then */
        }
    }
    return 0;
}

void vn_digest_many(int algorithm, size_t count, const unsigned char *const *data,
                    const size_t *lengths, unsigned char *out, int threads) {
    vn_digest_many_with(-1, algorithm, count, data, lengths, out, threads);
}

/* ---- absorbing ------------------------------------------------------------- */

int vn_absorb_many_with(int index, vn_state *const *states, size_t count,
                        const unsigned char *const *data, const size_t *lengths) {
    if (!count) return 0;
    const int core = many_core(states[0]->algorithm);
    if (index < 0) index = vn_kernel_chosen(core);
    if (!vn_kernel_usable(core, index)) return -1;
    struct scheduler *s = NULL;
    if (count > 1 && vn_kernel_has_lanes(core, index)) s = many_new_scheduler(core, index);
    if (!s) {
        if (!vn_kernel_has_lanes(core, index)) vn_note(vn_ran_flag(core, index));
        for (size_t i = 0; i < count; i++) vn_absorb(states[i], data[i], lengths[i]);
        return 0;
    }
    s->algorithm = -1;
    s->count = count;
    s->data = data;
    s->lengths = lengths;
    s->out = NULL;
    s->states = states;
    schedule(s);
    many_free_scheduler(s);
    return 0;
}

void vn_absorb_many(vn_state *const *states, size_t count, const unsigned char *const *data,
                    const size_t *lengths) {
    vn_absorb_many_with(-1, states, count, data, lengths);
}
