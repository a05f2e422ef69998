/*
 * Test driver for the native kernels, built with the sources of
 * variants/native for each architecture and run natively or under qemu-user
 * (see run.py). It checks, on whatever CPU it finds itself:
 *
 *   - the kernels dispatch chose, against what the caller expects
 *     (--expect md5=NAME --expect sha256=NAME);
 *   - the standard vectors (RFC 1321; FIPS 180-4 examples, including one
 *     million 'a') through every kernel this CPU can run;
 *   - every kernel against the portable one: whole messages of every length
 *     up to 1000 bytes at several misalignments, the same messages in two
 *     pieces, copies, the one-shot digest (which runs the chosen kernel) and
 *     the block functions alone;
 *   - every many-kernel this CPU can run (vn_digest_many_with,
 *     vn_absorb_many_with), against the portable single-message kernel:
 *     batches of 0, 1, lanes-1, lanes, lanes+1 and 1000 messages of mixed
 *     lengths up to 300 bytes, of equal lengths, of random lengths up to
 *     1 MiB, short messages streaming past a long one, any alignment, split
 *     over threads; states starting mid-block absorbing random chunks;
 *   - VARIANTS_NATIVE_KERNELS: forcing, and the problems it reports.
 *
 * --expect core=KERNEL takes a kernel's display name or its id.
 * Exit status 0 when everything agrees; each failure is printed.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#define _DEFAULT_SOURCE         /* MAP_ANONYMOUS */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "native.h"
#include "padding.h"

#define MAX_LENGTH 1000
static const size_t alignments[] = {0, 1, 2, 3, 5, 7, 8, 13};
#define ALIGNMENTS (sizeof alignments / sizeof alignments[0])

static int failures, checks;

static void check(int ok, const char *what, const char *kernel, int algorithm, size_t length,
                  size_t offset) {
    static const char *names[] = {"md5", "sha224", "sha256"};
    checks++;
    if (ok) return;
    failures++;
    if (failures <= 20) {
        printf("FAIL %s: %s with kernel %s, length %zu, offset %zu\n", what, names[algorithm],
               kernel, length, offset);
    }
}

static int core_of(int algorithm) { return algorithm == VN_MD5 ? VN_CORE_MD5 : VN_CORE_SHA256; }

static void hex(const unsigned char *digest, int size, char *out) {
    for (int i = 0; i < size; i++) sprintf(out + 2 * i, "%02x", digest[i]);
}

/* The digest of `length` bytes at `data`, with kernel `blocks`. */
static int digest_with(int algorithm, vn_blocks_fn *blocks, const unsigned char *data,
                       size_t length, unsigned char *out) {
    vn_state s;
    vn_init(&s, algorithm, blocks);
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
};

static void check_vectors(int core, int index, const unsigned char *million) {
    vn_blocks_fn *blocks = vn_kernel(core, index);
    const char *name = vn_kernel_name(core, index);
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        const struct vector *vec = &vectors[v];
        if (core_of(vec->algorithm) != core) continue;
        const unsigned char *message = vec->message ? (const unsigned char *)vec->message : million;
        const size_t length = vec->message ? strlen(vec->message) : 1000000;
        unsigned char digest[32];
        char text[65];
        hex(digest, digest_with(vec->algorithm, blocks, message, length, digest), text);
        check(strcmp(text, vec->digest) == 0, "standard vector", name, vec->algorithm, length, 0);
        if (vec->message) continue;
        /* the million again, in uneven pieces across block edges */
        vn_state h;
        vn_init(&h, vec->algorithm, blocks);
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
    vn_blocks_fn *blocks = vn_kernel(core, index), *portable = vn_kernel(core, 0);
    const char *name = vn_kernel_name(core, index);
    const int algorithms[2] = {core == VN_CORE_MD5 ? VN_MD5 : VN_SHA224,
                               core == VN_CORE_MD5 ? VN_MD5 : VN_SHA256};
    for (int a = 0; a < (core == VN_CORE_MD5 ? 1 : 2); a++) {
        const int algorithm = algorithms[a];
        for (size_t length = 0; length <= MAX_LENGTH; length++) {
            unsigned char expected[32], got[32];
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
            vn_init(&h, algorithm, blocks);
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
    /* the block function alone, from a state that is not the IV */
    for (size_t n = 1; n <= MAX_LENGTH / 64; n++) {
        for (size_t k = 0; k < ALIGNMENTS; k++) {
            const size_t offset = alignments[k];
            uint32_t expected[8], got[8];
            for (int i = 0; i < 8; i++) expected[i] = got[i] = 0x01234567u * (uint32_t)(i + 3);
            unsigned char moved[MAX_LENGTH + 16];
            memcpy(moved + offset, data, 64 * n);
            vn_compress(core, 0, expected, (const char *)data, n);
            vn_compress(core, index, got, (const char *)moved + offset, n);
            check(memcmp(got, expected, sizeof got) == 0, "block function", name,
                  core == VN_CORE_MD5 ? VN_MD5 : VN_SHA256, 64 * n, offset);
        }
    }
}

/* ---- many messages at once ------------------------------------------------ */

static const char *core_names[VN_CORES] = {"md5", "sha256", "md5-many", "sha256-many"};

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

static void many_check(int ok, const char *what, int core, int index, int algorithm, size_t count,
                       size_t detail) {
    static const char *names[] = {"md5", "sha224", "sha256"};
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
    unsigned char *out = malloc((count + 1) * size), expected[32];
    if (!out) exit(2);
    memset(out, 0xa5, (count + 1) * size);
    const int status = vn_digest_many_with(index, algorithm, count, data, lengths, out, threads);
    many_check(status == 0, what, core, index, algorithm, count, (size_t)threads);
    vn_blocks_fn *portable = vn_kernel(algorithm == VN_MD5 ? VN_CORE_MD5 : VN_CORE_SHA256, 0);
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
 * cannot be read: a kernel reading past them (a short kernel reads 64 bytes
 * where it may) would crash here. */
static void check_page_ends(int core, int index, int algorithm, size_t count) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
    const unsigned char **data = malloc(count * sizeof *data);
    size_t *lengths = malloc(count * sizeof *lengths);
    if (pages == MAP_FAILED || !data || !lengths || mprotect(pages + page, page, PROT_NONE)) {
        exit(2);
    }
    memcpy(pages, pool, page);
    for (size_t i = 0; i < count; i++) {
        lengths[i] = i % 3 ? below(65) : i % 65; /* every length, and random ones */
        data[i] = pages + page - lengths[i] - (i % 5 == 0 ? below(8) : 0);
    }
    check_messages(core, index, algorithm, data, lengths, count, 1, "at a page's end");
    munmap(pages, 2 * page);
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
    /* equal lengths, around the padding's edges */
    static const size_t equal[] = {0, 1, 32, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 4096};
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
    for (size_t i = 0; i < 1000; i++) lengths[i] = below(65);
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
    vn_blocks_fn *portable = vn_kernel(algorithm == VN_MD5 ? VN_CORE_MD5 : VN_CORE_SHA256, 0);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const size_t count = counts[c];
        if (!count || (c && count == counts[c - 1])) continue;
        vn_state *test = malloc(count * sizeof *test), *ref = malloc(count * sizeof *ref);
        vn_state **order = malloc(count * sizeof *order);
        const unsigned char **data = malloc(count * sizeof *data);
        size_t *lengths = malloc(count * sizeof *lengths);
        if (!test || !ref || !order || !data || !lengths) exit(2);
        for (size_t i = 0; i < count; i++) {
            /* SHA-224 and SHA-256 states share the core: mix them */
            const int a = algorithm == VN_MD5 ? VN_MD5 : i % 3 ? VN_SHA256 : VN_SHA224;
            vn_init(&ref[i], a, portable);
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
                             : kind < 5 ? below(64)
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
            unsigned char expected[32], got[32];
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

/* A short kernel called directly (native.h: vn_short_fn), a full width of
 * messages at a time, against the portable kernel: every length from 0 to
 * 64 read in place, each lane of a call a different length of its class
 * and a different offset; every length below 64 padded already (one block
 * below 56, two from 56 on: 64 and 128 bytes); and the 64 bytes read
 * ending where a page ends, before one that cannot be read. Nothing is
 * written past a digest's size. */
static void check_short(int core, int index, int algorithm) {
    vn_short_fn *shorts = vn_short_kernel(core, index);
    const int lanes = vn_kernel_lanes(core, index);
    const size_t size = (size_t)vn_digest_size(algorithm);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
    if (pages == MAP_FAILED || mprotect(pages + page, page, PROT_NONE)) exit(2);
    memcpy(pages, pool, page);
    vn_state iv;
    vn_init(&iv, algorithm, vn_kernel(core_of(algorithm), 0));
    vn_blocks_fn *portable = vn_kernel(core_of(algorithm), 0);
    static unsigned char padded[VN_MAX_LANES][128], out[VN_MAX_LANES][40];
    const unsigned char *data[VN_MAX_LANES];
    unsigned char *outs[VN_MAX_LANES];
    uint32_t lengths[VN_MAX_LANES];
    for (int i = 0; i < lanes; i++) outs[i] = out[i];
    /* kind 0: in place; 1: padded already; 2: in place, ending at the page's end */
    for (int kind = 0; kind < 3; kind++) {
        for (uint32_t first = 0; first <= 64; first++) {
            if (kind == 1 && first == 64) continue;
            const int blocks = first < 56 ? 1 : 2;
            for (int i = 0; i < lanes; i++) {
                /* lane i: a length of the same class, every one in turn */
                const uint32_t low = blocks == 1 ? 0 : 56, span = blocks == 1 ? 56 : kind == 1 ? 8 : 9;
                lengths[i] = low + (first - low + (uint32_t)i * 7) % span;
                const unsigned char *message = kind == 2 ? pages + page - 64 : pool + 64 * i + first;
                data[i] = message;
                if (kind == 1) {
                    pad(algorithm, message, lengths[i], padded[i]);
                    data[i] = padded[i];
                }
                memset(out[i], 0xa5, sizeof out[i]);
            }
            shorts(iv.state, (int)size, blocks, data, kind == 1 ? NULL : lengths, outs);
            for (int i = 0; i < lanes; i++) {
                unsigned char expected[32];
                const unsigned char *message = kind == 1 ? pool + 64 * i + first : data[i];
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
    munmap(pages, 2 * page);
}

static void check_many(int core, int index) {
    if (core == VN_CORE_MD5_MANY) {
        check_digests(core, index, VN_MD5);
        check_absorb(core, index, VN_MD5);
    } else {
        check_digests(core, index, VN_SHA224);
        check_digests(core, index, VN_SHA256);
        check_absorb(core, index, VN_SHA256);
    }
    if (vn_short_kernel(core, index)) {
        if (core == VN_CORE_MD5_MANY) {
            check_short(core, index, VN_MD5);
        } else {
            check_short(core, index, VN_SHA224);
            check_short(core, index, VN_SHA256);
        }
    }
    /* no kernel of that index, or none for that algorithm */
    const unsigned char *none[1] = {pool};
    const size_t zero[1] = {0};
    unsigned char out[32];
    many_check(vn_digest_many_with(vn_kernel_count(core), VN_MD5 + (core != VN_CORE_MD5_MANY) * 2,
                                   1, none, zero, out, 1) == -1 &&
                   vn_digest_many_with(index, 7, 1, none, zero, out, 1) == -1,
               "refusals", core, index, VN_MD5, 1, 0);
}

/* ---- VARIANTS_NATIVE_KERNELS -------------------------------------------------- */

static void check_forcing(void) {
    const char *saved_kernels = getenv("VARIANTS_NATIVE_KERNELS");
    const char *saved_portable = getenv("VARIANTS_NATIVE_PORTABLE");
    char *kernels_copy = saved_kernels ? strdup(saved_kernels) : NULL;
    char *portable_copy = saved_portable ? strdup(saved_portable) : NULL;
    unsetenv("VARIANTS_NATIVE_PORTABLE");
    unsetenv("VARIANTS_NATIVE_KERNELS");
    vn_setup();
    int usual[VN_CORES];
    for (int core = 0; core < VN_CORES; core++) usual[core] = vn_kernel_chosen(core);
    checks++;
    if (vn_setup_problem()) {
        failures++;
        printf("FAIL forcing: a problem without the variable: %s\n", vn_setup_problem());
    }
    /* every usable kernel can be forced, with spaces around the entries */
    for (int core = 0; core < VN_CORES; core++) {
        for (int i = 0; i < vn_kernel_count(core); i++) {
            char list[200];
            snprintf(list, sizeof list, " %s = %s ,md5=portable", core_names[core],
                     vn_kernel_id(core, i));
            setenv("VARIANTS_NATIVE_KERNELS", list, 1);
            vn_setup();
            const int usable = vn_kernel_usable(core, i);
            const int want = usable ? i : usual[core];
            const int ok = vn_kernel_chosen(core) == (core == VN_CORE_MD5 ? 0 : want) &&
                           (usable ? vn_setup_problem() == NULL : vn_setup_problem() != NULL) &&
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
    static const char *bad[] = {"md5=nosuch,sha256-many=portable", "sha512=portable,sha256-many=portable",
                                "sha256-many=portable,md5", "sha256-many=portable,md5-many=shani"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        setenv("VARIANTS_NATIVE_KERNELS", bad[b], 1);
        vn_setup();
        checks++;
        if (!vn_setup_problem() || vn_kernel_chosen(VN_CORE_SHA256_MANY) != 0 ||
            vn_kernel_chosen(VN_CORE_MD5) != usual[VN_CORE_MD5]) {
            failures++;
            printf("FAIL forcing %s: no problem reported or wrong choice\n", bad[b]);
        } else {
            printf("  (%s: %s)\n", bad[b], vn_setup_problem());
        }
    }
    /* PORTABLE first, then the list on top of it */
    setenv("VARIANTS_NATIVE_PORTABLE", "1", 1);
    setenv("VARIANTS_NATIVE_KERNELS", "md5-many=portable", 1);
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
        setenv("VARIANTS_NATIVE_PORTABLE", portable_copy, 1);
    } else {
        unsetenv("VARIANTS_NATIVE_PORTABLE");
    }
    if (kernels_copy) {
        setenv("VARIANTS_NATIVE_KERNELS", kernels_copy, 1);
    } else {
        unsetenv("VARIANTS_NATIVE_KERNELS");
    }
    free(kernels_copy);
    free(portable_copy);
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
    enum { MAX_LINES = 4096 };
    static int algorithms[MAX_LINES];
    static size_t lengths[MAX_LINES];
    static char hexes[MAX_LINES][65];
    size_t lines = 0, longest = 0;
    while (lines < MAX_LINES &&
           fscanf(file, "%d %zu %64s", &algorithms[lines], &lengths[lines], hexes[lines]) == 3) {
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
    for (int algorithm = VN_MD5; algorithm <= VN_SHA256; algorithm++) {
        const size_t size = (size_t)vn_digest_size(algorithm);
        const int core = algorithm == VN_MD5 ? VN_CORE_MD5 : VN_CORE_SHA256;
        const int many = algorithm == VN_MD5 ? VN_CORE_MD5_MANY : VN_CORE_SHA256_MANY;
        /* this algorithm's lines, as one batch for the many-kernels */
        const unsigned char **data = malloc(sizeof *data * lines);
        size_t *batch = malloc(sizeof *batch * lines), n = 0, *which = malloc(sizeof *which * lines);
        unsigned char *out = malloc(size * lines), digest[32];
        char text[65];
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

static int check_expectation(const char *expect) {
    const char *eq = strchr(expect, '=');
    if (!eq) return 0;
    int core = -1;
    for (int c = 0; c < VN_CORES; c++) {
        if (strlen(core_names[c]) == (size_t)(eq - expect) &&
            strncmp(expect, core_names[c], (size_t)(eq - expect)) == 0) {
            core = c;
        }
    }
    if (core < 0) return 0;
    const char *chosen = vn_kernel_name(core, vn_kernel_chosen(core));
    const char *id = vn_kernel_id(core, vn_kernel_chosen(core));
    checks++;
    if (strcmp(chosen, eq + 1) != 0 && strcmp(id, eq + 1) != 0) {
        failures++;
        printf("FAIL dispatch: expected %s, chose %s (%s)\n", expect, chosen, id);
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
    const char *expected_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc && check_expectation(argv[i + 1])) {
            i++;
            continue;
        }
        if (strcmp(argv[i], "--many-only") == 0) {
            many_only = 1;
            continue;
        }
        if (strcmp(argv[i], "--expected") == 0 && i + 1 < argc) {
            expected_path = argv[++i];
            continue;
        }
        fprintf(stderr, "usage: %s [--expect CORE=KERNEL]... [--many-only] [--expected FILE]\n",
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
        const int many = core == VN_CORE_MD5_MANY || core == VN_CORE_SHA256_MANY;
        if (many_only && !many) continue;
        for (int index = 0; index < vn_kernel_count(core); index++) {
            const int usable = vn_kernel_usable(core, index);
            /* every kernel with lanes has a short kernel beside it (many.c relies on it) */
            if (many) {
                many_check(!vn_many_kernel(core, index) || vn_short_kernel(core, index) != NULL,
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
        unsigned char out[3 * 32], expected[32];
        for (int algorithm = VN_MD5; algorithm <= VN_SHA256; algorithm++) {
            const size_t size = (size_t)vn_digest_size(algorithm);
            vn_digest_many(algorithm, 3, d, l, out, 2);
            for (int i = 0; i < 3; i++) {
                vn_oneshot(algorithm, (const char *)d[i], l[i], (char *)expected);
                many_check(memcmp(out + (size_t)i * size, expected, size) == 0, "vn_digest_many",
                           algorithm == VN_MD5 ? VN_CORE_MD5_MANY : VN_CORE_SHA256_MANY,
                           vn_kernel_chosen(algorithm == VN_MD5 ? VN_CORE_MD5_MANY
                                                                : VN_CORE_SHA256_MANY),
                           algorithm, 3, (size_t)i);
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
    if (!many_only) check_forcing();
    if (expected_path) check_expected(expected_path);
    free(pool);
    free(million);
    printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "ok", checks, failures);
    return failures ? 1 : 0;
}
