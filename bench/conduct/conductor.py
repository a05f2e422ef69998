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

**The quick effort** (``Settings.headline_first``) answers the headline first: pass 0 takes
its cases alone (``bench.catalog.tables.headline``: the styles table's ratios, helpers ÷
streamlined at 16 KiB per mode and algorithm), and so does every pass after it, as many as
``headline_share`` of the budget pays for, until their ratios are precise enough (the rule
above, on them alone). Then one pass of every other group (those with the README's other
cases first), each group whole so that a ratio's two cases share a process, while the budget
lasts: a group not started by then is absent from the report. ``stop["unsettled"]`` names the
modes whose headline ratios the report will show wider than the promise (the term included),
each with its widest half-width; ``stop["groups_left"]`` counts the groups not measured.

Writes ``results/bench/<date-time>/`` through ``bench.store``.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from .. import store
from ..catalog import comparisons
from ..catalog.columns import Column, Layout, Listing, Member
from ..catalog.study import Study
from ..core import stats
from ..core.fmt import duration
from ..core.machine import cpu_label, cpu_ticks, machine_facts, measured, tree
from ..store import STOPS, Header
from . import launch
from .effort import EFFORTS, Settings, add_arguments, settings_of
from .options import Options
from .passes import GroupKey, Passes, group_order

#: What other modules take from here: the run, and the effort's names it is run with.
__all__ = [
    "EFFORTS",
    "Conductor",
    "Settings",
    "add_arguments",
    "builds",
    "listing",
    "run",
    "settings_of",
]


class Conductor(Passes):
    """One run: a plan of passes over stretches of time, groups of rounds in each pass."""

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
        super().__init__(study, columns, settings, folder, results, log, clock)
        self.extra = 0.0  # what a pass of the README's cases alone costs, from the first pass
        jdks = {c.mode.interpreter for c in columns if c.classpath}
        self.budget = settings.budget + settings.jdk_budget * len(jdks)
        self.plan: List[Dict[GroupKey, Set[Member]]] = []
        #: Why the run stopped ("precision", "budget", "passes"), after how many passes and
        #: seconds, at what median half-width of the README's ratios (within the run).
        self.stop: Dict[str, Any] = {}
        self.capped = False  # the plan was cut by max_passes, not by the budget
        self.under = 0  # the looks in a row at which the ratios were within the target
        self.tail: Optional[int] = None  # headline_first: the pass of every other case

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
        live = self.live()
        for p in range(1, count):
            if p in whole:
                self.plan.append({k: set(live[k]) for k in self.groups})
            else:
                chosen = {k: {m for m in live[k] if m in self.readme} for k in self.groups}
                self.plan.append({k: ms for k, ms in chosen.items() if ms})
        self.say(
            f"plan: {count} passes over {s.stretches} stretches of time: every group in "
            f"{s.least}, the README's {len(self.readme)} cases in each"
        )

    def live(self) -> Dict[GroupKey, Set[Member]]:
        """Each group's cases, those left out for their time (``skipped``) aside."""
        return {
            k: {m for m in ms if m[1] not in self.skipped[m[0]]} for k, ms in self.members.items()
        }

    def whole(self, p: int) -> bool:
        """Whether planned pass ``p`` takes every group (not only the README's cases)."""
        return len(self.plan[p - 1]) == len(self.groups)

    def stretch(self, p: int) -> int:
        """The stretch pass ``p`` falls in if the plan is taken whole (``restretch`` makes it
        that of the passes taken when the run ends)."""
        return min(self.settings.stretches - 1, p * self.settings.stretches // (len(self.plan) + 1))

    def restretch(self) -> Dict[str, Dict[int, int]]:
        """Each pass taken its stretch, by mode: the passes taken cut into ``stretches`` runs of
        equal count, in their order (a run that stopped early, or left passes out for the
        budget, has its stretches over the time it took); every pass's record says it. The
        pass of every other case after the headline's (``tail``) is in the last. A headline
        run cuts each mode's own passes (``where_spread`` leaves the settled modes out of the
        later ones: their passes stay spread over every stretch)."""
        s = self.settings.stretches

        def cut(passes: Sequence[int]) -> Dict[int, int]:
            taken = [p for p in passes if p != self.tail]
            where = {p: min(s - 1, i * s // len(taken)) for i, p in enumerate(taken)}
            if self.tail is not None and self.tail in passes:
                where[self.tail] = s - 1
            return where

        every = cut(self.done)
        by: Dict[str, Dict[int, int]] = {}
        for label, cases in self.data.items():
            own = sorted({r.number for found in cases.values() for r in found.runs})
            where = by[label] = cut(own) if self.by_headline else every
            for found in cases.values():
                for r in found.runs:
                    r.stretch = where.get(r.number, r.stretch)
        return by

    def measured(self) -> Tuple[Dict[Member, stats.Values], Layout]:
        """The values so far, by case, and the spec's layout of them: its derived rows (the
        fastest pure Python, a mode's nearest JDK counterpart) by the times so far."""
        measured: Dict[Member, stats.Values] = {
            (label, name): c.values()
            for label, cases in self.data.items()
            for name, c in cases.items()
            if c.runs and c.runs[0].values
        }
        times = {
            m: math.exp(
                statistics.fmean(math.log(min(v)) for v in stats.by_process(values).values())
            )
            for m, values in measured.items()
        }
        return measured, Layout(self.columns, list(measured), times.__getitem__)

    def precision(self) -> Optional[float]:
        """The median half-width of the README's ratios (``headline_first``: the headline's)
        within the run (before the between-run term), as the report would compute them from
        the passes so far; None: none yet."""
        where = self.restretch()
        measured, lay = self.measured()
        if self.by_headline:
            pairs = [pair for found in self.study.headline(lay).values() for pair in found]
        else:
            pairs = comparisons.readme_pairs(self.study.tables(lay))
        widths = []
        for a, b in pairs:
            found = stats.ratio(measured[a], measured[b], where.get(a[0]), term=0.0)
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
        if self.settings.settle_modes and self.unsettled():
            return False  # a styles run: each mode's ratios within the promise, or the budget
        assert width is not None
        self.stop = self.stopped("precision", width)
        return True

    def stopped(self, rule: str, width: Optional[float]) -> Dict[str, Any]:
        return {
            "rule": rule,
            "passes": len(self.done),
            "seconds": self.now() - self.started,
            "half_width": width,
            "target": self.settings.target,
        }

    def run(self) -> Dict[str, Any]:
        ticks = cpu_ticks()
        if self.by_headline:
            self.headline_plan()
        else:
            self.planned()
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
                **({"headline_cases": len(self.lead)} if self.by_headline else {}),
            },
            "stop": self.stop,
        }

    def planned(self) -> None:
        """Every group in pass 0 and ``least`` passes in all, the README's cases in every pass
        until they are precise enough (the default and rigorous efforts)."""
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
        if not short:
            short = self.more_of_the_readme(took[False])
        self.worker_log.close()
        if not self.stop:
            rule = "passes" if self.capped and not short else "budget"
            self.stop = self.stopped(rule, self.precision())
        else:
            self.restretch()
        if self.stop["rule"] == "precision":
            self.say(
                f"stopped: the README's ratios within ±{self.stop['half_width']:.1%} "
                f"after {self.stop['passes']} passes"
            )

    def more_of_the_readme(self, took: float) -> bool:
        """Passes of the README's cases after the plan, while the budget lasts and they are
        not yet precise enough (up to ``max_passes``); whether one was left out for the budget.
        The plan is made from pass 0's costs, its processes' start and calibration in them: a
        first pass of the four algorithms took 270 s where each whole pass after it took 200 s
        (2026-12-06, Xeon 6/207), and a plan of four passes left a sixth of the budget unspent
        and the README's ratios without a process in every stretch."""
        s = self.settings
        live = self.live()
        readme = {k: ms for k in self.groups if (ms := live[k] & self.readme)}
        while readme and not self.stop and not self.sure():
            if len(self.done) >= s.max_passes:
                self.capped = True
                return False
            if self.budget - (self.now() - self.started) < took:
                return True
            self.plan.append(readme)
            self.one_pass(len(self.plan), readme)
            took = self.took[-1]
        return False

    def headline_plan(self) -> None:
        """The headline's cases alone in pass 0 (calibrated, their cost told) and in as many
        passes as ``headline_share`` of the budget pays for, until their ratios are precise
        enough; then one pass of every other group, while the budget lasts (each group whole:
        a ratio's two cases share a process); then the modes left unsettled."""
        s = self.settings
        lead = {
            k: ms for k in self.groups if (ms := {m for m in self.members[k] if m in self.lead})
        }
        self.one_pass(0, lead)
        share, took = s.headline_share * self.budget, self.took[0]
        more = int((share - took) / took) if took > 0 else s.max_passes
        # Up to max_passes: the passes after the stretches' own take the unsettled modes alone
        # (``where_spread``), cheaper than a whole pass; the share of the budget is the ceiling.
        count = s.max_passes
        self.capped = more >= s.max_passes - 1
        live = self.live()
        # Every other group, those with the README's other cases (the buys table) first.
        rest = sorted(
            (k for k in self.groups if live[k] - self.lead),
            key=lambda k: (not live[k] & self.readme - self.lead, group_order(k)),
        )
        self.plan = [dict(lead) for _ in range(1, count)] + [{k: live[k] for k in rest}]
        self.say(
            f"plan: up to {count} passes of the headline's {len(self.lead)} cases over "
            f"{s.stretches} stretches of time, then one of the {len(rest)} other groups "
            f"while the budget lasts"
        )
        short = False  # a pass of the headline's was left out for its share of the budget
        for p in range(1, count):
            if self.sure():
                break
            if self.now() - self.started + self.took[-1] > share:
                short = True
                break
            self.one_pass(p, self.where_spread(p, self.plan[p - 1]))
        else:  # the plan taken: a look after its last pass
            self.sure()
        if not self.stop:
            rule = "passes" if self.capped and not short else "budget"
            self.stop = self.stopped(rule, self.precision())
        self.tail, self.deadline = count, self.started + self.budget
        if rest and self.now() < self.deadline:
            self.one_pass(count, self.plan[-1])
        else:
            self.left += rest
        self.worker_log.close()
        self.restretch()
        self.stop["groups_left"] = len(self.left)
        unsettled = self.stop["unsettled"] = self.unsettled()
        said = ", ".join(f"{mode} ±{width:.1%}" for mode, width in unsettled.items())
        width = self.stop["half_width"]
        reached = "no ratio" if width is None else f"±{width:.1%}"
        self.say(
            f"headline: {STOPS.get(self.stop['rule'])} after {self.stop['passes']} passes "
            f"(median {reached} within the run); modes not settled (over "
            f"±{s.promise or 0:.0%}): {said or 'none'}; {len(rest) - len(self.left)} of "
            f"the other {len(rest)} groups measured"
        )

    def where_spread(
        self, p: int, plan: Dict[GroupKey, Set[Member]]
    ) -> Dict[GroupKey, Set[Member]]:
        """Pass ``p`` of the headline's cases where the spread is: once every stretch has a
        process of each (``first_stop`` passes), the modes whose headline ratios are still wider
        than the promise (``unsettled``) alone, every mode where none is (the median then
        decides). A noisy CPU's interpreting modes spread most (an EPYC Zen 4's quick run:
        CPython's ±25-55 % against the JDK compilers' few): their passes, not the settled
        modes', narrow the headline."""
        if p < self.settings.first_stop:
            return plan
        wide = self.unsettled()
        if not wide:
            return plan
        narrowed = {k: {m for m in ms if m[0] in wide} for k, ms in plan.items()}
        return {k: ms for k, ms in narrowed.items() if ms}

    def unsettled(self) -> Dict[str, float]:
        """The modes whose headline ratios the report shows wider than the promise (the
        between-run term included): each with its widest half-width."""
        promise = self.settings.promise
        where = self.restretch()
        measured, lay = self.measured()
        found = {}
        for mode, pairs in self.study.headline(lay).items():
            ratios = [stats.ratio(measured[a], measured[b], where.get(a[0])) for a, b in pairs]
            widths = [r.half_width for r in ratios if r is not None]
            if promise is not None and widths and max(widths) > promise:
                found[mode] = max(widths)
        return found


def listing(column: Column, study: Study, results: Path) -> Column:
    """``column`` with what its worker says it can run of ``study``."""
    with launch.worker(column, results) as w:
        return replace(column, listing=Listing.from_json(w.ask(study.listing(column))))


def run(
    options: Options,
    study: Study,
    columns: List[Column],
    left_out: Mapping[str, str],
    settings: Optional[Settings] = None,
) -> Path:
    """Measure ``study`` under ``columns`` as ``options`` say (``settings``: the effort's, with
    the options' overrides, where not given); the run's folder. The columns that cannot run
    the study are left out, each with why (``Study.cannot_run``), as are the modes of
    ``left_out``, their interpreter not here."""
    if settings is None:
        settings = settings_of(options, study.settle_modes)
    started = time.time()
    folder = store.new_folder(study.name, options.results)
    log = sys.stdout
    columns = [listing(c, study, options.results) for c in columns]
    cannot = study.cannot_run(columns)
    columns = [c for c in columns if c.label not in cannot]
    for label, why in cannot.items():
        log.write(f"  {label}: {why}\n")
    count = sum(len(c.listing.cases) for c in columns)
    jdks = any(c.mode.interpreter.startswith("jdk") for c in columns)
    jdk = " and more for a JDK" if jdks else ""
    log.write(
        f"bench: {len(columns)} modes ({', '.join(c.label for c in columns)}), {count} cases, "
        f"effort {options.effort} ({settings.stretches} stretches, ~{duration(settings.budget)} "
        f"of measuring{jdk}), {cpu_label()}\n  results: {folder}\n"
    )
    for column in columns:
        for name, info in column.listing.variants.items():
            if info.unavailable:
                log.write(f"  {column.label}: {name} unavailable: {info.unavailable}\n")
    conductor = Conductor(study, columns, settings, folder, options.results, log)
    outcome = conductor.run()
    header = Header(
        effort=options.effort,
        settings=asdict(settings),
        cpu=cpu_label(),
        started=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        wall_seconds=time.time() - started,
        builds=builds(options.results / "envs", sorted({c.mode.interpreter for c in columns})),
        tree=tree(launch.BENCH),
        left_out=dict(left_out),
        machine=machine_facts(),
        measured=measured(store.ROOT),
        study=study.name,
        record=study.record(cannot),
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
