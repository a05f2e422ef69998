/*
 * variants.native._capi's digest_files: small files, read and hashed without
 * the GIL (files.c), the bridge from Python's names to C's and from C's
 * digests and errors to Python's list.
 */
#include "capi.h"

#include <string.h>

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
    const int algorithm = capi_algorithm(args[0]);
    if (algorithm < 0) return NULL;
    const Py_ssize_t small = PyLong_AsSsize_t(args[2]);
    const long threads = PyLong_AsLong(args[3]);
    if ((small == -1 || threads == -1) && PyErr_Occurred()) return NULL;
    if (small < 0 || (size_t)small > VN_FILES_BATCH_BYTES) {
        PyErr_Format(PyExc_ValueError, "small must be 0 to %u", VN_FILES_BATCH_BYTES);
        return NULL;
    }
    if (threads < 1 || threads > VN_FILES_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d, not %ld", VN_FILES_MAX_THREADS,
                     threads);
        return NULL;
    }
    PyObject *names = PySequence_Tuple(args[1]);
    if (names == NULL) return NULL;
    const size_t count = (size_t)PyTuple_GET_SIZE(names);
    const size_t size = (size_t)vn_digest_size(algorithm), slots = count ? count : 1;
    const char **paths = PyMem_Malloc(sizeof *paths * slots);
    int *status = PyMem_Malloc(sizeof *status * slots);
    unsigned char *out = PyMem_Malloc(size * slots);
    PyObject *result = NULL;
    int failed = 0;
    if (paths == NULL || status == NULL || out == NULL) {
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
    failed = vn_digest_files(algorithm, count, paths, (size_t)small, (int)threads, status, out);
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
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
    PyMem_Free(paths);
    PyMem_Free(status);
    PyMem_Free(out);
    Py_DECREF(names);
    return result;
}

PyMethodDef capi_files_methods[] = {
    {"digest_files", (PyCFunction)(void (*)(void))module_digest_files, METH_FASTCALL,
     digest_files_doc},
    {NULL, NULL, 0, NULL},
};
