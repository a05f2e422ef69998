"""The cffi builder of ``variants.native._native``: the C sources and the API they expose.

API (out-of-line) mode: cffi writes a C extension module that calls the
functions declared in ``CDEF`` directly, releasing the GIL around each call.
``build_support/native.py`` turns the builder into the setuptools Extension
that ``pip install .`` compiles; nothing here runs at import time of the package.

All C files are compiled with the same flags at the baseline ISA (no
``-march``): the kernels that use optional instructions enable them per
function (target attributes) or per instruction (inline assembly), and
run only where the CPU has them.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, List, Sequence

HERE = Path(__file__).resolve().parent
MODULE = "variants.native._native"

SOURCES = (
    "md5_generic.c",
    "md5_amd64.c",
    "md5_arm64.c",
    "md5_riscv64.c",
    "sha256_generic.c",
    "sha256_amd64.c",
    "sha256_arm64.c",
    "sha256_riscv64.c",
    "dispatch.c",
    "hash.c",
)
HEADERS = ("native.h", "md5_steps.h", "md5_scheduled.h")

#: What the Python side sees of native.h. ``vn_hash`` is opaque to Python
#: (``...;``): cffi takes its size from the compiler, so ``ffi.new`` can allocate it.
CDEF = """
typedef struct vn_hash { ...; } vn_hash;

void vn_setup(void);
int vn_kernel_count(int core);
const char *vn_kernel_name(int core, int index);
int vn_kernel_usable(int core, int index);
int vn_kernel_chosen(int core);
int vn_compress(int core, int index, uint32_t *state, const char *data, size_t blocks);

void vn_start(vn_hash *h, int algorithm, const char *data, size_t length);
void vn_update(vn_hash *h, const char *data, size_t length);
int vn_digest(vn_hash *h, char *out);
int vn_oneshot(int algorithm, const char *data, size_t length, char *out);
void vn_copy(vn_hash *dst, vn_hash *src);
"""

#: Optimisation at the baseline ISA. -march=native would be wrong for a
#: wheel, and GCC 12 misdetects this project's reference CPU with it (slower MD5).
COMPILE_ARGS = ("-O2", "-fvisibility=hidden")
#: For the sanitize session: address and undefined-behaviour checks, fatal.
SANITIZE_ARGS = (
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    "-fno-omit-frame-pointer",
    "-g",
)


def _relative(path: Path) -> str:
    """setuptools wants source paths relative to the directory it runs in."""
    return os.path.relpath(path)


def make_ffi(sanitize: bool = False, extra_compile_args: Sequence[str] = ()) -> Any:
    """A cffi FFI builder for the extension (cffi is a build-time dependency)."""
    ffi = importlib.import_module("cffi").FFI()
    ffi.cdef(CDEF)
    compile_args: List[str] = [*COMPILE_ARGS, *extra_compile_args]
    link_args: List[str] = []
    if sanitize:
        compile_args += SANITIZE_ARGS
        link_args += SANITIZE_ARGS[:1]
    ffi.set_source(
        MODULE,
        '#include "native.h"',
        sources=[_relative(HERE / name) for name in SOURCES],
        include_dirs=[_relative(HERE)],
        depends=[_relative(HERE / name) for name in HEADERS],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        libraries=["pthread"],
    )
    return ffi
