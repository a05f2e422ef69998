"""Build the native state machine's fuzz target with clang's libFuzzer and run it for a while.

    python tests/fuzz/fuzz.py                    # 60 s (nox -s fuzz)
    python tests/fuzz/fuzz.py --seconds 600      # longer
    python tests/fuzz/fuzz.py --merge            # fold what a run found into the committed corpus

The target (tests/fuzz/hash_fuzz.c) checks every digest against OpenSSL's,
with AddressSanitizer and UBSan; it starts from the committed corpus
(tests/fuzz/corpus/) and writes what it finds to a scratch folder under
build/, so a run leaves the checkout as it was unless asked to merge. Needs
clang with its runtime libraries (Debian: clang and libclang-rt-N-dev) and
OpenSSL's headers (libssl-dev).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "variants" / "native"

sys.path.insert(0, str(ROOT))  # for build_support, the project's (stdlib-only) build helpers
from build_support import load  # noqa: E402

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
BUILD = ROOT / "build" / "fuzz"
FLAGS = ["-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined"]


def kernel_sources() -> List[str]:
    """The kernels, dispatch and state machine, as variants/native/_build.py lists them."""
    return [str(NATIVE / name) for name in load("variants/native/_build.py").KERNEL_SOURCES]


def build(compiler: str) -> Path:
    BUILD.mkdir(parents=True, exist_ok=True)
    target = BUILD / "hash_fuzz"
    command = [compiler, *FLAGS, f"-I{NATIVE}", str(HERE / "hash_fuzz.c"), *kernel_sources()]
    subprocess.run([*command, "-lcrypto", "-pthread", "-o", str(target)], check=True)
    return target


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz")
    parser.add_argument("--merge", action="store_true", help="add new inputs to the corpus")
    parser.add_argument("--compiler", default=os.environ.get("CC_FUZZ", "clang"))
    args = parser.parse_args(argv)
    if shutil.which(args.compiler) is None:
        print(f"fuzz: {args.compiler} not found (Debian: clang, libclang-rt-N-dev)")
        return 1
    target = build(args.compiler)
    found = BUILD / "found"
    shutil.rmtree(found, ignore_errors=True)
    found.mkdir()
    fuzz = [str(target), "-max_len=8192", "-timeout=10", "-print_final_stats=1"]
    env = {**os.environ, "ASAN_OPTIONS": "abort_on_error=1", "UBSAN_OPTIONS": "halt_on_error=1"}
    result = subprocess.run(
        [*fuzz, f"-max_total_time={args.seconds}", str(found), str(CORPUS)], env=env
    )
    if result.returncode == 0 and args.merge:
        subprocess.run([*fuzz, "-merge=1", str(CORPUS), str(found)], env=env, check=True)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
