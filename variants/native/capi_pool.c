/*
 * The memory of a column of digests (capi_column.h: struct digests): its
 * buffers, aligned as Arrow recommends, in huge pages when large, and the
 * large ones kept once freed for the next columns. Counted references: the
 * Column object's and one per exported Arrow array, whose release callback
 * (any thread, no GIL) drops it.
 */
#include <string.h>
#include <sys/mman.h>

#include "capi_column.h"

/* Buffers are aligned as Arrow recommends. */
#define ALIGNMENT 64

/* Buffers of two huge pages or more are asked for in them (capi.h): a fresh
 * 4 KiB page costs a fault each, about as much as hashing a short row. */
static void *aligned(size_t size) {
    void *memory = NULL;
    const size_t alignment = size >= 2 * HUGE_PAGE ? HUGE_PAGE : ALIGNMENT;
    if (posix_memalign(&memory, alignment, size ? size : 1) != 0) return NULL;
#if defined(MADV_HUGEPAGE)
    if (alignment == HUGE_PAGE) madvise(memory, size / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
    return memory;
}

/* Digest buffers of at least KEEP_BYTES, once freed, are kept (KEPT at
 * most) for the next columns that fit in them: memory the kernel hands out
 * fresh is cleared page by page first, which for a million hex SHA-256
 * digests cost about as much as their hex. A buffer's capacity is in the
 * ALIGNMENT bytes before it. Release callbacks free buffers on any thread,
 * without the GIL: each slot is taken and filled by an atomic exchange. */
#define KEEP_BYTES ((size_t)4 << 20)
#define KEPT 4
static unsigned char *kept[KEPT];

static size_t capacity(const unsigned char *data) {
    size_t size;
    memcpy(&size, data - ALIGNMENT, sizeof size);
    return size;
}

static unsigned char *data_new(size_t size) {
    if (size < KEEP_BYTES) return aligned(size);
    for (int k = 0; k < KEPT; k++) {
        unsigned char *data = __atomic_exchange_n(&kept[k], NULL, __ATOMIC_ACQ_REL);
        if (data == NULL) continue;
        if (capacity(data) >= size && capacity(data) / 2 <= size) return data; /* it fits */
        data = __atomic_exchange_n(&kept[k], data, __ATOMIC_ACQ_REL); /* back, for another */
        if (data != NULL) free(data - ALIGNMENT); /* one put there meanwhile: one less kept */
    }
    unsigned char *block = aligned(ALIGNMENT + size);
    if (block == NULL) return NULL;
    memcpy(block, &size, sizeof size);
    return block + ALIGNMENT;
}

static void data_free(unsigned char *data, size_t size) {
    if (data == NULL || size < KEEP_BYTES) {
        free(data);
        return;
    }
    for (int k = 0; k < KEPT && data != NULL; k++) {
        data = __atomic_exchange_n(&kept[k], data, __ATOMIC_ACQ_REL); /* keeps the newest */
    }
    if (data != NULL) free(data - ALIGNMENT);
}

void capi_digests_drop(struct digests *d) {
    if (__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    data_free(d->data, d->count * d->width);
    free(d->validity);
    free(d->offsets);
    free(d);
}

struct digests *capi_digests_keep(struct digests *d) {
    __atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
    return d;
}

struct digests *capi_digests_new(int algorithm, int hex, size_t count, int nullable) {
    struct digests *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->refs = 1;
    d->algorithm = algorithm;
    d->hex = hex;
    d->count = count;
    d->width = (size_t)vn_digest_size(algorithm) * (hex ? 2 : 1);
    d->large = hex && count * d->width > (size_t)INT32_MAX;
    d->data = data_new(count * d->width);
    int ok = d->data != NULL;
    if (ok && nullable) {
        d->validity = aligned((count + 7) / 8);
        ok = d->validity != NULL;
        if (ok) memset(d->validity, 0xff, (count + 7) / 8);
    }
    if (ok && hex) {
        d->offsets = aligned((count + 1) * (d->large ? 8 : 4));
        ok = d->offsets != NULL;
        for (size_t i = 0; ok && i <= count; i++) {
            if (d->large) {
                ((int64_t *)d->offsets)[i] = (int64_t)(i * d->width);
            } else {
                ((int32_t *)d->offsets)[i] = (int32_t)(i * d->width);
            }
        }
    }
    if (!ok) {
        capi_digests_drop(d);
        return NULL;
    }
    return d;
}
