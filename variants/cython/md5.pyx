# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""MD5 (RFC 1321) block function in typed Cython.

The 64 steps are written out as in RFC 1321's reference code; each step is a
small inline function that the C compiler folds into the unrolled body, with
the four registers in machine registers across blocks.
"""

from libc.stdint cimport uint32_t

cdef extern from *:
    """
    #include "constants.h"  /* variants/native/constants.h, generated from variants/_tables.py */
    static const uint32_t K[64] = VN_MD5_K;
    """
    const uint32_t K[64]


cdef inline uint32_t rotl(uint32_t x, int s) noexcept nogil:
    return (x << s) | (x >> (32 - s))


cdef inline uint32_t F(uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                       uint32_t x, int s, uint32_t k) noexcept nogil:
    return b + rotl(a + (d ^ (b & (c ^ d))) + x + k, s)


cdef inline uint32_t G(uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                       uint32_t x, int s, uint32_t k) noexcept nogil:
    # (b & d) | (c & ~d) as two disjoint halves added separately, so the
    # additions need not wait for both (OpenJDK's MD5 intrinsic trick).
    return b + rotl(a + (c & ~d) + x + k + (b & d), s)


cdef inline uint32_t H(uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                       uint32_t x, int s, uint32_t k) noexcept nogil:
    return b + rotl(a + (b ^ c ^ d) + x + k, s)


cdef inline uint32_t I(uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                       uint32_t x, int s, uint32_t k) noexcept nogil:
    return b + rotl(a + (c ^ (b | ~d)) + x + k, s)


cdef inline uint32_t load_le(const unsigned char *p) noexcept nogil:
    return p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)


cdef void blocks(uint32_t *state, const unsigned char *p, Py_ssize_t count) noexcept nogil:
    cdef uint32_t a = state[0], b = state[1], c = state[2], d = state[3]
    cdef uint32_t x[16]
    cdef Py_ssize_t i
    while count > 0:
        for i in range(16):
            x[i] = load_le(p + 4 * i)
        state[0] = a
        state[1] = b
        state[2] = c
        state[3] = d
        a = F(a, b, c, d, x[0], 7, K[0])
        d = F(d, a, b, c, x[1], 12, K[1])
        c = F(c, d, a, b, x[2], 17, K[2])
        b = F(b, c, d, a, x[3], 22, K[3])
        a = F(a, b, c, d, x[4], 7, K[4])
        d = F(d, a, b, c, x[5], 12, K[5])
        c = F(c, d, a, b, x[6], 17, K[6])
        b = F(b, c, d, a, x[7], 22, K[7])
        a = F(a, b, c, d, x[8], 7, K[8])
        d = F(d, a, b, c, x[9], 12, K[9])
        c = F(c, d, a, b, x[10], 17, K[10])
        b = F(b, c, d, a, x[11], 22, K[11])
        a = F(a, b, c, d, x[12], 7, K[12])
        d = F(d, a, b, c, x[13], 12, K[13])
        c = F(c, d, a, b, x[14], 17, K[14])
        b = F(b, c, d, a, x[15], 22, K[15])
        a = G(a, b, c, d, x[1], 5, K[16])
        d = G(d, a, b, c, x[6], 9, K[17])
        c = G(c, d, a, b, x[11], 14, K[18])
        b = G(b, c, d, a, x[0], 20, K[19])
        a = G(a, b, c, d, x[5], 5, K[20])
        d = G(d, a, b, c, x[10], 9, K[21])
        c = G(c, d, a, b, x[15], 14, K[22])
        b = G(b, c, d, a, x[4], 20, K[23])
        a = G(a, b, c, d, x[9], 5, K[24])
        d = G(d, a, b, c, x[14], 9, K[25])
        c = G(c, d, a, b, x[3], 14, K[26])
        b = G(b, c, d, a, x[8], 20, K[27])
        a = G(a, b, c, d, x[13], 5, K[28])
        d = G(d, a, b, c, x[2], 9, K[29])
        c = G(c, d, a, b, x[7], 14, K[30])
        b = G(b, c, d, a, x[12], 20, K[31])
        a = H(a, b, c, d, x[5], 4, K[32])
        d = H(d, a, b, c, x[8], 11, K[33])
        c = H(c, d, a, b, x[11], 16, K[34])
        b = H(b, c, d, a, x[14], 23, K[35])
        a = H(a, b, c, d, x[1], 4, K[36])
        d = H(d, a, b, c, x[4], 11, K[37])
        c = H(c, d, a, b, x[7], 16, K[38])
        b = H(b, c, d, a, x[10], 23, K[39])
        a = H(a, b, c, d, x[13], 4, K[40])
        d = H(d, a, b, c, x[0], 11, K[41])
        c = H(c, d, a, b, x[3], 16, K[42])
        b = H(b, c, d, a, x[6], 23, K[43])
        a = H(a, b, c, d, x[9], 4, K[44])
        d = H(d, a, b, c, x[12], 11, K[45])
        c = H(c, d, a, b, x[15], 16, K[46])
        b = H(b, c, d, a, x[2], 23, K[47])
        a = I(a, b, c, d, x[0], 6, K[48])
        d = I(d, a, b, c, x[7], 10, K[49])
        c = I(c, d, a, b, x[14], 15, K[50])
        b = I(b, c, d, a, x[5], 21, K[51])
        a = I(a, b, c, d, x[12], 6, K[52])
        d = I(d, a, b, c, x[3], 10, K[53])
        c = I(c, d, a, b, x[10], 15, K[54])
        b = I(b, c, d, a, x[1], 21, K[55])
        a = I(a, b, c, d, x[8], 6, K[56])
        d = I(d, a, b, c, x[15], 10, K[57])
        c = I(c, d, a, b, x[6], 15, K[58])
        b = I(b, c, d, a, x[13], 21, K[59])
        a = I(a, b, c, d, x[4], 6, K[60])
        d = I(d, a, b, c, x[11], 10, K[61])
        c = I(c, d, a, b, x[2], 15, K[62])
        b = I(b, c, d, a, x[9], 21, K[63])
        a += state[0]
        b += state[1]
        c += state[2]
        d += state[3]
        p += 64
        count -= 1
    state[0] = a
    state[1] = b
    state[2] = c
    state[3] = d


def compress(tuple state, const unsigned char[::1] data):
    """Process ``data``, a whole number of 64-byte blocks, from ``state``."""
    cdef uint32_t s[4]
    cdef Py_ssize_t count = data.shape[0] // 64
    for i in range(4):
        s[i] = state[i]
    if count:
        with nogil:
            blocks(s, &data[0], count)
    return (s[0], s[1], s[2], s[3])
