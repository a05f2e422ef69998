"""The batch API's targets, measured against a hashlib list comprehension in one process.

    python -m bench.batch_targets --python .nox/tests-3-11/bin/python
    python -m bench.batch_targets --python ENV_PYTHON --rounds 7 --only 1M

``--python`` runs it under that environment's interpreter, against the package
installed there (the drop-in's variant: ``native`` where it was built). Each
case times ``[hashlib.md5(m).digest() for m in messages]`` and the drop-in's
``md5_many(messages)`` in turn, round after round (``bench.timing``), and
compares their times as the study takes them (lower quartiles); the threads
case compares ``threads=2`` with ``threads=1``, by the wall clock.

What the batch promises, as targets (single thread unless said):
``md5_many`` of 256 messages of 4 KiB at least 5x the list comprehension's
throughput with AVX2 lanes, 8x where AVX-512 runs; ``sha256_many`` of the same
at least 1.7x; a million messages of 32 bytes, ``md5_many`` at least 10x and
``sha256_many`` at least 8x; ``threads=2`` over 256 messages of 64 KiB at
least 1.8x ``threads=1`` (where two CPUs are free).
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Sequence

from bench.fmt import table
from bench.layout import run_in, split_python
from bench.stats import time_of
from bench.timing import CLOCKS, JIT_WARM, measure

KIB = 1024


class Case(NamedTuple):
    label: str
    algorithm: str
    number: int  # of messages
    length: int
    at_least: float
    threads: bool = False  # threads=2 against threads=1, rather than against hashlib


def messages(count: int, length: int) -> List[bytes]:
    """``count`` distinct messages of ``length`` bytes (not one object repeated)."""
    pattern = bytes(i & 0xFF for i in range(length + 256))
    return [pattern[i % 256 : i % 256 + length] for i in range(count)]


def cases(avx512: bool) -> List[Case]:
    return [
        Case("256 x 4 KiB", "md5", 256, 4 * KIB, 8.0 if avx512 else 5.0),
        Case("256 x 4 KiB", "sha256", 256, 4 * KIB, 1.7),
        Case("1M x 32 B", "md5", 1_000_000, 32, 10.0),
        Case("1M x 32 B", "sha256", 1_000_000, 32, 8.0),
        Case("256 x 64 KiB, threads=2", "md5", 256, 64 * KIB, 1.8, threads=True),
        Case("256 x 64 KiB, threads=2", "sha256", 256, 64 * KIB, 1.8, threads=True),
    ]


def compared(
    case: Case, batch: List[bytes], many_of: Callable[..., List[Any]], theirs: Any
) -> Dict[str, Callable[[], object]]:
    """The two calls a case times against each other: the baseline, then the batch."""
    if case.threads:
        return {
            "baseline": lambda: many_of(batch, threads=1),
            "batch": lambda: many_of(batch, threads=2),
        }
    return {
        "baseline": lambda: [theirs(m).digest() for m in batch],
        "batch": lambda: many_of(batch),
    }


def main(argv: Sequence[str]) -> int:
    python, argv = split_python(argv)
    if python:
        return run_in(python, "batch_targets", argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--python", help="run under this environment's interpreter")
    parser.add_argument("--rounds", type=int, default=11, help="interleaved rounds")
    parser.add_argument("--only", help="only the cases whose label contains this")
    args = parser.parse_args(argv)

    import variants
    from variants.native import kernel

    many = kernel()
    avx512 = "AVX-512" in many.get("md5-many", "")
    print(
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{variants.default_variant.name}: {variants.default_variant.details}"
    )
    rows = [["case", "algorithm", "baseline", "batch", "speed", "target"]]
    missed = 0
    for case in cases(avx512):
        if args.only and args.only not in case.label:
            continue
        batch = messages(case.number, case.length)
        many_of: Callable[..., List[Any]] = getattr(variants, f"{case.algorithm}_many")
        theirs = getattr(hashlib, case.algorithm)
        assert many_of(batch[:100]) == [theirs(m).digest() for m in batch[:100]]
        candidates = compared(case, batch, many_of, theirs)
        clock = "wall" if case.threads else "thread"
        timed = measure(candidates, args.rounds, clock=clock, jit_warm=JIT_WARM)
        seconds = {name: time_of(t.values) for name, t in timed.items()}
        speed = seconds["baseline"] / seconds["batch"]
        met = speed >= case.at_least
        missed += not met
        total = case.number * case.length

        def shown(value: float, case: Case = case, total: int = total) -> str:
            if case.length <= 64:
                return f"{value / case.number * 1e9:.1f} ns/msg"
            return f"{total / value / 1e6:.0f} MB/s"

        rows.append(
            [
                case.label,
                case.algorithm,
                shown(seconds["baseline"]),
                shown(seconds["batch"]),
                f"{speed:.2f}x",
                f">= {case.at_least}x: {'met' if met else 'MISSED'}",
            ]
        )
        print(f"  {case.label} {case.algorithm}: {speed:.2f}x", flush=True)
    from variants._many import cpus

    print()
    print(table(rows))
    print(
        f"\nlower quartiles of {args.rounds} interleaved rounds (thread clock; wall for the "
        f"threads case, {cpus()} CPUs); baseline: the hashlib list comprehension, or threads=1; "
        f"{missed} target(s) missed; clocks: {', '.join(sorted(CLOCKS))}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
