"""The study's one list of the ratios that matter: every table, row and column, each cell's cases.

A cell of a table is a ratio of two cases' times (``Cell.a`` over ``Cell.b``, each a
``(mode label, case name)``), a throughput of one case (the seeds' ops/ms) or a ratio of
instruction counts. ``bench.catalog.tables`` says every table of the report in its order in
these words; the conductor measures what they need (the README's first), the report computes
and shows them (``bench.report``) and ``bench.report.stability`` compares two runs' cells, by table,
row and column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple, TypeVar

from ..core.fmt import size_label
from .cases import Case
from .columns import FOLDS, Layout, Member
from .targets import HASHLIB

R = TypeVar("R")
C = TypeVar("C")
#: The baseline shape (PyPy's _md5, the JDK before streamlining) and the JDK's rewrite.
TEXTBOOK, STREAMLINED = "helpers", "streamlined"
LONG = 16384
SEED_LENGTHS = (64, 1024, 16384)
FASTEST = "fastest pure Python"
#: The builds with no interpreted source of their own: the typed Cython variant, the drop-in.
BUILT = ("cython", "native")
#: The JDK's own digest (bench/jdk), its reference row; the roles of its Server and
#: intrinsics-off modes (bench.catalog.modes).
REFERENCE, COMPILED_ROLE, INTRINSICS_ROLE = "MessageDigest", "Server", "intrinsics off"


@dataclass(frozen=True)
class Cell:
    """What one cell shows: a ratio of times (a ÷ b), a throughput (a), a ratio of counts."""

    a: Member
    b: Optional[Member] = None
    kind: str = "ratio"  # "ratio" | "ops" | "count"
    took: str = ""  # the variant a derived row took in this column


@dataclass(frozen=True)
class Row:
    labels: Tuple[str, ...]
    cells: Tuple[Optional[Cell], ...]


@dataclass(frozen=True)
class Table:
    """One of the study's answers: rows of cells under columns, and what they mean."""

    key: str
    title: str
    meaning: str
    header: Tuple[str, ...]
    columns: Tuple[str, ...]
    rows: Tuple[Row, ...]
    #: Whether its ratios count in stability and trust (not when another table has them).
    counted: bool = True
    #: Whether the README shows it (the conductor measures its cases most).
    readme: bool = False


@dataclass(frozen=True)
class Subject:
    """What a row measures in each column: a variant, a variant of a folded mode, or the fastest."""

    label: str
    variant: str = ""  # "": the fastest pure Python of each column
    fold: str = ""  # the folded mode's suffix ("portable"), "": the column's own mode


#: (numerator, denominator, algorithm, benchmark, length, messages): a cell's two cases.
Pair = Tuple[Subject, Subject, str, str, int, int]


def pick(
    lay: Layout, s: Subject, column: str, bench: str, alg: str, n: int, number: int = 1
) -> Optional[Member]:
    mode = lay.folds(column).get(s.fold) if s.fold else column
    variant = s.variant or lay.fastest(column, alg, lay.length(LONG))
    return lay.get(mode, bench, alg, variant, n, number) if mode and variant else None


def ratio(a: Optional[Member], b: Optional[Member], took: str = "") -> Optional[Cell]:
    return Cell(a, b, took=took) if a and b else None


def pair_cell(lay: Layout) -> Callable[[Pair, str], Optional[Cell]]:
    """time(numerator) ÷ time(denominator) in a column; a derived side names what it took."""

    def cell(p: Pair, column: str) -> Optional[Cell]:
        top, bottom, alg, bench, n, number = p
        a, b = (pick(lay, s, column, bench, alg, n, number) for s in (top, bottom))
        if b is None and bottom.fold:  # a folded mode without a hashlib of its own
            b = pick(lay, Subject(bottom.label, bottom.variant), column, bench, alg, n, number)
        took = next(
            (Case.parse(m[1]).variant for s, m in ((top, a), (bottom, b)) if m and not s.variant),
            "",
        )
        return ratio(a, b, took)

    return cell


def table(
    key: str,
    title: str,
    meaning: str,
    header: Sequence[str],
    rows: Sequence[Tuple[Sequence[str], R]],
    columns: Sequence[Tuple[str, C]],
    cell: Callable[[R, C], Optional[Cell]],
    counted: bool = True,
    readme: bool = False,
) -> Table:
    """The one table builder: ``cell(row, column)`` for every row and column, empty rows out."""
    built = []
    for labels, payload in rows:
        cells = tuple(cell(payload, c) for _, c in columns)
        if any(c is not None for c in cells):
            built.append(Row(tuple(labels), cells))
    return Table(
        key,
        title,
        meaning,
        tuple(header),
        tuple(t for t, _ in columns),
        tuple(built),
        counted,
        readme,
    )


def subjects(lay: Layout, fastest: bool = True) -> List[Subject]:
    """A row per variant, a row per variant of a folded mode, and the fastest pure Python."""
    found = [Subject(v, v) for v in lay.order]
    for column in lay.columns:
        for suffix, mode in lay.folds(column).items():
            for v in dict.fromkeys(c.variant for m, c in lay.cases if m == mode):
                s = Subject(f"{v} ({FOLDS[suffix]})", v, suffix)
                if v != HASHLIB and s not in found:
                    found.append(s)
    return found + ([Subject(FASTEST)] if fastest and lay.interpreted() else [])


def benches(lay: Layout) -> List[Tuple[str, str, int]]:
    """(title, benchmark, length) of the style tables' rows: digest to 16 KiB, block."""
    found = [(f"digest {size_label(n)}", "digest", n) for n in lay.lengths() if n <= LONG]
    return found + [(f"block {size_label(n)}", "block", n) for n in lay.lengths("block")]


def modes(lay: Layout) -> List[Tuple[str, str]]:
    return [(c, c) for c in lay.columns]


def bridges(lay: Layout) -> List[Subject]:
    """The rows that are one call into C: references, native bridges, typed Cython."""
    kinds = ("reference", "native")
    return [
        s
        for s in subjects(lay, fastest=False)
        if lay.kind(s.variant) in kinds
        or (lay.kind(s.variant) == "compiled" and not lay.twin(s.variant))
    ]


def readme_pairs(found: Sequence[Table]) -> List[Tuple[Member, Member]]:
    """The ratios the README shows, each (numerator, denominator), once."""
    pairs = [
        (c.a, c.b)
        for t in found
        if t.readme
        for r in t.rows
        for c in r.cells
        if c is not None and c.kind == "ratio" and c.b is not None
    ]
    return list(dict.fromkeys(pairs))


def readme_members(found: Sequence[Table]) -> set[Member]:
    """The cases of the ratios the README shows."""
    return {m for pair in readme_pairs(found) for m in pair}
