/*
 * The native variant: MD5 and SHA-256 block functions ("kernels") per
 * architecture, chosen at run time, and the hash state machine around them.
 *
 * Layout, in the spirit of Go's crypto/md5 (md5block_generic.go,
 * md5block_amd64.s, ...): one file per architecture and algorithm.
 *
 *   md5_generic.c, sha256_generic.c   portable C, the fallback everywhere
 *   md5_amd64.c, sha256_amd64.c       x86-64: scalar MD5, SHA-256 with SHA-NI
 *   md5_arm64.c, sha256_arm64.c       AArch64: scalar MD5, SHA-256 with SHA2
 *   md5_riscv64.c, sha256_riscv64.c   RISC-V 64: Zbb rotates, Zknh SHA-256
 *   dispatch.c                        CPU features, the kernel tables, the choice
 *   hash.c                            the state machine: init, update with buffering, digest
 *   locked.c                          its objects behind a mutex, for the cffi bridge
 *   capi.c                            the CPython C-API module (the native variant on CPython)
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
#elif defined(__aarch64__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define VN_ARM64 1
#elif defined(__riscv) && __riscv_xlen == 64
#define VN_RISCV64 1
#endif

/* The two cores and the three algorithms (SHA-224 runs the SHA-256 core). */
enum { VN_CORE_MD5 = 0, VN_CORE_SHA256 = 1, VN_CORES = 2 };
enum { VN_MD5 = 0, VN_SHA224 = 1, VN_SHA256 = 2 };

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

/* SHA-256's round constants (FIPS 180-4, 4.2.2), shared by its kernels. */
extern const uint32_t vn_sha256_k[64];

/* ---- dispatch.c ---------------------------------------------------------- */

/* Detect the CPU's features and choose each core's kernel: the fastest one
 * the CPU can run, or the portable one if the environment variable
 * VARIANTS_NATIVE_PORTABLE is set (to anything but "" or "0"). Call it
 * before hashing (until then every core runs its portable kernel); calling
 * it again chooses again (objects already started keep their kernel). */
void vn_setup(void);
/* The kernels compiled in for a core, portable (index 0) first: how many
 * there are, their names, whether this CPU can run them, and which one
 * vn_setup chose. */
int vn_kernel_count(int core);
const char *vn_kernel_name(int core, int index);
int vn_kernel_usable(int core, int index);
int vn_kernel_chosen(int core);
/* Kernel `index` of `core` (NULL if there is none), and the chosen one. */
vn_blocks_fn *vn_kernel(int core, int index);
vn_blocks_fn *vn_chosen(int core);
/* Run kernel `index` of `core` (the chosen one if index < 0) over `blocks`
 * whole blocks: the block benchmark and the tests use it. Returns 0, or -1
 * (doing nothing) if there is no such kernel or this CPU cannot run it. */
int vn_compress(int core, int index, uint32_t *state, const char *data, size_t blocks);

/* ---- hash.c -------------------------------------------------------------- */

/* The state of one message being hashed. It has no lock: each bridge keeps
 * its objects' states safe from several threads in its own way (the C-API
 * type with the interpreter's locks, the cffi bridge with vn_hash below).
 * A plain struct copy is a copy of the hash. */
typedef struct vn_state {
    uint32_t state[8];
    uint64_t length; /* bytes hashed so far, mod 2**64; length % 64 are buffered */
    unsigned char buffer[64];
    vn_blocks_fn *blocks;
    int algorithm;
} vn_state;

/* Start `s` as `algorithm` with kernel `blocks` (NULL: the one vn_setup chose). */
void vn_init(vn_state *s, int algorithm, vn_blocks_fn *blocks);
/* Hash `length` more bytes. */
void vn_absorb(vn_state *s, const unsigned char *data, size_t length);
/* Write the digest of everything so far to `out` (16, 28 or 32 bytes); `s`
 * is not changed. Returns the digest size. */
int vn_final(const vn_state *s, unsigned char *out);
/* The digest of the `length` bytes at `data` as one message, written to
 * `out`, with the chosen kernel and no object. Returns the digest size. */
int vn_oneshot(int algorithm, const char *data, size_t length, char *out);
/* The digest size of an algorithm. */
int vn_digest_size(int algorithm);

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

#endif
