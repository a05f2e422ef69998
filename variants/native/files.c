/*
 * Small files read and hashed in C, without Python: variants-sum's many
 * small files. Each part of the names is read on a thread of its own into a
 * batch buffer, and every batch's digests are taken in the lanes at once
 * (vn_digest_many). See native.h: vn_digest_files.
 */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "many.h"

struct small_files {
    size_t count; /* names */
    const char *const *names;
    int *status;             /* per name: 0 digest, > 0 errno, -1 not small or not regular */
    size_t *offset, *length; /* per read file: where its bytes are in `bytes` */
    unsigned char *bytes;    /* the batch being read */
    size_t used;
    unsigned char *out; /* per name: its digest */
    int algorithm;
    size_t small;
};

/* Read file `i` whole into the batch if it is a regular file of at most `small`
 * bytes; its status otherwise. */
static int read_small(struct small_files *f, size_t i) {
#ifdef O_CLOEXEC
    const int fd = open(f->names[i], O_RDONLY | O_CLOEXEC);
#else
    const int fd = open(f->names[i], O_RDONLY);
#endif
    if (fd < 0) return errno;
    struct stat st;
    int status = -1;
    if (fstat(fd, &st) != 0) {
        status = errno;
    } else if (S_ISREG(st.st_mode) && (size_t)st.st_size <= f->small) {
        /* read until the end, which may come sooner or later than the size said */
        const size_t room = f->small + 1;
        size_t got = 0;
        for (;;) {
            const ssize_t n = read(fd, f->bytes + f->used + got, room - got);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                status = errno;
                break;
            }
            if (n == 0) {
                status = 0;
                break;
            }
            got += (size_t)n;
            if (got > f->small) break; /* it grew: not small after all */
        }
        if (status == 0) {
            f->offset[i] = f->used;
            f->length[i] = got;
            f->used += got;
        }
    }
    close(fd);
    return status;
}

/* The digests of the files read since `first`, into their slots. */
static void digest_batch(struct small_files *f, size_t first, size_t end) {
    const size_t slots = end - first + 1, size = (size_t)vn_digest_size(f->algorithm);
    const unsigned char **data = malloc(sizeof *data * slots);
    size_t *lengths = malloc(sizeof *lengths * slots), *which = malloc(sizeof *which * slots);
    unsigned char *out = malloc(size * slots);
    size_t n = 0;
    if (data && lengths && which && out) {
        for (size_t i = first; i < end; i++) {
            if (f->status[i] != 0) continue;
            data[n] = f->bytes + f->offset[i];
            lengths[n] = f->length[i];
            which[n++] = i;
        }
        vn_digest_many(f->algorithm, n, data, lengths, out, 1);
        for (size_t k = 0; k < n; k++) memcpy(f->out + which[k] * size, out + k * size, size);
    } else {
        for (size_t i = first; i < end; i++) {
            if (f->status[i] == 0) f->status[i] = ENOMEM;
        }
    }
    free(data);
    free(lengths);
    free(which);
    free(out);
}

static void *read_and_digest(void *arg) {
    struct small_files *f = arg;
    size_t first = 0;
    for (size_t i = 0; i < f->count; i++) {
        if (f->used + f->small + 1 > VN_FILES_BATCH_BYTES + f->small && i > first) {
            digest_batch(f, first, i);
            f->used = 0;
            first = i;
        }
        f->status[i] = read_small(f, i);
    }
    digest_batch(f, first, f->count);
    return NULL;
}

/* The files in `count` contiguous parts, each on a thread of its own but the
 * last (the reads wait on the kernel, not on this CPU: two parts pay even on
 * one core). A part whose thread could not start runs here. */
static void read_and_digest_parts(struct small_files *parts, int count) {
    pthread_t threads[VN_FILES_MAX_THREADS];
    int started[VN_FILES_MAX_THREADS] = {0};
    for (int k = 0; k + 1 < count; k++) {
        started[k] = pthread_create(&threads[k], NULL, read_and_digest, &parts[k]) == 0;
    }
    read_and_digest(&parts[count - 1]);
    for (int k = 0; k + 1 < count; k++) {
        if (started[k]) {
            pthread_join(threads[k], NULL);
        } else {
            read_and_digest(&parts[k]);
        }
    }
}

int vn_digest_files(int algorithm, size_t count, const char *const *names, size_t small,
                    int threads, int *status, unsigned char *out) {
    if (threads < 1) threads = 1;
    if (threads > VN_FILES_MAX_THREADS) threads = VN_FILES_MAX_THREADS;
    if (small > VN_FILES_BATCH_BYTES) small = VN_FILES_BATCH_BYTES;
    const size_t size = (size_t)vn_digest_size(algorithm), slots = count ? count : 1;
    const int parts = count < (size_t)threads ? (count ? (int)count : 1) : threads;
    struct small_files part[VN_FILES_MAX_THREADS];
    memset(part, 0, sizeof part);
    size_t *offset = malloc(sizeof *offset * slots);
    size_t *length = malloc(sizeof *length * slots);
    int ready = offset && length;
    for (int k = 0; ready && k < parts; k++) {
        /* part k: names [count * k / parts, count * (k + 1) / parts) */
        const size_t first = count * (size_t)k / (size_t)parts;
        const size_t end = count * (size_t)(k + 1) / (size_t)parts;
        part[k] = (struct small_files){end - first,    names + first,  status + first,
                                       offset + first, length + first, NULL,
                                       0,              out + first * size, algorithm,
                                       small};
        part[k].bytes = malloc(VN_FILES_BATCH_BYTES + small + 1);
        ready = part[k].bytes != NULL;
    }
    if (ready) read_and_digest_parts(part, parts);
    for (int k = 0; k < parts; k++) free(part[k].bytes);
    free(offset);
    free(length);
    return ready ? 0 : ENOMEM;
}
