"""A styles file's study (``python -m bench styles FILE``): each style of a user's file against
its baseline, size by size, under every mode found: a ``bench.catalog.study.Study``.

Its cases are ``bench.catalog.styles.StyleCase``s (a style at a size), which the store keeps
as every case is kept and ``StyleCase.of`` reads back. Its one table (``TABLE``) is each style
÷ the baseline; its ratios are the run's headline, and the stopping rule waits for every
mode's (``settle_modes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .cases import STYLES
from .columns import Column, Layout
from .comparisons import Cell, Table, modes, ratio, table
from .study import headline_of, unavailable
from .styles import StyleCase, StylesFile
from .tables import Headline

#: The id of a styles file's table (not the hash study's ``styles``, helpers ÷ streamlined).
TABLE = "styles-file"
#: The compilers of a file's compiled twins (``bench.conduct.twins`` builds them), and what
#: joins a mode's label and a compiler's in a twin's mode label ("3.12+mypyc").
COMPILERS = ("mypyc", "cython")
JOIN = "+"


def label_of(mode: str, compiler: str) -> str:
    return f"{mode}{JOIN}{compiler}"


def compiler_of(label: str) -> Optional[str]:
    """The compiler of a twin's mode label ("3.12+mypyc": mypyc), None for a plain mode."""
    head, _, tail = label.rpartition(JOIN)
    return tail if head and tail in COMPILERS else None


@dataclass(frozen=True)
class StylesStudy:
    """A styles file, as the runs of it know it (without importing it: its record)."""

    file: Path
    title: str
    #: Its styles' names, the baseline first, and its sizes ((): this process could not import
    #: the file; the workers' interpreters may).
    styles: Tuple[str, ...] = ()
    sizes: Tuple[int, ...] = ()
    #: How results are compared ("EQUAL": the file's, "==": its absence), and the sizes whose
    #: every call gets fresh inputs (``FRESH``).
    equal: str = "=="
    fresh: Tuple[int, ...] = ()
    #: The compiled twins' files by mode (``bench.conduct.twins``), and those not built, each
    #: with why (None: no ``--compile``).
    twins: Optional[Mapping[str, str]] = None
    not_built: Mapping[str, str] = field(default_factory=dict)
    counters: Tuple[str, ...] = ("bytecode", "style-instructions")
    name: str = "styles"
    settle_modes: bool = True

    @property
    def stem(self) -> str:
        return self.file.stem

    @property
    def baseline(self) -> str:
        return self.styles[0] if self.styles else ""

    @classmethod
    def of_file(cls, path: Path, found: Optional[StylesFile]) -> StylesStudy:
        """The study of the file at ``path`` (``found``: it loaded here, None where not)."""
        path = path.resolve()
        if found is None:
            return cls(path, path.stem)
        equal = "EQUAL" if found.equal is not None else "=="
        fresh = tuple(n for n in found.sizes if found.fresh_at(n))
        return cls(path, found.title, found.names, found.sizes, equal, fresh)

    @classmethod
    def of_record(cls, record: Mapping[str, Any]) -> StylesStudy:
        """The study a run's header recorded (``record``)."""
        file = Path(str(record.get("file") or "styles"))
        twins = record.get("twins")
        return cls(
            file,
            str(record.get("title") or record.get("stem") or "styles"),
            tuple(record.get("styles") or ()),
            tuple(record.get("sizes") or ()),
            str(record.get("equal") or "=="),
            tuple(record.get("fresh") or ()),
            dict(twins) if twins is not None else None,
            dict(record.get("not_built") or {}),
        )

    def listing(self, column: Column) -> Dict[str, Any]:
        twin = (self.twins or {}).get(column.label)
        return {"op": "list", "styles": str(twin or self.file)}

    def tables(self, lay: Layout) -> List[Table]:
        return [t for t in (file_table(lay),) if t.rows]

    def headline(self, lay: Layout) -> Headline:
        return headline_of(file_table(lay))

    def record(self, cannot_run: Mapping[str, str]) -> Dict[str, Any]:
        found: Dict[str, Any] = {
            "file": str(self.file),
            "title": self.title,
            "stem": self.stem,
            "styles": list(self.styles),
            "sizes": list(self.sizes),
            "equal": self.equal,
            "fresh": list(self.fresh),
        }
        if self.twins is not None:
            found.update(twins=dict(self.twins), not_built=dict(self.not_built))
        return {**found, "cannot_run": dict(cannot_run)}

    def cannot_run(self, columns: Sequence[Column]) -> Dict[str, str]:
        return unavailable(columns)


def file_table(lay: Layout) -> Table:
    """A styles file's answer: each style ÷ the baseline (the file's first style), size by size,
    per mode. Its ratios are the run's headline: the conductor measures them first and its
    stopping rule looks at them."""
    cases = [StyleCase.of(c) for _, c in lay.cases if c.benchmark == STYLES]
    stem = cases[0].stem if cases else ""
    baseline = lay.order[0] if lay.order else ""
    sizes = sorted({c.size for c in cases})
    rows = [([v, str(n)], (v, n)) for v in lay.order[1:] for n in sizes]

    def cell(r: Tuple[str, int], column: str) -> Optional[Cell]:
        v, n = r
        return ratio(
            lay.get(column, STYLES, stem, v, n), lay.get(column, STYLES, stem, baseline, n)
        )

    return table(
        TABLE,
        f"Each style against the baseline, {baseline}, per mode",
        f"time of the style ÷ time of {baseline}, same mode and size (>1: the style is slower)",
        ["style", "size"],
        rows,
        modes(lay),
        cell,
        readme=True,
    )
