/*
 * SHA-256 for RISC-V 64: one kernel with Zknh, one with Zbb.
 *
 * Zknh has an instruction for each of the four sigma functions (sha256sum0,
 * sha256sum1, sha256sig0, sha256sig1); Zbb has roriw, a rotate in one
 * instruction, and andn for the choice function. Both kernels are the same
 * round loop around different sigmas. GCC 12 has neither builtins nor
 * per-function target attributes for these on RISC-V, so the file is built
 * at the baseline ISA and the instructions are inline assembly, enabled for
 * the assembler with ".option arch" around each one. The dispatcher calls a
 * kernel only where its extension was detected.
 */
#include <string.h>

#include "native.h"

#if defined(VN_RISCV64)

#define WITH(ext, insn) ".option push\n\t.option arch, +" ext "\n\t" insn "\n\t.option pop"

/* Zknh: each sigma is one instruction. */
#define ZKNH_UNARY(name)                                                 \
    static inline uint32_t zknh_##name(uint32_t x) {                     \
        uint32_t r;                                                      \
        __asm__(WITH("zknh", #name " %0, %1") : "=r"(r) : "r"(x));       \
        return r;                                                        \
    }
ZKNH_UNARY(sha256sum0)
ZKNH_UNARY(sha256sum1)
ZKNH_UNARY(sha256sig0)
ZKNH_UNARY(sha256sig1)

/* Zbb: rotates in one instruction each. */
#define RORI(n)                                                                 \
    static inline uint32_t rori_##n(uint32_t x) {                                  \
        uint32_t r;                                                                \
        __asm__(WITH("zbb", "roriw %0, %1, " #n) : "=r"(r) : "r"(x));              \
        return r;                                                                  \
    }
RORI(2)
RORI(6)
RORI(7)
RORI(11)
RORI(13)
RORI(17)
RORI(18)
RORI(19)
RORI(22)
RORI(25)

static inline uint32_t zbb_andn(uint32_t x, uint32_t y) {
    uint32_t r;
    __asm__(WITH("zbb", "andn %0, %1, %2") : "=r"(r) : "r"(x), "r"(y));
    return r; /* x & ~y */
}

static inline uint32_t zbb_sum0(uint32_t x) { return rori_2(x) ^ rori_13(x) ^ rori_22(x); }
static inline uint32_t zbb_sum1(uint32_t x) { return rori_6(x) ^ rori_11(x) ^ rori_25(x); }
static inline uint32_t zbb_sig0(uint32_t x) { return rori_7(x) ^ rori_18(x) ^ (x >> 3); }
static inline uint32_t zbb_sig1(uint32_t x) { return rori_17(x) ^ rori_19(x) ^ (x >> 10); }

static inline uint32_t load_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The round loop of FIPS 180-4, 6.2.2, around the given sigmas and choice. */
#define SHA256_KERNEL(name, SUM0, SUM1, SIG0, SIG1, CH)                                        \
    void name(uint32_t *state, const unsigned char *data, size_t blocks) {                     \
        uint32_t s[8];                                                                         \
        memcpy(s, state, sizeof s);                                                            \
        for (; blocks; blocks--, data += 64) {                                                 \
            uint32_t w[16];                                                                    \
            uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6],     \
                     h = s[7];                                                                 \
            for (int t = 0; t < 64; t++) {                                                     \
                uint32_t wt;                                                                   \
                if (t < 16) {                                                                  \
                    wt = w[t] = load_be32(data + 4 * t);                                       \
                } else {                                                                       \
                    wt = w[t & 15] += SIG1(w[(t - 2) & 15]) + w[(t - 7) & 15] +                \
                                      SIG0(w[(t - 15) & 15]);                                  \
                }                                                                              \
                const uint32_t t1 = h + SUM1(e) + CH(e, f, g) + vn_sha256_k[t] + wt;           \
                const uint32_t t2 = SUM0(a) + ((a & b) ^ (c & (a ^ b)));                       \
                h = g;                                                                         \
                g = f;                                                                         \
                f = e;                                                                         \
                e = d + t1;                                                                    \
                d = c;                                                                         \
                c = b;                                                                         \
                b = a;                                                                         \
                a = t1 + t2;                                                                   \
            }                                                                                  \
            s[0] += a;                                                                         \
            s[1] += b;                                                                         \
            s[2] += c;                                                                         \
            s[3] += d;                                                                         \
            s[4] += e;                                                                         \
            s[5] += f;                                                                         \
            s[6] += g;                                                                         \
            s[7] += h;                                                                         \
        }                                                                                      \
        memcpy(state, s, sizeof s);                                                            \
    }

#define CH_BASE(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define CH_ZBB(e, f, g) (((e) & (f)) ^ zbb_andn((g), (e)))

SHA256_KERNEL(vn_sha256_riscv64_zknh, zknh_sha256sum0, zknh_sha256sum1, zknh_sha256sig0,
              zknh_sha256sig1, CH_BASE)
SHA256_KERNEL(vn_sha256_riscv64_zbb, zbb_sum0, zbb_sum1, zbb_sig0, zbb_sig1, CH_ZBB)

#endif
