/*
 * What the C-API module's functions take from their arguments, for all of its
 * files (capi.h): a buffer as hashlib takes it, an algorithm's number. A file
 * of its own so that capi.c and the files whose tables it adds do not call
 * each other.
 */
#include "capi.h"

/* The bytes of `obj`, as hashlib takes them (Modules/hashlib.h). */
int capi_get_buffer(PyObject *obj, Py_buffer *view) {
    if (PyUnicode_Check(obj)) {
        /* hashlib's own error, whose words differ between releases (Debian 11's 3.9.2:
         * "Unicode-objects must be encoded before hashing"): asked of hashlib, as the pure-Python
         * shell does (raise_like_hashlib), with today's words where it cannot be asked. */
        PyObject *hashlib = PyImport_ImportModule("hashlib");
        PyObject *made = hashlib ? PyObject_CallMethod(hashlib, "sha256", "O", obj) : NULL;
        Py_XDECREF(hashlib);
        if (made == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        Py_XDECREF(made);
        PyErr_Clear();
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

int capi_algorithm(PyObject *arg) {
    const long algorithm = PyLong_AsLong(arg);
    if (algorithm == -1 && PyErr_Occurred()) return -1;
    if (algorithm < 0 || algorithm >= VN_ALGORITHMS) {
        PyErr_Format(PyExc_ValueError, "no algorithm %ld", algorithm);
        return -1;
    }
    return (int)algorithm;
}
