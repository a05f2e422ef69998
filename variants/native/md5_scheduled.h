/*
 * MD5 written for the dependency chain, in C: the kernel body shared by the
 * x86-64 and AArch64 files (md5_amd64.c, md5_arm64.c), which say what it
 * becomes on their instruction sets. Include it once, inside the file's
 * architecture guard, after defining KERNEL_NAME.
 *
 * Each step is a = b + ((a + f(b, c, d) + X[i] + t) <<< s), and b is what
 * the previous step just produced. Everything that does not need b
 * (a + X[i] + t, and whatever part of f uses only c and d) is computed off
 * that path, in the shadow of the previous step, as OpenJDK's MD5 intrinsics
 * do; round 2's g = (b & d) | (c & ~d) is written (b & d) + (c & ~d) (the
 * halves share no bit), so that its half without b joins the early sum.
 * The chaining values are locals across all the blocks of a call and the
 * message words are read in place (unaligned little-endian loads are fine
 * on both architectures).
 */
#include <string.h>

#include "md5_steps.h"
#include "native.h"

static inline uint32_t word(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint32_t rotl(uint32_t x, int s) { return x << s | x >> (32 - s); }

#define EARLY(a, i, t) a += word(data + 4 * (i)) + (uint32_t)(t)
#define R1(a, b, c, d, i, s, t) \
    EARLY(a, i, t);             \
    a += d ^ (b & (c ^ d));     \
    a = rotl(a, s) + b;
#define R2(a, b, c, d, i, s, t) \
    EARLY(a, i, t) + (c & ~d);  \
    a += b & d;                 \
    a = rotl(a, s) + b;
#define R3(a, b, c, d, i, s, t) \
    EARLY(a, i, t);             \
    a += b ^ (c ^ d);           \
    a = rotl(a, s) + b;
#define R4(a, b, c, d, i, s, t) \
    EARLY(a, i, t);             \
    a += c ^ (b | ~d);          \
    a = rotl(a, s) + b;

void KERNEL_NAME(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (; blocks; blocks--, data += 64) {
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEPS(R1, R2, R3, R4)
        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
}
