"""The native variant's C extension, for setup.py and on its own.

``setup.py`` calls ``extensions()``: the cffi extension ``variants.native._native``
as a setuptools Extension (cffi writes its C wrapper under ``build/native-cffi/``).
The extension is optional: if cffi is missing or the compiler fails, the rest
of the package still installs and the registry says the native variant is
unavailable, and why. When every variant is required (``VARIANTS_REQUIRE_ALL=1``,
as CI sets) a failure fails the build instead.

Run as a script, it builds only this extension, next to a copy of the pure-Python
package, so that it can be tried without installing anything (the sanitize
session does this):

    python build_support/native.py --into /tmp/native           # then PYTHONPATH=/tmp/native
    python build_support/native.py --into /tmp/native --sanitize

``VARIANTS_NATIVE_SANITIZE=1`` makes ``extensions()`` build with the sanitizers too.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, List, Optional, Sequence

from setuptools import Distribution, Extension

ROOT = Path(__file__).resolve().parent.parent
BUILDER = ROOT / "variants" / "native" / "_build.py"
#: Where cffi writes the generated C wrapper, one folder per interpreter.
GENERATED = ROOT / "build" / "native-cffi" / sys.implementation.cache_tag
SANITIZE_ENV = "VARIANTS_NATIVE_SANITIZE"
REQUIRE_ALL_ENV = "VARIANTS_REQUIRE_ALL"


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _builder() -> ModuleType:
    """variants/native/_build.py, loaded by path (the package need not be importable)."""
    spec = importlib.util.spec_from_file_location("_variants_native_build", BUILDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def native_extension(sanitize: bool = False) -> Extension:
    """The Extension; raises ImportError if cffi is not installed."""
    ffi = _builder().make_ffi(sanitize=sanitize)
    GENERATED.mkdir(parents=True, exist_ok=True)
    extension: Extension = ffi.distutils_extension(tmpdir=os.path.relpath(GENERATED), verbose=False)
    return extension


def extensions() -> List[Extension]:
    """What setup.py builds for the native variant: the extension, or nothing without cffi."""
    required = _flag(REQUIRE_ALL_ENV)
    try:
        extension = native_extension(sanitize=_flag(SANITIZE_ENV))
    except ImportError as exc:
        if required:
            raise
        print(f"variants: not building the native variant: {exc}", file=sys.stderr)
        return []
    # Optional: a compiler failure leaves the variant out instead of the install.
    extension.optional = not required
    return [extension]


def build_into(target: Path, sanitize: bool = False) -> Path:
    """Build the extension into ``target``, beside a copy of the package; return its path."""
    target = target.resolve()
    shutil.rmtree(target / "variants", ignore_errors=True)
    shutil.copytree(
        ROOT / "variants",
        target / "variants",
        # compiled files from other builds, and the twins (importable only compiled)
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "_twins"),
    )
    os.chdir(ROOT)  # the source paths are relative to the project
    extension = native_extension(sanitize=sanitize)
    distribution = Distribution({"name": "variants-native", "ext_modules": [extension]})
    command: Any = distribution.get_command_obj("build_ext")
    command.build_lib = str(target)
    command.build_temp = str(target / "temp")
    started = time.perf_counter()
    distribution.run_command("build_ext")
    print(f"built {extension.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    built = sorted((target / "variants" / "native").glob("_native.*"))
    return next(p for p in built if p.suffix in (".so", ".pyd"))


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--into", type=Path, required=True, help="folder to build into")
    parser.add_argument("--sanitize", action="store_true", help="-fsanitize=address,undefined")
    args = parser.parse_args(argv)
    print(build_into(args.into, sanitize=args.sanitize))


if __name__ == "__main__":
    main()
