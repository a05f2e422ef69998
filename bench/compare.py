"""Quick side-by-side throughput of variants, with hashlib and PyPy's pure-Python modules.

One process, candidates interleaved round by round, medians: the way to read a
ratio off a shared, noisy machine in a minute (``nox -s bench`` is the careful,
every-interpreter study). Each candidate hashes the same message from scratch,
``constructor(data).digest()``, and the table gives its throughput and its
speed relative to hashlib, to PyPy's helper-style ``_md5``/``_sha256`` run on
this interpreter (Debian: pypy3-lib), and, for a compiled twin, to the
interpreted variant it compiles.

    python bench/compare.py --variants helpers,streamlined,streamlined-words --pypy-lib
    python bench/compare.py --kind compiled --length 16384 --rounds 21
    python bench/compare.py --kind compiled --block     # block functions only, no shell

Run it on an installed copy (from outside the source tree) to see the
compiled variants.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pypy_lib
from interleaved import measure, table

import variants
from variants import registry
from variants._tables import MD5_IV, SHA256_IV

PYPY_LIB = "pypy-lib"
HASHLIB = "hashlib"


def one_shot(constructor: Callable[[bytes], Any], data: bytes) -> Callable[[], object]:
    """A call that hashes ``data`` from scratch: construct, update, digest."""
    return lambda: constructor(data).digest()


def block_only(compress: Callable[..., Any], iv: Any, data: bytes) -> Callable[[], object]:
    """A call of a block function alone over ``data`` (whole blocks)."""
    view = memoryview(data)
    return lambda: compress(iv, view)


def choose(names: Optional[str], kind: Optional[str]) -> List[str]:
    """The variants asked for (registry order), importable here."""
    chosen = [
        v.name
        for v in registry.VARIANTS
        if (names is None or v.name in names.split(",")) and (kind is None or v.kind == kind)
    ]
    for name in chosen:
        reason = registry.status(name)
        if reason is not None:
            print(f"left out {name}: {reason}", file=sys.stderr)
    return [name for name in chosen if registry.status(name) is None]


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--variants", help="comma-separated names (default: all importable)")
    parser.add_argument("--kind", choices=registry.KINDS, help="only variants of this kind")
    parser.add_argument("--algorithms", default="md5,sha256")
    parser.add_argument("--length", type=int, default=16384, help="message length in bytes")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--block", action="store_true", help="time block functions alone")
    parser.add_argument("--pypy-lib", nargs="?", const="", help="add PyPy's _md5/_sha256 [DIR]")
    args = parser.parse_args(argv)

    names = choose(args.variants, args.kind)
    sources = {registry.variant(n).source for n in names} - {None} - set(names)
    names += [s for s in sources if s is not None and registry.status(s) is None]
    length = args.length // 64 * 64 if args.block else args.length
    data = bytes(i & 0xFF for i in range(length))
    references: Dict[str, Dict[str, Callable[[bytes], Any]]] = {}
    if not args.block:
        references[HASHLIB] = {a: getattr(hashlib, a) for a in ("md5", "sha256")}
        if args.pypy_lib is not None:
            folder = pypy_lib.find(args.pypy_lib or None)
            if folder is None:
                print("PyPy's _md5.py/_sha256.py not found (pypy3-lib)", file=sys.stderr)
                return 2
            references[PYPY_LIB] = pypy_lib.constructors(folder)

    candidates: Dict[str, Callable[[], object]] = {}
    for algorithm in args.algorithms.split(","):
        for ref, constructors in references.items():
            candidates[f"{ref} {algorithm}"] = one_shot(constructors[algorithm], data)
        for name in names:
            loaded = variants.get(name)
            if args.block:
                if algorithm in loaded.compress:
                    iv = MD5_IV if algorithm == "md5" else SHA256_IV
                    call = block_only(loaded.compress[algorithm], iv, data)
                    candidates[f"{name} {algorithm}"] = call
            elif algorithm in loaded.constructors:
                candidates[f"{name} {algorithm}"] = one_shot(loaded.constructors[algorithm], data)

    what = "block functions" if args.block else "one-shot digests"
    print(
        f"{platform.python_implementation()} {platform.python_version()}: {what} of "
        f"{length} bytes, medians of {args.rounds} interleaved rounds"
    )
    medians = measure(candidates, rounds=args.rounds, progress=sys.stdout.isatty())
    columns = [r for r in (HASHLIB, PYPY_LIB) if r in references]
    rows = [["variant", "algorithm", "MB/s", *(f"x {r}" for r in columns), "x its source"]]
    for key, seconds in medians.items():
        name, algorithm = key.split()
        ratios = [f"{medians[f'{r} {algorithm}'] / seconds:.3f}" for r in columns]
        source = registry.variant(name).source if name not in references else None
        over_source = ""
        if source and f"{source} {algorithm}" in medians:
            over_source = f"{medians[f'{source} {algorithm}'] / seconds:.2f}"
        rows.append([name, algorithm, f"{length / seconds / 1e6:.3f}", *ratios, over_source])
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
