"""How hard a run measures: the efforts (``--effort quick|default|rigorous``), each a
``Settings``, and the run's options over them (``add_arguments``; ``settings_of`` from the
typed ``bench.conduct.options.Options``).

The conductor (``bench.conduct.conductor``) says how a run spends them.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, replace
from typing import Dict, Optional, Tuple

from ..catalog.cases import BENCHMARKS, Grid
from ..core import stats
from .options import Options, half_width, seconds


@dataclass(frozen=True)
class Settings:
    """How hard to measure: an effort level (``--effort``), its fields overridable."""

    #: The run's time is cut into this many stretches: the README's cases take passes in
    #: each; every group takes ``least`` passes, spread over them (``headline_first``: one
    #: pass, after the headline's, while the budget lasts).
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
    #: CPython's JIT (``PYTHON_JIT=1``): its warm-up's least, where it differs from
    #: ``jit_warm``'s. It compiles a trace after a few thousand backward jumps, within the
    #: calibration's first values, and tells nothing of it: its warm-up ends on the times alone,
    #: after ``bench.core.timing.WINDOW`` values twice, so a floor above their time only waits.
    cpython_jit_least: Optional[float] = None
    #: The groups outside the README's cases under a JIT: their warm-up's most, where it differs
    #: from ``jit_warm``'s (None: the same). A case that reaches it is marked unsettled
    #: (``warmed``), as one at ``jit_warm``'s most is.
    others_jit_most: Optional[float] = None
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
    #: A first answer: the headline's cases (``bench.catalog.tables.headline``: the styles
    #: table's ratios, helpers ÷ streamlined per mode and algorithm) alone in every pass until
    #: their ratios are as precise as ``promise`` says (the stopping rule looks at them only)
    #: or ``headline_share`` of the budget is spent, then one pass of every other group while
    #: the budget lasts; the run records the modes it could not settle (``Conductor``). A
    #: run without the headline's cases (``--variants native``) takes the plan of the others.
    headline_first: bool = False
    headline_share: float = 0.75
    #: A styles file's run (``python -m bench styles``): the stopping rule waits, beyond the
    #: median, for every mode's widest ratio to be within ``promise`` (the budget and
    #: ``max_passes``, raised for it, stay the ceiling): its passes are short, and a reader
    #: reads each mode's answer, not the median.
    settle_modes: bool = False
    #: A styles run's budget, where it differs from ``budget`` (None: the same). A styles
    #: run has no JDK, and its effort's time is its user's wait: the default's 720 s of
    #: measuring made two runs of examples/styles/helpers.py take 785 s and 685 s in all
    #: (2026-12-05, Zen 3), over the 10 minutes it promises, at ±3.1 % and ±3.2 % (±5 %).
    styles_budget: Optional[float] = None

    def warm_of(self, cpython_jit: bool, lead: bool) -> Tuple[float, float]:
        """A JIT's warm-up bounds for a group of cases: under CPython's JIT (``cpython_jit``)
        or another, the README's cases (``lead``) or the rest."""
        least, most = self.jit_warm
        if cpython_jit and self.cpython_jit_least is not None:
            least = self.cpython_jit_least
        if not lead and self.others_jit_most is not None:
            most = self.others_jit_most
        return (min(least, most), most)

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
    # quick: four stretches for its few passes, not three: an interval has S - 1 degrees of
    # freedom at most (t = 3.2, not 4.3); the Xeon's default runs (2026-12-05), their first
    # four processes of the headline: median ±3.9 % and ±5.5 % within the run, ±6.1 % and
    # ±8.6 % over three stretches; 4 modes of 22 over ±10 % with the term, not 8 and 15.
    # Its passes after the stretches' four take the unsettled modes alone (the conductor's
    # where_spread), so up to twelve fit the same share of the budget; the other groups, one
    # pass each and not in the headline, take two rounds, not three (issue 53: a Zen 4's quick
    # run stopped at the budget at ±15.2 %, its CPython modes ±25-55 %; not yet measured there).
    # Four algorithms made a pass of the headline's 184 cases 35 s (2026-12-06, Xeon 6/207,
    # quiet: 36, 35, 35 s), and 110 s left three quarters for two passes, not one per stretch:
    # stopped at ±13.2 % within the run, ten modes over ±10 %. 220 s is the 110 s per pass
    # the two algorithms had. A styles file's headline is its whole file and its passes short:
    # its quick run keeps 110 s (±6.0 % and ±5.8 % for two four-style files in 12 modes).
    "quick": Settings(
        stretches=4, least=2, max_passes=12, min_time=0.001, budget=220.0, rounds=2,
        jit_warm=(0.05, 0.5), grid=Grid((64, 1024, 16384), batches=((4096, 8),)),
        slow_limit=0.25, jdk_budget=15.0, readme_rounds=8, promise=0.10, count=False,
        headline_first=True, styles_budget=110.0,
    ),
    # default: four algorithms doubled a whole pass (2026-12-06, Xeon 6/207, quiet: 282 s, the
    # README's 382 cases 92 s of it at 16 rounds): its three whole passes took the 900 s budget
    # and stopped at ±6.5 % within the run (target ±4 %). From that run's values, the fastest
    # of 8 rounds spreads about as little from process to process as of 16 (the README's
    # ratios' median SD 1.9 % against 1.8 %), of 3 more than of 4 (the other ratios' 5.5 %
    # against 4.2 %): 8 and 3. Each whole pass still took 226 s and a pass of the README's
    # cases alone 57 s (a case's start and calibration cost more than its rounds), and the
    # 900 s (720 and two JDKs') bought five passes, ±5.8 % within the run: 780 s buys seven.
    # A second clone's default run took 1,016 s (2026-12-06, Xeon 6/207; the 15 minutes):
    # 943 s of measuring in six passes, 374 s of it the warm-ups of the groups outside the
    # README under a JIT. CPython's JIT's waited at the 0.03 s floor (its values settle within
    # the calibration: 10 values take 0.01 s), PyPy's of the 1 MiB bytewise shapes and the
    # SHA-512 shapes past 16 KiB ran to the 1 s cap: 0.01 s and 0.5 s (the README's cases keep
    # 1 s) took 106 s off those passes, and the budget 200 s (760 s with the JDKs'). Two clones
    # then (same Xeon, quiet): 5 passes, 11.7 min of measuring each, ±3.0 % and ±2.7 % within
    # the run, 99.4 % of the README's inside the other's intervals; the second 764 s in all.
    "default": Settings(
        stretches=6, least=3, max_passes=48, min_time=0.001, budget=640.0, rounds=3,
        jit_warm=(0.03, 1.0), slow_limit=0.1, readme_rounds=8, promise=0.05,
        styles_budget=450.0, cpython_jit_least=0.01, others_jit_most=0.5, jdk_budget=60.0,
    ),
    "rigorous": Settings(
        stretches=8, least=5, max_passes=80, min_time=0.01, budget=3600.0, rounds=10,
        jit_warm=(1.0, 5.0), grid=Grid(get_max=1 << 20, block_max=16384), slow_limit=None,
        jdk_budget=450.0, readme_rounds=30, promise=0.035, min_passes=16,
    ),
}  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS), help="JMH's benchmarks")
    parser.add_argument("--lengths", default="", help="bytes, comma-separated")
    parser.add_argument("--pypy-lib", action="store_true", help="add PyPy's own modules' row")
    parser.add_argument("--effort", choices=sorted(EFFORTS), default="default")
    parser.add_argument("--mode", dest="effort", choices=sorted(EFFORTS), help=argparse.SUPPRESS)
    parser.add_argument("--stretches", type=int, help="override the effort's stretches")
    parser.add_argument("--least", type=int, help="override the passes every group takes")
    parser.add_argument("--budget", type=seconds, help="seconds of measuring in all (the ceiling)")
    parser.add_argument(
        "--promise",
        type=half_width,
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


def settings_of(options: Options, settle_modes: bool = False) -> Settings:
    """The effort's settings with the options' overrides (``settle_modes``: a study that waits
    for every mode, a styles file's: ``Settings.settle_modes``)."""
    settings = EFFORTS[options.effort]
    if options.stretches:
        settings = replace(settings, stretches=options.stretches)
    if options.least:
        settings = replace(settings, least=options.least)
    settings = replace(settings, max_passes=max(settings.least, settings.max_passes))
    if options.budget:
        settings = replace(settings, budget=options.budget, jdk_budget=0.0)
    if options.promise is not None:
        settings = replace(settings, promise=options.promise or None)
    if options.clock:
        settings = replace(settings, clock=options.clock)
    if settle_modes:
        settings = replace(settings, settle_modes=True, max_passes=3 * settings.max_passes)
        if settings.styles_budget and not options.budget:
            settings = replace(settings, budget=settings.styles_budget)
    if options.lengths:
        lengths = tuple(int(n) for n in options.lengths.split(","))
        settings = replace(settings, grid=replace(settings.grid, lengths=lengths))
    return settings
