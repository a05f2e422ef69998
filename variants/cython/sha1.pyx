# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""SHA-1 (FIPS 180-4) block function in typed Cython.

The message schedule and the 80 rounds are plain loops over ``uint32_t``, the
round function and constant chosen per group of twenty; the C compiler unrolls
and schedules them.
"""

from libc.stdint cimport uint32_t


cdef extern from *:
    """
    /* FIPS 180-4 4.2.1 (variants/_tables.py's SHA1_K) */
    static const uint32_t K[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u};
    """
    const uint32_t K[4]


cdef inline uint32_t rotl(uint32_t x, int n) noexcept nogil:
    return (x << n) | (x >> (32 - n))


cdef inline uint32_t load_be(const unsigned char *p) noexcept nogil:
    return (<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | p[3]


cdef void blocks(uint32_t *state, const unsigned char *p, Py_ssize_t count) noexcept nogil:
    cdef uint32_t w[80]
    cdef uint32_t a, b, c, d, e, t
    cdef int i
    while count > 0:
        for i in range(16):
            w[i] = load_be(p + 4 * i)
        for i in range(16, 80):
            w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)
        a = state[0]; b = state[1]; c = state[2]; d = state[3]; e = state[4]
        for i in range(80):
            if i < 20:
                t = (d ^ (b & (c ^ d))) + K[0]
            elif i < 40:
                t = (b ^ c ^ d) + K[1]
            elif i < 60:
                t = ((b & c) | (d & (b | c))) + K[2]
            else:
                t = (b ^ c ^ d) + K[3]
            t += rotl(a, 5) + e + w[i]
            e = d
            d = c
            c = rotl(b, 30)
            b = a
            a = t
        state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e
        p += 64
        count -= 1


def compress(tuple state, const unsigned char[::1] data):
    """Process ``data``, a whole number of 64-byte blocks, from ``state``."""
    cdef uint32_t s[5]
    cdef Py_ssize_t count = data.shape[0] // 64
    for i in range(5):
        s[i] = state[i]
    if count:
        with nogil:
            blocks(s, &data[0], count)
    return (s[0], s[1], s[2], s[3], s[4])
