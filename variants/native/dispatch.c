/*
 * Which kernels this build has, which of them this CPU can run (cpu.c
 * detects its features once, when the module is set up), and the choice.
 *
 * Setting VARIANTS_NATIVE_PORTABLE (to anything but "" or "0") makes every
 * core use the portable kernel, so that both paths can be tested on one
 * machine, and on emulated CPUs that all have an extension.
 * VARIANTS_NATIVE_KERNELS (core=id,core=id,...) then forces single cores'
 * kernels by their ids, for tests and benchmarks.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "dispatch.h"
#include "environment.h"
#if defined(VN_AMD64)
#include <sha512_extension.h>
#endif

/* A kernel of a single-message core (`blocks`) or of a many core (`many`,
 * `lanes` messages at once, and the id of the `narrower` kernel that takes
 * the last messages when too few are left to fill it), tagged by its core's
 * word width: `wide` (the SHA-512 cores': 64-bit words) says which member of
 * blocks, many and shorts holds the function, words64 or words32. */
struct kernel {
    const char *id;
    const char *name;
    int wide;
    vn_blocks_any blocks;
    vn_many_any many;
    int lanes;
    const char *narrower;
    unsigned needs;
    vn_short_any shorts; /* its short kernel (native.h): every kernel with lanes has one */
    /* 1: a kernel that no machine of the project's could run (an instruction set none
     * has); vn_setup runs it on known blocks first and leaves it unused if its state
     * differs from the portable kernel's */
    int verify;
};

/* Each core's kernels, slowest first: the choice is the last one usable (a
 * kernel is one entry, designated initializers; lanes 1 unless it has them). */
static const struct kernel md5_kernels[] = {
    {.id = "portable", .name = "portable", .blocks.words32 = vn_md5_generic, .lanes = 1},
#if defined(VN_AMD64)
    {.id = "amd64", .name = "x86-64 scalar", .blocks.words32 = vn_md5_amd64, .lanes = 1},
#elif defined(VN_ARM64)
    {.id = "arm64", .name = "AArch64 scalar", .blocks.words32 = vn_md5_arm64, .lanes = 1},
#elif defined(VN_RISCV64)
    {.id = "zbb", .name = "RISC-V Zbb", .blocks.words32 = vn_md5_riscv64_zbb, .lanes = 1,
     .needs = NEEDS_ZBB},
#endif
};

static const struct kernel sha256_kernels[] = {
    {.id = "portable", .name = "portable", .blocks.words32 = vn_sha256_generic, .lanes = 1},
#if defined(VN_AMD64)
    {.id = "shani", .name = "x86-64 SHA-NI", .blocks.words32 = vn_sha256_amd64_shani, .lanes = 1,
     .needs = NEEDS_SHANI},
#elif defined(VN_ARM64)
    {.id = "sha2", .name = "AArch64 SHA2", .blocks.words32 = vn_sha256_arm64_sha2, .lanes = 1,
     .needs = NEEDS_SHA2},
#elif defined(VN_RISCV64)
    {.id = "zbb", .name = "RISC-V Zbb", .blocks.words32 = vn_sha256_riscv64_zbb, .lanes = 1,
     .needs = NEEDS_ZBB},
    {.id = "zknh", .name = "RISC-V Zknh", .blocks.words32 = vn_sha256_riscv64_zknh, .lanes = 1,
     .needs = NEEDS_ZKNH},
#endif
};

/* The many cores. Index 0 hashes one message after another with the chosen
 * single-message kernel. The others are in the order of their speed as
 * bench/product/bench_many.c measures it (the figures, dated, are in
 * docs/development.md, "The kernels' measurements") on a CPU with AVX-512
 * on 256-bit units and SHA-NI, against OpenSSL's single-message loop: for MD5,
 * more lanes and two interleaved sets beat fewer; for SHA-256, SHA-NI pairs
 * beat every vector width but AVX-512's 16 lanes, which match them only when
 * all 16 are busy (a zmm call costs the same however few lanes work), so
 * avx512-shani takes zmm lanes then and SHA-NI pairs otherwise. So with both
 * AVX-512 and SHA-NI, avx512-shani; with one of them, that one; AVX2's
 * SHA-256 lanes only where there is neither. */
static const struct kernel md5_many_kernels[] = {
    {.id = "portable", .name = "one at a time", .lanes = 1},
#if defined(VN_AMD64)
    {.id = "avx2-x8", .name = "AVX2 x8", .many.words32 = vn_md5_many_avx2_x8, .lanes = 8,
     .needs = NEEDS_AVX2, .shorts.words32 = vn_md5_short_avx2_x8},
    {.id = "avx2-x16", .name = "AVX2 x16 (2 sets of 8)", .many.words32 = vn_md5_many_avx2_x16,
     .lanes = 16, .narrower = "avx2-x8", .needs = NEEDS_AVX2,
     .shorts.words32 = vn_md5_short_avx2_x16},
    {.id = "avx512-x8", .name = "AVX-512 x8 (ymm)", .many.words32 = vn_md5_many_avx512_x8,
     .lanes = 8, .needs = NEEDS_AVX512, .shorts.words32 = vn_md5_short_avx512_x8},
    {.id = "avx512-x16", .name = "AVX-512 x16", .many.words32 = vn_md5_many_avx512_x16, .lanes = 16,
     .narrower = "avx512-x8", .needs = NEEDS_AVX512, .shorts.words32 = vn_md5_short_avx512_x16},
    {.id = "avx512-x32", .name = "AVX-512 x32 (2 sets of 16)",
     .many.words32 = vn_md5_many_avx512_x32, .lanes = 32, .narrower = "avx512-x16",
     .needs = NEEDS_AVX512, .shorts.words32 = vn_md5_short_avx512_x32},
#elif defined(VN_ARM64)
    {.id = "neon-x4", .name = "NEON x4", .many.words32 = vn_md5_many_neon_x4, .lanes = 4,
     .shorts.words32 = vn_md5_short_neon_x4},
    {.id = "neon-x8", .name = "NEON x8 (2 sets of 4)", .many.words32 = vn_md5_many_neon_x8,
     .lanes = 8, .narrower = "neon-x4", .shorts.words32 = vn_md5_short_neon_x8},
#endif
};

static const struct kernel sha256_many_kernels[] = {
    {.id = "portable", .name = "one at a time", .lanes = 1},
#if defined(VN_AMD64)
    {.id = "avx2-x8", .name = "AVX2 x8", .many.words32 = vn_sha256_many_avx2_x8, .lanes = 8,
     .needs = NEEDS_AVX2, .shorts.words32 = vn_sha256_short_avx2_x8},
    {.id = "avx512-x8", .name = "AVX-512 x8 (ymm)", .many.words32 = vn_sha256_many_avx512_x8,
     .lanes = 8, .needs = NEEDS_AVX512, .shorts.words32 = vn_sha256_short_avx512_x8},
    {.id = "avx512-x16", .name = "AVX-512 x16", .many.words32 = vn_sha256_many_avx512_x16,
     .lanes = 16, .narrower = "avx512-x8", .needs = NEEDS_AVX512,
     .shorts.words32 = vn_sha256_short_avx512_x16},
    {.id = "shani-x2", .name = "SHA-NI x2 (interleaved pairs)",
     .many.words32 = vn_sha256_many_shani_x2, .lanes = 16, .needs = NEEDS_SHANI,
     .shorts.words32 = vn_sha256_short_shani_x2},
    {.id = "avx512-shani", .name = "AVX-512 x16 or SHA-NI pairs",
     .many.words32 = vn_sha256_many_avx512_shani, .lanes = 16, .needs = NEEDS_AVX512 | NEEDS_SHANI,
     .shorts.words32 = vn_sha256_short_avx512_x16},
#elif defined(VN_ARM64)
    {.id = "sha2-x2", .name = "AArch64 SHA2 x2 (interleaved pairs)",
     .many.words32 = vn_sha256_many_sha2_x2, .lanes = 16, .needs = NEEDS_SHA2,
     .shorts.words32 = vn_sha256_short_sha2_x2},
#endif
};

static const struct kernel sha1_kernels[] = {
    {.id = "portable", .name = "portable", .blocks.words32 = vn_sha1_generic, .lanes = 1},
#if defined(VN_AMD64)
    {.id = "shani", .name = "x86-64 SHA-NI", .blocks.words32 = vn_sha1_amd64_shani, .lanes = 1,
     .needs = NEEDS_SHANI},
#elif defined(VN_ARM64)
    {.id = "sha1", .name = "AArch64 SHA1", .blocks.words32 = vn_sha1_arm64_sha1, .lanes = 1,
     .needs = NEEDS_SHA1},
#endif
};

#if defined(VN_AMD64_ASM)
#define SHA512_AVX2_NAME "x86-64 AVX2 and BMI2"
#else /* the assembly kernel (ELF's, System V's) is left out: describe() says so */
#define SHA512_AVX2_NAME "x86-64 AVX2 and BMI2 (C: no assembly kernel off ELF)"
#endif
static const struct kernel sha512_kernels[] = {
    {.id = "portable", .name = "portable", .wide = 1, .blocks.words64 = vn_sha512_generic,
     .lanes = 1},
#if defined(VN_AMD64)
    {.id = "avx2", .name = SHA512_AVX2_NAME, .wide = 1, .blocks.words64 = vn_sha512_amd64_avx2,
     .lanes = 1, .needs = NEEDS_AVX2 | NEEDS_BMI2},
#if defined(VN_AMD64_ASM)
    /* the same instructions in assembly, two blocks a pass: faster than the C kernel
     * above at one block and at 16 KiB (bench/product/bench_kernels.c; the figures in
     * docs/development.md, "The kernels' measurements") */
    {.id = "avx2-asm", .name = "x86-64 AVX2 and BMI2 (assembly)", .wide = 1,
     .blocks.words64 = vn_sha512_amd64_asm, .lanes = 1, .needs = NEEDS_AVX2 | NEEDS_BMI2},
#endif
    /* the SHA512 extension (its name and needs: the include path's sha512_extension.h, which
     * the cross driver's build replaces with its model's) */
    {.id = "sha512", .name = VN_SHA512_EXTENSION_NAME, .wide = 1,
     .blocks.words64 = vn_sha512_amd64_sha512, .lanes = 1, .needs = VN_SHA512_EXTENSION_NEEDS,
     .verify = 1},
#elif defined(VN_ARM64)
    {.id = "sha512", .name = "AArch64 SHA512", .wide = 1,
     .blocks.words64 = vn_sha512_arm64_sha512, .lanes = 1, .needs = NEEDS_SHA512},
#endif
};

/* SHA-1's SHA-NI streams (pairs, four at a time for messages longer than a
 * block, with their short kernel) beat its AVX2 lanes at 32 B and 4 KiB
 * (bench/product/bench_many.c), so with both, SHA-NI. AVX-512's 16 lanes
 * beat both when all are busy but not when few are (8 streams), as SHA-256's
 * do: so with both, avx512-shani, the last usable kernel being the one
 * chosen. (The figures, dated: docs/development.md, "The kernels'
 * measurements".) */
static const struct kernel sha1_many_kernels[] = {
    {.id = "portable", .name = "one at a time", .lanes = 1},
#if defined(VN_AMD64)
    {.id = "avx2-x8", .name = "AVX2 x8", .many.words32 = vn_sha1_many_avx2_x8, .lanes = 8,
     .needs = NEEDS_AVX2, .shorts.words32 = vn_sha1_short_avx2_x8},
    {.id = "shani-x2", .name = "SHA-NI x2 (interleaved streams)",
     .many.words32 = vn_sha1_many_shani_x2, .lanes = 16, .needs = NEEDS_SHANI,
     .shorts.words32 = vn_sha1_short_shani_x2},
    {.id = "avx512-x16", .name = "AVX-512 x16", .many.words32 = vn_sha1_many_avx512_x16,
     .lanes = 16, .needs = NEEDS_AVX512, .shorts.words32 = vn_sha1_short_avx512_x16},
    {.id = "avx512-shani", .name = "AVX-512 x16 or SHA-NI streams",
     .many.words32 = vn_sha1_many_avx512_shani, .lanes = 16, .needs = NEEDS_AVX512 | NEEDS_SHANI,
     .shorts.words32 = vn_sha1_short_avx512_x16},
#endif
};

static const struct kernel sha512_many_kernels[] = {
    {.id = "portable", .name = "one at a time", .wide = 1, .lanes = 1},
#if defined(VN_AMD64)
    {.id = "avx2-x4", .name = "AVX2 x4", .wide = 1, .many.words64 = vn_sha512_many_avx2_x4,
     .lanes = 4, .needs = NEEDS_AVX2, .shorts.words64 = vn_sha512_short_avx2_x4},
    {.id = "avx512-x8", .name = "AVX-512 x8", .wide = 1, .many.words64 = vn_sha512_many_avx512_x8,
     .lanes = 8, .needs = NEEDS_AVX512, .shorts.words64 = vn_sha512_short_avx512_x8},
#endif
};

#define KERNELS(table) table, (int)(sizeof table / sizeof table[0])

/* Each core's kernels, by its number; then its name, as VARIANTS_NATIVE_KERNELS has it. */
static const struct {
    const struct kernel *kernels;
    int count;
} cores[VN_CORES] = {
    [VN_CORE_MD5] = {KERNELS(md5_kernels)},
    [VN_CORE_SHA256] = {KERNELS(sha256_kernels)},
    [VN_CORE_MD5_MANY] = {KERNELS(md5_many_kernels)},
    [VN_CORE_SHA256_MANY] = {KERNELS(sha256_many_kernels)},
    [VN_CORE_SHA1] = {KERNELS(sha1_kernels)},
    [VN_CORE_SHA512] = {KERNELS(sha512_kernels)},
    [VN_CORE_SHA1_MANY] = {KERNELS(sha1_many_kernels)},
    [VN_CORE_SHA512_MANY] = {KERNELS(sha512_many_kernels)},
};
static const char *const core_names[VN_CORES] = VN_CORE_NAMES;

static unsigned features;        /* what the CPU has (NEEDS_* bits) */
static int chosen[VN_CORES];     /* index into cores[core]; 0, portable, until vn_setup */
static char problem[512];        /* what vn_setup_problem reports; "" for none */


static int valid(int core, int index) {
    return core >= 0 && core < VN_CORES && index >= 0 && index < cores[core].count;
}

/* The most kernels a core has (each table above is checked against it), and
 * the kernels with .verify whose state on known blocks was wrong (set by
 * vn_setup only). */
#define MAX_KERNELS 16
#define FITS(table) _Static_assert(sizeof table / sizeof table[0] <= MAX_KERNELS, #table)
FITS(md5_kernels);
FITS(sha256_kernels);
FITS(md5_many_kernels);
FITS(sha256_many_kernels);
FITS(sha1_kernels);
FITS(sha512_kernels);
FITS(sha1_many_kernels);
FITS(sha512_many_kernels);
static unsigned char wrong[VN_CORES][MAX_KERNELS];

/* Whether kernel `index` of `core` ends three known blocks in the portable kernel's state. */
static int agrees_with_portable(int core, int index) {
    unsigned char data[3 * 128];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 167 + (i >> 5));
    const struct kernel *k = &cores[core].kernels[index], *portable = &cores[core].kernels[0];
    if (k->wide) {
        uint64_t a[8], b[8];
        for (int i = 0; i < 8; i++) a[i] = b[i] = 0x0123456789abcdefull * (uint64_t)(i + 1);
        portable->blocks.words64(a, data, 3);
        k->blocks.words64(b, data, 3);
        return memcmp(a, b, sizeof a) == 0;
    }
    uint32_t a[8], b[8];
    for (int i = 0; i < 8; i++) a[i] = b[i] = 0x01234567u * (uint32_t)(i + 1);
    portable->blocks.words32(a, data, 6);
    k->blocks.words32(b, data, 6);
    return memcmp(a, b, sizeof a) == 0;
}


/* Append a sentence to what vn_setup_problem reports (cut short if long). */
static void report(const char *first, const char *second, size_t second_length,
                   const char *third) {
    size_t used = strlen(problem);
    const char *parts[4] = {used ? "; " : "", first, second, third};
    const size_t lengths[4] = {strlen(parts[0]), strlen(first), second_length, strlen(third)};
    for (int i = 0; i < 4; i++) {
        const size_t room = sizeof problem - 1 - used;
        const size_t n = lengths[i] < room ? lengths[i] : room;
        memcpy(problem + used, parts[i], n);
        used += n;
    }
    problem[used] = 0;
}

/* Apply VARIANTS_NATIVE_KERNELS: "core=id" entries separated by commas
 * (spaces around them ignored). */
static void force(const char *list) {
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        const char *end = p + strcspn(p, ",");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        const char *last = end;
        while (last > p && last[-1] == ' ') last--;
        if (!eq) {
            report(VN_KERNELS_ENV ": \"", p, (size_t)(last - p), "\" is not core=kernel");
            p = end;
            continue;
        }
        const char *name_end = eq;
        while (name_end > p && name_end[-1] == ' ') name_end--;
        const char *id = eq + 1;
        while (*id == ' ' && id < last) id++;
        const size_t name_length = (size_t)(name_end - p), id_length = (size_t)(last - id);
        int core = -1;
        for (int c = 0; c < VN_CORES; c++) {
            if (strlen(core_names[c]) == name_length && memcmp(core_names[c], p, name_length) == 0)
                core = c;
        }
        if (core < 0) {
            report(VN_KERNELS_ENV ": no core \"", p, name_length,
                   "\" (there are " VN_CORE_NAME_LIST ")");
            p = end;
            continue;
        }
        int index = -1;
        for (int i = 0; i < cores[core].count; i++) {
            const char *kid = cores[core].kernels[i].id;
            if (strlen(kid) == id_length && memcmp(kid, id, id_length) == 0) index = i;
        }
        if (index < 0) {
            report(VN_KERNELS_ENV ": no kernel \"", id, id_length, "\" in this build");
        } else if (!vn_kernel_usable(core, index)) {
            report(VN_KERNELS_ENV ": this CPU cannot run kernel \"", id, id_length, "\"");
        } else {
            chosen[core] = index;
        }
        p = end;
    }
}

void vn_setup(void) {
    const char *portable = getenv(VN_PORTABLE_ENV);
    const int force_portable = portable && *portable && strcmp(portable, "0") != 0;
    features = vn_cpu_features();
    problem[0] = 0;
    memset(wrong, 0, sizeof wrong);
    for (int core = 0; core < VN_CORES; core++) {
        for (int i = 0; i < cores[core].count; i++) {
            if (!cores[core].kernels[i].verify || !vn_kernel_usable(core, i)) continue;
            if (!agrees_with_portable(core, i)) {
                wrong[core][i] = 1;
                const char *id = cores[core].kernels[i].id;
                report("kernel \"", id, strlen(id), "\" gave a wrong state on known blocks: not used");
            }
        }
    }
    for (int core = 0; core < VN_CORES; core++) {
        chosen[core] = 0;
        if (force_portable) continue;
        for (int i = 0; i < cores[core].count; i++) {
            if (vn_kernel_usable(core, i)) chosen[core] = i;
        }
    }
    const char *list = getenv(VN_KERNELS_ENV);
    if (list) force(list);
}

const char *vn_setup_problem(void) { return problem[0] ? problem : NULL; }

int vn_kernel_count(int core) { return core >= 0 && core < VN_CORES ? cores[core].count : 0; }

const char *vn_kernel_name(int core, int index) {
    return valid(core, index) ? cores[core].kernels[index].name : NULL;
}

const char *vn_kernel_id(int core, int index) {
    return valid(core, index) ? cores[core].kernels[index].id : NULL;
}

int vn_kernel_find(int core, const char *id) {
    for (int i = 0; i < vn_kernel_count(core); i++) {
        if (strcmp(cores[core].kernels[i].id, id) == 0) return i;
    }
    return -1;
}

int vn_kernel_usable(int core, int index) {
    if (!valid(core, index)) return 0;
    const unsigned needs = cores[core].kernels[index].needs;
    return (features & needs) == needs && !wrong[core][index];
}

int vn_kernel_chosen(int core) { return core >= 0 && core < VN_CORES ? chosen[core] : -1; }

/* The record of kernel `index` of `core`, NULL if there is none. */
static const struct kernel *record(int core, int index) {
    return valid(core, index) ? &cores[core].kernels[index] : NULL;
}

vn_blocks_ref vn_kernel(int core, int index) {
    const struct kernel *k = record(core, index);
    return k ? (vn_blocks_ref){k->wide, k->blocks} : (vn_blocks_ref){vn_core_is_wide(core), {NULL}};
}

vn_blocks_ref vn_chosen(int core) { return vn_kernel(core, vn_kernel_chosen(core)); }

/* Which kernels have run in this process (vn_note sets a flag the first time). */
static unsigned char ran[VN_CORES][MAX_KERNELS];

unsigned char *vn_ran_flag(int core, int index) {
    return valid(core, index) ? &ran[core][index] : NULL;
}

unsigned char *vn_ran_flag_of(int core, vn_blocks_ref blocks) {
    for (int i = 0; core >= 0 && core < VN_CORES && i < cores[core].count; i++) {
        const struct kernel *k = &cores[core].kernels[i];
        if (k->wide != blocks.wide) continue;
        const int same = k->wide ? k->blocks.words64 == blocks.fn.words64
                                 : k->blocks.words32 == blocks.fn.words32;
        if (same) return vn_ran_flag(core, i);
    }
    return NULL;
}

int vn_kernel_ran(int core, int index) {
    const unsigned char *flag = vn_ran_flag(core, index);
    return flag ? __atomic_load_n(flag, __ATOMIC_RELAXED) : 0;
}

int vn_compress(int core, int index, void *state, const char *data, size_t blocks) {
    if (index < 0) index = vn_kernel_chosen(core);
    const vn_blocks_ref k = vn_kernel(core, index);
    if (!VN_REF_SET(k) || !vn_kernel_usable(core, index)) return -1;
    if (blocks) {
        if (k.wide) {
            k.fn.words64((uint64_t *)state, (const unsigned char *)data, blocks);
        } else {
            k.fn.words32((uint32_t *)state, (const unsigned char *)data, blocks);
        }
        vn_note(vn_ran_flag(core, index));
    }
    return 0;
}

vn_many_ref vn_many_kernel(int core, int index) {
    const struct kernel *k = record(core, index);
    return k ? (vn_many_ref){k->wide, k->many} : (vn_many_ref){vn_core_is_wide(core), {NULL}};
}

vn_short_ref vn_short_kernel(int core, int index) {
    const struct kernel *k = record(core, index);
    return k ? (vn_short_ref){k->wide, k->shorts} : (vn_short_ref){vn_core_is_wide(core), {NULL}};
}

int vn_kernel_has_lanes(int core, int index) { return VN_REF_SET(vn_many_kernel(core, index)); }

int vn_many_lanes(int index, int algorithm) {
    if (algorithm < 0 || algorithm >= VN_ALGORITHMS) return -1;
    const int core = vn_many_core_of(algorithm);
    if (index < 0) index = vn_kernel_chosen(core);
    if (!vn_kernel_usable(core, index)) return -1;
    return vn_kernel_has_lanes(core, index) && VN_REF_SET(vn_short_kernel(core, index));
}

int vn_kernel_lanes(int core, int index) {
    return valid(core, index) ? cores[core].kernels[index].lanes : 0;
}

int vn_kernel_narrower(int core, int index) {
    if (!valid(core, index) || !cores[core].kernels[index].narrower) return -1;
    return vn_kernel_find(core, cores[core].kernels[index].narrower);
}
