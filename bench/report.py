"""The study's report: JMH-shaped tables, the ratio tables that answer the study, plots.

    python bench/report.py                      # the newest run under results/bench/
    python bench/report.py results/bench/20261129-213000

Reads the run's pyperf JSON files (one per interpreter) and ``study.json``,
prints the report and writes ``report.md``, ``summary.json`` (every number, for
``readme_results.py`` and ``stability.py``) and PNG plots into the run's folder.

Statistics: the JMH tables show, like JMH, the mean throughput over all
values with the half-width of its 99.9% confidence interval (Student's t).
A ratio between two variants on one interpreter is the median of paired
ratios: value i of both, taken one right after the other in the same worker
(the study interleaves the variants of a group value by value), so that a
machine whose speed changes from one second to the next slows both alike.
Across interpreters, which run in different processes, it is the ratio of the
medians.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from machine import latest, size_label, table
from readme_results import build_table

#: Student's t for a two-sided 99.9% interval, by degrees of freedom (JMH's error).
_T9995 = {
    1: 636.619, 2: 31.599, 3: 12.924, 4: 8.610, 5: 6.869, 6: 5.959, 7: 5.408, 8: 5.041,
    9: 4.781, 10: 4.587, 11: 4.437, 12: 4.318, 13: 4.221, 14: 4.140, 15: 4.073, 16: 4.015,
    17: 3.965, 18: 3.922, 19: 3.883, 20: 3.850, 21: 3.819, 22: 3.792, 23: 3.768, 24: 3.745,
    25: 3.725, 26: 3.707, 27: 3.690, 28: 3.674, 29: 3.659, 30: 3.646, 40: 3.551, 60: 3.460,
    120: 3.373,
}  # fmt: skip
MODE_TITLES = {"digest": "digest", "getAndDigest": "getAndDigest", "block": "block"}
#: The length the interpreter and hashlib tables use: long enough for throughput.
RATIO_LENGTH = 16384
SHORT_LENGTH = 64


def t_quantile(df: int) -> float:
    """Student's t at 0.9995 for ``df`` degrees of freedom (table, then the normal limit)."""
    if df in _T9995:
        return _T9995[df]
    above = [d for d in _T9995 if d > df]
    return _T9995[min(above)] if above else 3.291


@dataclass(frozen=True)
class Stats:
    """One benchmark under one interpreter, from all its values."""

    interpreter: str
    mode: str
    algorithm: str
    variant: str
    length: int
    values: Tuple[float, ...]  # seconds per operation
    runs: int
    #: PyPy: runs whose warm-up ended without the JIT having settled.
    unsettled: int = 0
    #: The values of each run, keyed by its pass: value i of two cases of one
    #: group in one pass were taken one right after the other.
    by_pass: Tuple[Tuple[int, Tuple[float, ...]], ...] = ()

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def score(self) -> float:
        """Mean throughput, operations per millisecond."""
        return statistics.fmean(1e-3 / v for v in self.values)

    @property
    def error(self) -> Optional[float]:
        """Half-width of the 99.9% confidence interval of ``score``; None for one value."""
        if self.n < 2:
            return None
        spread = statistics.stdev(1e-3 / v for v in self.values)
        return t_quantile(self.n - 1) * spread / math.sqrt(self.n)

    @property
    def mb_per_s(self) -> float:
        return self.length / self.median / 1e6


def load_suite(path: Path, label: str) -> List[Stats]:
    """The benchmarks of one interpreter's pyperf file."""
    import pyperf

    suite = pyperf.BenchmarkSuite.load(str(path))
    stats = []
    for bench in suite.get_benchmarks():
        mode, algorithm, variant, length = bench.get_name().split("/")
        values = tuple(float(v) for v in bench.get_values())
        runs = bench.get_runs()
        unsettled = sum(1 for r in runs if r.get_metadata().get("jit_settled") == 0)
        by_pass = tuple(
            (int(r.get_metadata().get("study_pass", i)), tuple(float(v) for v in r.values))
            for i, r in enumerate(runs)
        )
        stats.append(
            Stats(
                label,
                mode,
                algorithm,
                variant,
                int(length),
                values,
                len(runs),
                unsettled,
                by_pass,
            )
        )
    return stats


class Results:
    """Every benchmark of a run, by interpreter, with the run's description."""

    def __init__(self, study: Dict[str, Any], stats: Iterable[Stats]) -> None:
        self.study = study
        self.stats = {(s.interpreter, s.mode, s.algorithm, s.variant, s.length): s for s in stats}
        self.interpreters: List[str] = [
            label for label in study["interpreters"] if any(k[0] == label for k in self.stats)
        ]

    @classmethod
    def load(cls, folder: Path) -> Results:
        study = json.loads((folder / "study.json").read_text())
        stats: List[Stats] = []
        for label, info in study["interpreters"].items():
            if info.get("file"):
                stats += load_suite(folder / info["file"], label)
        return cls(study, stats)

    def get(self, interp: str, mode: str, alg: str, variant: str, length: int) -> Optional[Stats]:
        return self.stats.get((interp, mode, alg, variant, length))

    def median(
        self, interp: str, mode: str, alg: str, variant: str, length: int
    ) -> Optional[float]:
        s = self.get(interp, mode, alg, variant, length)
        return s.median if s else None

    def variant_info(self, interp: str, variant: str) -> Dict[str, Any]:
        info: Dict[str, Any] = self.study["interpreters"][interp]["variants"].get(variant, {})
        return info

    def variants(self) -> List[str]:
        """Every variant measured, in the order of the first interpreter's listing."""
        seen: Dict[str, None] = {}
        for interp in self.interpreters:
            for name in self.study["interpreters"][interp]["variants"]:
                if any(k[0] == interp and k[3] == name for k in self.stats):
                    seen.setdefault(name, None)
        return list(seen)

    def lengths(self) -> List[int]:
        return sorted({k[4] for k in self.stats})

    def algorithms(self) -> List[str]:
        return [a for a in ("md5", "sha256") if any(k[2] == a for k in self.stats)]

    def interpreter_title(self, interp: str) -> str:
        info = self.study["interpreters"][interp]
        title = f"{info['implementation']} {info['version']}"
        if info.get("pypy_version"):
            title += f" (PyPy {info['pypy_version']})"
        return title

    def ratio_length(self, preferred: int = RATIO_LENGTH) -> int:
        lengths = self.lengths()
        if preferred in lengths:
            return preferred
        below = [n for n in lengths if n <= preferred]
        return max(below) if below else lengths[0]


# --- the JMH-shaped tables -------------------------------------------------------------


def jmh_table(results: Results, interp: str) -> str:
    """The interpreter's results laid out like JMH's console output, plus MB/s."""
    header = [
        "Benchmark",
        "(algorithm)",
        "(variant)",
        "(length)",
        "Mode",
        "Cnt",
        "Score",
        "",
        "Error",
        "Units",
        "MB/s",
        "",
    ]
    rows = [header]
    keys = sorted(
        (k for k in results.stats if k[0] == interp),
        key=lambda k: (list(MODE_TITLES).index(k[1]), k[2], results.variants().index(k[3]), k[4]),
    )
    for key in keys:
        s = results.stats[key]
        error = s.error
        rows.append(
            [
                f"MessageDigests.{s.mode}",
                s.algorithm,
                s.variant,
                str(s.length),
                "thrpt",
                str(s.n),
                _sig(s.score),
                "±" if error is not None else "",
                _sig(error) if error is not None else "",
                "ops/ms",
                _sig(s.mb_per_s),
                f"JIT unsettled in {s.unsettled}/{s.runs} runs" if s.unsettled else "",
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


def _sig(x: float, digits: int = 4) -> str:
    """``x`` with about ``digits`` significant digits, no exponent for everyday sizes."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{min(decimals, 6)}f}"


def _ratio(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


# --- the ratio tables ------------------------------------------------------------------


@dataclass
class RatioTable:
    """One of the study's answers: rows of ratios, with what they mean."""

    key: str
    title: str
    meaning: str
    row_header: List[str]
    columns: List[str]
    rows: List[Tuple[List[str], List[Optional[float]]]]

    def markdown(self) -> str:
        body = [[*labels, *(_cell(v) for v in values)] for labels, values in self.rows]
        header = [*self.row_header, *self.columns]
        align = "l" * len(self.row_header) + "r" * len(self.columns)
        return table([header, *body], align)

    def records(self) -> List[Dict[str, Any]]:
        out = []
        for labels, values in self.rows:
            for column, value in zip(self.columns, values):
                if value is not None:
                    unsettled = bool(getattr(value, "unsettled", False))
                    out.append(
                        {
                            "table": self.key,
                            "row": labels,
                            "column": column,
                            "value": float(value),
                            "unsettled": unsettled,
                        }
                    )
        return out


class Ratio(float):
    """A ratio of two medians; ``unsettled`` if PyPy's JIT had not settled for either."""

    unsettled = False


def paired(a: Stats, b: Stats) -> List[float]:
    """a/b for each pair of values taken one right after the other (same pass, same round)."""
    b_runs = dict(b.by_pass)
    pairs: List[float] = []
    for p, a_values in a.by_pass:
        pairs += [x / y for x, y in zip(a_values, b_runs.get(p, ()))]
    return pairs


def _over(a: Optional[Stats], b: Optional[Stats], pair: bool = True) -> Optional[float]:
    """median(a)/median(b); for two cases of one group, the median of paired ratios.

    On a machine whose speed changes from one second to the next, the pairs
    compare values taken under the same conditions, which two medians, each
    over the whole run, do not.
    """
    if a is None or b is None or b.median <= 0:
        return None
    pairs = paired(a, b) if pair else []
    ratio = Ratio(statistics.median(pairs) if pairs else a.median / b.median)
    ratio.unsettled = bool(a.unsettled or b.unsettled)
    return ratio


def _cell(value: Optional[float]) -> str:
    return _ratio(value) + ("*" if getattr(value, "unsettled", False) else "")


def _ratio_columns(results: Results) -> List[Tuple[str, str, int]]:
    """(column title, mode, length): digest up to 16 KiB, then the block function.

    Not 1 MiB: by 16 KiB every variant runs at its per-block speed already, and
    at 1 MiB the slow variants have one whole-message value or two per run (see
    the JMH tables), too few for a ratio that holds from one run to the next.
    """
    cols = [
        (f"digest {size_label(n)}", "digest", n) for n in results.lengths() if n <= RATIO_LENGTH
    ]
    cols += [
        (f"block {size_label(n)}", "block", n)
        for n in (SHORT_LENGTH, results.ratio_length())
        if any(k[1] == "block" and k[4] == n for k in results.stats)
    ]
    return cols


def style_pairs(results: Results) -> List[Tuple[str, str, str]]:
    """(build, streamlined-shaped variant, helper-shaped variant) pairs to compare.

    The interpreted pair, then every pair of compiled twins built the same way
    (``streamlined-mypyc`` with ``helpers-mypyc``, and so on).
    """
    variants = results.variants()
    pairs = []
    if "streamlined" in variants and "helpers" in variants:
        pairs.append(("interpreted", "streamlined", "helpers"))
    sources: Dict[str, str] = {}
    for interp in results.interpreters:
        for name in variants:
            source = results.variant_info(interp, name).get("source")
            if source:
                sources[name] = source
    for name, source in sources.items():
        if source != "streamlined":
            continue
        suffix = name[len("streamlined") :] if name.startswith("streamlined") else ""
        twin = f"helpers{suffix}"
        if suffix and sources.get(twin) == "helpers":
            pairs.append((suffix.lstrip("-"), name, twin))
    return pairs


def _ratio_row(
    results: Results,
    interp: str,
    alg: str,
    slower: str,
    faster: str,
    cols: Sequence[Tuple[str, str, int]],
) -> List[Optional[float]]:
    """Time of ``slower`` ÷ time of ``faster`` in each (title, mode, length) column."""
    return [
        _over(results.get(interp, m, alg, slower, n), results.get(interp, m, alg, faster, n))
        for _, m, n in cols
    ]


def style_table(results: Results) -> RatioTable:
    cols = _ratio_columns(results)
    rows = []
    for build, fast, slow in style_pairs(results):
        for interp in results.interpreters:
            for alg in results.algorithms():
                values = _ratio_row(results, interp, alg, slow, fast, cols)
                if any(v is not None for v in values):
                    rows.append(([build, interp, alg], values))
    return RatioTable(
        "style",
        "Streamlined vs helpers: what the coding style costs (the JDK's 4-5x question)",
        "time of the helper-style variant ÷ time of the streamlined one, same interpreter and "
        "build (>1: streamlined is faster)",
        ["build", "interpreter", "algorithm"],
        [c[0] for c in cols],
        rows,
    )


def compiled_table(results: Results) -> RatioTable:
    cols = _ratio_columns(results)
    rows = []
    for name in results.variants():
        for interp in results.interpreters:
            info = results.variant_info(interp, name)
            source = info.get("source")
            if info.get("kind") != "compiled" or not source:
                continue
            for alg in results.algorithms():
                values = _ratio_row(results, interp, alg, source, name, cols)
                if any(v is not None for v in values):
                    rows.append(([name, source, interp, alg], values))
    return RatioTable(
        "compiled",
        "Compiled builds vs their interpreted source: what compiling buys back",
        "time of the interpreted source ÷ time of the compiled build, same interpreter",
        ["compiled", "source", "interpreter", "algorithm"],
        [c[0] for c in cols],
        rows,
    )


def hashlib_table(results: Results, length: int) -> RatioTable:
    rows = []
    for name in results.variants():
        if name == "hashlib":
            continue
        for alg in results.algorithms():
            values = [
                _over(
                    results.get(interp, "digest", alg, name, length),
                    results.get(interp, "digest", alg, "hashlib", length),
                )
                for interp in results.interpreters
            ]
            if any(v is not None for v in values):
                rows.append(([name, alg], values))
    return RatioTable(
        f"hashlib-{length}",
        f"Every variant vs hashlib, {size_label(length)} messages (digest)",
        "time of the variant ÷ time of the interpreter's own hashlib (how many times slower)",
        ["variant", "algorithm"],
        results.interpreters,
        rows,
    )


def interpreter_table(results: Results, length: int) -> Optional[RatioTable]:
    if len(results.interpreters) < 2:
        return None
    base = results.interpreters[0]
    rows = []
    for name in results.variants():
        for alg in results.algorithms():
            values = [
                _over(
                    results.get(base, "digest", alg, name, length),
                    results.get(interp, "digest", alg, name, length),
                    pair=False,
                )
                for interp in results.interpreters[1:]
            ]
            if any(v is not None for v in values):
                rows.append(([name, alg], values))
    return RatioTable(
        f"interpreters-{length}",
        f"The same variant across interpreters, {size_label(length)} messages (digest)",
        f"time on {base} ÷ time on the interpreter of the column (>1: faster than on {base})",
        ["variant", "algorithm"],
        [f"{interp} vs {base}" for interp in results.interpreters[1:]],
        rows,
    )


def ratio_tables(results: Results) -> List[RatioTable]:
    length = results.ratio_length()
    tables = [style_table(results), compiled_table(results), hashlib_table(results, length)]
    short = results.ratio_length(SHORT_LENGTH)
    if short != length:
        tables.append(hashlib_table(results, short))
    across = interpreter_table(results, length)
    if across:
        tables.append(across)
    return [t for t in tables if t.rows]


# --- the report ------------------------------------------------------------------------


def header(results: Results) -> List[str]:
    study = results.study
    settings = study["settings"]
    clock = "process CPU time" if settings.get("clock", "cpu") == "cpu" else "wall-clock time"
    lines = [
        f"CPU: {study['cpu']}; run started {study['started']}; mode `{study['mode']}` "
        f"({settings['passes']} passes, {_minutes(study['measure_seconds'])} of measuring, "
        f"{_minutes(study['wall_seconds'])} in all); times are {clock}.",
        "",
        "Interpreters: "
        + ", ".join(f"{i} = {results.interpreter_title(i)}" for i in results.interpreters)
        + ".",
    ]
    missing = []
    for interp in results.interpreters:
        for name, info in study["interpreters"][interp]["variants"].items():
            if info.get("unavailable"):
                missing.append(f"{name} on {interp} ({info['unavailable']})")
    if missing:
        lines += ["", "Not measured: " + "; ".join(missing) + "."]
    notes = []
    for interp in results.interpreters:
        for name, info in study["interpreters"][interp]["variants"].items():
            if info.get("details"):
                notes.append(f"{name} on {interp}: {info['details']}")
        if "PyPy" in study["interpreters"][interp]["implementation"]:
            desc = (
                study["interpreters"][interp]["variants"].get("streamlined", {}).get("description")
            )
            if desc:
                notes.append(f"`streamlined` on {interp}: {desc}")
    if notes:
        lines += ["", "Notes: " + "; ".join(notes) + "."]
    return lines


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def _present(values: Iterable[Optional[float]]) -> List[float]:
    return [v for v in values if v is not None]


def _span(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return _ratio(low) if high / low < 1.05 else f"{_ratio(low)}-{_ratio(high)}"


def headlines(results: Results, tables: Sequence[RatioTable]) -> List[str]:
    """The answers in a sentence each, from the ratio tables (digest, the ratio length)."""
    by_key = {t.key: t for t in tables}
    length = results.ratio_length()
    column = f"digest {size_label(length)}"
    lines = []
    style = by_key.get("style")
    if style and column in style.columns:
        i = style.columns.index(column)
        for build in dict.fromkeys(labels[0] for labels, _ in style.rows):
            parts = []
            for interp in results.interpreters:
                vals = _present(v[i] for labels, v in style.rows if labels[:2] == [build, interp])
                if vals:
                    parts.append(f"{_span(vals)}x on {interp}")
            if parts:
                lines.append(f"streamlined vs helpers ({build}): " + ", ".join(parts))
    compiled = by_key.get("compiled")
    if compiled and column in compiled.columns:
        i = compiled.columns.index(column)
        for name in dict.fromkeys(labels[0] for labels, _ in compiled.rows):
            vals = _present(v[i] for labels, v in compiled.rows if labels[0] == name)
            source = next(labels[1] for labels, _ in compiled.rows if labels[0] == name)
            if vals:
                lines.append(f"{name} vs {source}: {_span(vals)}x faster")
    hashlib = by_key.get(f"hashlib-{length}")
    if hashlib:
        for j, interp in enumerate(hashlib.columns):
            best = [(x, labels[0], labels[1]) for labels, v in hashlib.rows if (x := v[j])]
            if best:
                value, name, alg = min(best)
                lines.append(
                    f"closest to hashlib on {interp}: {name} {alg}, {_ratio(value)}x its time"
                )
    across = by_key.get(f"interpreters-{length}")
    if across:
        for labels, values in across.rows:
            if labels[0] in ("helpers", "streamlined"):
                parts = [
                    f"{c.split()[0]} {_ratio(v)}x" for c, v in zip(across.columns, values) if v
                ]
                lines.append(
                    f"{labels[0]} {labels[1]} vs {results.interpreters[0]}: " + ", ".join(parts)
                )
    return [f"- {line} ({size_label(length)} messages, digest)." for line in lines]


def build_section(builds: Dict[str, Dict[str, float]]) -> List[str]:
    """Seconds each extension took to build (``pip install -v`` of each environment)."""
    if not builds:
        return []
    return [
        "## Build times",
        "",
        "Seconds to build each extension when the interpreter's environment was installed "
        "(`pip install .` from this tree prints them; gcc at the flags in build_support/, "
        "extensions compiled on every core at once).",
        "",
        build_table(builds),
        "",
    ]


def render(results: Results, tables: Sequence[RatioTable], plots: Sequence[Path]) -> str:
    out = ["# Interpreter-overhead study: results", "", *header(results), ""]
    out += [
        "Modes: `digest` = `h = fresh.copy(); h.update(msg); h.digest()` on an empty object made "
        "once (copy() is the reset, as Python's hash objects have none); `getAndDigest` = "
        "`h = constructor(); h.update(msg); h.digest()`; `block` = the block function alone on "
        "the whole message. Message byte i is i & 0xff. Ratios between variants are medians "
        "of paired ratios (values taken back to back), across interpreters ratios of medians; a * "
        "marks one where, under PyPy, the JIT was still compiling when a run's warm-up ended "
        f"(at its cap of {results.study['settings'].get('pypy_warm', [0, 0])[1]:g} s) "
        "for either side.",
        "",
        "## The study's answers",
        "",
        *headlines(results, tables),
        "",
    ]
    for t in tables:
        out += [f"### {t.title}", "", f"{t.meaning}.", "", t.markdown(), ""]
    if plots:
        out += ["## Plots", ""]
        out += [f"![{p.stem}]({p.name})" for p in plots]
        out += [""]
    out += build_section(results.study.get("builds") or {})
    out += ["## Every benchmark, in the shape of JMH's output", ""]
    for interp in results.interpreters:
        out += [f"### {results.interpreter_title(interp)} ({interp})", "", "```text"]
        out += [jmh_table(results, interp), "```", ""]
    return "\n".join(out)


def summary(results: Results, tables: Sequence[RatioTable]) -> Dict[str, Any]:
    """Every number of the report, as plain JSON."""
    return {
        "study": {k: v for k, v in results.study.items() if k != "interpreters"},
        "interpreters": {
            i: {
                "title": results.interpreter_title(i),
                "variants": results.study["interpreters"][i]["variants"],
            }
            for i in results.interpreters
        },
        "results": [
            {
                "interpreter": s.interpreter,
                "mode": s.mode,
                "algorithm": s.algorithm,
                "variant": s.variant,
                "length": s.length,
                "n": s.n,
                "runs": s.runs,
                "median_s": s.median,
                "ops_per_ms": s.score,
                "error": s.error,
                "mb_per_s": s.mb_per_s,
            }
            for s in results.stats.values()
        ],
        "tables": [
            {
                "key": t.key,
                "title": t.title,
                "meaning": t.meaning,
                "row_header": t.row_header,
                "columns": t.columns,
                "rows": [
                    [labels, values, [bool(getattr(v, "unsettled", False)) for v in values]]
                    for labels, values in t.rows
                ],
            }
            for t in tables
        ],
        "ratios": [r for t in tables for r in t.records()],
        "headlines": headlines(results, tables),
    }


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, help="a run (default: the newest)")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    folder: Path = args.folder or latest("bench")
    results = Results.load(folder)
    tables = ratio_tables(results)
    plots: List[Path] = []
    try:
        if args.no_plots:
            raise ImportError("--no-plots")
        import plots as plotting
    except ImportError as exc:  # matplotlib missing: the report without plots
        print(f"(no plots: {exc})")
    else:
        plots = plotting.draw_all(results, folder)
    text = render(results, tables, plots)
    (folder / "report.md").write_text(text + "\n")
    (folder / "summary.json").write_text(json.dumps(summary(results, tables), indent=1))
    print(text)
    print(f"\nreport: {folder / 'report.md'}; plots: {', '.join(p.name for p in plots) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
