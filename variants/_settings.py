"""The environment variables that steer the package and its build, read in one place.

Stdlib only and importing nothing from the package: the build
(``build_support/``) loads this file by path.
"""

from __future__ import annotations

import os

#: A variant name: the drop-in's default instead of the fastest importable.
DEFAULT_ENV = "VARIANTS_DEFAULT"
#: 1: every variant this interpreter should run is a hard requirement: the
#: build fails rather than leave one out, and the tests fail rather than skip.
REQUIRE_ALL_ENV = "VARIANTS_REQUIRE_ALL"
#: "study": ``pip install .`` builds the study's variants too (the compiled
#: twins, the typed Cython variant and, on CPython, the cffi bridge), not only
#: what the drop-in and the command line use.
BUILD_ENV = "VARIANTS_BUILD"
#: 1: the native bridges choose the portable C kernels (read by dispatch.c).
NATIVE_PORTABLE_ENV = "VARIANTS_NATIVE_PORTABLE"

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
