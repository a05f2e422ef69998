/*
 * What the files of the C-API module (variants.native._capi) share:
 *
 *   capi.c          the module and the HASH type (hashlib's interface)
 *   capi_kernels.c  the kernels for describe(), the tests and the block benchmark
 *   capi_args.c     the arguments as hashlib takes them (buffers), algorithms' numbers
 *   capi_many.c     many messages at once: digest_many, absorb_many
 *   capi_files.c    small files read and hashed without the GIL: digest_files
 *   capi_arena.c    the arena allocator of digest_many's large results
 *   capi_column.c   whole columns: digest_column and its result type (capi_column.h:
 *                   capi_pool.c its memory, capi_export.c Arrow out,
 *                   capi_import.c a column's rows in)
 *
 * Each of those files but capi.c ends in a table of module functions, which
 * capi.c adds to the module. Memory the GIL guards is PyMem_Malloc's; the plain
 * C they call (many.c, files.c, column.c) allocates with malloc.
 */
#ifndef VARIANTS_CAPI_H
#define VARIANTS_CAPI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "column.h"
#include "dispatch.h"
#include "files.h"
#include "hash.h"
#include "hex.h"
#include "many.h"

/* hashlib's threshold: shorter inputs are hashed with the GIL held. */
#define GIL_MINSIZE 2048

/* A huge page (x86-64's and AArch64's usual transparent one): result memory
 * this large is mapped in whole rather than a 4 KiB page at a time. */
#define HUGE_PAGE ((size_t)2 << 20)

#if PY_VERSION_HEX < 0x030A0000 /* 3.9 */
static inline PyObject *Py_NewRef(PyObject *obj) {
    Py_INCREF(obj);
    return obj;
}
#endif

#if PY_VERSION_HEX >= 0x030D0000
#define VN_PYMUTEX 1
#endif

typedef struct {
    PyTypeObject *hash_type;
    PyTypeObject *column_type; /* capi_column.c */
    PyObject *names[VN_ALGORITHMS]; /* "md5", "sha224", ..., by algorithm number */
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

/* ---- a hash object's lock ------------------------------------------------- */

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
static inline int start_locking(HashObject *self) {
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

/* ---- shared by the files (capi_args.c) ------------------------------------- */

/* The bytes of `obj`, as hashlib takes them (Modules/hashlib.h), with its errors. */
int capi_get_buffer(PyObject *obj, Py_buffer *view);
/* An algorithm number (VN_MD5 .. VN_SHA512_256) from a Python int; -1 with an error. */
int capi_algorithm(PyObject *arg);

/* capi_arena.c: while a call makes many result objects (the GIL held, no
 * Python code run between), CPython's object arenas mapped in at once, in
 * huge pages where it can. begin returns whether it took the allocator's
 * place (0: several interpreters, or no such advice here), which end puts
 * back; done, at the end of the call, unmaps what it mapped and no arena took. */
int capi_prefault_begin(void);
void capi_prefault_end(int began);
void capi_prefault_done(void);

/* The module functions of each file (NULL-terminated), added by capi.c. */
extern PyMethodDef capi_kernel_methods[];
extern PyMethodDef capi_many_methods[];
extern PyMethodDef capi_files_methods[];
extern PyMethodDef capi_column_methods[];
/* The column result type (capi_column.c): its spec, for capi.c to make. */
extern PyType_Spec capi_column_spec;

#endif
