"""The study's conductor (``python -m bench run``): every mode, variant and length, interleaved.

The columns are *modes* (``bench.catalog.modes``: an interpreter run a certain way, e.g.
``3.14-jit``, ``pypy8-nojit``, ``3.11-portable``, ``jdk17-xint``), each in its runtime's
environment. Each *pass* starts a fresh worker process per mode (JMH's forks) and walks the
groups of cases (same benchmark, algorithm, length): every worker prepares the group's cases
(calibrates its loops, in every process; warms up, under a JIT until it settles), then
the conductor asks for values one at a time, round by round, every case under every mode in
turn, so that the two sides of a ratio share the machine's moods.

**Where the time goes.** The run's passes are cut into ``stretches`` of its time (six in the
default effort). Every group takes ``least`` passes (three), spread over the run, the first
(pass 0) also calibrating and telling what a pass of each group costs. The rest of the
budget goes to the cases of the ratios the README shows
(``bench.catalog.comparisons.readme_members``): they join every pass, so that each of those
ratios has many processes in every stretch, which is what its interval is made of
(``bench.core.stats``: processes within stretches).

**When it stops.** After each pass, once every stretch has a process (``first_stop``), the
conductor computes the README's ratios as the report will, without the between-run term
(``stats.RUN_TERM``), and stops taking passes of them when their median half-width is within
what the effort promises (``Settings.promise``, the term included: ±5 % in the default effort,
so ±4 % within the run) at ``confirm`` looks in a row (two: the first look under the
target is likely a low estimate). The whole passes still owed are taken in any case: at a
look under the target one of them comes next, so that it is the pass between that look and
the one that confirms it (it measures the README's cases as well); the stretches are cut over
the passes taken. The budget stays the ceiling. ``study.json`` records which rule
stopped the run (precision, budget, passes), after how many passes and seconds (``stop``).

Writes ``results/bench/<date-time>/`` through ``bench.store``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from bench import store
from bench.catalog import comparisons, tables
from bench.catalog.cases import BENCHMARKS, Case, Grid
from bench.catalog.columns import Column, Layout, Listing, Member
from bench.catalog.comparisons import LONG
from bench.conduct import launch
from bench.core import stats
from bench.core.fmt import duration
from bench.core.machine import cpu_label, cpu_ticks, tree
from bench.core.protocol import Client
from bench.store import CaseRuns, Header, Pass

GroupKey = Tuple[str, str, int, int]


@dataclass(frozen=True)
class Settings:
    """How hard to measure: an effort level (``--effort``), its fields overridable."""

    #: The run's time is cut into this many stretches: the README's cases take passes in
    #: each; every group takes ``least`` passes, spread over them.
    stretches: int
    least: int
    #: The ceiling of passes, whatever the budget leaves.
    max_passes: int
    #: Shortest value (seconds): loops are calibrated up to it.
    min_time: float
    #: Seconds of measuring in all, every mode and pass together; the stretches' passes of
    #: every group are taken whatever it is. Each JDK adds ``jdk_budget``. The ceiling: the
    #: run stops before it when the README's ratios are as precise as ``promise`` says.
    budget: float
    #: Rounds per group and pass; the README's cases take ``readme_rounds`` (more: a
    #: process's fastest value is steadier the more values it has to choose from).
    rounds: int
    #: A JIT's warm-up per case and process: (at least, at most) seconds (a mode with
    #: ``Mode.jit``; ``bench.core.timing.JIT_WARM`` is what the one-process tools take).
    jit_warm: Tuple[float, float]
    grid: Grid = field(default_factory=Grid)
    #: Cases predicted to take longer per operation are left out (None: none).
    slow_limit: Optional[float] = None
    clock: str = "cpu"
    jdk_budget: float = 90.0
    readme_rounds: int = 0  # 0: ``rounds``
    #: The README's median half-width this effort promises (docs/study.md), the between-run
    #: term (``stats.RUN_TERM``) included; None: none, the run takes its budget.
    promise: Optional[float] = None
    #: Passes before the stopping rule looks: at least one process in every stretch, so that a
    #: ratio's interval has its S - 1 degrees of freedom before it may end the run.
    min_passes: int = 0
    #: Looks in a row, one before each pass, at which the README's ratios must be within the
    #: target before the run stops: a median half-width estimated from a handful of passes
    #: moves by about a tenth from one pass to the next, and the first look under the target
    #: is likely a low one. Stopped at the first (2026-12-03, Zen 3): ±3.8 % and ±3.7 %
    #: within the run at the stop, ±4.7 % and ±5.2 % in the reports with the term, the
    #: second over the promise.
    confirm: int = 2
    #: Whether the run counts the styles' machine instructions after measuring (callgrind:
    #: minutes; a first answer, the quick effort, goes without: ``nox -s bytecode`` has them).
    count: bool = True

    @property
    def target(self) -> Optional[float]:
        """The README's median half-width *within the run* (before the between-run term)
        at which measuring stops: the promise less the term, in quadrature (None: never)."""
        if self.promise is None or self.promise <= stats.RUN_TERM:
            return None
        return math.sqrt(self.promise**2 - stats.RUN_TERM**2)

    @property
    def first_stop(self) -> int:
        """The fewest passes after which the stopping rule may end the run."""
        return max(self.min_passes, self.stretches, self.least)


EFFORTS: Dict[str, Settings] = {
    "quick": Settings(
        stretches=3, least=2, max_passes=8, min_time=0.001, budget=90.0, rounds=3,
        jit_warm=(0.05, 0.5), grid=Grid((64, 1024, 16384), batches=((4096, 8),)),
        slow_limit=0.25, jdk_budget=15.0, readme_rounds=8, promise=0.10, count=False,
    ),
    "default": Settings(
        stretches=6, least=3, max_passes=48, min_time=0.001, budget=720.0, rounds=4,
        jit_warm=(0.03, 1.0), slow_limit=0.1, readme_rounds=16, promise=0.05,
    ),
    "rigorous": Settings(
        stretches=8, least=5, max_passes=80, min_time=0.01, budget=3600.0, rounds=10,
        jit_warm=(1.0, 5.0), grid=Grid(get_max=1 << 20, block_max=16384), slow_limit=None,
        jdk_budget=450.0, readme_rounds=30, promise=0.035, min_passes=16,
    ),
}  # fmt: skip


def group_order(key: GroupKey) -> Tuple[int, int, int, str]:
    benchmark, algorithm, length, number = key
    return (BENCHMARKS.index(benchmark), length * number, number, algorithm)


class Conductor:
    """One run: a plan of passes over stretches of time, groups of rounds in each pass."""

    def __init__(
        self,
        columns: Sequence[Column],
        settings: Settings,
        folder: Path,
        results: Path,
        log: IO[str],
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.columns, self.settings, self.results, self.log = list(columns), settings, results, log
        self.now = clock
        self.data: Dict[str, Dict[str, CaseRuns]] = {c.label: {} for c in columns}
        self.members: Dict[GroupKey, List[Member]] = {}
        for column in columns:
            for name in column.listing.cases:
                self.members.setdefault(Case.parse(name).group, []).append((column.label, name))
        self.groups = sorted(self.members, key=group_order)
        listed = [m for ms in self.members.values() for m in ms]
        spec = tables.tables(Layout(self.columns, listed))
        self.readme = comparisons.readme_members(spec)
        self.skipped: Dict[str, Dict[str, str]] = {c.label: {} for c in columns}
        self.cost: Dict[GroupKey, Dict[Member, float]] = {k: {} for k in self.groups}
        self.started = self.now()
        self.steal: List[float] = []
        self.took: List[float] = []  # each pass's seconds
        self.extra = 0.0  # what a pass of the README's cases alone costs, from the first pass
        jdks = {c.mode.interpreter for c in columns if c.classpath}
        self.budget = settings.budget + settings.jdk_budget * len(jdks)
        self.plan: List[Dict[GroupKey, Set[Member]]] = []
        self.done: List[int] = []  # the passes taken, in order
        #: Why the run stopped ("precision", "budget", "passes"), after how many passes and
        #: seconds, at what median half-width of the README's ratios (within the run).
        self.stop: Dict[str, Any] = {}
        self.capped = False  # the plan was cut by max_passes, not by the budget
        self.under = 0  # the looks in a row at which the ratios were within the target
        self.worker_log = open(folder / "workers.log", "w")  # noqa: SIM115 (closed by run)

    def say(self, text: str) -> None:
        self.log.write(text + "\n")
        self.log.flush()

    def too_slow(self, label: str, case: Case) -> Optional[str]:
        """Why ``case`` is left out: predicted from a shorter digest to exceed slow_limit."""
        limit = self.settings.slow_limit
        if limit is None or case.benchmark != "digest" or case.length <= LONG:
            return None  # the README's length and below: always measured
        shorter = [(c.length, data.seconds / data.loops) for name, data in self.data[label].items()
                   if (c := Case.parse(name))[:3] == case[:3] and c.length < case.length
                   and data.loops]  # fmt: skip
        if not shorter:
            return None
        length, seconds = max(shorter)
        predicted = seconds * (case.length // 64 + 1) / (length // 64 + 1)  # blocks, padded
        if predicted <= limit:
            return None
        return (
            f"one operation would take about {predicted:.1f} s (from its {length}-byte time); "
            f"this effort of the study leaves out cases slower than {limit} s per operation"
        )

    def make_plan(self, spent: float) -> None:
        """The passes after the first: every group's ``least`` passes spread over the run,
        and as many passes of the README's cases as the budget left pays for."""
        s = self.settings
        full = sum(sum(self.cost[k].values()) for k in self.groups)
        extra = sum(c for k in self.groups for m, c in self.cost[k].items() if m in self.readme)
        self.extra = extra
        left = self.budget - spent - (s.least - 1) * full
        count = s.least
        if extra > 0 and left > 0:
            count += min(int(left / extra), s.max_passes - s.least)
            self.capped = int(left / extra) >= s.max_passes - s.least
        whole = {round(k * (count - 1) / (s.least - 1)) for k in range(1, s.least)}
        live = {k: {m for m in ms if m[1] not in self.skipped[m[0]]}
                for k, ms in self.members.items()}  # fmt: skip
        for p in range(1, count):
            if p in whole:
                self.plan.append({k: set(live[k]) for k in self.groups})
            else:
                chosen = {k: {m for m in live[k] if m in self.readme} for k in self.groups}
                self.plan.append({k: ms for k, ms in chosen.items() if ms})
        self.say(f"plan: {count} passes over {s.stretches} stretches of time: every group in "
                 f"{s.least}, the README's {len(self.readme)} cases in each")  # fmt: skip

    def whole(self, p: int) -> bool:
        """Whether planned pass ``p`` takes every group (not only the README's cases)."""
        return len(self.plan[p - 1]) == len(self.groups)

    def stretch(self, p: int) -> int:
        """The stretch pass ``p`` falls in if the plan is taken whole (``restretch`` makes it
        that of the passes taken when the run ends)."""
        return min(self.settings.stretches - 1, p * self.settings.stretches // (len(self.plan) + 1))

    def restretch(self) -> Dict[int, int]:
        """Each pass taken its stretch: the passes taken cut into ``stretches`` runs of equal
        count, in their order (a run that stopped early, or left passes out for the budget,
        has its stretches over the time it took); every pass's record says it."""
        s, n = self.settings.stretches, len(self.done)
        where = {p: min(s - 1, i * s // n) for i, p in enumerate(self.done)}
        for cases in self.data.values():
            for found in cases.values():
                for r in found.runs:
                    r.stretch = where.get(r.number, r.stretch)
        return where

    def precision(self) -> Optional[float]:
        """The median half-width of the README's ratios within the run (before the between-run
        term), as the report would compute them from the passes so far; None: none yet."""
        where = self.restretch()
        # The README's ratios as the report takes them: its derived rows (the fastest pure
        # Python, a mode's nearest JDK counterpart) by the times so far.
        measured = {(label, name): c.values() for label, cases in self.data.items()
                    for name, c in cases.items() if c.runs and c.runs[0].values}  # fmt: skip
        times = {m: math.exp(statistics.fmean(math.log(min(v)) for v in
                                              stats.by_process(values).values()))
                 for m, values in measured.items()}  # fmt: skip
        spec = tables.tables(Layout(self.columns, list(measured), times.__getitem__))
        widths = []
        for a, b in comparisons.readme_pairs(spec):
            found = stats.ratio(measured[a], measured[b], where, term=0.0)
            if found is not None and found.processes > 1:
                widths.append(found.half_width)
        return statistics.median(widths) if widths else None

    def sure(self) -> bool:
        """Whether the README's ratios are as precise as the effort promises (the stopping
        rule: looked at once ``first_stop`` passes are taken)."""
        target = self.settings.target
        if target is None or len(self.done) < self.settings.first_stop:
            return False
        width = self.precision()
        self.under = self.under + 1 if width is not None and width <= target else 0
        if self.under < self.settings.confirm:
            return False
        assert width is not None
        self.stop = self.stopped("precision", width)
        return True

    def stopped(self, rule: str, width: Optional[float]) -> Dict[str, Any]:
        return {"rule": rule, "passes": len(self.done), "seconds": self.now() - self.started,
                "half_width": width, "target": self.settings.target}  # fmt: skip

    def run(self) -> Dict[str, Any]:
        ticks = cpu_ticks()
        first = {k: set(self.members[k]) for k in self.groups}
        self.one_pass(0, first)
        self.make_plan(self.now() - self.started)
        # What the last pass of each kind took (whole, README's alone), estimated until measured.
        took = {True: self.took[0], False: self.extra}
        short = False  # a pass of the README's cases was left out for the budget
        queue = list(range(1, len(self.plan) + 1))  # the passes ahead, by number
        while queue:
            p = queue.pop(0)
            todo = self.plan[p - 1]
            left = self.budget - (self.now() - self.started)
            whole = self.whole(p)
            ahead = sum(1 for q in queue if self.whole(q))
            if not whole and (self.stop or self.sure()):
                continue  # precise enough: only the whole passes still ahead
            if not whole and self.under and ahead:
                # Within the target at this look, not yet at `confirm`: a whole pass still owed
                # comes now (it measures the README's cases too), the next look after it.
                owed = next(q for q in queue if self.whole(q))
                queue = [owed, p] + [q for q in queue if q != owed]
                continue
            if not whole and left < took[False] + ahead * took[True]:
                short = True
                continue  # the budget left is for the whole passes still ahead
            self.one_pass(p, todo)
            took[whole] = self.took[-1]
        self.worker_log.close()
        if not self.stop:
            rule = "passes" if self.capped and not short else "budget"
            self.stop = self.stopped(rule, self.precision())
        else:
            self.restretch()
        if self.stop["rule"] == "precision":
            self.say(f"stopped: the README's ratios within ±{self.stop['half_width']:.1%} "
                     f"after {self.stop['passes']} passes")  # fmt: skip
        end = cpu_ticks()
        return {
            "measure_seconds": self.now() - self.started,
            "passes": len(self.done),
            "steal": (end[0] - ticks[0]) / max(1, end[1] - ticks[1]),
            "steal_per_pass": tuple(self.steal),
            "skipped": self.skipped,
            "plan": {
                "stretches": self.settings.stretches,
                "passes": 1 + len(self.plan),
                "budget": self.budget,
                "readme_cases": len(self.readme),
            },
            "stop": self.stop,
        }

    def one_pass(self, p: int, todo: Dict[GroupKey, Set[Member]]) -> None:
        labels = {m[0] for ms in todo.values() for m in ms}
        before, started = cpu_ticks(), self.now()
        workers = {c.label: launch.worker(c, self.results, self.worker_log)
                   for c in self.columns if c.label in labels}  # fmt: skip
        # The README's cases first, in every pass, each group's apart from the rest of it: a
        # pass of them alone and a whole pass then measure them in the same state of their
        # processes (under a JIT, what it compiled for other cases before them moved the
        # README's JIT ratios by up to a third between the two kinds of pass).
        first = [(k, todo[k] & self.readme) for k in self.groups if todo.get(k)]
        then = [(k, todo[k] - self.readme) for k in self.groups if todo.get(k)]
        try:
            for key, members in first + then:
                if members:
                    self.group(p, key, members, workers)
        finally:
            for w in workers.values():
                w.close()
        after = cpu_ticks()
        self.steal.append((after[0] - before[0]) / max(1, after[1] - before[1]))
        self.took.append(self.now() - started)
        self.done.append(p)

    def group(self, p: int, key: GroupKey, todo: Set[Member], workers: Dict[str, Client]) -> None:
        """Prepare the group's cases to measure under every mode, then its rounds."""
        started = self.now()
        members: List[Tuple[Column, Case]] = []
        for column in self.columns:
            cases = [Case.parse(n) for (label, n) in self.members[key] if label == column.label]
            cases = [c for c in cases if (column.label, c.name) in todo]
            cases = [c for c in cases if c.name not in self.skipped[column.label]]
            for case in list(cases) if p == 0 else []:
                why = self.too_slow(column.label, case)
                if why:
                    self.skipped[column.label][case.name] = why
                    cases.remove(case)
            if not cases:
                continue
            data = self.data[column.label]
            # Every process calibrates its own loops: a count fixed for the run (one power of
            # two or the next, as the first pass's noise chose) moved whole runs' figures of
            # short cases by 2-6 %, a level a rerun varies that no stretch of the run showed.
            loops = [{"name": c.name, "loops": 0} for c in cases]
            request = {"op": "prepare", "min_time": self.settings.min_time, "jit": column.mode.jit,
                       "jit_warm": list(self.settings.jit_warm), "clock": self.settings.clock,
                       "cases": loops}  # fmt: skip
            answer = workers[column.label].ask(request)
            for case in cases:
                got = answer["cases"][case.name]
                found = data.setdefault(case.name, CaseRuns())
                if not found.loops:
                    found.loops, found.seconds = int(got["loops"]), float(got["seconds"])
                found.cost = float(got["prepare_seconds"])
                warmups = [(int(a), float(b)) for a, b in got["warmups"]]
                found.runs.append(Pass(p, int(got["loops"]), warmups, bool(got["warmed"]),
                                       self.stretch(p)))  # fmt: skip
                members.append((column, case))
        if not members:
            return
        variants = list(dict.fromkeys(case.variant for _, case in members))
        labels = [c.label for c in self.columns]
        rounds = {(c.label, case.name): self.rounds_of((c.label, case.name)) for c, case in members}
        for r in range(max(rounds.values())):
            order = variants if r % 2 == 0 else variants[::-1]
            turn = labels[r % len(labels) :] + labels[: r % len(labels)]
            for variant in order:
                for label in turn:
                    for column, case in members:
                        if (
                            column.label == label
                            and case.variant == variant
                            and (r < rounds[(label, case.name)])
                        ):
                            answer = workers[label].ask({"op": "value", "case": case.name})
                            found = self.data[label][case.name]
                            found.cost += float(answer["wall"])
                            found.runs[-1].rounds.append(r)
                            found.runs[-1].values.append(float(answer["value"]))
        took = self.now() - started
        # What a pass of each case costs: its share of the group's time (the talking between
        # conductor and workers is a part of it, a large one on a busy machine).
        reported = sum(self.data[c.label][case.name].cost for c, case in members)
        for column, case in members:
            share = self.data[column.label][case.name].cost / reported if reported else 0.0
            self.cost[key][(column.label, case.name)] = max(took, reported) * share
        benchmark, algorithm, length, number = key
        size = f"{length} B" + (f" x {number}" if number > 1 else "")
        self.say(
            f"[pass {p + 1}, {duration(self.now() - self.started)}] {benchmark} "
            f"{algorithm} {size}: {len(members)} cases, {max(rounds.values())} rounds, {took:.1f} s"
        )

    def rounds_of(self, member: Member) -> int:
        """How many values a case takes in a pass: more for the README's."""
        s = self.settings
        return max(s.rounds, s.readme_rounds) if member in self.readme else s.rounds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS), help="JMH's benchmarks")
    parser.add_argument("--lengths", default="", help="bytes, comma-separated")
    parser.add_argument("--pypy-lib", action="store_true", help="add PyPy's _md5/_sha256 row")
    parser.add_argument("--effort", choices=sorted(EFFORTS), default="default")
    parser.add_argument("--mode", dest="effort", choices=sorted(EFFORTS), help=argparse.SUPPRESS)
    parser.add_argument("--stretches", type=int, help="override the effort's stretches")
    parser.add_argument("--least", type=int, help="override the passes every group takes")
    parser.add_argument("--budget", type=float, help="seconds of measuring in all (the ceiling)")
    parser.add_argument(
        "--promise",
        type=float,
        help="the README's median half-width at which "
        "measuring stops, the between-run term included (0: the whole budget)",
    )
    parser.add_argument("--clock", choices=("cpu", "wall"), help="cpu (default) or wall time")
    parser.add_argument("--no-report", action="store_true", help="measure only")
    parser.add_argument(
        "--no-count",
        action="store_true",
        help="no instruction counts (the quick effort counts none)",
    )
    parser.add_argument(
        "--recount",
        action="store_true",
        help="count the instructions again, not reusing the per-user cache's counts",
    )


def settings_of(args: argparse.Namespace) -> Settings:
    settings = EFFORTS[args.effort]
    if args.stretches:
        settings = replace(settings, stretches=args.stretches)
    if args.least:
        settings = replace(settings, least=args.least)
    settings = replace(settings, max_passes=max(settings.least, settings.max_passes))
    if args.budget:
        settings = replace(settings, budget=args.budget, jdk_budget=0.0)
    if args.promise is not None:
        settings = replace(settings, promise=args.promise or None)
    if args.clock:
        settings = replace(settings, clock=args.clock)
    if args.lengths:
        lengths = tuple(int(n) for n in args.lengths.split(","))
        settings = replace(settings, grid=replace(settings.grid, lengths=lengths))
    return settings


def listing(column: Column, args: argparse.Namespace, grid: Grid, results: Path) -> Column:
    """``column`` with what its worker says it can run of the selection."""
    request = {"op": "list", "algorithms": args.algorithms.split(","), "grid": grid.as_json(),
               "variants": [p for p in (column.mode.variants or args.variants).split(",") if p],
               "benchmarks": args.benchmarks.split(","), "pypy_lib": args.pypy_lib,
               "references": not column.mode.variants}  # fmt: skip
    with launch.worker(column, results) as w:
        return replace(column, listing=Listing.from_json(w.ask(request)))


def run(args: argparse.Namespace, columns: List[Column]) -> Path:
    """Measure ``columns`` as ``args`` say; the run's folder."""
    settings = settings_of(args)
    started = time.time()
    folder = store.new_folder("bench", args.results)
    log = sys.stdout
    columns = [listing(c, args, settings.grid, args.results) for c in columns]
    count = sum(len(c.listing.cases) for c in columns)
    log.write(
        f"bench: {len(columns)} modes ({', '.join(c.label for c in columns)}), {count} cases, "
        f"effort {args.effort} ({settings.stretches} stretches, ~{duration(settings.budget)} of "
        f"measuring and more for a JDK), {cpu_label()}\n  results: {folder}\n"
    )
    for column in columns:
        for name, info in column.listing.variants.items():
            if info.unavailable:
                log.write(f"  {column.label}: {name} unavailable: {info.unavailable}\n")
    missing = launch.left_out(args)
    conductor = Conductor(columns, settings, folder, args.results, log)
    outcome = conductor.run()
    header = Header(
        effort=args.effort,
        settings=asdict(settings),
        cpu=cpu_label(),
        started=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        wall_seconds=time.time() - started,
        builds=builds(args.results / "envs", sorted({c.mode.interpreter for c in columns})),
        tree=tree(launch.BENCH),
        left_out=missing,
        **outcome,
    )
    store.write(folder, header, columns, conductor.data)
    log.write(
        f"measured in {duration(outcome['measure_seconds'])}, {outcome['passes']} passes; "
        f"steal {outcome['steal']:.2%}; {header.stopped}\n"
    )
    if header.left_out_line:
        log.write(header.left_out_line + "\n")
    return folder


def builds(envs: Path, labels: Sequence[str]) -> Dict[str, Any]:
    """What the build of each interpreter's environment recorded of its times."""
    found: Dict[str, Any] = {}
    for label in labels:
        record = envs / f"{label}.json"
        build = store.read_record(record).get("build") if record.exists() else None
        if build:
            found[label] = build
    return found


if __name__ == "__main__":
    sys.exit("the study runs as: python -m bench run ... (python -m bench run --help)")
