"""Build the native C's fuzz targets with clang's libFuzzer and run each for a while.

    python tests/fuzz/fuzz.py                    # 60 s, shared by the targets (nox -s fuzz)
    python tests/fuzz/fuzz.py --seconds 600      # longer
    python tests/fuzz/fuzz.py --merge            # fold what a run found into the committed corpus

The targets, with AddressSanitizer and UBSan: tests/fuzz/hash_fuzz.c checks
the state machine's every digest against OpenSSL's; tests/fuzz/column_fuzz.c
builds Arrow arrays with random offsets, views and validity and checks each
row of digest_column's C against the one-message function. Each starts from
its committed corpus (tests/fuzz/corpus/, corpus_column/) and writes what it
finds to a scratch folder under build/, so a run leaves the checkout as it
was unless asked to merge. Needs
clang with its runtime libraries (Debian: clang and libclang-rt-N-dev) and
OpenSSL's headers (libssl-dev).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "variants" / "native"

sys.path.insert(0, str(ROOT))  # for build_support, the project's (stdlib-only) build helpers
from build_support import load  # noqa: E402

HERE = Path(__file__).resolve().parent
#: Each target's source, by name, and its corpus.
TARGETS = {"hash_fuzz": HERE / "corpus", "column_fuzz": HERE / "corpus_column"}
BUILD = ROOT / "build" / "fuzz"
FLAGS = ["-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined"]


def kernel_sources() -> List[str]:
    """The kernels, dispatch and state machine, as variants/native/_build.py lists them."""
    return [str(NATIVE / name) for name in load("variants/native/_build.py").KERNEL_SOURCES]


def compile_kernels(compiler: str) -> List[Path]:
    """The kernels' objects, compiled once for every target and on every core: the lanes'
    files are the slow ones (md5_many_amd64.c alone took 83 s of clang 14's 150 s of a
    target's build here, and each target built them all again, one after another)."""
    folder = BUILD / "objects"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)

    def one(source: str) -> Path:
        target = folder / (Path(source).stem + ".o")
        command = [compiler, *FLAGS, f"-I{NATIVE}", "-c", source, "-o", str(target)]
        subprocess.run(command, check=True)
        return target

    # the slowest first, so that it does not start last
    sources = sorted(kernel_sources(), key=lambda path: "_many_" not in path)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(one, sources))


def build(compiler: str, name: str, objects: Sequence[Path]) -> Path:
    BUILD.mkdir(parents=True, exist_ok=True)
    target = BUILD / name
    command = [compiler, *FLAGS, f"-I{NATIVE}", str(HERE / f"{name}.c"), *map(str, objects)]
    subprocess.run([*command, "-lcrypto", "-pthread", "-o", str(target)], check=True)
    return target


def run(target: Path, corpus: Path, seconds: int, merge: bool) -> int:
    found = BUILD / f"found-{target.name}"
    shutil.rmtree(found, ignore_errors=True)
    found.mkdir()
    corpus.mkdir(exist_ok=True)
    fuzz = [str(target), "-max_len=8192", "-timeout=10", "-print_final_stats=1"]
    env = {**os.environ, "ASAN_OPTIONS": "abort_on_error=1", "UBSAN_OPTIONS": "halt_on_error=1"}
    result = subprocess.run([*fuzz, f"-max_total_time={seconds}", str(found), str(corpus)], env=env)
    if result.returncode == 0 and merge:
        subprocess.run([*fuzz, "-merge=1", str(corpus), str(found)], env=env, check=True)
    return result.returncode


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz")
    parser.add_argument("--merge", action="store_true", help="add new inputs to the corpus")
    parser.add_argument("--compiler", default=os.environ.get("CC_FUZZ", "clang"))
    args = parser.parse_args(argv)
    if shutil.which(args.compiler) is None:
        print(f"fuzz: {args.compiler} not found (Debian: clang, libclang-rt-N-dev)")
        return 1
    seconds = max(1, args.seconds // len(TARGETS))
    objects = compile_kernels(args.compiler)
    for name, corpus in TARGETS.items():
        status = run(build(args.compiler, name, objects), corpus, seconds, args.merge)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
