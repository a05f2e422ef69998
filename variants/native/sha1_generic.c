/*
 * SHA-1 block function in portable C (FIPS 180-4, section 6.1.2): the
 * fallback on every architecture and the reference for the other kernels.
 * The 80 rounds are written out (the state variables renamed instead of
 * moved), the message schedule kept as a rolling window of 16 words.
 */
#include "constants.h"
#include "native.h"

static inline uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint32_t rotl(uint32_t x, int n) { return x << n | x >> (32 - n); }

/* The round functions (4.1.1), Ch and Maj in forms with one operation fewer. */
#define F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))

/* Word t of the schedule: the first 16 from the block, then W[t] =
 * ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) in place of W[t-16]. */
#define W0(t) (w[t] = load_be32(data + 4 * (t)))
#define WN(t) \
    (w[(t) & 15] = \
         rotl(w[((t) - 3) & 15] ^ w[((t) - 8) & 15] ^ w[((t) - 14) & 15] ^ w[(t) & 15], 1))

/* One round: e += ROTL5(a) + f(b, c, d) + K + W[t], b = ROTL30(b); the
 * caller names the variables in the order the round rotates them. */
#define ROUND(f, k, wt, a, b, c, d, e) \
    e += rotl(a, 5) + f(b, c, d) + (uint32_t)(k) + (wt); \
    b = rotl(b, 30);

#define FIVE(f, k, W, t) \
    ROUND(f, k, W(t), a, b, c, d, e) \
    ROUND(f, k, W(t + 1), e, a, b, c, d) \
    ROUND(f, k, W(t + 2), d, e, a, b, c) \
    ROUND(f, k, W(t + 3), c, d, e, a, b) \
    ROUND(f, k, W(t + 4), b, c, d, e, a)
#define TWENTY(f, k, t) \
    FIVE(f, k, WN, t) FIVE(f, k, WN, t + 5) FIVE(f, k, WN, t + 10) FIVE(f, k, WN, t + 15)

void vn_sha1_generic(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (; blocks; blocks--, data += 64) {
        uint32_t w[16];
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d, e0 = e;
        FIVE(F1, VN_SHA1_K0, W0, 0)
        FIVE(F1, VN_SHA1_K0, W0, 5)
        FIVE(F1, VN_SHA1_K0, W0, 10)
        ROUND(F1, VN_SHA1_K0, W0(15), a, b, c, d, e)
        ROUND(F1, VN_SHA1_K0, WN(16), e, a, b, c, d)
        ROUND(F1, VN_SHA1_K0, WN(17), d, e, a, b, c)
        ROUND(F1, VN_SHA1_K0, WN(18), c, d, e, a, b)
        ROUND(F1, VN_SHA1_K0, WN(19), b, c, d, e, a)
        TWENTY(F2, VN_SHA1_K1, 20)
        TWENTY(F3, VN_SHA1_K2, 40)
        TWENTY(F2, VN_SHA1_K3, 60)
        a += a0;
        b += b0;
        c += c0;
        d += d0;
        e += e0;
    }
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
    state[4] = e;
}
