/*
 * The SHA-512 core for x86-64 with the SHA512 extension (VSHA512RNDS2,
 * VSHA512MSG1, VSHA512MSG2: Intel's Arrow Lake and Lunar Lake on), as
 * SHA-NI's SHA-256 kernel: the state in two ymm registers, ABEF (A in the
 * top quadword, F in the bottom) and CDGH; VSHA512RNDS2 runs two rounds
 * from one register's pair of W + K words and turns CDGH into the next ABEF;
 * four words of the message schedule a step from MSG1 (σ0), the words seven
 * back and MSG2 (σ1).
 *
 * No CPU of the project's machines has the extension and neither qemu nor
 * the project's compilers (GCC 12, binutils 2.40) know it, so:
 * - the three instructions are written as their bytes, with their operands
 *   in fixed registers (the encodings checked by disassembling them with
 *   binutils 2.47, and against GCC 16's intrinsics: docs/development.md);
 * - they come from sha512_instructions.h, included from the include path:
 *   the cross driver's build (tests/cross/run.py) finds tests/cross's first,
 *   the three instructions as C written from the Operation sections of
 *   Intel's SDM (vol. 2C), which AVX2 runs on any x86-64: the kernel's use of
 *   the instructions is checked there, against the portable kernel;
 * - dispatch.c runs the kernel once on a known block before it chooses it
 *   (.verify), and keeps the next kernel if the state differs.
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "sha512_avx2.h"

#define TARGET __attribute__((target("avx2")))

/* the three instructions (the include path's: see sha512_instructions.h) */
#include <sha512_instructions.h>

TARGET void vn_sha512_amd64_sha512(uint64_t *state, const unsigned char *data, size_t blocks) {
    const __m256i bswap = SHA512_AVX2_BSWAP;
    __m256i abef = _mm256_set_epi64x((long long)state[0], (long long)state[1], (long long)state[4],
                                     (long long)state[5]);
    __m256i cdgh = _mm256_set_epi64x((long long)state[2], (long long)state[3], (long long)state[6],
                                     (long long)state[7]);
    for (; blocks; blocks--, data += 128) {
        const __m256i abef0 = abef, cdgh0 = cdgh;
        __m256i m[4];
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) {
            m[q] = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(data + 32 * q)), bswap);
        }
#pragma GCC unroll 20
        for (int k = 0; k < 20; k++) {
            const __m256i wk = _mm256_add_epi64(
                m[k & 3], _mm256_loadu_si256((const __m256i *)(vn_sha512_k + 4 * k)));
            cdgh = sha512rnds2(cdgh, abef, _mm256_castsi256_si128(wk));
            abef = sha512rnds2(abef, cdgh, _mm256_extracti128_si256(wk, 1));
            if (k < 16) {
                /* W[t..t+3] from W[t-16..t-13] (m[k]), W[t-15..t-12], W[t-7..t-4] and σ1 of
                 * W[t-2], W[t-1], then of the new W[t], W[t+1] */
                const __m256i w7 = _mm256_permute4x64_epi64(
                    _mm256_blend_epi32(m[(k + 2) & 3], m[(k + 3) & 3], 0x03), 0x39);
                const __m256i p = sha512msg1(m[k & 3], _mm256_castsi256_si128(m[(k + 1) & 3]));
                m[k & 3] = sha512msg2(_mm256_add_epi64(p, w7), m[(k + 3) & 3]);
            }
        }
        abef = _mm256_add_epi64(abef, abef0);
        cdgh = _mm256_add_epi64(cdgh, cdgh0);
    }
    uint64_t x[4], y[4];
    _mm256_storeu_si256((__m256i *)x, abef);
    _mm256_storeu_si256((__m256i *)y, cdgh);
    state[0] = x[3], state[1] = x[2], state[4] = x[1], state[5] = x[0];
    state[2] = y[3], state[3] = y[2], state[6] = y[1], state[7] = y[0];
}

#endif
