/*
 * Test driver for the native kernels, built with the sources of
 * variants/native for each architecture and run natively or under qemu-user
 * (see run.py). It takes every core's kernels from dispatch's tables, so a
 * kernel added there is tested here with nothing to add, and checks, on
 * whatever CPU it finds itself:
 *
 *   - the kernels dispatch chose, against what the caller expects
 *     (--expect md5=NAME --expect sha256=NAME, and so on for every core),
 *     and that the kernels the caller names run here (--require core=ID:
 *     a CPU model missing an extension cannot pass by testing less) or are
 *     refused (--unusable core=ID);
 *   - the standard vectors (RFC 1321; FIPS 180-4 examples, including one
 *     million 'a') through every kernel this CPU can run: MD5, SHA-1,
 *     SHA-224, SHA-256 and the SHA-512 core's four algorithms;
 *   - every kernel against the portable one: whole messages of every length
 *     up to 1100 bytes at several misalignments, the same messages in two
 *     pieces, copies, the one-shot digest (which runs the chosen kernel) and
 *     the block functions alone (1 to 40 blocks, from random states);
 *   - every many-kernel this CPU can run (vn_digest_many_with,
 *     vn_absorb_many_with), against the portable single-message kernel:
 *     batches of 0, 1, lanes-1, lanes, lanes+1 and 1000 messages of mixed
 *     lengths up to 300 bytes, of equal lengths, of random lengths up to
 *     1 MiB, short messages streaming past a long one, any alignment, split
 *     over threads; states starting mid-block absorbing random chunks;
 *   - each many-kernel's lanes called directly (every count up to its
 *     width; the lanes past the count unread and, past its width, not
 *     written) and its short kernel (every length to a block, in place,
 *     padded already and at a page's end; nothing written past a digest);
 *   - every usable kernel, single-message and many, against the digests
 *     Python's hashlib made (--expected FILE, written by run.py);
 *   - VARIANTS_NATIVE_KERNELS: forcing, and the problems it reports (without
 *     the variables none, or --setup-problem TEXT: the SHA512 model built
 *     one bit off, whose kernel dispatch verifies and refuses).
 *
 * --expect core=KERNEL takes a kernel's display name or its id.
 * Exit status 0 when everything agrees; each failure is printed.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#define _DEFAULT_SOURCE         /* MAP_ANONYMOUS */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32) /* MinGW-w64, run under Wine (tests/cross/run.py) */
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "dispatch.h"
#include "environment.h"
#include "many.h"
#include "padding.h"

/* Two pages, the second unreadable, so that a read past the first's end crashes; NULL if the
 * system refuses. `page` is set to the page size. */
#if defined(_WIN32)
static unsigned char *guarded_pages(size_t *page) {
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    *page = info.dwPageSize;
    unsigned char *pages = VirtualAlloc(NULL, 2 * *page, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    DWORD before;
    if (pages && !VirtualProtect(pages + *page, *page, PAGE_NOACCESS, &before)) return NULL;
    return pages;
}
static void free_pages(unsigned char *pages, size_t page) {
    (void)page;
    VirtualFree(pages, 0, MEM_RELEASE);
}
/* The C library's environment, which getenv (dispatch.c's) reads; "" removes a variable. */
static int setenv(const char *name, const char *value, int overwrite) {
    (void)overwrite;
    return _putenv_s(name, value);
}
static int unsetenv(const char *name) { return _putenv_s(name, ""); }
#else
static unsigned char *guarded_pages(size_t *page) {
    *page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *pages =
        mmap(NULL, 2 * *page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED || mprotect(pages + *page, *page, PROT_NONE)) return NULL;
    return pages;
}
static void free_pages(unsigned char *pages, size_t page) { munmap(pages, 2 * page); }
#endif

/* xorshift64*: the same numbers on every machine. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t below(size_t n) { return n ? (size_t)(rng() % n) : 0; }

#define POOL_SIZE ((size_t)3 << 20)
static unsigned char *pool; /* random bytes the messages are cut from */

#define MAX_LENGTH 1100
#define BLOCKS_ALONE 40 /* the most blocks the block functions are given alone */
static const size_t alignments[] = {0, 1, 2, 3, 5, 7, 8, 13};
#define ALIGNMENTS (sizeof alignments / sizeof alignments[0])

static int failures, checks;

/* The algorithms' names by number (native.h: VN_MD5 ...) and the cores' (VN_CORE_MD5 ...):
 * algorithms.h's, generated from variants/_algorithms.py. */
#define ALGORITHM_NAME(name, number) [number] = #name,
static const char *const algorithm_names[VN_ALGORITHMS] = {VN_FOR_EACH_ALGORITHM(ALGORITHM_NAME)};
static const char *const core_names[VN_CORES] = VN_CORE_NAMES;

/* The algorithms a single-message core runs: how many, into out[]. */
static int algorithms_of(int core, int out[VN_ALGORITHMS]) {
    int n = 0;
    for (int a = 0; a < VN_ALGORITHMS; a++) {
        if (vn_core_of(a) == core) out[n++] = a;
    }
    return n;
}


static void check(int ok, const char *what, const char *kernel, int algorithm, size_t length,
                  size_t offset) {
    const char *const *names = algorithm_names;
    checks++;
    if (ok) return;
    failures++;
    if (failures <= 20) {
        printf("FAIL %s: %s with kernel %s, length %zu, offset %zu\n", what, names[algorithm],
               kernel, length, offset);
    }
}

static void hex(const unsigned char *digest, int size, char *out) {
    for (int i = 0; i < size; i++) sprintf(out + 2 * i, "%02x", digest[i]);
}

/* The digest of `length` bytes at `data`, with kernel `blocks`. */
static int digest_with(int algorithm, vn_blocks_ref blocks, const unsigned char *data,
                       size_t length, unsigned char *out) {
    vn_state s;
    vn_init(&s, algorithm, &blocks);
    vn_absorb(&s, data, length);
    return vn_final(&s, out);
}

/* ---- standard vectors --------------------------------------------------- */

struct vector {
    int algorithm;
    const char *message; /* NULL: one million 'a' */
    const char *digest;
};

static const char abc448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char abc896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                             "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

static const struct vector vectors[] = {
    /* RFC 1321, appendix A.5 */
    {VN_MD5, "", "d41d8cd98f00b204e9800998ecf8427e"},
    {VN_MD5, "a", "0cc175b9c0f1b6a831c399e269772661"},
    {VN_MD5, "abc", "900150983cd24fb0d6963f7d28e17f72"},
    {VN_MD5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
    {VN_MD5, "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
    {VN_MD5, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
     "d174ab98d277d9f5a5611c2c9f419d9f"},
    {VN_MD5, "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
     "57edf4a22be3c955ac49da2e2107b67a"},
    {VN_MD5, NULL, "7707d6ae4e027c70eea2a935c2296f21"},
    /* FIPS 180-4 examples (NIST CSRC) */
    {VN_SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {VN_SHA256, abc448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {VN_SHA256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {VN_SHA256, NULL, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    {VN_SHA224, "abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
    {VN_SHA224, abc448, "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"},
    {VN_SHA224, "", "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"},
    {VN_SHA224, NULL, "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"},
    {VN_SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {VN_SHA1, abc448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
    {VN_SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
    {VN_SHA1, NULL, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
    {VN_SHA512, "abc",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
    {VN_SHA512, abc896,
     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
     "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
    {VN_SHA512, "",
     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
    {VN_SHA512, NULL,
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
     "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
    {VN_SHA384, "abc",
     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
     "8086072ba1e7cc2358baeca134c825a7"},
    {VN_SHA384, abc896,
     "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
     "fcc7c71a557e2db966c3e9fa91746039"},
    {VN_SHA384, "",
     "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
     "274edebfe76f65fbd51ad2f14898b95b"},
    {VN_SHA384, NULL,
     "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
     "07b8b3dc38ecc4ebae97ddd87f3d8985"},
    {VN_SHA512_224, "abc", "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"},
    {VN_SHA512_224, abc896, "23fec5bb94d60b23308192640b0c453335d664734fe40e7268674af9"},
    {VN_SHA512_256, "abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"},
    {VN_SHA512_256, abc896, "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a"},
};

static void check_vectors(int core, int index, const unsigned char *million) {
    const vn_blocks_ref blocks = vn_kernel(core, index);
    const char *name = vn_kernel_name(core, index);
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        const struct vector *vec = &vectors[v];
        if (vn_core_of(vec->algorithm) != core) continue;
        const unsigned char *message = vec->message ? (const unsigned char *)vec->message : million;
        const size_t length = vec->message ? strlen(vec->message) : 1000000;
        unsigned char digest[VN_MAX_DIGEST];
        char text[2 * VN_MAX_DIGEST + 1];
        hex(digest, digest_with(vec->algorithm, blocks, message, length, digest), text);
        check(strcmp(text, vec->digest) == 0, "standard vector", name, vec->algorithm, length, 0);
        if (vec->message) continue;
        /* the million again, in uneven pieces across block edges */
        vn_state h;
        vn_init(&h, vec->algorithm, &blocks);
        static const size_t pieces[] = {1, 63, 65, 1000, 4095, 4097, 123456};
        size_t fed = 0;
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            vn_absorb(&h, million + fed, pieces[p]);
            fed += pieces[p];
        }
        vn_absorb(&h, million + fed, length - fed);
        hex(digest, vn_final(&h, digest), text);
        check(strcmp(text, vec->digest) == 0, "standard vector in pieces", name, vec->algorithm,
              length, 0);
    }
}

/* ---- agreement with the portable kernel --------------------------------- */

static void check_agreement(int core, int index, const unsigned char *data) {
    const vn_blocks_ref blocks = vn_kernel(core, index), portable = vn_kernel(core, 0);
    const char *name = vn_kernel_name(core, index);
    int algorithms[VN_ALGORITHMS];
    const int count = algorithms_of(core, algorithms);
    for (int a = 0; a < count; a++) {
        const int algorithm = algorithms[a];
        for (size_t length = 0; length <= MAX_LENGTH; length++) {
            unsigned char expected[VN_MAX_DIGEST], got[VN_MAX_DIGEST];
            const int size = digest_with(algorithm, portable, data, length, expected);
            for (size_t k = 0; k < ALIGNMENTS; k++) {
                const size_t offset = alignments[k];
                /* the same bytes, moved to another alignment */
                unsigned char moved[MAX_LENGTH + 16];
                memcpy(moved + offset, data, length);
                digest_with(algorithm, blocks, moved + offset, length, got);
                check(memcmp(got, expected, (size_t)size) == 0, "one piece", name, algorithm,
                      length, offset);
            }
            if (index == vn_kernel_chosen(core)) { /* the one-shot digest runs the chosen kernel */
                for (size_t k = 0; k < ALIGNMENTS; k++) {
                    const size_t offset = alignments[k];
                    unsigned char moved[MAX_LENGTH + 16];
                    memcpy(moved + offset, data, length);
                    vn_oneshot(algorithm, (const char *)moved + offset, length, (char *)got);
                    check(memcmp(got, expected, (size_t)size) == 0, "one shot", name, algorithm,
                          length, offset);
                }
            }
            /* two pieces, split where the length says, and a copy taken between them */
            const size_t cut = length ? (length * 7919) % (length + 1) : 0;
            vn_state h, c;
            vn_init(&h, algorithm, &blocks);
            vn_absorb(&h, data + 1, 0);
            vn_absorb(&h, data, cut);
            c = h;
            vn_final(&h, got); /* does not end the hash */
            vn_absorb(&h, data + cut, length - cut);
            vn_final(&h, got);
            check(memcmp(got, expected, (size_t)size) == 0, "two pieces", name, algorithm, length,
                  cut);
            vn_absorb(&c, data + cut, length - cut);
            vn_final(&c, got);
            check(memcmp(got, expected, (size_t)size) == 0, "copy", name, algorithm, length, cut);
        }
    }
    /* the block function alone, from random states, on 1 to BLOCKS_ALONE blocks */
    const size_t block = (size_t)vn_block_size(algorithms[0]);
    static unsigned char moved[BLOCKS_ALONE * VN_MAX_BLOCK + 16];
    for (size_t n = 1; n <= BLOCKS_ALONE; n++) {
        for (size_t k = 0; k < ALIGNMENTS; k++) {
            const size_t offset = alignments[k];
            memcpy(moved + offset, pool, block * n);
            /* the core's words, 32 or 64 bits (vn_compress takes either) */
            uint64_t expected[8], got[8];
            for (int i = 0; i < 8; i++) expected[i] = got[i] = rng();
            vn_compress(core, 0, expected, (const char *)pool, n);
            vn_compress(core, index, got, (const char *)moved + offset, n);
            check(memcmp(got, expected, sizeof got) == 0, "block function", name, algorithms[0],
                  block * n, offset);
        }
    }
}

/* ---- many messages at once ------------------------------------------------ */

static void many_check(int ok, const char *what, int core, int index, int algorithm, size_t count,
                       size_t detail) {
    const char *const *names = algorithm_names;
    checks++;
    if (ok) return;
    failures++;
    if (failures <= 20) {
        printf("FAIL %s: %s with %s kernel %s, %zu messages (%zu)\n", what, names[algorithm],
               core_names[core], vn_kernel_id(core, index), count, detail);
    }
}

/* Digest `count` messages at `data` with many-kernel `index` over `threads`,
 * and check each against the portable kernel. */
static void check_messages(int core, int index, int algorithm, const unsigned char **data,
                           const size_t *lengths, size_t count, int threads, const char *what) {
    const size_t size = (size_t)vn_digest_size(algorithm);
    unsigned char *out = malloc((count + 1) * size), expected[VN_MAX_DIGEST];
    if (!out) exit(2);
    memset(out, 0xa5, (count + 1) * size);
    const int status = vn_digest_many_with(index, algorithm, count, data, lengths, out, threads);
    many_check(status == 0, what, core, index, algorithm, count, (size_t)threads);
    const vn_blocks_ref portable = vn_kernel(vn_core_of(algorithm), 0);
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++) {
        digest_with(algorithm, portable, data[i], lengths[i], expected);
        if (memcmp(out + i * size, expected, size) != 0 && !wrong++) {
            many_check(0, what, core, index, algorithm, count, i);
        }
    }
    /* nothing written past the last digest */
    size_t past = 0;
    for (size_t j = 0; j < size; j++) past += out[count * size + j] != 0xa5;
    many_check(wrong == 0 && past == 0, what, core, index, algorithm, count, wrong);
    free(out);
}

/* The same, the messages cut from the pool at random places. */
static void check_batch(int core, int index, int algorithm, const size_t *lengths, size_t count,
                        int threads, const char *what) {
    const unsigned char **data = malloc((count + 1) * sizeof *data);
    if (!data) exit(2);
    for (size_t i = 0; i < count; i++) data[i] = pool + below(POOL_SIZE - lengths[i] + 1);
    check_messages(core, index, algorithm, data, lengths, count, threads, what);
    free(data);
}

/* Messages shorter than a block that end where a page ends, before one that
 * cannot be read: a kernel reading past them (a short kernel reads a whole
 * block where it may) would crash here. */
static void check_page_ends(int core, int index, int algorithm, size_t count) {
    const size_t block = (size_t)vn_block_size(algorithm);
    size_t page;
    unsigned char *pages = guarded_pages(&page);
    const unsigned char **data = malloc(count * sizeof *data);
    size_t *lengths = malloc(count * sizeof *lengths);
    if (!pages || !data || !lengths) exit(2);
    memcpy(pages, pool, page);
    for (size_t i = 0; i < count; i++) {
        lengths[i] = i % 3 ? below(block + 1) : i % (block + 1); /* every length, and random ones */
        data[i] = pages + page - lengths[i] - (i % 5 == 0 ? below(8) : 0);
    }
    check_messages(core, index, algorithm, data, lengths, count, 1, "at a page's end");
    free_pages(pages, page);
    free(data);
    free(lengths);
}

static void check_digests(int core, int index, int algorithm) {
    const size_t lanes = (size_t)vn_kernel_lanes(core, index);
    size_t counts[] = {0, 1, 2, lanes - 1, lanes, lanes + 1, 3 * lanes + 5, 1000};
    size_t *lengths = malloc(1000 * sizeof *lengths);
    if (!lengths) exit(2);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const size_t count = counts[c];
        for (size_t i = 0; i < count; i++) lengths[i] = below(301);
        check_batch(core, index, algorithm, lengths, count, 1, "mixed lengths up to 300");
    }
    /* equal lengths, around the padding's edges (of 64- and 128-byte blocks) */
    static const size_t equal[] = {0,   1,   32,  55,  56,  63,  64,  65,   111,  112,
                                   119, 120, 127, 128, 129, 239, 240, 256, 1000, 4096};
    for (size_t e = 0; e < sizeof equal / sizeof equal[0]; e++) {
        const size_t count = equal[e] == 32 ? 1000 : 2 * lanes + 3;
        for (size_t i = 0; i < count; i++) lengths[i] = equal[e];
        check_batch(core, index, algorithm, lengths, count, 1, "equal lengths");
    }
    /* random lengths up to 1 MiB */
    size_t count = lanes + 1 < 9 ? 9 : lanes + 1;
    for (size_t i = 0; i < count; i++) lengths[i] = below((1 << 20) + 1);
    check_batch(core, index, algorithm, lengths, count, 1, "random lengths up to 1 MiB");
    /* short messages (hundreds of padding batches) streaming past long ones */
    const size_t block = (size_t)vn_block_size(algorithm);
    for (size_t i = 0; i < 1000; i++) lengths[i] = below(block + 1);
    lengths[0] = 300000;
    lengths[3] = 150000;
    lengths[500] = 70000;
    check_batch(core, index, algorithm, lengths, 1000, 1, "short past long");
    check_page_ends(core, index, algorithm, 8 * lanes + 3);
    /* threads: the same digests whatever their number */
    for (int threads = 2; threads <= 5; threads += 3) {
        for (size_t i = 0; i < 100; i++) lengths[i] = below(65536);
        check_batch(core, index, algorithm, lengths, 100, threads, "threads");
    }
    free(lengths);
}

/* States that start mid-block absorb random chunks through the lanes, and
 * the same chunks one state at a time through the portable kernel. */
static void check_absorb(int core, int index, int algorithm) {
    const size_t lanes = (size_t)vn_kernel_lanes(core, index);
    const size_t counts[] = {1, 2, lanes - 1, lanes, lanes + 1, 100};
    const vn_blocks_ref portable = vn_kernel(vn_core_of(algorithm), 0);
    int algorithms[VN_ALGORITHMS];
    const int kinds = algorithms_of(vn_core_of(algorithm), algorithms);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const size_t count = counts[c];
        if (!count || (c && count == counts[c - 1])) continue;
        vn_state *test = malloc(count * sizeof *test), *ref = malloc(count * sizeof *ref);
        vn_state **order = malloc(count * sizeof *order);
        const unsigned char **data = malloc(count * sizeof *data);
        size_t *lengths = malloc(count * sizeof *lengths);
        if (!test || !ref || !order || !data || !lengths) exit(2);
        for (size_t i = 0; i < count; i++) {
            /* the algorithms of one core (SHA-224 and SHA-256; the SHA-512
             * core's four) share its lanes: mix them */
            const int a = algorithms[i % (size_t)kinds];
            vn_init(&ref[i], a, &portable);
            const size_t prefix = below(200);
            vn_absorb(&ref[i], pool + i, prefix);
            test[i] = ref[i];
            order[i] = &test[i];
        }
        /* the states in a shuffled order: the call takes any */
        for (size_t i = count; i > 1; i--) {
            const size_t j = below(i);
            vn_state *t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        for (int round = 0; round < 6; round++) {
            for (size_t i = 0; i < count; i++) {
                const size_t kind = below(10);
                lengths[i] = kind < 2   ? 0
                             : kind < 5 ? below(130)
                             : kind < 7 ? below(200)
                             : kind < 9 ? below(5000)
                                        : below(300000);
                data[i] = pool + below(POOL_SIZE - lengths[i] + 1);
            }
            const int status = vn_absorb_many_with(index, order, count, data, lengths);
            many_check(status == 0, "absorb", core, index, algorithm, count, (size_t)round);
            for (size_t i = 0; i < count; i++) {
                vn_absorb(&ref[order[i] - test], data[i], lengths[i]);
            }
        }
        size_t wrong = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned char expected[VN_MAX_DIGEST], got[VN_MAX_DIGEST];
            const int size = vn_final(&ref[i], expected);
            vn_final(&test[i], got);
            wrong += memcmp(got, expected, (size_t)size) != 0 || test[i].length != ref[i].length;
        }
        many_check(wrong == 0, "absorb", core, index, algorithm, count, wrong);
        free(test);
        free(ref);
        free(order);
        free(data);
        free(lengths);
    }
}

/* Either width's lanes (the same bytes, data[] at the same place), and word j of lane i. */
typedef union {
    vn_lanes words32;
    vn_lanes64 words64;
} any_lanes;

static uint64_t lane_word(const any_lanes *lanes, int wide, int j, int i) {
    return wide ? lanes->words64.state[j][i] : lanes->words32.state[j][i];
}

static const unsigned char **lane_data(any_lanes *lanes, int wide) {
    return wide ? lanes->words64.data : lanes->words32.data;
}

/* A many-kernel called directly (native.h: vn_many_fn, vn_many64_fn), against the portable
 * single-message kernel: every count of lanes up to its width, one to three blocks, from random
 * states, each lane's blocks anywhere in the pool (any alignment). The lanes from `count` on
 * have no data (NULL: reading it would crash); the kernel may overwrite the state of its idle
 * vector lanes (count to its width) but no state past its width, and leaves data[] as it was. */
static void check_lanes(int core, int index, int algorithm) {
    const vn_many_ref many = vn_many_kernel(core, index);
    const vn_blocks_ref portable = vn_kernel(vn_single_core(core), 0);
    const int wide = many.wide, width = vn_kernel_lanes(core, index);
    const int words = vn_core_state_words(core), most = wide ? VN_MAX_LANES64 : VN_MAX_LANES;
    const size_t block = (size_t)VN_BLOCK_SIZE(wide);
    static any_lanes lanes, before;
    const unsigned char **data = lane_data(&lanes, wide), **data_before = lane_data(&before, wide);
    for (int count = 1; count <= width; count++) {
        for (size_t blocks = 1; blocks <= 3; blocks++) {
            for (int j = 0; j < 8; j++) {
                for (int i = 0; i < most; i++) {
                    if (wide) {
                        lanes.words64.state[j][i] = rng();
                    } else {
                        lanes.words32.state[j][i] = (uint32_t)rng();
                    }
                }
            }
            for (int i = 0; i < most; i++) {
                data[i] = i < count ? pool + below(POOL_SIZE - block * blocks + 1) : NULL;
            }
            before = lanes;
            if (wide) {
                many.fn.words64(&lanes.words64, count, blocks);
            } else {
                many.fn.words32(&lanes.words32, count, blocks);
            }
            for (int i = 0; i < most; i++) {
                /* lane i's state after, and before then through the portable kernel */
                uint64_t expected[8], got[8];
                uint32_t narrow[8];
                for (int j = 0; j < 8; j++) {
                    expected[j] = lane_word(&before, wide, j, i);
                    got[j] = lane_word(&lanes, wide, j, i);
                    narrow[j] = (uint32_t)expected[j];
                }
                if (i < count && wide) portable.fn.words64(expected, data_before[i], blocks);
                if (i < count && !wide) {
                    portable.fn.words32(narrow, data_before[i], blocks);
                    for (int j = 0; j < 8; j++) expected[j] = narrow[j];
                }
                /* a lane's words its core uses; every word of those past the width */
                const size_t compared = sizeof expected[0] * (size_t)(i < width ? words : 8);
                const int same = memcmp(got, expected, compared) == 0 && data[i] == data_before[i];
                many_check(same || (i >= count && i < width), "lanes", core, index, algorithm,
                           (size_t)count, blocks * 100 + (size_t)i);
            }
        }
    }
}

/* Message `message` of `length` bytes (at most a block) padded: its one or two blocks, as a short
 * kernel takes them without lengths (pad() makes the last block or two; a message of a whole
 * block is that block, then one of padding). */
static void pad_short(int algorithm, const unsigned char *message, uint32_t length,
                      unsigned char *out) {
    const size_t block = (size_t)vn_block_size(algorithm), whole = length / block * block;
    memcpy(out, message, whole);
    pad(algorithm, message + whole, length, out + whole);
}

/* A short kernel called directly (native.h: vn_short_fn, vn_short64_fn), a
 * full width of messages at a time, against the portable kernel: every
 * length from 0 to a block (B: 64 bytes, the SHA-512 core's 128) read in
 * place, each lane of a call a different length of its class and a
 * different offset; every length to B padded already (one block below
 * VN_LENGTH_ROOM, 56 or 112 bytes, two from there on); and the B bytes read ending where a
 * page ends, before one that cannot be read. Nothing is written past a digest's size. */
static void check_short(int core, int index, int algorithm) {
    const vn_short_ref shorts = vn_short_kernel(core, index);
    const int lanes = vn_kernel_lanes(core, index);
    const size_t size = (size_t)vn_digest_size(algorithm);
    /* one block below `one` bytes (the length takes the last 8 of 64, 16 of 128) */
    const uint32_t block = (uint32_t)vn_block_size(algorithm);
    const uint32_t one = VN_LENGTH_ROOM(vn_wide(algorithm));
    size_t page;
    unsigned char *pages = guarded_pages(&page);
    if (!pages) exit(2);
    memcpy(pages, pool, page);
    const vn_blocks_ref portable = vn_kernel(vn_core_of(algorithm), 0);
    vn_state iv;
    vn_init(&iv, algorithm, &portable);
    static unsigned char padded[VN_MAX_LANES][2 * VN_MAX_BLOCK];
    static unsigned char out[VN_MAX_LANES][VN_MAX_DIGEST + 8];
    const unsigned char *data[VN_MAX_LANES];
    unsigned char *outs[VN_MAX_LANES];
    uint32_t lengths[VN_MAX_LANES];
    for (int i = 0; i < lanes; i++) outs[i] = out[i];
    /* kind 0: in place; 1: padded already; 2: in place, ending at the page's end */
    for (int kind = 0; kind < 3; kind++) {
        for (uint32_t first = 0; first <= block; first++) {
            const int blocks = first < one ? 1 : 2;
            for (int i = 0; i < lanes; i++) {
                /* lane i: a length of the same class, every one in turn */
                const uint32_t low = blocks == 1 ? 0 : one;
                const uint32_t span = blocks == 1 ? one : block - one + 1;
                lengths[i] = low + (first - low + (uint32_t)i * 7) % span;
                const unsigned char *message =
                    kind == 2 ? pages + page - block : pool + block * (size_t)i + first;
                data[i] = message;
                if (kind == 1) {
                    pad_short(algorithm, message, lengths[i], padded[i]);
                    data[i] = padded[i];
                }
                memset(out[i], 0xa5, sizeof out[i]);
            }
            if (shorts.wide) {
                shorts.fn.words64(iv.state64, (int)size, blocks, data, kind == 1 ? NULL : lengths,
                                  outs);
            } else {
                shorts.fn.words32(iv.state, (int)size, blocks, data, kind == 1 ? NULL : lengths,
                                  outs);
            }
            for (int i = 0; i < lanes; i++) {
                unsigned char expected[VN_MAX_DIGEST];
                const unsigned char *message =
                    kind == 1 ? pool + block * (size_t)i + first : data[i];
                digest_with(algorithm, portable, message, lengths[i], expected);
                size_t past = 0;
                for (size_t j = size; j < sizeof out[i]; j++) past += out[i][j] != 0xa5;
                many_check(memcmp(out[i], expected, size) == 0 && past == 0,
                           kind == 0   ? "short kernel, in place"
                           : kind == 1 ? "short kernel, padded already"
                                       : "short kernel, at a page's end",
                           core, index, algorithm, (size_t)lanes, lengths[i]);
            }
        }
    }
    free_pages(pages, page);
}

static void check_many(int core, int index) {
    int algorithms[VN_ALGORITHMS];
    const int count = algorithms_of(vn_single_core(core), algorithms);
    for (int a = 0; a < count; a++) check_digests(core, index, algorithms[a]);
    check_absorb(core, index, algorithms[0]);
    if (vn_kernel_has_lanes(core, index)) check_lanes(core, index, algorithms[0]);
    if (VN_REF_SET(vn_short_kernel(core, index))) {
        for (int a = 0; a < count; a++) check_short(core, index, algorithms[a]);
    }
    /* no kernel of that index, or no such algorithm */
    const unsigned char *none[1] = {pool};
    const size_t zero[1] = {0};
    unsigned char out[VN_MAX_DIGEST];
    many_check(vn_digest_many_with(vn_kernel_count(core), algorithms[0], 1, none, zero, out, 1) ==
                       -1 &&
                   vn_digest_many_with(index, VN_ALGORITHMS, 1, none, zero, out, 1) == -1,
               "refusals", core, index, algorithms[0], 1, 0);
}

/* ---- VARIANTS_NATIVE_KERNELS -------------------------------------------------- */

/* Whether vn_setup reports what it reported without the variables (`usual`), and no more. */
static int usual_problem(const char *usual) {
    const char *problem = vn_setup_problem();
    return strcmp(problem ? problem : "", usual) == 0;
}

/* VARIANTS_NATIVE_KERNELS and VARIANTS_NATIVE_PORTABLE. Without them vn_setup reports no problem,
 * or (--setup-problem TEXT) one that says TEXT: a kernel it verified and refused. */
static void check_forcing(const char *expected_problem) {
    const char *saved_kernels = getenv(VN_KERNELS_ENV);
    const char *saved_portable = getenv(VN_PORTABLE_ENV);
    char *kernels_copy = saved_kernels ? strdup(saved_kernels) : NULL;
    char *portable_copy = saved_portable ? strdup(saved_portable) : NULL;
    unsetenv(VN_PORTABLE_ENV);
    unsetenv(VN_KERNELS_ENV);
    vn_setup();
    int usual[VN_CORES];
    for (int core = 0; core < VN_CORES; core++) usual[core] = vn_kernel_chosen(core);
    char *const problem = strdup(vn_setup_problem() ? vn_setup_problem() : "");
    if (!problem) exit(2);
    checks++;
    if (expected_problem ? !strstr(problem, expected_problem) : *problem != 0) {
        failures++;
        printf("FAIL forcing: without the variables, the problem \"%s\" (expected: %s)\n",
               problem, expected_problem ? expected_problem : "none");
    }
    /* every usable kernel can be forced, with spaces around the entries */
    for (int core = 0; core < VN_CORES; core++) {
        for (int i = 0; i < vn_kernel_count(core); i++) {
            char list[200];
            snprintf(list, sizeof list, " %s = %s ,md5=portable", core_names[core],
                     vn_kernel_id(core, i));
            setenv(VN_KERNELS_ENV, list, 1);
            vn_setup();
            const int usable = vn_kernel_usable(core, i);
            const int want = usable ? i : usual[core];
            const int ok = vn_kernel_chosen(core) == (core == VN_CORE_MD5 ? 0 : want) &&
                           usual_problem(problem) == usable &&
                           vn_kernel_find(core, vn_kernel_id(core, i)) == i;
            checks++;
            if (!ok) {
                failures++;
                printf("FAIL forcing %s: chose %d, problem %s\n", list, vn_kernel_chosen(core),
                       vn_setup_problem() ? vn_setup_problem() : "none");
            }
        }
    }
    /* what is reported, and that the other entries still apply */
    static const char *bad[] = {"md5=nosuch,sha256-many=portable", "sha3=portable,sha256-many=portable",
                                "sha256-many=portable,md5", "sha256-many=portable,md5-many=shani"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        setenv(VN_KERNELS_ENV, bad[b], 1);
        vn_setup();
        checks++;
        if (usual_problem(problem) || vn_kernel_chosen(VN_CORE_SHA256_MANY) != 0 ||
            vn_kernel_chosen(VN_CORE_MD5) != usual[VN_CORE_MD5]) {
            failures++;
            printf("FAIL forcing %s: no problem reported or wrong choice\n", bad[b]);
        } else {
            printf("  (%s: %s)\n", bad[b], vn_setup_problem());
        }
    }
    /* PORTABLE first, then the list on top of it */
    setenv(VN_PORTABLE_ENV, "1", 1);
    setenv(VN_KERNELS_ENV, "md5-many=portable", 1);
    vn_setup();
    checks++;
    for (int core = 0; core < VN_CORES; core++) {
        if (vn_kernel_chosen(core) != 0) {
            failures++;
            printf("FAIL forcing: VARIANTS_NATIVE_PORTABLE left %s at %d\n", core_names[core],
                   vn_kernel_chosen(core));
        }
    }
    /* as it was */
    if (portable_copy) {
        setenv(VN_PORTABLE_ENV, portable_copy, 1);
    } else {
        unsetenv(VN_PORTABLE_ENV);
    }
    if (kernels_copy) {
        setenv(VN_KERNELS_ENV, kernels_copy, 1);
    } else {
        unsetenv(VN_KERNELS_ENV);
    }
    free(kernels_copy);
    free(portable_copy);
    free(problem);
    vn_setup();
}

/* ---- digests made by hashlib ------------------------------------------------ */

/* The bytes tests/cross/run.py hashes with hashlib: xorshift32 from SEED,
 * the top byte of each step (run.py makes the same). */
#define EXPECTED_SEED 0x2545f491u

static unsigned char *generated(size_t length) {
    unsigned char *bytes = malloc(length ? length : 1);
    uint32_t x = EXPECTED_SEED;
    for (size_t i = 0; bytes && i < length; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes[i] = (unsigned char)(x >> 24);
    }
    return bytes;
}

static void hex_of(const unsigned char *digest, size_t size, char *text) {
    for (size_t i = 0; i < size; i++) snprintf(text + 2 * i, 3, "%02x", digest[i]);
}

/* Every usable kernel, single-message and many, against the digests in `path`
 * (lines "ALGORITHM LENGTH HEX": the first LENGTH generated bytes), which
 * Python's hashlib made: an answer that shares nothing with this C. */
static void check_expected(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) {
        printf("FAIL expected: cannot read %s\n", path);
        failures++;
        return;
    }
    enum { MAX_LINES = 16384 };
    static int algorithms[MAX_LINES];
    static size_t lengths[MAX_LINES];
    static char hexes[MAX_LINES][2 * VN_MAX_DIGEST + 1];
    size_t lines = 0, longest = 0;
    while (lines < MAX_LINES &&
           fscanf(file, "%d %zu %128s", &algorithms[lines], &lengths[lines], hexes[lines]) == 3) {
        if (lengths[lines] > longest) longest = lengths[lines];
        lines++;
    }
    fclose(file);
    unsigned char *bytes = generated(longest);
    if (!bytes || !lines) {
        printf("FAIL expected: no digests in %s\n", path);
        failures++;
        free(bytes);
        return;
    }
    int compared = 0;
    for (int algorithm = 0; algorithm < VN_ALGORITHMS; algorithm++) {
        const size_t size = (size_t)vn_digest_size(algorithm);
        const int core = vn_core_of(algorithm), many = vn_many_core_of(algorithm);
        /* this algorithm's lines, as one batch for the many-kernels */
        const unsigned char **data = malloc(sizeof *data * lines);
        size_t *batch = malloc(sizeof *batch * lines), n = 0, *which = malloc(sizeof *which * lines);
        unsigned char *out = malloc(size * lines), digest[VN_MAX_DIGEST];
        char text[2 * VN_MAX_DIGEST + 1];
        for (size_t i = 0; data && batch && which && out && i < lines; i++) {
            if (algorithms[i] != algorithm) continue;
            data[n] = bytes;
            batch[n] = lengths[i];
            which[n++] = i;
        }
        for (int index = 0; out && index < vn_kernel_count(core); index++) {
            if (!vn_kernel_usable(core, index)) continue;
            for (size_t k = 0; k < n; k++) {
                hex_of(digest, (size_t)digest_with(algorithm, vn_kernel(core, index), bytes,
                                                   batch[k], digest), text);
                check(strcmp(text, hexes[which[k]]) == 0, "hashlib's digest",
                      vn_kernel_name(core, index), algorithm, batch[k], 0);
                compared++;
            }
        }
        for (int index = 0; out && index < vn_kernel_count(many); index++) {
            if (!vn_kernel_usable(many, index)) continue;
            vn_digest_many_with(index, algorithm, n, data, batch, out, 1);
            for (size_t k = 0; k < n; k++) {
                hex_of(out + k * size, size, text);
                check(strcmp(text, hexes[which[k]]) == 0, "hashlib's digest, many",
                      vn_kernel_name(many, index), algorithm, batch[k], 0);
                compared++;
            }
        }
        free(data);
        free(batch);
        free(which);
        free(out);
    }
    printf("  compared %d digests with hashlib's (%zu lengths)\n", compared, lines);
    free(bytes);
}

/* ---- main ----------------------------------------------------------------- */

/* The core and kernel that `text` names, "core=kernel" (the kernel by its id, or with `by_name`
 * by its display name too): 1, or 0 if there is no such core; *index is -1 without the kernel. */
static int kernel_named(const char *text, int by_name, int *core, int *index) {
    const char *eq = strchr(text, '=');
    *core = *index = -1;
    for (int c = 0; eq && c < VN_CORES; c++) {
        if (strlen(core_names[c]) == (size_t)(eq - text) &&
            strncmp(text, core_names[c], (size_t)(eq - text)) == 0) {
            *core = c;
        }
    }
    if (*core < 0) return 0;
    for (int i = 0; i < vn_kernel_count(*core); i++) {
        if (strcmp(vn_kernel_id(*core, i), eq + 1) == 0 ||
            (by_name && strcmp(vn_kernel_name(*core, i), eq + 1) == 0)) {
            *index = i;
        }
    }
    return 1;
}

/* --expect core=KERNEL: dispatch chose that kernel (its display name or its id). */
static int check_expectation(const char *expect) {
    int core, index;
    if (!kernel_named(expect, 1, &core, &index)) return 0;
    const int chosen = vn_kernel_chosen(core);
    checks++;
    if (index != chosen) {
        failures++;
        printf("FAIL dispatch: expected %s, chose %s (%s)\n", expect, vn_kernel_name(core, chosen),
               vn_kernel_id(core, chosen));
    }
    return 1;
}

/* --require core=ID: this build has the kernel and this CPU runs it (so the driver tests it: a
 * CPU model missing an extension cannot pass by testing less); --unusable core=ID: this build has
 * it and dispatch leaves it unused here (a kernel whose verification failed). */
static int check_usable(const char *kernel, int usable) {
    int core, index;
    if (!kernel_named(kernel, 0, &core, &index)) return 0;
    checks++;
    if (index < 0 || vn_kernel_usable(core, index) != usable) {
        failures++;
        printf("FAIL %s: kernel %s %s\n", usable ? "required" : "unusable", kernel,
               index < 0     ? "is not in this build"
               : usable      ? "does not run here"
                             : "runs here");
    }
    return 1;
}

int main(int argc, char **argv) {
    vn_setup();
    printf("chosen:");
    for (int core = 0; core < VN_CORES; core++) {
        printf(" %s: %s (%s)%s", core_names[core], vn_kernel_name(core, vn_kernel_chosen(core)),
               vn_kernel_id(core, vn_kernel_chosen(core)), core + 1 < VN_CORES ? "," : "\n");
    }
    if (vn_setup_problem()) printf("setup problem: %s\n", vn_setup_problem());
    int many_only = 0;
    const char *expected_path = NULL, *expected_problem = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (value && ((strcmp(argv[i], "--expect") == 0 && check_expectation(value)) ||
                      (strcmp(argv[i], "--require") == 0 && check_usable(value, 1)) ||
                      (strcmp(argv[i], "--unusable") == 0 && check_usable(value, 0)))) {
            i++;
            continue;
        }
        if (strcmp(argv[i], "--many-only") == 0) {
            many_only = 1;
            continue;
        }
        if (value && strcmp(argv[i], "--expected") == 0) {
            expected_path = argv[++i];
            continue;
        }
        if (value && strcmp(argv[i], "--setup-problem") == 0) {
            expected_problem = argv[++i];
            continue;
        }
        fprintf(stderr,
                "usage: %s [--expect CORE=KERNEL]... [--require CORE=ID]... [--unusable CORE=ID]..."
                " [--setup-problem TEXT] [--many-only] [--expected FILE]\n",
                argv[0]);
        return 2;
    }

    unsigned char *million = malloc(1000000);
    unsigned char data[MAX_LENGTH + 64];
    if (!million) return 2;
    memset(million, 'a', 1000000);
    uint32_t x = 0x9e3779b9u; /* xorshift32: the same bytes on every machine */
    for (size_t i = 0; i < sizeof data; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[i] = (unsigned char)(x >> 24);
    }

    pool = malloc(POOL_SIZE);
    if (!pool) return 2;
    for (size_t i = 0; i < POOL_SIZE; i += 8) {
        const uint64_t r = rng();
        memcpy(pool + i, &r, 8);
    }

    for (int core = 0; core < VN_CORES; core++) {
        const int many = vn_core_is_many(core);
        if (many_only && !many) continue;
        for (int index = 0; index < vn_kernel_count(core); index++) {
            const int usable = vn_kernel_usable(core, index);
            /* every kernel with lanes has a short kernel beside it (short messages
             * go through it, many.c's fastest path) */
            if (many) {
                many_check(!vn_kernel_has_lanes(core, index) ||
                               VN_REF_SET(vn_short_kernel(core, index)),
                           "a short kernel", core, index, VN_MD5, 0, 0);
            }
            printf("  %-11s kernel %-12s %-30s %s\n", core_names[core], vn_kernel_id(core, index),
                   vn_kernel_name(core, index), usable ? "tested" : "not on this CPU");
            fflush(stdout);
            if (!usable) continue;
            if (many) {
                check_many(core, index);
                continue;
            }
            check_vectors(core, index, million);
            /* (for the portable kernel itself this still checks the one-shot digest) */
            check_agreement(core, index, data);
        }
    }
    /* the chosen many-kernels through the plain entry points */
    {
        const unsigned char *d[3] = {pool, pool + 1, pool + 2};
        const size_t l[3] = {3, 100, 1000};
        unsigned char out[3 * VN_MAX_DIGEST], expected[VN_MAX_DIGEST];
        for (int algorithm = 0; algorithm < VN_ALGORITHMS; algorithm++) {
            const size_t size = (size_t)vn_digest_size(algorithm);
            const int many = vn_many_core_of(algorithm);
            vn_digest_many(algorithm, 3, d, l, out, 2);
            for (int i = 0; i < 3; i++) {
                vn_oneshot(algorithm, (const char *)d[i], l[i], (char *)expected);
                many_check(memcmp(out + (size_t)i * size, expected, size) == 0, "vn_digest_many",
                           many, vn_kernel_chosen(many), algorithm, 3, (size_t)i);
            }
        }
        vn_state a, b, *states[2] = {&a, &b};
        vn_init(&a, VN_MD5, NULL);
        vn_init(&b, VN_MD5, NULL);
        vn_absorb_many(states, 2, d, l + 1);
        vn_final(&a, out);
        vn_oneshot(VN_MD5, (const char *)d[0], l[1], (char *)expected);
        many_check(memcmp(out, expected, 16) == 0, "vn_absorb_many", VN_CORE_MD5_MANY,
                   vn_kernel_chosen(VN_CORE_MD5_MANY), VN_MD5, 2, 0);
    }
    if (!many_only) check_forcing(expected_problem);
    if (expected_path) check_expected(expected_path);
    free(pool);
    free(million);
    printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "ok", checks, failures);
    return failures ? 1 : 0;
}
