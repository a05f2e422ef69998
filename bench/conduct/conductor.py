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
from dataclasses import asdict, replace
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Set

from bench import store
from bench.catalog import comparisons, tables
from bench.catalog.cases import Grid
from bench.catalog.columns import Column, Layout, Listing, Member
from bench.conduct import launch
from bench.conduct.effort import EFFORTS, Settings, add_arguments, settings_of
from bench.conduct.passes import GroupKey, Passes
from bench.core import stats
from bench.core.fmt import duration
from bench.core.machine import cpu_label, cpu_ticks, tree
from bench.store import Header

#: What other modules take from here: the run, and the effort's names it is run with.
__all__ = ["EFFORTS", "Conductor", "Settings", "add_arguments", "builds", "listing", "run",
           "settings_of"]  # fmt: skip


class Conductor(Passes):
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
        super().__init__(columns, settings, folder, results, log, clock)
        self.extra = 0.0  # what a pass of the README's cases alone costs, from the first pass
        jdks = {c.mode.interpreter for c in columns if c.classpath}
        self.budget = settings.budget + settings.jdk_budget * len(jdks)
        self.plan: List[Dict[GroupKey, Set[Member]]] = []
        #: Why the run stopped ("precision", "budget", "passes"), after how many passes and
        #: seconds, at what median half-width of the README's ratios (within the run).
        self.stop: Dict[str, Any] = {}
        self.capped = False  # the plan was cut by max_passes, not by the budget
        self.under = 0  # the looks in a row at which the ratios were within the target

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
