/*
 * The native variant's kernel interface: MD5, SHA-1, SHA-256 and SHA-512
 * block functions ("kernels") per architecture, their types and the
 * numbering of the cores and algorithms they serve (SHA-224 runs SHA-256's;
 * SHA-384, SHA-512/224 and SHA-512/256 SHA-512's: 64-bit words, 128-byte
 * blocks). What uses the kernels has a header of its own (below).
 *
 * Layout, in the spirit of Go's crypto/md5 (md5block_generic.go,
 * md5block_amd64.s, ...): one file per architecture and algorithm.
 *
 *   md5_generic.c, sha256_generic.c   portable C, the fallback everywhere
 *   md5_amd64.c, sha256_amd64.c       x86-64: scalar MD5, SHA-256 with SHA-NI
 *   md5_arm64.c, sha256_arm64.c       AArch64: scalar MD5, SHA-256 with SHA2
 *   md5_riscv64.c, sha256_riscv64.c   RISC-V 64: Zbb rotates, Zknh SHA-256
 *   md5_many_amd64.c                  x86-64: MD5 of many messages in AVX2 and AVX-512 lanes
 *   sha256_many_amd64.c               x86-64: SHA-256 of many: interleaved SHA-NI, AVX2, AVX-512
 *   md5_many_arm64.c                  AArch64: MD5 of many messages in NEON lanes
 *   sha256_many_arm64.c               AArch64: SHA-256 of many: interleaved SHA2 streams
 *   md5_many_lanes.h                  the MD5 lane kernel body those files instantiate
 *   sha_many_lanes.h                  the SHA-1/SHA-2 lane kernel body, 32- or 64-bit words,
 *                                     taking the algorithm's rounds (SHA-2's: sha2_many_rounds.h)
 *   lanes_amd64.h                     x86-64: one block per lane, transposed into word vectors
 *   lanes_vector_amd64.h              x86-64: a lanes kernel's vector (ymm, zmm; 32, 64 bits)
 *   shani_short.h                     x86-64: a short message's block padded for SHA-NI
 *   sha256_shani.h, sha256_sha2.h     the SHA-NI and SHA2 helpers both SHA-256 files of an arch use
 *   sha256_pairs.h                    the rounds of two interleaved streams, SHA-NI's and SHA2's
 *   sha1_*.c, sha512_*.c              SHA-1 and the SHA-512 core likewise: portable C, x86-64
 *   sha1_shani.h, sha512_avx2.h       (SHA-NI SHA-1, AVX2/BMI2 SHA-512) and their many-kernels
 *   sha512_amd64_asm.h                SHA-512 for x86-64 in assembly (tools/gen_sha512_amd64.py)
 *   sha512_amd64_sha512.c             SHA-512 with x86-64's SHA512 extension
 *   sha512_functions.h                SHA-512's functions on one word, for the scalar C kernels
 *   constants.h, md5_steps.h          the constants and MD5's steps (tools/gen_constants.py)
 *   padding.h, padding.c              a message's last blocks, and the digest out of the state;
 *                                     the short kernels' padding tables
 *
 * What uses them, a header each:
 *
 *   cpu.c, cpu.h                      the CPU's features, as the bits kernels need
 *   dispatch.c, dispatch.h            the kernel tables, the choice, which kernels ran
 *   hash.c, hash.h                    the state machine: init, update with buffering, digest
 *   hex.c, hex.h                      digests as hexadecimal digits
 *   many.c, many.h                    the scheduler that keeps the lanes of a many-kernel full
 *   many_short.c                      messages of at most a block, through the short kernels
 *   many_scheduler.h, .c              the scheduler's state, shared by those two; its setup
 *   files.c, files.h                  small files read and hashed in lanes (plain C, threads)
 *   column.c, column.h                whole columns (Arrow layouts, fixed-width rows) in lanes
 *   arrow_abi.h                       the Arrow C Data Interface's structs (a stable ABI)
 *   locked.c, locked.h                its objects behind a mutex, for the cffi bridge
 *   capi.c, capi_*.c                  the CPython C-API module (the native variant on CPython;
 *                                     capi.h is their map)
 *
 * Everything is built at the baseline ISA; only functions that use optional
 * instructions ask for them, with a per-function target attribute or inside
 * their own inline assembly, so that one set of compiler flags builds all files.
 */
#ifndef VARIANTS_NATIVE_H
#define VARIANTS_NATIVE_H

#include <stddef.h>
#include <stdint.h>

/* A kernel: the chaining state after `blocks` whole blocks at `data` (which
 * need not be aligned), in the core's words: vn_blocks_fn for the 32-bit
 * cores' 64-byte blocks, vn_blocks64_fn for the SHA-512 core's 128-byte ones.
 * A core uses state[0 .. vn_core_state_words(core) - 1]: MD5 4 words, SHA-1 5,
 * SHA-256 and SHA-512 8. */
typedef void vn_blocks_fn(uint32_t *state, const unsigned char *data, size_t blocks);
typedef void vn_blocks64_fn(uint64_t *state, const unsigned char *data, size_t blocks);

/* The architectures with kernels of their own. */
#if defined(__x86_64__)
#define VN_AMD64 1
#if defined(__ELF__) && !defined(_WIN32)
/* The System V ABI and ELF: what the kernels written in assembly assume. */
#define VN_AMD64_ASM 1
#endif
#elif defined(__aarch64__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define VN_ARM64 1
#elif defined(__riscv) && __riscv_xlen == 64
#define VN_RISCV64 1
#endif

/* The cores and the algorithms, numbered, and their tables (SHA-224 runs
 * the SHA-256 core; SHA-384, SHA-512/224 and SHA-512/256 the SHA-512 core):
 * generated from variants/_algorithms.py. The single-message cores hash one
 * message at a time (vn_blocks_fn kernels; the SHA-512 core's are
 * vn_blocks64_fn); the "many" cores hash several messages at once, one per
 * lane (vn_many_fn kernels; SHA-512's vn_many64_fn). */
#include "algorithms.h"

/* What an algorithm runs on: 64-bit words and 128-byte blocks (the SHA-512
 * core's), or 32-bit words and 64-byte blocks; its cores. */
static inline int vn_wide(int algorithm) {
    return (unsigned)algorithm < VN_ALGORITHMS && ((VN_WIDE_ALGORITHMS >> algorithm) & 1);
}
static inline int vn_block_size(int algorithm) { return VN_BLOCK_SIZE(vn_wide(algorithm)); }
static inline int vn_core_of(int algorithm) {
    static const unsigned char core[VN_ALGORITHMS] = VN_ALGORITHM_CORES;
    return core[algorithm];
}
static inline int vn_many_core_of(int algorithm) {
    static const unsigned char core[VN_ALGORITHMS] = VN_ALGORITHM_MANY_CORES;
    return core[algorithm];
}
/* The many core of a single-message core, and the other way round; whether
 * a core is a many core, and whether it has 64-bit words; its state's words. */
static inline int vn_many_core(int core) {
    static const unsigned char pair[VN_CORES] = VN_CORE_PAIRS;
    return pair[core];
}
static inline int vn_single_core(int many) { return vn_many_core(many); }
static inline int vn_core_is_many(int core) {
    return (unsigned)core < VN_CORES && ((VN_MANY_CORES >> core) & 1);
}
static inline int vn_core_is_wide(int core) {
    return (unsigned)core < VN_CORES && ((VN_WIDE_CORES >> core) & 1);
}
static inline int vn_core_state_words(int core) {
    static const unsigned char words[VN_CORES] = VN_CORE_STATE_WORDS;
    return words[core];
}

/* The lanes of a many-kernel: up to VN_MAX_LANES messages, each with its
 * chaining state and where its next blocks are. The state is stored word by
 * word across the lanes (state[j][i] is word j of lane i), so that a kernel
 * with vector lanes loads and stores each word of all its lanes with one
 * aligned vector move, and any kernel can continue a lane another one began.
 * The SHA-512 core's (vn_lanes64) have half as many lanes of twice the bytes:
 * the same size and layout of bytes. */
#define VN_MAX_LANES 32
typedef struct vn_lanes {
    _Alignas(64) uint32_t state[8][VN_MAX_LANES];
    const unsigned char *data[VN_MAX_LANES];
} vn_lanes;
#define VN_MAX_LANES64 16
typedef struct vn_lanes64 {
    _Alignas(64) uint64_t state[8][VN_MAX_LANES64];
    const unsigned char *data[VN_MAX_LANES64];
} vn_lanes64;

/* A many-kernel: runs `blocks` whole blocks in each of the lanes 0 ..
 * count-1 (count is at least 1 and at most the kernel's width), lane i
 * reading blocks whole blocks at data[i] (any alignment) and updating
 * state[.][i] (the words its core uses, as a kernel's). It reads nothing of
 * the lanes from count on (a kernel wider than count fills its idle vector
 * lanes with lane 0's data), writes no state outside them but may overwrite
 * the state of those idle lanes, and leaves data[] as it was. */
typedef void vn_many_fn(vn_lanes *lanes, int count, size_t blocks);
typedef void vn_many64_fn(vn_lanes64 *lanes, int count, size_t blocks);

/* A short kernel, beside a many-kernel of the same width: the digests of
 * exactly that many messages, each of `blocks` padded blocks (1: shorter
 * than VN_LENGTH_ROOM bytes, 56 or 112; 2: from there to a block), from the
 * IV `iv`, in one call with no lanes: message i's first block's bytes are
 * read at data[i] (all of them must be readable; those from lengths[i] on
 * are ignored), padded in registers, and its digest's first `size` bytes
 * (the algorithm's digest size: 16, 20, 28 or 32; the SHA-512 core's 28,
 * 32, 48 or 64) written to out[i]. No padded copy is stored and read back,
 * no state goes through memory. With lengths NULL, data[i] is the message's
 * `blocks` blocks padded already. */
typedef void vn_short_fn(const uint32_t *iv, int size, int blocks, const unsigned char *const *data,
                         const uint32_t *lengths, unsigned char *const *out);
typedef void vn_short64_fn(const uint64_t *iv, int size, int blocks, const unsigned char *const *data,
                           const uint32_t *lengths, unsigned char *const *out);

/* A kernel of either word width, as dispatch.c's record holds it and its
 * accessors (vn_kernel, vn_many_kernel, vn_short_kernel, ...) return it:
 * `wide` is its core's width (vn_core_is_wide: 64-bit words) and says which
 * member of `fn` is the function, words64 or words32 (NULL where the core
 * has no such kernel). One kind per type of kernel above. */
typedef union vn_blocks_any {
    vn_blocks_fn *words32;
    vn_blocks64_fn *words64;
} vn_blocks_any;
typedef union vn_many_any {
    vn_many_fn *words32;
    vn_many64_fn *words64;
} vn_many_any;
typedef union vn_short_any {
    vn_short_fn *words32;
    vn_short64_fn *words64;
} vn_short_any;
typedef struct vn_blocks_ref {
    int wide;
    vn_blocks_any fn;
} vn_blocks_ref;
typedef struct vn_many_ref {
    int wide;
    vn_many_any fn;
} vn_many_ref;
typedef struct vn_short_ref {
    int wide;
    vn_short_any fn;
} vn_short_ref;
/* Whether a kernel reference names a function (the member of its width is set). */
#define VN_REF_SET(ref) ((ref).wide ? (ref).fn.words64 != NULL : (ref).fn.words32 != NULL)

/* The padding of a short message as tables, for short kernels without
 * AVX-512's masks: byte j of block b (0 or 1) of a message of n <= 64 bytes
 * is its own byte (there is one only in block 0) & vn_short_keep[s + j],
 * | vn_short_end[s + j], with s = vn_short_at(n, b): keep is 0xff before
 * index 128 and 0 from there, end has its 0x80 at 128, so each lane's bytes
 * past its message are masked out and the 0x80 put after them with two
 * loads and two instructions a row, before the transpose. (The length in
 * bits, in the last block's last two words, is put in by the kernel.)
 * Defined in padding.c. */
extern const unsigned char vn_short_keep[256];
extern const unsigned char vn_short_end[256];
static inline size_t vn_short_at(uint32_t n, int block) { return 128 + 64 * (size_t)block - n; }

/* The round constants shared by each core's kernels (FIPS 180-4, 4.2.2 and
 * 4.2.3; MD5's and SHA-1's are immediates, constants.h's). */
extern const uint32_t vn_sha256_k[64];
extern const uint64_t vn_sha512_k[80];

/* The kernels, core by core: the portable ones everywhere, the others only
 * where their architecture is the target (a name declared here may not be
 * built yet). */
vn_blocks_fn vn_md5_generic;
vn_blocks_fn vn_sha256_generic;
vn_blocks_fn vn_sha1_generic;
vn_blocks64_fn vn_sha512_generic;
#if defined(VN_AMD64)
vn_blocks_fn vn_md5_amd64;
vn_blocks_fn vn_sha256_amd64_shani;
vn_blocks_fn vn_sha1_amd64_shani;
vn_blocks64_fn vn_sha512_amd64_avx2;
vn_blocks64_fn vn_sha512_amd64_asm; /* where VN_AMD64_ASM */
vn_blocks64_fn vn_sha512_amd64_sha512;
vn_many_fn vn_md5_many_avx2_x8;
vn_many_fn vn_md5_many_avx2_x16;
vn_many_fn vn_md5_many_avx512_x8;
vn_many_fn vn_md5_many_avx512_x16;
vn_many_fn vn_md5_many_avx512_x32;
vn_many_fn vn_sha256_many_shani_x2;
vn_many_fn vn_sha256_many_avx2_x8;
vn_many_fn vn_sha256_many_avx512_x8;
vn_many_fn vn_sha256_many_avx512_x16;
vn_many_fn vn_sha256_many_avx512_shani;
vn_many_fn vn_sha1_many_shani_x2;
vn_many_fn vn_sha1_many_avx2_x8;
vn_many_fn vn_sha1_many_avx512_x16;
vn_many_fn vn_sha1_many_avx512_shani;
vn_many64_fn vn_sha512_many_avx2_x4;
vn_many64_fn vn_sha512_many_avx512_x8;
vn_short_fn vn_md5_short_avx2_x8;
vn_short_fn vn_md5_short_avx2_x16;
vn_short_fn vn_md5_short_avx512_x8;
vn_short_fn vn_md5_short_avx512_x16;
vn_short_fn vn_md5_short_avx512_x32;
vn_short_fn vn_sha256_short_shani_x2;
vn_short_fn vn_sha256_short_avx2_x8;
vn_short_fn vn_sha256_short_avx512_x8;
vn_short_fn vn_sha256_short_avx512_x16;
vn_short_fn vn_sha1_short_shani_x2;
vn_short_fn vn_sha1_short_avx2_x8;
vn_short_fn vn_sha1_short_avx512_x16;
vn_short64_fn vn_sha512_short_avx2_x4;
vn_short64_fn vn_sha512_short_avx512_x8;
#elif defined(VN_ARM64)
vn_blocks_fn vn_md5_arm64;
vn_blocks_fn vn_sha256_arm64_sha2;
vn_blocks_fn vn_sha1_arm64_sha1;
vn_blocks64_fn vn_sha512_arm64_sha512;
vn_many_fn vn_md5_many_neon_x4;
vn_many_fn vn_md5_many_neon_x8;
vn_many_fn vn_sha256_many_sha2_x2;
vn_short_fn vn_md5_short_neon_x4;
vn_short_fn vn_md5_short_neon_x8;
vn_short_fn vn_sha256_short_sha2_x2;
#elif defined(VN_RISCV64)
vn_blocks_fn vn_md5_riscv64_zbb;
vn_blocks_fn vn_sha256_riscv64_zbb;
vn_blocks_fn vn_sha256_riscv64_zknh;
#endif

#endif
