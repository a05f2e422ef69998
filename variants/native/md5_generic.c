/*
 * MD5 block function in portable C (RFC 1321, section 3.4): the fallback on
 * every architecture, and the reference the other kernels are tested against.
 * Written as the RFC states it; byte order and alignment are handled by
 * assembling each word from bytes, which compilers turn into plain loads.
 */
#include "md5_steps.h"
#include "native.h"

static inline uint32_t load_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t rotl(uint32_t x, int s) { return x << s | x >> (32 - s); }

#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))

#define STEP(f, a, b, c, d, i, s, t) a = b + rotl(a + f(b, c, d) + x[i] + (uint32_t)(t), s);
#define R1(a, b, c, d, i, s, t) STEP(F, a, b, c, d, i, s, t)
#define R2(a, b, c, d, i, s, t) STEP(G, a, b, c, d, i, s, t)
#define R3(a, b, c, d, i, s, t) STEP(H, a, b, c, d, i, s, t)
#define R4(a, b, c, d, i, s, t) STEP(I, a, b, c, d, i, s, t)

void vn_md5_generic(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (; blocks; blocks--, data += 64) {
        uint32_t x[16];
        for (int i = 0; i < 16; i++) x[i] = load_le32(data + 4 * i);
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEPS(R1, R2, R3, R4)
        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
}
