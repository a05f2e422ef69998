"""Taking a pass: a fresh worker process per mode, the groups of cases in turn, round by round.

A *group* is the cases of one benchmark, algorithm and length (and batch size); every worker
prepares its cases of the group (calibrates, warms up), then the values are asked for one at a
time, every case under every mode in turn, so that the two sides of a ratio share the
machine's moods. ``Passes`` holds what the passes measured; the conductor
(``bench.conduct.conductor``) plans them over the run's time and says when to stop.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ..catalog import comparisons
from ..catalog.cases import BENCHMARKS, STYLES, Case
from ..catalog.columns import Column, Layout, Member
from ..catalog.comparisons import LONG
from ..catalog.study import Study
from ..core.fmt import duration
from ..core.machine import cpu_ticks
from ..core.protocol import Client
from ..store import CaseRuns, Pass
from . import launch
from .effort import Settings

GroupKey = Tuple[str, str, int, int]


def group_order(key: GroupKey) -> Tuple[int, int, int, str]:
    benchmark, algorithm, length, number = key
    rank = BENCHMARKS.index(benchmark) if benchmark in BENCHMARKS else len(BENCHMARKS)
    return (rank, length * number, number, algorithm)


class Passes:
    """What a run's passes measured, and taking one: its workers, its groups, their rounds."""

    def __init__(
        self,
        study: Study,
        columns: Sequence[Column],
        settings: Settings,
        folder: Path,
        results: Path,
        log: IO[str],
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.study = study
        self.columns, self.settings, self.results, self.log = list(columns), settings, results, log
        self.now = clock
        self.data: Dict[str, Dict[str, CaseRuns]] = {c.label: {} for c in columns}
        self.members: Dict[GroupKey, List[Member]] = {}
        for column in columns:
            for name in column.listing.cases:
                self.members.setdefault(Case.parse(name).group, []).append((column.label, name))
        self.groups = sorted(self.members, key=group_order)
        listed = [m for ms in self.members.values() for m in ms]
        lay = Layout(self.columns, listed)
        self.readme = comparisons.readme_members(study.tables(lay))
        headline = {m for pairs in study.headline(lay).values() for p in pairs for m in p}
        #: Whether the headline's cases come first (``Settings.headline_first``: the effort
        #: asks, and the run has them).
        self.by_headline = settings.headline_first and bool(headline)
        #: The cases a pass measures first, apart from the rest of their groups: the README's,
        #: or the headline's alone when they come first.
        self.lead = headline if self.by_headline else self.readme
        #: Once past it (the budget spent), a pass starts no more groups, but for their ``lead``
        #: cases, and lists those it left out in ``left`` (None: no deadline).
        self.deadline: Optional[float] = None
        self.left: List[GroupKey] = []
        self.skipped: Dict[str, Dict[str, str]] = {c.label: {} for c in columns}
        self.cost: Dict[GroupKey, Dict[Member, float]] = {k: {} for k in self.groups}
        self.started = self.now()
        self.steal: List[float] = []
        self.took: List[float] = []  # each pass's seconds
        self.done: List[int] = []  # the passes taken, in order
        self.worker_log = open(folder / "workers.log", "w")  # noqa: SIM115 (closed by run)

    def say(self, text: str) -> None:
        self.log.write(text + "\n")
        self.log.flush()

    def stretch(self, p: int) -> int:
        """The stretch of the run's time pass ``p`` falls in (the conductor's plan says)."""
        raise NotImplementedError

    def too_slow(self, label: str, case: Case) -> Optional[str]:
        """Why ``case`` is left out: predicted from a shorter digest to exceed slow_limit."""
        limit = self.settings.slow_limit
        if limit is None or case.benchmark != "digest" or case.length <= LONG:
            return None  # the README's length and below: always measured
        shorter = [
            (c.length, data.seconds / data.loops)
            for name, data in self.data[label].items()
            if (c := Case.parse(name))[:3] == case[:3] and c.length < case.length and data.loops
        ]
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

    def one_pass(self, p: int, todo: Dict[GroupKey, Set[Member]]) -> None:
        labels = {m[0] for ms in todo.values() for m in ms}
        before, started = cpu_ticks(), self.now()
        workers = {
            c.label: launch.worker(c, self.results, self.worker_log)
            for c in self.columns
            if c.label in labels
        }
        # The README's cases (``lead``) first, in every pass, each group's apart from the rest
        # of it: a pass of them alone and a whole pass then measure them in the same state of
        # their processes (under a JIT, what it compiled for other cases before them moved the
        # README's JIT ratios by up to a third between the two kinds of pass).
        first = [(k, ms & self.lead) for k, ms in todo.items() if ms]
        then = [(k, ms - self.lead) for k, ms in todo.items() if ms]
        try:
            for at, (key, members) in enumerate(first + then):
                late = self.deadline is not None and self.now() >= self.deadline
                if members and late and at >= len(first):
                    self.left.append(key)
                elif members:
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
        lead = bool(todo & self.lead)  # a pass takes a group's lead cases apart from the rest
        for column in self.columns:
            cases = [Case.parse(n) for (label, n) in self.members[key] if label == column.label]
            cases = [c for c in cases if (column.label, c.name) in todo]
            cases = [c for c in cases if c.name not in self.skipped[column.label]]
            for case in [c for c in cases if c.name not in self.data[column.label]]:
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
            request = {
                "op": "prepare",
                "min_time": self.settings.min_time,
                "jit": column.mode.jit,
                "jit_warm": list(self.settings.warm_of(column.mode.cpython_jit, lead)),
                "clock": self.settings.clock,
                "cases": loops,
            }
            if column.listing.styles:  # a styles file: the fresh worker loads it first
                request["styles"] = column.listing.styles
            answer = workers[column.label].ask(request)
            for case in cases:
                got = answer["cases"][case.name]
                found = data.setdefault(case.name, CaseRuns())
                if not found.loops:
                    found.loops, found.seconds = int(got["loops"]), float(got["seconds"])
                found.cost = float(got["prepare_seconds"])
                warmups = [(int(a), float(b)) for a, b in got["warmups"]]
                found.runs.append(
                    Pass(p, int(got["loops"]), warmups, bool(got["warmed"]), self.stretch(p))
                )
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
        size = f"size {length}" if benchmark == STYLES else size
        self.say(
            f"[pass {p + 1}, {duration(self.now() - self.started)}] {benchmark} "
            f"{algorithm} {size}: {len(members)} cases, {max(rounds.values())} rounds, {took:.1f} s"
        )

    def rounds_of(self, member: Member) -> int:
        """How many values a case takes in a pass: more for the README's."""
        s = self.settings
        return max(s.rounds, s.readme_rounds) if member in self.readme else s.rounds
