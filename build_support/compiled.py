"""The compiled twins (mypyc, Cython pure-Python mode) and the typed Cython variant.

mypyc and Cython name a module after its path, so a twin cannot be compiled
from ``variants/helpers/md5.py`` where it stands without replacing the
interpreted module. Each build therefore copies the unchanged sources into a
package of their own, ``variants._twins.<twin>``, inside a fresh private
working folder under ``build/`` (never beside the sources, so that nothing
stale survives from one build to the next and two builds cannot trip over
each other), and compiles the copies there. The wheel carries the extensions only: a twin can
only be imported compiled. ``variants._twins`` and its subpackages are
namespace packages (no ``__init__.py``), which is all the extensions need.

Only CPython gets them (mypyc: 3.10+, as current mypy needs); on PyPy the
registry reports them unavailable and says why.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Tuple, cast

from setuptools import Extension

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "variants"
TWINS_PACKAGE = "variants._twins"


class Twin(NamedTuple):
    """A compiled copy of interpreted sources: its package name, compiler and sources."""

    package: str
    compiler: str  # "mypyc" or "cython"
    sources: Tuple[str, ...]  # paths below variants/


TWINS: Tuple[Twin, ...] = (
    Twin("helpers_mypyc", "mypyc", ("helpers/md5.py", "helpers/sha256.py")),
    Twin("streamlined_mypyc", "mypyc", ("streamlined/md5.py", "streamlined/sha256.py")),
    Twin(
        "streamlined_bytes_mypyc",
        "mypyc",
        ("streamlined/md5_bytes.py", "streamlined/sha256_bytes.py"),
    ),
    Twin("streamlined_i64_mypyc", "mypyc", ("streamlined/md5_i64.py", "streamlined/sha256_i64.py")),
    Twin("helpers_cython", "cython", ("helpers/md5.py", "helpers/sha256.py")),
    Twin("streamlined_cython", "cython", ("streamlined/md5.py", "streamlined/sha256.py")),
)

#: The typed Cython variant (compiled from the working copy, like the rest).
TYPED_CYTHON = ("variants/cython/md5.pyx", "variants/cython/sha256.pyx")

#: C flags for code that mypyc and Cython generate from the Python sources.
#: The unrolled block functions become single C functions of tens of
#: thousands of lines, and three -O2 passes are superlinear in function size:
#: points-to analysis, VRP and RTL GCSE took 80-95% of gcc's time (-ftime-report),
#: and plain -O2 took several minutes on one extension (the mypyc build of an
#: unrolled plain-int SHA-256). Without them the largest builds in well under
#: two minutes and runs as fast as with them (the mypyc MD5 twins, within noise).
GENERATED_CODE_FLAGS = ["-O2", "-fno-tree-pta", "-fno-tree-vrp", "-fno-gcse"]
#: C flags for the hand-written typed Cython variant.
TYPED_FLAGS = ["-O2"]


def is_cpython() -> bool:
    return sys.implementation.name == "cpython"


def mypyc_supported() -> bool:
    return is_cpython() and sys.version_info >= (3, 10)


def _workspace() -> Path:
    """A fresh folder holding a copy of the package, removed when the build ends."""
    (ROOT / "build").mkdir(exist_ok=True)
    # Inside the project: setuptools accepts only relative source paths.
    work = Path(tempfile.mkdtemp(prefix="twins-", dir=ROOT / "build"))
    atexit.register(shutil.rmtree, work, True)
    # mypyc type-checks the copies against the rest of the package.
    shutil.copytree(
        PACKAGE, work / "variants", ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__")
    )
    return work


def _write_twin_sources(work: Path) -> Dict[Twin, List[str]]:
    """Copy each twin's sources into its package under ``work``; the copies' relative paths."""
    copies: Dict[Twin, List[str]] = {}
    for twin in TWINS:
        if twin.compiler == "mypyc" and not mypyc_supported():
            continue
        folder = work / "variants" / "_twins" / twin.package
        folder.mkdir(parents=True)
        copies[twin] = []
        for source in twin.sources:
            target = folder / Path(source).name
            shutil.copyfile(PACKAGE / source, target)
            copies[twin].append(target.relative_to(work).as_posix())
    return copies


def _rebase(extension: Extension, base: Path) -> Extension:
    """Make an extension's sources relative to the project, as setuptools requires.

    mypyc gives paths relative to ``base`` (or absolute below it); include
    folders outside the project (mypyc's runtime) stay absolute.
    """

    def move(path: str | os.PathLike[str]) -> str:
        return (base / path).resolve().relative_to(ROOT).as_posix()

    extension.sources = [move(s) for s in extension.sources]
    extension.include_dirs = [
        d if os.path.isabs(d) and not Path(d).resolve().is_relative_to(ROOT) else move(d)
        for d in extension.include_dirs
    ]
    return extension


def _mypyc(work: Path, paths: List[str]) -> List[Extension]:
    from mypyc.build import mypycify

    here = os.getcwd()
    os.chdir(work)  # mypyc names modules after their paths from here
    try:
        # One extension per module (separate=True), so that each compiles on its own.
        extensions = mypycify(
            paths,
            opt_level="2",
            debug_level="0",
            separate=True,
            verbose=False,
            target_dir=str(work / "build"),
        )
    finally:
        os.chdir(here)
    for extension in extensions:
        extension.extra_compile_args = [*extension.extra_compile_args, *GENERATED_CODE_FLAGS]
        _rebase(cast(Extension, extension), work)
    return cast(List[Extension], extensions)


def _cython(base: Path, paths: List[str], flags: List[str]) -> List[Extension]:
    from Cython.Build import cythonize

    extensions = [
        Extension(
            path[: -len(Path(path).suffix)].replace("/", "."),
            [(base / path).relative_to(ROOT).as_posix()],
            extra_compile_args=flags,
        )
        for path in paths
    ]
    result: List[Extension] = cythonize(  # type: ignore[no-untyped-call]
        extensions, compiler_directives={"language_level": "3"}, quiet=True
    )
    return result


def extensions() -> List[Extension]:
    """Every extension of the compiled variants this interpreter can build.

    They are optional (a failure leaves the variant out and the registry says
    why) unless every variant is required (VARIANTS_REQUIRE_ALL=1, as in CI).
    """
    if not is_cpython():
        return []
    required = os.environ.get("VARIANTS_REQUIRE_ALL", "") not in ("", "0")
    try:
        result = _generate()
    except Exception as exc:  # a compiler missing or failing to generate C
        if required:
            raise
        print(f"variants: not building the compiled variants: {exc!r}", file=sys.stderr)
        return []
    for extension in result:
        extension.optional = not required
    return result


def _generate() -> List[Extension]:
    started = time.perf_counter()
    work = _workspace()
    copies = _write_twin_sources(work)
    mypyc_paths = [p for twin, paths in copies.items() if twin.compiler == "mypyc" for p in paths]
    cython_paths = [p for twin, paths in copies.items() if twin.compiler == "cython" for p in paths]
    result = _mypyc(work, mypyc_paths) if mypyc_paths else []
    result += _cython(work, cython_paths, GENERATED_CODE_FLAGS)
    result += _cython(work, list(TYPED_CYTHON), TYPED_FLAGS)
    print(f"compiled variants: C generated in {time.perf_counter() - started:.1f} s", flush=True)
    return result
