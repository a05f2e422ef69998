/*
 * column.c: the rows of a column (Arrow layouts, fixed-width rows), read
 * where they are and hashed in lanes.
 */
#ifndef VARIANTS_NATIVE_COLUMN_H
#define VARIANTS_NATIVE_COLUMN_H

#include <stddef.h>

/* The rows of a column, read where they are. Row i (0 .. count-1) is
 * element first + i of the buffers (Arrow's offset), null if `validity` is
 * not NULL and its bit first + i is clear (least significant bit first). */
enum {
    VN_ROWS_FIXED = 0,    /* rows of `width` bytes one after another at data */
    VN_ROWS_PADDED = 1,   /* the same, each without its trailing NUL bytes (NumPy's S) */
    VN_ROWS_OFFSETS32 = 2, /* Arrow binary/string: row i is data[offsets[i] .. offsets[i+1]) */
    VN_ROWS_OFFSETS64 = 3, /* large_binary/large_string: the same with int64 offsets */
    VN_ROWS_VIEWS = 4     /* binary_view/string_view: 16-byte views into `buffers` */
};
typedef struct vn_rows {
    int layout;
    size_t count, first;
    const unsigned char *validity;
    const void *index; /* the int32 or int64 offsets, or the views */
    const unsigned char *data;
    const unsigned char *const *buffers; /* views: the data buffers */
    size_t buffer_count;
    size_t width; /* fixed and padded rows: their size */
} vn_rows;

struct ArrowSchema;
struct ArrowArray;
/* `rows` from an Arrow array of one of the layouts above (formats z, Z, u, U,
 * vz, vu, w:N) and its schema, checked before any hashing: its buffers, that
 * its offsets never decrease, that its views stay inside their buffers.
 * Returns NULL, or what is wrong (a static string). */
const char *vn_rows_from_arrow(vn_rows *rows, const struct ArrowSchema *schema,
                               const struct ArrowArray *array);
/* Row i's bytes (not for a null row), and their number in *length. */
const unsigned char *vn_row(const vn_rows *rows, size_t i, size_t *length);
/* Whether an Arrow format is one vn_rows_from_arrow takes. */
int vn_arrow_format_ok(const char *format);
/* The digests of the rows: row i's at out + i * width, in binary (width is the
 * digest size) or, if `hex`, in hexadecimal digits (twice that); a null row's
 * bytes are zeros. `threads` > 1 splits the rows over that many threads by
 * their bytes. Returns 0, or -1 (having written nothing) without memory. */
int vn_digest_rows(int algorithm, const vn_rows *rows, int hex, int threads, unsigned char *out);
/* Copy the rows' validity to bits start .. start+count-1 of `bits` (which
 * has them all set to begin with); the number of null rows. */
size_t vn_rows_validity(const vn_rows *rows, unsigned char *bits, size_t start);

#endif
