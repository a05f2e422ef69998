/*
 * Whole columns: digest_column reads a column (capi_import.c), hashes its
 * rows with column.c without the GIL, and returns a Column: the digests in
 * one buffer (capi_pool.c), with no Python object per row, which exports
 * the Arrow PyCapsule interface (capi_export.c: fixed_size_binary of the
 * digest size, or string in hex) and the buffer protocol, and is a sequence.
 * column_rows and column_from give the looping variants the same way in and
 * out.
 */
#include <string.h>

#include "capi_column.h"

/* ---- the Column type -------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    struct digests *d;
    Py_ssize_t shape[2], strides[2];
    char format[24];
} ColumnObject;

static void column_dealloc(ColumnObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    if (self->d) capi_digests_drop(self->d);
    PyObject_Free(self);
    Py_DECREF(type);
}

/* A Column holding `d` (whose reference it takes: dropped on failure). */
static PyObject *column_new(PyTypeObject *type, struct digests *d) {
    ColumnObject *self = PyObject_New(ColumnObject, type);
    if (self == NULL) {
        capi_digests_drop(d);
        return NULL;
    }
    self->d = d;
    self->shape[0] = (Py_ssize_t)d->count;
    self->shape[1] = (Py_ssize_t)d->width;
    self->strides[0] = (Py_ssize_t)d->width;
    self->strides[1] = 1;
    if (d->hex) {
        PyOS_snprintf(self->format, sizeof self->format, "%zus", d->width);
    } else {
        strcpy(self->format, "B");
    }
    return (PyObject *)self;
}

/* Binary: a read-only (rows, digest size) array of uint8; hex: (rows,) of
 * fixed-width bytes (NumPy's S). */
static int column_getbuffer(ColumnObject *self, Py_buffer *view, int flags) {
    if (flags & PyBUF_WRITABLE) {
        PyErr_SetString(PyExc_BufferError, "a column of digests is read-only");
        return -1;
    }
    const struct digests *d = self->d;
    view->obj = Py_NewRef((PyObject *)self);
    view->buf = d->data;
    view->len = (Py_ssize_t)(d->count * d->width);
    view->readonly = 1;
    view->itemsize = d->hex ? (Py_ssize_t)d->width : 1;
    view->format = (flags & PyBUF_FORMAT) ? self->format : NULL;
    view->ndim = d->hex ? 1 : 2;
    view->shape = (flags & PyBUF_ND) ? self->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    if (!(flags & PyBUF_ND) && !d->hex) { /* a flat view of the bytes */
        view->ndim = 1;
        view->itemsize = 1;
    }
    return 0;
}

static PyObject *column_arrow_array(ColumnObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"requested_schema", NULL};
    PyObject *requested = Py_None; /* a request the result need not follow: ignored */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_array__", keywords, &requested)) {
        return NULL;
    }
    return capi_export_array(self->d);
}

static PyObject *column_arrow_stream(ColumnObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"requested_schema", NULL};
    PyObject *requested = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_stream__", keywords,
                                     &requested)) {
        return NULL;
    }
    return capi_export_stream(self->d);
}

static PyObject *column_arrow_schema(ColumnObject *self, PyObject *Py_UNUSED(ignored)) {
    return capi_export_schema(self->d);
}

static Py_ssize_t column_length(ColumnObject *self) { return (Py_ssize_t)self->d->count; }

static int row_is_null(const struct digests *d, size_t i) {
    return d->validity && !((d->validity[i >> 3] >> (i & 7)) & 1);
}

/* Row i as bytes, str, or None. */
static PyObject *row_object(const struct digests *d, size_t i) {
    if (row_is_null(d, i)) Py_RETURN_NONE;
    const char *at = (const char *)d->data + i * d->width;
    if (d->hex) return PyUnicode_DecodeASCII(at, (Py_ssize_t)d->width, NULL);
    return PyBytes_FromStringAndSize(at, (Py_ssize_t)d->width);
}

static PyObject *column_item(ColumnObject *self, Py_ssize_t i) {
    if (i < 0 || (size_t)i >= self->d->count) {
        PyErr_SetString(PyExc_IndexError, "column index out of range");
        return NULL;
    }
    return row_object(self->d, (size_t)i);
}

/* Rows start, start + step, ... (`count` of them) as a new Column. */
static PyObject *column_slice(ColumnObject *self, Py_ssize_t start, Py_ssize_t step,
                              Py_ssize_t count) {
    const struct digests *d = self->d;
    struct digests *part = capi_digests_new(d->algorithm, d->hex, (size_t)count, d->validity != NULL);
    if (part == NULL) return PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < count; k++) {
        const size_t i = (size_t)(start + k * step);
        memcpy(part->data + (size_t)k * d->width, d->data + i * d->width, d->width);
        if (row_is_null(d, i)) {
            part->validity[k >> 3] &= (unsigned char)~(1u << (k & 7));
            part->nulls++;
        }
    }
    if (part->validity && part->nulls == 0) {
        free(part->validity);
        part->validity = NULL;
    }
    return column_new(Py_TYPE(self), part);
}

/* column[i] (negative from the end) or column[start:stop:step], which is a
 * Column of those rows (a copy of their digests), as a list's slice is a list. */
static PyObject *column_subscript(ColumnObject *self, PyObject *key) {
    const Py_ssize_t length = (Py_ssize_t)self->d->count;
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
        const Py_ssize_t count = PySlice_AdjustIndices(length, &start, &stop, step);
        return column_slice(self, start, step, count);
    }
    if (!PyIndex_Check(key)) {
        PyErr_Format(PyExc_TypeError, "column indices must be integers or slices, not %.100s",
                     Py_TYPE(key)->tp_name);
        return NULL;
    }
    Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0) i += length;
    return column_item(self, i);
}

/* `value in column`: a row equal to it (str in hex, bytes-like in binary;
 * None: a null row), compared in place; False for anything else. */
static int column_contains(ColumnObject *self, PyObject *value) {
    const struct digests *d = self->d;
    if (value == Py_None) return d->nulls > 0;
    const char *bytes;
    Py_ssize_t size;
    Py_buffer view;
    int has_view = 0;
    if (d->hex) {
        if (!PyUnicode_Check(value) || !PyUnicode_IS_ASCII(value)) return 0;
        bytes = (const char *)PyUnicode_1BYTE_DATA(value);
        size = PyUnicode_GET_LENGTH(value);
    } else if (PyBytes_Check(value)) {
        bytes = PyBytes_AS_STRING(value);
        size = PyBytes_GET_SIZE(value);
    } else if (!PyUnicode_Check(value) && PyObject_CheckBuffer(value)) {
        if (PyObject_GetBuffer(value, &view, PyBUF_SIMPLE) < 0) return -1;
        has_view = 1;
        bytes = view.buf;
        size = view.len;
    } else {
        return 0;
    }
    int found = 0;
    if ((size_t)size == d->width) {
        for (size_t i = 0; !found && i < d->count; i++) {
            found = memcmp(d->data + i * d->width, bytes, d->width) == 0 && !row_is_null(d, i);
        }
    }
    if (has_view) PyBuffer_Release(&view);
    return found;
}

static PyObject *column_to_pylist(ColumnObject *self, PyObject *Py_UNUSED(ignored)) {
    const struct digests *d = self->d;
    PyObject *list = PyList_New((Py_ssize_t)d->count);
    for (size_t i = 0; list != NULL && i < d->count; i++) {
        PyObject *item = row_object(d, i);
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *column_repr(ColumnObject *self) {
    module_state *st = (module_state *)PyType_GetModuleState(Py_TYPE(self));
    if (st == NULL) return NULL;
    return PyUnicode_FromFormat("<%U column of %zu %s digests, %zu null>",
                                st->names[self->d->algorithm], self->d->count,
                                self->d->hex ? "hex" : "binary", self->d->nulls);
}

static PyObject *column_get_name(ColumnObject *self, void *Py_UNUSED(closure)) {
    module_state *st = (module_state *)PyType_GetModuleState(Py_TYPE(self));
    if (st == NULL) return NULL;
    return Py_NewRef(st->names[self->d->algorithm]);
}

static PyObject *column_get_digest_size(ColumnObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(vn_digest_size(self->d->algorithm));
}

static PyObject *column_get_hexdigest(ColumnObject *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->d->hex);
}

static PyObject *column_get_null_count(ColumnObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromSize_t(self->d->nulls);
}

static PyMethodDef column_methods[] = {
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))column_arrow_array,
     METH_VARARGS | METH_KEYWORDS,
     "The digests as an Arrow array: a pair of PyCapsules (schema, array)."},
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))column_arrow_stream,
     METH_VARARGS | METH_KEYWORDS, "The digests as an Arrow stream of one array (a PyCapsule)."},
    {"__arrow_c_schema__", (PyCFunction)column_arrow_schema, METH_NOARGS,
     "The digests' Arrow type (a PyCapsule)."},
    {"to_pylist", (PyCFunction)column_to_pylist, METH_NOARGS,
     "The digests as a list of bytes (or str in hex; None for a null row)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef column_getset[] = {
    {"name", (getter)column_get_name, NULL, "The algorithm's name, as hashlib.new takes it.",
     NULL},
    {"digest_size", (getter)column_get_digest_size, NULL, "The size of a digest in bytes.", NULL},
    {"hexdigest", (getter)column_get_hexdigest, NULL, "Whether the digests are in hex.", NULL},
    {"null_count", (getter)column_get_null_count, NULL, "How many rows are null.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(column_doc,
             "A column of digests, made by digest_column: exports the Arrow PyCapsule interface "
             "(fixed_size_binary, or string in hex) and the buffer protocol, and is a sequence "
             "of bytes (str in hex; None for a null row): len, indices (negative from the end), "
             "iteration and `in`; a slice is a Column of those rows.");

static PyType_Slot column_slots[] = {
    {Py_tp_dealloc, column_dealloc},
    {Py_tp_repr, column_repr},
    {Py_tp_methods, column_methods},
    {Py_tp_getset, column_getset},
    {Py_tp_doc, (void *)column_doc},
    {Py_sq_length, column_length},
    {Py_sq_item, column_item},
    {Py_sq_contains, column_contains},
    {Py_mp_length, column_length},
    {Py_mp_subscript, column_subscript},
    {Py_bf_getbuffer, column_getbuffer},
    {0, NULL},
};

#if PY_VERSION_HEX >= 0x030A0000
#define COLUMN_FLAGS                                                                          \
    (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION)
#else
#define COLUMN_FLAGS Py_TPFLAGS_DEFAULT
#endif

PyType_Spec capi_column_spec = {
    .name = "variants.native.Column",
    .basicsize = sizeof(ColumnObject),
    .flags = COLUMN_FLAGS,
    .slots = column_slots,
};

/* ---- the module functions ------------------------------------------------------ */

static int threads_argument(PyObject *arg) {
    const long threads = PyLong_AsLong(arg);
    if (threads == -1 && PyErr_Occurred()) return -1;
    if (threads < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 or more, not %ld", threads);
        return -1;
    }
    return threads > VN_MANY_MAX_THREADS ? VN_MANY_MAX_THREADS : (int)threads;
}

PyDoc_STRVAR(digest_column_doc,
             "digest_column($module, algorithm, column, hexdigest, threads, /)\n--\n\n"
             "The digests of the rows of column (an Arrow array or chunked array, a NumPy S "
             "array, or a 2-D C-contiguous uint8 array) with algorithm (its number: "
             "variants.native._kernels.ALGORITHMS) on `threads` threads without the GIL: a Column, null where a row is.");

static PyObject *module_digest_column(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "digest_column() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    const int algorithm = capi_algorithm(args[0]);
    if (algorithm < 0) return NULL;
    const int hex = PyObject_IsTrue(args[2]);
    if (hex < 0) return NULL;
    const int threads = threads_argument(args[3]);
    if (threads < 0) return NULL;
    struct capi_source s;
    if (capi_source_open(&s, args[1]) < 0) return NULL;
    struct digests *d = capi_digests_new(algorithm, hex, s.rows, s.nullable);
    if (d == NULL) {
        capi_source_close(&s);
        return PyErr_NoMemory();
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    size_t start = 0;
    for (size_t k = 0; k < s.count; k++) {
        const vn_rows *rows = &s.chunks[k];
        if (d->validity) d->nulls += vn_rows_validity(rows, d->validity, start);
        failed |= vn_digest_rows(algorithm, rows, hex, threads, d->data + start * d->width);
        start += rows->count;
    }
    Py_END_ALLOW_THREADS
    capi_source_close(&s);
    if (failed) {
        capi_digests_drop(d);
        return PyErr_NoMemory();
    }
    if (d->nulls == 0 && d->validity) { /* nothing null after all */
        free(d->validity);
        d->validity = NULL;
    }
    return column_new(state_of_module(module)->column_type, d);
}

PyDoc_STRVAR(column_rows_doc, "column_rows($module, column, /)\n--\n\n"
                              "The rows of a column digest_column takes, as a list of bytes "
                              "(None for a null row): what a looping variant hashes.");

static PyObject *module_column_rows(PyObject *module, PyObject *column) {
    (void)module;
    struct capi_source s;
    if (capi_source_open(&s, column) < 0) return NULL;
    PyObject *list = PyList_New((Py_ssize_t)s.rows);
    Py_ssize_t at = 0;
    for (size_t k = 0; list != NULL && k < s.count; k++) {
        const vn_rows *rows = &s.chunks[k];
        for (size_t i = 0; i < rows->count; i++) {
            PyObject *item;
            const size_t bit = rows->first + i;
            if (rows->validity && !((rows->validity[bit >> 3] >> (bit & 7)) & 1)) {
                item = Py_NewRef(Py_None);
            } else {
                size_t length;
                const unsigned char *data = vn_row(rows, i, &length);
                item = PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)length);
            }
            if (item == NULL) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, at++, item);
        }
    }
    capi_source_close(&s);
    return list;
}

PyDoc_STRVAR(column_from_doc,
             "column_from($module, algorithm, digests, hexdigest, /)\n--\n\n"
             "A Column of the given digests (a sequence of bytes of the algorithm's digest "
             "size, or None for a null row), in binary or hex: what a looping variant returns.");

static PyObject *module_column_from(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "column_from() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    const int algorithm = capi_algorithm(args[0]);
    if (algorithm < 0) return NULL;
    const int hex = PyObject_IsTrue(args[2]);
    if (hex < 0) return NULL;
    PyObject *items = PySequence_Fast(args[1], "digests must be a sequence");
    if (items == NULL) return NULL;
    const size_t count = (size_t)PySequence_Fast_GET_SIZE(items);
    int nullable = 0;
    for (size_t i = 0; i < count; i++) nullable |= PySequence_Fast_GET_ITEM(items, i) == Py_None;
    struct digests *d = capi_digests_new(algorithm, hex, count, nullable);
    if (d == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    const size_t size = (size_t)vn_digest_size(algorithm);
    for (size_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i);
        unsigned char *to = d->data + i * d->width;
        if (item == Py_None) {
            d->validity[i >> 3] &= (unsigned char)~(1u << (i & 7));
            d->nulls++;
            memset(to, 0, d->width);
            continue;
        }
        if (!PyBytes_Check(item) || (size_t)PyBytes_GET_SIZE(item) != size) {
            PyErr_Format(PyExc_TypeError, "digests[%zu] is not bytes of %zu (a digest) or None",
                         i, size);
            capi_digests_drop(d);
            Py_DECREF(items);
            return NULL;
        }
        const unsigned char *digest = (const unsigned char *)PyBytes_AS_STRING(item);
        if (hex) {
            vn_hex(digest, size, (char *)to);
        } else {
            memcpy(to, digest, size);
        }
    }
    Py_DECREF(items);
    return column_new(state_of_module(module)->column_type, d);
}

PyMethodDef capi_column_methods[] = {
    {"digest_column", (PyCFunction)(void (*)(void))module_digest_column, METH_FASTCALL,
     digest_column_doc},
    {"column_rows", module_column_rows, METH_O, column_rows_doc},
    {"column_from", (PyCFunction)(void (*)(void))module_column_from, METH_FASTCALL,
     column_from_doc},
    {NULL, NULL, 0, NULL},
};
