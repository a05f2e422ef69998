"""The study's compiled variants: the twins (mypyc, Cython pure-Python mode) and typed Cython.

Built only by the study's build (``VARIANTS_BUILD=study``, see
``variants/_settings.py``); the default install leaves them out.

mypyc and Cython name a module after its path, so a twin cannot be compiled
from ``variants/helpers/md5.py`` where it stands without replacing the
interpreted module. Each build therefore writes the twins' sources into a
package of their own, ``variants._twins.<twin>``, inside a fresh private
copy of the package under ``build/`` (never beside the sources, so that
nothing stale survives from one build to the next and two builds cannot
trip over each other), and compiles them there: copies of the interpreted
modules, or, for a twin with ``annotations``, those modules rendered again
with annotated locals by ``tools/gen_streamlined.py``. The wheel carries the
extensions only: a twin can only be imported compiled. ``variants._twins``
and its subpackages are namespace packages (no ``__init__.py``), which is
all the extensions need. Which twins exist is ``variants/_catalog.py``'s
table, which the registry reads too.

Only CPython gets them (mypyc: 3.10+, as current mypy needs, and not the
free-threaded build); elsewhere the registry reports them unavailable and
says why.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple, cast

from setuptools import Extension

from build_support import ROOT, cache, catalog, load, settings

PACKAGE = ROOT / "variants"

#: C flags for code that mypyc and Cython generate from the Python sources.
#: The unrolled block functions become single C functions of tens of
#: thousands of lines, and three -O2 passes are superlinear in function size:
#: points-to analysis, VRP and RTL GCSE take most of gcc's time there
#: (-ftime-report shows it). Without them the largest extension builds in a
#: fraction of the time and runs as fast (the build times are in the study's
#: report). And no debug information (mypyc asks for -g0 itself; Cython's C came with
#: the interpreter's -g): tracking
#: the variables of those functions took half of gcc 12's time on the largest (37.3 s
#: against 18.6 s of CPU for the streamlined SHA-256's Cython C, the same machine code)
#: and a third of the sid tree's gcc 16's.
GENERATED_CODE_FLAGS = ["-O2", "-fno-tree-pta", "-fno-tree-vrp", "-fno-gcse", "-g0"]
#: The part of the per-user cache (build_support/cache.py) that keeps the C Cython writes:
#: mypyc's C depends on the interpreter (mypy targets the running one's version and C API)
#: and type-checks the twins against the whole package, so only Cython's is kept.
CYTHON_CACHE = "cython"
#: C flags for the hand-written typed Cython variant.
TYPED_FLAGS = ["-O2"]


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


def _twin_text(twin: Any, module: str) -> str:
    """The source a twin compiles for ``module`` (e.g. "streamlined.md5_words")."""
    path = PACKAGE / (module.replace(".", "/") + ".py")
    if not twin.annotations:
        return path.read_text()
    generator = load("tools/gen_streamlined.py")
    text: str = generator.annotated(path.name, twin.annotations)
    return text


def _write_twin_sources(work: Path) -> Dict[Any, List[str]]:
    """Write each twin's sources into its package under ``work``; their relative paths."""
    copies: Dict[Any, List[str]] = {}
    for twin in catalog.TWINS:
        if twin.compiler == "mypyc" and not settings.mypyc_builds():
            continue
        folder = work / Path(*twin.package.split("."))
        folder.mkdir(parents=True)
        copies[twin] = []
        for module in catalog.source(twin.source).modules.values():
            target = folder / (module.rsplit(".", 1)[1] + ".py")
            target.write_text(_twin_text(twin, module))
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

    # The typed variant includes the generated constants.h of the native kernels.
    constants = (base / "variants" / "native").relative_to(ROOT).as_posix()
    extensions = [
        Extension(
            path[: -len(Path(path).suffix)].replace("/", "."),
            [(base / path).relative_to(ROOT).as_posix()],
            include_dirs=[constants],
            extra_compile_args=flags,
        )
        for path in paths
    ]
    directives: Dict[str, object] = {"language_level": "3"}
    if settings.free_threaded():
        # The block functions share no state: they need no GIL (Cython 3.1+).
        directives["freethreading_compatible"] = True
    kept = cache.root() / CYTHON_CACHE
    generated = {ext.name: _generated_key(ext, directives) for ext in extensions}
    if cache.objects_enabled():  # Cython writes no C beside a source whose C is newer
        for ext in extensions:
            cache.fetch(kept, generated[ext.name], _c_file(ext))
    result: List[Extension] = cythonize(  # type: ignore[no-untyped-call]
        extensions, compiler_directives=directives, quiet=True
    )
    if cache.objects_enabled():
        for ext in extensions:
            cache.keep(kept, generated[ext.name], _c_file(ext))
    return result


def _c_file(extension: Extension) -> Path:
    """Where Cython writes the C of ``extension`` (one source): beside its source."""
    return (ROOT / _source(extension)).with_suffix(".c")


def _source(extension: Extension) -> str:
    """The one source of a Cython extension, relative to the project."""
    return str(next(iter(extension.sources)))


def _generated_key(extension: Extension, directives: Dict[str, object]) -> str:
    """The key of the C that Cython writes for ``extension``: what decides it (Cython's
    version, the directives, the module's name and its source; the C that source includes is
    compiled later, through the object cache). The same for every interpreter."""
    from Cython import __version__ as version  # type: ignore[attr-defined]

    source = (ROOT / _source(extension)).read_bytes()
    return cache.digest("cython", version, sorted(directives.items()), extension.name, source)


def extensions() -> List[Extension]:
    """Every extension of the study's compiled variants this interpreter can build.

    None unless the study's build was asked for. They are optional (a failure
    leaves the variant out and the registry says why) unless every variant is
    required (VARIANTS_REQUIRE_ALL=1, as in CI).
    """
    if not settings.cpython() or settings.build_kind() != settings.BUILD_STUDY:
        return []
    required = settings.require_all()
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


def _typed_cython_sources() -> Tuple[str, ...]:
    return tuple(
        f"variants/{module.replace('.', '/')}.pyx" for module in catalog.TYPED_CYTHON.values()
    )


def _generate() -> List[Extension]:
    started = time.perf_counter()
    work = _workspace()
    copies = _write_twin_sources(work)
    mypyc_paths = [p for twin, paths in copies.items() if twin.compiler == "mypyc" for p in paths]
    cython_paths = [p for twin, paths in copies.items() if twin.compiler == "cython" for p in paths]
    result = _mypyc(work, mypyc_paths) if mypyc_paths else []
    result += _cython(work, cython_paths, GENERATED_CODE_FLAGS)
    result += _cython(work, list(_typed_cython_sources()), TYPED_FLAGS)
    print(f"compiled variants: C generated in {time.perf_counter() - started:.1f} s", flush=True)
    return result
