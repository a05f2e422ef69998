# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""MD5 (RFC 1321) block function in typed Cython.

The 64 steps are written out as in RFC 1321's reference code; each step is a
small inline function that the C compiler folds into the unrolled body, with
the four registers in machine registers across blocks.
"""

from libc.stdint cimport uint32_t


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
        a = F(a, b, c, d, x[0], 7, 0xd76aa478)
        d = F(d, a, b, c, x[1], 12, 0xe8c7b756)
        c = F(c, d, a, b, x[2], 17, 0x242070db)
        b = F(b, c, d, a, x[3], 22, 0xc1bdceee)
        a = F(a, b, c, d, x[4], 7, 0xf57c0faf)
        d = F(d, a, b, c, x[5], 12, 0x4787c62a)
        c = F(c, d, a, b, x[6], 17, 0xa8304613)
        b = F(b, c, d, a, x[7], 22, 0xfd469501)
        a = F(a, b, c, d, x[8], 7, 0x698098d8)
        d = F(d, a, b, c, x[9], 12, 0x8b44f7af)
        c = F(c, d, a, b, x[10], 17, 0xffff5bb1)
        b = F(b, c, d, a, x[11], 22, 0x895cd7be)
        a = F(a, b, c, d, x[12], 7, 0x6b901122)
        d = F(d, a, b, c, x[13], 12, 0xfd987193)
        c = F(c, d, a, b, x[14], 17, 0xa679438e)
        b = F(b, c, d, a, x[15], 22, 0x49b40821)
        a = G(a, b, c, d, x[1], 5, 0xf61e2562)
        d = G(d, a, b, c, x[6], 9, 0xc040b340)
        c = G(c, d, a, b, x[11], 14, 0x265e5a51)
        b = G(b, c, d, a, x[0], 20, 0xe9b6c7aa)
        a = G(a, b, c, d, x[5], 5, 0xd62f105d)
        d = G(d, a, b, c, x[10], 9, 0x02441453)
        c = G(c, d, a, b, x[15], 14, 0xd8a1e681)
        b = G(b, c, d, a, x[4], 20, 0xe7d3fbc8)
        a = G(a, b, c, d, x[9], 5, 0x21e1cde6)
        d = G(d, a, b, c, x[14], 9, 0xc33707d6)
        c = G(c, d, a, b, x[3], 14, 0xf4d50d87)
        b = G(b, c, d, a, x[8], 20, 0x455a14ed)
        a = G(a, b, c, d, x[13], 5, 0xa9e3e905)
        d = G(d, a, b, c, x[2], 9, 0xfcefa3f8)
        c = G(c, d, a, b, x[7], 14, 0x676f02d9)
        b = G(b, c, d, a, x[12], 20, 0x8d2a4c8a)
        a = H(a, b, c, d, x[5], 4, 0xfffa3942)
        d = H(d, a, b, c, x[8], 11, 0x8771f681)
        c = H(c, d, a, b, x[11], 16, 0x6d9d6122)
        b = H(b, c, d, a, x[14], 23, 0xfde5380c)
        a = H(a, b, c, d, x[1], 4, 0xa4beea44)
        d = H(d, a, b, c, x[4], 11, 0x4bdecfa9)
        c = H(c, d, a, b, x[7], 16, 0xf6bb4b60)
        b = H(b, c, d, a, x[10], 23, 0xbebfbc70)
        a = H(a, b, c, d, x[13], 4, 0x289b7ec6)
        d = H(d, a, b, c, x[0], 11, 0xeaa127fa)
        c = H(c, d, a, b, x[3], 16, 0xd4ef3085)
        b = H(b, c, d, a, x[6], 23, 0x04881d05)
        a = H(a, b, c, d, x[9], 4, 0xd9d4d039)
        d = H(d, a, b, c, x[12], 11, 0xe6db99e5)
        c = H(c, d, a, b, x[15], 16, 0x1fa27cf8)
        b = H(b, c, d, a, x[2], 23, 0xc4ac5665)
        a = I(a, b, c, d, x[0], 6, 0xf4292244)
        d = I(d, a, b, c, x[7], 10, 0x432aff97)
        c = I(c, d, a, b, x[14], 15, 0xab9423a7)
        b = I(b, c, d, a, x[5], 21, 0xfc93a039)
        a = I(a, b, c, d, x[12], 6, 0x655b59c3)
        d = I(d, a, b, c, x[3], 10, 0x8f0ccc92)
        c = I(c, d, a, b, x[10], 15, 0xffeff47d)
        b = I(b, c, d, a, x[1], 21, 0x85845dd1)
        a = I(a, b, c, d, x[8], 6, 0x6fa87e4f)
        d = I(d, a, b, c, x[15], 10, 0xfe2ce6e0)
        c = I(c, d, a, b, x[6], 15, 0xa3014314)
        b = I(b, c, d, a, x[13], 21, 0x4e0811a1)
        a = I(a, b, c, d, x[4], 6, 0xf7537e82)
        d = I(d, a, b, c, x[11], 10, 0xbd3af235)
        c = I(c, d, a, b, x[2], 15, 0x2ad7d2bb)
        b = I(b, c, d, a, x[9], 21, 0xeb86d391)
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
