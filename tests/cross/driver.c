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
 *     the block functions alone.
 *
 * Exit status 0 when everything agrees; each failure is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

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

/* ---- main ----------------------------------------------------------------- */

static int check_expectation(const char *expect) {
    const char *eq = strchr(expect, '=');
    if (!eq) return 0;
    const int core = strncmp(expect, "md5", (size_t)(eq - expect)) == 0      ? VN_CORE_MD5
                     : strncmp(expect, "sha256", (size_t)(eq - expect)) == 0 ? VN_CORE_SHA256
                                                                             : -1;
    if (core < 0) return 0;
    const char *chosen = vn_kernel_name(core, vn_kernel_chosen(core));
    checks++;
    if (strcmp(chosen, eq + 1) != 0) {
        failures++;
        printf("FAIL dispatch: expected %s, chose %s\n", expect, chosen);
    }
    return 1;
}

int main(int argc, char **argv) {
    vn_setup();
    printf("chosen: md5: %s, sha256: %s\n", vn_kernel_name(VN_CORE_MD5, vn_kernel_chosen(VN_CORE_MD5)),
           vn_kernel_name(VN_CORE_SHA256, vn_kernel_chosen(VN_CORE_SHA256)));
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc && check_expectation(argv[i + 1])) {
            i++;
            continue;
        }
        fprintf(stderr, "usage: %s [--expect md5=KERNEL] [--expect sha256=KERNEL]\n", argv[0]);
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

    for (int core = 0; core < VN_CORES; core++) {
        for (int index = 0; index < vn_kernel_count(core); index++) {
            const int usable = vn_kernel_usable(core, index);
            printf("  %-6s kernel %-16s %s\n", core == VN_CORE_MD5 ? "md5" : "sha256",
                   vn_kernel_name(core, index), usable ? "tested" : "not on this CPU");
            if (!usable) continue;
            check_vectors(core, index, million);
            /* (for the portable kernel itself this still checks the one-shot digest) */
            check_agreement(core, index, data);
        }
    }
    free(million);
    printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "ok", checks, failures);
    return failures ? 1 : 0;
}
