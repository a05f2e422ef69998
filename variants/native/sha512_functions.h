/*
 * SHA-512's functions (FIPS 180-4, 4.1.3) on one 64-bit word, for scalar C:
 * the portable kernel's, the C AVX2 kernel's rounds, and the C model of
 * x86-64's SHA512 instructions (sha512_amd64_sha512.c). Ch and Maj in forms
 * with one operation fewer.
 */
#ifndef VARIANTS_NATIVE_SHA512_FUNCTIONS_H
#define VARIANTS_NATIVE_SHA512_FUNCTIONS_H

#include <stdint.h>

static inline uint64_t rotr(uint64_t x, int n) { return x >> n | x << (64 - n); }

#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define BSIG0(x) (rotr(x, 28) ^ rotr(x, 34) ^ rotr(x, 39))
#define BSIG1(x) (rotr(x, 14) ^ rotr(x, 18) ^ rotr(x, 41))
#define SSIG0(x) (rotr(x, 1) ^ rotr(x, 8) ^ ((x) >> 7))
#define SSIG1(x) (rotr(x, 19) ^ rotr(x, 61) ^ ((x) >> 6))

#endif
