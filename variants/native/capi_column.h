/*
 * What the files of the C-API module's columns share (capi_column.c, the
 * Column type and the module functions; capi_pool.c, its memory;
 * capi_export.c, Arrow out; capi_import.c, a column's rows in).
 */
#ifndef VARIANTS_CAPI_COLUMN_H
#define VARIANTS_CAPI_COLUMN_H

#include "arrow_abi.h"
#include "capi.h"

/* The names of the Arrow PyCapsule interface's capsules. */
#define SCHEMA_CAPSULE "arrow_schema"
#define ARRAY_CAPSULE "arrow_array"
#define STREAM_CAPSULE "arrow_array_stream"

/* ---- capi_pool.c: the digests of a column ------------------------------- */

/* The digests live in a `struct digests` with a count of references: one for
 * the Column object and one for every Arrow array exported from it, whose
 * release callback (any thread, no GIL) drops it. */
struct digests {
    long refs; /* atomic */
    int algorithm, hex, large;
    size_t count, nulls, width;
    unsigned char *data;     /* count * width bytes (at least 1) */
    unsigned char *validity; /* NULL if no row is null */
    void *offsets;           /* hex: count + 1 offsets (int32, or int64 if large) */
};

/* Room for `count` digests (validity all set if `nullable`); NULL without memory. */
struct digests *capi_digests_new(int algorithm, int hex, size_t count, int nullable);
/* One more reference to `d`, and one less (the last frees it): on any thread. */
struct digests *capi_digests_keep(struct digests *d);
void capi_digests_drop(struct digests *d);

/* ---- capi_export.c: the digests as Arrow ------------------------------------ */

/* PyCapsules of the digests (each holding a reference): __arrow_c_array__'s
 * (schema, array) pair, __arrow_c_stream__'s stream, __arrow_c_schema__'s
 * schema. NULL with an error. */
PyObject *capi_export_array(struct digests *d);
PyObject *capi_export_stream(struct digests *d);
PyObject *capi_export_schema(struct digests *d);

/* ---- capi_import.c: a column's rows ------------------------------------------ */

/* What a column given to digest_column holds while its rows are read: one
 * vn_rows per chunk, and what keeps their memory alive. */
struct capi_source {
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

/* Open `column` as a source of rows; -1 with a TypeError or ValueError if it
 * is none of those accepted, before any row is read. */
int capi_source_open(struct capi_source *s, PyObject *column);
void capi_source_close(struct capi_source *s);

#endif
