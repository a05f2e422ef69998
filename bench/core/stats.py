"""The study's statistics: a case's time, ratios of times, and intervals that hold a rerun.

    Values = Mapping[Tuple[int, int], float]   # (process, round) -> seconds per operation
    Stretches = Mapping[int, int]              # process -> the stretch of the run it ran in
    time(values, stretches) -> Estimate        # a case's time, with its interval
    ratio(a, b, stretches) -> Optional[Estimate]   # time(a) / time(b); None: no common process
    Estimate.value, .low, .high                # the figure and its 95 % rerun interval
    Estimate.half_width                        # (high - low) / 2 / value: 0.03 is about ±3 %
    time_of(values) -> float                   # one process's time of a case: its fastest value

A ratio varies at three levels, as Kalibera and Jones's "Rigorous benchmarking in reasonable
time" puts them: between the rounds of one process, between processes (where a process's
memory lands, its hash seed, its core), and between stretches of time (the machine's load
and the host's state change over minutes). A process is one pass of the conductor (a fresh
worker per mode: JMH's forks), and each pass belongs to a stretch of the run's time.

*Within a process* a case's time is its fastest value: the values are already means over a
calibrated loop, and contention only ever slows them. A ratio is taken per process,
``log r_p = log time_of(a_p) - log time_of(b_p)``, both sides from the same process, the
values taken round by round in turn.

*Over the run* the figure is the winsorized mean of the log-ratios: a process further than
two robust standard deviations from the median is pulled in to that distance (on a shared
host a contention spell can cover all of one side's values in a process, and one such
process moved a whole run's figure by a few per cent). Its variance comes from the run
itself, from a one-way random-effects model of processes within stretches, of the
log-ratios as they are: the mean squares between and within the stretches give the stretch
component ``σ²_s`` (none when the stretches differ no more than their processes do) and the
process one ``σ²_p``; ``Var(mean) = σ²_s · Σn_s² / n² + σ²_p / n``, with Satterthwaite's
degrees of freedom, at most S - 1: a rerun is S new stretches, however alike this run's
were. The interval is that of a rerun with as many processes: ``exp(mean ± t(df) · sqrt(2 ·
Var(mean)))``, with a between-run term (``RUN_TERM``) added in quadrature, so that a second
run lands inside it 95 % of the time (``bench.report.stability`` checks exactly that share).
Times and ratios use the one estimator, so that a row's throughputs and its ratio agree
(exactly where no process is pulled in). With one process the interval is a bootstrap over
its rounds (scaled the same way, the same term added).
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

Values = Mapping[Tuple[int, int], float]
Stretches = Mapping[int, int]

RESAMPLES = 200
#: The between-run term, a relative half-width added in quadrature to every interval: what
#: two runs of one tree differ by beyond what either run's own spread says (a host's state
#: over an hour, which one run cannot see: its stretches agree). Measured with ``python -m
#: bench stability A B --floor X`` on consecutive default runs: none needed on an AMD Zen 4
#: (the README's ratios 98 % inside without it), 2.5 % on a Zen 2 to hold 95 % both ways.
RUN_TERM = 0.03
#: Student's t at 0.975 by degrees of freedom (1-30; then 1.96 + 2.4 / df, within 0.003).
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def t975(df: float) -> float:
    """Student's t quantile 0.975 for ``df`` >= 1 degrees of freedom (interpolated)."""
    if df >= len(_T975):
        return 1.96 + 2.4 / df
    low = max(1, math.floor(df))
    high = min(len(_T975), low + 1)
    share = min(1.0, max(0.0, df - low))
    return _T975[low - 1] + (_T975[high - 1] - _T975[low - 1]) * share


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile, linearly interpolated between order statistics."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def time_of(values: Sequence[float]) -> float:
    """A case's time in one process: its fastest value."""
    return min(values)


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95 % rerun interval, and what is behind it."""

    value: float
    low: float
    high: float
    n: int  # values behind it (the smaller side)
    processes: int = 1
    stretches: int = 1
    df: float = 0.0  # the interval's degrees of freedom (0: a bootstrap over one process)

    @property
    def half_width(self) -> float:
        """Half the interval's width relative to the value (0.03: about ±3 %)."""
        return (self.high - self.low) / 2 / self.value if self.value else math.inf

    def excludes(self, x: float) -> bool:
        """Whether ``x`` lies outside the interval (``excludes(1)``: a change, not noise)."""
        return not self.low <= x <= self.high

    def widened(self, floor: float) -> Estimate:
        """The interval with a term of ``floor`` (relative, like a half-width) added in
        quadrature on each side in log space: a between-run variance one run cannot see."""
        if self.low <= 0 or self.value <= 0:  # nothing measured to widen around
            return self
        below, above = math.log(self.value / self.low), math.log(self.high / self.value)
        low = self.value * math.exp(-math.hypot(below, floor))
        high = self.value * math.exp(math.hypot(above, floor))
        return Estimate(self.value, low, high, self.n, self.processes, self.stretches, self.df)


@dataclass(frozen=True)
class Components:
    """What a figure's per-process logarithms say of the levels: the variance between
    stretches and within them (between processes), the mean and its variance, the df."""

    mean: float
    between: float  # σ²_s
    within: float  # σ²_p
    variance: float  # Var(mean)
    df: float
    processes: int
    stretches: int


def components(logs: Sequence[float], groups: Sequence[int]) -> Components:
    """The random-effects model of ``logs`` (two or more), each of stretch ``groups[i]``."""
    k = len(logs)
    mean = statistics.fmean(logs)
    by: Dict[int, List[float]] = {}
    for x, g in zip(logs, groups):
        by.setdefault(g, []).append(x)
    s = len(by)
    pooled = statistics.variance(logs)
    if s < 2 or s == k:  # one stretch, or one process in each: nothing to tell them apart
        return Components(mean, 0.0, pooled, pooled / k, k - 1, k, s)
    sizes = [len(v) for v in by.values()]
    means = {g: statistics.fmean(v) for g, v in by.items()}
    within = sum((x - means[g]) ** 2 for g, v in by.items() for x in v) / (k - s)
    between = sum(len(v) * (means[g] - mean) ** 2 for g, v in by.items()) / (s - 1)
    n0 = (k - sum(n * n for n in sizes) / k) / (s - 1)
    stretch = max(0.0, (between - within) / n0)
    if stretch == 0.0:  # the stretches agree: every process counts
        return Components(mean, 0.0, pooled, pooled / k, k - 1, k, s)
    a = sum(n * n for n in sizes) / (k * k * n0)
    b = max(0.0, 1 / k - a)
    variance = a * between + b * within
    df = variance**2 / ((a * between) ** 2 / (s - 1) + (b * within) ** 2 / (k - s))
    return Components(mean, stretch, within, variance, df, k, s)


def by_process(values: Values) -> Dict[int, List[float]]:
    found: Dict[int, List[float]] = {}
    for (process, _), v in sorted(values.items()):
        found.setdefault(process, []).append(v)
    return found


#: A process's figure further than this many robust standard deviations (1.4826 MADs) from
#: the median of the run's is pulled in to that distance for the run's figure (winsorized).
PULL = 2.0


def winsorized(logs: Sequence[float], k: float = PULL) -> List[float]:
    """``logs`` with those further than ``k`` robust standard deviations from their median
    pulled in to that distance (none where half of them are equal)."""
    centre = statistics.median(logs)
    spread = 1.4826 * statistics.median(abs(x - centre) for x in logs)
    if spread == 0:
        return list(logs)
    low, high = centre - k * spread, centre + k * spread
    return [min(max(x, low), high) for x in logs]


def from_logs(
    logs: Sequence[float], groups: Sequence[int], n: int, term: float = RUN_TERM
) -> Estimate:
    """The run's figure of per-process logarithms: their winsorized mean (a process in which
    a side never met the machine's fast state is pulled in), with the rerun interval of the
    random-effects model of the logarithms as they are, on at most S - 1 degrees of freedom
    (a rerun is S new stretches, however alike this run's were), and ``term`` (the between-run
    term) added in quadrature."""
    c = components(logs, groups)
    df = min(c.df, c.stretches - 1) if c.stretches > 1 else c.df
    half = t975(df) * math.sqrt(2 * c.variance) if c.variance > 0 else 0.0
    mean = statistics.fmean(winsorized(logs))
    found = Estimate(
        math.exp(mean),
        math.exp(mean - half),
        math.exp(mean + half),
        n,
        c.processes,
        c.stretches,
        df,
    )
    return found.widened(term)


def time(values: Values, stretches: Optional[Stretches] = None) -> Estimate:
    """A case's time: the geometric mean of its per-process times (time_of)."""
    per = by_process(values)
    if len(per) == 1:
        (only,) = per.values()
        low, high = _bootstrap(values, {k: 1.0 for k in values})
        one = Estimate(time_of(only), low * time_of(only), high * time_of(only), len(only))
        return one.widened(RUN_TERM)
    groups = [(stretches or {}).get(p, 0) for p in per]
    return from_logs([math.log(time_of(v)) for v in per.values()], groups, len(values))


def ratio(
    a: Values, b: Values, stretches: Optional[Stretches] = None, term: float = RUN_TERM
) -> Optional[Estimate]:
    """time(a) / time(b), estimated per process (the processes both have); None if none.
    ``term``: the between-run term (0: the run's own interval, what the conductor's stopping
    rule looks at)."""
    pa, pb = by_process(a), by_process(b)
    common = sorted(set(pa) & set(pb))
    if not common:
        return None
    n = min(len(a), len(b))
    if len(common) == 1:
        p = common[0]
        value = time_of(pa[p]) / time_of(pb[p])
        low, high = _bootstrap(
            {k: v for k, v in a.items() if k[0] == p}, {k: v for k, v in b.items() if k[0] == p}
        )
        return Estimate(value, min(low, 1.0) * value, max(high, 1.0) * value, n).widened(term)
    logs = [math.log(time_of(pa[p]) / time_of(pb[p])) for p in common]
    return from_logs(logs, [(stretches or {}).get(p, 0) for p in common], n, term)


def _bootstrap(a: Values, b: Values) -> Tuple[float, float]:
    """One process: the rerun interval of time_of(a) / time_of(b) over its rounds, relative.

    The rounds are resampled with replacement, the same rounds for both sides
    (a fixed seed: the report is a function of the data); the 95 % interval is
    widened by sqrt(2) for a rerun, as across processes.
    """
    keys = sorted(set(a) | set(b))
    rng = random.Random(0)
    logs: List[float] = []
    for _ in range(RESAMPLES):
        chosen = [keys[rng.randrange(len(keys))] for _ in keys]
        xs = [a[k] for k in chosen if k in a]
        ys = [b[k] for k in chosen if k in b]
        if xs and ys:
            logs.append(math.log(time_of(xs) / time_of(ys)))
    if len(logs) < 2:
        return 1.0, 1.0
    centre = math.log(time_of(list(a.values())) / time_of(list(b.values())))
    low, high = quantile(logs, 0.025) - centre, quantile(logs, 0.975) - centre
    return math.exp(low * math.sqrt(2)), math.exp(high * math.sqrt(2))


#: A ratio's three verdicts (``verdict``).
SAME, SLOWER, FASTER = "no difference", "slower", "faster"


def verdict(value: float, low: float, high: float) -> str:
    """The one rule of a time ratio's verdict, on every page and in stability: ``SAME`` where its
    95% interval holds 1 (an exact count, low = high, never does), else ``SLOWER`` (above 1:
    the numerator takes longer) or ``FASTER``."""
    if low <= 1 <= high and low != high:
        return SAME
    return SLOWER if value >= 1 else FASTER


def median_half(widths: Sequence[float]) -> float:
    """The median of ratios' relative half-widths (nan for none): how far a table, a run or
    the README is to be trusted, in the report and in stability alike."""
    return statistics.median(widths) if widths else math.nan
