/*
 * MD5 of many messages at once on x86-64: one message per 32-bit vector
 * lane, the body in md5_many_lanes.h.
 *
 *   avx2-x8     AVX2, one set of 8 lanes (ymm)
 *   avx2-x16    AVX2, two interleaved sets of 8
 *   avx512-x8   AVX-512 VL on ymm: vprold rotates, vpternlogd round functions
 *   avx512-x16  AVX-512 on zmm, one set of 16 lanes
 *   avx512-x32  AVX-512 on zmm, two interleaved sets of 16
 *
 * With AVX-512 a step's chain is four one-cycle instructions (vpternlogd,
 * vpaddd, vprold, vpaddd); with AVX2 five or six (the round function takes
 * two, a rotate is two shifts and an or, except the rotates by 16, which are
 * one byte shuffle). Each block is loaded as it is, a row of words per lane,
 * and transposed in registers into one vector per word (unpack, then
 * 128-bit lane moves: lanes_amd64.h), which a trial here measured 25-35 %
 * faster than gathering each word with vpgatherdd.
 *
 * Each kernel has a short kernel beside it (native.h: vn_short_fn,
 * vn_md5_short_*): messages of at most 64 bytes read in place, padded in the
 * registers, the digests transposed out of the state's registers. The zmm
 * ones pad the transposed words with AVX-512's masks (pad_short32_x16); the
 * ymm ones each lane's row as it is loaded, by the tables (short_words32_x8).
 * (What a 32-byte message costs through them: docs/development.md, "The
 * kernels' measurements".)
 */
#include "native.h"

#if defined(VN_AMD64)
#include <immintrin.h>

#include "lanes_amd64.h"

/* ---- AVX2 ------------------------------------------------------------------ */

#define VECTOR_BITS 256
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#define TARGET __attribute__((target("avx2")))
#define KADD(v, n) V_ADD((v), V_SET1(KT[n]))
#define ROL(v, s)                                                                            \
    ((s) == 16 ? _mm256_shuffle_epi8((v), _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, \
                                                          7, 6, 1, 0, 3, 2, 13, 12, 15, 14,  \
                                                          9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, \
                                                          2))                                \
               : _mm256_or_si256(_mm256_slli_epi32((v), (s)), _mm256_srli_epi32((v), 32 - (s))))
#define BARRIER(v) __asm__("" : "+x"(v))
#define LATE1(b, c, d) _mm256_xor_si256((d), _mm256_and_si256((b), _mm256_xor_si256((c), (d))))
#define EARLY2(sum, c, d) sum = _mm256_add_epi32(sum, _mm256_andnot_si256((d), (c)))
#define LATE2(b, c, d) _mm256_and_si256((b), (d))
#define LATE3(b, c, d) _mm256_xor_si256((b), _mm256_xor_si256((c), (d)))
#define LATE4(b, c, d) \
    _mm256_xor_si256((c), _mm256_or_si256((b), _mm256_xor_si256((d), _mm256_set1_epi32(-1))))
#define LOAD_WORDS(x, p, offset) load_words32_x8((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x8((x), (p), (lengths), 0, (block), (blocks))
#define STORE_DIGESTS(out, a, b, c, d) store_four_words32_x8((out), (a), (b), (c), (d))

#define KERNEL_NAME vn_md5_many_avx2_x8
#define KERNEL_SHORT vn_md5_short_avx2_x8
#define SETS 1
#include "md5_many_lanes.h"

#define KERNEL_NAME vn_md5_many_avx2_x16
#define KERNEL_SHORT vn_md5_short_avx2_x16
#define SETS 2
#include "md5_many_lanes.h"

#undef TARGET
#undef ROL
#undef BARRIER
#undef LATE1
#undef EARLY2
#undef LATE2
#undef LATE3
#undef LATE4
#undef LOAD_WORDS
#undef SHORT_WORDS
#undef STORE_DIGESTS

/* ---- AVX-512 --------------------------------------------------------------- */

/* At either width: rotates are vprold, and the round functions single
 * vpternlogd, each bit of the result the immediate's bit number 4b + 2c + d.
 *   F = b ? c : d     0xca
 *   G = d ? b : c     0xe4
 *   H = b ^ c ^ d     0x96
 *   I = c ^ (b | ~d)  0x39 */
#define TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512bw")))
#define ROL(v, s) V_OP(rol_epi32)((v), (s))
#define BARRIER(v) __asm__("" : "+v"(v))
#define LATE1(b, c, d) V_OP(ternarylogic_epi32)((b), (c), (d), 0xca)
#define EARLY2(sum, c, d)
#define LATE2(b, c, d) V_OP(ternarylogic_epi32)((b), (c), (d), 0xe4)
#define LATE3(b, c, d) V_OP(ternarylogic_epi32)((b), (c), (d), 0x96)
#define LATE4(b, c, d) V_OP(ternarylogic_epi32)((b), (c), (d), 0x39)

/* ymm: the AVX2 kernels' loads and stores */
#define LOAD_WORDS(x, p, offset) load_words32_x8((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x8((x), (p), (lengths), 0, (block), (blocks))
#define STORE_DIGESTS(out, a, b, c, d) store_four_words32_x8((out), (a), (b), (c), (d))
#define KERNEL_NAME vn_md5_many_avx512_x8
#define KERNEL_SHORT vn_md5_short_avx512_x8
#define SETS 1
#include "md5_many_lanes.h"
#undef LOAD_WORDS
#undef SHORT_WORDS
#undef STORE_DIGESTS

/* zmm */
#define VECTOR_BITS 512
#define WORD_BITS 32
#include "lanes_vector_amd64.h"
#define LOAD_WORDS(x, p, offset) load_words32_x16((x), (p), (offset))
#define SHORT_WORDS(x, p, lengths, block, blocks) \
    short_words32_x16((x), (p), (lengths), 0, (block), (blocks))
#define STORE_DIGESTS(out, a, b, c, d) store_four_words32_x16((out), (a), (b), (c), (d))

#define KERNEL_NAME vn_md5_many_avx512_x16
#define KERNEL_SHORT vn_md5_short_avx512_x16
#define SETS 1
#include "md5_many_lanes.h"

#define KERNEL_NAME vn_md5_many_avx512_x32
#define KERNEL_SHORT vn_md5_short_avx512_x32
#define SETS 2
#include "md5_many_lanes.h"

#endif
