"""Interleaved timing: a quick, fair comparison of a few callables in one process.

Each round runs every candidate in turn, so that whatever the shared machine
is doing slows them alike; the verdict is the median over rounds. A fast
candidate runs many times in a row per round (as pyperf's loops do): on this
machine the first call into C after a stretch of other work pays tens of
microseconds of cold caches and TLBs, which would swamp a single short call.
pyperf (``nox -s bench``) is the careful instrument; this is for targets and
tricks where only ratios measured side by side matter.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable, Dict, List, Mapping

#: What to time: wall-clock time, or the thread's CPU time, which on a shared
#: machine leaves out the time other processes take the core.
CLOCKS: Dict[str, Callable[[], float]] = {"wall": time.perf_counter, "thread": time.thread_time}


def calls_per_round(fn: Callable[[], object], min_time: float) -> int:
    """How many calls in a row make one timing last at least ``min_time`` seconds."""
    clock = time.perf_counter
    calls = 1
    while True:
        start = clock()
        for _ in range(calls):
            fn()
        if clock() - start >= min_time or calls >= 1 << 20:
            return calls
        calls *= 2


def measure(
    candidates: Mapping[str, Callable[[], object]],
    rounds: int = 15,
    warmup: int = 1,
    progress: bool = False,
    clock_name: str = "wall",
    min_time: float = 0.005,
    warmup_time: float = 0.0,
) -> Dict[str, float]:
    """Median seconds per call of each candidate, interleaved round by round.

    Each candidate first runs ``warmup`` times, then for at least
    ``warmup_time`` seconds (a JIT's warm-up is a matter of time, not calls).
    """
    for fn in candidates.values():
        for _ in range(warmup):
            fn()
        deadline = time.perf_counter() + warmup_time
        while time.perf_counter() < deadline:
            fn()
    loops = {name: calls_per_round(fn, min_time) for name, fn in candidates.items()}
    times: Dict[str, List[float]] = {name: [] for name in candidates}
    clock = CLOCKS[clock_name]
    for r in range(rounds):
        for name, fn in candidates.items():
            calls = loops[name]
            start = clock()
            for _ in range(calls):
                fn()
            times[name].append((clock() - start) / calls)
        if progress:
            print(f"\r  round {r + 1}/{rounds}", end="", flush=True)
    if progress:
        print()
    return {name: statistics.median(ts) for name, ts in times.items()}


def table(rows: List[List[str]]) -> str:
    """A plain Markdown table; the first row is the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
