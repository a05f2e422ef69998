"""Time md5_many and sha256_many against the hashlib loop, interleaved in one process.

    PYTHONPATH=/tmp/x python3 tools/bench_many.py                 # 1,000,000 x 32 B
    PYTHONPATH=/tmp/x python3 tools/bench_many.py --rounds 15 --hexdigest

(after ``python3 -m build_support.native --into /tmp/x``). The messages are random
bytes objects of one length, each its own object (as a list comprehension makes them).
Each round runs every case once, in turn, timing the call alone (the result is dropped
after the clock stops); the report gives each case's lower quartile and median over the
rounds in ns a row, by the wall clock and by the process's CPU time (which a shared,
loaded machine disturbs less), and the ratio of the hashlib loop's figure to the batch
call's. It states the CPU and the load average before and after, to quote beside the
figures. Issue 18's targets: md5_many 10x, sha256_many 8x the loop (binary digests). A
quick look, not the study (``nox -s bench``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import variants
from variants import native

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is stdlib-only
from bench.machine import cpu_model


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def cases(messages: List[bytes], hexdigest: bool) -> Dict[str, Callable[[], object]]:
    """The contenders by name: each algorithm's hashlib loop, then its batch call."""
    md5, sha256 = hashlib.md5, hashlib.sha256
    if hexdigest:
        return {
            "hashlib md5": lambda: [md5(m).hexdigest() for m in messages],
            "md5_many": lambda: variants.md5_many(messages, hexdigest=True),
            "hashlib sha256": lambda: [sha256(m).hexdigest() for m in messages],
            "sha256_many": lambda: variants.sha256_many(messages, hexdigest=True),
        }
    return {
        "hashlib md5": lambda: [md5(m).digest() for m in messages],
        "md5_many": lambda: variants.md5_many(messages),
        "hashlib sha256": lambda: [sha256(m).digest() for m in messages],
        "sha256_many": lambda: variants.sha256_many(messages),
    }


def quartile_and_median(times: List[float]) -> Tuple[float, float]:
    ordered = sorted(times)
    return ordered[len(ordered) // 4], ordered[len(ordered) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--length", type=int, default=32, help="bytes a message")
    parser.add_argument("--rounds", type=int, default=9, help="at least 7 is meaningful")
    parser.add_argument("--hexdigest", action="store_true", help="hex digests out")
    args = parser.parse_args()
    messages = [os.urandom(args.length) for _ in range(args.rows)]
    run = cases(messages, args.hexdigest)
    for name, case in run.items():  # the results agree, and everything is warm
        if not name.startswith("hashlib"):
            assert case() == run["hashlib " + name.split("_")[0]](), name
    print(f"CPU: {cpu_model()}; Python {platform.python_version()} ({sys.platform})")
    print(f"variants: {variants.default_variant.name}; {native.describe()}")
    print(f"load average before: {load()}")
    wall: Dict[str, List[float]] = {name: [] for name in run}
    cpu: Dict[str, List[float]] = {name: [] for name in run}
    for _ in range(args.rounds):
        for name, case in run.items():
            started, used = time.perf_counter(), time.process_time()
            result = case()
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - used)
            del result
    print(f"load average after: {load()}")
    out = "hex" if args.hexdigest else "binary"
    print(
        f"{args.rows} messages of {args.length} B, {out} digests, {args.rounds} rounds; "
        "ns a row (lower quartile / median) and the loop's time over the call's"
    )
    for clock, times in (("wall", wall), ("cpu", cpu)):
        rows = {name: quartile_and_median(t) for name, t in times.items()}
        for name, (low, middle) in rows.items():
            per_row = f"{low * 1e9 / args.rows:7.1f} / {middle * 1e9 / args.rows:7.1f}"
            line = f"{clock:4s} {name:15s} {per_row}"
            if not name.startswith("hashlib"):
                loop = rows["hashlib " + name.split("_")[0]]
                line += f"   {loop[0] / low:5.2f}x / {loop[1] / middle:5.2f}x"
            print(line)


if __name__ == "__main__":
    main()
