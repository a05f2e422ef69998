"""The native variant's targets, measured against hashlib in one process, interleaved.

    python -m bench.native_targets --python .nox/bench_env-3-11/bin/python   # CPython
    python -m bench.native_targets --python .nox/bench_env-pypy3-9/bin/python --rounds 31

``--python`` runs it under that environment's interpreter, against the package
installed there. Each case times hashlib's and the native variant's
constructor in turn, round after round (``bench.timing``), and compares their
times as the study takes them (lower quartiles). The clock is the thread's CPU
time by default: on a shared machine it leaves out the time other processes
take the core (``--clock wall`` for wall-clock time).

    getAndDigest   construct, update, digest a 64-byte message: md5(data).digest(),
                   and spelled out, h = md5(); h.update(data); h.digest()
    update         h.update(16 bytes) on an object already made
    one shot       md5(data).digest() of a longer message, as throughput

What the drop-in promises, as targets: on CPython, a 64-byte getAndDigest in at
most 0.65x hashlib's time, and MD5's no slower than CPython's builtin
``_md5.md5`` (``builtin`` below, timed in the same rounds); ``update`` no
slower than hashlib's; one-shot MD5 at least 1.05x hashlib's throughput and
SHA-256 at least 1.0x at 1 KiB, 16 KiB and 1 MiB. On PyPy, faster than PyPy's
hashlib at every length.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

from bench.fmt import table
from bench.layout import run_in, split_python
from bench.stats import time_of
from bench.timing import CLOCKS, JIT_WARM, measure

PYPY = sys.implementation.name == "pypy"
KIB = 1024
MIB = 1024 * KIB


def get_and_digest(constructor: Callable[..., Any], data: bytes) -> Callable[[], object]:
    return lambda: constructor(data).digest()


def update_only(constructor: Callable[..., Any], data: bytes) -> Callable[[], object]:
    h = constructor()
    return lambda: h.update(data)


def get_update_digest(constructor: Callable[..., Any], data: bytes) -> Callable[[], object]:
    def run() -> object:
        h = constructor()
        h.update(data)
        return h.digest()

    return run


class Case:
    """One comparison: a shape of call at one length, and the target it has."""

    def __init__(
        self,
        label: str,
        length: int,
        shape: Callable[[Callable[..., Any], bytes], Callable[[], object]],
        at_least: Optional[float] = None,
        per_call: bool = False,
    ) -> None:
        self.label = label
        self.length = length
        self.shape = shape
        #: the least speed (hashlib's time / ours) that meets the target
        self.at_least = at_least
        #: report time per call (short messages) rather than throughput
        self.per_call = per_call


def cases(algorithm: str) -> List[Case]:
    if PYPY:  # PyPy: faster than PyPy's hashlib at every length
        return [
            Case("getAndDigest", 64, get_and_digest, 1.0, per_call=True),
            Case("one shot", KIB, get_and_digest, 1.0),
            Case("one shot", 16 * KIB, get_and_digest, 1.0),
            Case("one shot", MIB, get_and_digest, 1.0),
        ]
    throughput = 1.05 if algorithm == "md5" else 1.0
    return [
        Case("getAndDigest", 64, get_and_digest, 1 / 0.65, per_call=True),
        Case("get, update, digest", 64, get_update_digest, 1 / 0.65, per_call=True),
        Case("update", 16, update_only, 1.0, per_call=True),
        Case("one shot", KIB, get_and_digest, throughput),
        Case("one shot", 16 * KIB, get_and_digest, throughput),
        Case("one shot", MIB, get_and_digest, throughput),
    ]


def builtin(algorithm: str) -> Optional[Callable[..., Any]]:
    """CPython's own C implementation of ``algorithm`` (``_md5``, ``_sha2`` or ``_sha256``)."""
    import importlib

    for module in ("_md5", "_sha2", "_sha256"):
        try:
            found = getattr(importlib.import_module(module), algorithm, None)
        except ImportError:
            continue
        if found is not None:
            return found  # type: ignore[no-any-return]
    return None


def main(argv: Sequence[str]) -> int:
    python, argv = split_python(argv)
    if python:
        return run_in(python, "native_targets", argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--python", help="run under this environment's interpreter")
    parser.add_argument("--rounds", type=int, default=31, help="interleaved rounds")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="thread", help="what to time")
    args = parser.parse_args(argv)

    import variants.native as native  # after argparse: --help works without the extension

    print(
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"native kernels: {native.describe()}"
    )
    rows = [
        [
            "case",
            "algorithm",
            "length",
            "hashlib",
            "native",
            "speed vs hashlib",
            "builtin",
            "target",
        ]
    ]
    missed = 0
    for algorithm in ("md5", "sha256"):
        theirs: Callable[..., Any] = getattr(hashlib, algorithm)
        ours: Callable[..., Any] = native.bridge().constructors()[algorithm]
        own = None if PYPY else builtin(algorithm)
        for case in cases(algorithm):
            data = bytes(i & 0xFF for i in range(case.length))
            assert ours(data).digest() == theirs(data).digest()
            candidates: Dict[str, Callable[[], object]] = {
                "hashlib": case.shape(theirs, data),
                "native": case.shape(ours, data),
            }
            if own is not None:
                candidates["builtin"] = case.shape(own, data)
            timed = measure(candidates, args.rounds, clock=args.clock, jit_warm=JIT_WARM)
            per_call = {name: time_of(t.values) for name, t in timed.items()}
            speed = per_call["hashlib"] / per_call["native"]

            def shown(
                seconds: float, length: int = case.length, short: bool = case.per_call
            ) -> str:
                if short:
                    return f"{seconds * 1e9:.0f} ns"
                return f"{length / seconds / 1e6:.0f} MB/s"

            target = "-"
            builtin_shown = shown(per_call["builtin"]) if "builtin" in per_call else "-"
            if case.at_least is not None:
                met = speed >= case.at_least
                if algorithm == "md5" and case.label == "getAndDigest" and "builtin" in per_call:
                    met = met and per_call["native"] <= per_call["builtin"]
                missed += not met
                goal = (
                    f"time <= {1 / case.at_least:.2f}x"
                    if case.per_call and case.at_least < 1
                    else f">= {case.at_least:.2f}x"
                )
                target = f"{goal}: {'met' if met else 'MISSED'}"
            rows.append(
                [
                    case.label,
                    algorithm,
                    str(case.length),
                    shown(per_call["hashlib"]),
                    shown(per_call["native"]),
                    f"{speed:.3f}",
                    builtin_shown,
                    target,
                ]
            )
            print(f"  {case.label} {algorithm} {case.length}: {speed:.3f}", flush=True)
    print()
    print(table(rows))
    print(
        f"\nlower quartiles of {args.rounds} interleaved rounds, {args.clock} clock; "
        f"{missed} target(s) missed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
