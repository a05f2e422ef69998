/*
 * Many messages at once (many.c's lanes), each without the GIL: digest_many
 * (a batch of messages, read a window at a time), absorb_many (several hash
 * objects streamed together: variants-sum's large files) and digest_files
 * (small files opened, read and hashed in C by files.c: its many small files).
 */
#include "capi.h"

#include <string.h>

#include "padding.h"

/* The bytes of the `count` objects of `items`, for C with the GIL released.
 * bytes are read in place (immutable, and held by the caller's tuple); any
 * other buffer is held in views[] until release_all. On an error, hashlib's,
 * naming the object's index (`first` + its place in items, or places[] of
 * it), and nothing is held. */
struct buffers {
    const unsigned char **data;
    size_t *lengths;
    Py_buffer *views; /* one per object that is not bytes, in order */
    Py_ssize_t held;
};

static void release_all(struct buffers *b) {
    for (Py_ssize_t i = 0; i < b->held; i++) PyBuffer_Release(&b->views[i]);
    PyMem_Free(b->views);
    PyMem_Free(b->data);
    PyMem_Free(b->lengths);
    b->views = NULL;
    b->data = NULL;
    b->lengths = NULL;
    b->held = 0;
}

static int get_all(struct buffers *b, PyObject *const *items, Py_ssize_t count, const char *what,
                   Py_ssize_t first, const Py_ssize_t *places) {
    Py_ssize_t others = 0;
    for (Py_ssize_t i = 0; i < count; i++) others += !PyBytes_CheckExact(items[i]);
    b->held = 0;
    b->data = PyMem_Malloc(sizeof *b->data * (size_t)(count ? count : 1));
    b->lengths = PyMem_Malloc(sizeof *b->lengths * (size_t)(count ? count : 1));
    b->views = PyMem_Malloc(sizeof *b->views * (size_t)(others ? others : 1));
    if (b->data == NULL || b->lengths == NULL || b->views == NULL) {
        release_all(b);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = items[i];
        if (PyBytes_CheckExact(item)) {
            b->data[i] = (const unsigned char *)PyBytes_AS_STRING(item);
            b->lengths[i] = (size_t)PyBytes_GET_SIZE(item);
            continue;
        }
        Py_buffer *view = &b->views[b->held];
        if (capi_get_buffer(item, view) < 0) {
            /* hashlib's error, with the index in front */
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            PyErr_NormalizeException(&type, &value, &traceback);
            PyErr_Format(type, "%s[%zd]: %S", what, first + (places ? places[i] : i), value);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(traceback);
            release_all(b);
            return -1;
        }
        b->held++;
        b->data[i] = view->buf;
        b->lengths[i] = (size_t)view->len;
    }
    return 0;
}

/* Messages a call of digest_many hashes at a time on one thread. */
#define MANY_WINDOW 4096

/* A window's messages sorted for the lanes (one thread, a many-kernel with
 * lanes): the bytes objects shorter than a block are padded right away,
 * with the GIL held, into blocks of ours (one padded block, or two for 56
 * to 63 bytes; the SHA-512 core: 112 to 127 of its 128-byte blocks); so C hashes them without the GIL and without a reference to
 * their objects, and in full lanes. The others ("rest": longer, or not
 * bytes) go through get_all and the scheduler. Numbers are places in the
 * window. */
struct window {
    unsigned char *one, *two; /* MANY_WINDOW blocks, and twice that */
    size_t *job_one, *job_two;
    Py_ssize_t *rest;
    size_t ones, twos;
    Py_ssize_t rests;
    unsigned char *out_rest; /* the rest's digests, MANY_WINDOW of them */
};

#define PREFETCH 16

static void sort_window(struct window *w, int algorithm, PyObject *const *items, Py_ssize_t n) {
    const Py_ssize_t block = vn_block_size(algorithm), room = VN_LENGTH_ROOM(vn_wide(algorithm));
    w->ones = w->twos = 0;
    w->rests = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
#if defined(__GNUC__)
        /* the objects further on, header and bytes (a miss each, else) */
        if (i + PREFETCH < n) {
            __builtin_prefetch(items[i + PREFETCH]);
            __builtin_prefetch((const char *)items[i + PREFETCH] + 64);
        }
#endif
        if (PyBytes_CheckExact(item)) {
            const Py_ssize_t length = PyBytes_GET_SIZE(item);
            const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(item);
            if (length < room) {
                pad(algorithm, data, (uint64_t)length, w->one + block * w->ones);
                w->job_one[w->ones++] = (size_t)i;
                continue;
            }
            if (length < block) {
                pad(algorithm, data, (uint64_t)length, w->two + 2 * block * w->twos);
                w->job_two[w->twos++] = (size_t)i;
                continue;
            }
        }
        w->rest[w->rests++] = i;
    }
}

/* calls making fewer objects than this keep the allocator as it is: all of
 * the last arena is mapped in, which a small result would not fill */
#define PREFAULT_ROWS 65536

/* New bytes objects of `size` bytes at result[start:start + count], their
 * bytes left for the kernels to write: at[i] is the i-th one's. */
static int make_bytes(PyObject *result, Py_ssize_t start, Py_ssize_t count, size_t size,
                      unsigned char **at) {
    PyObject **slot = ((PyListObject *)result)->ob_item + start;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (item == NULL) return -1;
        at[i] = (unsigned char *)PyBytes_AS_STRING(item);
        slot[i] = item;
    }
    return 0;
}

/* New bytes objects of `size` bytes each from out, at slot[0 .. count). */
static inline int fill_bytes(PyObject **slot, const unsigned char *out, Py_ssize_t count,
                             size_t size) {
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (item == NULL) return -1;
        memcpy(PyBytes_AS_STRING(item), out + (size_t)i * size, size);
        slot[i] = item;
    }
    return 0;
}

/* The digests at out, count * size bytes, as bytes or hex strings into
 * result[start:start + count]. */
static int fill_digests(PyObject *result, Py_ssize_t start, const unsigned char *out,
                        Py_ssize_t count, int size, int hex) {
    PyObject **slot = ((PyListObject *)result)->ob_item + start;
    if (hex) {
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *item = PyUnicode_New(2 * size, 127);
            if (item == NULL) return -1;
            vn_hex(out + (size_t)i * (size_t)size, (size_t)size,
                   (char *)PyUnicode_1BYTE_DATA(item));
            slot[i] = item;
        }
        return 0;
    }
    /* each size its own loop, so that the copy is a move or two, not a call of memcpy */
    switch (size) {
    case 16:
        return fill_bytes(slot, out, count, 16);
    case 20:
        return fill_bytes(slot, out, count, 20);
    case 28:
        return fill_bytes(slot, out, count, 28);
    case 48:
        return fill_bytes(slot, out, count, 48);
    case 64:
        return fill_bytes(slot, out, count, 64);
    default:
        return fill_bytes(slot, out, count, 32);
    }
}

/* Hash window [start, start + n) of messages, message i's digest to out[i]
 * (`w` NULL: out[0] + i * size), the GIL released while C hashes; -1 with an
 * exception set. `w` NULL: every message through get_all and the scheduler
 * (on `threads` threads). */
static int digest_window(struct window *w, PyObject **held, PyObject *const *items,
                         Py_ssize_t start, Py_ssize_t n, int algorithm, long kernel,
                         long threads, unsigned char *const *out) {
    const int size = vn_digest_size(algorithm);
    Py_ssize_t rests = n;
    if (w != NULL) {
        sort_window(w, algorithm, items, n);
        rests = w->rests;
        for (Py_ssize_t j = 0; j < rests; j++) held[j] = Py_NewRef(items[w->rest[j]]);
    } else {
        for (Py_ssize_t i = 0; i < n; i++) held[i] = Py_NewRef(items[i]);
    }
    struct buffers b = {NULL, NULL, NULL, 0};
    int status = 0;
    if (rests) status = get_all(&b, held, rests, "messages", start, w ? w->rest : NULL);
    if (status == 0) {
        Py_BEGIN_ALLOW_THREADS
        if (w != NULL) {
            status = vn_digest_padded_with((int)kernel, algorithm, 1, w->ones, w->one,
                                           w->job_one, out);
            if (status == 0) {
                status = vn_digest_padded_with((int)kernel, algorithm, 2, w->twos, w->two,
                                               w->job_two, out);
            }
            if (status == 0 && rests) {
                status = vn_digest_many_with((int)kernel, algorithm, (size_t)rests, b.data,
                                             b.lengths, w->out_rest, 1);
                for (Py_ssize_t j = 0; status == 0 && j < rests; j++) {
                    memcpy(out[w->rest[j]], w->out_rest + (size_t)j * (size_t)size,
                           (size_t)size);
                }
            }
        } else {
            status = vn_digest_many_with((int)kernel, algorithm, (size_t)n, b.data, b.lengths,
                                         out[0], (int)threads);
        }
        Py_END_ALLOW_THREADS
        if (status == -1) {
            PyErr_Format(PyExc_ValueError, "no many-kernel %ld runs on this CPU", kernel);
        } else if (status < 0) {
            PyErr_NoMemory();
        }
        if (rests) release_all(&b);
    }
    for (Py_ssize_t j = 0; j < rests; j++) Py_DECREF(held[j]);
    return status < 0 ? -1 : 0;
}

PyDoc_STRVAR(digest_many_doc,
             "digest_many($module, algorithm, messages, hexdigest, threads, kernel=-1, /)\n--\n\n"
             "The digests of the messages (an iterable of bytes-like objects) with algorithm "
             "(its number: variants.native._kernels.ALGORITHMS), in order, hashed in the lanes of the many-kernel "
             "number `kernel` (-1: the chosen one) on `threads` threads without the GIL.");

static void *window_part(size_t bytes) { return PyMem_Malloc(bytes ? bytes : 1); }

static void free_window(struct window *w) {
    PyMem_Free(w->one);
    PyMem_Free(w->two);
    PyMem_Free(w->job_one);
    PyMem_Free(w->job_two);
    PyMem_Free(w->rest);
    PyMem_Free(w->out_rest);
}

static PyObject *module_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs < 4 || nargs > 5) {
        PyErr_Format(PyExc_TypeError, "digest_many() takes 4 or 5 arguments (%zd given)", nargs);
        return NULL;
    }
    const int algorithm = capi_algorithm(args[0]);
    if (algorithm < 0) return NULL;
    const int hex = PyObject_IsTrue(args[2]);
    const long threads = PyLong_AsLong(args[3]);
    const long kernel = nargs == 5 ? PyLong_AsLong(args[4]) : -1;
    if (hex < 0 || ((threads == -1 || kernel == -1) && PyErr_Occurred())) return NULL;
    if (threads < 1) { /* more than VN_MANY_MAX_THREADS: that many */
        PyErr_Format(PyExc_ValueError, "threads must be 1 or more, not %ld", threads);
        return NULL;
    }
    /* a kernel this CPU cannot run: the scheduler's error at the first window */
    const int lanes = vn_many_lanes((int)kernel, algorithm);
#if defined(Py_GIL_DISABLED)
    /* Without a GIL another thread could change a list while it is read: a copy. */
    PyObject *messages = PySequence_Tuple(args[1]);
#else
    /* A list or tuple as it is (a copy would touch every message once more): each
     * window of messages is read with the GIL held, the short bytes copied and
     * the others held by references of ours while C hashes them without the GIL. */
    PyObject *messages = PySequence_Fast(args[1], "messages must be an iterable");
#endif
    if (messages == NULL) return NULL;
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(messages);
    const int size = vn_digest_size(algorithm);
    /* One thread takes the messages a window at a time, so that the pointers and
     * digests stay in the cache and in memory already mapped (a fresh page costs
     * about as much as hashing a short message); several threads need them all at once. */
    const Py_ssize_t window = threads > 1 ? (count ? count : 1) : MANY_WINDOW;
    const Py_ssize_t most = count < window ? (count ? count : 1) : window;
    struct window w = {NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
    struct window *sorted = threads == 1 && lanes == 1 ? &w : NULL;
    PyObject *result = PyList_New(count);
    unsigned char *out = PyMem_Malloc((size_t)size * (size_t)most);
    unsigned char **outs = PyMem_Malloc(sizeof *outs * (size_t)most);
    PyObject **held = PyMem_Malloc(sizeof *held * (size_t)most);
    int failed = result == NULL || out == NULL || outs == NULL || held == NULL;
    if (sorted != NULL && !failed) {
        const size_t slots = (size_t)most;
        const size_t block = (size_t)vn_block_size(algorithm);
        w.one = window_part(block * slots);
        w.two = window_part(2 * block * slots);
        w.job_one = window_part(sizeof *w.job_one * slots);
        w.job_two = window_part(sizeof *w.job_two * slots);
        w.rest = window_part(sizeof *w.rest * slots);
        w.out_rest = window_part((size_t)size * slots);
        failed = !w.one || !w.two || !w.job_one || !w.job_two || !w.rest || !w.out_rest;
    }
    if (failed) {
        if (result != NULL) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t start = 0; start < count; start += window) {
        const Py_ssize_t n = count - start < window ? count - start : window;
        if (PySequence_Fast_GET_SIZE(messages) < start + n) {
            PyErr_SetString(PyExc_RuntimeError, "the messages changed size during digest_many");
            goto fail;
        }
        PyObject *const *items = PySequence_Fast_ITEMS(messages) + start;
        /* Sorted binary digests go straight into their objects, made first;
         * the others through out. */
        const int direct = sorted != NULL && !hex, large = count >= PREFAULT_ROWS;
        int began = direct && large ? capi_prefault_begin() : 0, filled = 0;
        if (direct) {
            filled = make_bytes(result, start, n, (size_t)size, outs);
        } else {
            for (Py_ssize_t i = 0; i < n; i++) outs[i] = out + (size_t)i * (size_t)size;
        }
        capi_prefault_end(began);
        if (filled < 0 ||
            digest_window(sorted, held, items, start, n, algorithm, kernel, threads, outs) < 0) {
            goto fail;
        }
        if (!direct) {
            began = large ? capi_prefault_begin() : 0;
            filled = fill_digests(result, start, out, n, size, hex);
            capi_prefault_end(began);
            if (filled < 0) goto fail;
        }
    }
    capi_prefault_done();
    free_window(&w);
    PyMem_Free(held);
    PyMem_Free(outs);
    PyMem_Free(out);
    Py_DECREF(messages);
    return result;
fail:
    capi_prefault_done();
    free_window(&w);
    PyMem_Free(held);
    PyMem_Free(outs);
    PyMem_Free(out);
    Py_XDECREF(result);
    Py_DECREF(messages);
    return NULL;
}

static int by_address(const void *a, const void *b) {
    const HashObject *x = *(HashObject *const *)a, *y = *(HashObject *const *)b;
    return (x > y) - (x < y);
}

PyDoc_STRVAR(absorb_many_doc,
             "absorb_many($module, hashes, chunks, /)\n--\n\n"
             "Update each hash object (a tuple of distinct HASH objects of one core: MD5; "
             "SHA-1; SHA-224 and SHA-256; or SHA-384 and the SHA-512s) with the chunk of the same index, in the lanes of the chosen "
             "many-kernel, without the GIL: as h.update(chunk) for each, several files at once.");

static PyObject *module_absorb_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "absorb_many() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyTypeObject *type = state_of_module(module)->hash_type;
    PyObject *hashes = PySequence_Tuple(args[0]);
    if (hashes == NULL) return NULL;
    PyObject *chunks = PySequence_Tuple(args[1]);
    if (chunks == NULL) {
        Py_DECREF(hashes);
        return NULL;
    }
    const Py_ssize_t count = PyTuple_GET_SIZE(hashes);
    HashObject **objects = NULL, **order = NULL;
    vn_state **states = NULL;
    struct buffers b = {NULL, NULL, NULL, 0};
    PyObject *result = NULL;
    if (PyTuple_GET_SIZE(chunks) != count) {
        PyErr_SetString(PyExc_ValueError, "as many chunks as hash objects are needed");
        goto done;
    }
    objects = PyMem_Malloc(sizeof *objects * (size_t)(count ? count : 1));
    order = PyMem_Malloc(sizeof *order * (size_t)(count ? count : 1));
    states = PyMem_Malloc(sizeof *states * (size_t)(count ? count : 1));
    if (objects == NULL || order == NULL || states == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(hashes, i);
        if (!Py_IS_TYPE(item, type)) {
            PyErr_Format(PyExc_TypeError, "hashes[%zd] is not a native hash object", i);
            goto done;
        }
        objects[i] = order[i] = (HashObject *)item;
        states[i] = &objects[i]->s;
        if (vn_core_of(objects[i]->s.algorithm) != vn_core_of(objects[0]->s.algorithm)) {
            PyErr_SetString(PyExc_ValueError,
                            "only objects of one core can share the lanes (MD5; SHA-1; "
                            "SHA-224 and SHA-256; SHA-384 and the SHA-512s)");
            goto done;
        }
    }
    /* Locks are taken in address order, so that two calls cannot wait on each other. */
    qsort(order, (size_t)count, sizeof *order, by_address);
    for (Py_ssize_t i = 1; i < count; i++) {
        if (order[i] == order[i - 1]) {
            PyErr_SetString(PyExc_ValueError, "a hash object appears twice");
            goto done;
        }
    }
    if (get_all(&b, PySequence_Fast_ITEMS(chunks), count, "chunks", 0, NULL) < 0) goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!start_locking(order[i])) {
            PyErr_NoMemory();
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) lock_detached(order[i]);
    vn_absorb_many(states, (size_t)count, b.data, b.lengths);
    for (Py_ssize_t i = count; i-- > 0;) unlock(order[i]);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    release_all(&b);
    PyMem_Free(objects);
    PyMem_Free(order);
    PyMem_Free(states);
    Py_DECREF(hashes);
    Py_DECREF(chunks);
    return result;
}

PyMethodDef capi_many_methods[] = {
    {"digest_many", (PyCFunction)(void (*)(void))module_digest_many, METH_FASTCALL,
     digest_many_doc},
    {"absorb_many", (PyCFunction)(void (*)(void))module_absorb_many, METH_FASTCALL,
     absorb_many_doc},
    {NULL, NULL, 0, NULL},
};
