"""The study's statistics: a case's time, ratios of times, and how far to trust them.

A case's time is the *lower quartile* of its values (seconds per operation),
not their median. On this shared machine other processes compete for the
caches: a third or more of the values run slow, interpreted code by 1.3x to
1.5x and C code barely, so the median of a case moves with the load (up to
the slow state itself when half the values are slow) and a ratio of C against
Python code with it. The lower quartile stays in the uncontended state while
at least a quarter of the values are, so it moves little from one run to the
next. The values of the cases compared were interleaved, one value of each in
turn per round (and every interpreter in turn), so both quartiles come from
the same stretch of time.

A ratio's interval is a 95% bootstrap interval: the rounds are resampled with
replacement, the same rounds for both sides, and the ratio recomputed (a fixed
seed: the report is a function of the data). Standard library only.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Dict, Hashable, List, Mapping, Optional, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)

#: Which quantile of its values is a case's time.
LOW = 0.25
RESAMPLES = 200


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile, linearly interpolated between order statistics."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def time_of(values: Sequence[float]) -> float:
    """A case's time: the lower quartile of its values (see the module's docstring)."""
    return quantile(values, LOW)


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% interval and the number of values (rounds) behind it."""

    value: float
    low: float
    high: float
    n: int

    @property
    def spread(self) -> float:
        """Half the interval's width relative to the value (0.03: about ±3%)."""
        return (self.high - self.low) / 2 / self.value if self.value else math.inf

    def inverted(self) -> Estimate:
        return Estimate(1 / self.value, 1 / self.high, 1 / self.low, self.n)

    def as_json(self) -> Dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}

    @classmethod
    def from_json(cls, data: Mapping[str, float]) -> Estimate:
        return cls(float(data["value"]), float(data["low"]), float(data["high"]), int(data["n"]))


def ratio(
    a: Mapping[K, float], b: Mapping[K, float], resamples: int = RESAMPLES
) -> Optional[Estimate]:
    """time_of(a) / time_of(b), values keyed by round, with a bootstrap interval over rounds.

    None if either side has no values.
    """
    if not a or not b:
        return None
    value = time_of(list(a.values())) / time_of(list(b.values()))
    keys = sorted(set(a) | set(b), key=repr)
    rng = random.Random(0)
    draws: List[float] = []
    for _ in range(resamples):
        chosen = [keys[rng.randrange(len(keys))] for _ in keys]
        xs = [a[k] for k in chosen if k in a]
        ys = [b[k] for k in chosen if k in b]
        if xs and ys:
            draws.append(time_of(xs) / time_of(ys))
    low, high = (quantile(draws, 0.025), quantile(draws, 0.975)) if draws else (value, value)
    return Estimate(value, min(low, value), max(high, value), min(len(a), len(b)))
