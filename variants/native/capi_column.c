/*
 * Whole columns: digest_column takes an Arrow array (the PyCapsule interface:
 * __arrow_c_array__, or __arrow_c_stream__ for a chunked array) or a buffer of
 * fixed-width rows (a NumPy S array, a 2-D C-contiguous uint8 array), hashes
 * its rows with column.c without the GIL, and returns a Column: the digests
 * in one buffer made here, with no Python object per row, which exports the
 * Arrow PyCapsule interface (fixed_size_binary of the digest size, or string in hex)
 * and the buffer protocol.
 *
 * The digests live in a `struct digests` with a count of references: one for
 * the Column object and one for every Arrow array exported from it, whose
 * release callback (any thread, no GIL) drops it. column_rows and
 * column_from give the looping variants the same way in and out.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "arrow_abi.h"
#include "capi.h"

#define SCHEMA_CAPSULE "arrow_schema"
#define ARRAY_CAPSULE "arrow_array"
#define STREAM_CAPSULE "arrow_array_stream"
/* Buffers are aligned as Arrow recommends. */
#define ALIGNMENT 64

static const char accepted[] =
    "an Arrow array or chunked array (an object with __arrow_c_array__ or __arrow_c_stream__) "
    "of binary, string, large_binary, large_string, binary_view, string_view or "
    "fixed_size_binary, a NumPy array of dtype S, or a 2-D C-contiguous uint8 array";

/* ---- the digests ----------------------------------------------------------- */

struct digests {
    long refs; /* atomic */
    int algorithm, hex, large;
    size_t count, nulls, width;
    unsigned char *data;     /* count * width bytes (at least 1) */
    unsigned char *validity; /* NULL if no row is null */
    void *offsets;           /* hex: count + 1 offsets (int32, or int64 if large) */
};

/* Buffers of two huge pages or more are asked for in them (capi.h): a fresh
 * 4 KiB page costs a fault each, about as much as hashing a short row. */
static void *aligned(size_t size) {
    void *memory = NULL;
    const size_t alignment = size >= 2 * HUGE_PAGE ? HUGE_PAGE : ALIGNMENT;
    if (posix_memalign(&memory, alignment, size ? size : 1) != 0) return NULL;
#if defined(MADV_HUGEPAGE)
    if (alignment == HUGE_PAGE) madvise(memory, size / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
    return memory;
}

/* Digest buffers of at least KEEP_BYTES, once freed, are kept (KEPT at
 * most) for the next columns that fit in them: memory the kernel hands out
 * fresh is cleared page by page first, which for a million hex SHA-256
 * digests cost about as much as their hex. A buffer's capacity is in the
 * ALIGNMENT bytes before it. Release callbacks free buffers on any thread,
 * without the GIL: each slot is taken and filled by an atomic exchange. */
#define KEEP_BYTES ((size_t)4 << 20)
#define KEPT 4
static unsigned char *kept[KEPT];

static size_t capacity(const unsigned char *data) {
    size_t size;
    memcpy(&size, data - ALIGNMENT, sizeof size);
    return size;
}

static unsigned char *data_new(size_t size) {
    if (size < KEEP_BYTES) return aligned(size);
    for (int k = 0; k < KEPT; k++) {
        unsigned char *data = __atomic_exchange_n(&kept[k], NULL, __ATOMIC_ACQ_REL);
        if (data == NULL) continue;
        if (capacity(data) >= size && capacity(data) / 2 <= size) return data; /* it fits */
        data = __atomic_exchange_n(&kept[k], data, __ATOMIC_ACQ_REL); /* back, for another */
        if (data != NULL) free(data - ALIGNMENT); /* one put there meanwhile: one less kept */
    }
    unsigned char *block = aligned(ALIGNMENT + size);
    if (block == NULL) return NULL;
    memcpy(block, &size, sizeof size);
    return block + ALIGNMENT;
}

static void data_free(unsigned char *data, size_t size) {
    if (data == NULL || size < KEEP_BYTES) {
        free(data);
        return;
    }
    for (int k = 0; k < KEPT && data != NULL; k++) {
        data = __atomic_exchange_n(&kept[k], data, __ATOMIC_ACQ_REL); /* keeps the newest */
    }
    if (data != NULL) free(data - ALIGNMENT);
}

static void digests_drop(struct digests *d) {
    if (__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    data_free(d->data, d->count * d->width);
    free(d->validity);
    free(d->offsets);
    free(d);
}

static struct digests *digests_keep(struct digests *d) {
    __atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
    return d;
}

/* Room for `count` digests (validity all set if `nullable`); NULL without memory. */
static struct digests *digests_new(int algorithm, int hex, size_t count, int nullable) {
    struct digests *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->refs = 1;
    d->algorithm = algorithm;
    d->hex = hex;
    d->count = count;
    d->width = (size_t)vn_digest_size(algorithm) * (hex ? 2 : 1);
    d->large = hex && count * d->width > (size_t)INT32_MAX;
    d->data = data_new(count * d->width);
    int ok = d->data != NULL;
    if (ok && nullable) {
        d->validity = aligned((count + 7) / 8);
        ok = d->validity != NULL;
        if (ok) memset(d->validity, 0xff, (count + 7) / 8);
    }
    if (ok && hex) {
        d->offsets = aligned((count + 1) * (d->large ? 8 : 4));
        ok = d->offsets != NULL;
        for (size_t i = 0; ok && i <= count; i++) {
            if (d->large) {
                ((int64_t *)d->offsets)[i] = (int64_t)(i * d->width);
            } else {
                ((int32_t *)d->offsets)[i] = (int32_t)(i * d->width);
            }
        }
    }
    if (!ok) {
        digests_drop(d);
        return NULL;
    }
    return d;
}

/* ---- exporting: the Arrow C Data and Stream interfaces ------------------------ */

static const char *format_of(const struct digests *d) {
    if (d->hex) return d->large ? "U" : "u";
    switch (vn_digest_size(d->algorithm)) {
    case 16:
        return "w:16";
    case 20:
        return "w:20";
    case 28:
        return "w:28";
    case 48:
        return "w:48";
    case 64:
        return "w:64";
    default:
        return "w:32";
    }
}

static void release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

static void export_schema(const struct digests *d, struct ArrowSchema *schema) {
    *schema = (struct ArrowSchema){.format = format_of(d),
                                   .name = "",
                                   .flags = ARROW_FLAG_NULLABLE,
                                   .release = release_schema};
}

struct exported {
    struct digests *d;
    const void *buffers[3];
};

static void release_array(struct ArrowArray *array) {
    struct exported *e = array->private_data;
    digests_drop(e->d);
    free(e);
    array->release = NULL;
}

/* 0, or -1 without memory. */
static int export_array(struct digests *d, struct ArrowArray *array) {
    struct exported *e = malloc(sizeof *e);
    if (e == NULL) return -1;
    e->d = digests_keep(d);
    e->buffers[0] = d->validity;
    e->buffers[1] = d->hex ? d->offsets : d->data;
    e->buffers[2] = d->data;
    *array = (struct ArrowArray){.length = (int64_t)d->count,
                                 .null_count = (int64_t)d->nulls,
                                 .n_buffers = d->hex ? 3 : 2,
                                 .buffers = e->buffers,
                                 .release = release_array,
                                 .private_data = e};
    return 0;
}

struct stream_state {
    struct digests *d;
    int done;
};

static int stream_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out) {
    export_schema(((struct stream_state *)stream->private_data)->d, out);
    return 0;
}

static int stream_next(struct ArrowArrayStream *stream, struct ArrowArray *out) {
    struct stream_state *st = stream->private_data;
    if (st->done) {
        out->release = NULL; /* the end */
        return 0;
    }
    if (export_array(st->d, out) < 0) return ENOMEM;
    st->done = 1;
    return 0;
}

static const char *stream_error(struct ArrowArrayStream *stream) {
    (void)stream;
    return "out of memory";
}

static void stream_release(struct ArrowArrayStream *stream) {
    struct stream_state *st = stream->private_data;
    digests_drop(st->d);
    free(st);
    stream->release = NULL;
}

static void schema_capsule_free(PyObject *capsule) {
    struct ArrowSchema *schema = PyCapsule_GetPointer(capsule, SCHEMA_CAPSULE);
    if (schema == NULL) return;
    if (schema->release) schema->release(schema);
    free(schema);
}

static void array_capsule_free(PyObject *capsule) {
    struct ArrowArray *array = PyCapsule_GetPointer(capsule, ARRAY_CAPSULE);
    if (array == NULL) return;
    if (array->release) array->release(array);
    free(array);
}

static void stream_capsule_free(PyObject *capsule) {
    struct ArrowArrayStream *stream = PyCapsule_GetPointer(capsule, STREAM_CAPSULE);
    if (stream == NULL) return;
    if (stream->release) stream->release(stream);
    free(stream);
}

/* ---- the Column type -------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    struct digests *d;
    Py_ssize_t shape[2], strides[2];
    char format[24];
} ColumnObject;

static void column_dealloc(ColumnObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    if (self->d) digests_drop(self->d);
    PyObject_Free(self);
    Py_DECREF(type);
}

/* A Column holding `d` (whose reference it takes: dropped on failure). */
static PyObject *column_new(PyTypeObject *type, struct digests *d) {
    ColumnObject *self = PyObject_New(ColumnObject, type);
    if (self == NULL) {
        digests_drop(d);
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

static PyObject *array_pair(struct digests *d) {
    struct ArrowSchema *schema = malloc(sizeof *schema);
    struct ArrowArray *array = malloc(sizeof *array);
    if (schema == NULL || array == NULL || export_array(d, array) < 0) {
        free(schema);
        free(array);
        return PyErr_NoMemory();
    }
    export_schema(d, schema);
    PyObject *first = PyCapsule_New(schema, SCHEMA_CAPSULE, schema_capsule_free);
    if (first == NULL) {
        schema->release(schema);
        free(schema);
        array->release(array);
        free(array);
        return NULL;
    }
    PyObject *second = PyCapsule_New(array, ARRAY_CAPSULE, array_capsule_free);
    if (second == NULL) {
        Py_DECREF(first);
        array->release(array);
        free(array);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, first, second);
    Py_DECREF(first);
    Py_DECREF(second);
    return pair;
}

static PyObject *column_arrow_array(ColumnObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"requested_schema", NULL};
    PyObject *requested = Py_None; /* a request the result need not follow: ignored */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_array__", keywords, &requested)) {
        return NULL;
    }
    return array_pair(self->d);
}

static PyObject *column_arrow_stream(ColumnObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"requested_schema", NULL};
    PyObject *requested = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_stream__", keywords,
                                     &requested)) {
        return NULL;
    }
    struct ArrowArrayStream *stream = malloc(sizeof *stream);
    struct stream_state *st = malloc(sizeof *st);
    if (stream == NULL || st == NULL) {
        free(stream);
        free(st);
        return PyErr_NoMemory();
    }
    st->d = digests_keep(self->d);
    st->done = 0;
    *stream = (struct ArrowArrayStream){stream_schema, stream_next, stream_error, stream_release,
                                        st};
    PyObject *capsule = PyCapsule_New(stream, STREAM_CAPSULE, stream_capsule_free);
    if (capsule == NULL) {
        stream->release(stream);
        free(stream);
    }
    return capsule;
}

static PyObject *column_arrow_schema(ColumnObject *self, PyObject *Py_UNUSED(ignored)) {
    struct ArrowSchema *schema = malloc(sizeof *schema);
    if (schema == NULL) return PyErr_NoMemory();
    export_schema(self->d, schema);
    PyObject *capsule = PyCapsule_New(schema, SCHEMA_CAPSULE, schema_capsule_free);
    if (capsule == NULL) free(schema);
    return capsule;
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
    struct digests *part = digests_new(d->algorithm, d->hex, (size_t)count, d->validity != NULL);
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

/* ---- importing: a column's rows ------------------------------------------------ */

/* What a column given to digest_column holds while its rows are read: one
 * vn_rows per chunk, and what keeps their memory alive. */
struct source {
    vn_rows *chunks;
    size_t count, rows;
    int nullable;
    struct ArrowSchema schema;      /* moved out of its capsule (release NULL: none) */
    struct ArrowArray *arrays;      /* moved out of their capsule or stream */
    size_t arrays_held;
    struct ArrowArrayStream stream; /* moved out of its capsule */
    Py_buffer view;
    int has_view;
};

static void source_close(struct source *s) {
    for (size_t i = 0; i < s->arrays_held; i++) {
        if (s->arrays[i].release) s->arrays[i].release(&s->arrays[i]);
    }
    if (s->schema.release) s->schema.release(&s->schema);
    if (s->stream.release) s->stream.release(&s->stream);
    if (s->has_view) PyBuffer_Release(&s->view);
    PyMem_Free(s->arrays);
    PyMem_Free(s->chunks);
    memset(s, 0, sizeof *s);
}

/* The pointer in `capsule` if it has `name`; else a TypeError naming both. */
static void *capsule_pointer(PyObject *capsule, const char *name, const char *method) {
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "%s returned %.100s, not a PyCapsule named '%s'", method,
                     Py_TYPE(capsule)->tp_name, name);
        return NULL;
    }
    const char *given = PyCapsule_GetName(capsule);
    if (given == NULL || strcmp(given, name) != 0) {
        PyErr_Format(PyExc_TypeError, "%s returned a PyCapsule named '%s', not '%s'", method,
                     given ? given : "(none)", name);
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

/* Check the format of `schema` (TypeError) before anything else is read. */
static int check_schema(const struct ArrowSchema *schema) {
    if (schema->dictionary != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "digest_column() takes %s, not a dictionary-encoded Arrow array "
                     "(decode it first)",
                     accepted);
        return -1;
    }
    if (!vn_arrow_format_ok(schema->format)) {
        PyErr_Format(PyExc_TypeError,
                     "digest_column() takes %s, not an Arrow array of format '%s'", accepted,
                     schema->format ? schema->format : "(none)");
        return -1;
    }
    return 0;
}

/* Room for `n` more arrays and chunks. */
static int source_grow(struct source *s, size_t n) {
    struct ArrowArray *arrays = PyMem_Realloc(s->arrays, sizeof *arrays * (s->arrays_held + n));
    if (arrays == NULL) return -1;
    s->arrays = arrays;
    vn_rows *chunks = PyMem_Realloc(s->chunks, sizeof *chunks * (s->count + n));
    if (chunks == NULL) return -1;
    s->chunks = chunks;
    return 0;
}

/* The last array held as one more chunk (ValueError if its buffers are wrong). */
static int add_chunk(struct source *s) {
    const char *problem =
        vn_rows_from_arrow(&s->chunks[s->count], &s->schema, &s->arrays[s->arrays_held - 1]);
    if (problem != NULL) {
        PyErr_Format(PyExc_ValueError, "digest_column(): %s", problem);
        return -1;
    }
    s->rows += s->chunks[s->count].count;
    s->nullable |= s->chunks[s->count].validity != NULL;
    s->count++;
    return 0;
}

static int open_array(struct source *s, PyObject *column, PyObject *method) {
    PyObject *pair = PyObject_CallNoArgs(method);
    if (pair == NULL) return -1;
    int status = -1;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_Format(PyExc_TypeError,
                     "%.100s.__arrow_c_array__() returned %.100s, not a pair of PyCapsules",
                     Py_TYPE(column)->tp_name, Py_TYPE(pair)->tp_name);
        goto done;
    }
    struct ArrowSchema *schema =
        capsule_pointer(PyTuple_GET_ITEM(pair, 0), SCHEMA_CAPSULE, "__arrow_c_array__()");
    if (schema == NULL) goto done;
    struct ArrowArray *array =
        capsule_pointer(PyTuple_GET_ITEM(pair, 1), ARRAY_CAPSULE, "__arrow_c_array__()");
    if (array == NULL) goto done;
    if (schema->release == NULL || array->release == NULL) {
        PyErr_SetString(PyExc_ValueError, "digest_column(): the Arrow capsules were consumed already");
        goto done;
    }
    if (check_schema(schema) < 0 || source_grow(s, 1) < 0) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    /* moved out: the capsules' destructors find them released */
    s->schema = *schema;
    schema->release = NULL;
    s->arrays[s->arrays_held++] = *array;
    array->release = NULL;
    status = add_chunk(s);
done:
    Py_DECREF(pair);
    return status;
}

static int open_stream(struct source *s, PyObject *method) {
    PyObject *capsule = PyObject_CallNoArgs(method);
    if (capsule == NULL) return -1;
    struct ArrowArrayStream *stream =
        capsule_pointer(capsule, STREAM_CAPSULE, "__arrow_c_stream__()");
    if (stream == NULL || stream->release == NULL) {
        if (stream != NULL) {
            PyErr_SetString(PyExc_ValueError, "digest_column(): the Arrow stream was consumed already");
        }
        Py_DECREF(capsule);
        return -1;
    }
    s->stream = *stream;
    stream->release = NULL;
    Py_DECREF(capsule);
    int error = s->stream.get_schema(&s->stream, &s->schema);
    if (error == 0 && check_schema(&s->schema) < 0) return -1;
    while (error == 0) {
        if (source_grow(s, 1) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        struct ArrowArray *array = &s->arrays[s->arrays_held];
        memset(array, 0, sizeof *array);
        error = s->stream.get_next(&s->stream, array);
        if (error != 0 || array->release == NULL) break; /* an error, or the end */
        s->arrays_held++;
        if (add_chunk(s) < 0) return -1;
    }
    if (error != 0) {
        const char *message = s->stream.get_last_error(&s->stream);
        PyErr_Format(PyExc_ValueError, "digest_column(): the Arrow stream failed: %s",
                     message ? message : strerror(error));
        return -1;
    }
    return 0;
}

static int open_buffer(struct source *s, PyObject *column) {
    if (PyObject_GetBuffer(column, &s->view, PyBUF_RECORDS_RO) < 0) return -1;
    s->has_view = 1;
    const Py_buffer *v = &s->view;
    const char *format = v->format ? v->format : "B";
    vn_rows rows = {0};
    const size_t length = strlen(format);
    if (v->ndim == 2 && (!strcmp(format, "B") || !strcmp(format, "=B") || !strcmp(format, "<B"))) {
        rows.layout = VN_ROWS_FIXED;
        rows.count = (size_t)v->shape[0];
        rows.width = (size_t)v->shape[1];
    } else if (v->ndim == 1 && length && format[length - 1] == 's') {
        rows.layout = VN_ROWS_PADDED;
        rows.count = (size_t)v->shape[0];
        rows.width = (size_t)v->itemsize;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "digest_column() takes %s, not %.100s: a buffer of %d dimension(s) of "
                     "format '%s'",
                     accepted, Py_TYPE(column)->tp_name, v->ndim, format);
        return -1;
    }
    if (!PyBuffer_IsContiguous(v, 'C')) {
        PyErr_Format(PyExc_ValueError,
                     "digest_column() takes a C-contiguous buffer; this %.100s is not (copy it)",
                     Py_TYPE(column)->tp_name);
        return -1;
    }
    rows.data = v->buf;
    s->chunks = PyMem_Malloc(sizeof *s->chunks);
    if (s->chunks == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->chunks[0] = rows;
    s->count = 1;
    s->rows = rows.count;
    return 0;
}

/* getattr(obj, name) into *result, or NULL there if it has none: 0; -1 on another error. */
static int optional_attribute(PyObject *obj, const char *name, PyObject **result) {
    *result = PyObject_GetAttrString(obj, name);
    if (*result != NULL) return 0;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
}

/* Open `column` as a source of rows; -1 with a TypeError or ValueError if it
 * is none of those accepted, before any row is read. */
static int source_open(struct source *s, PyObject *column) {
    memset(s, 0, sizeof *s);
    if (PyUnicode_Check(column) || PyBytes_Check(column) || PyByteArray_Check(column)) {
        PyErr_Format(PyExc_TypeError,
                     "digest_column() takes %s, not %.100s (one message: md5(), sha256(), ...)",
                     accepted, Py_TYPE(column)->tp_name);
        return -1;
    }
    PyObject *method = NULL;
    int status;
    if (optional_attribute(column, "__arrow_c_array__", &method) < 0) return -1;
    if (method != NULL) {
        status = open_array(s, column, method);
    } else {
        if (optional_attribute(column, "__arrow_c_stream__", &method) < 0) return -1;
        if (method != NULL) {
            status = open_stream(s, method);
        } else if (PyObject_CheckBuffer(column)) {
            status = open_buffer(s, column);
        } else {
            PyErr_Format(PyExc_TypeError, "digest_column() takes %s, not %.100s", accepted,
                         Py_TYPE(column)->tp_name);
            status = -1;
        }
    }
    Py_XDECREF(method);
    if (status < 0) source_close(s);
    return status;
}

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
    struct source s;
    if (source_open(&s, args[1]) < 0) return NULL;
    struct digests *d = digests_new(algorithm, hex, s.rows, s.nullable);
    if (d == NULL) {
        source_close(&s);
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
    source_close(&s);
    if (failed) {
        digests_drop(d);
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
    struct source s;
    if (source_open(&s, column) < 0) return NULL;
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
    source_close(&s);
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
    struct digests *d = digests_new(algorithm, hex, count, nullable);
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
            digests_drop(d);
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
