/*
 * The SHA-512 block function in portable C (FIPS 180-4, section 6.4.2), the
 * core of SHA-384, SHA-512, SHA-512/224 and SHA-512/256 (they differ only in
 * the initial value and the digest's length): the fallback on every
 * architecture and the reference for the other kernels. Eight rounds are
 * written out at a time, the state variables renamed instead of moved; the
 * message schedule is kept as a rolling window of 16 words.
 */
#include "native.h"

/* K[0..79] (FIPS 180-4, 4.2.3): the first 64 bits of the fractional parts of
 * the cube roots of the first 80 primes. */
const uint64_t vn_sha512_k[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

static inline uint64_t load_be64(const unsigned char *p) {
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
           (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
           (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

static inline uint64_t rotr(uint64_t x, int n) { return x >> n | x << (64 - n); }

/* The functions of 4.1.3, Ch and Maj in forms with one operation fewer. */
#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define BSIG0(x) (rotr(x, 28) ^ rotr(x, 34) ^ rotr(x, 39))
#define BSIG1(x) (rotr(x, 14) ^ rotr(x, 18) ^ rotr(x, 41))
#define SSIG0(x) (rotr(x, 1) ^ rotr(x, 8) ^ ((x) >> 7))
#define SSIG1(x) (rotr(x, 19) ^ rotr(x, 61) ^ ((x) >> 6))

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
