/*
 * The scheduler's setup and teardown (many_scheduler.h): the ladder of
 * kernels a call can use, the scheduler's memory, and its IV for digests.
 * many.c (messages longer than a block, and states) and many_short.c
 * (messages of at most a block) both start from here; many.c calls
 * many_short.c's many_digest_short, and nothing calls back.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */

#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <malloc.h> /* _aligned_malloc: Windows has no posix_memalign */
#endif

#include "dispatch.h"
#include "hash.h"
#include "many_scheduler.h"

/* The ladder down from many-kernel `index` of `core` (which must be usable):
 * the functions of the core's width (dispatch's refs' members, untagged). */
static void build_ladder(struct ladder *ladder, int core, int index) {
    int chain[8], length = 0;
    for (int i = index; i >= 0 && length < 7 && vn_kernel_usable(core, i);
         i = vn_kernel_narrower(core, i)) {
        if (vn_kernel_has_lanes(core, i) && vn_kernel_lanes(core, i) > 1) chain[length++] = i;
    }
    const int single_core = vn_single_core(core);
    ladder->rungs = 1;
    ladder->lanes[0] = 1;
    ladder->run[0] = (vn_many_any){NULL}; /* NULL as either member */
    ladder->ran[0] = vn_ran_flag(single_core, vn_kernel_chosen(single_core));
    for (int k = length - 1; k >= 0; k--) {
        ladder->lanes[ladder->rungs] = vn_kernel_lanes(core, chain[k]);
        ladder->run[ladder->rungs] = vn_many_kernel(core, chain[k]).fn;
        ladder->ran[ladder->rungs] = vn_ran_flag(core, chain[k]);
        ladder->rungs++;
    }
    int rung = 0;
    for (int n = 0; n <= VN_MAX_LANES; n++) {
        while (rung < ladder->rungs - 1 && ladder->lanes[rung] < n) rung++;
        ladder->pick[n] = (unsigned char)rung;
    }
    ladder->single = vn_chosen(single_core).fn;
    ladder->shorts = vn_short_kernel(core, index).fn;
}

/* A scheduler for many-kernel `index` of `core`, or NULL without memory. */
struct scheduler *many_new_scheduler(int core, int index) {
    void *memory = NULL;
    const size_t size = (sizeof(struct scheduler) + 63) / 64 * 64;
#if defined(_WIN32)
    memory = _aligned_malloc(size, 64);
    if (!memory) return NULL;
#else
    if (posix_memalign(&memory, 64, size) != 0) return NULL;
#endif
    struct scheduler *s = memory;
    build_ladder(&s->ladder, core, index);
    s->width = s->ladder.lanes[s->ladder.rungs - 1];
    s->wide = vn_core_is_wide(core);
    s->block = VN_BLOCK_SIZE(s->wide);
    s->words = vn_core_state_words(core);
    s->next = 0;
    return s;
}

/* Frees a scheduler of many_new_scheduler (Windows's aligned blocks have a free of their own). */
void many_free_scheduler(struct scheduler *s) {
#if defined(_WIN32)
    _aligned_free(s);
#else
    free(s);
#endif
}

/* Scheduler `s` set for the digests of `algorithm`: its IV. */
void many_start_digests(struct scheduler *s, int algorithm) {
    vn_state iv;
    vn_init(&iv, algorithm, NULL);
    memcpy(s->iv64, iv.state64, sizeof s->iv64);
    s->algorithm = algorithm;
}
