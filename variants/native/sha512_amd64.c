/*
 * The SHA-512 core for x86-64 with AVX2 and BMI2 (no SHA512 extension).
 *
 * The rounds are scalar: BMI2's rorx rotates without touching the flags or
 * its source, BMI1's andn makes Ch, and Maj reuses the a ^ b of the round
 * before (it is the next round's b ^ c). The message schedule runs in AVX2
 * beside them, four words to a ymm vector: while the rounds of one group of
 * four words run, the words of the group four later are computed and stored
 * with their round constants added, so the rounds read W[t] + K[t] with one
 * load and the vector units work in the scalar rounds' shadow. This is the
 * technique of Intel's sha512-avx2 (rorx) code, in C. (OpenSSL schedules two
 * blocks at once, one in each 128-bit half: in C, with GCC 12, that spilled
 * and ran 12% slower than this. Rounds written for a shorter latency from e
 * to e and a to a, with more instructions, were slower too: the rounds are
 * bound by the number of instructions.)
 *
 * On ELF x86-64 the chosen kernel is vn_sha512_amd64_asm instead, at the end
 * of this file: the same rounds and schedule in assembly that a script writes
 * (tools/gen_sha512_amd64.py), two blocks a pass as OpenSSL's, in the order of
 * instructions that measured fastest (docs/development.md, "The kernels'
 * measurements"). This one stays for other targets and as the check beside it.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha512_avx2.h"
#include "sha512_functions.h"

/* One round, the caller naming the variables in the order it rotates them;
 * `bc` holds b ^ c and leaves with a ^ b, the next round's. h becomes the
 * next round's a: T1 = h + Σ1(e) + Ch(e, f, g) + W[t] + K[t], d += T1,
 * h = T1 + Σ0(a) + Maj(a, b, c). Ch's two halves share no bit, so they are
 * added one by one, before Σ1(e), the last to be ready: written in one sum,
 * GCC added Σ1 first and the round ran 1-2 % slower. */
#define ROUND(a, b, c, d, e, f, g, h, i)                                         \
    {                                                                            \
        h += wk[i] + (e & f) + (~e & g);                                         \
        h += rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41);                            \
        d += h;                                                                  \
        const uint64_t ab_ = a ^ b;                                              \
        h += (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + (b ^ (ab_ & bc));       \
        bc = ab_;                                                                \
    }

/* Four rounds from word `i` on, a..h named as they are at the first. */
#define ROUNDS4(a, b, c, d, e, f, g, h, i) \
    ROUND(a, b, c, d, e, f, g, h, (i))     \
    ROUND(h, a, b, c, d, e, f, g, (i) + 1) \
    ROUND(g, h, a, b, c, d, e, f, (i) + 2) \
    ROUND(f, g, h, a, b, c, d, e, (i) + 3)

__attribute__((target("avx2,bmi,bmi2"))) void vn_sha512_amd64_avx2(uint64_t *state,
                                                                     const unsigned char *data,
                                                                     size_t blocks) {
    const __m256i bswap = SHA512_AVX2_BSWAP;
    uint64_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint64_t e = state[4], f = state[5], g = state[6], h = state[7];
    _Alignas(32) uint64_t wk[80];
    for (; blocks; blocks--, data += 128) {
        __m256i x[4];
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) {
            x[q] = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(data + 32 * q)), bswap);
            SHA512_AVX2_STORE_WK(wk, x[q], 4 * q);
        }
        uint64_t bc = b ^ c;
        /* rounds 0-63, each group of four words scheduled sixteen rounds ahead */
        for (int t = 0; t < 64; t += 16) {
            x[0] = sha512_avx2_schedule(x[0], x[1], x[2], x[3]);
            SHA512_AVX2_STORE_WK(wk, x[0], t + 16);
            ROUNDS4(a, b, c, d, e, f, g, h, t)
            x[1] = sha512_avx2_schedule(x[1], x[2], x[3], x[0]);
            SHA512_AVX2_STORE_WK(wk, x[1], t + 20);
            ROUNDS4(e, f, g, h, a, b, c, d, t + 4)
            x[2] = sha512_avx2_schedule(x[2], x[3], x[0], x[1]);
            SHA512_AVX2_STORE_WK(wk, x[2], t + 24);
            ROUNDS4(a, b, c, d, e, f, g, h, t + 8)
            x[3] = sha512_avx2_schedule(x[3], x[0], x[1], x[2]);
            SHA512_AVX2_STORE_WK(wk, x[3], t + 28);
            ROUNDS4(e, f, g, h, a, b, c, d, t + 12)
        }
        ROUNDS4(a, b, c, d, e, f, g, h, 64)
        ROUNDS4(e, f, g, h, a, b, c, d, 68)
        ROUNDS4(a, b, c, d, e, f, g, h, 72)
        ROUNDS4(e, f, g, h, a, b, c, d, 76)
        a = state[0] += a;
        b = state[1] += b;
        c = state[2] += c;
        d = state[3] += d;
        e = state[4] += e;
        f = state[5] += f;
        g = state[6] += g;
        h = state[7] += h;
    }
}

#if defined(VN_AMD64_ASM)
/* vn_sha512_amd64_asm: the rounds above, scheduled by hand, two blocks a pass.
 * Where the build asks for indirect-branch tracking (CET), it begins with endbr64. */
#if defined(__CET__) && (__CET__ & 1)
#define VN_ENDBR "\tendbr64\n"
#else
#define VN_ENDBR ""
#endif
#include "sha512_amd64_asm.h"
#endif

#endif
