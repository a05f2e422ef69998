"""The study's report from a run's JSON: JMH-shaped tables, the ratio tables, ``summary.json``.

    python -m bench.report                      # the newest run under results/bench/
    python -m bench.report results/bench/20261129-213000

Reads the run's ``study.json`` and ``values.json`` (and, where a ``nox -s
bytecode`` run exists, its ``bytecode.json``, for instruction counts beside
the times); writes ``report.md`` and ``summary.json`` (every number of the
report, for ``bench.docs``, ``bench.plots`` and ``bench.stability``) and the
figures (``bench.plots``, if matplotlib is installed).

Statistics (``bench.stats``): a case's time is the lower quartile of its
values; a ratio of two cases is the ratio of their times, both taken over the
same rounds (values interleaved: variants in turn, interpreters in turn),
printed with its 95% bootstrap interval, so that a reader sees which ratios
to trust. The JMH tables show, like JMH, the mean throughput with the
half-width of its 99.9% confidence interval.

A row is one program on every interpreter. "fastest pure Python" is a derived
row: on each interpreter, the interpreted variant with the shortest time at
the table's length, named in the row's note.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from bench import stats
from bench.cases import Case
from bench.fmt import DASH, interval, minutes, ratio, significant, size_label, table
from bench.layout import RESULTS, newest
from bench.machine import interpreter_title
from bench.stats import Estimate

#: The study's baseline shape: the textbook helper style (PyPy's _md5, the JDK
#: before streamlining). Every other shape is compared with it.
TEXTBOOK = "helpers"
HASHLIB = "hashlib"
#: The length of the tables that need one: long enough for throughput.
LONG = 16384
SHORT = 64
FASTEST = "fastest pure Python"

#: Student's t for a two-sided 99.9% interval, by degrees of freedom (JMH's error).
_T9995 = {
    1: 636.619, 2: 31.599, 3: 12.924, 4: 8.610, 5: 6.869, 6: 5.959, 7: 5.408, 8: 5.041,
    9: 4.781, 10: 4.587, 12: 4.318, 15: 4.073, 20: 3.850, 25: 3.725, 30: 3.646, 40: 3.551,
    60: 3.460, 120: 3.373,
}  # fmt: skip

Values = Dict[Tuple[int, int], float]  # (pass, round) -> seconds per operation


def t_quantile(df: int) -> float:
    """Student's t at 0.9995 for ``df`` degrees of freedom (the next tabled one above)."""
    above = [d for d in _T9995 if d >= df]
    return _T9995[min(above)] if above else 3.291


@dataclass
class Measured:
    """One case under one interpreter: its values by (pass, round)."""

    interpreter: str
    case: Case
    values: Values
    runs: int
    unsettled: int = 0

    @property
    def time(self) -> float:
        return stats.time_of(list(self.values.values()))

    @property
    def mb_per_s(self) -> float:
        return self.case.nbytes / self.time / 1e6

    @property
    def score(self) -> float:
        """JMH's score: mean throughput, operations per millisecond."""
        return statistics.fmean(1e-3 / v for v in self.values.values())

    @property
    def error(self) -> Optional[float]:
        """Half-width of the 99.9% confidence interval of ``score``; None for one value."""
        n = len(self.values)
        if n < 2:
            return None
        spread = statistics.stdev(1e-3 / v for v in self.values.values())
        return t_quantile(n - 1) * spread / math.sqrt(n)


class Run:
    """A run of the study: its description and every case measured, by interpreter."""

    def __init__(self, study: Dict[str, Any], values: Dict[str, Any]) -> None:
        self.study = study
        self.measured: Dict[Tuple[str, str], Measured] = {}
        for label, cases in values.items():
            for name, data in cases.items():
                keyed: Values = {}
                unsettled = 0
                for run in data["runs"]:
                    for r, v in zip(run["rounds"], run["values"]):
                        keyed[(int(run["pass"]), int(r))] = float(v)
                    unsettled += 0 if run.get("settled", True) else 1
                if keyed:
                    self.measured[(label, name)] = Measured(
                        label, Case.parse(name), keyed, len(data["runs"]), unsettled
                    )
        self.interpreters = [
            label for label in study["interpreters"] if any(k[0] == label for k in self.measured)
        ]

    @classmethod
    def load(cls, folder: Path) -> Run:
        study = json.loads((folder / "study.json").read_text())
        values = json.loads((folder / "values.json").read_text())
        return cls(study, values)

    def get(
        self, interp: str, mode: str, alg: str, variant: str, length: int
    ) -> Optional[Measured]:
        return self.measured.get((interp, Case(mode, alg, variant, length).name))

    def info(self, interp: str, variant: str) -> Dict[str, Any]:
        found: Dict[str, Any] = self.study["interpreters"][interp]["variants"].get(variant, {})
        return found

    def variants(self) -> List[str]:
        """Every row measured, in the order of the interpreters' listings."""
        seen: Dict[str, None] = {}
        for interp in self.interpreters:
            for name in self.study["interpreters"][interp]["variants"]:
                if any(k[0] == interp and m.case.variant == name for k, m in self.measured.items()):
                    seen.setdefault(name, None)
        return list(seen)

    def kind(self, variant: str) -> str:
        for interp in self.interpreters:
            kind = self.info(interp, variant).get("kind")
            if kind:
                return str(kind)
        return ""

    def twin(self, variant: str) -> Optional[Tuple[str, str, str]]:
        """(source, compiler, annotations) of a compiled twin, from the workers' listing."""
        for interp in self.interpreters:
            info = self.info(interp, variant)
            if info.get("source"):
                return (str(info["source"]), str(info["compiler"]), str(info["annotations"] or ""))
        return None

    def interpreted(self) -> List[str]:
        return [v for v in self.variants() if self.kind(v) == "interpreted"]

    def algorithms(self) -> List[str]:
        return [
            a
            for a in ("md5", "sha256")
            if any(m.case.algorithm == a for m in self.measured.values())
        ]

    def lengths(self, mode: str = "digest") -> List[int]:
        return sorted({m.case.length for m in self.measured.values() if m.case.mode == mode})

    def length(self, preferred: int) -> int:
        """``preferred`` if digest ran at it, else the longest below it (else the shortest)."""
        lengths = self.lengths()
        below = [n for n in lengths if n <= preferred]
        return max(below) if below else (lengths[0] if lengths else preferred)

    def title(self, interp: str) -> str:
        return interpreter_title(self.study["interpreters"][interp])

    def over(self, a: Optional[Measured], b: Optional[Measured]) -> Optional[Estimate]:
        """time(a) / time(b) with its interval."""
        if a is None or b is None:
            return None
        return stats.ratio(a.values, b.values)

    def fastest(self, interp: str, alg: str, length: int) -> Optional[str]:
        """The interpreted variant with the shortest digest time at ``length`` on ``interp``."""
        timed = [
            (m.time, name)
            for name in self.interpreted()
            if (m := self.get(interp, "digest", alg, name, length)) is not None
        ]
        return min(timed)[1] if timed else None


# --- the ratio tables ------------------------------------------------------------------


@dataclass
class Row:
    labels: List[str]
    cells: List[Optional[Estimate]]
    #: What a derived row took, per column ("streamlined" on 3.11, ...).
    note: str = ""


@dataclass
class RatioTable:
    """One of the study's answers: rows of ratios with their intervals, and what they mean."""

    key: str
    title: str
    meaning: str
    row_header: List[str]
    columns: List[str]
    rows: List[Row] = field(default_factory=list)
    #: Whether its cells are ratios of times of this run (stability compares those).
    timed: bool = True

    def add(self, labels: List[str], cells: List[Optional[Estimate]], note: str = "") -> None:
        if any(c is not None for c in cells):
            self.rows.append(Row(labels, cells, note))

    def markdown(self) -> str:
        header = [*self.row_header, *self.columns]
        notes = any(r.note for r in self.rows)
        if notes:
            header.append("note")
        body = []
        for row in self.rows:
            cells = [cell(c, self.timed) for c in row.cells]
            body.append([*row.labels, *cells, *([row.note] if notes else [])])
        align = "l" * len(self.row_header) + "r" * len(self.columns) + ("l" if notes else "")
        return table([header, *body], align)

    def as_json(self) -> Dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "meaning": self.meaning,
            "row_header": self.row_header,
            "columns": self.columns,
            "timed": self.timed,
            "rows": [
                {
                    "labels": r.labels,
                    "cells": [c.as_json() if c else None for c in r.cells],
                    "note": r.note,
                }
                for r in self.rows
            ],
        }

    def records(self) -> List[Dict[str, Any]]:
        """Every ratio, keyed by table, row labels and column (what stability compares)."""
        return [
            {"table": self.key, "row": r.labels, "column": col, **c.as_json()}
            for r in self.rows
            for col, c in zip(self.columns, r.cells)
            if c is not None
        ]


def cell(e: Optional[Estimate], with_interval: bool = True) -> str:
    """``2.48 (2.41-2.55)``: the ratio and its 95% interval."""
    if e is None:
        return DASH
    if not with_interval or e.low == e.high:
        return ratio(e.value)
    return f"{ratio(e.value)} ({interval(e.low, e.high)})"


def columns(run: Run) -> List[Tuple[str, str, int]]:
    """(title, mode, length) of the per-interpreter tables: digest to 16 KiB, block."""
    cols = [(f"digest {size_label(n)}", "digest", n) for n in run.lengths() if n <= LONG]
    cols += [(f"block {size_label(n)}", "block", n) for n in run.lengths("block") if n <= LONG]
    return cols


def style_pairs(run: Run) -> List[Tuple[str, str, str]]:
    """(build, shape's variant, the textbook's variant) of every same-build comparison.

    The interpreted shapes against ``helpers``, then each compiled twin against
    the twin of ``helpers`` built by the same compiler the same way.
    """
    variants = run.variants()
    pairs = [("interpreted", v, TEXTBOOK) for v in run.interpreted() if v != TEXTBOOK]
    if TEXTBOOK not in variants:
        pairs = []
    twins = {v: t for v in variants if (t := run.twin(v))}
    for name, (source, compiler, notes) in twins.items():
        if source == TEXTBOOK:
            continue
        match = [
            other
            for other, (src, comp, how) in twins.items()
            if src == TEXTBOOK and comp == compiler and how == notes
        ]
        if match:
            build = compiler + (f" ({notes})" if notes else "")
            pairs.append((build, name, match[0]))
    return pairs


def style_table(run: Run) -> RatioTable:
    cols = columns(run)
    t = RatioTable(
        "style",
        "Each shape against the helper style: what the coding style costs (the JDK's 4-5x)",
        f"time of the helper-style variant ÷ time of the shape, same interpreter and build "
        f"(>1: the shape is faster); `{FASTEST}` is, on each interpreter, the interpreted "
        f"variant fastest at {size_label(run.length(LONG))}",
        ["build", "shape", "interpreter", "algorithm"],
        [c[0] for c in cols],
    )
    for build, shape, textbook in style_pairs(run):
        for interp in run.interpreters:
            for alg in run.algorithms():
                cells = [
                    run.over(
                        run.get(interp, m, alg, textbook, n), run.get(interp, m, alg, shape, n)
                    )
                    for _, m, n in cols
                ]
                t.add([build, shape, interp, alg], cells)
    for interp in run.interpreters:
        for alg in run.algorithms():
            best = run.fastest(interp, alg, run.length(LONG))
            if best and best != TEXTBOOK:
                cells = [
                    run.over(run.get(interp, m, alg, TEXTBOOK, n), run.get(interp, m, alg, best, n))
                    for _, m, n in cols
                ]
                t.add(["interpreted", FASTEST, interp, alg], cells, best)
    return t


def compiled_table(run: Run) -> RatioTable:
    cols = columns(run)
    t = RatioTable(
        "compiled",
        "Compiled twins against their interpreted source: what compiling buys back",
        "time of the interpreted source ÷ time of the compiled twin, same interpreter",
        ["compiled", "source", "interpreter", "algorithm"],
        [c[0] for c in cols],
    )
    for name in run.variants():
        twin = run.twin(name)
        if not twin:
            continue
        for interp in run.interpreters:
            for alg in run.algorithms():
                cells = [
                    run.over(run.get(interp, m, alg, twin[0], n), run.get(interp, m, alg, name, n))
                    for _, m, n in cols
                ]
                t.add([name, twin[0], interp, alg], cells)
    return t


def hashlib_table(run: Run, length: int) -> RatioTable:
    t = RatioTable(
        f"hashlib-{length}",
        f"Every variant against hashlib, {size_label(length)} messages (digest)",
        "time of the variant ÷ time of the interpreter's own hashlib (how many times slower)",
        ["variant", "algorithm"],
        list(run.interpreters),
    )
    for name in [*run.variants(), FASTEST]:
        if name == HASHLIB:
            continue
        for alg in run.algorithms():
            cells: List[Optional[Estimate]] = []
            took: List[str] = []
            for interp in run.interpreters:
                variant = run.fastest(interp, alg, run.length(LONG)) if name == FASTEST else name
                if name == FASTEST and variant:
                    took.append(f"{variant} on {interp}")
                cells.append(
                    run.over(
                        run.get(interp, "digest", alg, variant or "", length),
                        run.get(interp, "digest", alg, HASHLIB, length),
                    )
                )
            t.add([name, alg], cells, ", ".join(took))
    return t


def interpreter_table(run: Run, length: int) -> Optional[RatioTable]:
    if len(run.interpreters) < 2:
        return None
    base = run.interpreters[0]
    t = RatioTable(
        f"interpreters-{length}",
        f"The same program across interpreters, {size_label(length)} messages (digest)",
        f"time on {base} ÷ time on the column's interpreter (>1: faster than on {base}); "
        "the values of each interpreter were taken in turn with the others', round by round",
        ["variant", "algorithm"],
        [f"{interp} vs {base}" for interp in run.interpreters[1:]],
    )
    for name in run.variants():
        for alg in run.algorithms():
            cells = [
                run.over(
                    run.get(base, "digest", alg, name, length),
                    run.get(interp, "digest", alg, name, length),
                )
                for interp in run.interpreters[1:]
            ]
            t.add([name, alg], cells)
    return t


def bridges(run: Run) -> List[str]:
    """The rows that are one call into C: the references, the native bridges, typed Cython."""
    return [
        v
        for v in run.variants()
        if run.kind(v) in ("reference", "native") or (run.kind(v) == "compiled" and not run.twin(v))
    ]


def bridge_table(run: Run) -> Optional[RatioTable]:
    """Per-call cost of each bridge into C: one 64-byte message, constructed and digested."""
    length = min(run.lengths("getAndDigest"), default=None)
    if length is None:
        return None
    t = RatioTable(
        "bridges",
        f"What a call costs through each bridge into C, {size_label(length)} messages "
        "(getAndDigest: construct, update, digest)",
        "time of the row ÷ time of hashlib, same interpreter; the time per call is in the "
        "table below it",
        ["bridge", "algorithm"],
        list(run.interpreters),
    )
    for name in bridges(run):
        if name == HASHLIB:
            continue
        for alg in run.algorithms():
            t.add(
                [name, alg],
                [
                    run.over(
                        run.get(i, "getAndDigest", alg, name, length),
                        run.get(i, "getAndDigest", alg, HASHLIB, length),
                    )
                    for i in run.interpreters
                ],
            )
    return t


def bridge_times(run: Run) -> str:
    length = min(run.lengths("getAndDigest"), default=SHORT)
    rows = [["bridge", "algorithm", *run.interpreters]]
    for name in bridges(run):
        for alg in run.algorithms():
            cells = []
            for interp in run.interpreters:
                m = run.get(interp, "getAndDigest", alg, name, length)
                cells.append(f"{m.time * 1e9:.0f}" if m else DASH)
            if any(c != DASH for c in cells):
                rows.append([name, alg, *cells])
    return table(rows, "ll" + "r" * len(run.interpreters))


def batch_table(run: Run) -> Tuple[Optional[RatioTable], List[str]]:
    """digest_many of the drop-in's variant against the hashlib loop, per interpreter."""
    notes = []
    for interp in run.interpreters:
        batch = run.study["interpreters"][interp].get("batch") or {}
        if batch.get("unavailable"):
            notes.append(f"{interp}: {batch['unavailable']}")
    sizes = sorted(
        {(m.case.length, m.case.number) for m in run.measured.values() if m.case.mode == "batch"}
    )
    if not sizes:
        return None, notes
    t = RatioTable(
        "batch",
        "Batches: the drop-in's digest_many against the hashlib loop",
        "time of `[md5(m).digest() for m in messages]` with hashlib ÷ time of "
        "`variants.digest_many(name, messages)` (>1: digest_many is faster)",
        ["messages", "algorithm"],
        list(run.interpreters),
    )
    for length, count in sizes:
        for alg in run.algorithms():
            cells: List[Optional[Estimate]] = []
            used = []
            for interp in run.interpreters:
                variant = (run.study["interpreters"][interp].get("batch") or {}).get("variant")
                mine = run.measured.get(
                    (interp, Case("batch", alg, str(variant), length, count).name)
                )
                theirs = run.measured.get((interp, Case("batch", alg, HASHLIB, length, count).name))
                cells.append(run.over(theirs, mine))
                if mine:
                    used.append(f"{variant} on {interp}")
            t.add([f"{count} x {size_label(length)}", alg], cells, ", ".join(dict.fromkeys(used)))
    return t, notes


def instruction_table(run: Run, bytecode: Optional[Dict[str, Any]]) -> Optional[RatioTable]:
    """The style question in instructions too: helpers ÷ each shape, per interpreter."""
    if not bytecode:
        return None
    rows = bytecode.get("rows", [])
    by = {(r["interpreter"], r["variant"], r["algorithm"]): r for r in rows}
    length = run.length(LONG)
    t = RatioTable(
        "instructions",
        "The style question in time and in instructions",
        f"helpers ÷ the shape: time ({size_label(length)} digest, this run), machine "
        "instructions per byte (callgrind) and bytecode instructions per block "
        f"(`nox -s bytecode`, {bytecode.get('run', '')}), same interpreter",
        ["shape", "interpreter", "algorithm"],
        ["time", "machine instructions", "bytecode instructions"],
        timed=False,
    )
    for shape in run.interpreted():
        if shape == TEXTBOOK:
            continue
        for interp in run.interpreters:
            for alg in run.algorithms():
                slow, fast = by.get((interp, TEXTBOOK, alg)), by.get((interp, shape, alg))
                time_ratio = run.over(
                    run.get(interp, "digest", alg, TEXTBOOK, length),
                    run.get(interp, "digest", alg, shape, length),
                )

                def quotient(
                    key: str,
                    slow: Optional[Dict[str, Any]] = slow,
                    fast: Optional[Dict[str, Any]] = fast,
                ) -> Optional[Estimate]:
                    a = slow.get(key) if slow else None
                    b = fast.get(key) if fast else None
                    if not a or not b:
                        return None
                    return Estimate(a / b, a / b, a / b, 1)

                cells = [
                    time_ratio,
                    quotient("instructions_per_byte"),
                    quotient("bytecode_per_block"),
                ]
                if cells[1] or cells[2]:
                    t.add([shape, interp, alg], cells)
    return t if t.rows else None


def ratio_tables(run: Run, bytecode: Optional[Dict[str, Any]] = None) -> List[RatioTable]:
    long, short = run.length(LONG), run.length(SHORT)
    tables: List[Optional[RatioTable]] = [style_table(run), compiled_table(run)]
    tables.append(hashlib_table(run, long))
    if short != long:
        tables.append(hashlib_table(run, short))
    tables += [interpreter_table(run, long), bridge_table(run), batch_table(run)[0]]
    tables.append(instruction_table(run, bytecode))
    return [t for t in tables if t is not None and t.rows]


# --- the report ------------------------------------------------------------------------


def jmh_table(run: Run, interp: str) -> str:
    """The interpreter's results laid out like JMH's console output, plus MB/s."""
    header = ["Benchmark", "(algorithm)", "(variant)", "(length)", "Mode", "Cnt", "Score"]
    header += ["", "Error", "Units", "MB/s", ""]
    rows = [header]
    order = {name: i for i, name in enumerate(run.variants())}
    modes = ("digest", "getAndDigest", "block", "batch")

    def place(m: Measured) -> Tuple[int, str, int, int]:
        c = m.case
        return (modes.index(c.mode), c.algorithm, order.get(c.variant, 99), c.nbytes)

    for m in sorted((m for (label, _), m in run.measured.items() if label == interp), key=place):
        error = m.error
        size = str(m.case.length) + (f"x{m.case.number}" if m.case.number > 1 else "")
        unsettled = f"JIT unsettled in {m.unsettled}/{m.runs} runs" if m.unsettled else ""
        rows.append(
            [
                *[f"MessageDigests.{m.case.mode}", m.case.algorithm, m.case.variant, size],
                *["thrpt", str(len(m.values)), significant(m.score), "±" if error else ""],
                *[significant(error) if error else "", "ops/ms", significant(m.mb_per_s)],
                unsettled,
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    left = {0, 1, 2, 9, 11}
    lines = []
    for row in rows:
        cells = [
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def build_table(builds: Dict[str, Any]) -> str:
    """Seconds per extension (rows) and interpreter (columns), with each build's sum."""
    labels = list(builds)
    names = sorted({name for b in builds.values() for name in b.get("extensions", {})})
    rows = [["extension", *labels]]
    rows.append(
        ["(mypyc and Cython writing the C)", *(ratio(builds[x].get("generate")) for x in labels)]
    )
    for name in names:
        rows.append([name, *(ratio(builds[x].get("extensions", {}).get(name)) for x in labels)])
    sums = [
        ratio(builds[x].get("generate", 0) + sum(builds[x].get("extensions", {}).values()))
        for x in labels
    ]
    rows.append(["sum", *sums])
    return table(rows, "l" + "r" * len(labels))


def header(run: Run) -> List[str]:
    study = run.study
    settings = study["settings"]
    clock = "process CPU time" if settings.get("clock", "cpu") == "cpu" else "wall-clock time"
    lines = [
        f"CPU: {study['cpu']}; run started {study['started']}; mode `{study['mode']}` "
        f"({settings['passes']} passes, {minutes(study['measure_seconds'])} of measuring, "
        f"{minutes(study['wall_seconds'])} in all); times are {clock}.",
        "",
        "Interpreters: " + ", ".join(f"{i} = {run.title(i)}" for i in run.interpreters) + ".",
    ]
    missing: Dict[Tuple[str, str], List[str]] = {}
    for interp in run.interpreters:
        for name, info in study["interpreters"][interp]["variants"].items():
            if info.get("unavailable"):
                missing.setdefault((interp, info["unavailable"]), []).append(name)
    if missing:
        said = [f"{', '.join(names)} on {i} ({why})" for (i, why), names in missing.items()]
        lines += ["", "Not measured: " + "; ".join(said) + "."]
    skipped = study.get("skipped") or {}
    count = sum(len(v) for v in skipped.values())
    if count:
        names = sorted({Case.parse(n).variant for v in skipped.values() for n in v})
        lines += [
            "",
            f"Left out in mode `{study['mode']}`: {count} cases whose one operation would take "
            f"over {settings.get('slow_limit')} s (predicted from their shorter digest): "
            f"{', '.join(names)} at the longest length; their throughput is flat from 16 KiB "
            "on (the JMH tables). `--mode rigorous` measures them.",
        ]
    notes = []
    details: Dict[Tuple[str, str], List[str]] = {}
    for interp in run.interpreters:
        info = study["interpreters"][interp]
        if info.get("free_threaded"):
            gil = "with the GIL enabled" if info.get("gil_enabled") else "with the GIL disabled"
            notes.append(f"{interp} is the free-threaded build, measured {gil} (one thread)")
        for name, variant in info["variants"].items():
            if variant.get("details") and not variant.get("unavailable"):
                details.setdefault((name, variant["details"]), []).append(interp)
    notes += [f"{name}: {what} ({', '.join(where)})" for (name, what), where in details.items()]
    if notes:
        lines += ["", "Notes: " + "; ".join(notes) + "."]
    return lines


def headlines(run: Run, tables: Sequence[RatioTable]) -> List[str]:
    """The answers in a sentence each, from the ratio tables."""
    by_key = {t.key: t for t in tables}
    long = run.length(LONG)
    column = f"digest {size_label(long)}"
    lines = []
    style = by_key.get("style")
    if style and column in style.columns:
        i = style.columns.index(column)
        for shape in dict.fromkeys(r.labels[1] for r in style.rows if r.labels[0] == "interpreted"):
            parts = [
                f"{cell(r.cells[i])} on {r.labels[2]} "
                f"({', '.join(filter(None, [r.labels[3], r.note]))})"
                for r in style.rows
                if r.labels[0] == "interpreted" and r.labels[1] == shape and r.cells[i]
            ]
            if parts:
                lines.append(f"helpers ÷ {shape}: " + "; ".join(parts))
    compiled = by_key.get("compiled")
    if compiled and column in compiled.columns:
        i = compiled.columns.index(column)
        for name in dict.fromkeys(r.labels[0] for r in compiled.rows):
            values = [e.value for r in compiled.rows if r.labels[0] == name and (e := r.cells[i])]
            if values:
                source = next(r.labels[1] for r in compiled.rows if r.labels[0] == name)
                lines.append(f"{name} vs {source}: {span(values)}x faster")
    hashlib_t = by_key.get(f"hashlib-{long}")
    if hashlib_t:
        for j, interp in enumerate(hashlib_t.columns):
            row = next((r for r in hashlib_t.rows if r.labels[0] == FASTEST and r.cells[j]), None)
            if row and row.cells[j]:
                lines.append(
                    f"the fastest pure Python on {interp} ({row.labels[1]}) is "
                    f"{cell(row.cells[j])}x slower than hashlib"
                )
    return [f"- {line} ({size_label(long)} messages, digest)." for line in lines]


def span(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return ratio(low) if high / low < 1.05 else f"{ratio(low)}-{ratio(high)}"


def render(run: Run, tables: Sequence[RatioTable], figures: Sequence[str]) -> str:
    out = ["# Interpreter-overhead study: results", "", *header(run), ""]
    out += [
        "Modes: `digest` = `h = fresh.copy(); h.update(msg); h.digest()` on an empty object made "
        "once (copy() is the reset, as Python's hash objects have none); `getAndDigest` = "
        "`h = constructor(); h.update(msg); h.digest()`; `block` = the block function alone on "
        "the whole message; `batch` = many messages in one call. Message byte i is i & 0xff. "
        "A case's time is the lower quartile of its values; a ratio is the ratio of two times "
        "taken over the same rounds (values interleaved: variants in turn, interpreters in "
        "turn), printed with its 95% bootstrap interval in parentheses.",
        "",
        "## The study's answers",
        "",
        *headlines(run, tables),
        "",
    ]
    for t in tables:
        out += [f"### {t.title}", "", f"{t.meaning}.", "", t.markdown(), ""]
        if t.key == "bridges":
            out += ["Time per call (ns):", "", bridge_times(run), ""]
    _, batch_notes = batch_table(run)
    if batch_notes:
        out += ["Batches: " + "; ".join(batch_notes) + ".", ""]
    if figures:
        out += ["## Figures", "", *(f"![{Path(f).stem}]({f})" for f in figures), ""]
    builds = run.study.get("builds") or {}
    if builds:
        out += [
            "## Build times",
            "",
            "Seconds to build each extension when the interpreter's environment was installed, "
            "as the build recorded them (setup.py's BuildExt; gcc at the flags in "
            "build_support/, extensions compiled on every core at once).",
            "",
            build_table(builds),
            "",
        ]
    out += ["## Every benchmark, in the shape of JMH's output", ""]
    for interp in run.interpreters:
        out += [
            f"### {run.title(interp)} ({interp})",
            "",
            "```text",
            jmh_table(run, interp),
            "```",
            "",
        ]
    return "\n".join(out)


def summary(run: Run, tables: Sequence[RatioTable]) -> Dict[str, Any]:
    """Every number of the report, as plain JSON."""
    return {
        "study": {k: v for k, v in run.study.items() if k != "interpreters"},
        "interpreters": {
            i: {
                "title": run.title(i),
                **{k: v for k, v in run.study["interpreters"][i].items() if k != "metadata"},
            }
            for i in run.interpreters
        },
        "cases": [
            {
                "interpreter": m.interpreter,
                "mode": m.case.mode,
                "algorithm": m.case.algorithm,
                "variant": m.case.variant,
                "length": m.case.length,
                "count": m.case.number,
                "kind": run.kind(m.case.variant),
                "n": len(m.values),
                "time_s": m.time,
                "median_s": stats.median(list(m.values.values())),
                "mb_per_s": m.mb_per_s,
            }
            for m in run.measured.values()
        ],
        "tables": [t.as_json() for t in tables],
        "ratios": [r for t in tables if t.timed for r in t.records()],
        "headlines": headlines(run, tables),
        "bridge_times": bridge_times(run),
    }


def newest_bytecode() -> Optional[Dict[str, Any]]:
    folder = newest("bytecode", "bytecode.json")
    if folder is None:
        return None
    data: Dict[str, Any] = json.loads((folder / "bytecode.json").read_text())
    data["run"] = folder.name
    return data


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, help="a run (default: the newest)")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--bytecode", type=Path, help="a bytecode run (default: the newest)")
    args = parser.parse_args(argv)
    folder: Optional[Path] = args.folder or newest("bench", "values.json")
    if folder is None:
        raise SystemExit(f"no run under {RESULTS / 'bench'}")
    run = Run.load(folder)
    bytecode = (
        json.loads((args.bytecode / "bytecode.json").read_text())
        if args.bytecode
        else newest_bytecode()
    )
    tables = ratio_tables(run, bytecode)
    data = summary(run, tables)
    (folder / "summary.json").write_text(json.dumps(data, indent=1))
    figures: List[str] = []
    if not args.no_plots:
        try:
            from bench import plots
        except ImportError as exc:  # matplotlib missing: the report without figures
            print(f"(no figures: {exc})")
        else:
            figures = [p.name for p in plots.draw_all(data, folder)]
    text = render(run, tables, figures)
    (folder / "report.md").write_text(text + "\n")
    print(text)
    print(f"\nreport: {folder / 'report.md'}; figures: {', '.join(figures) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
