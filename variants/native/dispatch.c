/*
 * Which kernels this build has, which of them this CPU can run, and the
 * choice: detected once, when the module is set up.
 *
 *   x86-64   cpuid: SHA (leaf 7), SSSE3 and SSE4.1 (leaf 1) for SHA-NI
 *   AArch64  getauxval(AT_HWCAP) & HWCAP_SHA2
 *   RISC-V   run one Zbb and one Zknh instruction with SIGILL caught
 *
 * Setting VARIANTS_NATIVE_PORTABLE (to anything but "" or "0") makes every
 * core use the portable kernel, so that both paths can be tested on one
 * machine, and on emulated CPUs that all have an extension.
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, sigsetjmp with -std=c11 */

#include <stdlib.h>
#include <string.h>

#include "native.h"

#if defined(VN_AMD64)
#include <cpuid.h>
#elif defined(VN_ARM64)
#include <sys/auxv.h>
#elif defined(VN_RISCV64)
#include <setjmp.h>
#include <signal.h>
#endif

#define PORTABLE_ENV "VARIANTS_NATIVE_PORTABLE"

enum {
    NEEDS_SHANI = 1 << 0, /* x86-64: SHA, SSSE3, SSE4.1 */
    NEEDS_SHA2 = 1 << 1,  /* AArch64: the SHA-256 instructions */
    NEEDS_ZBB = 1 << 2,   /* RISC-V: basic bit manipulation */
    NEEDS_ZKNH = 1 << 3,  /* RISC-V: SHA-2 sigma instructions */
};

struct kernel {
    const char *name;
    vn_blocks_fn *blocks;
    unsigned needs;
};

/* Each core's kernels, slowest first: the choice is the last one usable. */
static const struct kernel md5_kernels[] = {
    {"portable", vn_md5_generic, 0},
#if defined(VN_AMD64)
    {"x86-64 scalar", vn_md5_amd64, 0},
#elif defined(VN_ARM64)
    {"AArch64 scalar", vn_md5_arm64, 0},
#elif defined(VN_RISCV64)
    {"RISC-V Zbb", vn_md5_riscv64_zbb, NEEDS_ZBB},
#endif
};

static const struct kernel sha256_kernels[] = {
    {"portable", vn_sha256_generic, 0},
#if defined(VN_AMD64)
    {"x86-64 SHA-NI", vn_sha256_amd64_shani, NEEDS_SHANI},
#elif defined(VN_ARM64)
    {"AArch64 SHA2", vn_sha256_arm64_sha2, NEEDS_SHA2},
#elif defined(VN_RISCV64)
    {"RISC-V Zbb", vn_sha256_riscv64_zbb, NEEDS_ZBB},
    {"RISC-V Zknh", vn_sha256_riscv64_zknh, NEEDS_ZKNH},
#endif
};

static const struct {
    const struct kernel *kernels;
    int count;
} cores[VN_CORES] = {
    {md5_kernels, (int)(sizeof md5_kernels / sizeof md5_kernels[0])},
    {sha256_kernels, (int)(sizeof sha256_kernels / sizeof sha256_kernels[0])},
};

static unsigned features;          /* what the CPU has (NEEDS_* bits) */
static int chosen[VN_CORES];       /* index into cores[core]; 0, portable, until vn_setup */

#if defined(VN_AMD64)

#ifndef bit_SHA
#define bit_SHA (1 << 29)
#endif

static unsigned detect(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int sse = (ecx & bit_SSSE3) && (ecx & bit_SSE4_1);
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return sse && (ebx & bit_SHA) ? NEEDS_SHANI : 0;
}

#elif defined(VN_ARM64)

#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1UL << 6)
#endif

static unsigned detect(void) { return getauxval(AT_HWCAP) & HWCAP_SHA2 ? NEEDS_SHA2 : 0; }

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

static unsigned detect(void) {
    return (runs(try_zbb) ? NEEDS_ZBB : 0) | (runs(try_zknh) ? NEEDS_ZKNH : 0);
}

#else

static unsigned detect(void) { return 0; }

#endif

static int valid(int core, int index) {
    return core >= 0 && core < VN_CORES && index >= 0 && index < cores[core].count;
}

void vn_setup(void) {
    const char *portable = getenv(PORTABLE_ENV);
    const int force_portable = portable && *portable && strcmp(portable, "0") != 0;
    features = detect();
    for (int core = 0; core < VN_CORES; core++) {
        chosen[core] = 0;
        if (force_portable) continue;
        for (int i = 0; i < cores[core].count; i++) {
            if (vn_kernel_usable(core, i)) chosen[core] = i;
        }
    }
}

int vn_kernel_count(int core) { return core >= 0 && core < VN_CORES ? cores[core].count : 0; }

const char *vn_kernel_name(int core, int index) {
    return valid(core, index) ? cores[core].kernels[index].name : NULL;
}

int vn_kernel_usable(int core, int index) {
    if (!valid(core, index)) return 0;
    const unsigned needs = cores[core].kernels[index].needs;
    return (features & needs) == needs;
}

int vn_kernel_chosen(int core) { return core >= 0 && core < VN_CORES ? chosen[core] : -1; }

vn_blocks_fn *vn_kernel(int core, int index) {
    return valid(core, index) ? cores[core].kernels[index].blocks : NULL;
}

vn_blocks_fn *vn_chosen(int core) { return vn_kernel(core, vn_kernel_chosen(core)); }

int vn_compress(int core, int index, uint32_t *state, const char *data, size_t blocks) {
    if (index < 0) index = vn_kernel_chosen(core);
    if (!vn_kernel_usable(core, index)) return -1;
    if (blocks) cores[core].kernels[index].blocks(state, (const unsigned char *)data, blocks);
    return 0;
}
