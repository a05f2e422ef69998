/*
 * dispatch.c: the CPU's features, each core's kernels, the choice, and which
 * kernels have run.
 */
#ifndef VARIANTS_NATIVE_DISPATCH_H
#define VARIANTS_NATIVE_DISPATCH_H

#include "native.h"

/* Detect the CPU's features and choose each core's kernel: the fastest one
 * the CPU can run, or the portable one if the environment variable
 * VARIANTS_NATIVE_PORTABLE is set (to anything but "" or "0"). Then the
 * environment variable VARIANTS_NATIVE_KERNELS, a comma-separated list of
 * core=id (core: md5, sha256, md5-many, sha256-many, sha1, sha512, sha1-many,
 * sha512-many; id: vn_kernel_id),
 * forces the cores it names. Call it before hashing (until then every core
 * runs its portable kernel); calling it again chooses again (objects already
 * started keep their kernel). */
void vn_setup(void);
/* What vn_setup could not do: a VARIANTS_NATIVE_KERNELS entry with an unknown
 * core or kernel id, or naming a kernel this CPU cannot run (that core keeps
 * its usual choice). NULL when there was no problem. */
const char *vn_setup_problem(void);
/* The kernels compiled in for a core, portable (index 0) first: how many
 * there are, their display names and short ids, whether this CPU can run
 * them, and which one vn_setup chose. vn_kernel_find is the index of an id
 * (-1 if the core has no such kernel). */
int vn_kernel_count(int core);
const char *vn_kernel_name(int core, int index);
const char *vn_kernel_id(int core, int index);
int vn_kernel_find(int core, const char *id);
int vn_kernel_usable(int core, int index);
int vn_kernel_chosen(int core);
/* Kernel `index` of a single-message core (its function NULL if there is
 * none, or if `core` is a many core), and the chosen one, tagged by the
 * core's word width (native.h's vn_blocks_ref). */
vn_blocks_ref vn_kernel(int core, int index);
vn_blocks_ref vn_chosen(int core);
/* Run kernel `index` of a single-message core (the chosen one if index < 0)
 * over `blocks` whole blocks from `state`, the core's words (uint32_t[8], or
 * uint64_t[8] for a core of 64-bit words and 128-byte blocks): the block
 * benchmark and the tests use it. Returns 0, or -1 (doing nothing) if there
 * is no such kernel, this CPU cannot run it, or `core` is a many core (see
 * vn_digest_many_with). */
int vn_compress(int core, int index, void *state, const char *data, size_t blocks);
/* A many core's kernel `index`: its function (NULL for the portable one,
 * which hashes one message at a time with the chosen single-message kernel),
 * how many messages it takes at once (1 for single-message cores), and the
 * index of the narrower kernel the scheduler hands the last messages to when
 * there are too few left to fill it (-1: none; then, for one message, the
 * chosen single-message kernel). Tagged by the core's word width, as vn_kernel. */
vn_many_ref vn_many_kernel(int core, int index);
/* The short kernel beside many-kernel `index` of `core` (its function NULL if none). */
vn_short_ref vn_short_kernel(int core, int index);
/* Whether many-kernel `index` of `core` has lanes (a many function of either width). */
int vn_kernel_has_lanes(int core, int index);
/* For an algorithm: whether many-kernel `index` of its many core (the chosen
 * one if index < 0) has lanes and a short kernel beside them (what
 * vn_digest_padded_with runs): 1; 0 for one without (the portable one: one
 * message after another); -1 if there is no such kernel or this CPU cannot
 * run it. */
int vn_many_lanes(int index, int algorithm);
/* Whether kernel `index` of `core` has run in this process: every place that
 * calls a kernel notes it (vn_note), so that the tests can prove that every
 * kernel this CPU can run was run. The flag of a kernel, and of the
 * single-message kernel `blocks` of `core` (NULL if there is none). */
int vn_kernel_ran(int core, int index);
unsigned char *vn_ran_flag(int core, int index);
unsigned char *vn_ran_flag_of(int core, vn_blocks_ref blocks);
/* Set a kernel's flag: a load, and a store only the first time, so that
 * threads calling the same kernel do not pass its cache line to and fro. */
static inline void vn_note(unsigned char *flag) {
    if (flag && !__atomic_load_n(flag, __ATOMIC_RELAXED)) __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}
int vn_kernel_lanes(int core, int index);
int vn_kernel_narrower(int core, int index);

#endif
