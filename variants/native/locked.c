/*
 * The cffi bridge's hash objects: the state machine of hash.c behind a
 * per-object mutex. cffi releases the GIL around every call into C, so two
 * threads can be in here with the same object; hashlib promises that their
 * updates do not mix, and that a digest or copy sees whole updates only.
 */
#include <string.h>

#include "native.h"

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
