/*
 * The vector of an x86-64 lanes kernel, by its width and its lanes' word
 * size, for the templates (md5_many_lanes.h, sha_many_lanes.h). Define
 *
 *   VECTOR_BITS     256 (ymm) or 512 (zmm)
 *   WORD_BITS       32 or 64
 *
 * then include this (again for each other vector): it consumes both and
 * (re)defines
 *
 *   V, VL                the vector type and its number of lanes
 *   LANE_WORD_BITS       WORD_BITS, kept
 *   V_LOAD(p), V_STORE(p, v)
 *                        aligned loads and stores of VL words
 *   V_ADD(a, b)          lane-wise addition
 *   V_SET1(x)            x in every lane
 *   V_OP(name)           the intrinsic _mm256_name or _mm512_name, for
 *                        instructions that AVX-512 has at both widths
 *
 * Their users are compiled for the instruction sets that these need.
 */
#include <immintrin.h>

#undef V
#undef VL
#undef LANE_WORD_BITS
#undef V_LOAD
#undef V_STORE
#undef V_ADD
#undef V_SET1
#undef V_OP

#if WORD_BITS == 32
#define LANE_WORD_BITS 32
#else
#define LANE_WORD_BITS 64
#endif
#if VECTOR_BITS == 256
#define V __m256i
#define V_OP(name) _mm256_##name
#define V_LOAD(p) _mm256_load_si256((const __m256i *)(p))
#define V_STORE(p, v) _mm256_store_si256((__m256i *)(p), (v))
#if WORD_BITS == 32
#define VL 8
#define V_ADD(a, b) _mm256_add_epi32((a), (b))
#define V_SET1(x) _mm256_set1_epi32((int)(x))
#else
#define VL 4
#define V_ADD(a, b) _mm256_add_epi64((a), (b))
#define V_SET1(x) _mm256_set1_epi64x((long long)(x))
#endif
#elif VECTOR_BITS == 512
#define V __m512i
#define V_OP(name) _mm512_##name
#define V_LOAD(p) _mm512_load_si512((const void *)(p))
#define V_STORE(p, v) _mm512_store_si512((void *)(p), (v))
#if WORD_BITS == 32
#define VL 16
#define V_ADD(a, b) _mm512_add_epi32((a), (b))
#define V_SET1(x) _mm512_set1_epi32((int)(x))
#else
#define VL 8
#define V_ADD(a, b) _mm512_add_epi64((a), (b))
#define V_SET1(x) _mm512_set1_epi64((long long)(x))
#endif
#else
#error "VECTOR_BITS is 256 or 512"
#endif

#undef VECTOR_BITS
#undef WORD_BITS
