"""The report's one table type and its one builder: rows against columns, a cell each.

A cell is a ratio of two times with its 95% interval (marked † where
``bench.stats`` does not call it settled, with callgrind's ratio beside it
when there is one), an exact ratio of counts, or a throughput in ops/ms (the
JDK's score). Tables render as Markdown and as JSON records for
``bench.stability``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar

from bench.fmt import DASH, interval, ratio, table

NOT_SETTLED = "†"
R = TypeVar("R")
C = TypeVar("C")


@dataclass(frozen=True)
class Cell:
    """A ratio of times with its interval ("ratio"), an exact count ratio, or ops/ms ("ops")."""

    value: float
    low: float
    high: float
    settled: bool = True
    n: int = 0  # values behind it (the smaller side)
    processes: int = 0  # worker processes behind it
    kind: str = "ratio"
    took: str = ""  # a derived row's variant in this column
    instructions: float = math.nan  # callgrind's ratio, beside a time that did not settle

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2 / self.value if self.value else math.inf

    def text(self) -> str:
        if self.kind == "ops":
            return f"{self.value:.4g}"
        shown = ratio(self.value)
        if self.kind == "ratio" and self.low != self.high:
            shown += f" ({interval(self.low, self.high)})"
        if not self.settled:
            shown += NOT_SETTLED
            if math.isfinite(self.instructions):
                shown += f" [{ratio(self.instructions)} instr.]"
        return shown

    def as_json(self) -> Dict[str, Any]:
        keys = ("value", "low", "high", "settled", "n", "processes")
        data: Dict[str, Any] = {k: getattr(self, k) for k in keys}
        data.update(kind=self.kind, took=self.took, half_width=self.half_width)
        data["instructions"] = self.instructions if math.isfinite(self.instructions) else None
        return data


def count(value: float) -> Optional[Cell]:
    return Cell(value, value, value, kind="count") if math.isfinite(value) else None


@dataclass(frozen=True)
class Row:
    labels: Tuple[str, ...]
    cells: Tuple[Optional[Cell], ...]
    note: str = ""


@dataclass(frozen=True)
class RatioTable:
    """One of the study's answers: rows of cells under columns, and what they mean."""

    key: str
    title: str
    meaning: str
    header: Tuple[str, ...]
    columns: Tuple[str, ...]
    rows: Tuple[Row, ...]
    #: Whether its ratios count in stability and trust (not when another table has them).
    counted: bool = True

    def ratios(self) -> List[Cell]:
        return [c for r in self.rows for c in r.cells if c is not None and c.kind == "ratio"]

    def markdown(self, keep: Callable[[Row], bool] = lambda row: True) -> str:
        notes = any(r.note for r in self.rows)
        header = [*self.header, *self.columns, *(["note"] if notes else [])]
        body = [
            [*r.labels, *(c.text() if c else DASH for c in r.cells), *([r.note] if notes else [])]
            for r in self.rows
            if keep(r)
        ]
        return table([header, *body], "l" * len(self.header) + "r" * len(self.columns) + "l")

    def as_json(self) -> Dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "meaning": self.meaning,
            "header": self.header,
            "columns": self.columns,
            "rows": [
                {"labels": r.labels, "cells": [c.as_json() if c else None for c in r.cells]}
                for r in self.rows
            ],
        }

    def records(self) -> List[Dict[str, Any]]:
        """Every ratio by table, row labels and column (what bench.stability compares)."""
        return [
            {"table": self.key, "row": list(r.labels), "column": col, **c.as_json()}
            for r in self.rows
            for col, c in zip(self.columns, r.cells)
            if c is not None and c.kind == "ratio"
        ]


def ratio_table(
    key: str,
    title: str,
    meaning: str,
    header: Sequence[str],
    rows: Iterable[Tuple[Sequence[str], R]],
    columns: Sequence[Tuple[str, C]],
    cell: Callable[[R, C], Optional[Cell]],
    counted: bool = True,
) -> RatioTable:
    """The one table builder: ``cell(row, column)`` for every row and column, empty rows left out.

    A row whose cells took a variant each (the fastest pure Python) says which, where.
    """
    built = []
    for labels, payload in rows:
        cells = tuple(cell(payload, c) for _, c in columns)
        took: Dict[str, List[str]] = {}
        for (title_, _), c in zip(columns, cells):
            if c and c.took:
                took.setdefault(c.took, []).append(title_)
        note = "; ".join(f"{v} ({', '.join(cols)})" for v, cols in took.items())
        if any(c is not None for c in cells):
            built.append(Row(tuple(labels), cells, note))
    return RatioTable(
        key, title, meaning, tuple(header), tuple(t for t, _ in columns), tuple(built), counted
    )
