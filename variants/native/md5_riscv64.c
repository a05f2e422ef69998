/*
 * MD5 for RISC-V 64 with Zbb, written for the dependency chain.
 *
 * The same schedule as md5_amd64.c. Without Zbb a rotate is three
 * instructions (two shifts and an or) on the path from one step to the
 * next; Zbb's roriw does it in one, and its andn and orn compute c & ~d and
 * b | ~d, the halves of the round 2 and round 4 functions, in one each.
 * GCC 12 has no per-function target attribute for RISC-V, so the file is
 * built at the baseline ISA and the Zbb instructions are inline assembly,
 * enabled for the assembler with ".option arch, +zbb" around each one.
 * The dispatcher calls this kernel only where Zbb was detected.
 */
#include <string.h>

#include "md5_steps.h"
#include "native.h"

#if defined(VN_RISCV64)

#define ZBB(insn) ".option push\n\t.option arch, +zbb\n\t" insn "\n\t.option pop"

/* x = x <<< s, as a right rotation by 32 - s of the low word. */
#define ROTL(x, s) __asm__(ZBB("roriw %0, %0, %1") : "+r"(x) : "i"(32 - (s)))

static inline uint32_t andn(uint32_t x, uint32_t y) {
    uint32_t r;
    __asm__(ZBB("andn %0, %1, %2") : "=r"(r) : "r"(x), "r"(y));
    return r; /* x & ~y */
}

static inline uint32_t orn(uint32_t x, uint32_t y) {
    uint32_t r;
    __asm__(ZBB("orn %0, %1, %2") : "=r"(r) : "r"(x), "r"(y));
    return r; /* x | ~y */
}

/* Word i of the block at p, which is 4-byte aligned (see below). */
static inline uint32_t word(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, __builtin_assume_aligned(p, 4), sizeof v);
    return v;
}

#define EARLY(a, i, t) a += word(p + 4 * (i)) + (uint32_t)(t)
#define R1(a, b, c, d, i, s, t) \
    EARLY(a, i, t);             \
    a += d ^ (b & (c ^ d));     \
    ROTL(a, s);                 \
    a += b;
#define R2(a, b, c, d, i, s, t)  \
    EARLY(a, i, t) + andn(c, d); \
    a += b & d;                  \
    ROTL(a, s);                  \
    a += b;
#define R3(a, b, c, d, i, s, t) \
    EARLY(a, i, t);             \
    a += b ^ (c ^ d);           \
    ROTL(a, s);                 \
    a += b;
#define R4(a, b, c, d, i, s, t) \
    EARLY(a, i, t);             \
    a += c ^ orn(b, d);         \
    ROTL(a, s);                 \
    a += b;

void vn_md5_riscv64_zbb(uint32_t *state, const unsigned char *data, size_t blocks) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t aligned[16]; /* misaligned loads may trap and be emulated: copy those blocks */
    for (; blocks; blocks--, data += 64) {
        const unsigned char *p = data;
        if ((uintptr_t)data % 4) {
            memcpy(aligned, data, 64);
            p = (const unsigned char *)aligned;
        }
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

#endif
