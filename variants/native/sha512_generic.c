/*
 * The SHA-512 block function in portable C (FIPS 180-4, section 6.4.2), the
 * core of SHA-384, SHA-512, SHA-512/224 and SHA-512/256 (they differ only in
 * the initial value and the digest's length): the fallback on every
 * architecture and the reference for the other kernels. Sixteen rounds are
 * written out at a time, the state variables renamed instead of moved; the
 * message schedule is kept as a rolling window of 16 words.
 */
#include "constants.h"
#include "native.h"
#include "sha512_functions.h"

const uint64_t vn_sha512_k[80] = VN_SHA512_K;

static inline uint64_t load_be64(const unsigned char *p) {
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
           (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
           (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

/* Word t + i of the schedule (t a multiple of 16 in the loop below). */
#define W0(i) (w[i] = load_be64(data + 8 * (i)))
#define WN(i) \
    (w[i] += SSIG1(w[((i) + 14) & 15]) + w[((i) + 9) & 15] + SSIG0(w[((i) + 1) & 15]))

/* One round, the caller naming the variables in the order it rotates them:
 * h takes T1, d += T1, then h += T2 (h is the next round's a). */
#define ROUND(W, i, a, b, c, d, e, f, g, h) \
    { \
        const uint64_t t1 = h + BSIG1(e) + CH(e, f, g) + k[i] + W(i); \
        d += t1; \
        h = t1 + BSIG0(a) + MAJ(a, b, c); \
    }

#define SIXTEEN(W) \
    ROUND(W, 0, a, b, c, d, e, f, g, h) \
    ROUND(W, 1, h, a, b, c, d, e, f, g) \
    ROUND(W, 2, g, h, a, b, c, d, e, f) \
    ROUND(W, 3, f, g, h, a, b, c, d, e) \
    ROUND(W, 4, e, f, g, h, a, b, c, d) \
    ROUND(W, 5, d, e, f, g, h, a, b, c) \
    ROUND(W, 6, c, d, e, f, g, h, a, b) \
    ROUND(W, 7, b, c, d, e, f, g, h, a) \
    ROUND(W, 8, a, b, c, d, e, f, g, h) \
    ROUND(W, 9, h, a, b, c, d, e, f, g) \
    ROUND(W, 10, g, h, a, b, c, d, e, f) \
    ROUND(W, 11, f, g, h, a, b, c, d, e) \
    ROUND(W, 12, e, f, g, h, a, b, c, d) \
    ROUND(W, 13, d, e, f, g, h, a, b, c) \
    ROUND(W, 14, c, d, e, f, g, h, a, b) \
    ROUND(W, 15, b, c, d, e, f, g, h, a)

void vn_sha512_generic(uint64_t *state, const unsigned char *data, size_t blocks) {
    uint64_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint64_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (; blocks; blocks--, data += 128) {
        uint64_t w[16];
        const uint64_t a0 = a, b0 = b, c0 = c, d0 = d, e0 = e, f0 = f, g0 = g, h0 = h;
        const uint64_t *k = vn_sha512_k;
        SIXTEEN(W0)
        for (int t = 16; t < 80; t += 16) {
            k += 16;
            SIXTEEN(WN)
        }
        a += a0;
        b += b0;
        c += c0;
        d += d0;
        e += e0;
        f += f0;
        g += g0;
        h += h0;
    }
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
    state[4] = e;
    state[5] = f;
    state[6] = g;
    state[7] = h;
}
