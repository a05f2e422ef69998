"""The measuring process: runs a share of the cases under one interpreter, writes pyperf JSON.

The study's driver (``study.py``) starts one worker per interpreter, pass and
message length, so that every interpreter, variant and length is measured in
turn across the whole run (see ``study.py``). A worker:

* ``list``: says what this interpreter can run (variants, their status, the cases);
* ``run --plan PLAN``: measures the cases of the plan, grouped by algorithm and
  mode, the variants of a group interleaved value by value, and writes a pyperf
  ``BenchmarkSuite`` (one run per case: this process) plus feedback for planning.

Each case is calibrated like pyperf does (loops doubled until one value takes
``min_time``; the last calibration value is the warm-up), or, in later passes,
warmed up with one value at the known loops; on PyPy, values are taken until
the JIT has settled. A case whose single operation takes longer than ``slow``
seconds on CPython gets no separate warm-up: its first call hashes thousands of
blocks, of which only the first run cold, and is its first value.

Needs pyperf and the installed ``variants``; runs under CPython 3.9+ and PyPy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pyperf
from cases import (
    ALGORITHMS,
    LENGTHS,
    MODES,
    Case,
    Target,
    TimeFunc,
    enumerate_cases,
    interpreter_info,
    jdk_pattern,
    load_target,
    make_timer,
    select_variants,
)

PYPY = sys.implementation.name == "pypy"
MAX_LOOPS = 2**32
#: PyPy's warm-up (seconds of values per case): at least the first, at most the
#: second; in between, until the JIT has compiled nothing (no loop, bridge or
#: aborted trace) during the last WINDOW values and their median is no longer
#: faster than the median of the WINDOW before them by more than DRIFT.
PYPY_WARM = (0.3, 2.0)
WINDOW, DRIFT = 5, 0.05


class Jit:
    """PyPy's JIT activity: loops and bridges compiled, traces aborted (0 elsewhere)."""

    events = 0

    @classmethod
    def watch(cls) -> None:
        if not PYPY:
            return
        import pypyjit  # type: ignore[import-not-found]

        def count(*args: object) -> None:
            cls.events += 1

        pypyjit.set_compile_hook(count)
        pypyjit.set_abort_hook(count)


def _csv(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def list_cases(args: argparse.Namespace) -> Dict[str, Any]:
    """What this interpreter can run of the selection, as JSON for the driver."""
    names = select_variants(_csv(args.variants), pypy_lib=args.pypy_lib)
    targets = [load_target(name) for name in names]
    lengths = [int(n) for n in _csv(args.lengths)]
    block_lengths = [int(n) for n in _csv(args.block_lengths)] if args.block_lengths else None
    cases = enumerate_cases(
        targets, _csv(args.algorithms), lengths, _csv(args.modes), block_lengths
    )
    return {
        "interpreter": interpreter_info(),
        "variants": {t.name: t.info() for t in targets},
        "cases": [case.name for case in cases],
    }


class Measured:
    """One case in this process: its timer, loops, warm-ups and values."""

    def __init__(self, case: Case, timer: TimeFunc, entry: Dict[str, Any]) -> None:
        self.case = case
        self.timer = timer
        self.loops: int = entry.get("loops") or 0
        self.want_warmups: Optional[int] = entry.get("warmups")
        self.want_values: Optional[int] = entry.get("values")
        self.warmups: List[Tuple[int, float]] = []
        self.values: List[float] = []
        self.elapsed = 0.0
        self.value_time: float = entry.get("value_time") or 0.0  # seconds per value, at loops
        #: PyPy: whether the warm-up ended with the JIT quiet, and its activity
        #: while the values were taken.
        self.settled = True
        self.jit_events = 0
        self.last_jit_events = 0
        #: Wall-clock seconds of each measured value (what planning needs: the
        #: values themselves may be CPU time, less on a busy machine).
        self.value_walls: List[float] = []
        self.last_wall = 0.0

    def call(self, loops: int) -> float:
        """One value: seconds per operation over ``loops`` operations."""
        before = Jit.events
        started = time.perf_counter()
        raw = self.timer(loops)
        self.last_wall = time.perf_counter() - started
        self.elapsed += self.last_wall
        self.last_jit_events = Jit.events - before
        return raw / loops

    def value(self) -> None:
        """Take one measured value."""
        self.values.append(self.call(self.loops))
        self.value_walls.append(self.last_wall)
        self.jit_events += self.last_jit_events


def calibrate(m: Measured, min_time: float, slow: float) -> None:
    """Find the loops giving values of at least ``min_time`` (pyperf's doubling)."""
    loops = 1
    while True:
        value = m.call(loops)
        raw = value * loops
        if raw >= min_time or loops * 2 > MAX_LOOPS:
            break
        m.warmups.append((loops, value))
        loops *= 2
    m.loops = loops
    m.value_time = raw
    if raw >= slow and not PYPY:
        # One call of a slow case: it is the first value, not a warm-up (see the docstring).
        m.values.append(value)
        m.value_walls.append(m.last_wall)
    else:
        m.warmups.append((loops, value))


def warm_up(m: Measured, plan: Dict[str, Any]) -> None:
    """The warm-up values before measuring: a fixed number, or PyPy's until settled."""
    if m.want_warmups is not None:
        count = m.want_warmups
    elif PYPY:
        settle(m, float(plan["min_time"]), plan.get("pypy_warm", PYPY_WARM))
        return
    elif m.values or (m.warmups and m.warmups[-1][0] == m.loops):
        count = 0  # calibration's last value, at these loops, was the warm-up
    else:
        count = 1
    for _ in range(count):
        m.warmups.append((m.loops, m.call(m.loops)))


def settle(m: Measured, min_time: float, bounds: Sequence[float]) -> None:
    """Warm a case up under a JIT: values until their times have settled (see PYPY_WARM)."""
    shortest, longest = bounds
    started = m.elapsed
    history: List[float] = []
    quiet = 0  # values in a row during which the JIT did nothing
    while True:
        value = m.call(m.loops)
        m.warmups.append((m.loops, value))
        history.append(value)
        quiet = 0 if m.last_jit_events else quiet + 1
        if value * m.loops < min_time / 2 and m.loops * 2 <= MAX_LOOPS:
            m.loops *= 2  # the JIT made it faster than calibrated for
        spent = m.elapsed - started
        if spent < shortest or len(history) < 2 * WINDOW or quiet < WINDOW:
            if spent >= longest:
                m.settled = False
                break
            continue
        last, before = history[-WINDOW:], history[-2 * WINDOW : -WINDOW]
        if statistics.median(last) >= statistics.median(before) * (1 - DRIFT):
            break
        if spent >= longest:
            m.settled = False
            break
    m.value_time = statistics.median(history[-WINDOW:]) * m.loops


def values_wanted(m: Measured, budget: float, max_values: int) -> int:
    """How many values to take: the plan's, or what ``budget`` seconds allow."""
    if m.want_values is not None:
        wanted = m.want_values
    else:
        wanted = max(1, min(max_values, int(budget / max(m.value_time, 1e-9))))
    return max(0, wanted - len(m.values))


def measure_group(group: Sequence[Measured], plan: Dict[str, Any], label: str, out: Any) -> None:
    """Calibrate and warm every case of a group, then take values variant by variant in turn."""
    min_time, slow = float(plan["min_time"]), float(plan["slow"])
    first = group[0].case
    out.write(f"  {label:<7} {first.length:>7} B {first.algorithm:<6} {first.mode:<12}")
    out.flush()
    for m in group:
        if not m.loops:
            calibrate(m, min_time, slow)
        warm_up(m, plan)
    rounds = {
        id(m): values_wanted(m, float(plan["budget"]), int(plan["max_values"])) for m in group
    }
    for r in range(max(rounds.values(), default=0)):
        for m in group:
            if rounds[id(m)] > r:
                m.value()
    for m in group:
        if m.values:
            m.value_time = statistics.median(m.values) * m.loops
            mbps = m.case.length / statistics.median(m.values) / 1e6
            out.write(f" {m.case.variant} {mbps:.3g}")
    out.write(" MB/s\n")
    out.flush()


def run_plan(plan: Dict[str, Any], out: Any = sys.stdout) -> Tuple[Any, Dict[str, Any]]:
    """Measure the plan's cases; return the pyperf suite and the feedback for the driver."""
    started = time.perf_counter()
    Jit.watch()
    common = pyperf.Run([1.0], collect_metadata=True).get_metadata()
    for key in ("name", "loops", "duration", "unit"):
        common.pop(key, None)
    targets: Dict[str, Target] = {}
    data: Dict[int, bytes] = {}
    groups: Dict[Tuple[int, str, str], List[Measured]] = {}
    feedback: Dict[str, Any] = {"cases": {}, "unavailable": {}}
    for entry in plan["cases"]:
        case = Case.parse(entry["name"])
        if case.variant not in targets:
            targets[case.variant] = load_target(case.variant)
        target = targets[case.variant]
        if target.unavailable:
            feedback["unavailable"][case.name] = target.unavailable
            continue
        if case.length not in data:
            data[case.length] = jdk_pattern(case.length)
        timer = make_timer_checked(case, target, data[case.length], plan.get("clock", "cpu"))
        group_key = (case.length, case.algorithm, case.mode)
        groups.setdefault(group_key, []).append(Measured(case, timer, entry))
    benchmarks = []
    for group in groups.values():
        measure_group(group, plan, plan.get("label", ""), out)
        for m in group:
            metadata = dict(common)
            metadata.update(
                name=m.case.name,
                loops=m.loops,
                unit="second",
                duration=m.elapsed,
                variant=m.case.variant,
                algorithm=m.case.algorithm,
                mode=m.case.mode,
                length=m.case.length,
                variant_kind=targets[m.case.variant].kind,
                study_pass=int(plan.get("pass", 0)),
                study_clock=plan.get("clock", "cpu"),
            )
            if PYPY:
                metadata.update(jit_settled=int(m.settled), jit_events=m.jit_events)
            if targets[m.case.variant].details:
                metadata["variant_details"] = targets[m.case.variant].details
            if m.values:
                run = pyperf.Run(
                    m.values, warmups=m.warmups or None, metadata=metadata, collect_metadata=False
                )
                benchmarks.append(pyperf.Benchmark([run]))
            # For planning, in wall-clock seconds: what a value and the warm-up take.
            walls = m.value_walls
            feedback["cases"][m.case.name] = {
                "loops": m.loops,
                "value_time": statistics.median(walls) if walls else m.value_time,
                "warmups": sum(1 for loops, _ in m.warmups if loops == m.loops),
                "values": len(m.values),
                "elapsed": m.elapsed,
                "warm_time": m.elapsed - sum(walls),
                "settled": m.settled,
            }
    feedback["wall"] = time.perf_counter() - started
    feedback["interpreter"] = interpreter_info()
    return pyperf.BenchmarkSuite(benchmarks) if benchmarks else None, feedback


def make_timer_checked(case: Case, target: Target, data: bytes, clock: str) -> TimeFunc:
    """The case's timer, after checking once, on a short prefix, that it hashes correctly."""
    if case.mode != "block":
        probe = data[:64]
        expected = hashlib.new(case.algorithm, probe).hexdigest()
        got = target.constructors[case.algorithm](probe).hexdigest()
        if got != expected:
            raise AssertionError(f"{case.variant} {case.algorithm} hashes {probe!r} wrongly")
    return make_timer(case, target, data, clock)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    lister = commands.add_parser("list", help="print what this interpreter can run, as JSON")
    lister.add_argument("--variants", default="", help="names or globs, comma-separated")
    lister.add_argument("--algorithms", default=",".join(ALGORITHMS))
    lister.add_argument("--lengths", default=",".join(str(n) for n in LENGTHS))
    lister.add_argument("--block-lengths", default="")
    lister.add_argument("--modes", default=",".join(MODES))
    lister.add_argument("--pypy-lib", action="store_true")
    runner = commands.add_parser("run", help="measure one plan")
    runner.add_argument("--plan", required=True, type=Path)
    runner.add_argument("--out", required=True, type=Path, help="pyperf JSON to write")
    runner.add_argument("--feedback", required=True, type=Path)
    args = parser.parse_args(argv)
    if args.command == "list":
        json.dump(list_cases(args), sys.stdout)
    else:
        suite, feedback = run_plan(json.loads(args.plan.read_text()))
        if suite is not None:
            suite.dump(str(args.out), replace=True)
        args.feedback.write_text(json.dumps(feedback))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
