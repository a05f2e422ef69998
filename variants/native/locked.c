/*
 * The cffi bridge's hash objects: the state machine of hash.c behind a
 * per-object mutex. cffi releases the GIL around every call into C, so two
 * threads can be in here with the same object; hashlib promises that their
 * updates do not mix, and that a digest or copy sees whole updates only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locked.h"
#include "many.h"

void vn_start(vn_hash *h, int algorithm, const char *data, size_t length) {
    vn_init(&h->s, algorithm, NULL);
    pthread_mutex_init(&h->lock, NULL);
    vn_absorb(&h->s, (const unsigned char *)data, length);
}

void vn_update(vn_hash *h, const char *data, size_t length) {
    pthread_mutex_lock(&h->lock);
    vn_absorb(&h->s, (const unsigned char *)data, length);
    pthread_mutex_unlock(&h->lock);
}

int vn_digest(vn_hash *h, char *out) {
    vn_state s;
    pthread_mutex_lock(&h->lock);
    s = h->s;
    pthread_mutex_unlock(&h->lock);
    return vn_final(&s, (unsigned char *)out);
}

void vn_copy(vn_hash *dst, vn_hash *src) {
    pthread_mutex_lock(&src->lock);
    dst->s = src->s;
    pthread_mutex_unlock(&src->lock);
    pthread_mutex_init(&dst->lock, NULL);
}

static int by_address(const void *a, const void *b) {
    const uintptr_t x = (uintptr_t)*(vn_hash *const *)a, y = (uintptr_t)*(vn_hash *const *)b;
    return (x > y) - (x < y);
}

int vn_update_many(vn_hash *const *hashes, size_t count, const unsigned char *const *data,
                   const size_t *lengths) {
    vn_hash **order = malloc(sizeof *order * (count ? count : 1));
    vn_state **states = malloc(sizeof *states * (count ? count : 1));
    if (order == NULL || states == NULL) {
        free(order);
        free(states);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        order[i] = hashes[i];
        states[i] = &hashes[i]->s;
    }
    /* in address order, so that two calls cannot wait on each other */
    qsort(order, count, sizeof *order, by_address);
    for (size_t i = 0; i < count; i++) pthread_mutex_lock(&order[i]->lock);
    vn_absorb_many(states, count, data, lengths);
    for (size_t i = count; i-- > 0;) pthread_mutex_unlock(&order[i]->lock);
    free(order);
    free(states);
    return 0;
}
