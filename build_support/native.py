"""The native variant's extensions, for setup.py and on their own.

``setup.py`` calls ``extensions()``: on CPython the C-API module
``variants.native._capi`` (the native variant there) and, in the study's build
(``VARIANTS_BUILD=study``) where cffi can build (not the free-threaded 3.13),
the cffi module ``variants.native._cffi`` (``native-cffi``); on PyPy the cffi
module, its native variant. cffi writes its C wrapper under
``build/native-cffi/``. Both are optional: if the compiler fails, the rest of
the package still installs and the registry says the variant is unavailable,
and why. When every variant is required (``VARIANTS_REQUIRE_ALL=1``, as CI
sets) a failure fails the build instead.

Run as a script, it builds both extensions (as the study's build does), next to a copy of the
pure-Python package, so that they can be tried without installing anything
(the sanitize session does this):

    python -m build_support.native --into /tmp/native                    # PYTHONPATH=/tmp/native
    python -m build_support.native --into /tmp/native --sanitize address # ASan and UBSan
    python -m build_support.native --into /tmp/native --sanitize thread  # TSan

``VARIANTS_NATIVE_SANITIZE=address`` (or ``thread``) makes ``extensions()`` build
with those sanitizers too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, List, Optional, Sequence

from setuptools import Distribution, Extension
from setuptools.command.build_ext import build_ext

from build_support import ROOT, cache, load, settings

#: Where cffi writes the generated C wrapper, one folder per interpreter.
GENERATED = ROOT / "build" / "native-cffi" / sys.implementation.cache_tag
SANITIZE_ENV = "VARIANTS_NATIVE_SANITIZE"


def _builder() -> Any:
    """variants/native/_build.py: the sources, flags and bridges."""
    return load("variants/native/_build.py")


def capi_extension(sanitize: str = "") -> Extension:
    extension: Extension = _builder().capi_extension(sanitize=sanitize)
    return extension


def cffi_extension(sanitize: str = "") -> Extension:
    """The cffi Extension; raises ImportError if cffi is not installed."""
    ffi = _builder().make_ffi(sanitize=sanitize)
    GENERATED.mkdir(parents=True, exist_ok=True)
    extension: Extension = ffi.distutils_extension(tmpdir=os.path.relpath(GENERATED), verbose=False)
    return extension


def extensions(sanitize: Optional[str] = None, study: Optional[bool] = None) -> List[Extension]:
    """What this interpreter builds for the native variants (see the module's docstring)."""
    required = settings.require_all()
    sanitize = os.environ.get(SANITIZE_ENV, "") if sanitize is None else sanitize
    study = settings.build_kind() == settings.BUILD_STUDY if study is None else study
    cpython = settings.cpython()
    result: List[Extension] = []
    if cpython:
        result.append(capi_extension(sanitize))
    if settings.cffi_builds() and (study or not cpython):
        try:
            result.append(cffi_extension(sanitize))
        except ImportError as exc:
            if required:
                raise
            print(f"variants: not building the cffi bridge: {exc}", file=sys.stderr)
    for extension in result:
        # Optional: a compiler failure leaves the variant out instead of the install.
        extension.optional = not required
    return result


class CachedBuildExt(build_ext):
    """setuptools' build_ext compiling through the object cache (build_support/cache.py)."""

    def build_extensions(self) -> None:
        cache.install(self.compiler)
        super().build_extensions()


def build_into(target: Path, sanitize: str = "") -> List[Path]:
    """Build the extensions into ``target``, beside a copy of the package; their paths."""
    target = target.resolve()
    shutil.rmtree(target / "variants", ignore_errors=True)
    shutil.copytree(
        ROOT / "variants",
        target / "variants",
        # compiled files from other builds, and the twins (importable only compiled)
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "_twins"),
    )
    os.chdir(ROOT)  # the source paths are relative to the project
    built = extensions(sanitize=sanitize, study=True)
    distribution = Distribution(
        {"name": "variants-native", "ext_modules": built, "cmdclass": {"build_ext": CachedBuildExt}}
    )
    command: Any = distribution.get_command_obj("build_ext")
    command.build_lib = str(target)
    command.build_temp = str(target / "temp")
    started = time.perf_counter()
    distribution.run_command("build_ext")
    seconds = time.perf_counter() - started
    print(f"built {[e.name for e in built]} in {seconds:.1f} s", file=sys.stderr)
    native = target / "variants" / "native"
    return sorted(p for p in native.iterdir() if p.suffix in (".so", ".pyd"))


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--into", type=Path, required=True, help="folder to build into")
    parser.add_argument(
        "--sanitize",
        choices=["address", "thread"],
        default="",
        help="build with ASan and UBSan (address) or TSan (thread)",
    )
    args = parser.parse_args(argv)
    for path in build_into(args.into, sanitize=args.sanitize):
        print(path)


if __name__ == "__main__":
    main()
