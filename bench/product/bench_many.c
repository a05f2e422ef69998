/*
 * Benchmark of the many-message kernels (variants/native/many.c) against
 * OpenSSL's libcrypto hashing one message after another, from C.
 *
 * Build and run from the repository root (libcrypto is linked here only, as
 * the baseline; the kernels' sources are the ones _build.py lists):
 *
 *   mkdir -p build && gcc -O2 -pthread -Ivariants/native bench/product/bench_many.c \
 *     $(python3 -c 'import sys; sys.path.insert(0, "variants/native"); import _build; \
 *       print(" ".join("variants/native/" + s for s in _build.KERNEL_SOURCES))') \
 *     -lcrypto -o build/bench_many && build/bench_many
 *
 *   build/bench_many [--rounds N] [--only CASE] [--algorithm md5|sha256|sha1|sha512]
 *                    [--kernels ID,ID] [--wall]
 *
 * Cases (CASE is the name in the first column):
 *   4k        256 messages of 4 KiB (each its own malloc, as Python's bytes are)
 *   32b       1,000,000 messages of 32 bytes
 *   streams   8 streams of 128 MiB, fed 1 MiB at a time through vn_absorb_many
 *   threads   256 messages of 64 KiB with threads=2 against threads=1
 *
 * Each case times every usable many-kernel of the algorithm and OpenSSL's
 * low-level MD5_* / SHA256_* / SHA1_* / SHA512_* loop (its fastest API here:
 * OpenSSL 3's one-shot SHA256() fetches the algorithm at each call) in
 * interleaved rounds, each
 * contender's sample lasting at least 0.1 s. The machine is shared and noisy,
 * so the report gives medians over the rounds: MB/s of message bytes, and the
 * median of each round's ratio to OpenSSL in that same round; and the clock is
 * the thread's CPU time (--wall for the wall clock), except in the threads
 * case, which needs the wall clock.
 */
#include "bench_c.h"

/* ---- the work of one case ---------------------------------------------------- */

struct work {
    int algorithm;
    size_t count;
    const unsigned char **data;
    size_t *lengths;
    unsigned char *out;
    unsigned long long bytes; /* message bytes per run */
    /* streams: the states, and how many chunks of each */
    vn_state *states;
    vn_state **state_list;
    size_t chunks, chunk;
};

/* A contender: OpenSSL (kernel -1), a many-kernel by index, with `threads`. */
struct contender {
    char label[64];
    int kernel; /* -1: OpenSSL */
    int threads;
    long reps;  /* runs per sample */
    double mbs[MAX_ROUNDS], ratio[MAX_ROUNDS];
};

/* The algorithms timed, and OpenSSL's low-level context of each. */
static const int algorithms[] = {VN_MD5, VN_SHA256, VN_SHA1, VN_SHA512};
static const char *algorithm_name(int algorithm) {
    return algorithm == VN_MD5 ? "md5" : algorithm == VN_SHA256 ? "sha256"
                                     : algorithm == VN_SHA1     ? "sha1"
                                                                : "sha512";
}

static void openssl_digest(int algorithm, const unsigned char *data, size_t length,
                           unsigned char *out) {
    union openssl_ctx c;
    openssl_init(algorithm, &c);
    openssl_update(algorithm, &c, data, length);
    openssl_final(algorithm, &c, out);
}

/* One run of the case with one contender. */
static void run(const struct work *w, const struct contender *c) {
    const size_t size = (size_t)vn_digest_size(w->algorithm);
    if (w->states) { /* streams */
        if (c->kernel < 0) {
            union openssl_ctx ctx[8];
            for (size_t i = 0; i < w->count; i++) openssl_init(w->algorithm, &ctx[i]);
            for (size_t k = 0; k < w->chunks; k++) {
                for (size_t i = 0; i < w->count; i++) {
                    openssl_update(w->algorithm, &ctx[i], w->data[i] + k * w->chunk, w->chunk);
                }
            }
            for (size_t i = 0; i < w->count; i++) {
                openssl_final(w->algorithm, &ctx[i], w->out + i * size);
            }
            return;
        }
        const unsigned char *chunk[8];
        size_t lengths[8];
        for (size_t i = 0; i < w->count; i++) vn_init(&w->states[i], w->algorithm, NULL);
        for (size_t k = 0; k < w->chunks; k++) {
            for (size_t i = 0; i < w->count; i++) {
                chunk[i] = w->data[i] + k * w->chunk;
                lengths[i] = w->chunk;
            }
            vn_absorb_many_with(c->kernel, w->state_list, w->count, chunk, lengths);
        }
        for (size_t i = 0; i < w->count; i++) vn_final(&w->states[i], w->out + i * size);
        return;
    }
    if (c->kernel < 0) {
        for (size_t i = 0; i < w->count; i++) {
            openssl_digest(w->algorithm, w->data[i], w->lengths[i], w->out + i * size);
        }
        return;
    }
    vn_digest_many_with(c->kernel, w->algorithm, w->count, w->data, w->lengths, w->out,
                        c->threads);
}

/* Every contender's digests agree with OpenSSL's. */
static int agree(const struct work *w, struct contender *cs, int n) {
    const size_t size = (size_t)vn_digest_size(w->algorithm), total = w->count * size;
    unsigned char *expected = malloc(total);
    if (!expected) exit(2);
    run(w, &cs[0]);
    memcpy(expected, w->out, total);
    int ok = 1;
    for (int k = 1; k < n; k++) {
        memset(w->out, 0, total);
        run(w, &cs[k]);
        if (memcmp(w->out, expected, total) != 0) {
            printf("  DISAGREES: %s\n", cs[k].label);
            ok = 0;
        }
    }
    free(expected);
    return ok;
}

static void measure(const char *name, const struct work *w, struct contender *cs, int n,
                    int rounds) {
    if (!agree(w, cs, n)) exit(1);
    /* calibrate: runs per sample of at least MIN_SAMPLE seconds */
    for (int k = 0; k < n; k++) {
        double t = now();
        run(w, &cs[k]);
        t = now() - t;
        cs[k].reps = t >= MIN_SAMPLE ? 1 : (long)(MIN_SAMPLE / (t > 1e-7 ? t : 1e-7)) + 1;
    }
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < n; k++) {
            const double t0 = now();
            for (long i = 0; i < cs[k].reps; i++) run(w, &cs[k]);
            const double t = (now() - t0) / (double)cs[k].reps;
            cs[k].mbs[r] = (double)w->bytes / t / 1e6;
        }
        for (int k = 0; k < n; k++) cs[k].ratio[r] = cs[k].mbs[r] / cs[0].mbs[r];
    }
    const char *algorithm = algorithm_name(w->algorithm);
    for (int k = 0; k < n; k++) {
        const double mbs = median(cs[k].mbs, rounds);
        printf("%-8s %-7s %-28s %9.0f MB/s  %6.2fx", name, algorithm, cs[k].label, mbs,
               median(cs[k].ratio, rounds));
        if (w->count >= 100000) printf("  %6.1f ns/message", (double)w->bytes / (double)w->count / mbs * 1e3);
        printf("\n");
    }
    fflush(stdout);
}

/* --kernels: a comma-separated list of kernel ids to time (NULL: all). */
static const char *only_kernels;

static int wanted(const char *id) {
    if (!only_kernels) return 1;
    const size_t n = strlen(id);
    for (const char *p = only_kernels; *p;) {
        const size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, id, n) == 0) return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* OpenSSL, then every usable many-kernel of the algorithm (threads = 1). */
static int contenders(int algorithm, struct contender *cs) {
    const int core = vn_many_core_of(algorithm);
    int n = 0;
    memset(cs, 0, sizeof *cs);
    snprintf(cs[n].label, sizeof cs[n].label, "OpenSSL loop");
    cs[n].kernel = -1;
    cs[n++].threads = 1;
    for (int i = 0; i < vn_kernel_count(core); i++) {
        if (!vn_kernel_usable(core, i) || !wanted(vn_kernel_id(core, i))) continue;
        memset(&cs[n], 0, sizeof cs[n]);
        snprintf(cs[n].label, sizeof cs[n].label, "%s%s", vn_kernel_id(core, i),
                 i == vn_kernel_chosen(core) ? " (chosen)" : "");
        cs[n].kernel = i;
        cs[n++].threads = 1;
    }
    return n;
}

/* `count` messages of `length` bytes, each its own allocation, filled. */
static struct work messages(int algorithm, size_t count, size_t length) {
    struct work w = {0};
    w.algorithm = algorithm;
    w.count = count;
    w.data = malloc(count * sizeof *w.data);
    w.lengths = malloc(count * sizeof *w.lengths);
    w.out = malloc(count * VN_MAX_DIGEST);
    if (!w.data || !w.lengths || !w.out) exit(2);
    for (size_t i = 0; i < count; i++) {
        unsigned char *m = malloc(length ? length : 1);
        if (!m) exit(2);
        for (size_t j = 0; j < length; j++) m[j] = (unsigned char)(i * 31 + j * 7);
        w.data[i] = m;
        w.lengths[i] = length;
    }
    w.bytes = (unsigned long long)count * length;
    return w;
}

static void free_work(struct work *w) {
    for (size_t i = 0; i < w->count; i++) free((void *)w->data[i]);
    free(w->data);
    free(w->lengths);
    free(w->out);
    free(w->states);
    free(w->state_list);
}

int main(int argc, char **argv) {
    int rounds = 7;
    const char *only = NULL, *only_algorithm = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--algorithm") == 0 && i + 1 < argc) {
            only_algorithm = argv[++i];
        } else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
            only_kernels = argv[++i];
        } else if (strcmp(argv[i], "--wall") == 0) {
            clock_id = CLOCK_MONOTONIC;
        } else {
            fprintf(stderr, "usage: %s [--rounds N] [--only 4k|32b|streams|threads] "
                            "[--algorithm md5|sha256|sha1|sha512] [--kernels ID,ID] [--wall]\n",
                    argv[0]);
            return 2;
        }
    }
    if (rounds < 1) rounds = 1;
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    vn_setup();
    if (vn_setup_problem()) fprintf(stderr, "warning: %s\n", vn_setup_problem());
    printf("chosen:");
    for (size_t a = 0; a < sizeof algorithms / sizeof algorithms[0]; a++) {
        const int core = vn_many_core_of(algorithms[a]);
        printf(" %s-many %s%s", algorithm_name(algorithms[a]),
               vn_kernel_id(core, vn_kernel_chosen(core)),
               a + 1 < sizeof algorithms / sizeof algorithms[0] ? "," : ";");
    }
    printf(" %d rounds, medians\n", rounds);

    struct contender cs[16];
    for (size_t a = 0; a < sizeof algorithms / sizeof algorithms[0]; a++) {
        const int algorithm = algorithms[a];
        const char *name = algorithm_name(algorithm);
        if (only_algorithm && strcmp(only_algorithm, name) != 0) continue;
        if (!only || strcmp(only, "4k") == 0) {
            struct work w = messages(algorithm, 256, 4096);
            measure("4k", &w, cs, contenders(algorithm, cs), rounds);
            free_work(&w);
        }
        if (!only || strcmp(only, "32b") == 0) {
            struct work w = messages(algorithm, 1000000, 32);
            measure("32b", &w, cs, contenders(algorithm, cs), rounds);
            free_work(&w);
        }
        if (!only || strcmp(only, "streams") == 0) {
            /* 8 streams of 128 MiB: one allocation each, touched once */
            struct work w = messages(algorithm, 8, (size_t)128 << 20);
            w.states = malloc(8 * sizeof *w.states);
            w.state_list = malloc(8 * sizeof *w.state_list);
            if (!w.states || !w.state_list) exit(2);
            for (int i = 0; i < 8; i++) w.state_list[i] = &w.states[i];
            w.chunk = (size_t)1 << 20;
            w.chunks = 128;
            measure("streams", &w, cs, contenders(algorithm, cs), rounds);
            free_work(&w);
        }
        if (!only || strcmp(only, "threads") == 0) {
            const clockid_t saved = clock_id;
            clock_id = CLOCK_MONOTONIC; /* two threads' work in the time of one */
            struct work w = messages(algorithm, 256, 65536);
            const int core = vn_many_core_of(algorithm);
            int n = 0;
            memset(cs, 0, 3 * sizeof cs[0]);
            snprintf(cs[n].label, sizeof cs[n].label, "OpenSSL loop");
            cs[n].kernel = -1;
            cs[n++].threads = 1;
            for (int threads = 1; threads <= 2; threads++) {
                snprintf(cs[n].label, sizeof cs[n].label, "%s threads=%d",
                         vn_kernel_id(core, vn_kernel_chosen(core)), threads);
                cs[n].kernel = vn_kernel_chosen(core);
                cs[n++].threads = threads;
            }
            measure("threads", &w, cs, n, rounds);
            double gain[MAX_ROUNDS];
            for (int r = 0; r < rounds; r++) gain[r] = cs[2].mbs[r] / cs[1].mbs[r];
            printf("threads  %-7s threads=2 / threads=1: %.2fx (median of the rounds)\n", name,
                   median(gain, rounds));
            free_work(&w);
            clock_id = saved;
        }
    }
    return 0;
}
