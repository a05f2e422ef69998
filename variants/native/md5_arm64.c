/*
 * MD5 for AArch64, written for the dependency chain (scalar, baseline ISA).
 *
 * The same schedule as md5_amd64.c: per step, only the part of the round
 * function that needs b, the add, the rotate and the add of b are on the
 * path from one step to the next. AArch64's bic (x & ~y) and orn (x | ~y)
 * make the rest single instructions, as in OpenJDK's AArch64 MD5 intrinsic:
 *
 *   round 1  f = d ^ (b & (c ^ d))      eor early; and, eor after b
 *   round 2  g = (b & d) + (c & ~d)     bic early; and after b
 *   round 3  h = b ^ (c ^ d)            eor early; eor after b
 *   round 4  i = c ^ (b | ~d)           orn, eor after b
 *
 * Rotates are ror by 32 - s. The C is shared with md5_amd64.c: md5_scheduled.h.
 */
#include "native.h"

#if defined(VN_ARM64)
#define KERNEL_NAME vn_md5_arm64
#include "md5_scheduled.h"
#endif
