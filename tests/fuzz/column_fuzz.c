/*
 * A coverage-guided fuzz target (libFuzzer) for whole columns (column.c):
 * Arrow arrays built from the input, with random offsets, views and validity
 * bits, checked by vn_rows_from_arrow and hashed by vn_digest_rows; every
 * digest must be the one-message function's (vn_oneshot) of the same row,
 * in binary and in hex, on one thread and on several.
 *
 * An input is read as: the algorithm, the layout (binary, large_binary,
 * binary_view, fixed_size_binary), the number of rows (up to 255), the
 * array's offset (up to 15), flags (validity present; hex; threads; offsets
 * taken from the input as they are, which may decrease or point anywhere in
 * the data, instead of built to rise), then per row (offset + rows of them)
 * its length and validity bit, then the data. Offsets taken as they are must
 * be refused, or every row they give must lie inside the data; the views
 * likewise point where the input says. Any difference aborts.
 *
 * Built and run by `nox -s fuzz` (tests/fuzz/fuzz.py), with AddressSanitizer
 * and UBSan; the corpus it starts from is tests/fuzz/corpus_column/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_abi.h"
#include "column.h"
#include "dispatch.h"
#include "hash.h"
#include "hex.h"

static void expect(int ok, const char *what, size_t row) {
    if (ok) return;
    fprintf(stderr, "MISMATCH: %s, row %zu\n", what, row);
    abort();
}

static void no_release(struct ArrowArray *array) { array->release = NULL; }
static void no_release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

enum { BINARY, LARGE, VIEW, FIXED, LAYOUTS };

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
    static int ready;
    if (!ready) {
        vn_setup();
        ready = 1;
    }
    if (size < 5) return 0;
    const int algorithm = in[0] % VN_ALGORITHMS, layout = in[1] % LAYOUTS;
    const size_t rows = in[2], first = in[3] % 16;
    const int flags = in[4];
    const int nullable = flags & 1, hex = (flags >> 1) & 1, threads = 1 + ((flags >> 2) & 3);
    const int raw = (flags >> 4) & 1; /* offsets as the input gives them */
    const size_t slots = first + rows;
    in += 5;
    size -= 5;
    if (size < 2 * slots) return 0;
    const uint8_t *per_row = in;
    const unsigned char *data = in + 2 * slots;
    const size_t data_size = size - 2 * slots;
    const size_t width = layout == FIXED ? (data_size / (slots ? slots : 1)) % 80 : 0;

    int32_t *offsets32 = malloc(sizeof *offsets32 * (slots + 1));
    int64_t *offsets64 = malloc(sizeof *offsets64 * (slots + 1));
    unsigned char *views = calloc(slots ? slots : 1, 16);
    unsigned char *validity = calloc(slots / 8 + 1, 1);
    int64_t sizes[1] = {(int64_t)data_size};
    size_t at = 0;
    offsets32[0] = 0;
    offsets64[0] = 0;
    for (size_t i = 0; i < slots; i++) {
        size_t length = per_row[2 * i];
        if (per_row[2 * i + 1] & 1) validity[i / 8] |= (unsigned char)(1u << (i % 8));
        if (raw) { /* anywhere, rising or not */
            offsets32[i + 1] = (int32_t)((per_row[2 * i] * 7u + per_row[2 * i + 1]) % (data_size + 1));
        } else {
            if (at + length > data_size) length = data_size - at;
            at += length;
            offsets32[i + 1] = (int32_t)at;
        }
        offsets64[i + 1] = offsets32[i + 1];
        /* a view of the same row: inline up to 12 bytes, else into the data */
        const int32_t start = offsets32[i] < offsets32[i + 1] ? offsets32[i] : offsets32[i + 1];
        const int32_t n = offsets32[i] < offsets32[i + 1] ? offsets32[i + 1] - offsets32[i]
                                                         : offsets32[i] - offsets32[i + 1];
        unsigned char *v = views + 16 * i;
        memcpy(v, &n, 4);
        if (n <= 12) {
            memcpy(v + 4, data + start, (size_t)n);
        } else {
            const int32_t buffer = raw ? (int32_t)(per_row[2 * i + 1] >> 7) : 0; /* 1: outside */
            memcpy(v + 4, data + start, 4);
            memcpy(v + 8, &buffer, 4);
            memcpy(v + 12, &start, 4);
        }
    }
    const void *buffers[4];
    int64_t n_buffers = 3;
    const char *format = "z";
    buffers[0] = nullable ? validity : NULL;
    switch (layout) {
    case BINARY:
        buffers[1] = offsets32;
        buffers[2] = data;
        break;
    case LARGE:
        format = "Z";
        buffers[1] = offsets64;
        buffers[2] = data;
        break;
    case VIEW:
        format = "vz";
        buffers[1] = views;
        buffers[2] = data;
        buffers[3] = sizes;
        n_buffers = 4;
        break;
    default: {
        static char fixed[16];
        snprintf(fixed, sizeof fixed, "w:%zu", width);
        format = fixed;
        buffers[1] = data;
        n_buffers = 2;
        if (width * slots > data_size) goto done; /* the data must hold every row */
    }
    }
    struct ArrowSchema schema = {.format = format, .name = "", .release = no_release_schema};
    struct ArrowArray array = {.length = (int64_t)rows,
                               .null_count = nullable ? -1 : 0,
                               .offset = (int64_t)first,
                               .n_buffers = n_buffers,
                               .buffers = buffers,
                               .release = no_release};
    vn_rows r;
    const char *problem = vn_rows_from_arrow(&r, &schema, &array);
    if (problem != NULL) {
        expect(raw || layout == FIXED, "a well-made array was refused", 0);
        goto done;
    }
    const size_t digest = (size_t)vn_digest_size(algorithm), stride = hex ? 2 * digest : digest;
    unsigned char *out = malloc(stride * (rows ? rows : 1));
    expect(vn_digest_rows(algorithm, &r, hex, threads, out) == 0, "out of memory", 0);
    unsigned char bits[32];
    memset(bits, 0xff, sizeof bits);
    const size_t nulls = vn_rows_validity(&r, bits, 0);
    size_t counted = 0;
    for (size_t i = 0; i < rows; i++) {
        const size_t k = first + i;
        const int valid = !nullable || (validity[k / 8] >> (k % 8)) & 1;
        expect(valid == ((bits[i / 8] >> (i % 8)) & 1), "validity", i);
        counted += !valid;
        if (!valid) continue;
        size_t length;
        const unsigned char *row = vn_row(&r, i, &length);
        /* every row lies inside the input */
        const int inline_view = layout == VIEW && length <= 12;
        expect(inline_view || (row >= data && row + length <= data + data_size), "row outside", i);
        char one[VN_MAX_DIGEST], text[2 * VN_MAX_DIGEST];
        vn_oneshot(algorithm, (const char *)row, length, one);
        if (hex) {
            vn_hex((const unsigned char *)one, digest, text);
            expect(!memcmp(out + i * stride, text, stride), "hex digest", i);
        } else {
            expect(!memcmp(out + i * stride, one, digest), "digest", i);
        }
    }
    expect(counted == nulls, "null count", rows);
    free(out);
done:
    free(offsets32);
    free(offsets64);
    free(views);
    free(validity);
    return 0;
}
