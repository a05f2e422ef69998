# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""SHA-512 (FIPS 180-4) block function in typed Cython.

The message schedule and the 80 rounds are plain loops over ``uint64_t``; the
C compiler unrolls and schedules them.
"""

from libc.stdint cimport uint64_t


cdef extern from *:
    """
    #include "constants.h"  /* variants/native/constants.h, generated from variants/_tables.py */
    static const uint64_t K[80] = VN_SHA512_K;
    """
    const uint64_t K[80]


cdef inline uint64_t rotr(uint64_t x, int n) noexcept nogil:
    return (x >> n) | (x << (64 - n))


cdef inline uint64_t load_be(const unsigned char *p) noexcept nogil:
    return ((<uint64_t>p[0] << 56) | (<uint64_t>p[1] << 48) | (<uint64_t>p[2] << 40)
            | (<uint64_t>p[3] << 32) | (<uint64_t>p[4] << 24) | (<uint64_t>p[5] << 16)
            | (<uint64_t>p[6] << 8) | p[7])


cdef void blocks(uint64_t *state, const unsigned char *p, Py_ssize_t count) noexcept nogil:
    cdef uint64_t w[80]
    cdef uint64_t a, b, c, d, e, f, g, h, t1, t2
    cdef int i
    while count > 0:
        for i in range(16):
            w[i] = load_be(p + 8 * i)
        for i in range(16, 80):
            w[i] = ((rotr(w[i - 2], 19) ^ rotr(w[i - 2], 61) ^ (w[i - 2] >> 6)) + w[i - 7]
                    + (rotr(w[i - 15], 1) ^ rotr(w[i - 15], 8) ^ (w[i - 15] >> 7)) + w[i - 16])
        a = state[0]; b = state[1]; c = state[2]; d = state[3]
        e = state[4]; f = state[5]; g = state[6]; h = state[7]
        for i in range(80):
            t1 = h + (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)) + (g ^ (e & (f ^ g))) + K[i] + w[i]
            t2 = (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + ((a & b) | (c & (a | b)))
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
        p += 128
        count -= 1


def compress(tuple state, const unsigned char[::1] data):
    """Process ``data``, a whole number of 128-byte blocks, from ``state``."""
    cdef uint64_t s[8]
    cdef Py_ssize_t count = data.shape[0] // 128
    for i in range(8):
        s[i] = state[i]
    if count:
        with nogil:
            blocks(s, &data[0], count)
    return (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
