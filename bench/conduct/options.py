"""A measuring command's options, typed (``Options``): what ``python -m bench run|quick|styles``
and the profilers read, made once from the command line by ``bench.__main__`` (``of``).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from ..catalog.cases import BENCHMARKS
from ..catalog.hash_study import ALGORITHMS
from ..store import RESULTS


@dataclass(frozen=True)
class Options:
    """Which runtimes and modes, what to measure, how hard, and what to do after."""

    #: ``--python LABEL=PATH`` (repeated) and ``--pythons FILE``: the interpreters' programs
    #: (``bench.conduct.launch.programs_of``); none: the running interpreter.
    python: Tuple[str, ...] = ()
    pythons: Optional[Path] = None
    #: Modes (labels or globs), variants (names or globs): "" for all found.
    modes: str = ""
    variants: str = ""
    algorithms: str = ",".join(ALGORITHMS)
    benchmarks: str = ",".join(BENCHMARKS)
    lengths: str = ""  # bytes, comma-separated ("": the effort's)
    pypy_lib: bool = False
    results: Path = RESULTS
    #: The effort (``bench.conduct.effort.EFFORTS``) and its overrides (None: the effort's).
    effort: str = "default"
    stretches: Optional[int] = None
    least: Optional[int] = None
    budget: Optional[float] = None
    promise: Optional[float] = None
    clock: Optional[str] = None
    #: After measuring: no report, no counts, counts not reused from the cache, no picture.
    no_report: bool = False
    no_count: bool = False
    recount: bool = False
    no_plots: bool = False
    #: A styles run's: the file, and the compilers of its twins ("mypyc,cython").
    file: Optional[Path] = None
    compile: str = ""
    #: What a run prints at its end: its report (md), summary (json) or ratios (csv).
    format: str = "md"

    @classmethod
    def of(cls, parsed: argparse.Namespace) -> Options:
        """The options a command line parsed to (those it has; the rest their defaults)."""
        given = vars(parsed)
        found: Dict[str, Any] = {f.name: given[f.name] for f in fields(cls) if f.name in given}
        if "python" in found:
            found["python"] = tuple(found["python"] or ())
        return cls(**found)

    @property
    def algorithm_names(self) -> Tuple[str, ...]:
        return tuple(a for a in self.algorithms.split(",") if a)

    @property
    def benchmark_names(self) -> Tuple[str, ...]:
        return tuple(b for b in self.benchmarks.split(",") if b)


# --- what the command line's values must be ---------------------------------------------------


def seconds(text: str) -> float:
    """``--budget``: a number of seconds above 0 (argparse says so in one line otherwise)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds above 0 (e.g. 60)")
    return value


def half_width(text: str) -> float:
    """``--promise``: a median half-width, 0 or more (0.05: ±5%; 0: the whole budget)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a half-width of 0 or more (0.05 for ±5%; 0: the whole budget)"
        )
    return value
