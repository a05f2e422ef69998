"""The study's statistics: a case's time, ratios of times, and how far to trust them.

The API the report reads (small and stable; standard library only)::

    Values = Mapping[Tuple[int, int], float]   # (process, round) -> seconds per operation
    time(values: Values) -> Estimate            # a case's time, with its interval
    ratio(a: Values, b: Values) -> Optional[Estimate]   # time(a) / time(b); None if a side is empty
    Estimate.value, .low, .high                 # the figure and its 95 % rerun interval
    Estimate.half_width -> float                # (high - low) / 2 / value: 0.03 is about ±3 %
    Estimate.settled -> bool                    # MIN_PROCESSES processes and half_width <= TARGET
    Estimate.processes, Estimate.n              # worker processes and values (the smaller side)
    Estimate.widened(floor) -> Estimate         # a between-run term added (bench.stability --floor)
    TARGET = 0.03                               # the half-width the default run measures down to
    time_of(values: Sequence[float]) -> float   # the fastest value (one process's time of a case)

``process`` is the study's pass: each pass starts a fresh worker process per
mode (JMH's forks), and the values of one pass of every mode were taken in the
same stretch of time, so a ratio across modes pairs them by pass.

*Within a process*, a case's time is its fastest value (the values are
already means over a calibrated loop): on a shared machine a third or more of
the values run slow (interpreted code by 1.3-1.5x, C code barely), often more
than a quarter of a process's eight, so a lower quartile or a median lands in
the contended state now and then and the uncontended one at other times. On the
two default runs 20261201-114041 and 20261201-115157 (3,161 ratios, 4 processes
each) the per-process log-ratios spread by 9.9 % with lower quartiles, 11.5 %
with medians and 4.4 % with minima; recomputed with minima, 91.7 % of the two
runs' ratios agreed within 10 % instead of 75.1 % (docs/study.md).

*Across processes* the time moves again (where the process's memory lands,
its hash seed, which core it gets: see docs/study.md), and a rerun of the
study sees that variance too. So a ratio is estimated per process, r_p =
time_of(a_p) / time_of(b_p), and the figure is their geometric mean over the
k processes; its interval is the 95 % interval *of a rerun*: with s the
standard deviation of log r_p, ``exp(±t(k-1) · s · sqrt(2 / k))``, so that a
second run with as many processes lands inside it 95 % of the time (a plain
confidence interval of the mean would hold a rerun's figure only 83-91 % of
the time). ``bench.stability`` checks exactly that share. From five processes
on, a process further than CLIP robust standard deviations from the median of
the others (one that ran contended for all of its values: its fastest value
is a contended value) is pulled in to that bound first, so that one bad process
can neither decide a ratio nor blow its interval up; with normal spread this
changes nothing. With one process
there is no process-to-process variance to see: the interval is a bootstrap
over the rounds (scaled the same way) and the estimate is never settled.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

Values = Mapping[Tuple[int, int], float]

#: Which quantile of a process's values is a case's time there (0: the fastest).
LOW = 0.0
#: The half-width (relative) of a settled ratio's interval, and the fewest
#: processes behind one: with two, the interval is a guess about the spread.
TARGET = 0.03
MIN_PROCESSES = 3
RESAMPLES = 200
#: A process further than this many robust standard deviations from the others' median
#: is pulled in to that bound (one that ran contended for most of its values).
CLIP = 3.0
#: Student's t at 0.975 by degrees of freedom (1-30; then 1.96 + 2.4 / df, within 0.003).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """Student's t quantile 0.975 for ``df`` >= 1 degrees of freedom."""
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile, linearly interpolated between order statistics."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def time_of(values: Sequence[float]) -> float:
    """A case's time in one process: its fastest value (the LOW quantile)."""
    return quantile(values, LOW)


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95 % rerun interval, and what is behind it."""

    value: float
    low: float
    high: float
    n: int
    processes: int = 1

    @property
    def half_width(self) -> float:
        """Half the interval's width relative to the value (0.03: about ±3 %)."""
        return (self.high - self.low) / 2 / self.value if self.value else math.inf

    @property
    def settled(self) -> bool:
        return self.processes >= MIN_PROCESSES and self.half_width <= TARGET

    def widened(self, floor: float) -> Estimate:
        """The interval with a term of ``floor`` (relative, like a half-width) added in
        quadrature on each side in log space: a between-run variance one run cannot see."""
        below, above = math.log(self.value / self.low), math.log(self.high / self.value)
        low = self.value * math.exp(-math.hypot(below, floor))
        return Estimate(self.value, low, self.value * math.exp(math.hypot(above, floor)),
                        self.n, self.processes)  # fmt: skip

    def inverted(self) -> Estimate:
        return Estimate(1 / self.value, 1 / self.high, 1 / self.low, self.n, self.processes)

    def as_json(self) -> Dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n,
                "processes": self.processes}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, float]) -> Estimate:
        return cls(float(data["value"]), float(data["low"]), float(data["high"]),
                   int(data["n"]), int(data.get("processes", 1)))  # fmt: skip


def by_process(values: Values) -> Dict[int, List[float]]:
    found: Dict[int, List[float]] = {}
    for (process, _), v in sorted(values.items()):
        found.setdefault(process, []).append(v)
    return found


def winsorized(logs: Sequence[float]) -> List[float]:
    """From 5 processes on, each pulled in to within CLIP robust standard deviations
    (1.4826 median absolute deviations) of their median."""
    if len(logs) < 5:
        return list(logs)
    centre = statistics.median(logs)
    bound = CLIP * 1.4826 * statistics.median(abs(x - centre) for x in logs)
    return [min(max(x, centre - bound), centre + bound) for x in logs] if bound else list(logs)


def spread_interval(logs: Sequence[float]) -> Tuple[float, float]:
    """(mean, rerun half-width) in log space of per-process log figures (k >= 2), winsorized."""
    k = len(logs)
    kept = winsorized(logs)
    return statistics.fmean(kept), t975(k - 1) * statistics.stdev(kept) * math.sqrt(2 / k)


def _estimate(logs: Sequence[float], n: int) -> Estimate:
    mean, half = spread_interval(logs)
    return Estimate(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n, len(logs))


def time(values: Values) -> Estimate:
    """A case's time: the geometric mean of its per-process times (time_of)."""
    per = by_process(values)
    if len(per) == 1:
        (only,) = per.values()
        low, high = _bootstrap(values, {k: 1.0 for k in values})
        return Estimate(time_of(only), low * time_of(only), high * time_of(only), len(only))
    return _estimate([math.log(time_of(v)) for v in per.values()], len(values))


def ratio(a: Values, b: Values) -> Optional[Estimate]:
    """time(a) / time(b), estimated per process (the processes both have); None if none."""
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
        return Estimate(value, min(low, 1.0) * value, max(high, 1.0) * value, n)
    logs = [math.log(time_of(pa[p]) / time_of(pb[p])) for p in common]
    return _estimate(logs, n)


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
