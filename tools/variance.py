"""Where the study's variance comes from on this machine: a small experiment (docs/study.md).

    python3 tools/variance.py --python 3.11='env PYTHONPATH=BUILD python3.11' --python 3.12=...

Starts ``--processes`` fresh processes of each interpreter, in turn (A B A B ...: two
interpreters measured back to back, as the study's passes do), each taking ``--rounds``
interleaved rounds of four cases: a 16 KiB MD5 digest by ``helpers`` (pure Python),
``native`` and hashlib (C), and hashlib's 64-byte getAndDigest (a call into C). Every value
reads both the process CPU clock and the wall clock; /proc/stat's steal and the cpu MHz are
read around each process. Prints, for each figure (a case's time, a ratio of two cases),
the spread (standard deviation of the logarithm, so 0.01 is about 1 %) between the rounds
of one process, of a process's estimate (the lower quartile) from its rounds, between
processes, between the run's halves (drift), and of a ratio across the two interpreters;
the wall/CPU clocks; steal. Needs only the standard library and the installed ``variants``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

CASES = ("helpers 16K", "native 16K", "hashlib 16K", "hashlib 64 B get")
RATIOS = (("helpers 16K", "hashlib 16K"), ("native 16K", "hashlib 16K"))


def cpu_ticks() -> Tuple[int, int]:
    """(steal, total) jiffies of all CPUs, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[7], sum(fields[:8])


def mhz() -> List[float]:
    text = Path("/proc/cpuinfo").read_text()
    return [float(line.split(":")[1]) for line in text.splitlines() if line.startswith("cpu MHz")]


def child(rounds: int) -> Dict[str, Any]:
    import hashlib

    import variants

    data, short = bytes(i & 0xFF for i in range(16384)), bytes(range(64))
    helpers = variants.get("helpers").constructor("md5")
    native = variants.get("native").constructor("md5")
    ops: Dict[str, Callable[[], object]] = {
        CASES[0]: lambda: helpers(data).digest(),
        CASES[1]: lambda: native(data).digest(),
        CASES[2]: lambda: hashlib.md5(data).digest(),
        CASES[3]: lambda: hashlib.md5(short).digest(),
    }
    loops = {}
    for name, op in ops.items():  # calibrate: values of at least 2 ms
        n = 1
        while True:
            started = time.process_time()
            for _ in range(n):
                op()
            if time.process_time() - started >= 0.002:
                break
            n *= 2
        loops[name] = n
    steal, total = cpu_ticks()
    values: Dict[str, List[Tuple[float, float]]] = {name: [] for name in ops}
    for _ in range(rounds):
        for name, op in ops.items():
            c, w = time.process_time(), time.perf_counter()
            for _ in range(loops[name]):
                op()
            values[name].append(
                ((time.process_time() - c) / loops[name], (time.perf_counter() - w) / loops[name])
            )
    steal2, total2 = cpu_ticks()
    return {"values": values, "steal": (steal2 - steal) / max(1, total2 - total), "mhz": mhz()}


def lq(xs: Sequence[float]) -> float:
    ordered = sorted(xs)
    pos = 0.25 * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def sd(xs: Sequence[float]) -> float:
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def figures(run: Dict[str, Any], clock: int) -> Dict[str, List[float]]:
    """Per round: each case's log time and each ratio's log (paired by round)."""
    v = {name: [math.log(pair[clock]) for pair in run["values"][name]] for name in CASES}
    for a, b in RATIOS:
        v[f"{a.split()[0]}/{b.split()[0]}"] = [x - y for x, y in zip(v[a], v[b])]
    return v


def estimate(logs: Sequence[float]) -> float:
    """A process's figure as the study takes it: the lower quartile (of a ratio: of both sides)."""
    return math.log(lq([math.exp(x) for x in logs]))


def boot_se(logs: Sequence[float]) -> float:
    rng = random.Random(0)
    draws = [estimate([logs[rng.randrange(len(logs))] for _ in logs]) for _ in range(200)]
    return sd(draws)


def analyse(runs: Dict[str, List[Dict[str, Any]]], clock: int) -> List[List[str]]:
    labels = list(runs)
    rows = [["interpreter", "figure", "rounds", "estimate (rounds)", "processes", "halves"]]
    per_process: Dict[Tuple[str, str], List[float]] = {}
    for label in labels:
        figs = [figures(r, clock) for r in runs[label]]
        for name in figs[0]:
            within = statistics.fmean(sd(f[name]) for f in figs)
            se = statistics.fmean(boot_se(f[name]) for f in figs)
            ests = [estimate(f[name]) for f in figs]
            per_process[(label, name)] = ests
            half = len(ests) // 2
            drift = abs(statistics.fmean(ests[:half]) - statistics.fmean(ests[half:]))
            rows.append(
                [label, name, f"{within:.4f}", f"{se:.4f}", f"{sd(ests):.4f}", f"{drift:.4f}"]
            )
    if len(labels) == 2:
        for name in CASES:
            a, b = per_process[(labels[0], name)], per_process[(labels[1], name)]
            across = [x - y for x, y in zip(a, b)]
            rows.append([f"{labels[0]}/{labels[1]}", name, "", "", f"{sd(across):.4f}", ""])
    return rows


def show(rows: List[List[str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        help="LABEL=COMMAND, e.g. 3.12='env PYTHONPATH=B python3.12' (repeat)",
    )
    parser.add_argument("--processes", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        json.dump(child(args.rounds), sys.stdout)
        return 0
    pythons = args.python or [sys.executable]
    commands = dict(p.partition("=")[::2] if "=" in p else (p, p) for p in pythons)
    runs: Dict[str, List[Dict[str, Any]]] = {label: [] for label in commands}
    steal, total = cpu_ticks()
    started = time.perf_counter()
    for i in range(args.processes):
        for label, python in commands.items():
            command = [*shlex.split(python), __file__, "--child", "--rounds", str(args.rounds)]
            out = subprocess.run(command, capture_output=True, text=True, check=True, cwd="/tmp")
            runs[label].append(json.loads(out.stdout))
        print(f"processes {i + 1}/{args.processes} done", file=sys.stderr)
    steal2, total2 = cpu_ticks()
    mhz_seen = {m for rs in runs.values() for r in rs for m in r["mhz"]}
    print(
        f"{len(pythons)} interpreter(s) x {args.processes} processes x {args.rounds} rounds, "
        f"{time.perf_counter() - started:.0f} s; steal {(steal2 - steal) / (total2 - total):.2%} "
        f"of all CPU time; cpu MHz seen: {sorted(mhz_seen)}"
    )
    every = [pair for rs in runs.values() for r in rs for vs in r["values"].values() for pair in vs]
    excess = sorted(w / c for c, w in every if c > 0)
    print(
        f"wall / CPU time per value: median {statistics.median(excess):.3f}, "
        f"90th percentile {excess[int(0.9 * len(excess))]:.3f}; steal per process: "
        f"max {max(r['steal'] for rs in runs.values() for r in rs):.2%}"
    )
    for clock, name in ((0, "process CPU time"), (1, "wall time")):
        print(f"\nspread (sd of log), {name}:")
        show(analyse(runs, clock))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
