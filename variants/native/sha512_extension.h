/*
 * dispatch.c's entry for sha512_amd64_sha512.c, the kernel of x86-64's SHA512
 * extension: its name and the CPU features it needs (cpu.h's NEEDS_*).
 *
 * Included as <sha512_extension.h>, from the include path, as the kernel's
 * sha512_instructions.h: the cross driver's build finds tests/cross's first,
 * where the instructions are C that AVX2 runs, named so.
 */
#ifndef VARIANTS_NATIVE_SHA512_EXTENSION_H
#define VARIANTS_NATIVE_SHA512_EXTENSION_H

#define VN_SHA512_EXTENSION_NAME "x86-64 SHA512"
#define VN_SHA512_EXTENSION_NEEDS NEEDS_SHA512

#endif
