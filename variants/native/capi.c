/*
 * variants.native._capi: the native kernels as a CPython extension type,
 * written against the C API (no cffi, no Cython): the native variant on CPython.
 *
 * Shaped after CPython's own Modules/md5module.c and sha2module.c:
 *  - multi-phase initialisation, one heap type (HASH, as _hashlib's) kept in
 *    the module's state; the type cannot be called: the module functions
 *    md5(), sha224() and sha256() are the constructors, with hashlib's
 *    signature, parsed by hand from METH_FASTCALL | METH_KEYWORDS;
 *  - the GIL is released only for inputs of at least GIL_MINSIZE bytes, as
 *    hashlib does; only then, and from then on, does the object take its
 *    lock (PyMutex from 3.13, a PyThread lock before). On the free-threaded
 *    build there is no GIL to protect a state, so the lock is always taken
 *    (an uncontended PyMutex is one atomic operation) and the module
 *    declares Py_MOD_GIL_NOT_USED;
 *  - digest() and hexdigest() write straight into the new bytes or str.
 *
 * Then many messages at once (many.c's lanes), each without the GIL:
 * digest_many (a batch of messages, read a window at a time), absorb_many
 * (several hash objects streamed together: variants-sum's large files) and
 * digest_files (small files opened, read and hashed in C: its many small
 * files); and what the tests and the study ask of the kernels (kernels,
 * chosen, ran, compress).
 *
 * The state machine (hash.c) and the kernels and their dispatch are the
 * same C as the cffi bridge's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native.h"

/* hashlib's threshold: shorter inputs are hashed with the GIL held. */
#define GIL_MINSIZE 2048

#if PY_VERSION_HEX < 0x030A0000 /* 3.9 */
static inline PyObject *Py_NewRef(PyObject *obj) {
    Py_INCREF(obj);
    return obj;
}
static int PyModule_AddObjectRef(PyObject *module, const char *name, PyObject *value) {
    Py_INCREF(value);
    if (PyModule_AddObject(module, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}
#endif

#if PY_VERSION_HEX >= 0x030D0000
#define VN_PYMUTEX 1
#endif

typedef struct {
    PyTypeObject *hash_type;
    PyObject *names[3]; /* "md5", "sha224", "sha256", by algorithm number */
} module_state;

typedef struct {
    PyObject_HEAD
#if defined(VN_PYMUTEX)
    PyMutex mutex;
#if !defined(Py_GIL_DISABLED)
    char use_mutex; /* set for good by the first update that releases the GIL */
#endif
#else
    PyThread_type_lock lock; /* made by the first update that releases the GIL */
#endif
    vn_state s;
} HashObject;

static inline module_state *state_of_module(PyObject *module) {
    return (module_state *)PyModule_GetState(module);
}

/* ---- the object's lock ---------------------------------------------------- */

/* Whether the state must be locked: always without a GIL; with one, once
 * an update has released it. Read and set only while holding the GIL. */
static inline int uses_lock(HashObject *self) {
#if defined(Py_GIL_DISABLED)
    (void)self;
    return 1;
#elif defined(VN_PYMUTEX)
    return self->use_mutex;
#else
    return self->lock != NULL;
#endif
}

/* Make the object take its lock from now on (with the GIL held). Returns
 * 0 if no lock could be made: then the caller keeps the GIL while hashing. */
static int start_locking(HashObject *self) {
#if defined(Py_GIL_DISABLED)
    (void)self;
#elif defined(VN_PYMUTEX)
    self->use_mutex = 1;
#else
    if (self->lock == NULL) {
        self->lock = PyThread_allocate_lock();
        if (self->lock == NULL) return 0;
    }
#endif
    return 1;
}

/* Take the lock while the thread holds the GIL (or is attached): waiting
 * lets other threads run. */
static inline void lock_attached(HashObject *self) {
#if defined(VN_PYMUTEX)
    PyMutex_Lock(&self->mutex); /* detaches the thread state while it waits */
#else
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
#endif
}

/* Take the lock with the GIL released. */
static inline void lock_detached(HashObject *self) {
#if defined(VN_PYMUTEX)
    PyMutex_Lock(&self->mutex);
#else
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
#endif
}

static inline void unlock(HashObject *self) {
#if defined(VN_PYMUTEX)
    PyMutex_Unlock(&self->mutex);
#else
    PyThread_release_lock(self->lock);
#endif
}

/* ---- buffers, with hashlib's errors --------------------------------------- */

/* The bytes of `obj`, as hashlib takes them (Modules/hashlib.h). */
static int get_buffer(PyObject *obj, Py_buffer *view) {
    if (PyUnicode_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "Strings must be encoded before hashing");
        return -1;
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_SetString(PyExc_TypeError, "object supporting the buffer API required");
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) == -1) return -1;
    if (view->ndim > 1) {
        PyErr_SetString(PyExc_BufferError, "Buffer must be single dimension");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Hash `length` bytes into `self`, which other threads may be using
 * unless it is `fresh` (being made by its constructor). */
static void absorb(HashObject *self, const unsigned char *data, Py_ssize_t length, int fresh) {
    if (length >= GIL_MINSIZE && fresh) { /* nobody else can see it yet: no lock */
        Py_BEGIN_ALLOW_THREADS
        vn_absorb(&self->s, data, (size_t)length);
        Py_END_ALLOW_THREADS
    } else if (length >= GIL_MINSIZE && start_locking(self)) {
        Py_BEGIN_ALLOW_THREADS
        lock_detached(self);
        vn_absorb(&self->s, data, (size_t)length);
        unlock(self);
        Py_END_ALLOW_THREADS
    } else if (uses_lock(self)) {
        lock_attached(self);
        vn_absorb(&self->s, data, (size_t)length);
        unlock(self);
    } else {
        vn_absorb(&self->s, data, (size_t)length);
    }
}

/* Hash the bytes of `obj` into `self`; -1 with hashlib's error if it has none. */
static int absorb_object(HashObject *self, PyObject *obj, int fresh) {
    if (PyBytes_CheckExact(obj)) { /* immutable: no buffer to hold */
        absorb(self, (const unsigned char *)PyBytes_AS_STRING(obj), PyBytes_GET_SIZE(obj), fresh);
        return 0;
    }
    Py_buffer view;
    if (get_buffer(obj, &view) < 0) return -1;
    absorb(self, (const unsigned char *)view.buf, view.len, fresh);
    PyBuffer_Release(&view);
    return 0;
}

/* ---- the HASH type ------------------------------------------------------------ */

static HashObject *new_object(PyTypeObject *type) {
    HashObject *self = PyObject_New(HashObject, type); /* a new reference to type, too */
    if (self == NULL) return NULL;
#if defined(VN_PYMUTEX)
    self->mutex = (PyMutex){0};
#if !defined(Py_GIL_DISABLED)
    self->use_mutex = 0;
#endif
#else
    self->lock = NULL;
#endif
    return self;
}

static void hash_dealloc(HashObject *self) {
    PyTypeObject *type = Py_TYPE(self);
#if !defined(VN_PYMUTEX)
    if (self->lock != NULL) PyThread_free_lock(self->lock);
#endif
    PyObject_Free(self);
    Py_DECREF(type);
}

/* The digest of everything so far, into `out`; returns its size. */
static int final(HashObject *self, unsigned char *out) {
    int size;
    if (uses_lock(self)) {
        lock_attached(self);
        size = vn_final(&self->s, out);
        unlock(self);
    } else {
        size = vn_final(&self->s, out);
    }
    return size;
}

PyDoc_STRVAR(update_doc, "update($self, data, /)\n--\n\n"
                         "Hash the bytes of data (any bytes-like object) after what came before.");

static PyObject *hash_update(HashObject *self, PyObject *data) {
    if (absorb_object(self, data, 0) < 0) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(digest_doc, "digest($self, /)\n--\n\n"
                         "The digest of everything hashed so far; the object stays usable.");

static PyObject *hash_digest(HashObject *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *out = PyBytes_FromStringAndSize(NULL, vn_digest_size(self->s.algorithm));
    if (out == NULL) return NULL;
    final(self, (unsigned char *)PyBytes_AS_STRING(out));
    return out;
}

PyDoc_STRVAR(hexdigest_doc, "hexdigest($self, /)\n--\n\n"
                            "digest() as a string of hexadecimal digits.");

static PyObject *hash_hexdigest(HashObject *self, PyObject *Py_UNUSED(ignored)) {
    static const char digits[] = "0123456789abcdef";
    unsigned char digest[32];
    const int size = final(self, digest);
    PyObject *out = PyUnicode_New(2 * size, 127);
    if (out == NULL) return NULL;
    Py_UCS1 *text = PyUnicode_1BYTE_DATA(out);
    for (int i = 0; i < size; i++) {
        text[2 * i] = (Py_UCS1)digits[digest[i] >> 4];
        text[2 * i + 1] = (Py_UCS1)digits[digest[i] & 15];
    }
    return out;
}

PyDoc_STRVAR(copy_doc, "copy($self, /)\n--\n\nAn independent object in the same state.");

static PyObject *hash_copy(HashObject *self, PyObject *Py_UNUSED(ignored)) {
    HashObject *other = new_object(Py_TYPE(self));
    if (other == NULL) return NULL;
    if (uses_lock(self)) {
        lock_attached(self);
        other->s = self->s;
        unlock(self);
    } else {
        other->s = self->s;
    }
    return (PyObject *)other;
}

static PyObject *hash_repr(HashObject *self) {
    module_state *st = (module_state *)PyType_GetModuleState(Py_TYPE(self));
    if (st == NULL) return NULL;
    return PyUnicode_FromFormat("<%U native HASH object @ %p>", st->names[self->s.algorithm],
                                (void *)self);
}

static PyObject *hash_get_name(HashObject *self, void *Py_UNUSED(closure)) {
    module_state *st = (module_state *)PyType_GetModuleState(Py_TYPE(self));
    if (st == NULL) return NULL;
    return Py_NewRef(st->names[self->s.algorithm]);
}

static PyObject *hash_get_digest_size(HashObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(vn_digest_size(self->s.algorithm));
}

static PyObject *hash_get_block_size(HashObject *self, void *Py_UNUSED(closure)) {
    (void)self;
    return PyLong_FromLong(64);
}

static PyMethodDef hash_methods[] = {
    {"update", (PyCFunction)hash_update, METH_O, update_doc},
    {"digest", (PyCFunction)hash_digest, METH_NOARGS, digest_doc},
    {"hexdigest", (PyCFunction)hash_hexdigest, METH_NOARGS, hexdigest_doc},
    {"copy", (PyCFunction)hash_copy, METH_NOARGS, copy_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef hash_getset[] = {
    {"name", (getter)hash_get_name, NULL, "The algorithm's name, as hashlib.new takes it.", NULL},
    {"digest_size", (getter)hash_get_digest_size, NULL, "The size of the digest in bytes.", NULL},
    {"block_size", (getter)hash_get_block_size, NULL, "The algorithm's block size in bytes.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(hash_doc, "A hash object of the native variant, like hashlib's.\n\n"
                       "Made by md5(), sha224() and sha256(), not by calling the type.");

static PyType_Slot hash_slots[] = {
    {Py_tp_dealloc, hash_dealloc}, {Py_tp_repr, hash_repr},     {Py_tp_methods, hash_methods},
    {Py_tp_getset, hash_getset},   {Py_tp_doc, (void *)hash_doc}, {0, NULL},
};

#if PY_VERSION_HEX >= 0x030A0000
#define VN_TPFLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION)
#else
#define VN_TPFLAGS Py_TPFLAGS_DEFAULT
#endif

static PyType_Spec hash_spec = {
    .name = "variants.native.HASH",
    .basicsize = sizeof(HashObject),
    .flags = VN_TPFLAGS,
    .slots = hash_slots,
};

/* ---- the constructors ------------------------------------------------------ */

/* md5(data=b"", *, usedforsecurity=True, string=None), and the same for the others. */
static PyObject *construct(PyObject *module, int algorithm, const char *function,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *data = NULL, *string = NULL;
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most 1 positional argument (%zd given)",
                     function, nargs);
        return NULL;
    }
    if (nargs == 1) data = args[0];
    if (kwnames != NULL) {
        const Py_ssize_t count = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, i);
            PyObject *value = args[nargs + i];
            if (PyUnicode_CompareWithASCIIString(key, "data") == 0) {
                if (data != NULL) {
                    PyErr_Format(PyExc_TypeError,
                                 "argument for %s() given by name ('data') and position (1)",
                                 function);
                    return NULL;
                }
                data = value;
            } else if (PyUnicode_CompareWithASCIIString(key, "string") == 0) {
                string = value;
            } else if (PyUnicode_CompareWithASCIIString(key, "usedforsecurity") != 0) {
                /* usedforsecurity is accepted and means nothing: every algorithm is there */
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                             function, key);
                return NULL;
            }
        }
    }
    if (string != NULL && string != Py_None) {
        if (data != NULL) {
            PyErr_SetString(PyExc_TypeError, "'data' and 'string' are mutually exclusive");
            return NULL;
        }
        data = string;
    }
    HashObject *self = new_object(state_of_module(module)->hash_type);
    if (self == NULL) return NULL;
    vn_init(&self->s, algorithm, NULL);
    if (data != NULL && absorb_object(self, data, 1) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

#define CONSTRUCTOR(name, ALGORITHM)                                                        \
    static PyObject *construct_##name(PyObject *module, PyObject *const *args,              \
                                      Py_ssize_t nargs, PyObject *kwnames) {                \
        return construct(module, ALGORITHM, #name, args, nargs, kwnames);                   \
    }                                                                                       \
    PyDoc_STRVAR(name##_doc, #name "($module, /, data=b'', *, usedforsecurity=True, "       \
                                   "string=None)\n--\n\n"                                   \
                                   "A new hash object of the native variant, optionally "   \
                                   "hashing data: hashlib's signature.");

CONSTRUCTOR(md5, VN_MD5)
CONSTRUCTOR(sha224, VN_SHA224)
CONSTRUCTOR(sha256, VN_SHA256)

/* ---- the kernels, for describe() and the block benchmark ------------------- */

PyDoc_STRVAR(kernels_doc, "kernels($module, /)\n--\n\n"
                          "Each core's kernels in this build, portable first: a tuple per core "
                          "(md5, sha256, md5-many, sha256-many) of (id, name, usable on this "
                          "CPU) triples.");

static PyObject *module_kernels(PyObject *module, PyObject *Py_UNUSED(ignored)) {
    (void)module;
    PyObject *result = PyTuple_New(VN_CORES);
    if (result == NULL) return NULL;
    for (int core = 0; core < VN_CORES; core++) {
        const int count = vn_kernel_count(core);
        PyObject *list = PyTuple_New(count);
        if (list == NULL) goto error;
        PyTuple_SET_ITEM(result, core, list);
        for (int i = 0; i < count; i++) {
            PyObject *pair = Py_BuildValue("(ssO)", vn_kernel_id(core, i), vn_kernel_name(core, i),
                                           vn_kernel_usable(core, i) ? Py_True : Py_False);
            if (pair == NULL) goto error;
            PyTuple_SET_ITEM(list, i, pair);
        }
    }
    return result;
error:
    Py_DECREF(result);
    return NULL;
}

PyDoc_STRVAR(ran_doc, "ran($module, core, index, /)\n--\n\n"
                      "Whether kernel number index of core has run in this process.");

static PyObject *module_ran(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "ran() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    const long core = PyLong_AsLong(args[0]), index = PyLong_AsLong(args[1]);
    if ((core == -1 || index == -1) && PyErr_Occurred()) return NULL;
    return PyBool_FromLong(vn_kernel_ran((int)core, (int)index));
}

PyDoc_STRVAR(chosen_doc, "chosen($module, core, /)\n--\n\n"
                         "The index of the kernel dispatch chose for core (0: md5, 1: sha256, "
                         "2: md5-many, 3: sha256-many).");

static PyObject *module_chosen(PyObject *module, PyObject *core) {
    (void)module;
    const long number = PyLong_AsLong(core);
    if (number == -1 && PyErr_Occurred()) return NULL;
    if (number < 0 || number >= VN_CORES) {
        PyErr_Format(PyExc_ValueError, "no core %ld", number);
        return NULL;
    }
    return PyLong_FromLong(vn_kernel_chosen((int)number));
}

PyDoc_STRVAR(compress_doc,
             "compress($module, core, kernel, state, data, /)\n--\n\n"
             "Run kernel number `kernel` of `core` (-1: the chosen one) over data, whole "
             "64-byte blocks, from the chaining state (a tuple of 8 ints); the new state.");

static PyObject *module_compress(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "compress() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    const long core = PyLong_AsLong(args[0]);
    const long index = PyLong_AsLong(args[1]);
    if ((core == -1 || index == -1) && PyErr_Occurred()) return NULL;
    if (core < 0 || core >= VN_CORES) {
        PyErr_Format(PyExc_ValueError, "no core %ld", core);
        return NULL;
    }
    PyObject *words = PySequence_Fast(args[2], "state must be a sequence of ints");
    if (words == NULL) return NULL;
    uint32_t state[8] = {0};
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(words);
    if (count > 8) {
        Py_DECREF(words);
        PyErr_SetString(PyExc_ValueError, "a state has at most 8 words");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        state[i] = (uint32_t)PyLong_AsUnsignedLongMask(PySequence_Fast_GET_ITEM(words, i));
    }
    Py_DECREF(words);
    if (PyErr_Occurred()) return NULL;
    Py_buffer view;
    if (get_buffer(args[3], &view) < 0) return NULL;
    int status = -1;
    if (view.len % 64 == 0) {
        Py_BEGIN_ALLOW_THREADS
        status = vn_compress((int)core, (int)index, state, view.buf, (size_t)view.len / 64);
        Py_END_ALLOW_THREADS
    }
    const Py_ssize_t length = view.len;
    PyBuffer_Release(&view);
    if (length % 64) {
        PyErr_Format(PyExc_ValueError, "%zd bytes is not whole 64-byte blocks", length);
        return NULL;
    }
    if (status < 0) {
        PyErr_Format(PyExc_ValueError, "no kernel %ld of core %ld runs on this CPU", index, core);
        return NULL;
    }
    PyObject *result = PyTuple_New(count);
    if (result == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *word = PyLong_FromUnsignedLong(state[i]);
        if (word == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, i, word);
    }
    return result;
}

/* ---- many messages at once (many.c) ------------------------------------------ */

/* The bytes of the `count` objects of `items`, for C with the GIL released.
 * bytes are read in place (immutable, and held by the caller's tuple); any
 * other buffer is held in views[] until release_all. On an error, hashlib's,
 * naming the object's index (`first` + its place in items), and nothing is held. */
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
                   Py_ssize_t first) {
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
        if (get_buffer(item, view) < 0) {
            /* hashlib's error, with the index in front */
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            PyErr_NormalizeException(&type, &value, &traceback);
            PyErr_Format(type, "%s[%zd]: %S", what, first + i, value);
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

static int algorithm_argument(PyObject *arg) {
    const long algorithm = PyLong_AsLong(arg);
    if (algorithm == -1 && PyErr_Occurred()) return -1;
    if (algorithm < VN_MD5 || algorithm > VN_SHA256) {
        PyErr_Format(PyExc_ValueError, "no algorithm %ld", algorithm);
        return -1;
    }
    return (int)algorithm;
}

/* Messages a call of digest_many hashes at a time on one thread. */
#define MANY_WINDOW 4096

/* The digests at out, count * size bytes, as bytes or hex strings into
 * result[start:start + count]. */
static int fill_digests(PyObject *result, Py_ssize_t start, const unsigned char *out,
                        Py_ssize_t count, int size, int hex) {
    static const char digits[] = "0123456789abcdef";
    for (Py_ssize_t i = 0; i < count; i++) {
        const unsigned char *digest = out + (size_t)i * (size_t)size;
        PyObject *item;
        if (hex) {
            item = PyUnicode_New(2 * size, 127);
            if (item != NULL) {
                Py_UCS1 *text = PyUnicode_1BYTE_DATA(item);
                for (int j = 0; j < size; j++) {
                    text[2 * j] = (Py_UCS1)digits[digest[j] >> 4];
                    text[2 * j + 1] = (Py_UCS1)digits[digest[j] & 15];
                }
            }
        } else {
            item = PyBytes_FromStringAndSize((const char *)digest, size);
        }
        if (item == NULL) return -1;
        PyList_SET_ITEM(result, start + i, item);
    }
    return 0;
}

PyDoc_STRVAR(digest_many_doc,
             "digest_many($module, algorithm, messages, hexdigest, threads, kernel=-1, /)\n--\n\n"
             "The digests of the messages (an iterable of bytes-like objects) with algorithm "
             "(0: md5, 1: sha224, 2: sha256), in order, hashed in the lanes of the many-kernel "
             "number `kernel` (-1: the chosen one) on `threads` threads without the GIL.");

static PyObject *module_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs < 4 || nargs > 5) {
        PyErr_Format(PyExc_TypeError, "digest_many() takes 4 or 5 arguments (%zd given)", nargs);
        return NULL;
    }
    const int algorithm = algorithm_argument(args[0]);
    if (algorithm < 0) return NULL;
    const int hex = PyObject_IsTrue(args[2]);
    const long threads = PyLong_AsLong(args[3]);
    const long kernel = nargs == 5 ? PyLong_AsLong(args[4]) : -1;
    if (hex < 0 || ((threads == -1 || kernel == -1) && PyErr_Occurred())) return NULL;
    if (threads < 1 || threads > 1024) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to 1024, not %ld", threads);
        return NULL;
    }
#if defined(Py_GIL_DISABLED)
    /* Without a GIL another thread could change a list while it is read: a copy. */
    PyObject *messages = PySequence_Tuple(args[1]);
#else
    /* A list or tuple as it is (a copy would touch every message once more): each
     * window of messages is read with the GIL held and held by references of ours
     * while C hashes it without the GIL. */
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
    PyObject *result = PyList_New(count);
    unsigned char *out = PyMem_Malloc((size_t)size * (size_t)most);
    PyObject **held = PyMem_Malloc(sizeof *held * (size_t)most);
    if (result == NULL || out == NULL || held == NULL) {
        if (result != NULL) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t start = 0; start < count; start += window) {
        const Py_ssize_t n = count - start < window ? count - start : window;
        if (PySequence_Fast_GET_SIZE(messages) < start + n) {
            PyErr_SetString(PyExc_RuntimeError, "the messages changed size during digest_many");
            goto fail;
        }
        PyObject **items = PySequence_Fast_ITEMS(messages) + start;
        for (Py_ssize_t i = 0; i < n; i++) held[i] = Py_NewRef(items[i]);
        struct buffers b;
        int status = -2;
        if (get_all(&b, held, n, "messages", start) == 0) {
            Py_BEGIN_ALLOW_THREADS
            status = vn_digest_many_with((int)kernel, algorithm, (size_t)n, b.data, b.lengths, out,
                                         (int)threads);
            Py_END_ALLOW_THREADS
            release_all(&b);
        }
        for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(held[i]);
        if (status == -1) {
            PyErr_Format(PyExc_ValueError, "no many-kernel %ld runs on this CPU", kernel);
        }
        if (status < 0 || fill_digests(result, start, out, n, size, hex) < 0) goto fail;
    }
    PyMem_Free(held);
    PyMem_Free(out);
    Py_DECREF(messages);
    return result;
fail:
    PyMem_Free(held);
    PyMem_Free(out);
    Py_XDECREF(result);
    Py_DECREF(messages);
    return NULL;
}

/* ---- small files, read and hashed without the GIL ------------------------- */

/* Bytes of small files read before their digests are taken in one batch. */
#define FILES_BATCH_BYTES (8u << 20)

struct small_files {
    size_t count;                /* names */
    const char **names;
    int *status;                 /* per name: 0 digest, > 0 errno, -1 not small or not regular */
    size_t *offset, *length;     /* per read file: where its bytes are in `bytes` */
    unsigned char *bytes;        /* the batch being read */
    size_t used;
    unsigned char *out;          /* per name: its digest */
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
        if (f->used + f->small + 1 > FILES_BATCH_BYTES + f->small && i > first) {
            digest_batch(f, first, i);
            f->used = 0;
            first = i;
        }
        f->status[i] = read_small(f, i);
    }
    digest_batch(f, first, f->count);
    return NULL;
}

/* The files in `parts` contiguous parts, each on a thread of its own but the
 * last (the reads wait on the kernel, not on this CPU: two parts pay even on
 * one core). A part whose thread could not start runs here. */
static void read_and_digest_parts(struct small_files *parts, int count) {
    pthread_t threads[8];
    int started[8] = {0};
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

PyDoc_STRVAR(digest_files_doc,
             "digest_files($module, algorithm, names, small, threads, /)\n--\n\n"
             "For each file name (bytes, a path), read (on `threads` threads) and hashed "
             "without the GIL, the small "
             "files' digests in lanes: a list with, per name, its digest if it is a regular file "
             "of at most `small` bytes, an errno (int) if it could not be opened or read, and "
             "None otherwise (not a regular file, or larger: for the caller to stream).");

static PyObject *module_digest_files(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "digest_files() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    const int algorithm = algorithm_argument(args[0]);
    if (algorithm < 0) return NULL;
    const Py_ssize_t small = PyLong_AsSsize_t(args[2]);
    const long threads = PyLong_AsLong(args[3]);
    if ((small == -1 || threads == -1) && PyErr_Occurred()) return NULL;
    if (small < 0 || (size_t)small > FILES_BATCH_BYTES) {
        PyErr_Format(PyExc_ValueError, "small must be 0 to %u", FILES_BATCH_BYTES);
        return NULL;
    }
    if (threads < 1 || threads > 8) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to 8, not %ld", threads);
        return NULL;
    }
    PyObject *names = PySequence_Tuple(args[1]);
    if (names == NULL) return NULL;
    const size_t count = (size_t)PyTuple_GET_SIZE(names);
    const size_t size = (size_t)vn_digest_size(algorithm), slots = count ? count : 1;
    const int parts = count < (size_t)threads ? (count ? (int)count : 1) : (int)threads;
    struct small_files part[8];
    memset(part, 0, sizeof part);
    const char **paths = PyMem_Malloc(sizeof *paths * slots);
    int *status = PyMem_Malloc(sizeof *status * slots);
    size_t *offset = PyMem_Malloc(sizeof *offset * slots);
    size_t *length = PyMem_Malloc(sizeof *length * slots);
    unsigned char *out = PyMem_Malloc(size * slots);
    PyObject *result = NULL;
    int ready = paths && status && offset && length && out;
    for (int k = 0; ready && k < parts; k++) {
        /* part k: names [count * k / parts, count * (k + 1) / parts) */
        const size_t first = count * (size_t)k / (size_t)parts;
        const size_t end = count * (size_t)(k + 1) / (size_t)parts;
        part[k] = (struct small_files){end - first, paths + first, status + first,
                                       offset + first, length + first, NULL, 0,
                                       out + first * size, algorithm, (size_t)small};
        part[k].bytes = PyMem_RawMalloc(FILES_BATCH_BYTES + (size_t)small + 1);
        ready = part[k].bytes != NULL;
    }
    if (!ready) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, (Py_ssize_t)i);
        if (!PyBytes_Check(name) ||
            strlen(PyBytes_AS_STRING(name)) != (size_t)PyBytes_GET_SIZE(name)) {
            PyErr_Format(PyExc_TypeError, "names[%zu] is not a path as bytes without NUL", i);
            goto done;
        }
        paths[i] = PyBytes_AS_STRING(name);
    }
    Py_BEGIN_ALLOW_THREADS
    read_and_digest_parts(part, parts);
    Py_END_ALLOW_THREADS
    result = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; result != NULL && i < count; i++) {
        PyObject *item =
            status[i] == 0  ? PyBytes_FromStringAndSize((char *)out + i * size, (Py_ssize_t)size)
            : status[i] > 0 ? PyLong_FromLong(status[i])
                            : Py_NewRef(Py_None);
        if (item == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)i, item);
    }
done:
    for (int k = 0; k < parts; k++) PyMem_RawFree(part[k].bytes);
    PyMem_Free(paths);
    PyMem_Free(status);
    PyMem_Free(offset);
    PyMem_Free(length);
    PyMem_Free(out);
    Py_DECREF(names);
    return result;
}

static int by_address(const void *a, const void *b) {
    const HashObject *x = *(HashObject *const *)a, *y = *(HashObject *const *)b;
    return (x > y) - (x < y);
}

PyDoc_STRVAR(absorb_many_doc,
             "absorb_many($module, hashes, chunks, /)\n--\n\n"
             "Update each hash object (a tuple of distinct HASH objects of one core: MD5, or "
             "SHA-224 and SHA-256) with the chunk of the same index, in the lanes of the chosen "
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
        if ((objects[i]->s.algorithm == VN_MD5) != (objects[0]->s.algorithm == VN_MD5)) {
            PyErr_SetString(PyExc_ValueError, "MD5 and SHA-2 objects cannot share the lanes");
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
    if (get_all(&b, PySequence_Fast_ITEMS(chunks), count, "chunks", 0) < 0) goto done;
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

static PyMethodDef module_methods[] = {
    {"md5", (PyCFunction)(void (*)(void))construct_md5, METH_FASTCALL | METH_KEYWORDS, md5_doc},
    {"sha224", (PyCFunction)(void (*)(void))construct_sha224, METH_FASTCALL | METH_KEYWORDS,
     sha224_doc},
    {"sha256", (PyCFunction)(void (*)(void))construct_sha256, METH_FASTCALL | METH_KEYWORDS,
     sha256_doc},
    {"kernels", module_kernels, METH_NOARGS, kernels_doc},
    {"chosen", module_chosen, METH_O, chosen_doc},
    {"ran", (PyCFunction)(void (*)(void))module_ran, METH_FASTCALL, ran_doc},
    {"compress", (PyCFunction)(void (*)(void))module_compress, METH_FASTCALL, compress_doc},
    {"digest_many", (PyCFunction)(void (*)(void))module_digest_many, METH_FASTCALL,
     digest_many_doc},
    {"absorb_many", (PyCFunction)(void (*)(void))module_absorb_many, METH_FASTCALL,
     absorb_many_doc},
    {"digest_files", (PyCFunction)(void (*)(void))module_digest_files, METH_FASTCALL,
     digest_files_doc},
    {NULL, NULL, 0, NULL},
};

/* ---- the module ------------------------------------------------------------ */

static int module_exec(PyObject *module) {
    module_state *st = state_of_module(module);
    /* Reads VARIANTS_NATIVE_PORTABLE and VARIANTS_NATIVE_KERNELS; each import chooses the same. */
    vn_setup();
    if (vn_setup_problem() != NULL) {
        PyErr_Format(PyExc_ImportError, "VARIANTS_NATIVE_KERNELS: %s", vn_setup_problem());
        return -1;
    }
    st->hash_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hash_spec, NULL);
    if (st->hash_type == NULL) return -1;
#if PY_VERSION_HEX < 0x030A0000
    st->hash_type->tp_new = NULL; /* before Py_TPFLAGS_DISALLOW_INSTANTIATION */
#endif
    static const char *const names[3] = {"md5", "sha224", "sha256"};
    for (int i = 0; i < 3; i++) {
        st->names[i] = PyUnicode_InternFromString(names[i]);
        if (st->names[i] == NULL) return -1;
    }
    if (PyModule_AddObjectRef(module, "HASH", (PyObject *)st->hash_type) < 0) return -1;
    if (PyModule_AddIntConstant(module, "GIL_MINSIZE", GIL_MINSIZE) < 0) return -1;
    return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
    module_state *st = state_of_module(module);
    Py_VISIT(st->hash_type);
    return 0;
}

static int module_clear(PyObject *module) {
    module_state *st = state_of_module(module);
    Py_CLEAR(st->hash_type);
    for (int i = 0; i < 3; i++) Py_CLEAR(st->names[i]);
    return 0;
}

static void module_free(void *module) { module_clear((PyObject *)module); }

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(module_doc, "The native kernels behind a CPython extension type (see capi.c).");

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "variants.native._capi",
    .m_doc = module_doc,
    .m_size = sizeof(module_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__capi(void) { return PyModuleDef_Init(&module_def); }
