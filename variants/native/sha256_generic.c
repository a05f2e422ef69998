/*
 * SHA-256 block function in portable C (FIPS 180-4, section 6.2.2): the
 * fallback on every architecture and the reference for the other kernels.
 * The message schedule is kept as a rolling window of 16 words.
 */
#include "constants.h"
#include "native.h"

const uint32_t vn_sha256_k[64] = VN_SHA256_K;

static inline uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint32_t rotr(uint32_t x, int n) { return x >> n | x << (32 - n); }

#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x) (rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BSIG1(x) (rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SSIG0(x) (rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))

void vn_sha256_generic(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32_t s[8];
    for (int i = 0; i < 8; i++) s[i] = state[i];
    for (; blocks; blocks--, data += 64) {
        uint32_t w[16];
        uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
        for (int t = 0; t < 64; t++) {
            uint32_t wt;
            if (t < 16) {
                wt = w[t] = load_be32(data + 4 * t);
            } else {
                wt = w[t & 15] += SSIG1(w[(t - 2) & 15]) + w[(t - 7) & 15] + SSIG0(w[(t - 15) & 15]);
            }
            const uint32_t t1 = h + BSIG1(e) + CH(e, f, g) + vn_sha256_k[t] + wt;
            const uint32_t t2 = BSIG0(a) + MAJ(a, b, c);
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        s[0] += a;
        s[1] += b;
        s[2] += c;
        s[3] += d;
        s[4] += e;
        s[5] += f;
        s[6] += g;
        s[7] += h;
    }
    for (int i = 0; i < 8; i++) state[i] = s[i];
}
