/*
 * Benchmark of the single-message kernels (one core's blocks, the
 * compression function alone) against OpenSSL's libcrypto, from C: how each
 * kernel this CPU runs compares with the code hashlib calls, with no Python
 * in between. The kernels' tables are dispatch.c's.
 *
 * Build and run from the repository root (libcrypto is linked here only, as
 * the baseline; the kernels' sources are the ones _build.py lists):
 *
 *   mkdir -p build && gcc -O2 -Ivariants/native bench/product/bench_kernels.c \
 *     $(python3 -c 'import sys; sys.path.insert(0, "variants/native"); import _build; \
 *       print(" ".join("variants/native/" + s for s in _build.KERNEL_SOURCES))') \
 *     -lcrypto -o build/bench_kernels && build/bench_kernels
 *
 *   build/bench_kernels [--rounds N] [--core md5|sha256|sha1|sha512]
 *
 * For each core and each size (one block, 16 KiB, 1 MiB of whole blocks), it
 * times every usable kernel and OpenSSL's low-level Update over the same
 * bytes (its block function, with its call's small overhead) in interleaved
 * rounds, each sample at least 0.1 s of this thread's CPU time, and prints
 * the median MB/s and the median, first and third quartile of each round's
 * ratio to OpenSSL's in that same round (bench_c.h: the clock, OpenSSL's
 * calls, the medians, shared with bench_many.c). Every kernel's state after the
 * bytes is checked against the portable kernel's first.
 */
#include "bench_c.h"

#define MAX_KERNELS 8

static const struct {
    const char *name;
    int core, algorithm; /* the algorithm of OpenSSL's that runs the core */
    size_t block;
} cores[] = {
    {"md5", VN_CORE_MD5, VN_MD5, 64},
    {"sha256", VN_CORE_SHA256, VN_SHA256, 64},
    {"sha1", VN_CORE_SHA1, VN_SHA1, 64},
    {"sha512", VN_CORE_SHA512, VN_SHA512, 128},
};

/* One run over `n` bytes: kernel `k` of cores[c], or OpenSSL (k < 0). */
static void run(int c, int k, const unsigned char *data, size_t n) {
    const int core = cores[c].core;
    const size_t block = cores[c].block;
    static uint64_t state64[8];
    static uint32_t state32[8];
    if (k >= 0) {
        const vn_blocks_ref kernel = vn_kernel(core, k);
        if (kernel.wide) {
            kernel.fn.words64(state64, data, n / block);
        } else {
            kernel.fn.words32(state32, data, n / block);
        }
        return;
    }
    union openssl_ctx ctx;
    openssl_init(cores[c].algorithm, &ctx);
    openssl_update(cores[c].algorithm, &ctx, data, n);
}

/* Each kernel's state after `n` bytes equals the portable kernel's (index 0). */
static int agree(int core, const unsigned char *data, size_t n, size_t block, int k) {
    uint64_t a64[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b64[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t a32[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b32[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const vn_blocks_ref portable = vn_kernel(core, 0), kernel = vn_kernel(core, k);
    if (kernel.wide) {
        portable.fn.words64(a64, data, n / block);
        kernel.fn.words64(b64, data, n / block);
        return memcmp(a64, b64, sizeof a64) == 0;
    }
    portable.fn.words32(a32, data, n / block);
    kernel.fn.words32(b32, data, n / block);
    return memcmp(a32, b32, sizeof a32) == 0;
}

static int measure(int c, size_t n, const unsigned char *data, int rounds) {
    const int core = cores[c].core;
    const size_t block = cores[c].block;
    int ks[MAX_KERNELS], count = 0;
    for (int k = 0; k < vn_kernel_count(core) && count < MAX_KERNELS; k++) {
        if (!vn_kernel_usable(core, k)) continue;
        if (!agree(core, data, n, block, k)) {
            printf("%s %s: a different state from the portable kernel's\n", cores[c].name,
                   vn_kernel_id(core, k));
            return 1;
        }
        ks[count++] = k;
    }
    /* runs per sample, from one OpenSSL run */
    double t = now();
    long reps = 1;
    for (; now() - t < 0.01; reps *= 2) {
        for (long r = 0; r < reps; r++) run(c, -1, data, n);
    }
    reps = reps * 10 + 1;
    double seconds[MAX_KERNELS + 1][MAX_ROUNDS];
    for (int round = 0; round < rounds; round++) {
        for (int i = -1; i < count; i++) {
            const double t0 = now();
            for (long r = 0; r < reps; r++) run(c, i < 0 ? -1 : ks[i], data, n);
            seconds[i + 1][round] = now() - t0;
        }
    }
    for (int i = -1; i < count; i++) {
        double mbs[MAX_ROUNDS], ratio[MAX_ROUNDS];
        for (int round = 0; round < rounds; round++) {
            mbs[round] = (double)n * (double)reps / seconds[i + 1][round] / 1e6;
            ratio[round] = seconds[0][round] / seconds[i + 1][round];
        }
        const char *label = i < 0 ? "OpenSSL" : vn_kernel_id(core, ks[i]);
        printf("%-7s %8zu B  %-14s %8.1f MB/s  %.3fx (%.3f-%.3f)%s\n", cores[c].name, n, label,
               median(mbs, rounds), median(ratio, rounds), quartile(ratio, rounds, 1),
               quartile(ratio, rounds, 3),
               i >= 0 && ks[i] == vn_kernel_chosen(core) ? "  (chosen)" : "");
    }
    return 0;
}

int main(int argc, char **argv) {
    int rounds = 15;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--core") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--rounds N] [--core md5|sha256|sha1|sha512]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1) rounds = 1;
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    vn_setup();
    if (vn_setup_problem()) fprintf(stderr, "warning: %s\n", vn_setup_problem());
    const size_t most = (size_t)1 << 20;
    unsigned char *data = malloc(most);
    if (!data) return 2;
    for (size_t i = 0; i < most; i++) data[i] = (unsigned char)(i * 7 + (i >> 11));
    printf("%d interleaved rounds; medians; the ratio is OpenSSL's time over the kernel's\n",
           rounds);
    int failed = 0;
    for (size_t c = 0; c < sizeof cores / sizeof cores[0]; c++) {
        if (only && strcmp(only, cores[c].name) != 0) continue;
        const size_t sizes[] = {cores[c].block, (size_t)16 << 10, most};
        for (size_t s = 0; s < 3; s++) failed |= measure((int)c, sizes[s], data, rounds);
    }
    free(data);
    return failed;
}
