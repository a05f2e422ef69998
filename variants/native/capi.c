/*
 * variants.native._capi: the native kernels as a CPython extension type,
 * written against the C API (no cffi, no Cython): the native variant on CPython.
 * This file is the module and its HASH type; capi.h maps the others (the
 * kernels for the tests, many messages at once, whole columns).
 *
 * Shaped after CPython's own Modules/md5module.c and sha2module.c:
 *  - multi-phase initialisation, one heap type (HASH, as _hashlib's) kept in
 *    the module's state; the type cannot be called: the module functions
 *    md5(), sha224() and sha256() are the constructors, with hashlib's
 *    signature, parsed by hand from METH_FASTCALL | METH_KEYWORDS (and sha1(),
 *    sha384(), sha512(), sha512_224(), sha512_256() likewise);
 *  - the GIL is released only for inputs of at least GIL_MINSIZE bytes, as
 *    hashlib does; only then, and from then on, does the object take its
 *    lock (PyMutex from 3.13, a PyThread lock before). On the free-threaded
 *    build there is no GIL to protect a state, so the lock is always taken
 *    (an uncontended PyMutex is one atomic operation) and the module
 *    declares Py_MOD_GIL_NOT_USED;
 *  - digest() and hexdigest() write straight into the new bytes or str.
 *
 * The state machine (hash.c) and the kernels and their dispatch are the
 * same C as the cffi bridge's.
 */
#include "capi.h"
#include "environment.h"

#if PY_VERSION_HEX < 0x030A0000 /* 3.9 */
static int PyModule_AddObjectRef(PyObject *module, const char *name, PyObject *value) {
    Py_INCREF(value);
    if (PyModule_AddObject(module, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}
#endif

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
    if (capi_get_buffer(obj, &view) < 0) return -1;
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

/* The digest is written on the stack and copied into the bytes object: writing into
   PyBytes_FromStringAndSize(NULL, n) is soft-deprecated from 3.15 (PEP 782), and the copy costs
   no time measurable here, where 3.15's PyBytesWriter costs a little. */
static PyObject *hash_digest(HashObject *self, PyObject *Py_UNUSED(ignored)) {
    unsigned char digest[VN_MAX_DIGEST];
    const int size = final(self, digest);
    return PyBytes_FromStringAndSize((const char *)digest, size);
}

PyDoc_STRVAR(hexdigest_doc, "hexdigest($self, /)\n--\n\n"
                            "digest() as a string of hexadecimal digits.");

static PyObject *hash_hexdigest(HashObject *self, PyObject *Py_UNUSED(ignored)) {
    unsigned char digest[VN_MAX_DIGEST];
    const int size = final(self, digest);
    PyObject *out = PyUnicode_New(2 * size, 127);
    if (out == NULL) return NULL;
    vn_hex(digest, (size_t)size, (char *)PyUnicode_1BYTE_DATA(out));
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
    return PyLong_FromLong(vn_block_size(self->s.algorithm));
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
                       "Made by md5(), sha1(), sha224(), sha256(), sha384(), sha512(), "
                       "sha512_224() and sha512_256(), not by calling the type.");

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
#if PY_VERSION_HEX >= 0x030F0000 /* as 3.15's hashlib warns (variants._shell.STRING_DEPRECATED) */
        if (PyErr_WarnEx(PyExc_DeprecationWarning,
                         "the 'string' keyword parameter is deprecated since Python 3.15 and "
                         "slated for removal in Python 3.19; use the 'data' keyword parameter or "
                         "pass the data to hash as a positional argument instead",
                         1) < 0)
            return NULL;
#endif
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

/* one for each algorithm (algorithms.h) */
VN_FOR_EACH_ALGORITHM(CONSTRUCTOR)

#define METHOD(name, ALGORITHM)                                                           \
    {#name, (PyCFunction)(void (*)(void))construct_##name, METH_FASTCALL | METH_KEYWORDS, \
     name##_doc},

static PyMethodDef module_methods[] = {
    VN_FOR_EACH_ALGORITHM(METHOD){NULL, NULL, 0, NULL},
};

/* ---- the module ------------------------------------------------------------ */

static int module_exec(PyObject *module) {
    module_state *st = state_of_module(module);
    /* Reads VARIANTS_NATIVE_PORTABLE and VARIANTS_NATIVE_KERNELS; each import chooses the same. */
    vn_setup();
    if (vn_setup_problem() != NULL) {
        PyErr_Format(PyExc_ImportError, VN_KERNELS_ENV ": %s", vn_setup_problem());
        return -1;
    }
    st->hash_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hash_spec, NULL);
    if (st->hash_type == NULL) return -1;
#if PY_VERSION_HEX < 0x030A0000
    st->hash_type->tp_new = NULL; /* before Py_TPFLAGS_DISALLOW_INSTANTIATION */
#endif
    /* hashlib's names, by algorithm number */
#define NAME(name, ALGORITHM) #name,
    static const char *const names[VN_ALGORITHMS] = {VN_FOR_EACH_ALGORITHM(NAME)};
#undef NAME
    for (int i = 0; i < VN_ALGORITHMS; i++) {
        st->names[i] = PyUnicode_InternFromString(names[i]);
        if (st->names[i] == NULL) return -1;
    }
    if (PyModule_AddObjectRef(module, "HASH", (PyObject *)st->hash_type) < 0) return -1;
    if (PyModule_AddFunctions(module, capi_kernel_methods) < 0) return -1;
    if (PyModule_AddFunctions(module, capi_many_methods) < 0) return -1;
    if (PyModule_AddFunctions(module, capi_files_methods) < 0) return -1;
    if (PyModule_AddFunctions(module, capi_column_methods) < 0) return -1;
    st->column_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &capi_column_spec, NULL);
    if (st->column_type == NULL) return -1;
#if PY_VERSION_HEX < 0x030A0000
    st->column_type->tp_new = NULL;
#endif
    if (PyModule_AddObjectRef(module, "Column", (PyObject *)st->column_type) < 0) return -1;
    if (PyModule_AddIntConstant(module, "GIL_MINSIZE", GIL_MINSIZE) < 0) return -1;
    return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
    module_state *st = state_of_module(module);
    Py_VISIT(st->hash_type);
    Py_VISIT(st->column_type);
    return 0;
}

static int module_clear(PyObject *module) {
    module_state *st = state_of_module(module);
    Py_CLEAR(st->hash_type);
    Py_CLEAR(st->column_type);
    for (int i = 0; i < VN_ALGORITHMS; i++) Py_CLEAR(st->names[i]);
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
