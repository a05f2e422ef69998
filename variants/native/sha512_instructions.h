/*
 * x86-64's SHA512 instructions (VSHA512MSG1, VSHA512MSG2, VSHA512RNDS2) for
 * sha512_amd64_sha512.c, written as their bytes with their operands in fixed
 * registers (GCC 12 and binutils 2.40 do not know them).
 *
 * The kernel includes this as <sha512_instructions.h>, from the include path
 * (this folder's, in every build of the package): the cross driver's build
 * puts tests/cross first on the path, whose sha512_instructions.h is the
 * same three functions in C, so that the kernel runs where no CPU has the
 * extension. No file shipped says which one it gets.
 *
 * Included by that kernel alone, after <immintrin.h>.
 */
#ifndef VARIANTS_NATIVE_SHA512_INSTRUCTIONS_H
#define VARIANTS_NATIVE_SHA512_INSTRUCTIONS_H

#include <immintrin.h>

/* vsha512msg1 %xmm1, %ymm0 */
__attribute__((target("avx2"), always_inline)) static inline __m256i sha512msg1(__m256i w,
                                                                                 __m128i next) {
    register __m256i x __asm__("ymm0") = w;
    register __m128i y __asm__("xmm1") = next;
    __asm__(".byte 0xc4, 0xe2, 0x7f, 0xcc, 0xc1" : "+x"(x) : "x"(y));
    return x;
}

/* vsha512msg2 %ymm1, %ymm0 */
__attribute__((target("avx2"), always_inline)) static inline __m256i sha512msg2(__m256i w,
                                                                                 __m256i last) {
    register __m256i x __asm__("ymm0") = w;
    register __m256i y __asm__("ymm1") = last;
    __asm__(".byte 0xc4, 0xe2, 0x7f, 0xcd, 0xc1" : "+x"(x) : "x"(y));
    return x;
}

/* vsha512rnds2 %xmm2, %ymm1, %ymm0 */
__attribute__((target("avx2"), always_inline)) static inline __m256i
sha512rnds2(__m256i cdgh, __m256i abef, __m128i wk) {
    register __m256i x __asm__("ymm0") = cdgh;
    register __m256i y __asm__("ymm1") = abef;
    register __m128i z __asm__("xmm2") = wk;
    __asm__(".byte 0xc4, 0xe2, 0x77, 0xcb, 0xc2" : "+x"(x) : "x"(y), "x"(z));
    return x;
}

#endif
