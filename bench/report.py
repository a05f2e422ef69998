"""The study's answers from a run: its ratio tables, the seeds' table per mode, verdicts, trust.

    python -m bench.report                      # the newest run under results/bench/
    python -m bench.report results/bench/20261129-213000 --bytecode results/bytecode/RUN

Reads the run (``bench.results``: ``study.json``, ``values.json``, and the
newest ``nox -s bytecode`` run for instruction counts); writes
``summary.json`` (every number, for ``bench.stability``), ``report.md``
(``bench.docs`` lays it out) and the figures (``bench.plots``, with matplotlib).

Every table is one call of :func:`ratio_table`: rows against columns (mostly
the run's modes), each cell a ratio of two times over the same rounds with
its 95% interval, marked † where ``bench.stats`` does not call it settled;
there, at 16 KiB, the cell carries callgrind's ratio of machine instructions
too (deterministic), and the verdicts say which of the two they rest on.
The "fastest pure Python" row is a :class:`Subject` of its own: in each
column, the interpreted variant fastest at 16 KiB there, named in the row.
Every benchmark's own values are in the run's pyperf files
(``python -m pyperf show results/bench/RUN/3.11.json``, ``compare_to``).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from bench.fmt import DASH, size_label
from bench.results import FOLDS, HASHLIB, Measured, Run, ratio
from bench.table import Cell, RatioTable, count, ratio_table

#: The baseline shape (PyPy's _md5, the JDK before streamlining) and the JDK's rewrite.
TEXTBOOK, STREAMLINED = "helpers", "streamlined"
LONG = 16384
SEED_LENGTHS = (64, 1024, 16384)
FASTEST = "fastest pure Python"


@dataclass(frozen=True)
class Subject:
    """What a row measures in each column: a variant, a variant of a folded mode, or the fastest."""

    label: str
    variant: str = ""  # "": the fastest pure Python of each column
    fold: str = ""  # the folded mode's suffix ("portable"), "": the column's own mode


def pick(
    run: Run, s: Subject, column: str, bench: str, alg: str, length: int, number: int = 1
) -> Optional[Measured]:
    mode = run.folds(column).get(s.fold) if s.fold else column
    variant = s.variant or run.fastest(column, alg, run.length(LONG))
    return run.get(mode, bench, alg, variant, length, number) if mode and variant else None


def over(run: Run, a: Optional[Measured], b: Optional[Measured], took: str = "") -> Optional[Cell]:
    """time(a) ÷ time(b) as a cell; callgrind's ratio beside a long one that did not settle."""
    r = ratio(a.values, b.values) if a and b else None
    if r is None or a is None or b is None:
        return None
    long = a.case.mode == "digest" and a.case.length >= LONG
    # Instructions judge interpreted code against interpreted code only: compiled code runs
    # several instructions a cycle, and valgrind's CPU has no SHA-NI.
    python = {run.kind(a.case.variant), run.kind(b.case.variant)} == {"interpreted"}
    instructions = run.instructions(a, b) if long and python and not r.settled else math.nan
    return Cell(
        r.value, r.low, r.high, r.settled, r.n, r.processes, took=took, instructions=instructions
    )


def subjects(run: Run, fastest: bool = True) -> List[Subject]:
    """A row per variant, a row per variant of a folded mode, and the fastest pure Python."""
    found = [Subject(v, v) for v in run.variants()]
    for column in run.columns:
        for suffix, mode in run.folds(column).items():
            for v in dict.fromkeys(m.case.variant for m in run.measured.values() if m.mode == mode):
                s = Subject(f"{v} ({FOLDS[suffix]})", v, suffix)
                if v != HASHLIB and s not in found:
                    found.append(s)
    return found + ([Subject(FASTEST)] if fastest and run.interpreted() else [])


def benches(run: Run) -> List[Tuple[str, str, int]]:
    """(title, benchmark, length) of the style tables' rows: digest to 16 KiB, block."""
    found = [(f"digest {size_label(n)}", "digest", n) for n in run.lengths() if n <= LONG]
    return found + [(f"block {size_label(n)}", "block", n) for n in run.lengths("block")]


def modes(run: Run) -> List[Tuple[str, str]]:
    return [(c, c) for c in run.columns]


# --- the tables -------------------------------------------------------------------------

#: (numerator, denominator, algorithm, benchmark, length, messages): a cell's two cases.
Pair = Tuple[Subject, Subject, str, str, int, int]


def pair_cell(run: Run) -> Callable[[Pair, str], Optional[Cell]]:
    """time(numerator) ÷ time(denominator) in a column; a derived side names what it took."""

    def cell(p: Pair, column: str) -> Optional[Cell]:
        top, bottom, alg, bench, n, number = p
        a = pick(run, top, column, bench, alg, n, number)
        b = pick(run, bottom, column, bench, alg, n, number)
        if b is None and bottom.fold:  # a folded mode without a hashlib of its own
            b = pick(run, Subject(bottom.label, bottom.variant), column, bench, alg, n, number)
        took = next((m.case.variant for s, m in ((top, a), (bottom, b)) if m and not s.variant), "")
        return over(run, a, b, took)

    return cell


def style_pairs(run: Run) -> List[Tuple[str, Subject, Subject]]:
    """(build, shape, its helper-style baseline): interpreted shapes, twins by build, fastest."""
    base = Subject(TEXTBOOK, TEXTBOOK)
    pairs = [("interpreted", Subject(v, v), base) for v in run.interpreted() if v != TEXTBOOK]
    twins = {v: t for v in run.variants() if (t := run.twin(v))}
    for name, t in twins.items():
        match = [o for o, u in twins.items() if u.source == TEXTBOOK and u.build == t.build]
        if t.source != TEXTBOOK and match:
            pairs.append((t.build, Subject(name, name), Subject(match[0], match[0])))
    return pairs + ([("interpreted", Subject(FASTEST), base)] if run.interpreted() else [])


def style_table(run: Run) -> RatioTable:
    rows = [
        ([build, shape.label, alg, title], (textbook, shape, alg, bench, n, 1))
        for build, shape, textbook in style_pairs(run)
        for alg in run.algorithms()
        for title, bench, n in benches(run)
    ]
    return ratio_table(
        "style",
        "Each shape against the helper style: what the coding style costs (the JDK's 4-5x)",
        "time of the helper-style variant ÷ time of the shape, same mode and build (>1: the "
        f"shape is faster); `{FASTEST}` is, in each mode, the interpreted variant fastest at "
        f"{size_label(run.length(LONG))}",
        ["build", "shape", "algorithm", "benchmark"],
        rows,
        modes(run),
        pair_cell(run),
    )


def compiled_table(run: Run) -> RatioTable:
    twins = [(v, t.source) for v in run.variants() if (t := run.twin(v))]
    rows = [
        ([name, source, alg, title], (Subject(source, source), Subject(name, name), alg, b, n, 1))
        for name, source in twins
        for alg in run.algorithms()
        for title, b, n in benches(run)
    ]
    return ratio_table(
        "compiled",
        "Compiled twins against their interpreted source: what compiling buys back",
        "time of the interpreted source ÷ time of the compiled twin, same mode",
        ["compiled", "source", "algorithm", "benchmark"],
        rows,
        modes(run),
        pair_cell(run),
    )


def jit_pairs(run: Run) -> List[Tuple[str, str]]:
    """(JIT off, JIT on) columns of one interpreter: 3.14 and 3.14-jit, pypy8-nojit and pypy8."""
    found = []
    for on in run.columns:
        offs = [
            c
            for c in run.columns
            if run.mode(c).interpreter == run.mode(on).interpreter and not run.mode(c).jit
        ]
        if run.mode(on).jit and offs:
            found.append((offs[0], on))
    return found


def twins_jit_table(run: Run) -> RatioTable:
    """The compiled twins against CPython's own JIT running their source."""
    cpython = [
        (f"{on} ({off})", (off, on))
        for off, on in jit_pairs(run)
        if run.mode(on).implementation == "CPython"
    ]
    twins = [(v, t.source) for v in run.variants() if (t := run.twin(v))]
    lengths = [n for n in run.lengths() if n <= LONG]
    rows: List[Tuple[List[str], Tuple[str, str, str, int]]] = []
    for source in dict.fromkeys(s for _, s in twins):
        rows += [
            (["the JIT itself", source, a, size_label(n)], ("", source, a, n))
            for a in run.algorithms()
            for n in lengths
        ]
    rows += [
        ([v, s, a, size_label(n)], (v, s, a, n))
        for v, s in twins
        for a in run.algorithms()
        for n in lengths
    ]

    def cell(r: Tuple[str, str, str, int], modes_: Tuple[str, str]) -> Optional[Cell]:
        twin, source, alg, n = r
        off, on = modes_
        if not twin:  # the JIT against the interpreter, on the source
            return over(
                run, run.get(off, "digest", alg, source, n), run.get(on, "digest", alg, source, n)
            )
        return over(run, run.get(on, "digest", alg, source, n), run.get(on, "digest", alg, twin, n))

    return ratio_table(
        "twins-jit",
        "The compiled twins against CPython's own JIT on the same source (digest)",
        "time of the source under the JIT ÷ time of its compiled twin (>1: compiling beats the "
        "JIT); `the JIT itself`: time of the source with the JIT off ÷ with it on",
        ["compiled", "source", "algorithm", "length"],
        rows,
        cpython,
        cell,
    )


def against_hashlib(
    run: Run, rows: Sequence[Subject], bench: str, n: int
) -> List[Tuple[List[str], Pair]]:
    """Rows of each subject against hashlib (a folded mode's own hashlib, where it has one)."""
    return [
        ([s.label, alg], (s, Subject(HASHLIB, HASHLIB, s.fold), alg, bench, n, 1))
        for s in rows
        if s.variant != HASHLIB
        for alg in run.algorithms()
    ]


def hashlib_table(run: Run, length: int) -> RatioTable:
    rows = against_hashlib(run, subjects(run), "digest", length)
    return ratio_table(
        f"hashlib-{length}",
        f"Every variant against hashlib, {size_label(length)} messages (digest)",
        "time of the variant ÷ time of the mode's own hashlib (how many times slower)",
        ["variant", "algorithm"],
        rows,
        modes(run),
        pair_cell(run),
    )


def modes_table(run: Run, length: int) -> Optional[RatioTable]:
    if len(run.columns) < 2:
        return None
    base = run.columns[0]

    def cell(r: Tuple[Subject, str], column: str) -> Optional[Cell]:
        s, alg = r
        return over(
            run,
            pick(run, s, base, "digest", alg, length),
            pick(run, s, column, "digest", alg, length),
        )

    return ratio_table(
        f"modes-{length}",
        f"The same program across modes, {size_label(length)} messages (digest)",
        f"time under {base} ÷ time under the column's mode (>1: faster than under {base}); "
        "the modes took their values in turn, round by round",
        ["variant", "algorithm"],
        [
            ([s.label, alg], (s, alg))
            for s in subjects(run, fastest=False)
            for alg in run.algorithms()
        ],
        [(f"{c} vs {base}", c) for c in run.columns[1:]],
        cell,
    )


def bridges(run: Run) -> List[Subject]:
    """The rows that are one call into C: references, native bridges, typed Cython."""
    kinds = ("reference", "native")
    return [
        s
        for s in subjects(run, fastest=False)
        if run.kind(s.variant) in kinds
        or (run.kind(s.variant) == "compiled" and not run.twin(s.variant))
    ]


def bridge_table(run: Run) -> Optional[RatioTable]:
    """Per-call cost of each bridge into C: one short message, constructed and digested."""
    n = min(run.lengths("getAndDigest"), default=None)
    if n is None:
        return None
    rows = against_hashlib(run, bridges(run), "getAndDigest", n)
    return ratio_table(
        "bridges",
        f"What a call costs through each bridge into C, {size_label(n)} messages "
        "(getAndDigest: construct, update, digest)",
        "time of the row ÷ time of hashlib, same mode; the time per call is in the table below",
        ["bridge", "algorithm"],
        rows,
        modes(run),
        pair_cell(run),
    )


def batch_table(run: Run) -> Optional[RatioTable]:
    """digest_many of the drop-in's variant against the hashlib loop, per mode."""
    sizes = sorted(
        {(m.case.length, m.case.number) for m in run.measured.values() if m.case.mode == "batch"}
    )

    def cell(r: Tuple[str, int, int], column: str) -> Optional[Cell]:
        alg, n, number = r
        mine = run.mode(column).batch_variant
        theirs = run.get(column, "batch", alg, HASHLIB, n, number)
        return over(run, theirs, run.get(column, "batch", alg, str(mine), n, number), str(mine))

    return ratio_table(
        "batch",
        "Batches: the drop-in's digest_many against the hashlib loop",
        "time of `[md5(m).digest() for m in messages]` with hashlib ÷ time of "
        "`variants.digest_many(name, messages)` (>1: digest_many is faster)",
        ["messages", "algorithm"],
        [
            ([f"{number} x {size_label(n)}", a], (a, n, number))
            for n, number in sizes
            for a in run.algorithms()
        ],
        modes(run),
        cell,
    )


def seeds_table(run: Run) -> RatioTable:
    """The JDK's table (seed 002): helpers and streamlined throughput per mode, their ratio."""
    lengths = [n for n in SEED_LENGTHS if n in run.lengths()]
    columns: List[Tuple[str, Tuple[int, str]]] = []
    for n in lengths:
        columns += [(f"{size_label(n)} {w}", (n, w)) for w in (TEXTBOOK, STREAMLINED, "ratio")]
    columns.append(("instructions", (LONG, "instructions")))

    def cell(r: Tuple[str, str], c: Tuple[int, str]) -> Optional[Cell]:
        (alg, mode), (n, what) = r, c
        slow, fast = (run.get(mode, "digest", alg, v, n) for v in (TEXTBOOK, STREAMLINED))
        if what == "ratio":
            return over(run, slow, fast)
        if what == "instructions":
            return count(run.instructions(slow, fast)) if slow and fast else None
        m = slow if what == TEXTBOOK else fast
        return Cell(m.ops_per_ms, m.ops_per_ms, m.ops_per_ms, kind="ops") if m else None

    rows = [
        ([alg, c, run.mode(c).jdk or DASH], (alg, c))
        for alg in run.algorithms()
        for c in run.columns
    ]
    return ratio_table(
        "seeds",
        "The seeds' question per mode: helpers and streamlined, as the JDK measured them",
        "throughput in ops/ms of each style (JMH's score, as the JDK's `MessageDigests.digest` "
        "gives it) and their ratio, time of helpers ÷ "
        "time of streamlined (>1: streamlining pays; the JDK: 4-5x under -Xint and Zero, 1.0 "
        "under its compilers); `instructions`: the same ratio in machine instructions (callgrind)",
        ["algorithm", "mode", "JDK counterpart"],
        rows,
        columns,
        cell,
        counted=False,  # its ratios are the style table's, counted there
    )


def tables(run: Run) -> List[RatioTable]:
    """Every table of the report, in its order; those without a row left out."""
    long, short = run.length(LONG), run.length(64)
    found: List[Optional[RatioTable]] = [seeds_table(run), style_table(run)]
    found += [compiled_table(run), twins_jit_table(run), hashlib_table(run, long)]
    found += [hashlib_table(run, short) if short != long else None, modes_table(run, long)]
    found += [bridge_table(run), batch_table(run)]
    return [t for t in found if t is not None and t.rows]


def main(argv: Sequence[str]) -> int:
    """``python -m bench.report``: the page layer (bench.docs) sits above these tables."""
    from bench import docs

    return docs.report_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
