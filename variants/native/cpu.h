/*
 * cpu.c: the CPU's features that kernels need, as bits (a kernel's `needs`
 * in dispatch.c's tables).
 */
#ifndef VARIANTS_NATIVE_CPU_H
#define VARIANTS_NATIVE_CPU_H

#include "native.h"

enum {
    NEEDS_SHANI = 1 << 0,  /* x86-64: SHA, SSSE3, SSE4.1 */
    NEEDS_SHA2 = 1 << 1,   /* AArch64: the SHA-256 instructions */
    NEEDS_ZBB = 1 << 2,    /* RISC-V: basic bit manipulation */
    NEEDS_ZKNH = 1 << 3,   /* RISC-V: SHA-2 sigma instructions */
    NEEDS_AVX2 = 1 << 4,   /* x86-64: AVX2, with the YMM state enabled by the OS */
    NEEDS_AVX512 = 1 << 5, /* x86-64: AVX-512 F, VL, BW, with the ZMM and opmask state enabled */
    NEEDS_BMI2 = 1 << 6,   /* x86-64: BMI1 and BMI2 (andn, rorx) */
    NEEDS_SHA512 = 1 << 7, /* x86-64: the SHA512 instructions (with AVX2's state); AArch64: SHA512 */
    NEEDS_SHA1 = 1 << 8,   /* AArch64: the SHA-1 instructions */
};

/* The NEEDS_* bits of what this CPU has (and its OS lets programs use). */
unsigned vn_cpu_features(void);

#endif
