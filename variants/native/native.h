/*
 * The native variant: MD5, SHA-256, SHA-1 and SHA-512 block functions
 * ("kernels") per architecture, chosen at run time, and the hash state
 * machine around them (SHA-224 runs SHA-256's; SHA-384, SHA-512/224 and
 * SHA-512/256 SHA-512's: 64-bit words, 128-byte blocks).
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
 *   sha256_many_lanes.h               the SHA-256 lane kernel body, likewise
 *   lanes_amd64.h                     x86-64: one block per lane, transposed into word vectors
 *   sha256_shani.h, sha256_sha2.h     the SHA-NI and SHA2 helpers both SHA-256 files of an arch use
 *   sha256_pairs.h                    the rounds of two interleaved streams, SHA-NI's and SHA2's
 *   sha1_*.c, sha512_*.c              SHA-1 and the SHA-512 core likewise: portable C, x86-64
 *   sha1_shani.h, sha512_avx2.h       (SHA-NI SHA-1, AVX2/BMI2 SHA-512) and their many-kernels
 *   sha512_amd64_asm.h                SHA-512 for x86-64 in assembly (tools/gen_sha512_amd64.py)
 *   sha512_amd64_sha512.c             SHA-512 with x86-64's SHA512 extension (and its C model)
 *   sha512_functions.h                SHA-512's functions on one word, for the scalar C kernels
 *   dispatch.c                        CPU features, the kernel tables, the choice
 *   hash.c                            the state machine: init, update with buffering, digest
 *   many.c                            the scheduler that keeps the lanes of a many-kernel full
 *   files.c                           small files read and hashed in lanes (plain C, threads)
 *   column.c                          whole columns (Arrow layouts, fixed-width rows) in lanes
 *   arrow_abi.h                       the Arrow C Data Interface's structs (a stable ABI)
 *   locked.c                          its objects behind a mutex, for the cffi bridge
 *   capi.c, capi_*.c                  the CPython C-API module (the native variant on CPython;
 *                                     capi.h is their map)
 *
 * Everything is built at the baseline ISA; only functions that use optional
 * instructions ask for them, with a per-function target attribute or inside
 * their own inline assembly, so that one set of compiler flags builds all files.
 */
#ifndef VARIANTS_NATIVE_H
#define VARIANTS_NATIVE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* A kernel: the chaining state after `blocks` whole 64-byte blocks at `data`
 * (which need not be aligned). MD5 uses state[0..3], SHA-256 state[0..7]. */
typedef void vn_blocks_fn(uint32_t *state, const unsigned char *data, size_t blocks);

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

/* The cores and the algorithms (SHA-224 runs the SHA-256 core; SHA-384,
 * SHA-512/224 and SHA-512/256 the SHA-512 core). The single-message cores
 * hash one message at a time (vn_blocks_fn kernels; the SHA-512 core's are
 * vn_blocks64_fn); the "many" cores hash several messages at once, one per
 * lane (vn_many_fn kernels; SHA-512's vn_many64_fn). */
enum {
    VN_CORE_MD5 = 0,
    VN_CORE_SHA256 = 1,
    VN_CORE_MD5_MANY = 2,
    VN_CORE_SHA256_MANY = 3,
    VN_CORE_SHA1 = 4,
    VN_CORE_SHA512 = 5,
    VN_CORE_SHA1_MANY = 6,
    VN_CORE_SHA512_MANY = 7,
    VN_CORES = 8
};
enum {
    VN_MD5 = 0,
    VN_SHA224 = 1,
    VN_SHA256 = 2,
    VN_SHA1 = 3,
    VN_SHA384 = 4,
    VN_SHA512 = 5,
    VN_SHA512_224 = 6,
    VN_SHA512_256 = 7,
    VN_ALGORITHMS = 8
};
/* The largest digest (SHA-512's) and block (the SHA-512 core's). */
#define VN_MAX_DIGEST 64
#define VN_MAX_BLOCK 128

/* What an algorithm runs on: the SHA-512 core's 64-bit words and 128-byte
 * blocks, or 32-bit words and 64-byte blocks; its cores; its digest's size. */
static inline int vn_wide(int algorithm) { return algorithm >= VN_SHA384; }
static inline int vn_block_size(int algorithm) { return vn_wide(algorithm) ? 128 : 64; }
static inline int vn_core_of(int algorithm) {
    static const unsigned char core[VN_ALGORITHMS] = {VN_CORE_MD5,    VN_CORE_SHA256, VN_CORE_SHA256,
                                                      VN_CORE_SHA1,   VN_CORE_SHA512, VN_CORE_SHA512,
                                                      VN_CORE_SHA512, VN_CORE_SHA512};
    return core[algorithm];
}
static inline int vn_many_core_of(int algorithm) {
    static const unsigned char core[VN_ALGORITHMS] = {
        VN_CORE_MD5_MANY,    VN_CORE_SHA256_MANY, VN_CORE_SHA256_MANY, VN_CORE_SHA1_MANY,
        VN_CORE_SHA512_MANY, VN_CORE_SHA512_MANY, VN_CORE_SHA512_MANY, VN_CORE_SHA512_MANY};
    return core[algorithm];
}
/* The many core of a single-message core, and the other way round (the
 * numbering above keeps them two apart, the many ones with bit 1 set). */
static inline int vn_many_core(int core) { return core + 2; }
static inline int vn_single_core(int many) { return many - 2; }
static inline int vn_core_is_many(int core) { return (core & 2) != 0; }
static inline int vn_core_is_wide(int core) {
    return core == VN_CORE_SHA512 || core == VN_CORE_SHA512_MANY;
}

/* The lanes of a many-kernel: up to VN_MAX_LANES messages, each with its
 * chaining state and where its next blocks are. The state is stored word by
 * word across the lanes (state[j][i] is word j of lane i), so that a kernel
 * with vector lanes loads and stores each word of all its lanes with one
 * aligned vector move, and any kernel can continue a lane another one began. */
#define VN_MAX_LANES 32
typedef struct vn_lanes {
    _Alignas(64) uint32_t state[8][VN_MAX_LANES];
    const unsigned char *data[VN_MAX_LANES];
} vn_lanes;

/* A many-kernel: runs `blocks` whole 64-byte blocks in each of the lanes
 * 0 .. count-1 (count is at least 1 and at most the kernel's width), lane i
 * reading 64 * blocks bytes at data[i] (any alignment) and updating
 * state[.][i]. It reads nothing of the lanes from count on (a kernel wider
 * than count fills its idle vector lanes with lane 0's data), writes no state
 * outside them but may overwrite the state of those idle lanes, and leaves
 * data[] as it was. MD5 uses state words 0..3, SHA-256 0..7. */
typedef void vn_many_fn(vn_lanes *lanes, int count, size_t blocks);

/* A short kernel, beside a many-kernel of the same width: the digests of
 * exactly that many messages, each of `blocks` padded blocks (1: shorter
 * than 56 bytes; 2: 56 to 64), from the IV `iv`, in one call with no lanes:
 * message i's first 64 bytes are read at data[i] (all of them must be
 * readable; those from lengths[i] on are ignored), padded in registers, and
 * its digest's first `size` bytes (16, 28 or 32) written to out[i]. No
 * padded copy is stored and read back, no state goes through memory. With
 * lengths NULL, data[i] is the message's `blocks` blocks padded already. */
typedef void vn_short_fn(const uint32_t *iv, int size, int blocks, const unsigned char *const *data,
                         const uint32_t *lengths, unsigned char *const *out);

/* The padding of a short message as tables, for short kernels without
 * AVX-512's masks: byte j of block b (0 or 1) of a message of n <= 64 bytes
 * is its own byte (there is one only in block 0) & vn_short_keep[s + j],
 * | vn_short_end[s + j], with s = vn_short_at(n, b): keep is 0xff before
 * index 128 and 0 from there, end has its 0x80 at 128, so each lane's bytes
 * past its message are masked out and the 0x80 put after them with two
 * loads and two instructions a row, before the transpose. (The length in
 * bits, in the last block's last two words, is put in by the kernel.) */
extern const unsigned char vn_short_keep[256];
extern const unsigned char vn_short_end[256];
static inline size_t vn_short_at(uint32_t n, int block) { return 128 + 64 * (size_t)block - n; }

/* The kernels. The generic ones exist everywhere; the others only where
 * their architecture is the target. */
vn_blocks_fn vn_md5_generic;
vn_blocks_fn vn_sha256_generic;
#if defined(VN_AMD64)
vn_blocks_fn vn_md5_amd64;
vn_blocks_fn vn_sha256_amd64_shani;
#elif defined(VN_ARM64)
vn_blocks_fn vn_md5_arm64;
vn_blocks_fn vn_sha256_arm64_sha2;
#elif defined(VN_RISCV64)
vn_blocks_fn vn_md5_riscv64_zbb;
vn_blocks_fn vn_sha256_riscv64_zbb;
vn_blocks_fn vn_sha256_riscv64_zknh;
#endif

/* The many-kernels (each also only where its architecture is the target). */
#if defined(VN_AMD64)
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
vn_short_fn vn_md5_short_avx2_x8;
vn_short_fn vn_md5_short_avx2_x16;
vn_short_fn vn_md5_short_avx512_x8;
vn_short_fn vn_md5_short_avx512_x16;
vn_short_fn vn_md5_short_avx512_x32;
vn_short_fn vn_sha256_short_shani_x2;
vn_short_fn vn_sha256_short_avx2_x8;
vn_short_fn vn_sha256_short_avx512_x8;
vn_short_fn vn_sha256_short_avx512_x16;
#elif defined(VN_ARM64)
vn_many_fn vn_md5_many_neon_x4;
vn_many_fn vn_md5_many_neon_x8;
vn_many_fn vn_sha256_many_sha2_x2;
vn_short_fn vn_md5_short_neon_x4;
vn_short_fn vn_md5_short_neon_x8;
vn_short_fn vn_sha256_short_sha2_x2;
#endif

/* SHA-256's round constants (FIPS 180-4, 4.2.2), shared by its kernels. */
extern const uint32_t vn_sha256_k[64];

/* ---- the rest of hashlib's SHA family: SHA-1 and the SHA-512 core ---------
 * SHA-1 runs on the 32-bit types above: vn_blocks_fn over 64-byte blocks with
 * state[0..4], vn_many_fn with state words 0..4, vn_short_fn with size 20.
 * The SHA-512 core (SHA-384, SHA-512, SHA-512/224, SHA-512/256) has 64-bit
 * words and 128-byte blocks, and its own kernel types, which mean what their
 * 32-bit namesakes above mean with those words and blocks: */
typedef void vn_blocks64_fn(uint64_t *state, const unsigned char *data, size_t blocks);
#define VN_MAX_LANES64 16
typedef struct vn_lanes64 {
    _Alignas(64) uint64_t state[8][VN_MAX_LANES64];
    const unsigned char *data[VN_MAX_LANES64];
} vn_lanes64;
typedef void vn_many64_fn(vn_lanes64 *lanes, int count, size_t blocks);
/* A SHA-512 short kernel: `blocks` is 1 (shorter than 112 bytes) or 2 (112
 * to 128); message i's first 128 bytes are read at data[i]; `size` is 28, 32,
 * 48 or 64. */
typedef void vn_short64_fn(const uint64_t *iv, int size, int blocks, const unsigned char *const *data,
                           const uint32_t *lengths, unsigned char *const *out);

/* SHA-512's round constants (FIPS 180-4, 4.2.3), shared by its kernels. */
extern const uint64_t vn_sha512_k[80];

/* Their kernels: the portable ones everywhere, the others only where their
 * architecture is the target (a name declared here may not be built yet). */
vn_blocks_fn vn_sha1_generic;
vn_blocks64_fn vn_sha512_generic;
#if defined(VN_AMD64)
vn_blocks_fn vn_sha1_amd64_shani;
vn_blocks64_fn vn_sha512_amd64_avx2;
vn_blocks64_fn vn_sha512_amd64_asm; /* where VN_AMD64_ASM */
vn_blocks64_fn vn_sha512_amd64_sha512;
vn_many_fn vn_sha1_many_shani_x2;
vn_many_fn vn_sha1_many_avx2_x8;
vn_many_fn vn_sha1_many_avx512_x16;
vn_many_fn vn_sha1_many_avx512_shani;
vn_short_fn vn_sha1_short_shani_x2;
vn_short_fn vn_sha1_short_avx2_x8;
vn_short_fn vn_sha1_short_avx512_x16;
vn_many64_fn vn_sha512_many_avx2_x4;
vn_many64_fn vn_sha512_many_avx512_x8;
vn_short64_fn vn_sha512_short_avx2_x4;
vn_short64_fn vn_sha512_short_avx512_x8;
#elif defined(VN_ARM64)
vn_blocks_fn vn_sha1_arm64_sha1;
vn_blocks64_fn vn_sha512_arm64_sha512;
#endif

/* ---- dispatch.c ---------------------------------------------------------- */

/* Detect the CPU's features and choose each core's kernel: the fastest one
 * the CPU can run, or the portable one if the environment variable
 * VARIANTS_NATIVE_PORTABLE is set (to anything but "" or "0"). Then the
 * environment variable VARIANTS_NATIVE_KERNELS, a comma-separated list of
 * core=id (core: md5, sha256, md5-many, sha256-many, sha1, sha512, sha1-many,
 * sha512-many; id: vn_kernel_id),
 * forces the cores it names. Call it before hashing (until then every core
 * runs its portable kernel); calling it again chooses again (objects already
 * started keep their kernel). */
void vn_setup(void);
/* What vn_setup could not do: a VARIANTS_NATIVE_KERNELS entry with an unknown
 * core or kernel id, or naming a kernel this CPU cannot run (that core keeps
 * its usual choice). NULL when there was no problem. */
const char *vn_setup_problem(void);
/* The kernels compiled in for a core, portable (index 0) first: how many
 * there are, their display names and short ids, whether this CPU can run
 * them, and which one vn_setup chose. vn_kernel_find is the index of an id
 * (-1 if the core has no such kernel). */
int vn_kernel_count(int core);
const char *vn_kernel_name(int core, int index);
const char *vn_kernel_id(int core, int index);
int vn_kernel_find(int core, const char *id);
int vn_kernel_usable(int core, int index);
int vn_kernel_chosen(int core);
/* Kernel `index` of a single-message core (NULL if there is none, or if
 * `core` is a many core), and the chosen one; the 64-bit ones for the SHA-512 core. */
vn_blocks_fn *vn_kernel(int core, int index);
vn_blocks_fn *vn_chosen(int core);
vn_blocks64_fn *vn_kernel64(int core, int index);
vn_blocks64_fn *vn_chosen64(int core);
/* Run kernel `index` of a single-message core (the chosen one if index < 0)
 * over `blocks` whole blocks: the block benchmark and the tests use it.
 * Returns 0, or -1 (doing nothing) if there is no such kernel, this CPU
 * cannot run it, or `core` is a many core (see vn_digest_many_with). */
int vn_compress(int core, int index, uint32_t *state, const char *data, size_t blocks);
/* The same for the SHA-512 core, over whole 128-byte blocks (vn_compress
 * refuses it, and this every other core). */
int vn_compress64(int core, int index, uint64_t *state, const char *data, size_t blocks);
/* A many core's kernel `index`: its function (NULL for the portable one,
 * which hashes one message at a time with the chosen single-message kernel),
 * how many messages it takes at once (1 for single-message cores), and the
 * index of the narrower kernel the scheduler hands the last messages to when
 * there are too few left to fill it (-1: none; then, for one message, the
 * chosen single-message kernel). */
vn_many_fn *vn_many_kernel(int core, int index);
vn_many64_fn *vn_many64_kernel(int core, int index);
/* The short kernel beside many-kernel `index` of `core`, or NULL. */
vn_short_fn *vn_short_kernel(int core, int index);
vn_short64_fn *vn_short64_kernel(int core, int index);
/* Whether many-kernel `index` of `core` has lanes (a vn_many_fn or vn_many64_fn). */
int vn_kernel_has_lanes(int core, int index);
/* Whether kernel `index` of `core` has run in this process: every place that
 * calls a kernel notes it (vn_note), so that the tests can prove that every
 * kernel this CPU can run was run. The flag of a kernel, and of the
 * single-message kernel `blocks` of `core` (NULL if there is none). */
int vn_kernel_ran(int core, int index);
unsigned char *vn_ran_flag(int core, int index);
unsigned char *vn_ran_flag_of(int core, vn_blocks_fn *blocks);
unsigned char *vn_ran_flag_of64(int core, vn_blocks64_fn *blocks);
/* Set a kernel's flag: a load, and a store only the first time, so that
 * threads calling the same kernel do not pass its cache line to and fro. */
static inline void vn_note(unsigned char *flag) {
    if (flag && !__atomic_load_n(flag, __ATOMIC_RELAXED)) __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}
int vn_kernel_lanes(int core, int index);
int vn_kernel_narrower(int core, int index);

/* ---- hash.c -------------------------------------------------------------- */

/* The state of one message being hashed. It has no lock: each bridge keeps
 * its objects' states safe from several threads in its own way (the C-API
 * type with the interpreter's locks, the cffi bridge with vn_hash below).
 * A plain struct copy is a copy of the hash. */
typedef struct vn_state {
    union { /* the chaining state: 32-bit words, or the SHA-512 core's 64-bit ones */
        uint32_t state[8];
        uint64_t state64[8];
    };
    uint64_t length; /* bytes hashed so far, mod 2**64; length % block size are buffered */
    unsigned char buffer[VN_MAX_BLOCK];
    union {
        vn_blocks_fn *blocks;
        vn_blocks64_fn *blocks64; /* the SHA-512 core's */
    };
    unsigned char *ran; /* its kernel's flag (vn_note) */
    int algorithm;
} vn_state;

/* Start `s` as `algorithm` with kernel `blocks` (NULL: the one vn_setup chose;
 * for the SHA-512 core's algorithms a vn_blocks64_fn, cast). */
void vn_init(vn_state *s, int algorithm, vn_blocks_fn *blocks);
/* Hash `length` more bytes. */
void vn_absorb(vn_state *s, const unsigned char *data, size_t length);
/* Write the digest of everything so far to `out` (vn_digest_size bytes); `s`
 * is not changed. Returns the digest size. */
int vn_final(const vn_state *s, unsigned char *out);
/* The digest of the `length` bytes at `data` as one message, written to
 * `out`, with the chosen kernel and no object. Returns the digest size. */
int vn_oneshot(int algorithm, const char *data, size_t length, char *out);
/* The digest size of an algorithm. */
int vn_digest_size(int algorithm);
/* `size` bytes at `in` as 2 * size lowercase hexadecimal digits at `out`
 * (no NUL), by a table: every hexdigest of both bridges. */
void vn_hex(const unsigned char *in, size_t size, char *out);
/* The same for `count` digests of `size` bytes one after another, to
 * 2 * size * count digits: a column's, stored past the cache where it can. */
void vn_hex_many(const unsigned char *in, size_t size, size_t count, char *out);

/* ---- many.c: many messages at once --------------------------------------- */

/* The most threads one call of vn_digest_many uses (more asked for: this many). */
#define VN_MANY_MAX_THREADS 64

/* The digests of `count` whole messages of `algorithm` (VN_MD5 ..
 * VN_SHA512_256): message i is lengths[i] bytes at data[i]; its digest goes to
 * out + i * vn_digest_size(algorithm). `threads` > 1 splits the work over that
 * many threads (pthreads), balanced by bytes; the result is identical
 * whatever `threads` is. Runs the many-kernel vn_setup chose. */
void vn_digest_many(int algorithm, size_t count, const unsigned char *const *data,
                    const size_t *lengths, unsigned char *out, int threads);
/* Continue `count` independent hash states (all of one core: MD5, SHA-1,
 * SHA-224/SHA-256, or the SHA-512 core's; no state twice), state i absorbing lengths[i] bytes at
 * data[i], exactly as vn_absorb(states[i], data[i], lengths[i]) would, but
 * through the lanes: the streaming form (several files at once). */
void vn_absorb_many(vn_state *const *states, size_t count, const unsigned char *const *data,
                    const size_t *lengths);
/* The same with many-kernel `index` of the algorithm's many core (the chosen
 * one if index < 0), for tests and benchmarks. Return 0, or -1 (doing
 * nothing) if there is no such kernel or this CPU cannot run it. */
int vn_digest_many_with(int index, int algorithm, size_t count, const unsigned char *const *data,
                        const size_t *lengths, unsigned char *out, int threads);
int vn_absorb_many_with(int index, vn_state *const *states, size_t count,
                        const unsigned char *const *data, const size_t *lengths);
/* Whether many-kernel `index` of the algorithm's many core (the chosen one
 * if index < 0) has lanes: 1, 0 for the portable one (one message after
 * another), -1 if there is no such kernel or this CPU cannot run it. */
int vn_many_lanes(int index, int algorithm);
/* The digests of `count` messages padded already (padding.h's pad), each
 * `blocks` (1 or 2) blocks at padded + vn_block_size(algorithm) * blocks * i, all from the IV, in
 * the lanes of many-kernel `index` (which must have lanes: vn_many_lanes):
 * message i's digest to out[job[i]]. Short
 * messages copied into place while their objects could be read (the batch
 * API's): no pointer to them is needed after. Return 0, -1 (doing nothing)
 * for a kernel without lanes, -2 without memory. */
int vn_digest_padded_with(int index, int algorithm, size_t blocks, size_t count,
                          const unsigned char *padded, const size_t *job,
                          unsigned char *const *out);

/* ---- files.c: small files, read and hashed ------------------------------- */

/* The most threads vn_digest_files reads on, and the bytes of small files
 * each of them reads before their digests are taken in one batch (also the
 * largest `small`). */
#define VN_FILES_MAX_THREADS 8
#define VN_FILES_BATCH_BYTES (8u << 20)
/* For each of the `count` file names: status[i] = 0 and its digest at
 * out + i * vn_digest_size(algorithm) if it is a regular file of at most
 * `small` bytes (read whole, the digests taken in lanes), an errno (> 0) if
 * it could not be opened or read, -1 if it is not a regular file or is
 * larger (for the caller to stream). The names in `threads` contiguous parts
 * (1 .. VN_FILES_MAX_THREADS), each on a thread of its own. Returns 0, or
 * ENOMEM having done nothing if it could not allocate. */
int vn_digest_files(int algorithm, size_t count, const char *const *names, size_t small,
                    int threads, int *status, unsigned char *out);

/* ---- column.c: whole columns ---------------------------------------------- */

/* The rows of a column, read where they are. Row i (0 .. count-1) is
 * element first + i of the buffers (Arrow's offset), null if `validity` is
 * not NULL and its bit first + i is clear (least significant bit first). */
enum {
    VN_ROWS_FIXED = 0,    /* rows of `width` bytes one after another at data */
    VN_ROWS_PADDED = 1,   /* the same, each without its trailing NUL bytes (NumPy's S) */
    VN_ROWS_OFFSETS32 = 2, /* Arrow binary/string: row i is data[offsets[i] .. offsets[i+1]) */
    VN_ROWS_OFFSETS64 = 3, /* large_binary/large_string: the same with int64 offsets */
    VN_ROWS_VIEWS = 4     /* binary_view/string_view: 16-byte views into `buffers` */
};
typedef struct vn_rows {
    int layout;
    size_t count, first;
    const unsigned char *validity;
    const void *index; /* the int32 or int64 offsets, or the views */
    const unsigned char *data;
    const unsigned char *const *buffers; /* views: the data buffers */
    size_t buffer_count;
    size_t width; /* fixed and padded rows: their size */
} vn_rows;

struct ArrowSchema;
struct ArrowArray;
/* `rows` from an Arrow array of one of the layouts above (formats z, Z, u, U,
 * vz, vu, w:N) and its schema, checked before any hashing: its buffers, that
 * its offsets never decrease, that its views stay inside their buffers.
 * Returns NULL, or what is wrong (a static string). */
const char *vn_rows_from_arrow(vn_rows *rows, const struct ArrowSchema *schema,
                               const struct ArrowArray *array);
/* Row i's bytes (not for a null row), and their number in *length. */
const unsigned char *vn_row(const vn_rows *rows, size_t i, size_t *length);
/* Whether an Arrow format is one vn_rows_from_arrow takes. */
int vn_arrow_format_ok(const char *format);
/* The digests of the rows: row i's at out + i * width, in binary (width is the
 * digest size) or, if `hex`, in hexadecimal digits (twice that); a null row's
 * bytes are zeros. `threads` > 1 splits the rows over that many threads by
 * their bytes. Returns 0, or -1 (having written nothing) without memory. */
int vn_digest_rows(int algorithm, const vn_rows *rows, int hex, int threads, unsigned char *out);
/* Copy the rows' validity to bits start .. start+count-1 of `bits` (which
 * has them all set to begin with); the number of null rows. */
size_t vn_rows_validity(const vn_rows *rows, unsigned char *bits, size_t start);

/* ---- locked.c: the cffi bridge's objects --------------------------------- */

/* A state with a mutex: cffi releases the GIL around every call, so two
 * threads can be in here with the same object, and hashlib promises that
 * their updates do not mix. Python frees the memory without
 * pthread_mutex_destroy: a default mutex that is not held owns nothing on
 * Linux (glibc and musl). */
typedef struct vn_hash {
    vn_state s;
    pthread_mutex_t lock;
} vn_hash;

/* Start `h` (fresh memory) as `algorithm` and hash `length` bytes of `data`:
 * construction with data in one call. No lock is taken: `h` is not shared yet. */
void vn_start(vn_hash *h, int algorithm, const char *data, size_t length);
/* Hash `length` more bytes. */
void vn_update(vn_hash *h, const char *data, size_t length);
/* Write the digest of everything so far to `out`; `h` stays usable.
 * Returns the digest size. */
int vn_digest(vn_hash *h, char *out);
/* Make `dst` (fresh memory) an independent copy of `src`. */
void vn_copy(vn_hash *dst, vn_hash *src);
/* vn_update(hashes[i], data[i], lengths[i]) for every i, through the lanes of
 * vn_absorb_many (the objects distinct, of one core), each object locked for
 * the whole call. Returns 0, or -1 (doing nothing) if it could not allocate. */
int vn_update_many(vn_hash *const *hashes, size_t count, const unsigned char *const *data,
                   const size_t *lengths);

#endif
