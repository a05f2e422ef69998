"""The typed Cython variant: MD5, SHA-256, SHA-1 and SHA-512 block functions in C fixed-width
arithmetic.

What Cython can do when it is allowed to: ``uint32_t`` locals, a typed
``const unsigned char[::1]`` memoryview for the input and no Python object in
the block loop, which runs without the GIL.
"""
