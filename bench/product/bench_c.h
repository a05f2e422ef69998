/*
 * What the C benchmarks (bench_many.c, bench_kernels.c) share: the clock,
 * OpenSSL's low-level API by algorithm (the baseline), and the order
 * statistics of their rounds. Included first, once, by each of them.
 */
#ifndef VARIANTS_BENCH_C_H
#define VARIANTS_BENCH_C_H

#define _POSIX_C_SOURCE 200809L
#define OPENSSL_SUPPRESS_DEPRECATED /* the low-level API is the fast one */

#include <openssl/md5.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch.h"
#include "many.h"

#define MAX_ROUNDS 31
#define MIN_SAMPLE 0.1 /* seconds */

/* The clock: this thread's CPU time, so that time the shared machine gives
 * to other processes is not counted (a benchmark may switch to the wall
 * clock, CLOCK_MONOTONIC, where it must). */
static clockid_t clock_id = CLOCK_THREAD_CPUTIME_ID;

static inline double now(void) {
    struct timespec t;
    clock_gettime(clock_id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* OpenSSL's context of each algorithm timed (VN_MD5, VN_SHA256, VN_SHA1, VN_SHA512). */
union openssl_ctx {
    MD5_CTX md5;
    SHA256_CTX sha256;
    SHA_CTX sha1;
    SHA512_CTX sha512;
};

static inline void openssl_init(int algorithm, union openssl_ctx *c) {
    if (algorithm == VN_MD5) MD5_Init(&c->md5);
    if (algorithm == VN_SHA256) SHA256_Init(&c->sha256);
    if (algorithm == VN_SHA1) SHA1_Init(&c->sha1);
    if (algorithm == VN_SHA512) SHA512_Init(&c->sha512);
}

static inline void openssl_update(int algorithm, union openssl_ctx *c, const unsigned char *p,
                                  size_t n) {
    if (algorithm == VN_MD5) MD5_Update(&c->md5, p, n);
    if (algorithm == VN_SHA256) SHA256_Update(&c->sha256, p, n);
    if (algorithm == VN_SHA1) SHA1_Update(&c->sha1, p, n);
    if (algorithm == VN_SHA512) SHA512_Update(&c->sha512, p, n);
}

static inline void openssl_final(int algorithm, union openssl_ctx *c, unsigned char *out) {
    if (algorithm == VN_MD5) MD5_Final(out, &c->md5);
    if (algorithm == VN_SHA256) SHA256_Final(out, &c->sha256);
    if (algorithm == VN_SHA1) SHA1_Final(out, &c->sha1);
    if (algorithm == VN_SHA512) SHA512_Final(out, &c->sha512);
}

static inline int compare_doubles(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* `values` (n <= MAX_ROUNDS) sorted into `sorted`. */
static inline void sort_rounds(const double *values, int n, double *sorted) {
    memcpy(sorted, values, (size_t)n * sizeof *values);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
}

static inline double median(const double *values, int n) {
    double sorted[MAX_ROUNDS];
    sort_rounds(values, n, sorted);
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* The first (q = 1) or third (q = 3) quartile: the value a quarter of the way in. */
static inline double quartile(const double *values, int n, int q) {
    double sorted[MAX_ROUNDS];
    sort_rounds(values, n, sorted);
    return sorted[(n - 1) * q / 4];
}

#endif
