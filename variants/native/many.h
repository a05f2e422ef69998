/*
 * many.c: many messages at once, through the many-kernels' lanes.
 */
#ifndef VARIANTS_NATIVE_MANY_H
#define VARIANTS_NATIVE_MANY_H

#include "hash.h"

/* The most threads one call of vn_digest_many uses (more asked for: this many). */
#define VN_MANY_MAX_THREADS 64

/* The digests of `count` whole messages of `algorithm` (VN_MD5 ..
 * VN_SHA512_256): message i is lengths[i] bytes at data[i]; its digest goes to
 * out + i * vn_digest_size(algorithm). `threads` > 1 splits the work over that
 * many threads (pthreads), balanced by bytes; the result is identical
 * whatever `threads` is. Runs the many-kernel vn_setup chose. */
void vn_digest_many(int algorithm, size_t count, const unsigned char *const *data,
                    const size_t *lengths, unsigned char *out, int threads);
/* Continue `count` independent hash states (all of one core: MD5, SHA-1,
 * SHA-224/SHA-256, or the SHA-512 core's; no state twice), state i absorbing lengths[i] bytes at
 * data[i], exactly as vn_absorb(states[i], data[i], lengths[i]) would, but
 * through the lanes: the streaming form (several files at once). */
void vn_absorb_many(vn_state *const *states, size_t count, const unsigned char *const *data,
                    const size_t *lengths);
/* The same with many-kernel `index` of the algorithm's many core (the chosen
 * one if index < 0), for tests and benchmarks. Return 0, or -1 (doing
 * nothing) if there is no such kernel or this CPU cannot run it. */
int vn_digest_many_with(int index, int algorithm, size_t count, const unsigned char *const *data,
                        const size_t *lengths, unsigned char *out, int threads);
int vn_absorb_many_with(int index, vn_state *const *states, size_t count,
                        const unsigned char *const *data, const size_t *lengths);
/* The digests of `count` messages padded already (padding.h's pad), each
 * `blocks` (1 or 2) blocks at padded + vn_block_size(algorithm) * blocks * i, all from the IV, in
 * the lanes of many-kernel `index` (which must have lanes: vn_many_lanes):
 * message i's digest to out[job[i]]. Short
 * messages copied into place while their objects could be read (the batch
 * API's): no pointer to them is needed after. Return 0, -1 (doing nothing)
 * for a kernel without lanes, -2 without memory. */
int vn_digest_padded_with(int index, int algorithm, size_t blocks, size_t count,
                          const unsigned char *padded, const size_t *job,
                          unsigned char *const *out);

#endif
