"""The report's answers: its tables, the verdicts and findings drawn from them, how far to trust.

**Verdicts are decisions.** Each mode is placed, per algorithm, by the *time* interval of its
helpers ÷ streamlined ratio at 16 KiB (the ``styles`` table) among four classes, as the
seeds placed the JDK's modes: reversed (streamlined costs the mode more), like the JDK's
compilers (the style moves the time by less than ``ALIKE``), in between, like the JDK's
``-Xint`` (inlining pays ``XINT`` times or more; the JDK measured 4-5x). The verdict stands
where the whole interval lies in one class; otherwise it is "between X and Y", the classes
its ends fall in. Machine instructions stand in their own column; where they put the mode in
another class, the verdict says so. The findings say "faster" only where an interval
excludes 1.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from bench.catalog.comparisons import LONG, STREAMLINED, TEXTBOOK, Cell
from bench.core.fmt import interval, ratio
from bench.report.figures import Figure, Shown, figure
from bench.report.figures import build as build_tables
from bench.store import Run

XINT, ALIKE = 3.5, 1.15
#: The classes in ascending order of helpers ÷ streamlined, and their lower bounds.
CLASSES = ("reversed", "like the JDK's compilers", "in between", "like the JDK's -Xint")
BOUNDS = (0.0, 1 / ALIKE, ALIKE, XINT)
NAMES = {"md5": "MD5", "sha256": "SHA-256"}


def place(x: float) -> int:
    """The class of a helpers ÷ streamlined ratio."""
    return max(i for i, bound in enumerate(BOUNDS) if x >= bound)


@dataclass(frozen=True)
class Verdict:
    """Where a mode's helpers ÷ streamlined puts it, for one algorithm."""

    mode: str
    algorithm: str
    time: Figure
    instructions: float = math.nan

    @property
    def classes(self) -> Tuple[int, int]:
        """The classes of the interval's two ends (equal: the verdict stands)."""
        return place(self.time.low), place(self.time.high)

    def word(self) -> str:
        low, high = self.classes
        said = CLASSES[low] if low == high else f"between {CLASSES[low]} and {CLASSES[high]}"
        if math.isfinite(self.instructions) and not low <= place(self.instructions) <= high:
            said += f" (instructions: {CLASSES[place(self.instructions)]})"
        return said


def verdicts(styles: Optional[Shown]) -> List[Verdict]:
    """Every mode's verdict for each algorithm, from the README's styles table."""
    found = []
    for row in styles.rows if styles else ():
        for alg, name in NAMES.items():
            time, counted = (styles.at(row.labels, c) if styles else None
                             for c in (name, f"{name} instr."))  # fmt: skip
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


def span(figures: Sequence[Figure]) -> str:
    """``2.0-2.6x``: the values' range (one value alone: ``2.03x``)."""
    if len(figures) == 1:
        return f"{ratio(figures[0].value)}x"
    values = sorted(f.value for f in figures)
    return f"{ratio(values[0])}-{ratio(values[-1])}x"


def gain(f: Figure) -> str:
    """A speed-up as words: "x times faster", or "no measurable change" inside the noise."""
    if f.estimate.excludes(1.0):
        return (
            f"{ratio(f.value)}x {'faster' if f.value > 1 else 'slower'} ({interval(f.low, f.high)})"
        )
    return f"no measurable change ({interval(f.low, f.high)})"


def findings(run: Run, styles: Optional[Shown], buys: Optional[Shown],
             found: Sequence[Verdict]) -> List[str]:  # fmt: skip
    """At most five short sentences, each from the data: the style without a JIT and with
    one, what compiling and the JITs buy back, and the JDK's measured counterpart."""
    if styles is None:
        return []
    lay = run.layout
    out: List[str] = []
    families: Dict[Tuple[str, str], List[str]] = {}  # (runtime, the role it plays): modes
    for c in lay.columns:
        families.setdefault((lay.by[c].implementation, lay.by[c].mode.jdk), []).append(c)

    def both(modes: Sequence[str]) -> str:
        spans = [span(fs) for a in NAMES if (fs := [f for m in modes
                 if (f := styles.at((m,), NAMES[a])) is not None])]  # fmt: skip
        return "/".join(spans)

    plain = [(f"JDK {role}" if impl == "OpenJDK" else impl, ms)
             for (impl, role), ms in families.items() if not lay.by[ms[0]].mode.jit]  # fmt: skip
    said = [f"{name} {text}" for name, ms in plain if (text := both(ms))]
    if said:
        out.append(f"Without a JIT the helper style costs (MD5/SHA-256) {', '.join(said)}.")
    words: Dict[str, List[str]] = {}
    for c in (c for c in lay.columns if lay.by[c].mode.jit):
        impl = lay.by[c].implementation
        word = mode_word(found, c)
        if word not in words.setdefault(impl, []):
            words[impl].append(word)
    if words:
        said = [f"{'the JDK' if i == 'OpenJDK' else i} {' or '.join(w)}" for i, w in words.items()]
        out.append(f"With a JIT: {'; '.join(said)}.")
    if buys is not None:

        def built(name: str) -> List[Figure]:
            return [c for r in buys.rows if r.labels[0] == name for c in r.cells if c]

        twins = [
            f"{span(built(f'{TEXTBOOK}-{b}'))} ({label})"
            for b, label in (("mypyc", "mypyc"), ("cython", "Cython"))
            if built(f"{TEXTBOOK}-{b}")
        ]
        typed = [f"{span(built(b))} ({label})" for b, label in
                 (("cython", "typed Cython"), ("native", "native")) if built(b)]  # fmt: skip
        said = [f"{' and '.join(twins)} over the helper style"] if twins else []
        said += [f"{' and '.join(typed)} over {STREAMLINED}"] if typed else []
        if said:
            out.append(f"Compiling buys back {'; '.join(said)}.")
        gains: Dict[str, List[Figure]] = {}
        for r in (r for r in buys.rows if r.labels[0] == "the JIT"):
            for column, gain in zip(buys.columns, r.cells):
                if gain:
                    gains.setdefault(lay.by[column].implementation, []).append(gain)
        said = []
        for impl, figs in gains.items():
            noise = sum(1 for f in figs if not f.estimate.excludes(1.0))
            faster = all(f.value > 1 and f.estimate.excludes(1.0) for f in figs)
            name = "the JDK" if impl == "OpenJDK" else impl
            tail = (
                " faster" if faster else f" ({noise} of {len(figs)} inside the noise)" * bool(noise)
            )
            said.append(f"{name}'s {span(figs)}{tail}")
        if said:
            out.append(f"A JIT changes the source's time: {', '.join(said)}.")
    counterpart = jdk_counterpart(run)
    if counterpart:
        out.append(counterpart)
    return out[:5]


def jdk_counterpart(run: Run) -> str:
    """How the fastest CPython interpreter runs streamlined MD5 against the JDK's -Xint."""
    lay = run.layout
    n = lay.length(LONG)
    xint = next((c for c in lay.columns if lay.by[c].mode.jdk == "-Xint"
                 and lay.by[c].implementation == "OpenJDK"), None)  # fmt: skip
    cpython = [c for c in lay.columns if lay.by[c].implementation == "CPython"
               and not lay.by[c].mode.jit]  # fmt: skip
    if xint is None or not cpython:
        return ""
    best = cpython[-1]
    a = lay.get(xint, "digest", "md5", STREAMLINED, n)
    b = lay.get(best, "digest", "md5", STREAMLINED, n)
    f = figure(run, Cell(a, b)) if a and b else None
    if f is None:
        return ""
    return f"The JDK's {xint} runs streamlined MD5 {ratio(1 / f.value)}x as fast as CPython {best}."


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


def median_half(cells: Sequence[Figure]) -> float:
    return statistics.median(c.half_width for c in cells) if cells else math.nan


def trust(run: Run, tables: Sequence[Shown]) -> Trust:
    counted = [t for t in tables if t.spec.counted and t.ratios()]
    rows = tuple((t.title, len(t.ratios()), median_half(t.ratios())) for t in counted)
    readme = [c for t in tables if t.spec.readme for c in t.ratios()]
    every = [c for t in counted for c in t.ratios()]
    return Trust(rows, median_half(every), median_half(readme), len(readme), run.header.steal)


@dataclass(frozen=True)
class Rerun:
    """How a second run of the same tree held against this one (``bench.stability``)."""

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
    found = findings(run, styles, by_key.get("buys"), placed)
    return Report(run, tuple(tables), tuple(placed), tuple(found), trust(run, tables))


def summary(r: Report) -> Dict[str, Any]:
    """Every number of the report, as plain JSON (``summary.json``)."""
    run, h = r.run, r.run.header
    return {
        "run": {"name": run.name, "effort": h.effort, "cpu": h.cpu, "started": h.started,
                "measure_seconds": h.measure_seconds, "steal": h.steal},
        "modes": {c.label: {"interpreter": c.mode.interpreter, "title": c.listing.title,
                            "how": c.mode.how, "jdk": c.mode.jdk} for c in run.columns},
        "cases": [{"column": m.mode, "benchmark": m.case.benchmark, "algorithm": m.case.algorithm,
                   "variant": m.case.variant, "length": m.case.length, "count": m.case.number,
                   "time_s": m.time, "mb_per_s": m.mb_per_s, "warmed": m.warmed}
                  for m in run.measured.values()],
        "tables": [t.as_json() for t in r.tables],
        "verdicts": [{"mode": v.mode, "algorithm": v.algorithm, "verdict": v.word(),
                      "classes": list(v.classes)} for v in r.verdicts],
        "findings": list(r.findings),
        "trust": r.trust.as_json(),
    }  # fmt: skip
