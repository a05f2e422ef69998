"""The check of an installed wheel: ``nox -s wheels`` runs it in a fresh environment of each
wheel (tools/wheels.py), cibuildwheel as its test command (pyproject.toml).

    python tools/check_wheel.py TESTS [--no-compiler]

Standard library only (it runs in the wheel's environment, beside pytest and hypothesis): the
drop-in must be the native variant (``variants.fallback_reason`` None: the wheel's extension
loads), ``variants.native.describe()`` is printed (the kernels chosen on this CPU), then the
suite's quick part runs from the folder TESTS (the checkout's tests/, whose conftest it needs):
``QUICK_TESTS``, their native and drop-in cases, with every variant the build should have
required. ``--no-compiler``: first fail if a C compiler is on PATH (nox -s wheels runs it with
``PATH`` holding only the environment's ``bin``; CI runners have compilers).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from typing import List, Optional, Sequence

#: The quick part: these test files, their cases of the native variant and the drop-in (-k).
QUICK_TESTS = ("test_vectors.py", "test_dropin.py", "test_native.py", "test_many.py")
QUICK_SELECTION = "native or dropin"
COMPILERS = ("cc", "gcc", "clang", "x86_64-linux-gnu-gcc", "cl")


def compilers() -> List[str]:
    """The C compilers on PATH."""
    return [name for name in COMPILERS if shutil.which(name)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("tests", help="the checkout's tests/ folder")
    parser.add_argument("--no-compiler", action="store_true", help="fail if PATH has one")
    args = parser.parse_args(argv)
    if args.no_compiler and compilers():
        print(f"check_wheel: a C compiler is on PATH: {', '.join(compilers())}", file=sys.stderr)
        return 1
    import variants
    import variants.native

    if variants.fallback_reason is not None:
        print(
            f"check_wheel: the drop-in is not native: {variants.fallback_reason}", file=sys.stderr
        )
        return 1
    print(variants.native.describe(), flush=True)
    env = {**os.environ, "VARIANTS_REQUIRE_ALL": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    pytest += ["-k", QUICK_SELECTION, *QUICK_TESTS]
    return subprocess.run(pytest, cwd=args.tests, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
