/*
 * x86-64's SHA512 instructions (VSHA512MSG1, VSHA512MSG2, VSHA512RNDS2) as
 * C, written from the Operation sections of Intel's SDM (vol. 2C), for the
 * cross driver's build of variants/native/sha512_amd64_sha512.c: the kernel
 * includes <sha512_instructions.h> from the include path, and
 * tests/cross/run.py puts this folder before variants/native there, so this
 * file stands in for the one with the instructions' bytes. No machine of
 * the project's has the extension, so the kernel's use of the instructions
 * is checked through this model, which AVX2 runs (sha512_extension.h here
 * tells dispatch.c so).
 * Built with VN_SHA512_MODEL_WRONG (run.py's model "wrong"), one bit of
 * VSHA512RNDS2's result is off: the check that dispatch's .verify finds such
 * a kernel and leaves it unused, and says so.
 *
 * Included by that kernel alone, after <immintrin.h> and its TARGET macro.
 */
#ifndef VARIANTS_NATIVE_SHA512_INSTRUCTIONS_H /* the guard of the file it stands in for */
#define VARIANTS_NATIVE_SHA512_INSTRUCTIONS_H

#include "sha512_functions.h"

/* VSHA512MSG1 ymm1, xmm2: each word plus σ0 of the next, the last's next xmm2's low word. */
TARGET static __m256i sha512msg1(__m256i w, __m128i next) {
    uint64_t x[4];
    _mm256_storeu_si256((__m256i *)x, w);
    const uint64_t n = (uint64_t)_mm_cvtsi128_si64(next);
    const uint64_t y0 = x[0] + SSIG0(x[1]), y1 = x[1] + SSIG0(x[2]), y2 = x[2] + SSIG0(x[3]);
    return _mm256_set_epi64x((long long)(x[3] + SSIG0(n)), (long long)y2, (long long)y1,
                             (long long)y0);
}

/* VSHA512MSG2 ymm1, ymm2: σ1 of ymm2's top two words, then of the two new ones. */
TARGET static __m256i sha512msg2(__m256i w, __m256i last) {
    uint64_t x[4], l[4];
    _mm256_storeu_si256((__m256i *)x, w);
    _mm256_storeu_si256((__m256i *)l, last);
    x[0] += SSIG1(l[2]);
    x[1] += SSIG1(l[3]);
    x[2] += SSIG1(x[0]);
    x[3] += SSIG1(x[1]);
    return _mm256_loadu_si256((const __m256i *)x);
}

/* VSHA512RNDS2 ymm1, ymm2, xmm3: two rounds; ymm1 is CDGH, ymm2 ABEF, xmm3 W + K of
 * the first round (low) and the second; the result is the new ABEF. */
TARGET static __m256i sha512rnds2(__m256i cdgh, __m256i abef, __m128i wk) {
    uint64_t s1[4], s2[4], k[2];
    _mm256_storeu_si256((__m256i *)s1, cdgh);
    _mm256_storeu_si256((__m256i *)s2, abef);
    _mm_storeu_si128((__m128i *)k, wk);
    uint64_t a = s2[3], b = s2[2], c = s1[3], d = s1[2], e = s2[1], f = s2[0], g = s1[1],
             h = s1[0];
    for (int i = 0; i < 2; i++) {
        const uint64_t t1 = h + BSIG1(e) + CH(e, f, g) + k[i], t2 = BSIG0(a) + MAJ(a, b, c);
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
#if defined(VN_SHA512_MODEL_WRONG) /* the cross driver's check of dispatch's .verify */
    f ^= 1;
#endif
    return _mm256_set_epi64x((long long)a, (long long)b, (long long)e, (long long)f);
}

#endif
