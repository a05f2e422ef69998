/*
 * The end of a message: its last bytes, 0x80, zeros and its length in bits,
 * as one or two whole blocks; and the words of a state as the digest's bytes.
 * hash.c pads one message with it, many.c the messages of its lanes.
 */
#ifndef VARIANTS_NATIVE_PADDING_H
#define VARIANTS_NATIVE_PADDING_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "native.h"

/* Written out byte by byte, which compilers turn into one store (with a
 * byte swap where the order differs from the machine's). */
static inline void put_le32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline void put_be64(unsigned char *p, uint64_t v) {
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

/* The first `size` bytes of the digest whose chaining state is `state`
 * (MD5 writes its words little-endian, SHA-1 and SHA-2 big-endian). */
static inline void put_digest32(int algorithm, const uint32_t *state, int size, unsigned char *out) {
    for (int i = 0; i < size / 4; i++) {
        if (algorithm == VN_MD5) {
            put_le32(out + 4 * i, state[i]);
        } else {
            put_be32(out + 4 * i, state[i]);
        }
    }
}

/* The same for the SHA-512 core (SHA-512/224's 28 bytes end in half a word). */
static inline void put_digest64(const uint64_t *state, int size, unsigned char *out) {
    for (int i = 0; i < size / 8; i++) put_be64(out + 8 * i, state[i]);
    if (size % 8) put_be32(out + size - 4, (uint32_t)(state[size / 8] >> 32));
}

/* The length in bits, as the last 8 bytes of a padded message. */
static inline void put_length(int algorithm, unsigned char *p, uint64_t length) {
    const uint64_t bits = length << 3;
    if (algorithm == VN_MD5) {
        put_le32(p, (uint32_t)bits);
        put_le32(p + 4, (uint32_t)(bits >> 32));
    } else {
        put_be32(p, (uint32_t)(bits >> 32));
        put_be32(p + 4, (uint32_t)bits);
    }
}

/* Built with a sanitizer that checks every byte read (AddressSanitizer, or
 * ThreadSanitizer, which would see bytes read next to another thread's). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VN_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VN_SANITIZED 1
#endif

/* Whether the `span` bytes at p may be read though the message there, of n bytes,
 * is shorter: when it has a byte and they lie in its first byte's page, as
 * glibc's string functions read (a page is the smallest unit memory is
 * mapped in, so the bytes past the message cannot fault; an empty message's
 * pointer may point at the end of its buffer, and the next page be
 * unmapped). Never under a sanitizer, which would see them as out of bounds. */
static inline int span_readable(const unsigned char *p, size_t n, size_t span) {
#if defined(VN_SANITIZED)
    (void)p;
    (void)n;
    (void)span;
    return 0;
#else
    return n && ((uintptr_t)p & 4095) <= 4096 - span;
#endif
}

/* The same for the 64 bytes of a block of 32-bit words (the SHA-512 core's
 * 128-byte blocks: span_readable with 128). */
static inline int block_readable(const unsigned char *p, size_t n) { return span_readable(p, n, 64); }

/* Copy n < 64 bytes with two overlapping moves of a fixed size rather than a
 * call to memcpy: most of the cost of padding a short message. */
static inline void copy_short(unsigned char *to, const unsigned char *from, size_t n) {
#if defined(__SSE2__) && !defined(VN_SANITIZED)
    /* Without a branch on n (which messages of mixed lengths mispredict): 64
     * bytes read and those past n masked to zeros, written whole to `to`
     * (which has room for them), where they may be read (block_readable). */
    static const unsigned char mask[128] = {
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
    if (block_readable(from, n)) {
        const unsigned char *m = mask + 64 - n;
        for (int j = 0; j < 64; j += 16) {
            const __m128i v = _mm_loadu_si128((const __m128i *)(from + j));
            _mm_storeu_si128((__m128i *)(to + j),
                             _mm_and_si128(v, _mm_loadu_si128((const __m128i *)(m + j))));
        }
        return;
    }
#endif
    if (n >= 32) {
        memcpy(to, from, 32);
        memcpy(to + n - 32, from + n - 32, 32);
    } else if (n >= 16) {
        memcpy(to, from, 16);
        memcpy(to + n - 16, from + n - 16, 16);
    } else if (n >= 8) {
        memcpy(to, from, 8);
        memcpy(to + n - 8, from + n - 8, 8);
    } else if (n >= 4) {
        memcpy(to, from, 4);
        memcpy(to + n - 4, from + n - 4, 4);
    } else if (n) {
        to[0] = from[0];
        to[n / 2] = from[n / 2];
        to[n - 1] = from[n - 1];
    }
}

/* pad() for the SHA-512 core: 128-byte blocks, the length in bits in the
 * last 16 bytes (of which the first 8 are length >> 61: a length in bytes
 * below 2**64 has no more bits). */
static inline size_t pad128(const unsigned char *tail, uint64_t length, unsigned char *out) {
    const size_t used = (size_t)(length % 128), blocks = used < VN_LENGTH_ROOM(1) ? 1 : 2;
    /* sizes GCC knows, so that these are stores, not a call of memset */
    memset(out, 0, 128);
    if (blocks == 2) memset(out + 128, 0, 128);
    if (used >= 64) {
        memcpy(out, tail, 64);
        copy_short(out + 64, tail + 64, used - 64);
    } else {
        copy_short(out, tail, used);
    }
    out[used] = 0x80;
    put_be64(out + 128 * blocks - 16, length >> 61);
    put_be64(out + 128 * blocks - 8, length << 3);
    return blocks;
}

/* The last block or two of a message of `length` bytes, whose last
 * length % vn_block_size(algorithm) bytes are at `tail`: those bytes, 0x80,
 * zeros and the length in bits, written to `out`. Returns the number of
 * blocks (1 or 2). */
static inline size_t pad(int algorithm, const unsigned char *tail, uint64_t length, unsigned char *out) {
    if (vn_wide(algorithm)) return pad128(tail, length, out);
    const size_t used = (size_t)(length % 64);
    if (used < VN_LENGTH_ROOM(0)) {
        memset(out, 0, 64);
        copy_short(out, tail, used);
        out[used] = 0x80;
        put_length(algorithm, out + 56, length);
        return 1;
    }
    memset(out, 0, 128);
    copy_short(out, tail, used);
    out[used] = 0x80;
    put_length(algorithm, out + 120, length);
    return 2;
}

#endif
