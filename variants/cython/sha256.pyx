# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""SHA-256 (FIPS 180-4) block function in typed Cython.

The message schedule and the 64 rounds are plain loops over ``uint32_t``; the
C compiler unrolls and schedules them.
"""

from libc.stdint cimport uint32_t


cdef extern from *:
    """
    #include "constants.h"  /* variants/native/constants.h, generated from variants/_tables.py */
    static const uint32_t K[64] = VN_SHA256_K;
    """
    const uint32_t K[64]


cdef inline uint32_t rotr(uint32_t x, int n) noexcept nogil:
    return (x >> n) | (x << (32 - n))


cdef inline uint32_t load_be(const unsigned char *p) noexcept nogil:
    return (<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | p[3]


cdef void blocks(uint32_t *state, const unsigned char *p, Py_ssize_t count) noexcept nogil:
    cdef uint32_t w[64]
    cdef uint32_t a, b, c, d, e, f, g, h, t1, t2
    cdef int i
    while count > 0:
        for i in range(16):
            w[i] = load_be(p + 4 * i)
        for i in range(16, 64):
            w[i] = ((rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)) + w[i - 7]
                    + (rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 16])
        a = state[0]; b = state[1]; c = state[2]; d = state[3]
        e = state[4]; f = state[5]; g = state[6]; h = state[7]
        for i in range(64):
            t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + (g ^ (e & (f ^ g))) + K[i] + w[i]
            t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) | (c & (a | b)))
            h = g
            g = f
            f = e
            e = d + t1
            d = c
            c = b
            b = a
            a = t1 + t2
        state[0] += a; state[1] += b; state[2] += c; state[3] += d
        state[4] += e; state[5] += f; state[6] += g; state[7] += h
        p += 64
        count -= 1


def compress(tuple state, const unsigned char[::1] data):
    """Process ``data``, a whole number of 64-byte blocks, from ``state``."""
    cdef uint32_t s[8]
    cdef Py_ssize_t count = data.shape[0] // 64
    for i in range(8):
        s[i] = state[i]
    if count:
        with nogil:
            blocks(s, &data[0], count)
    return (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
