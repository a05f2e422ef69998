/*
 * The padding tables of native.h (vn_short_keep, vn_short_end), which the
 * short kernels without AVX-512's masks load: beside padding.h, the padding
 * of a message's last blocks in C, so that the kernels and the scheduler do
 * not depend on each other for them.
 */
#include "native.h"

/* The rest of each is zeros. */
#define KEEP4 0xff, 0xff, 0xff, 0xff
#define KEEP16 KEEP4, KEEP4, KEEP4, KEEP4
const unsigned char vn_short_keep[256] = {KEEP16, KEEP16, KEEP16, KEEP16,
                                          KEEP16, KEEP16, KEEP16, KEEP16};
const unsigned char vn_short_end[256] = {[128] = 0x80};
#undef KEEP16
#undef KEEP4
