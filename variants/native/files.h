/*
 * files.c: small files read and hashed in lanes.
 */
#ifndef VARIANTS_NATIVE_FILES_H
#define VARIANTS_NATIVE_FILES_H

#include <stddef.h>

/* The most threads vn_digest_files reads on, and the bytes of small files
 * each of them reads before their digests are taken in one batch (also the
 * largest `small`). */
#define VN_FILES_MAX_THREADS 8
#define VN_FILES_BATCH_BYTES (8u << 20)
/* For each of the `count` file names: status[i] = 0 and its digest at
 * out + i * vn_digest_size(algorithm) if it is a regular file of at most
 * `small` bytes (read whole, the digests taken in lanes), an errno (> 0) if
 * it could not be opened or read, -1 if it is not a regular file or is
 * larger (for the caller to stream). The names in `threads` contiguous parts
 * (1 .. VN_FILES_MAX_THREADS), each on a thread of its own. Returns 0, or
 * ENOMEM having done nothing if it could not allocate. */
int vn_digest_files(int algorithm, size_t count, const char *const *names, size_t small,
                    int threads, int *status, unsigned char *out);

#endif
