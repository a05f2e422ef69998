"""Build script for the extensions; the package metadata is in pyproject.toml.

``pip install .`` builds the native variant: on CPython its C-API module, on
PyPy its cffi module (build_support/native.py). The study's build
(``VARIANTS_BUILD=study pip install .``) adds, on CPython, the compiled twins
(mypyc, Cython), the typed Cython variant (build_support/compiled.py) and the
cffi bridge. What each build needs installed first, build_support/backend.py
tells pip.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Dict, List, Optional

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import BaseError, CCompilerError, CompileError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from build_support import cache, compiled, native, settings

#: Stands in for the extensions until build_ext runs: pip runs this script
#: three times (requirements, metadata, wheel) and only the last needs the
#: generated C, which takes mypyc and Cython half a minute to write.
PLACEHOLDER = Extension("variants._extensions_come_from_build_ext", sources=[])
#: The errors that an optional extension's build may end with (a warning, not a failure).
BUILD_ERRORS = (CCompilerError, CompileError, BaseError)
#: Commands that need the package's metadata and files, not its extensions.
METADATA_ONLY = {"egg_info", "dist_info", "sdist"}


class BuildExt(build_ext):
    """build_ext that generates the extensions, compiles them on every core and times each.

    The times are data: with ``VARIANTS_BUILD_TIMES=FILE`` in the environment the
    build writes them to FILE as JSON (the study's environments record them so),
    ``{"generate": seconds, "extensions": {name: seconds}, "parallel": cores, "objects":
    {"folder": ..., "hits": n, "compiled": n}}`` (the object cache, build_support/cache.py:
    how many C files it found compiled already, how many were compiled).
    """

    #: The environment variable naming the JSON file the times go to.
    TIMES_ENV = "VARIANTS_BUILD_TIMES"

    def finalize_options(self) -> None:
        self.generate_seconds = 0.0
        self.object_cache: Optional[cache.ObjectCache] = None
        self.extension_seconds: Dict[str, float] = {}
        # egg_info and sdist finalize build_ext too, only to list sources.
        if not set(self.distribution.commands) <= METADATA_ONLY:
            started = time.perf_counter()
            self.distribution.ext_modules = [*compiled.extensions(), *native.extensions()]
            self.generate_seconds = time.perf_counter() - started
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        """Build on every core, but the extensions that share a source one after the other.

        Two extensions that compile the same file (the C-API and cffi bridges both
        compile the kernels) write the same object in ``build_temp``: built at once,
        one could link the other's half-written object.
        """
        self.check_extensions_list(self.extensions)
        self.object_cache = cache.install(self.compiler)
        groups: List[List[Extension]] = []
        for ext in self.extensions:
            sharing = [g for g in groups if any(set(ext.sources) & set(o.sources) for o in g)]
            merged = [e for g in sharing for e in g] + [ext]
            groups = [g for g in groups if g not in sharing] + [merged]

        def build(group: List[Extension]) -> List[Optional[BaseException]]:
            errors: List[Optional[BaseException]] = []
            for ext in group:
                try:
                    self.build_extension(ext)
                    errors.append(None)
                except Exception as error:  # raised again below, as the serial build would
                    errors.append(error)
            return errors

        with ThreadPoolExecutor(max_workers=int(self.parallel or 1)) as pool:
            futures: List[Future[List[Optional[BaseException]]]] = [
                pool.submit(build, group) for group in groups
            ]
            for group, future in zip(groups, futures):
                for ext, error in zip(group, future.result()):
                    if error is None:
                        continue
                    # as setuptools does: an optional extension's failed compile is a warning
                    if not (ext.optional and isinstance(error, BUILD_ERRORS)):
                        raise error
                    self.warn(f'building extension "{ext.name}" failed: {error}')

    def build_extension(self, ext: Extension) -> None:
        started = time.perf_counter()
        super().build_extension(ext)
        seconds = time.perf_counter() - started
        self.extension_seconds[ext.name] = seconds  # from several threads: one key each
        print(f"built {ext.name} in {seconds:.1f} s", flush=True)

    def run(self) -> None:
        super().run()
        target = os.environ.get(self.TIMES_ENV)
        if target:
            times = {
                "generate": round(self.generate_seconds, 2),
                "extensions": {k: round(v, 2) for k, v in sorted(self.extension_seconds.items())},
                "parallel": self.parallel,
                "objects": cache.summary(self.object_cache),
            }
            with open(target, "w") as out:
                json.dump(times, out, indent=1)


class BuildPy(build_py):
    """build_py that records the kind of build (variants/_build_info.json) for the registry."""

    def run(self) -> None:
        super().run()
        target = os.path.join(self.build_lib, "variants", settings.BUILD_INFO)
        with open(target, "w") as out:
            json.dump({"build": settings.build_kind()}, out)

    def get_outputs(self, include_bytecode: bool = True) -> List[str]:
        return [
            *super().get_outputs(include_bytecode),
            os.path.join(self.build_lib, "variants", settings.BUILD_INFO),
        ]


def fresh_build_base() -> str:
    """A build folder of this run's own, so no output of an earlier build reaches the wheel."""
    os.makedirs("build", exist_ok=True)
    base = tempfile.mkdtemp(prefix="setup-", dir="build")
    atexit.register(shutil.rmtree, base, True)
    return base


kwargs: Any = {
    "cmdclass": {"build_ext": BuildExt, "build_py": BuildPy},
    "options": {"build": {"build_base": fresh_build_base()}},
}
setup(ext_modules=[PLACEHOLDER], **kwargs)
