"""The report's answers: its tables, the words generated from them, and how far to trust them.

The seeds' verdicts put each mode in one of four classes by its helpers ÷
streamlined ratio at 16 KiB: like the JDK's ``-Xint`` (streamlining pays at
least ``XINT`` times; the JDK measured 4.4x), in between, like the JDK's
compilers (style changes the time by less than ``ALIKE``), or reversed. Each
verdict says what it rests on: the time ratio where it settled, else
callgrind's ratio of machine instructions (deterministic) where the
``nox -s bytecode`` run counted both, else the unsettled time, said so.

The trust figures are those of issue 17's targets: the share of ratios
settled (at least 90%) and their median interval half-width (at most 5%),
per table and in all, with the steal time the run saw.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench import report, stability
from bench.fmt import interval, ratio, size_label
from bench.results import Run
from bench.table import Cell, RatioTable

XINT, ALIKE = 3.5, 1.15
SETTLED_TARGET, HALF_WIDTH_TARGET = stability.SETTLED, stability.HALF_WIDTH


@dataclass(frozen=True)
class Judged:
    """A ratio as a verdict uses it, with what it rests on."""

    value: float
    basis: str

    def text(self) -> str:
        return f"{ratio(self.value)}x ({self.basis})"


def judged(cell: Optional[Cell]) -> Optional[Judged]:
    if cell is None:
        return None
    if cell.settled:
        return Judged(cell.value, "time")
    shown = f"{ratio(cell.value)} ({interval(cell.low, cell.high)})"
    if math.isfinite(cell.instructions):
        return Judged(cell.instructions, f"instructions; the time ratio {shown} did not settle")
    return Judged(cell.value, f"time, not settled: {shown}")


#: (name, test on helpers ÷ streamlined, what it means).
CLASSES: Tuple[Tuple[str, Callable[[float], bool], str], ...] = (
    (
        "Like the JDK's `-Xint`",
        lambda r: r >= XINT,
        f"streamlining pays {XINT:g}x or more, as the JDK's 4-5x under `-Xint` and Zero",
    ),
    (
        "In between",
        lambda r: ALIKE < r < XINT,
        "streamlining pays, less than in the JDK's interpreter",
    ),
    (
        "Like the JDK's compilers",
        lambda r: 1 / ALIKE <= r <= ALIKE,
        f"the style moves the time by less than {ALIKE - 1:.0%}",
    ),
    ("Reversed", lambda r: r < 1 / ALIKE, "helpers are faster: streamlined costs this mode more"),
)


def cell_at(t: Optional[RatioTable], labels: Sequence[str], column: str) -> Optional[Cell]:
    if t is None or column not in t.columns:
        return None
    row = next((r for r in t.rows if list(r.labels[: len(labels)]) == list(labels)), None)
    return row.cells[t.columns.index(column)] if row else None


def style_verdicts(run: Run, seeds: Optional[RatioTable]) -> List[str]:
    """Which modes behave like -Xint and which like the JDK's compilers, from the seeds' table."""
    n = run.length(report.LONG)
    column = f"{size_label(n)} ratio"
    placed: Dict[str, List[str]] = {name: [] for name, _, _ in CLASSES}
    for alg in run.algorithms():
        for mode in run.columns:
            j = judged(cell_at(seeds, [alg, mode], column))
            if j is None:
                continue
            name = next(name for name, test, _ in CLASSES if test(j.value))
            placed[name].append(f"{mode} {alg} {j.text()}")
    if not any(placed.values()):
        return []
    return [
        f"- **{name}** ({meaning}): {'; '.join(placed[name]) or 'no mode'}."
        for name, _, meaning in CLASSES
    ] + [f"  (helpers ÷ streamlined, {size_label(n)} digests.)"]


def jit_verdicts(run: Run, seeds: Optional[RatioTable]) -> List[str]:
    """What the JIT buys back for each style: each JIT mode against its interpreter's other."""
    n = run.length(report.LONG)
    lines = []
    for off, on in report.jit_pairs(run):
        for alg in run.algorithms():
            gains: Dict[str, Judged] = {}
            for style in (report.TEXTBOOK, report.STREAMLINED):
                a, b = (run.get(m, "digest", alg, style, n) for m in (off, on))
                if j := judged(report.over(run, a, b)):
                    gains[style] = j
            if not gains:
                continue
            said = ", ".join(f"{style} {j.text()}" for style, j in gains.items())
            line = f"- **{on} against {off}** ({alg}, {size_label(n)}): faster by {said}"
            if len(gains) == 2:
                more = max(gains, key=lambda style: gains[style].value)
                line += f"; it buys back more for {more}"
            gaps = [judged(cell_at(seeds, [alg, m], f"{size_label(n)} ratio")) for m in (off, on)]
            if gaps[0] and gaps[1]:
                line += f": helpers ÷ streamlined goes from {gaps[0].text()} to {gaps[1].text()}"
            lines.append(line + ".")
    return lines


@dataclass(frozen=True)
class Trust:
    """How far the run's ratios can be trusted: settled share and median half-width."""

    by_table: Tuple[Tuple[str, int, float, float], ...]  # (title, ratios, settled, half-width)
    settled: float
    half_width: float
    steal: Optional[float]

    @property
    def noisy(self) -> bool:
        return self.settled < SETTLED_TARGET or self.half_width > HALF_WIDTH_TARGET

    def warning(self) -> str:
        """The line at the top of a report of a run too noisy to reach the targets."""
        if not self.noisy:
            return ""
        steal = f"; {self.steal:.1%} of the CPU's time was stolen" if self.steal else ""
        return (
            f"**Warning: this machine was too noisy to reach the study's targets**: "
            f"{self.settled:.0%} of the ratios settled (target {SETTLED_TARGET:.0%}), median "
            f"interval ±{self.half_width:.1%} (target ±{HALF_WIDTH_TARGET:.0%}){steal}; "
            f"read the ratios marked † as rough."
        )

    def as_json(self) -> Dict[str, Any]:
        return {
            "settled": self.settled,
            "half_width": self.half_width,
            "steal": self.steal,
            "noisy": self.noisy,
            "tables": [
                {"title": t, "ratios": n, "settled": s, "half_width": h}
                for t, n, s, h in self.by_table
            ],
        }


def shares(cells: Sequence[Cell]) -> Tuple[float, float]:
    """(settled share, median half-width) of some ratios."""
    if not cells:
        return math.nan, math.nan
    settled = sum(c.settled for c in cells) / len(cells)
    return settled, statistics.median(c.half_width for c in cells)


def trust(run: Run, tables: Sequence[RatioTable]) -> Trust:
    counted = [t for t in tables if t.counted and t.ratios()]
    rows = tuple((t.title, len(t.ratios()), *shares(t.ratios())) for t in counted)
    settled, half = shares([c for t in counted for c in t.ratios()])
    return Trust(rows, settled, half, run.steal)


@dataclass(frozen=True)
class Report:
    """A run's report: every table, the words under them, and how far to trust it."""

    run: Run
    tables: Tuple[RatioTable, ...]
    style: Tuple[str, ...]
    jit: Tuple[str, ...]
    trust: Trust

    def table(self, key: str) -> Optional[RatioTable]:
        return next((t for t in self.tables if t.key == key), None)


def build(run: Run) -> Report:
    tables = report.tables(run)
    by_key = {t.key: t for t in tables}
    seeds = by_key.get("seeds")
    return Report(
        run,
        tuple(tables),
        tuple(style_verdicts(run, seeds)),
        tuple(jit_verdicts(run, seeds)),
        trust(run, tables),
    )


def summary(r: Report) -> Dict[str, Any]:
    """Every number of the report, as plain JSON (``summary.json``)."""
    run = r.run
    return {
        "run": {
            "name": run.name,
            "mode": run.study_mode,
            "cpu": run.cpu,
            "started": run.started,
            "measure_seconds": run.measure_seconds,
            "steal": run.steal,
        },
        "modes": {
            m.label: {"interpreter": m.interpreter, "title": m.title, "how": m.how, "jdk": m.jdk}
            for m in run.modes
        },
        "cases": [
            {
                "column": m.mode,
                "mode": m.case.mode,  # the benchmark's: digest, getAndDigest, block, batch
                "algorithm": m.case.algorithm,
                "variant": m.case.variant,
                "length": m.case.length,
                "count": m.case.number,
                "time_s": m.time,
                "mb_per_s": m.mb_per_s,
            }
            for m in run.measured.values()
        ],
        "tables": [t.as_json() for t in r.tables],
        "ratios": [rec for t in r.tables if t.counted for rec in t.records()],
        "trust": r.trust.as_json(),
        "verdicts": [*r.style, *r.jit],
    }
