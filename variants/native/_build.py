"""How the native variant's two extension modules are built: sources, flags, and the bridges.

- ``variants.native._capi``: the kernels behind a CPython C-API type
  (``capi.c``), the native variant on CPython; built on CPython only.
- ``variants.native._cffi``: the same kernels behind cffi (API, out-of-line
  mode: cffi writes a C extension that calls the functions in ``CDEF``,
  releasing the GIL around each call), the native variant on PyPy and
  ``native-cffi`` on CPython; built where cffi can build (not on the
  free-threaded CPython 3.13).

``build_support/native.py`` turns these into the setuptools Extensions that
``pip install .`` compiles; nothing here runs when the package is imported.

All C files are compiled with the same flags at the baseline ISA (no
``-march``): the kernels that use optional instructions enable them per
function (target attributes) or per instruction (inline assembly), and run
only where the CPU has them.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, List, Sequence

HERE = Path(__file__).resolve().parent
CAPI_MODULE = "variants.native._capi"
CFFI_MODULE = "variants.native._cffi"

#: The kernels, their dispatch and the state machine: what both bridges compile
#: (and what the cross-architecture test driver links).
KERNEL_SOURCES = (
    "md5_generic.c",
    "md5_amd64.c",
    "md5_arm64.c",
    "md5_riscv64.c",
    "sha256_generic.c",
    "sha256_amd64.c",
    "sha256_arm64.c",
    "sha256_riscv64.c",
    "sha1_generic.c",
    "sha1_amd64.c",
    "sha1_arm64.c",
    "sha512_generic.c",
    "sha512_amd64.c",
    "sha512_amd64_sha512.c",
    "sha512_arm64.c",
    "md5_many_amd64.c",
    "md5_many_arm64.c",
    "sha256_many_amd64.c",
    "sha256_many_arm64.c",
    "sha1_many_amd64.c",
    "sha512_many_amd64.c",
    "cpu.c",
    "dispatch.c",
    "hash.c",
    "hex.c",
    "many.c",
    "many_scheduler.c",
    "many_short.c",
    "padding.c",
    "column.c",
)
#: Each bridge's own C.
CAPI_SOURCES = (
    *KERNEL_SOURCES,
    "files.c",
    "capi.c",
    "capi_args.c",
    "capi_kernels.c",
    "capi_many.c",
    "capi_files.c",
    "capi_arena.c",
    "capi_column.c",
    "capi_pool.c",
    "capi_export.c",
    "capi_import.c",
)
CFFI_SOURCES = (*KERNEL_SOURCES, "locked.c")
HEADERS = (
    "native.h",
    "algorithms.h",
    "cpu.h",
    "dispatch.h",
    "hash.h",
    "hex.h",
    "many.h",
    "many_scheduler.h",
    "files.h",
    "column.h",
    "locked.h",
    "capi.h",
    "capi_column.h",
    "arrow_abi.h",
    "constants.h",
    "environment.h",
    "padding.h",
    "md5_steps.h",
    "md5_scheduled.h",
    "md5_many_lanes.h",
    "sha_many_lanes.h",
    "sha2_many_rounds.h",
    "lanes_amd64.h",
    "lanes_vector_amd64.h",
    "shani_short.h",
    "sha512_amd64_asm.h",
    "sha256_shani.h",
    "sha256_sha2.h",
    "sha256_pairs.h",
    "sha1_shani.h",
    "sha512_avx2.h",
    "sha512_instructions.h",
    "sha512_extension.h",
    "sha512_functions.h",
)

#: What the Python side of the cffi bridge sees of dispatch.h, hash.h, many.h and
#: locked.h. ``vn_hash`` is opaque to Python (``...;``): cffi takes its size from the
#: compiler, so ``ffi.new`` can allocate it.
CDEF = """
typedef struct vn_hash { ...; } vn_hash;

void vn_setup(void);
const char *vn_setup_problem(void);
int vn_kernel_count(int core);
const char *vn_kernel_id(int core, int index);
const char *vn_kernel_name(int core, int index);
int vn_kernel_usable(int core, int index);
int vn_kernel_chosen(int core);
int vn_kernel_ran(int core, int index);
int vn_compress(int core, int index, void *state, const char *data, size_t blocks);

void vn_start(vn_hash *h, int algorithm, const char *data, size_t length);
void vn_update(vn_hash *h, const char *data, size_t length);
int vn_digest(vn_hash *h, char *out);
int vn_oneshot(int algorithm, const char *data, size_t length, char *out);
int vn_digest_size(int algorithm);
void vn_copy(vn_hash *dst, vn_hash *src);

int vn_digest_many_with(int index, int algorithm, size_t count, const unsigned char *const *data,
                        const size_t *lengths, unsigned char *out, int threads);
int vn_update_many(vn_hash *const *hashes, size_t count, const unsigned char *const *data,
                   const size_t *lengths);
"""

#: Optimisation at the baseline ISA. -march=native would be wrong for a
#: wheel, and GCC 12 misdetects this project's reference CPU with it (slower MD5).
COMPILE_ARGS = ("-O2", "-fvisibility=hidden")
#: The sanitizers the sanitize sessions build with: address and undefined
#: behaviour (fatal), or threads (data races).
SANITIZERS = {
    "address": ("-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"),
    "thread": ("-fsanitize=thread",),
}
#: What every sanitized build adds: readable reports.
SANITIZE_COMMON = ("-fno-omit-frame-pointer", "-g")


def _relative(path: Path) -> str:
    """setuptools wants source paths relative to the directory it runs in."""
    return os.path.relpath(path)


def _flags(sanitize: str, extra_compile_args: Sequence[str]) -> tuple[List[str], List[str]]:
    """(compile arguments, link arguments); ``sanitize`` is "" or a key of SANITIZERS."""
    compile_args: List[str] = [*COMPILE_ARGS, *extra_compile_args]
    link_args: List[str] = []
    if sanitize:
        compile_args += [*SANITIZERS[sanitize], *SANITIZE_COMMON]
        link_args += SANITIZERS[sanitize][:1]
    return compile_args, link_args


def capi_extension(sanitize: str = "", extra_compile_args: Sequence[str] = ()) -> Any:
    """The setuptools Extension of ``variants.native._capi``."""
    from setuptools import Extension

    compile_args, link_args = _flags(sanitize, extra_compile_args)
    return Extension(
        CAPI_MODULE,
        sources=[_relative(HERE / name) for name in CAPI_SOURCES],
        include_dirs=[_relative(HERE)],
        depends=[_relative(HERE / name) for name in HEADERS],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )


def make_ffi(sanitize: str = "", extra_compile_args: Sequence[str] = ()) -> Any:
    """A cffi FFI builder for ``variants.native._cffi`` (cffi is a build-time dependency)."""
    ffi = importlib.import_module("cffi").FFI()
    ffi.cdef(CDEF)
    compile_args, link_args = _flags(sanitize, extra_compile_args)
    ffi.set_source(
        CFFI_MODULE,
        '#include "dispatch.h"\n#include "locked.h"\n#include "many.h"',
        sources=[_relative(HERE / name) for name in CFFI_SOURCES],
        include_dirs=[_relative(HERE)],
        depends=[_relative(HERE / name) for name in HEADERS],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        libraries=["pthread"],
    )
    return ffi
