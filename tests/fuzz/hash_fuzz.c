/*
 * A coverage-guided fuzz target (libFuzzer) for the native state machine and
 * every kernel this CPU runs, against OpenSSL.
 *
 * An input is read as: the algorithm (one byte: MD5, SHA-1 or a SHA-2), the kernel (a byte: an
 * index into its core's table; a kernel this CPU cannot run falls back to
 * the portable one), the number of cuts (one byte, up to 7), that many
 * cut positions (one byte each, scaled to the message), then the message.
 * The message is hashed in the pieces the cuts make, with a copy and a
 * digest taken between them (a digest must not end the hash), and in one
 * call; every digest must be OpenSSL's. Any difference aborts.
 *
 * Built and run by `nox -s fuzz` (tests/fuzz/fuzz.py), with AddressSanitizer
 * and UBSan; the corpus it starts from is tests/fuzz/corpus/.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "hash.h"

static void expect(int ok, const char *what, int algorithm, size_t length) {
    if (ok) return;
    fprintf(stderr, "MISMATCH: %s, algorithm %d, %zu bytes\n", what, algorithm, length);
    abort();
}

static const EVP_MD *openssl_md(int algorithm) {
    switch (algorithm) {
    case VN_MD5:
        return EVP_md5();
    case VN_SHA224:
        return EVP_sha224();
    case VN_SHA256:
        return EVP_sha256();
    case VN_SHA1:
        return EVP_sha1();
    case VN_SHA384:
        return EVP_sha384();
    case VN_SHA512:
        return EVP_sha512();
    case VN_SHA512_224:
        return EVP_sha512_224();
    default:
        return EVP_sha512_256();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        vn_setup();
        ready = 1;
    }
    if (size < 3) return 0;
    const int algorithm = data[0] % VN_ALGORITHMS;
    const int core = vn_core_of(algorithm);
    int index = data[1] % vn_kernel_count(core);
    if (!vn_kernel_usable(core, index)) index = 0;
    const size_t cuts = data[2] % 8;
    if (size < 3 + cuts) return 0;
    const uint8_t *message = data + 3 + cuts;
    const size_t length = size - 3 - cuts;

    unsigned char expected[EVP_MAX_MD_SIZE];
    unsigned int expected_size = 0;
    if (!EVP_Digest(message, length, expected, &expected_size, openssl_md(algorithm), NULL)) {
        abort();
    }
    unsigned char got[VN_MAX_DIGEST];

    /* in pieces, positions ascending, a copy and a digest at the middle cut */
    size_t positions[8];
    for (size_t i = 0; i < cuts; i++) positions[i] = length * data[3 + i] / 256;
    for (size_t i = 1; i < cuts; i++) { /* insertion sort: at most 7 */
        for (size_t j = i; j > 0 && positions[j - 1] > positions[j]; j--) {
            const size_t t = positions[j];
            positions[j] = positions[j - 1];
            positions[j - 1] = t;
        }
    }
    positions[cuts] = length;
    vn_state s, copy;
    const vn_blocks_ref kernel = vn_kernel(core, index);
    vn_init(&s, algorithm, &kernel);
    copy = s;
    size_t done = 0;
    for (size_t i = 0; i <= cuts; i++) {
        vn_absorb(&s, message + done, positions[i] - done);
        done = positions[i];
        if (i == cuts / 2) {
            copy = s;
            vn_final(&s, got); /* must leave s as it was */
        }
    }
    expect(vn_final(&s, got) == (int)expected_size, "digest size", algorithm, length);
    expect(memcmp(got, expected, expected_size) == 0, "pieces", algorithm, length);
    /* the copy goes on with the rest of the message */
    const size_t middle = cuts ? positions[cuts / 2] : length;
    vn_absorb(&copy, message + middle, length - middle);
    vn_final(&copy, got);
    expect(memcmp(got, expected, expected_size) == 0, "copy", algorithm, length);
    /* in one call, with the chosen kernel */
    vn_oneshot(algorithm, (const char *)message, length, (char *)got);
    expect(memcmp(got, expected, expected_size) == 0, "one shot", algorithm, length);
    return 0;
}
