/*
 * hex.c: digests as lowercase hexadecimal digits, one or a column's run.
 */
#ifndef VARIANTS_NATIVE_HEX_H
#define VARIANTS_NATIVE_HEX_H

#include <stddef.h>

/* `size` bytes at `in` as 2 * size lowercase hexadecimal digits at `out`
 * (no NUL), without a table (SSE2 sixteen bytes at a time where there is
 * SSE2, else arithmetic on four at once): every hexdigest of both bridges. */
void vn_hex(const unsigned char *in, size_t size, char *out);
/* The same for `count` digests of `size` bytes one after another, to
 * 2 * size * count digits: a column's, stored past the cache where it can. */
void vn_hex_many(const unsigned char *in, size_t size, size_t count, char *out);

#endif
