/*
 * MD5 for x86-64, written for the dependency chain (scalar, baseline ISA).
 *
 * Each step is a = b + ((a + f(b, c, d) + X[i] + t) <<< s), and b is what the
 * previous step just produced: a block costs 64 times the latency from b to
 * the new a. Everything that does not need b (a + X[i] + t, and whatever part
 * of f uses only c and d) is computed off that path, in the shadow of the
 * previous step, as OpenJDK's x86 MD5 intrinsic does:
 *
 *   round 1  f = d ^ (b & (c ^ d))      b: and, xor, add, rol, add  5 cycles
 *   round 2  g = (b & d) + (c & ~d)     b: and, add, rol, add       4 cycles
 *   round 3  h = b ^ (c ^ d)            b: xor, add, rol, add       4 cycles
 *   round 4  i = c ^ (b | ~d)           b: or, xor, add, rol, add   5 cycles
 *
 * g is usually written (b & d) | (c & ~d); the two halves have no bit in
 * common, so | is +, and the half without b joins the early sum. That is
 * 288 cycles a block, 4.5 cycles a byte. The chaining values are locals
 * across all the blocks of a call (read and written back once per call), and
 * the message words are read straight from the input, never copied. The C
 * is shared with md5_arm64.c: md5_scheduled.h.
 */
#include "native.h"

#if defined(VN_AMD64)
#define KERNEL_NAME vn_md5_amd64
#include "md5_scheduled.h"
#endif
