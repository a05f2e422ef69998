/*
 * hash.c: the state machine of one message around the chosen kernel (start,
 * absorb with buffering, the digest), and a one-shot digest.
 */
#ifndef VARIANTS_NATIVE_HASH_H
#define VARIANTS_NATIVE_HASH_H

#include "native.h"

/* The state of one message being hashed. It has no lock: each bridge keeps
 * its objects' states safe from several threads in its own way (the C-API
 * type with the interpreter's locks, the cffi bridge with vn_hash below).
 * A plain struct copy is a copy of the hash. */
typedef struct vn_state {
    union { /* the chaining state: 32-bit words, or the SHA-512 core's 64-bit ones */
        uint32_t state[8];
        uint64_t state64[8];
    };
    uint64_t length; /* bytes hashed so far, mod 2**64; length % block size are buffered */
    unsigned char buffer[VN_MAX_BLOCK];
    union {
        vn_blocks_fn *blocks;
        vn_blocks64_fn *blocks64; /* the SHA-512 core's */
    };
    unsigned char *ran; /* its kernel's flag (vn_note) */
    int algorithm;
} vn_state;

/* Start `s` as `algorithm` with kernel `blocks` of its core (vn_kernel's; NULL:
 * the one vn_setup chose). */
void vn_init(vn_state *s, int algorithm, const vn_blocks_ref *blocks);
/* Hash `length` more bytes. */
void vn_absorb(vn_state *s, const unsigned char *data, size_t length);
/* Write the digest of everything so far to `out` (vn_digest_size bytes); `s`
 * is not changed. Returns the digest size. */
int vn_final(const vn_state *s, unsigned char *out);
/* The digest of the `length` bytes at `data` as one message, written to
 * `out`, with the chosen kernel and no object. Returns the digest size. */
int vn_oneshot(int algorithm, const char *data, size_t length, char *out);
/* The digest size of an algorithm. */
int vn_digest_size(int algorithm);

#endif
