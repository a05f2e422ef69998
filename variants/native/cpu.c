/*
 * What the CPU has, as the NEEDS_* bits of cpu.h, detected once when the
 * module is set up (dispatch.c's vn_setup):
 *
 *   x86-64   cpuid: SHA (leaf 7), SSSE3 and SSE4.1 (leaf 1) for SHA-NI;
 *            AVX2, BMI2, AVX-512 F, VL and BW (leaf 7), SHA512 (leaf 7, sub-leaf
 *            1), the vector ones only where the OS saves their registers
 *            (OSXSAVE, then XCR0 through xgetbv)
 *   AArch64  getauxval(AT_HWCAP): SHA1, SHA2, SHA512 (NEON is part of the baseline);
 *            on macOS sysctlbyname's hw.optional.arm.FEAT_SHA1, _SHA256, _SHA512
 *   RISC-V   run one Zbb and one Zknh instruction with SIGILL caught
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, sigsetjmp with -std=c11 */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE /* sysctlbyname beside the POSIX names */
#endif

#include <string.h>

#include "cpu.h"

#if defined(VN_AMD64)
#include <cpuid.h>
#elif defined(VN_ARM64) && defined(__APPLE__)
#include <sys/sysctl.h>
#elif defined(VN_ARM64)
#include <sys/auxv.h>
#elif defined(VN_RISCV64)
#include <setjmp.h>
#include <signal.h>
#endif

#if defined(VN_AMD64)

#ifndef bit_SHA
#define bit_SHA (1 << 29)
#endif
#ifndef bit_OSXSAVE
#define bit_OSXSAVE (1 << 27)
#endif
#ifndef bit_AVX2
#define bit_AVX2 (1 << 5)
#endif
#ifndef bit_BMI
#define bit_BMI (1 << 3)
#endif
#ifndef bit_BMI2
#define bit_BMI2 (1 << 8)
#endif
#ifndef bit_SHA512
#define bit_SHA512 (1 << 0) /* leaf 7, sub-leaf 1, eax */
#endif
#ifndef bit_AVX512F
#define bit_AVX512F (1 << 16)
#endif
#ifndef bit_AVX512BW
#define bit_AVX512BW (1 << 30)
#endif
#ifndef bit_AVX512VL
#define bit_AVX512VL (1u << 31)
#endif

/* XCR0: which register state the OS saves and restores, hence lets programs use. */
#define XCR0_SSE (1u << 1)
#define XCR0_YMM (1u << 2)
#define XCR0_OPMASK (1u << 5)
#define XCR0_ZMM_HI256 (1u << 6)
#define XCR0_HI16_ZMM (1u << 7)

static unsigned xcr0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return lo;
}

unsigned vn_cpu_features(void) {
    unsigned eax, ebx, ecx, edx, sub1 = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int sse = (ecx & bit_SSSE3) && (ecx & bit_SSE4_1);
    /* xgetbv exists only where the OS has turned XSAVE on */
    const unsigned os = ecx & bit_OSXSAVE ? xcr0() : 0;
    const unsigned ymm = XCR0_SSE | XCR0_YMM;
    const unsigned zmm = ymm | XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM;
    const int avx = (ecx & bit_AVX) && (os & ymm) == ymm;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const unsigned leaves = eax; /* the highest sub-leaf of leaf 7 */
    if (leaves >= 1) {
        unsigned b, c, d;
        __get_cpuid_count(7, 1, &sub1, &b, &c, &d);
    }
    unsigned found = 0;
    if (sse && (ebx & bit_SHA)) found |= NEEDS_SHANI;
    if (avx && (ebx & bit_AVX2)) found |= NEEDS_AVX2;
    if ((ebx & bit_BMI) && (ebx & bit_BMI2)) found |= NEEDS_BMI2; /* (kernels use both) */
    if (avx && (ebx & bit_AVX2) && (sub1 & bit_SHA512)) found |= NEEDS_SHA512;
    if (avx && (ebx & bit_AVX2) && (ebx & bit_AVX512F) && (ebx & bit_AVX512VL) &&
        (ebx & bit_AVX512BW) &&
        (os & zmm) == zmm) {
        found |= NEEDS_AVX512;
    }
    return found;
}

#elif defined(VN_ARM64) && defined(__APPLE__)

/* macOS has no getauxval: sysctl's hw.optional.arm.FEAT_* (macOS 12 and later), 1 where the
 * CPU has the feature; a name the system does not know counts as absent. Not compiled or run
 * here (no macOS SDK on the project's machines). */
static int has_feature(const char *name) {
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname(name, &value, &size, NULL, 0) == 0 && value == 1;
}

unsigned vn_cpu_features(void) {
    return (has_feature("hw.optional.arm.FEAT_SHA256") ? NEEDS_SHA2 : 0) |
           (has_feature("hw.optional.arm.FEAT_SHA1") ? NEEDS_SHA1 : 0) |
           (has_feature("hw.optional.arm.FEAT_SHA512") ? NEEDS_SHA512 : 0);
}

#elif defined(VN_ARM64)

#ifndef HWCAP_SHA1
#define HWCAP_SHA1 (1UL << 5)
#endif
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1UL << 6)
#endif
#ifndef HWCAP_SHA512
#define HWCAP_SHA512 (1UL << 21)
#endif

unsigned vn_cpu_features(void) {
    const unsigned long hwcap = getauxval(AT_HWCAP);
    return (hwcap & HWCAP_SHA2 ? NEEDS_SHA2 : 0) | (hwcap & HWCAP_SHA1 ? NEEDS_SHA1 : 0) |
           (hwcap & HWCAP_SHA512 ? NEEDS_SHA512 : 0);
}

#elif defined(VN_RISCV64)

/* Linux reports only single-letter extensions in AT_HWCAP, and the
 * riscv_hwprobe system call only since 6.4 (QEMU's user mode lacks it), so
 * each extension is tried: an instruction the CPU lacks raises SIGILL, which
 * the handler turns into a jump back. The previous handler is restored. */
static sigjmp_buf probe_exit;

static void probe_trap(int signal) {
    (void)signal;
    siglongjmp(probe_exit, 1);
}

static void try_zbb(void) {
    __asm__ volatile(".option push\n\t.option arch, +zbb\n\tandn t0, t0, t0\n\t.option pop"
                     ::: "t0");
}

static void try_zknh(void) {
    __asm__ volatile(".option push\n\t.option arch, +zknh\n\tsha256sum0 t0, t0\n\t.option pop"
                     ::: "t0");
}

static int runs(void (*attempt)(void)) {
    struct sigaction trap, previous;
    memset(&trap, 0, sizeof trap);
    trap.sa_handler = probe_trap;
    sigemptyset(&trap.sa_mask);
    if (sigaction(SIGILL, &trap, &previous) != 0) return 0;
    volatile int ok = 0;
    if (sigsetjmp(probe_exit, 1) == 0) {
        attempt();
        ok = 1;
    }
    sigaction(SIGILL, &previous, NULL);
    return ok;
}

unsigned vn_cpu_features(void) {
    return (runs(try_zbb) ? NEEDS_ZBB : 0) | (runs(try_zknh) ? NEEDS_ZKNH : 0);
}

#else

unsigned vn_cpu_features(void) { return 0; }

#endif
