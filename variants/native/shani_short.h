/*
 * A short message's block for the SHA-NI many-kernels' short kernels
 * (sha1_many_amd64.c, sha256_many_amd64.c): one way of padding by the
 * tables for both. Include it inside the VN_AMD64 part, after
 * <immintrin.h>.
 */
#ifndef VARIANTS_NATIVE_SHANI_SHORT_H
#define VARIANTS_NATIVE_SHANI_SHORT_H

#include <stddef.h>

#include "native.h"

/* Rows w[0..3] (bytes 16q .. 16q + 15) of block `block` of a message of
 * `length` bytes at p, shorter than the blocks (see vn_short_fn): its bytes
 * masked and padded by the tables (native.h: vn_short_keep), each row's
 * bytes then reordered by `order`, the shuffle to the kernel's words. The
 * last block's length in bits is the caller's to put in, where its order
 * puts word 15. */
__attribute__((target("sha,sse4.1"), always_inline)) static inline void
shani_short_rows(__m128i w[4], const unsigned char *p, uint32_t length, int block,
                 __m128i order) {
    const size_t at = vn_short_at(length, block);
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        __m128i row = _mm_loadu_si128((const __m128i *)(vn_short_end + at + 16 * q));
        if (block == 0) {
            const __m128i keep = _mm_loadu_si128((const __m128i *)(vn_short_keep + at + 16 * q));
            const __m128i bytes = _mm_loadu_si128((const __m128i *)(p + 16 * q));
            row = _mm_or_si128(row, _mm_and_si128(bytes, keep));
        }
        w[q] = _mm_shuffle_epi8(row, order);
    }
}

#endif
