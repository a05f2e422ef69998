# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""SHA-256 (FIPS 180-4) block function in typed Cython.

The message schedule and the 64 rounds are plain loops over ``uint32_t``; the
C compiler unrolls and schedules them.
"""

from libc.stdint cimport uint32_t


cdef uint32_t K[64]
K[:] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]


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
