"""The report's tables: the comparison spec's cells computed from a run, and rendered.

A figure is a ratio of two times with its 95% rerun interval (``bench.core.stats``), shown
``value (low-high)``; a ratio of instruction counts (callgrind: exact); or a throughput in
ops/ms (the JDK's score) from the same estimate as the ratios. Tables render as Markdown and
as JSON records (``summary.json``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..catalog import comparisons
from ..catalog.comparisons import Cell
from ..core import stats
from ..core.fmt import grid, interval, ratio
from ..store import Run


@dataclass(frozen=True)
class Ratio:
    """A ratio of times with its interval ("ratio"), an exact count ratio, or ops/ms ("ops")."""

    value: float
    low: float
    high: float
    n: int = 0  # values behind it (the smaller side)
    processes: int = 0  # worker processes behind it
    kind: str = "ratio"
    took: str = ""  # a derived row's variant in this column

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2 / self.value if self.value else math.inf

    @property
    def estimate(self) -> stats.Estimate:
        return stats.Estimate(self.value, self.low, self.high, self.n, self.processes)

    def text(self) -> str:
        if self.kind == "ops":
            return f"{self.value:.4g}"
        shown = ratio(self.value)
        if self.kind == "ratio" and self.low != self.high:
            shown += f" ({interval(self.low, self.high)})"
        return shown

    def as_json(self) -> Dict[str, Any]:
        keys = ("value", "low", "high", "n", "processes", "kind", "took", "half_width")
        return {k: getattr(self, k) for k in keys}


def figure(run: Run, cell: Cell) -> Optional[Ratio]:
    """A cell of the spec computed from the run (None where its cases share no process)."""
    a = run.measured[cell.a]
    if cell.kind == "ops":
        ops = 1e-3 / a.time
        return Ratio(ops, 1e-3 / a.estimate.high, 1e-3 / a.estimate.low, kind="ops")
    assert cell.b is not None
    if cell.kind == "count":
        value = run.instructions(cell.a, cell.b)
        return Ratio(value, value, value, kind="count") if math.isfinite(value) else None
    b = run.measured[cell.b]
    r = stats.ratio(a.values, b.values, {**b.stretches, **a.stretches})
    if r is None:
        return None
    return Ratio(r.value, r.low, r.high, r.n, r.processes, took=cell.took)


@dataclass(frozen=True)
class Row:
    labels: Tuple[str, ...]
    cells: Tuple[Optional[Ratio], ...]
    note: str = ""


@dataclass(frozen=True)
class Shown:
    """A table of the spec with its figures."""

    spec: comparisons.Table
    rows: Tuple[Row, ...]

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def meaning(self) -> str:
        return self.spec.meaning

    @property
    def columns(self) -> Tuple[str, ...]:
        return self.spec.columns

    def ratios(self) -> List[Ratio]:
        return [c for r in self.rows for c in r.cells if c is not None and c.kind == "ratio"]

    def at(self, labels: Tuple[str, ...], column: str) -> Optional[Ratio]:
        """The figure of the first row whose labels start with ``labels``, in ``column``."""
        if column not in self.columns:
            return None
        row = next((r for r in self.rows if r.labels[: len(labels)] == labels), None)
        return row.cells[self.columns.index(column)] if row else None

    def markdown(self, keep: Callable[[Row], bool] = lambda row: True) -> str:
        notes = any(r.note for r in self.rows)
        header = [*self.spec.header, *self.columns, *(["note"] if notes else [])]
        body = [
            [*r.labels, *(c.text() if c else None for c in r.cells), *([r.note] * notes)]
            for r in self.rows
            if keep(r)
        ]
        return grid(header, body, len(self.spec.header), int(notes))

    def as_json(self) -> Dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "meaning": self.meaning,
            "header": self.spec.header,
            "columns": self.columns,
            "rows": [
                {"labels": r.labels, "cells": [c.as_json() if c else None for c in r.cells]}
                for r in self.rows
            ],
        }

    def records(self) -> List[Dict[str, Any]]:
        """Every ratio by table, row labels and column."""
        return [
            {"table": self.key, "row": list(r.labels), "column": col, **c.as_json()}
            for r in self.rows
            for col, c in zip(self.columns, r.cells)
            if c is not None and c.kind == "ratio"
        ]


def shown(run: Run, spec: comparisons.Table) -> Shown:
    """The spec's table with its figures; a row or a column with none left out, a derived
    row's picks noted."""
    computed = [tuple(figure(run, c) if c else None for c in row.cells) for row in spec.rows]
    keep = [i for i in range(len(spec.columns)) if any(cs[i] for cs in computed)]
    kept = tuple(replace(r, cells=tuple(r.cells[i] for i in keep)) for r in spec.rows)
    spec = replace(spec, columns=tuple(spec.columns[i] for i in keep), rows=kept)
    rows = []
    for row, every in zip(spec.rows, computed):
        cells = tuple(every[i] for i in keep)
        took: Dict[str, List[str]] = {}
        for title, c in zip(spec.columns, cells):
            if c and c.took:
                took.setdefault(c.took, []).append(title)
        note = "; ".join(f"{v} ({', '.join(cols)})" for v, cols in took.items())
        if any(c is not None for c in cells):
            rows.append(Row(row.labels, cells, note))
    return Shown(spec, tuple(rows))


def build(run: Run) -> List[Shown]:
    """Every table of the run, in the spec's order."""
    return [t for t in (shown(run, s) for s in run.study.tables(run.layout)) if t.rows]
