/*
 * locked.c: the cffi bridge's objects, a state behind a mutex.
 */
#ifndef VARIANTS_NATIVE_LOCKED_H
#define VARIANTS_NATIVE_LOCKED_H

#include <pthread.h>

#include "hash.h"

/* A state with a mutex: cffi releases the GIL around every call, so two
 * threads can be in here with the same object, and hashlib promises that
 * their updates do not mix. Python frees the memory without
 * pthread_mutex_destroy: a default mutex that is not held owns nothing on
 * Linux (glibc and musl). */
typedef struct vn_hash {
    vn_state s;
    pthread_mutex_t lock;
} vn_hash;

/* Start `h` (fresh memory) as `algorithm` and hash `length` bytes of `data`:
 * construction with data in one call. No lock is taken: `h` is not shared yet. */
void vn_start(vn_hash *h, int algorithm, const char *data, size_t length);
/* Hash `length` more bytes. */
void vn_update(vn_hash *h, const char *data, size_t length);
/* Write the digest of everything so far to `out`; `h` stays usable.
 * Returns the digest size. */
int vn_digest(vn_hash *h, char *out);
/* Make `dst` (fresh memory) an independent copy of `src`. */
void vn_copy(vn_hash *dst, vn_hash *src);
/* vn_update(hashes[i], data[i], lengths[i]) for every i, through the lanes of
 * vn_absorb_many (the objects distinct, of one core), each object locked for
 * the whole call. Returns 0, or -1 (doing nothing) if it could not allocate. */
int vn_update_many(vn_hash *const *hashes, size_t count, const unsigned char *const *data,
                   const size_t *lengths);

#endif
