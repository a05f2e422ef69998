/*
 * Whole columns in the lanes, as plain C (no Python): the rows of an Arrow
 * array or of fixed-width rows are read where they are, a window of rows at
 * a time, and hashed by many.c's scheduler (which refills a lane the moment
 * its message ends, so rows of mixed lengths keep every lane busy, and takes
 * the rows shorter than a block in batches from the IV). See native.h: vn_rows.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "arrow_abi.h"
#include "column.h"
#include "hex.h"
#include "many.h"

/* Rows hashed per call of the scheduler: their pointers, lengths and
 * digests stay in the cache (about 160 KiB for SHA-256 in hex). */
#define WINDOW 4096
/* Below this many bytes a part of a column is not worth a thread. */
#define MIN_PART_BYTES (256 * 1024)
/* Bytes a row weighs beside its own when parts are balanced: its padding
 * and upkeep, about a block. */
#define ROW_WEIGHT 64

static const unsigned char nothing[1] = {0}; /* the bytes of a column whose data buffer is NULL */

static inline int valid(const unsigned char *bits, size_t k) {
    return !bits || (bits[k >> 3] >> (k & 7)) & 1;
}

static inline int32_t load32(const unsigned char *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Row i's bytes, and their number in *length. */
static inline const unsigned char *row(const vn_rows *r, size_t i, size_t *length) {
    const size_t k = r->first + i;
    switch (r->layout) {
    case VN_ROWS_OFFSETS32: {
        const int32_t *o = r->index;
        *length = (size_t)(o[k + 1] - o[k]);
        return r->data + o[k];
    }
    case VN_ROWS_OFFSETS64: {
        const int64_t *o = r->index;
        *length = (size_t)(o[k + 1] - o[k]);
        return r->data + o[k];
    }
    case VN_ROWS_VIEWS: {
        const unsigned char *v = (const unsigned char *)r->index + 16 * k;
        const int32_t n = load32(v);
        *length = (size_t)n;
        if (n <= 12) return v + 4; /* inline */
        return r->buffers[load32(v + 8)] + load32(v + 12);
    }
    case VN_ROWS_PADDED: {
        const unsigned char *p = r->data + k * r->width;
        size_t n = r->width;
        while (n && !p[n - 1]) n--;
        *length = n;
        return p;
    }
    default:
        *length = r->width;
        return r->data + k * r->width;
    }
}

const unsigned char *vn_row(const vn_rows *rows, size_t i, size_t *length) {
    return row(rows, i, length);
}

/* ---- from Arrow ---------------------------------------------------------- */

/* The layout of an Arrow format (and, for w:N, N in *width); -1 if none. */
static int layout_of(const char *format, size_t *width) {
    if (!format) return -1;
    if (!strcmp(format, "z") || !strcmp(format, "u")) return VN_ROWS_OFFSETS32;
    if (!strcmp(format, "Z") || !strcmp(format, "U")) return VN_ROWS_OFFSETS64;
    if (!strcmp(format, "vz") || !strcmp(format, "vu")) return VN_ROWS_VIEWS;
    if (format[0] == 'w' && format[1] == ':' && format[2] >= '0' && format[2] <= '9') {
        size_t n = 0;
        const char *p = format + 2;
        for (; *p >= '0' && *p <= '9' && n < ((size_t)1 << 40); p++) n = 10 * n + (size_t)(*p - '0');
        if (*p) return -1;
        *width = n;
        return VN_ROWS_FIXED;
    }
    return -1;
}

int vn_arrow_format_ok(const char *format) {
    size_t width;
    return layout_of(format, &width) >= 0;
}

/* Check the offsets of rows [first, first + count]: from 0 up, never down. */
#define OFFSETS_RISE(type, o, first, count)                                                  \
    do {                                                                                     \
        const type *o_ = (const type *)(o);                                                  \
        if (o_[first] < 0) return "an offset is negative";                                   \
        for (size_t i_ = first; i_ < (first) + (count); i_++) {                              \
            if (o_[i_ + 1] < o_[i_]) return "the offsets decrease";                          \
        }                                                                                    \
    } while (0)

const char *vn_rows_from_arrow(vn_rows *rows, const struct ArrowSchema *schema,
                               const struct ArrowArray *array) {
    memset(rows, 0, sizeof *rows);
    if (!schema->release || !array->release) return "the Arrow array was released already";
    const int layout = layout_of(schema->format, &rows->width);
    if (layout < 0) return "the Arrow format is not binary, string or fixed-size binary";
    if (schema->dictionary || array->dictionary) return "a dictionary-encoded array";
    if (array->length < 0 || array->offset < 0) return "a negative length or offset";
    const int64_t buffers = array->n_buffers;
    if (layout == VN_ROWS_FIXED ? buffers != 2 : layout == VN_ROWS_VIEWS ? buffers < 3 : buffers != 3) {
        return "the Arrow array has the wrong number of buffers for its format";
    }
    rows->layout = layout;
    rows->count = (size_t)array->length;
    rows->first = (size_t)array->offset;
    if (!rows->count) return NULL;
    rows->validity = array->null_count == 0 ? NULL : (const unsigned char *)array->buffers[0];
    rows->index = array->buffers[1];
    if (layout == VN_ROWS_FIXED) {
        rows->data = array->buffers[1] ? (const unsigned char *)array->buffers[1] : nothing;
        if (!array->buffers[1] && rows->width) return "the Arrow array has no data buffer";
        return NULL;
    }
    if (!rows->index) return "the Arrow array has no offsets or views buffer";
    if (layout != VN_ROWS_VIEWS) {
        rows->data = array->buffers[2] ? (const unsigned char *)array->buffers[2] : nothing;
        if (layout == VN_ROWS_OFFSETS32) {
            OFFSETS_RISE(int32_t, rows->index, rows->first, rows->count);
        } else {
            OFFSETS_RISE(int64_t, rows->index, rows->first, rows->count);
        }
        return NULL;
    }
    /* views: buffers 2 .. n-2 hold the data, the last their sizes */
    rows->buffers = (const unsigned char *const *)array->buffers + 2;
    rows->buffer_count = (size_t)(buffers - 3);
    const int64_t *sizes = array->buffers[buffers - 1];
    for (size_t i = 0; i < rows->count; i++) {
        const size_t k = rows->first + i;
        if (!valid(rows->validity, k)) continue;
        const unsigned char *v = (const unsigned char *)rows->index + 16 * k;
        const int32_t n = load32(v);
        if (n < 0) return "a view has a negative length";
        if (n <= 12) continue;
        const int32_t b = load32(v + 8), at = load32(v + 12);
        if (b < 0 || (size_t)b >= rows->buffer_count || at < 0 || !rows->buffers[b]) {
            return "a view points outside the array's data buffers";
        }
        if (sizes && (int64_t)at + n > sizes[b]) return "a view runs past the end of its buffer";
    }
    return NULL;
}

size_t vn_rows_validity(const vn_rows *rows, unsigned char *bits, size_t start) {
    size_t nulls = 0;
    if (!rows->validity) return 0;
    for (size_t i = 0; i < rows->count; i++) {
        if (valid(rows->validity, rows->first + i)) continue;
        const size_t k = start + i;
        bits[k >> 3] &= (unsigned char)~(1u << (k & 7));
        nulls++;
    }
    return nulls;
}

/* ---- hashing --------------------------------------------------------------- */

struct part {
    int algorithm, hex;
    const vn_rows *rows;
    size_t begin, end; /* rows */
    unsigned char *out;
    int failed;
    pthread_t thread;
    int started;
};

/* Copy a window's digests to the column past the cache where it can (as
 * vn_hex_many): the column is too large for it, and a line written whole
 * need not be read first. */
static void store_many(unsigned char *to, const unsigned char *from, size_t bytes) {
#if defined(__SSE2__)
    if ((uintptr_t)to % 16 == 0 && bytes % 16 == 0) {
        for (size_t i = 0; i < bytes; i += 16) {
            _mm_stream_si128((__m128i *)(to + i), _mm_loadu_si128((const __m128i *)(from + i)));
        }
        _mm_sfence();
        return;
    }
#endif
    memcpy(to, from, bytes);
}

/* Rows [begin, end) of a part, a window at a time. */
static void *digest_part(void *arg) {
    struct part *p = arg;
    const vn_rows *r = p->rows;
    const size_t size = (size_t)vn_digest_size(p->algorithm), width = p->hex ? 2 * size : size;
    const unsigned char **data = malloc(sizeof *data * WINDOW);
    size_t *lengths = malloc(sizeof *lengths * WINDOW), *which = malloc(sizeof *which * WINDOW);
    unsigned char *digests = malloc(size * WINDOW);
    p->failed = !(data && lengths && which && digests);
    for (size_t start = p->begin; !p->failed && start < p->end; start += WINDOW) {
        const size_t rows = p->end - start < WINDOW ? p->end - start : WINDOW;
        size_t n = 0;
        if (!r->validity && r->layout == VN_ROWS_OFFSETS32) { /* the common case, unswitched */
            const int32_t *o = (const int32_t *)r->index + r->first;
            for (size_t i = start; i < start + rows; i++) {
                data[n] = r->data + o[i];
                lengths[n++] = (size_t)(o[i + 1] - o[i]);
            }
        } else {
            for (size_t i = start; i < start + rows; i++) {
                if (!valid(r->validity, r->first + i)) {
                    memset(p->out + i * width, 0, width);
                    continue;
                }
                data[n] = row(r, i, &lengths[n]);
                which[n++] = i;
            }
        }
        vn_digest_many(p->algorithm, n, data, lengths, digests, 1);
        if (n == rows) { /* a window without nulls: its digests in one stretch */
            if (p->hex) {
                vn_hex_many(digests, size, n, (char *)p->out + start * width);
            } else {
                store_many(p->out + start * width, digests, n * size);
            }
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            if (p->hex) {
                vn_hex(digests + k * size, size, (char *)p->out + which[k] * width);
            } else {
                memcpy(p->out + which[k] * width, digests + k * size, size);
            }
        }
    }
    free(data);
    free(lengths);
    free(which);
    free(digests);
    return NULL;
}

/* The weight of rows [0, i): their bytes and ROW_WEIGHT each (not for views). */
static unsigned long long weight_before(const vn_rows *r, size_t i) {
    const size_t k = r->first + i;
    unsigned long long bytes;
    if (r->layout == VN_ROWS_OFFSETS32) {
        const int32_t *o = r->index;
        bytes = (unsigned long long)(o[k] - o[r->first]);
    } else if (r->layout == VN_ROWS_OFFSETS64) {
        const int64_t *o = r->index;
        bytes = (unsigned long long)(o[k] - o[r->first]);
    } else {
        bytes = (unsigned long long)i * r->width;
    }
    return bytes + (unsigned long long)i * ROW_WEIGHT;
}

/* Where each of `parts` parts of about equal weight ends: cut[k]. */
static void cut_parts(const vn_rows *r, size_t parts, unsigned long long total, size_t *cut) {
    if (r->layout == VN_ROWS_VIEWS) { /* one pass over the lengths */
        unsigned long long weight = 0;
        size_t i = 0;
        for (size_t k = 0; k + 1 < parts; k++) {
            const unsigned long long goal = total / parts * (k + 1);
            for (; i < r->count && weight < goal; i++) {
                size_t length = 0;
                if (valid(r->validity, r->first + i)) row(r, i, &length);
                weight += length + ROW_WEIGHT;
            }
            cut[k] = i;
        }
    } else { /* the weights only grow: a binary search for each cut */
        for (size_t k = 0; k + 1 < parts; k++) {
            const unsigned long long goal = total / parts * (k + 1);
            size_t low = k ? cut[k - 1] : 0, high = r->count;
            while (low < high) {
                const size_t mid = low + (high - low) / 2;
                if (weight_before(r, mid) < goal) {
                    low = mid + 1;
                } else {
                    high = mid;
                }
            }
            cut[k] = low;
        }
    }
    cut[parts - 1] = r->count;
}

static unsigned long long total_weight(const vn_rows *r) {
    if (r->layout != VN_ROWS_VIEWS) return weight_before(r, r->count);
    unsigned long long total = 0;
    for (size_t i = 0; i < r->count; i++) {
        size_t length = 0;
        if (valid(r->validity, r->first + i)) row(r, i, &length);
        total += length + ROW_WEIGHT;
    }
    return total;
}

int vn_digest_rows(int algorithm, const vn_rows *rows, int hex, int threads, unsigned char *out) {
    if (!rows->count) return 0;
    if (threads > VN_MANY_MAX_THREADS) threads = VN_MANY_MAX_THREADS;
    size_t parts = threads > 1 ? (size_t)threads : 1;
    struct part part[VN_MANY_MAX_THREADS];
    size_t cut[VN_MANY_MAX_THREADS];
    if (parts > 1) {
        const unsigned long long total = total_weight(rows);
        if (parts > total / MIN_PART_BYTES) parts = (size_t)(total / MIN_PART_BYTES);
        if (parts > rows->count) parts = rows->count;
        if (parts < 1) parts = 1;
        cut_parts(rows, parts, total, cut);
    } else {
        cut[0] = rows->count;
    }
    for (size_t k = 0; k < parts; k++) {
        part[k] = (struct part){.algorithm = algorithm, .hex = hex, .rows = rows,
                                .begin = k ? cut[k - 1] : 0, .end = cut[k], .out = out};
    }
    /* the other parts on threads, the last one here */
    for (size_t k = 0; k + 1 < parts; k++) {
        part[k].started = pthread_create(&part[k].thread, NULL, digest_part, &part[k]) == 0;
    }
    digest_part(&part[parts - 1]);
    int failed = part[parts - 1].failed;
    for (size_t k = 0; k + 1 < parts; k++) {
        if (part[k].started) {
            pthread_join(part[k].thread, NULL);
        } else {
            digest_part(&part[k]); /* no thread to be had: here, then */
        }
        failed |= part[k].failed;
    }
    return failed ? -1 : 0;
}
