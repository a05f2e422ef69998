"""Quick side-by-side throughput of variants, with hashlib and PyPy's pure-Python modules.

    python -m bench.compare --python .nox/bench_env-3-11/bin/python --kind compiled
    python -m bench.compare --python ... --variants helpers,streamlined --pypy-lib
    python -m bench.compare --python ... --kind compiled --block    # block functions alone

One process, candidates interleaved round by round (``bench.timing``), times
as the study takes them (the lower quartile): the way to read a ratio off a
shared, noisy machine in a minute (``nox -s bench`` is the careful,
every-interpreter study). Each candidate hashes the same message from scratch,
``constructor(data).digest()`` (or, with ``--block``, runs its block function
alone), and the table gives its throughput and its speed relative to hashlib,
to PyPy's helper-style ``_md5``/``_sha256`` run on this interpreter (Debian:
pypy3-lib), and, for a compiled twin, to the interpreted variant it compiles.
``--python`` runs it under that environment's interpreter, against the package
installed there.
"""

from __future__ import annotations

import argparse
import platform
import sys
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence

from bench import targets
from bench.cases import jdk_pattern
from bench.fmt import ratio, table
from bench.layout import run_in, split_python
from bench.stats import time_of
from bench.timing import measure


def digest_of(constructor: Callable[..., Any], data: bytes) -> object:
    return constructor(data).digest()


def choose(names: Optional[str], kind: Optional[str]) -> List[str]:
    """The variants asked for (registry order), importable here."""
    from variants import registry

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


def main(argv: Sequence[str]) -> int:
    python, argv = split_python(argv)
    if python:
        return run_in(python, "compare", argv)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--python", help="run under this environment's interpreter")
    parser.add_argument("--variants", help="comma-separated names (default: all importable)")
    parser.add_argument("--kind", help="only variants of this kind (interpreted, compiled, native)")
    parser.add_argument("--algorithms", default="md5,sha256")
    parser.add_argument("--length", type=int, default=16384, help="message length in bytes")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--block", action="store_true", help="time block functions alone")
    parser.add_argument("--pypy-lib", action="store_true", help="add PyPy's _md5/_sha256")
    args = parser.parse_args(argv)
    from variants._shell import ALGORITHMS

    names = choose(args.variants, args.kind)
    sources = {targets.load(n).twin[0] for n in names if targets.load(n).twin}  # type: ignore[index]
    names += [s for s in sources if s not in names and not targets.load(s).unavailable]
    references = (
        [] if args.block else [targets.HASHLIB] + ([targets.PYPY_LIB] if args.pypy_lib else [])
    )
    loaded = {n: targets.load(n) for n in [*references, *names]}
    for name, target in loaded.items():
        if target.unavailable:
            print(f"left out {name}: {target.unavailable}", file=sys.stderr)
    length = args.length // 64 * 64 if args.block else args.length
    data = jdk_pattern(length)
    candidates: Dict[str, Callable[[], object]] = {}
    for algorithm in args.algorithms.split(","):
        for name, target in loaded.items():
            if args.block and algorithm in target.compress:
                fn = partial(target.compress[algorithm], ALGORITHMS[algorithm].iv, memoryview(data))
                candidates[f"{name} {algorithm}"] = fn
            elif not args.block and algorithm in target.constructors:
                candidates[f"{name} {algorithm}"] = partial(
                    digest_of, target.constructors[algorithm], data
                )
    what = "block functions" if args.block else "one-shot digests"
    print(
        f"{platform.python_implementation()} {platform.python_version()}: {what} of "
        f"{length} bytes, lower quartiles of {args.rounds} interleaved rounds"
    )
    timed = measure(candidates, rounds=args.rounds)
    seconds = {key: time_of(t.values) for key, t in timed.items()}
    columns = [r for r in references if not loaded[r].unavailable]
    rows = [["variant", "algorithm", "MB/s", *(f"x {r}" for r in columns), "x its source"]]
    for key, s in seconds.items():
        name, algorithm = key.split()
        over = [ratio(seconds[f"{r} {algorithm}"] / s) for r in columns]
        twin = loaded[name].twin
        mine = f"{twin[0]} {algorithm}" if twin else ""
        rows.append(
            [
                name,
                algorithm,
                ratio(length / s / 1e6),
                *over,
                ratio(seconds[mine] / s) if mine in seconds else "",
            ]
        )
    print(table(rows, "llr" + "r" * len(columns) + "r"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
