"""What steers the package and its build, read in one place: the environment
variables, and what this interpreter can build and run.

Stdlib only and importing nothing from the package: the build
(``build_support/``) loads this file by path.
"""

from __future__ import annotations

import os
import sys

#: A variant name: the drop-in's default instead of the fastest importable.
DEFAULT_ENV = "VARIANTS_DEFAULT"
#: 1: every variant this interpreter should run is a hard requirement: the
#: build fails rather than leave one out, and the tests fail rather than skip.
REQUIRE_ALL_ENV = "VARIANTS_REQUIRE_ALL"
#: "study": ``pip install .`` builds the study's variants too (the compiled
#: twins, the typed Cython variant and, on CPython, the cffi bridge), not only
#: what the drop-in and the command line use.
BUILD_ENV = "VARIANTS_BUILD"
#: 1: the native bridges choose the portable C kernels (read by dispatch.c: tools/gen_constants.py
#: writes these two names into variants/native/environment.h).
NATIVE_PORTABLE_ENV = "VARIANTS_NATIVE_PORTABLE"
#: ``core=id,...``: the native bridges run those kernels (read by dispatch.c).
NATIVE_KERNELS_ENV = "VARIANTS_NATIVE_KERNELS"

#: The values of BUILD_ENV.
BUILD_DEFAULT = "default"
BUILD_STUDY = "study"
#: How to ask for the study's build, for messages.
STUDY_BUILD_HINT = f"{BUILD_ENV}={BUILD_STUDY} pip install '.[{BUILD_STUDY}]'"
#: The file the build writes beside the package's modules: {"build": BUILD_DEFAULT or BUILD_STUDY}.
BUILD_INFO = "_build_info.json"


def flag(name: str) -> bool:
    """Whether the environment variable ``name`` is set to anything but "" or "0"."""
    return os.environ.get(name, "") not in ("", "0")


def require_all() -> bool:
    """Whether the environment demands every supported variant (CI does)."""
    return flag(REQUIRE_ALL_ENV)


def build_kind() -> str:
    """What ``pip install .`` builds: BUILD_DEFAULT or BUILD_STUDY (ValueError otherwise)."""
    kind = os.environ.get(BUILD_ENV, "") or BUILD_DEFAULT
    if kind not in (BUILD_DEFAULT, BUILD_STUDY):
        raise ValueError(f"{BUILD_ENV}={kind!r}: expected {BUILD_DEFAULT!r} or {BUILD_STUDY!r}")
    return kind


def cpython() -> bool:
    """Whether this is CPython (the compiled variants and the C-API bridge are built for it)."""
    return sys.implementation.name == "cpython"


def free_threaded() -> bool:
    """Whether this is a CPython built without the GIL (3.13t and later)."""
    import sysconfig  # (only here: it reads the build's configuration)

    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def cffi_builds() -> bool:
    """Whether cffi builds for this interpreter: everywhere but the free-threaded 3.13."""
    return not (free_threaded() and sys.version_info < (3, 14))


def mypyc_builds() -> bool:
    """Whether mypyc compiles for this interpreter: CPython 3.10 on (current mypy), with a
    GIL (mypy's compiled dependencies have no wheels for the free-threaded 3.13)."""
    return cpython() and sys.version_info >= (3, 10) and not free_threaded()
