"""Every table of the study, as the comparison spec (``bench.catalog.comparisons``) says them:
which cases each cell compares, row by row and column by column, in the report's order.

The README shows two: ``styles`` (the seeds' question per mode: helpers ÷ streamlined) and
``buys`` (what compiling and the JITs buy back); docs/study.md every one.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..core.fmt import DASH, size_label
from .columns import Layout, Member
from .comparisons import (
    BUILT,
    COMPILED_ROLE,
    FASTEST,
    INTRINSICS_ROLE,
    LONG,
    REFERENCE,
    SEED_LENGTHS,
    STREAMLINED,
    TEXTBOOK,
    Cell,
    Pair,
    Subject,
    Table,
    benches,
    bridges,
    modes,
    pair_cell,
    pick,
    ratio,
    subjects,
    table,
)
from .targets import HASHLIB, TITLES

#: The headline's ratios by mode, each (numerator, denominator) (``bench.catalog.study``).
Headline = Dict[str, List[Tuple[Member, Member]]]


def style_pairs(lay: Layout) -> List[Tuple[str, Subject, Subject]]:
    """(build, shape, its helper-style baseline): interpreted shapes, twins by build, fastest."""
    base = Subject(TEXTBOOK, TEXTBOOK)
    pairs = [
        ("inlined" if v == STREAMLINED else "beyond inlining", Subject(v, v), base)
        for v in lay.interpreted()
        if v != TEXTBOOK
    ]
    twins = {v: t for v in lay.order if (t := lay.twin(v))}
    for name, t in twins.items():
        match = [o for o, u in twins.items() if u.source == TEXTBOOK and u.build == t.build]
        if t.source != TEXTBOOK and match:
            pairs.append((t.build, Subject(name, name), Subject(match[0], match[0])))
    return pairs + ([("fastest", Subject(FASTEST), base)] if lay.interpreted() else [])


def style_table(lay: Layout) -> Table:
    rows = [
        ([build, shape.label, alg, title], (textbook, shape, alg, bench, n, 1))
        for build, shape, textbook in style_pairs(lay)
        for alg in lay.algorithms()
        for title, bench, n in benches(lay)
    ]
    return table(
        "style",
        "Each shape against the helper style: what the coding style costs (the JDK's 4-5x)",
        "time of the helper-style variant ÷ time of the shape, same mode and build (>1: the "
        f"shape is faster); `{FASTEST}` is, in each mode, the interpreted variant fastest at "
        f"{size_label(lay.length(LONG))}",
        ["build", "shape", "algorithm", "benchmark"],
        rows,
        modes(lay),
        pair_cell(lay),
    )


def compiled_table(lay: Layout) -> Table:
    twins = [(v, t.source) for v in lay.order if (t := lay.twin(v))]
    rows = [
        ([name, source, alg, title], (Subject(source, source), Subject(name, name), alg, b, n, 1))
        for name, source in twins
        for alg in lay.algorithms()
        for title, b, n in benches(lay)
    ]
    return table(
        "compiled",
        "Compiled twins against their interpreted source: what compiling buys back",
        "time of the interpreted source ÷ time of the compiled twin, same mode",
        ["compiled", "source", "algorithm", "benchmark"],
        rows,
        modes(lay),
        pair_cell(lay),
    )


def twins_jit_table(lay: Layout) -> Table:
    """The compiled twins against CPython's own JIT running their source."""
    cpython = [
        (f"{on} ({off})", (off, on))
        for off, on in lay.jit_pairs()
        if lay.by[on].implementation == "CPython"
    ]
    twins = [(v, t.source) for v in lay.order if (t := lay.twin(v))]
    lengths = [n for n in lay.lengths() if n <= LONG]
    rows: List[Tuple[List[str], Tuple[str, str, str, int]]] = []
    for source in dict.fromkeys(s for _, s in twins):
        rows += [
            (["the JIT itself", source, a, size_label(n)], ("", source, a, n))
            for a in lay.algorithms()
            for n in lengths
        ]
    rows += [
        ([v, s, a, size_label(n)], (v, s, a, n))
        for v, s in twins
        for a in lay.algorithms()
        for n in lengths
    ]

    def cell(r: Tuple[str, str, str, int], pair: Tuple[str, str]) -> Optional[Cell]:
        twin, source, alg, n = r
        off, on = pair
        if not twin:  # the JIT against the interpreter, on the source
            return ratio(
                lay.get(off, "digest", alg, source, n), lay.get(on, "digest", alg, source, n)
            )
        return ratio(lay.get(on, "digest", alg, source, n), lay.get(on, "digest", alg, twin, n))

    return table(
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
    lay: Layout, rows: Sequence[Subject], bench: str, n: int
) -> List[Tuple[List[str], Pair]]:
    """Rows of each subject against hashlib (a folded mode's own hashlib, where it has one)."""
    return [
        ([s.label, alg], (s, Subject(HASHLIB, HASHLIB, s.fold), alg, bench, n, 1))
        for s in rows
        if s.variant != HASHLIB
        for alg in lay.algorithms()
    ]


def hashlib_table(lay: Layout, length: int) -> Table:
    rows = against_hashlib(lay, subjects(lay), "digest", length)
    return table(
        f"hashlib-{length}",
        f"Every variant against hashlib, {size_label(length)} messages (digest)",
        "time of the variant ÷ time of the mode's own hashlib (how many times slower)",
        ["variant", "algorithm"],
        rows,
        modes(lay),
        pair_cell(lay),
    )


def modes_table(lay: Layout, length: int) -> Optional[Table]:
    if len(lay.columns) < 2:
        return None
    base = lay.columns[0]

    def cell(r: Tuple[Subject, str], column: str) -> Optional[Cell]:
        s, alg = r
        return ratio(
            pick(lay, s, base, "digest", alg, length), pick(lay, s, column, "digest", alg, length)
        )

    rows = [
        ([s.label, alg], (s, alg)) for s in subjects(lay, fastest=False) for alg in lay.algorithms()
    ]
    return table(
        f"modes-{length}",
        f"The same program across modes, {size_label(length)} messages (digest)",
        f"time under {base} ÷ time under the column's mode (>1: faster than under {base}); "
        "the modes took their values in turn, round by round",
        ["variant", "algorithm"],
        rows,
        [(f"{c} vs {base}", c) for c in lay.columns[1:]],
        cell,
    )


def bridge_table(lay: Layout) -> Optional[Table]:
    """Per-call cost of each bridge into C: one short message, constructed and digested."""
    n = min(lay.lengths("getAndDigest"), default=None)
    if n is None:
        return None
    return table(
        "bridges",
        f"What a call costs through each bridge into C, {size_label(n)} messages "
        "(getAndDigest: construct, update, digest)",
        "time of the row ÷ time of hashlib, same mode; the time per call is in the table below",
        ["bridge", "algorithm"],
        against_hashlib(lay, bridges(lay), "getAndDigest", n),
        modes(lay),
        pair_cell(lay),
    )


def batch_table(lay: Layout) -> Optional[Table]:
    """digest_many of the drop-in's variant against the hashlib loop, per mode."""
    sizes = sorted({(c.length, c.number) for _, c in lay.cases if c.benchmark == "batch"})

    def cell(r: Tuple[str, int, int], column: str) -> Optional[Cell]:
        alg, n, number = r
        mine = str(lay.by[column].listing.batch_variant)
        return ratio(
            lay.get(column, "batch", alg, HASHLIB, n, number),
            lay.get(column, "batch", alg, mine, n, number),
            mine,
        )

    return table(
        "batch",
        "Batches: the drop-in's digest_many against the hashlib loop",
        "time of `[md5(m).digest() for m in messages]` with hashlib ÷ time of "
        "`variants.digest_many(name, messages)` (>1: digest_many is faster)",
        ["messages", "algorithm"],
        [
            ([f"{number} x {size_label(n)}", a], (a, n, number))
            for n, number in sizes
            for a in lay.algorithms()
        ],
        modes(lay),
        cell,
    )


def seeds_table(lay: Layout) -> Table:
    """The JDK's table (seed 002): helpers and streamlined throughput per mode, their ratio."""
    lengths = [n for n in SEED_LENGTHS if n in lay.lengths()]
    columns: List[Tuple[str, Tuple[int, str]]] = []
    for n in lengths:
        columns += [(f"{size_label(n)} {w}", (n, w)) for w in (TEXTBOOK, STREAMLINED, "ratio")]
    columns.append(("instructions", (LONG, "instructions")))

    def cell(r: Tuple[str, str], c: Tuple[int, str]) -> Optional[Cell]:
        (alg, mode), (n, what) = r, c
        slow, fast = (lay.get(mode, "digest", alg, v, n) for v in (TEXTBOOK, STREAMLINED))
        if what in ("ratio", "instructions"):
            return (
                Cell(slow, fast, "ratio" if what == "ratio" else "count") if slow and fast else None
            )
        m = slow if what == TEXTBOOK else fast
        return Cell(m, kind="ops") if m else None

    rows = [
        ([alg, c, lay.by[c].mode.jdk or DASH], (alg, c))
        for alg in lay.algorithms()
        for c in lay.columns
    ]
    return table(
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


def styles_table(lay: Layout) -> Table:
    """The README's answer to the seeds' question: helpers ÷ streamlined per mode, 16 KiB; for a
    Python mode, the JDK mode nearest in speed (streamlined MD5), its measured counterpart."""
    n = lay.length(LONG)
    jdks = [c for c in lay.columns if lay.by[c].implementation == "OpenJDK"]
    columns = [("JDK counterpart", ("md5", "counterpart"))]
    columns += [
        (f"{name}{what}", (alg, kind))
        for alg, name in ((a, TITLES[a]) for a in lay.algorithms())
        for what, kind in (("", "ratio"), (" instr.", "count"))
    ]

    def cell(mode: str, c: Tuple[str, str]) -> Optional[Cell]:
        alg, kind = c
        if kind == "counterpart":
            if mode in jdks:
                return None
            other = lay.nearest(mode, jdks, alg, n)
            mine, theirs = (lay.get(m, "digest", alg, STREAMLINED, n) for m in (mode, other or ""))
            return Cell(theirs, mine, took=other) if mine and theirs and other else None
        slow, fast = (lay.get(mode, "digest", alg, v, n) for v in (TEXTBOOK, STREAMLINED))
        return Cell(slow, fast, kind) if slow and fast else None

    return table(
        "styles",
        "What the coding style costs per mode: helpers ÷ streamlined, "
        f"{size_label(n)} digests (the JDK's 8256523: 4-5x under `-Xint` and Zero, none under "
        "its compilers)",
        "time of the helper style ÷ time of the plain inlined one (>1: inlining pays); "
        "instr.: the same in machine instructions (callgrind); JDK counterpart: the JDK mode "
        "whose streamlined MD5 is nearest in speed, and the mode's speed against it",
        ["mode"],
        [([c], c) for c in lay.columns],
        columns,
        cell,
        counted=False,
        readme=True,
    )


def headline(lay: Layout) -> Headline:
    """The README's headline answer, by mode: the styles table's ratios (helpers ÷ streamlined
    per algorithm; a Python mode's JDK counterpart too where ``lay`` has times). Their cases are
    what the quick effort measures first (``bench.conduct.conductor``)."""
    return {
        row.labels[0]: [
            (c.a, c.b) for c in row.cells if c is not None and c.kind == "ratio" and c.b is not None
        ]
        for row in styles_table(lay).rows
    }


def buys_table(lay: Layout) -> Table:
    """The README's other answer: what compiling (or a JIT) buys back over the interpreted
    source, per interpreter mode (the JIT modes' gain in their interpreter's column)."""
    n = lay.length(LONG)
    offs = [c for c in lay.columns if not lay.by[c].mode.jit]
    jit: Dict[str, str] = {}
    for off, on in lay.jit_pairs():  # the first JIT mode of an interpreter: the JDK's Server
        jit.setdefault(off, on)
    rows: List[Tuple[List[str], Tuple[str, str, str]]] = []
    for alg in lay.algorithms():
        rows += [([v, t.source, alg], (v, t.source, alg)) for v in lay.order if (t := lay.twin(v))]
        rows += [([v, STREAMLINED, alg], (v, STREAMLINED, alg)) for v in BUILT if v in lay.order]
        rows += [(["the JIT", s, alg], ("", s, alg)) for s in (TEXTBOOK, STREAMLINED)]

    def cell(r: Tuple[str, str, str], column: str) -> Optional[Cell]:
        built, source, alg = r
        if not built:  # the JIT: the source with it off ÷ with it on
            on = jit.get(column)
            return (
                ratio(
                    lay.get(column, "digest", alg, source, n), lay.get(on, "digest", alg, source, n)
                )
                if on
                else None
            )
        return ratio(
            lay.get(column, "digest", alg, source, n), lay.get(column, "digest", alg, built, n)
        )

    return table(
        "buys",
        f"What compiling buys back: each build against its interpreted source, {size_label(n)} "
        "digests",
        "time of the source ÷ time of the build, same mode (>1: the build is faster); typed "
        "Cython and native against streamlined; the JIT: the source with the mode's JIT off ÷ on",
        ["build", "source", "algorithm"],
        rows,
        [(c, c) for c in offs],
        cell,
        counted=False,
        readme=True,
    )


def jdk_table(lay: Layout) -> Optional[Table]:
    """The JDK's own MessageDigest (the SUN provider): what its intrinsics buy, per JDK."""
    pairs = [
        (c, off)
        for c in lay.columns
        for off in lay.columns
        if lay.by[c].mode.jdk == COMPILED_ROLE
        and lay.by[off].mode.jdk == INTRINSICS_ROLE
        and lay.by[c].mode.interpreter == lay.by[off].mode.interpreter
    ]
    if not pairs:
        return None
    sizes = [(b, n) for b in ("digest", "getAndDigest") for n in lay.lengths(b)]

    def cell(r: Tuple[str, str, int], c: Tuple[str, str]) -> Optional[Cell]:
        alg, bench, n = r
        on, off = c
        return ratio(lay.get(off, bench, alg, REFERENCE, n), lay.get(on, bench, alg, REFERENCE, n))

    return table(
        "jdk",
        "The JDK's MessageDigest: what its intrinsics buy",
        "time of `MessageDigest` (SUN) with the intrinsics off ÷ on, same JDK (>1: the "
        "intrinsic pays; the MD5 reviews: +18-28 %)",
        ["algorithm", "benchmark", "length"],
        [([a, b, size_label(n)], (a, b, n)) for a in lay.algorithms() for b, n in sizes],
        [(f"{lay.by[on].mode.interpreter}", (on, off)) for on, off in pairs],
        cell,
    )


def jdk_own_table(lay: Layout) -> Optional[Table]:
    """The JDK's own code (MessageDigest, SUN) against our Java in each style, per JDK mode: does
    the JDK's SHA-512 (its SHA5, written with helpers) pay the helper cost our helpers pay?"""
    jdks = [c for c in lay.columns if lay.by[c].implementation == "OpenJDK"]
    if not jdks:
        return None
    n = lay.length(LONG)

    def cell(r: Tuple[str, str], c: str) -> Optional[Cell]:
        alg, style = r
        return ratio(lay.get(c, "digest", alg, REFERENCE, n), lay.get(c, "digest", alg, style, n))

    rows = [
        ([TITLES[a], f"÷ {style}"], (a, style))
        for a in lay.algorithms()
        for style in (STREAMLINED, TEXTBOOK)
    ]
    return table(
        "jdk-own",
        f"The JDK's own code against ours: MessageDigest ÷ our Java, {size_label(n)} digests",
        "time of `MessageDigest` (SUN: the JDK's SHA5, SHA, SHA2, MD5 classes and, in the "
        "compiled modes with intrinsics on, its intrinsics) ÷ time of our Java in the row's "
        "style, same mode (≈ the helpers row: the JDK's code costs what helper functions cost; "
        "≈ the streamlined row: it does not)",
        ["algorithm", "against"],
        rows,
        [(c, c) for c in jdks],
        cell,
    )


def tables(lay: Layout) -> List[Table]:
    """Every table of the report, in its order; those without a row left out."""
    long, short = lay.length(LONG), lay.length(64)
    found: List[Optional[Table]] = [styles_table(lay), buys_table(lay), seeds_table(lay)]
    found += [style_table(lay)]
    found += [compiled_table(lay), twins_jit_table(lay), hashlib_table(lay, long)]
    found += [hashlib_table(lay, short) if short != long else None, modes_table(lay, long)]
    found += [bridge_table(lay), batch_table(lay), jdk_table(lay), jdk_own_table(lay)]
    return [t for t in found if t is not None and t.rows]
