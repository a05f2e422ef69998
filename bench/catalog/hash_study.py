"""The hash study: every variant of the registry, per algorithm, benchmark and length, under
every mode (``bench.catalog.cases``, ``bench.catalog.tables``): a ``bench.catalog.study.Study``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from . import tables
from .cases import BENCHMARKS, Grid
from .columns import Column, Layout
from .comparisons import Table
from .study import unavailable
from .tables import Headline
from .targets import ALGORITHMS

__all__ = ["ALGORITHMS", "HashStudy"]


@dataclass(frozen=True)
class HashStudy:
    """The hash study over a selection: which algorithms, variants, benchmarks and lengths."""

    algorithms: Tuple[str, ...] = ALGORITHMS
    #: Variant names or globs ("": every variant of each mode).
    variants: str = ""
    benchmarks: Tuple[str, ...] = BENCHMARKS
    grid: Grid = field(default_factory=Grid)
    #: Whether PyPy's own _md5, _sha1, _sha256 and _sha512 are a row.
    pypy_lib: bool = False
    counters: Tuple[str, ...] = ("instructions",)
    name: str = "bench"
    settle_modes: bool = False

    def listing(self, column: Column) -> Dict[str, Any]:
        chosen = column.mode.variants or self.variants
        return {
            "op": "list",
            "algorithms": list(self.algorithms),
            "grid": self.grid.as_json(),
            "variants": [p for p in chosen.split(",") if p],
            "benchmarks": list(self.benchmarks),
            "pypy_lib": self.pypy_lib,
            "references": not column.mode.variants,
        }

    def tables(self, lay: Layout) -> List[Table]:
        return tables.tables(lay)

    def headline(self, lay: Layout) -> Headline:
        return tables.headline(lay)

    def record(self, cannot_run: Mapping[str, str]) -> Dict[str, Any]:
        return {}  # the header's own fields say it all

    def cannot_run(self, columns: Sequence[Column]) -> Dict[str, str]:
        return unavailable(columns)

    @property
    def whole(self) -> bool:
        """Whether it is the whole study (every variant, algorithm and benchmark), so that a
        run of it may be kept (``bench.store.kept``) with the default lengths."""
        return (
            not self.variants and self.algorithms == ALGORITHMS and (self.benchmarks == BENCHMARKS)
        )
