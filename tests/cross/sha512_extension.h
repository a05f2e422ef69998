/*
 * dispatch.c's entry for the kernel of x86-64's SHA512 extension in the
 * cross driver's build, where it runs this folder's sha512_instructions.h
 * (the instructions as C): so AVX2 is what it needs, and its name says it
 * is the model. Found before variants/native/sha512_extension.h on the
 * include path (tests/cross/run.py).
 */
#ifndef VARIANTS_NATIVE_SHA512_EXTENSION_H /* the guard of the file it stands in for */
#define VARIANTS_NATIVE_SHA512_EXTENSION_H

#define VN_SHA512_EXTENSION_NAME "x86-64 SHA512 (modelled in C)"
#define VN_SHA512_EXTENSION_NEEDS NEEDS_AVX2

#endif
