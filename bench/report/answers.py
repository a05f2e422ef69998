"""The report's answers: its tables, the verdicts and findings drawn from them, how far to trust.

**Verdicts are decisions.** Each mode is placed, per algorithm, by the *time* interval of its
helpers ÷ streamlined ratio at 16 KiB (the ``styles`` table) among four classes, as the
seeds placed the JDK's modes (``CLASSES``): reversed (streamlined costs the mode more), like
the compilers (the style moves the time by less than ``ALIKE``), in between, like ``-Xint``
(inlining pays ``XINT`` times or more; the JDK measured 4-5x). The verdict stands where the
whole interval lies in one class; otherwise it is "X or Y", the classes its ends fall in (a
rerun may settle it on either, never elsewhere). Machine instructions stand in their own
column; where they put the mode in another class, the verdict says so. The findings say
"faster" only where an interval excludes 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..catalog.comparisons import STREAMLINED, TEXTBOOK
from ..catalog.targets import TITLES
from ..core import stats
from ..store import Run
from .figures import Ratio, Shown
from .figures import build as build_tables

XINT, ALIKE = 3.5, 1.15
#: The classes in ascending order of helpers ÷ streamlined, and their lower bounds.
CLASSES = ("reversed", "like the compilers", "in between", "like -Xint")
BOUNDS = (0.0, 1 / ALIKE, ALIKE, XINT)
NAMES = TITLES


def place(x: float) -> int:
    """The class of a helpers ÷ streamlined ratio."""
    return max(i for i, bound in enumerate(BOUNDS) if x >= bound)


@dataclass(frozen=True)
class Verdict:
    """Where a mode's helpers ÷ streamlined puts it, for one algorithm."""

    mode: str
    algorithm: str
    time: Ratio
    instructions: float = math.nan

    @property
    def classes(self) -> Tuple[int, int]:
        """The classes of the interval's two ends (equal: the verdict stands)."""
        return place(self.time.low), place(self.time.high)

    def word(self) -> str:
        low, high = self.classes
        said = CLASSES[low] if low == high else f"{CLASSES[low]} or {CLASSES[high]}"
        if math.isfinite(self.instructions) and not low <= place(self.instructions) <= high:
            said += f" (instr.: {CLASSES[place(self.instructions)]})"
        return said


def verdicts(styles: Optional[Shown]) -> List[Verdict]:
    """Every mode's verdict for each algorithm, from the README's styles table."""
    found = []
    for row in styles.rows if styles else ():
        for alg, name in NAMES.items():
            time, counted = (
                styles.at(row.labels, c) if styles else None for c in (name, f"{name} instr.")
            )
            if time is not None:
                value = counted.value if counted else math.nan
                found.append(Verdict(row.labels[0], alg, time, value))
    return found


def mode_word(found: Sequence[Verdict], mode: str) -> str:
    """One mode's verdict as the README's table says it: a word, or one per algorithm."""
    words = {v.algorithm: v.word() for v in found if v.mode == mode}
    if len(set(words.values())) == 1:
        return next(iter(words.values()))
    return ", ".join(f"{w} for {NAMES[a]}" for a, w in words.items())


def brief(x: float) -> str:
    """A figure in prose: two significant digits, whole numbers from 10 on."""
    return f"{x:#.2g}".rstrip(".") if abs(x) < 10 else f"{x:.0f}"  # 9.99: "10", not "10."


def span(figures: Sequence[Ratio]) -> str:
    """``2.0-2.6x``: the values' range in prose (one value alone: ``2x``)."""
    low, high = (brief(v) for v in (min(f.value for f in figures), max(f.value for f in figures)))
    return f"{low}x" if low == high else f"{low}-{high}x"


def direction(values: Sequence[float], above: str = "slower", below: str = "faster") -> str:
    """Time ratios said one way: ``1.8-2.5x slower`` (all at or above 1), ``1.1-1.6x faster``
    (all below 1, as their inverses), ``1.05x faster to 1.2x slower`` (across 1)."""
    low, high = min(values), max(values)
    if brief(low) == brief(high) == "1.0":
        return "the same (1.0x)"
    if low >= 1:
        shown = brief(low) if brief(low) == brief(high) else f"{brief(low)}-{brief(high)}"
        return "the same (1.0x)" if shown == "1.0" else f"{shown}x {above}"
    if high < 1:
        shown = (
            brief(1 / high)
            if brief(1 / high) == brief(1 / low)
            else f"{brief(1 / high)}-{brief(1 / low)}"
        )
        return "the same (1.0x)" if shown == "1.0" else f"{shown}x {below}"
    if brief(1 / low) == brief(high) == "1.0":
        return "the same (1.0x)"
    return f"{brief(1 / low)}x {below} to {brief(high)}x {above}"


def by_family(run: Run, jit: bool) -> Dict[str, List[str]]:
    """The modes with (or without) a JIT, by family: CPython, PyPy, the JDK's by role."""
    lay = run.layout
    found: Dict[str, List[str]] = {}
    for c in (c for c in lay.columns if lay.by[c].mode.jit == jit):
        impl = lay.by[c].implementation
        role = f"the JDK's {lay.by[c].mode.jdk}" if not jit else "the JDK's compilers"
        name = role if impl == "OpenJDK" else impl
        found.setdefault(name, []).append(c)
    return found


#: One run's part in pooled findings: its run, its styles table and its buys table.
Part = Tuple[Run, Optional[Shown], Optional[Shown]]


def style_costs(
    parts: Sequence[Tuple[Shown, Dict[str, List[str]]]], under: bool = False
) -> List[str]:
    """``CPython 1.8-2.5x slower`` (``under``: ``1.8-2.5x slower under CPython``): each
    family's helpers ÷ streamlined, both algorithms, over every (styles table, families) of
    ``parts`` (one a machine)."""
    pooled: Dict[str, List[float]] = {}
    for styles, families in parts:
        for name, modes in families.items():
            values = [f.value for m in modes for a in NAMES.values() if (f := styles.at((m,), a))]
            if values:
                pooled.setdefault(name, []).extend(values)
    said = []
    for name, values in pooled.items():
        cost = direction(values)
        said.append(f"{cost} under {name}" if under else f"{name} {cost}")
    return said


def findings(run: Run, styles: Optional[Shown], buys: Optional[Shown]) -> List[str]:
    """At most five short sentences, each from the data: the style without a JIT and with
    one, the nearest JDK, what compiling buys back, and what the JITs do."""
    return pooled_findings([(run, styles, buys)])


def pooled_findings(parts: Sequence[Part], counterparts: bool = True) -> List[str]:
    """``findings`` over the runs of several machines, every range covering them all (the
    nearest JDK, a run's own, only where ``counterparts``)."""
    shown = [(run, styles, buys) for run, styles, buys in parts if styles is not None]
    if not shown:
        return []
    out = []
    for jit, head in ((False, "Without a JIT, helper functions run"), (True, "With one, they run")):
        costs = style_costs([(s, by_family(run, jit)) for run, s, _ in shown if s], under=True)
        if costs:
            out.append(f"{head} {', '.join(costs)}.")
    if counterparts and len(shown) == 1 and shown[0][1] is not None:
        out.append(counterpart(shown[0][0], shown[0][1]))
    built_rows = [(run, buys) for run, _, buys in shown if buys is not None]
    if built_rows:

        def built(name: str) -> List[Ratio]:
            return [
                c
                for _, b in built_rows
                for r in b.rows
                if r.labels[0] == name
                for c in r.cells
                if c
            ]

        twins = [
            f"{label} {direction(v, 'faster', 'slower')}"
            for b, label in (("mypyc", "mypyc"), ("cython", "Cython"))
            if (v := [f.value for f in built(f"{TEXTBOOK}-{b}")])
        ]
        if twins:
            twins[0] = twins[0].replace(" ", " makes the helper style ", 1)
        typed = [
            f"{label} {direction([f.value for f in built(b)], 'faster', 'slower')}"
            for b, label in (("cython", "typed Cython"), ("native", "native C"))
            if built(b)
        ]
        said = [", ".join(twins)] if twins else []
        said += [f"{' and '.join(typed)} than {STREAMLINED}"] if typed else []
        if said:
            out.append(f"{'; '.join(said)}.")
        gains: Dict[str, List[Ratio]] = {}
        for run, buys in built_rows:
            for r in (r for r in buys.rows if r.labels[0] == "the JIT"):
                for column, f in zip(buys.columns, r.cells):
                    if f:
                        impl = run.layout.by[column].implementation
                        name = "the JDK's" if impl == "OpenJDK" else f"{impl}'s"
                        gains.setdefault(name, []).append(f)
        jits = []
        for name, figs in gains.items():
            noise = sum(1 for f in figs if not f.estimate.excludes(1.0))
            faster = direction([f.value for f in figs], "faster", "slower")
            if noise == len(figs):
                jits.append(f"{name} changes nothing measurable ({faster})")
            elif noise:
                jits.append(f"{name} {faster} ({noise} of {len(figs)} intervals hold 1)")
            else:
                jits.append(f"{name} {faster}")
        if jits:
            out.append(f"A JIT on the same source: {', '.join(jits)}.")
    return [x for x in out if x][:5]


def counterpart(run: Run, styles: Shown) -> str:
    """How the newest CPython interpreter (no JIT) stands against the JDK's interpreters: the
    nearest in speed, and what the helper style costs each."""
    lay = run.layout
    cpython = [
        c for c in lay.columns if lay.by[c].implementation == "CPython" and not lay.by[c].mode.jit
    ]
    near = styles.at((cpython[-1],), "JDK counterpart") if cpython else None
    if near is None:
        return ""
    mode = cpython[-1]
    jdk = lay.by[near.took].mode.interpreter
    peers = [c for c in lay.columns if lay.by[c].mode.interpreter == jdk and not lay.by[c].mode.jit]
    costs = [f"{c} {direction([f.value])}" for c in [mode, *peers] if (f := styles.at((c,), "MD5"))]
    return (
        f"CPython {mode} runs streamlined MD5 {direction([1 / near.value])} than its "
        f"nearest JDK mode, {near.took}; helpers make MD5 {', '.join(costs)}."
    )


@dataclass(frozen=True)
class Trust:
    """How far the run's ratios can be trusted: their median half-width, per table and in
    all, the README's, and the steal time the run saw."""

    by_table: Tuple[Tuple[str, int, float], ...]  # (title, ratios, median half-width)
    half_width: float
    readme_half_width: float
    readme_ratios: int
    steal: Optional[float]

    def as_json(self) -> Dict[str, Any]:
        return {
            "half_width": self.half_width,
            "readme_half_width": self.readme_half_width,
            "readme_ratios": self.readme_ratios,
            "steal": self.steal,
            "tables": [{"title": t, "ratios": n, "half_width": h} for t, n, h in self.by_table],
        }


def median_half(cells: Sequence[Ratio]) -> float:
    return stats.median_half([c.half_width for c in cells])


def trust(run: Run, tables: Sequence[Shown]) -> Trust:
    counted = [t for t in tables if t.spec.counted and t.ratios()]
    rows = tuple((t.title, len(t.ratios()), median_half(t.ratios())) for t in counted)
    readme = [c for t in tables if t.spec.readme for c in t.ratios()]
    every = [c for t in counted for c in t.ratios()]
    return Trust(rows, median_half(every), median_half(readme), len(readme), run.header.steal)


@dataclass(frozen=True)
class Rerun:
    """How a second run of the same tree held against this one (``bench.report.stability``)."""

    name: str
    ratios: int  # ratios in common
    inside: float  # share of the second run's ratios inside this run's intervals
    readme_ratios: int
    readme_inside: float
    readme_within: float  # share of the README's ratios within 10 % of this run's
    flips: int  # verdicts whose classes the two runs do not share


@dataclass(frozen=True)
class Report:
    """A run's report: every table, the verdicts, the findings, how far to trust it."""

    run: Run
    tables: Tuple[Shown, ...]
    verdicts: Tuple[Verdict, ...]
    findings: Tuple[str, ...]
    trust: Trust
    rerun: Optional[Rerun] = None

    def table(self, key: str) -> Optional[Shown]:
        return next((t for t in self.tables if t.key == key), None)


def build(run: Run) -> Report:
    tables = build_tables(run)
    by_key = {t.key: t for t in tables}
    styles = by_key.get("styles")
    placed = verdicts(styles)
    found = findings(run, styles, by_key.get("buys"))
    return Report(run, tuple(tables), tuple(placed), tuple(found), trust(run, tables))


def summary(r: Report) -> Dict[str, Any]:
    """Every number of the report, as plain JSON (``summary.json``)."""
    run, h = r.run, r.run.header
    return {
        "run": {
            "name": run.name,
            "effort": h.effort,
            "cpu": h.cpu,
            "started": h.started,
            "measure_seconds": h.measure_seconds,
            "steal": h.steal,
        },
        "modes": {
            c.label: {
                "interpreter": c.mode.interpreter,
                "title": c.listing.title,
                "how": c.mode.how,
                "jdk": c.mode.jdk,
            }
            for c in run.columns
        },
        "cases": [
            {
                "column": m.mode,
                "benchmark": m.case.benchmark,
                "algorithm": m.case.algorithm,
                "variant": m.case.variant,
                "length": m.case.length,
                "count": m.case.number,
                "time_s": m.time,
                "mb_per_s": m.mb_per_s,
                "warmed": m.warmed,
            }
            for m in run.measured.values()
        ],
        "tables": [t.as_json() for t in r.tables],
        "verdicts": [
            {
                "mode": v.mode,
                "algorithm": v.algorithm,
                "verdict": v.word(),
                "classes": list(v.classes),
            }
            for v in r.verdicts
        ],
        "findings": list(r.findings),
        "trust": r.trust.as_json(),
    }
