/*
 * A column of digests as Arrow: the C Data Interface's schema and array
 * (fixed_size_binary of the digest size, or string/large_string in hex)
 * and the C Stream Interface's stream of that one array, in PyCapsules.
 * Each exported array holds a reference to the digests, dropped by its
 * release callback.
 */
#include <errno.h>
#include <string.h>

#include "arrow_abi.h"
#include "capi_column.h"

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
    capi_digests_drop(e->d);
    free(e);
    array->release = NULL;
}

/* 0, or -1 without memory. */
static int export_array(struct digests *d, struct ArrowArray *array) {
    struct exported *e = malloc(sizeof *e);
    if (e == NULL) return -1;
    e->d = capi_digests_keep(d);
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
    capi_digests_drop(st->d);
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

PyObject *capi_export_array(struct digests *d) {
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

PyObject *capi_export_stream(struct digests *d) {
    struct ArrowArrayStream *stream = malloc(sizeof *stream);
    struct stream_state *st = malloc(sizeof *st);
    if (stream == NULL || st == NULL) {
        free(stream);
        free(st);
        return PyErr_NoMemory();
    }
    st->d = capi_digests_keep(d);
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

PyObject *capi_export_schema(struct digests *d) {
    struct ArrowSchema *schema = malloc(sizeof *schema);
    if (schema == NULL) return PyErr_NoMemory();
    export_schema(d, schema);
    PyObject *capsule = PyCapsule_New(schema, SCHEMA_CAPSULE, schema_capsule_free);
    if (capsule == NULL) free(schema);
    return capsule;
}
