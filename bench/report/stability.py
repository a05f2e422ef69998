"""Do two runs of the study agree? Every ratio of one run against the other's, and its verdicts.

    python -m bench stability results/bench/RUN_A results/bench/RUN_B
    python -m bench stability runs/RUN_A runs/RUN_B   # kept runs (or their names alone)
    python -m bench stability A B --strict      # exit 1 if a target is missed
    python -m bench stability A B --floor 0.05  # and with a further 5% between-run term in A's
    python -m bench stability results/bytecode/RUN_A results/bytecode/RUN_B   # instructions

The targets, between two consecutive default runs of one tree: honest intervals (at least 90%
of all the second run's ratios inside the first run's 95% intervals, 95% of the README's),
precision where the README needs it (a median half-width of at most 5% for the README's
ratios, 95% of them within 10% of each other) and decided verdicts (none whose classes the
two runs do not share: a "between X and Y" may become X). It also says where the variance
came from, level by level (rounds, processes, stretches of time), in the first run. Given
two ``bench bytecode`` runs it compares their instruction counts (equal within 0.5%). Given two
runs of one styles file (``python -m bench styles``), "the README's" ratios are the file's
(each style ÷ its baseline), and their instruction counts are compared too.

Runs of two machines are not reruns: for them it prints, per mode and algorithm, the helpers
÷ streamlined ratio in time and in machine instructions on each, and whether the times differ
beyond both runs' rerun intervals (``machines``): the same code executes the same
instructions on both, and where the times still differ, the CPU moved them.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Sequence, Tuple

from .. import store
from ..core import stats
from ..core.fmt import interval, ratio, table
from ..core.stats import Estimate, by_process, components, time_of
from ..profile import style_instructions
from ..store import kept
from . import answers
from .answers import NAMES, Report, Rerun

Key = Tuple[str, Tuple[str, ...], str]
#: The targets: (what, at least or at most, the bound).
COVERAGE, README_COVERAGE = 0.90, 0.95
README_HALF_WIDTH, README_WITHIN = 0.05, 0.95
INSTRUCTIONS_TARGET = 0.005


def estimates(r: Report, readme: bool = False) -> Dict[Key, Estimate]:
    """Every ratio of the counted tables (or of the README's) with its interval, by
    (table, row labels, column); a derived cell's column names the variant or mode it took,
    so that two runs that took different ones do not compare them."""
    found: Dict[Key, Estimate] = {}
    for t in r.tables:
        if (t.spec.readme if readme else t.spec.counted) and t.ratios():
            for row in t.rows:
                for column, c in zip(t.columns, row.cells):
                    if c is not None and c.kind == "ratio":  # a derived side: what it took
                        found[(t.key, row.labels, f"{column} {c.took}".strip())] = c.estimate
    return found


def coverage(a: Mapping[Key, Estimate], b: Mapping[Key, Estimate]) -> float:
    """The share of ``b``'s ratios inside ``a``'s 95% intervals (of the ratios both have)."""
    common = [k for k in a if k in b]
    inside = sum(1 for k in common if a[k].low <= b[k].value <= a[k].high)
    return inside / len(common) if common else 0.0


def changes(a: Mapping[Key, Estimate], b: Mapping[Key, Estimate]) -> Dict[Key, float]:
    """|b / a - 1| of every ratio both have."""
    return {k: abs(b[k].value / a[k].value - 1) for k in a if k in b and a[k].value > 0}


def within(moved: Mapping[Key, float], limit: float) -> float:
    return sum(1 for d in moved.values() if d <= limit) / len(moved) if moved else 0.0


def median_half(found: Mapping[Key, Estimate]) -> float:
    return stats.median_half([e.half_width for e in found.values()])


def said(e: Estimate) -> str:
    """A styles run's verdict of a ratio (``bench.core.stats.verdict``: the interval decides)."""
    return stats.verdict(e.value, e.low, e.high)


def flips(a: Report, b: Report) -> List[str]:
    """The verdicts whose classes the two runs do not share (a styles run's: its ratios')."""
    if a.run.header.study_name != "bench":
        ea, eb = estimates(a), estimates(b)
        return [
            f"{k[2]} {' '.join(k[1])}: {said(ea[k])} -> {said(eb[k])}"
            for k in ea
            if k in eb and said(ea[k]) != said(eb[k])
        ]
    theirs = {(v.mode, v.algorithm): v for v in b.verdicts}
    out = []
    for v in a.verdicts:
        w = theirs.get((v.mode, v.algorithm))
        if w and (v.classes[1] < w.classes[0] or w.classes[1] < v.classes[0]):
            out.append(f"{v.mode} {v.algorithm}: {v.word()} -> {w.word()}")
    return out


def rerun(a: Report, b: Report) -> Rerun:
    """How run ``b`` held against ``a``: what the README's trust line says."""
    every, theirs = estimates(a), estimates(b)
    readme, readme_b = estimates(a, True), estimates(b, True)
    common = [k for k in every if k in theirs]
    shown = [k for k in readme if k in readme_b]
    return Rerun(
        b.run.name,
        len(common),
        coverage(every, theirs),
        len(shown),
        coverage(readme, readme_b),
        within(changes(readme, readme_b), 0.10),
        len(flips(a, b)),
    )


def levels(r: Report) -> List[List[str]]:
    """Where the README's ratios' variance came from in this run: the median spread (sd of
    the logarithm) between rounds of one process, between processes, between stretches."""
    rows = [["ratios", "between rounds", "between processes", "between stretches"]]
    for name, readme in (("the README's", True), ("all", False)):
        spreads: List[Tuple[float, float, float]] = []
        for t in r.tables:
            if not (t.spec.readme if readme else t.spec.counted):
                continue
            for cell in (c for row in t.spec.rows for c in row.cells if c and c.kind == "ratio"):
                a, b = (r.run.measured.get(m) for m in (cell.a, cell.b) if m)
                if a is None or b is None:
                    continue
                pa, pb = by_process(a.values), by_process(b.values)
                common = sorted(set(pa) & set(pb))
                if len(common) < 3:
                    continue
                inner = [
                    statistics.stdev([math.log(x / y) for x, y in zip(pa[p], pb[p])])
                    for p in common
                    if min(len(pa[p]), len(pb[p])) > 1
                ]
                logs = [math.log(time_of(pa[p]) / time_of(pb[p])) for p in common]
                c = components(logs, [a.stretches.get(p, 0) for p in common])
                spreads.append(
                    (
                        statistics.fmean(inner) if inner else math.nan,
                        math.sqrt(c.within),
                        math.sqrt(c.between),
                    )
                )
        if spreads:
            # a kept run keeps the rounds of the README's cases only: no spread between the
            # rounds of the others ("—")
            medians = [
                statistics.median([x for s in spreads if not math.isnan(x := s[i])] or [math.nan])
                for i in range(3)
            ]
            rows.append(
                [
                    f"{name} ({len(spreads)})",
                    *("—" if math.isnan(m) else f"{m:.1%}" for m in medians),
                ]
            )
    return rows


Counts = Dict[Tuple[str, str, str], float]


def bytecode_counts(folder: Path) -> Counts:
    """A ``bench bytecode`` run's instructions per byte by (mode, variant, algorithm)."""
    return dict(store.counts_of(store.read_record(folder / "bytecode.json")["rows"]))


def styles_counts(folder: Path) -> Counts:
    """A styles run's instructions per call by (mode, style, size)
    (``bench.profile.style_instructions``)."""
    found = store.read_record(style_instructions.path_of(folder))["modes"]
    return {
        (mode, r["style"], str(r["size"])): float(r["instructions"])
        for mode, m in found.items()
        for r in m.get("rows", ())
    }


def compare_instructions(
    first: Path,
    second: Path,
    strict: bool,
    read: Callable[[Path], Counts] = bytecode_counts,
    names: Tuple[str, str] = ("variant", "algorithm"),
) -> int:
    a, b = read(first), read(second)
    common = [k for k in a if k in b and a[k] > 0]
    if not common:
        print("no instruction count in common")
        return 1
    moved = sorted(((abs(b[k] / a[k] - 1), k) for k in common), reverse=True)
    equal = sum(1 for d, _ in moved if d <= INSTRUCTIONS_TARGET) / len(moved)
    print(f"{first.name} vs {second.name}: {len(common)} instruction counts in common")
    rows = [["mode", *names, "first", "second", "change"]]
    rows += [[*k, f"{a[k]:.4g}", f"{b[k]:.4g}", f"{d:.3%}"] for d, k in moved[:10]]
    print(table(rows, "lllrrr"))
    print(
        f"\n{equal:.1%} of the counts equal within {INSTRUCTIONS_TARGET:.1%}; "
        f"largest change {moved[0][0]:.3%}"
    )
    return 1 if strict and equal < 1 else 0


def by_table(a: Mapping[Key, Estimate], b: Mapping[Key, Estimate]) -> str:
    """Per table: ratios, median change, shares within 10% / 20%, coverage, width."""
    tables: Dict[str, List[Key]] = {}
    for k in a:
        if k in b:
            tables.setdefault(k[0], []).append(k)
    rows = [
        [
            "table",
            "ratios",
            "median change",
            "within 10%",
            "within 20%",
            "inside A's 95%",
            "median ±, A",
        ]
    ]
    for name, keys in tables.items():
        mine, theirs = {k: a[k] for k in keys}, {k: b[k] for k in keys}
        moved = changes(mine, theirs)
        rows.append(
            [
                name,
                str(len(keys)),
                f"{statistics.median(moved.values()):.1%}",
                f"{within(moved, 0.1):.1%}",
                f"{within(moved, 0.2):.1%}",
                f"{coverage(mine, theirs):.1%}",
                f"{median_half(mine):.1%}",
            ]
        )
    return table(rows, "lrrrrrr")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("first", type=Path, help="a run's folder, a kept run's or its name")
    parser.add_argument("second", type=Path, help="another")
    parser.add_argument("--show", type=int, default=15, help="list this many largest changes")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument(
        "--floor",
        type=float,
        action="append",
        default=[],
        help="also: coverage and width were a further between-run term of this size (0.03: 3 "
        "%%; beyond stats.RUN_TERM) in the first run's intervals (repeat)",
    )


def run_at(path: Path) -> store.Run:
    """A run's folder (``results/bench/RUN``), a kept run's (``runs/RUN``) or a kept run's name."""
    if (path / kept.FILE).exists():
        return kept.read(path)
    if not (path / "study.json").exists() and (kept.KEPT / path.name / kept.FILE).exists():
        return kept.read(kept.KEPT / path.name)
    return store.load(path)


def machine_of(run: store.Run) -> str:
    """The machine a run was measured on (its CPU label where its header says no more)."""
    h = run.header
    return kept.machine_key(h.machine) if h.machine else h.cpu


#: Two instruction ratios this close are the same code executed (callgrind's counts are exact).
SAME_INSTRUCTIONS = 0.01


def machines(a: Report, b: Report) -> Tuple[List[List[str]], int, int, Tuple[int, int]]:
    """Per mode and algorithm, helpers ÷ streamlined in time and in instructions on each
    machine, and whether the times differ beyond both rerun intervals; with the count of
    ratios, of those that differ, and (of those counted on both, those whose instruction
    ratios are the same)."""
    ta, tb = a.table("styles"), b.table("styles")
    rows = [
        ["mode", "algorithm", "time, A", "time, B", "B ÷ A", "instr., A", "instr., B", "differs"]
    ]
    n = moved = same = counted = 0
    if ta is None or tb is None:
        return rows, 0, 0, (0, 0)
    for row in ta.rows:
        for name in NAMES.values():
            x, y = ta.at(row.labels, name), tb.at(row.labels, name)
            if x is None or y is None:
                continue
            ix, iy = (t.at(row.labels, f"{name} instr.") if t else None for t in (ta, tb))
            apart = x.high < y.low or y.high < x.low
            n, moved = n + 1, moved + apart
            shown = [f"{i.value:.3g}" if i else "—" for i in (ix, iy)]
            counted += bool(ix and iy)
            same += bool(ix and iy and abs(iy.value / ix.value - 1) <= SAME_INSTRUCTIONS)
            rows.append(
                [
                    row.labels[0],
                    name,
                    f"{ratio(x.value)} ({interval(x.low, x.high)})",
                    f"{ratio(y.value)} ({interval(y.low, y.high)})",
                    f"{y.value / x.value:.2f}",
                    *shown,
                    "beyond both intervals" if apart else "no",
                ]
            )
    return rows, n, moved, (same, counted)


def across(first: Report, second: Report) -> int:
    """``stability`` on runs of two machines: what the CPU moves, mode by mode."""
    rows, n, moved, (same, counted) = machines(first, second)
    print(
        f"A: {first.run.name} on {machine_of(first.run)}\nB: {second.run.name} on "
        f"{machine_of(second.run)}\nruns of two machines: not reruns of each other; "
        "helpers ÷ streamlined, 16 KiB, in time (95% rerun interval) and in machine "
        "instructions (callgrind)\n"
    )
    print(table(rows, "llrrrrrl"))
    print(
        f"\n{moved} of {n} time ratios differ beyond both runs' intervals; {same} of the "
        f"{counted} instruction ratios counted on both are the same within "
        f"{SAME_INSTRUCTIONS:.0%}: the same code, another CPU"
    )
    return 0


def command(args: argparse.Namespace) -> int:
    if (args.first / "bytecode.json").exists() and not (args.first / "study.json").exists():
        return compare_instructions(args.first, args.second, args.strict)  # bench bytecode's
    first, second = (answers.build(run_at(f)) for f in (args.first, args.second))
    if machine_of(first.run) != machine_of(second.run):
        return across(first, second)
    a, b = estimates(first), estimates(second)
    ra, rb = estimates(first, True), estimates(second, True)
    moved = changes(a, b)
    if not moved:
        print("no ratio in common")
        return 1
    print(
        f"{args.first.name} vs {args.second.name}: {len(moved)} ratios in common, "
        f"{len(changes(ra, rb))} of them the README's; {first.run.header.cpu}"
    )
    for r in (first, second):  # which rule stopped each run's measuring, and when
        print(f"{r.run.name}: {r.run.header.stopped or 'no stopping rule recorded'}")
    print(by_table({**a, **ra}, {**b, **rb}), "", sep="\n")
    rows = [["table", "row", "column", "first", "second", "change"]]
    for (key, row, column), d in sorted(moved.items(), key=lambda x: -x[1])[: args.show]:
        rows.append(
            [
                key,
                " ".join(row),
                column,
                f"{a[(key, row, column)].value:.3g}",
                f"{b[(key, row, column)].value:.3g}",
                f"{d:.1%}",
            ]
        )
    print(table(rows, "lllrrr"), "", sep="\n")
    turned = flips(first, second)
    figures = [
        (
            "all ratios: the second run inside the first's 95% intervals",
            coverage(a, b),
            COVERAGE,
            True,
        ),
        ("the README's: inside the first's 95% intervals", coverage(ra, rb), README_COVERAGE, True),
        ("the README's: median half-width, first run", median_half(ra), README_HALF_WIDTH, False),
        ("the README's: median half-width, second run", median_half(rb), README_HALF_WIDTH, False),
        (
            "the README's: within 10% of each other",
            within(changes(ra, rb), 0.1),
            README_WITHIN,
            True,
        ),
    ]
    missed = bool(turned)
    for what, value, bound, least in figures:
        met = value >= bound if least else value <= bound
        missed = missed or not met
        print(
            f"{what}: {value:.1%} (target {'at least' if least else 'at most'} {bound:.0%}: "
            f"{'met' if met else 'missed'})"
        )
    print(
        f"all ratios: within 10% {within(moved, 0.1):.1%}, within 20% {within(moved, 0.2):.1%}; "
        f"median half-width {median_half(a):.1%} and {median_half(b):.1%}"
    )
    verdicts = len(a) if first.run.header.study_name != "bench" else len(first.verdicts)
    print(
        f"verdicts that changed class: {len(turned)} of {verdicts} (target none: "
        f"{'missed' if turned else 'met'})" + "".join(f"\n  {t}" for t in turned)
    )
    for floor in args.floor:
        wide = {k: e.widened(floor) for k, e in a.items()}
        wider = {k: e.widened(floor) for k, e in ra.items()}
        print(
            f"with a further between-run term of {floor:.1%}: {coverage(wide, b):.1%} of the "
            f"second run inside the first's intervals ({coverage(wider, rb):.1%} of the "
            f"README's), median half-width {median_half(wide):.1%} ({median_half(wider):.1%})"
        )
    print("\nWhere the variance came from in the first run (median sd of the logarithm):")
    print(table(levels(first), "lrrr"))
    code = 1 if args.strict and missed else 0
    if all(style_instructions.path_of(f).exists() for f in (args.first, args.second)):
        print("\nA styles run's machine instructions per call (callgrind):")
        code |= compare_instructions(
            args.first, args.second, args.strict, styles_counts, ("style", "size")
        )
    return code


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(
        prog="python -m bench stability", description=(__doc__ or "").splitlines()[0]
    )
    add_arguments(found)
    return found


def main(argv: Sequence[str]) -> int:
    return command(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
