/*
 * Reading a column given to digest_column or column_rows: an Arrow array
 * (the PyCapsule interface: __arrow_c_array__, or __arrow_c_stream__ for a
 * chunked array) or a buffer of fixed-width rows (a NumPy S array, a 2-D
 * C-contiguous uint8 array), checked and opened as chunks of rows
 * (column.h's vn_rows) before any is hashed.
 */
#include <string.h>

#include "arrow_abi.h"
#include "capi_column.h"

static const char accepted[] =
    "an Arrow array or chunked array (an object with __arrow_c_array__ or __arrow_c_stream__) "
    "of binary, string, large_binary, large_string, binary_view, string_view or "
    "fixed_size_binary, a NumPy array of dtype S, or a 2-D C-contiguous uint8 array";

void capi_source_close(struct capi_source *s) {
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
static int source_grow(struct capi_source *s, size_t n) {
    struct ArrowArray *arrays = PyMem_Realloc(s->arrays, sizeof *arrays * (s->arrays_held + n));
    if (arrays == NULL) return -1;
    s->arrays = arrays;
    vn_rows *chunks = PyMem_Realloc(s->chunks, sizeof *chunks * (s->count + n));
    if (chunks == NULL) return -1;
    s->chunks = chunks;
    return 0;
}

/* The last array held as one more chunk (ValueError if its buffers are wrong). */
static int add_chunk(struct capi_source *s) {
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

static int open_array(struct capi_source *s, PyObject *column, PyObject *method) {
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

static int open_stream(struct capi_source *s, PyObject *method) {
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

static int open_buffer(struct capi_source *s, PyObject *column) {
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
int capi_source_open(struct capi_source *s, PyObject *column) {
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
    if (status < 0) capi_source_close(s);
    return status;
}
