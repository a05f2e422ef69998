/*
 * The hash state machine around the kernels: start, update with buffering,
 * digest (which leaves the object usable), copy, and a one-shot digest of a
 * whole message. Each object has a mutex: the Python binding releases the
 * GIL around every call, so two threads can be in here with the same
 * object, and hashlib promises that their updates do not mix.
 */
#include <string.h>

#include "native.h"

static const uint32_t md5_iv[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
static const uint32_t sha224_iv[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                      0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
static const uint32_t sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

int vn_digest_size(int algorithm) {
    return algorithm == VN_MD5 ? 16 : algorithm == VN_SHA224 ? 28 : 32;
}

/* The initial chaining state of `algorithm`, and the kernel it runs unless told otherwise. */
static vn_blocks_fn *initial(int algorithm, uint32_t state[8]) {
    if (algorithm == VN_MD5) {
        memset(state, 0, 8 * sizeof state[0]);
        memcpy(state, md5_iv, sizeof md5_iv);
        return vn_chosen(VN_CORE_MD5);
    }
    memcpy(state, algorithm == VN_SHA224 ? sha224_iv : sha256_iv, 8 * sizeof state[0]);
    return vn_chosen(VN_CORE_SHA256);
}

/* Hash `length` bytes: complete a buffered block, run the whole blocks
 * straight from `data`, buffer what is left. The caller holds the lock. */
static void absorb(vn_hash *h, const unsigned char *data, size_t length) {
    if (!length) return;
    const size_t used = (size_t)(h->length % 64);
    h->length += length;
    if (used) {
        const size_t need = 64 - used;
        if (length < need) {
            memcpy(h->buffer + used, data, length);
            return;
        }
        memcpy(h->buffer + used, data, need);
        h->blocks(h->state, h->buffer, 1);
        data += need;
        length -= need;
    }
    const size_t whole = length / 64;
    if (whole) {
        h->blocks(h->state, data, whole);
        data += 64 * whole;
        length -= 64 * whole;
    }
    if (length) memcpy(h->buffer, data, length);
}

void vn_start_with(vn_hash *h, int algorithm, vn_blocks_fn *blocks, const char *data,
                   size_t length) {
    vn_blocks_fn *chosen = initial(algorithm, h->state);
    h->blocks = blocks ? blocks : chosen;
    h->algorithm = algorithm;
    h->length = 0;
    pthread_mutex_init(&h->lock, NULL);
    absorb(h, (const unsigned char *)data, length);
}

void vn_start(vn_hash *h, int algorithm, const char *data, size_t length) {
    vn_start_with(h, algorithm, NULL, data, length);
}

void vn_update(vn_hash *h, const char *data, size_t length) {
    pthread_mutex_lock(&h->lock);
    absorb(h, (const unsigned char *)data, length);
    pthread_mutex_unlock(&h->lock);
}

/* Pad the message of `length` bytes whose last `length % 64` are `tail` (the
 * blocks before them are already in `state`), run the last block or two, and
 * write the digest of `algorithm` to `out`. Returns the digest size. */
static int finish(int algorithm, vn_blocks_fn *blocks, uint32_t *state, const unsigned char *tail,
                  uint64_t length, char *out) {
    /* the tail, 0x80, zeros, and the length in bits as 64 bits: one block or two */
    unsigned char last[128];
    const size_t used = (size_t)(length % 64);
    const size_t size = used < 56 ? 64 : 128;
    const uint64_t bits = length << 3;
    if (used) memcpy(last, tail, used);
    last[used] = 0x80;
    memset(last + used + 1, 0, size - 8 - (used + 1));
    for (int i = 0; i < 8; i++) {
        const int shift = algorithm == VN_MD5 ? 8 * i : 56 - 8 * i;
        last[size - 8 + i] = (unsigned char)(bits >> shift);
    }
    blocks(state, last, size / 64);

    /* MD5 writes its words little-endian, SHA-2 big-endian */
    const int digest_size = vn_digest_size(algorithm);
    unsigned char *o = (unsigned char *)out;
    for (int i = 0; i < digest_size / 4; i++) {
        for (int j = 0; j < 4; j++) {
            const int shift = algorithm == VN_MD5 ? 8 * j : 24 - 8 * j;
            o[4 * i + j] = (unsigned char)(state[i] >> shift);
        }
    }
    return digest_size;
}

int vn_digest(vn_hash *h, char *out) {
    uint32_t state[8];
    unsigned char tail[64];
    pthread_mutex_lock(&h->lock);
    memcpy(state, h->state, sizeof state);
    const uint64_t length = h->length;
    memcpy(tail, h->buffer, (size_t)(length % 64));
    pthread_mutex_unlock(&h->lock);
    return finish(h->algorithm, h->blocks, state, tail, length, out);
}

int vn_oneshot(int algorithm, const char *data, size_t length, char *out) {
    uint32_t state[8];
    vn_blocks_fn *blocks = initial(algorithm, state);
    const size_t whole = length / 64;
    if (whole) blocks(state, (const unsigned char *)data, whole);
    const unsigned char *tail = length % 64 ? (const unsigned char *)data + 64 * whole : NULL;
    return finish(algorithm, blocks, state, tail, length, out);
}

void vn_copy(vn_hash *dst, vn_hash *src) {
    pthread_mutex_lock(&src->lock);
    memcpy(dst->state, src->state, sizeof dst->state);
    dst->length = src->length;
    memcpy(dst->buffer, src->buffer, (size_t)(src->length % 64));
    dst->blocks = src->blocks;
    dst->algorithm = src->algorithm;
    pthread_mutex_unlock(&src->lock);
    pthread_mutex_init(&dst->lock, NULL);
}
