"""The README's generated sections: the glance, the answer, the results, the two styles' code,
memory, and the columns' figures.

The study's sections (the glance, the answer, the results) come from the runs kept in the
repository (``bench.report.machines``): every figure a range over the kept machines, each
machine's own in the results table, each CPU named. The others from their own runs.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..catalog import comparisons
from ..catalog.comparisons import LONG
from ..core.fmt import grid, ratio, size_label
from ..profile import memory as profiled
from . import answers, machines
from .answers import Report
from .pages import END, GLOSSARY, START, marked, span_of

#: What the README's Results section may hold: lines, and characters of prose (its lines
#: outside the tables, joined); the tests hold the generated and the committed section to it.
RESULTS_LINES, RESULTS_PROSE = 60, 1500


def prose_length(lines: Sequence[str]) -> int:
    """The characters of prose among ``lines``: those outside tables, joined by newlines."""
    return len("\n".join(line for line in lines if not line.startswith("|")))


#: The README's compact tables of what compiling buys back: (title, which rows); what a
#: JIT buys is a finding's sentence there, a table in docs/study.md.
BUYS = (
    ("Compiled twins against their interpreted source", "twins"),
    ("Typed Cython and native C against streamlined", "built"),
)


def buys_lines(reports: Sequence[Report]) -> List[str]:
    """What compiling buys back in tables of one baseline each, MD5 and SHA-256 apart, each
    cell the range over the modes of one implementation on every machine (the whole table:
    docs/study.md)."""
    shown = [(r, t) for r in reports if (t := r.table("buys")) is not None]
    if not shown:
        return []
    out: List[str] = []
    for title, which in BUYS:
        rows: Dict[Tuple[str, str, str], Dict[str, List[float]]] = {}
        where: Dict[Tuple[str, str, str], Dict[str, None]] = {}
        for r, t in shown:
            for row in t.rows:
                build, source, alg = row.labels
                if build == "the JIT" or (build in comparisons.BUILT) != (which == "built"):
                    continue
                for column, f in zip(t.columns, row.cells):
                    if f is not None:
                        key = (build, source, r.run.layout.by[column].implementation)
                        rows.setdefault(key, {}).setdefault(alg, []).append(f.value)
                        where.setdefault(key, {})[column] = None
        if not rows:
            continue
        algs = [a for a in answers.NAMES if any(a in v for v in rows.values())]
        body = [
            [
                build,
                source,
                span_of(list(where[(build, source, impl)])),
                *(
                    answers.direction(by_alg[a], "faster", "slower") if a in by_alg else None
                    for a in algs
                ),
            ]
            for (build, source, impl), by_alg in rows.items()
        ]
        header = ["build", "source", "modes", *(answers.NAMES[a] for a in algs)]
        out += [f"**{title}**, {size_label(shown[0][0].run.layout.length(LONG))}:", ""]
        out += [grid(header, body, 3), ""]
    return out


def runs_line(across: machines.Across) -> str:
    """Which kept runs the results are made of, a machine each (its run, then its rerun), and
    what was left out."""
    said = []
    for r, cpu in zip(across.reports, across.cpus):
        h = r.run.header
        said.append(f"{cpu} ({h.passes} passes, {h.measure_seconds / 60:.1f} min)")
    left = f" Left out: {'; '.join(across.left_out)}." if across.left_out else ""
    efforts = "/".join(sorted({r.run.header.effort for r in across.reports}))
    return f"Kept {efforts} runs ([runs/](runs/)), run and rerun: {'; '.join(said)}.{left}"


def span(values: Sequence[float]) -> str:
    """The range of percentages ``values``, one figure where they round alike."""
    low, high = f"{min(values):.0%}", f"{max(values):.0%}"
    return low if low == high else f"{low}-{high}"


def trust_lines(across: machines.Across) -> List[str]:
    """How far to trust it: the machines' median intervals and their reruns against them, each
    given once as a range over the machines (the page does not grow by a machine)."""
    half = [r.trust.readme_half_width for r in across.reports]
    low, high = f"±{min(half):.1%}", f"±{max(half):.1%}"
    widths = low if low == high else f"{low} to {high}"
    widths += f" on the {len(half)} CPUs" if len(half) > 1 else f" ({across.cpus[0]})"
    reruns = [r.rerun for r in across.reports if r.rerun]
    lacking = [cpu for r, cpu in zip(across.reports, across.cpus) if not r.rerun]
    said = ""
    if reruns:
        inside = span([x.readme_inside for x in reruns])
        within = span([x.readme_within for x in reruns])
        flips = "-".join(
            sorted({str(min(x.flips for x in reruns)), str(max(x.flips for x in reruns))}, key=int)
        )
        said = (
            f"; each rerun: {inside} inside the first's intervals, {within} within 10%, "
            f"{flips} verdicts changed"
        )
    if lacking:
        said += f"; no rerun kept yet of {', '.join(lacking)}"
    return [
        f"**How far to trust it**: the README's median interval {widths}{said}.",
        "",
        machines.holds_line(across.reports),
    ]


def readme_section(across: Optional[machines.Across]) -> str:
    """The README's results across the kept machines: the styles table (each machine's
    ratio, how far apart they are), what compiling buys back, the findings, how far to trust
    them on each machine and which parts hold on every one."""
    lines = [START, "## Results", ""]
    if across is None or not across.reports:
        return "\n".join([*lines, "No kept run of `nox -s bench` yet.", END])
    first = across.reports[0]
    lines += [f"{runs_line(across)} [Terms]({GLOSSARY}), [every table](docs/study.md#results).", ""]
    jdk25 = any(c.startswith("jdk25") for r in across.reports for c in r.run.layout.columns)
    why = f"; JDK 25's `-Xint`: [JDK-8072070]({REVIEWS['8072070']})" if jdk25 else ""
    caption = (
        f"**What the coding style costs**: helpers ÷ streamlined, "
        f"{size_label(first.run.layout.length(LONG))}; the "
        f"JDK's [8256523]({REVIEWS['8256523']}): 4-5x under `-Xint` and Zero, none "
        f"compiled{why}:"
    )
    lines += machines.styles_lines(across.reports, across.cpus, caption)
    lines += buys_lines(across.reports)
    parts = [(r.run, r.table("styles"), r.table("buys")) for r in across.reports]
    said = answers.pooled_findings(parts, counterparts=False)[2:]  # the answer says the first two
    lines += [*(f"- {x}" for x in said), "", *trust_lines(across)]
    return "\n".join([*lines, END])


#: The OpenJDK reviews the study reproduces, and the change that halved JDK 25's -Xint cost.
REVIEWS = {
    "8256523": "https://github.com/openjdk/jdk/pull/1283",
    "8250902": "https://bugs.openjdk.org/browse/JDK-8250902",
    "8251216": "https://bugs.openjdk.org/browse/JDK-8251216",
    "8299158": "https://github.com/openjdk/jdk/pull/11748",
    "8307555": "https://github.com/openjdk/jdk/pull/13845",
    "8319184": "https://github.com/openjdk/jdk/pull/16453",
    "8072070": "https://bugs.openjdk.org/browse/JDK-8072070",
}


def machines_said(across: machines.Across) -> str:
    n = len(across.reports)
    return f"{n} CPU{'s' if n > 1 else ''}: {', '.join(across.cpus)}"


def algorithms_said(across: machines.Across) -> str:
    """Which CPU measured which algorithms ("MD5 and SHA-256 on CPU a, CPU b"), and those the
    study has that no kept run measured yet (the runs of older code have fewer)."""
    by: Dict[str, List[str]] = {}
    for r in across.reports:
        found = [answers.NAMES[a] for a in r.run.layout.algorithms()]
        by.setdefault(listed(found), []).append(machines.cpu_of(r.run))
    measured = {a for r in across.reports for a in r.run.layout.algorithms()}
    missing = [name for a, name in answers.NAMES.items() if a not in measured]
    said = "; ".join(f"{algs} on {', '.join(cpus)}" for algs, cpus in by.items())
    return said + (f"; {listed(missing)}: no kept run yet" if missing else "")


def measured_names(across: machines.Across) -> str:
    """The algorithms some kept run measured, as the report names them ("MD5 and SHA-256")."""
    found = {a for r in across.reports for a in r.run.layout.algorithms()}
    return listed([name for a, name in answers.NAMES.items() if a in found])


def listed(names: Sequence[str]) -> str:
    """``a, b and c``."""
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def sha5_said(across: machines.Across) -> str:
    """The seeds' open question in numbers: what streamlining the JDK's SHA5 would buy per JDK
    (our helpers ÷ our streamlined SHA-512, its interpreters and its compilers), and whether the
    JDK's own SHA-512 pays the helper cost (MessageDigest ÷ our streamlined under -Xint)."""
    name = answers.NAMES["sha512"]
    jdks: Dict[str, Dict[str, List[float]]] = {}
    bounds: Dict[str, List[float]] = {}  # the compilers' intervals' ends, per JDK
    own: Dict[str, Dict[str, List[float]]] = {}  # where: style: MessageDigest ÷ ours
    for r in across.reports:
        lay, styles, mine = r.run.layout, r.table("styles"), r.table("jdk-own")
        for c in lay.columns:
            mode = lay.by[c].mode
            if lay.by[c].implementation != "OpenJDK" or styles is None:
                continue
            f = styles.at((c,), name)
            role = "its compilers" if mode.jit else mode.jdk
            if f is not None:
                jdks.setdefault(mode.interpreter, {}).setdefault(role, []).append(f.value)
                if mode.jit:
                    bounds.setdefault(mode.interpreter, []).extend((f.low, f.high))
            where = f"{mode.interpreter.replace('jdk', 'JDK ')}'s {mode.jdk}"
            for style in (comparisons.STREAMLINED, comparisons.TEXTBOOK):
                g = mine.at((name, f"÷ {style}"), c) if mine else None
                if g is not None and not mode.jit:
                    own.setdefault(where, {}).setdefault(style, []).append(g.value)
    if not jdks:
        return f"**{name} on the JDK**: no kept run has measured it there yet."
    said = []
    for jdk, roles in jdks.items():
        parts = [
            f"{role} {answers.direction(values, 'faster', 'slower')}"
            for role, values in roles.items()
            if role != "its compilers"
        ]
        compiled = roles.get("its compilers")
        if compiled:
            within = max(abs(v - 1) for v in compiled)
            widest = max(abs(v - 1) for v in bounds[jdk])
            parts.append(f"its compilers within {within:.0%} (intervals within {widest:.0%})")
        said.append(f"{jdk.replace('jdk', 'JDK ')}'s {', '.join(parts)}")
    mine_said = "; ".join(
        f"under {where} "
        + " and ".join(f"{answers.direction(v)} than our {style}" for style, v in by.items())
        for where, by in own.items()
    )
    return (
        f"**{name} on the JDK** (the seeds' open question): streamlining SHA5 would make "
        f"{'; '.join(said)} (our helper-style ÷ streamlined Java SHA-512, 16 KiB digests)."
        + (f" The JDK's own SHA-512 (MessageDigest, SUN) runs {mine_said}." if mine_said else "")
    )


def one_message(across: machines.Across) -> str:
    """The drop-in against hashlib on one message: ``native`` ÷ ``hashlib`` per CPython mode
    without a JIT, at each length the reports have a table of, over every kept machine."""
    said: List[str] = []
    modes: Dict[str, None] = {}
    for short in (True, False):
        values: List[float] = []
        length = 0
        for r in across.reports:
            lay = r.run.layout
            cpython = [
                c
                for c in lay.columns
                if lay.by[c].implementation == "CPython"
                and not lay.by[c].mode.jit
                and lay.folded(c) is None
            ]
            modes.update({c: None for c in cpython})
            length = lay.length(64) if short else lay.length(LONG)
            t = r.table(f"hashlib-{length}")
            values += [
                f.value
                for a in answers.NAMES
                for c in cpython
                if t and (f := t.at(("native", a), c))
            ]
        if values:
            said.append(f"{answers.direction(values, 'slower', 'faster')} on {size_label(length)}")
    if not said:
        return ""
    return (
        f"**One message**: `variants.md5(m)` and `variants.sha256(m)` against hashlib's: "
        f"{', '.join(said)} (CPython {span_of(list(modes))}, kept `nox -s bench` runs on "
        f"{machines_said(across)})."
    )


def glance_section(across: Optional[machines.Across]) -> str:
    """The README's first figure: one message against hashlib (``nox -s bench``)."""
    line = one_message(across) if across is not None and across.reports else ""
    return marked("glance", [line or "One message: no kept run of `nox -s bench` yet."])


def answer_section(across: Optional[machines.Across], picture: str) -> str:
    """The study's answer in one sentence beside its headline picture: ranges over every
    kept machine."""
    reports = across.reports if across is not None else ()
    parts = [(s, r.run) for r in reports if (s := r.table("styles")) is not None]
    if across is None or not parts:
        return marked("answer", ["No kept run of `nox -s bench` yet."])
    said = [
        ", ".join(
            answers.style_costs([(s, answers.by_family(run, jit)) for s, run in parts], under=True)
        )
        for jit in (False, True)
    ]
    moving = machines.moving_families(across.reports)
    cpu = (
        (
            f" From CPU to CPU the same code's ratios move by up to {moving}; the rest hold "
            f"within 10% ([Results](#results))."
        )
        if moving
        else ""
    )
    sentence = (
        f"**The study's answer**, on {machines_said(across)}: written as helper functions, "
        f"{measured_names(across)} run {said[0]} without a JIT; with one, {said[1]}. The JDK "
        f"measured 4-5x and none ([8256523]({REVIEWS['8256523']})).{cpu}"
    )
    return marked(
        "answer",
        [
            sentence,
            "",
            f"Measured: {algorithms_said(across)}. {sha5_said(across)}",
            "",
            f"![What helper functions cost, per mode and CPU]({picture})",
        ],
    )


def code_lines(path: Path, names: Sequence[str], loop: str = "") -> List[str]:
    """The source of the functions ``names`` of ``path`` without their docstrings, and of the
    function ``loop``'s first ``for`` statement's header and first two statements."""
    import ast

    text = path.read_text()
    lines = text.splitlines()
    tree = ast.parse(text)
    found = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    out: List[str] = []
    for name in names:
        node = found[name]
        body = node.body
        doc = ast.get_docstring(node) is not None
        skipped = range(body[0].lineno, (body[0].end_lineno or 0) + 1) if doc else range(0)
        last = node.end_lineno or node.lineno
        kept = [i for i in range(node.lineno, last + 1) if i not in skipped]
        out += [lines[i - 1] for i in kept] + ["", ""]  # top-level code: two blank lines
    if loop:
        node = found[loop]
        first = next(n for n in ast.walk(node) if isinstance(n, ast.For))
        steps = [s for s in first.body if not isinstance(s, ast.Expr)]
        shown = [lines[first.lineno - 1], *(lines[s.lineno - 1] for s in steps[:3])]
        indent = " " * (len(shown[1]) - len(shown[1].lstrip()))
        shown += [f"{indent}..."] if len(steps) > 3 else []
        out += textwrap.dedent("\n".join(shown)).splitlines()
    while out and not out[-1]:
        out.pop()
    return out


def styles_code_section(root: Path) -> str:
    """The same MD5 step in the two styles, side by side, read from the sources."""
    helpers = code_lines(
        root / "variants/helpers/md5.py", ["rotate_left", "f", "step"], "compress_block"
    )
    streamlined = code_lines(root / "variants/streamlined/md5_words.py", [], "compress")
    cells = [
        ("helpers", "variants/helpers/md5.py", helpers),
        ("streamlined", "variants/streamlined/md5_words.py", streamlined),
    ]
    out = ["<table><tr>"]
    for name, path, code in cells:
        out += [
            f'<td valign="top"><b>{name}</b> (<a href="{path}">{path}</a>)',
            "",
            "```python",
            *code,
            "```",
            "",
            "</td>",
        ]
    return marked("styles-code", [*out, "</tr></table>"])


def memory_sentence(data: Optional[Dict[str, Any]]) -> str:
    """What the two styles allocate per block (``nox -s memory``), in a sentence."""
    if not data:
        return marked("memory", ["Memory: no run of `nox -s memory` yet."])
    per = profiled.objects_per_block(data)
    info = data["info"]
    version = f"{info['interpreter']['implementation']} {info['interpreter']['version']}"

    def of(variant: str, noun: str = "") -> str:
        found = [(a, per[(variant, a)]) for a in answers.NAMES if (variant, a) in per]
        said = [
            f"{n:.0f}{noun if i == 0 else ''} for {answers.NAMES[a]}"
            for i, (a, n) in enumerate(found)
        ]
        return " and ".join(said) or "none measured"

    native = [n for (v, _), n in per.items() if v == "native"]
    tail = f"; the native variant {max(native):.0f}" if native else ""
    grown = [
        f"{v} {answers.NAMES.get(a, a)}"
        for (v, a), r in profiled.by_row(data).items()
        if any(f.startswith("FLAG") for f in profiled.flags(r))
    ]
    growth = (
        f"peaks that grow with the input: {', '.join(grown)}"
        if grown
        else "no variant's peak grows with the input"
    )
    return marked(
        "memory",
        [
            f"**Memory** (`nox -s memory`, memray, {version}, {info['date']}): a 64-byte block "
            f"costs the helper style {of('helpers', ' allocations')}, streamlined "
            f"{of('streamlined')}{tail}; {growth} ([the table](docs/study.md#memory)).",
        ],
    )


# --- from a `nox -s peers` run: a column against the hashlib loop and DuckDB ----------------

#: The one-thread candidates the README compares: (key in peers.json, how the README names it).
COLUMN, LOOP, DUCKDB = "digest_column/hex", "hashlib/hex", "duckdb/hex"
#: The product's algorithms as the pages name them (the study's two and the rest of the family
#: that the peers measure).
ALGORITHM_NAMES = {**answers.NAMES, "sha1": "SHA-1", "sha512": "SHA-512"}


def column_figures(data: Dict[str, Any]) -> List[Dict[str, Any]]:
    """This CPU's own kernel class, one thread: per (shape, algorithm), ns a row of the column,
    the hashlib loop and DuckDB (hex digests), and the column's speed against the two."""
    from ..core.stats import ratio as speed_of
    from ..core.stats import time_of
    from ..store import cases_of, rounds

    own = data["classes"][0]
    run = next((r for r in own["runs"] if r["threads"] == 1), None)
    if run is None:
        return []
    found = []
    for (shape, alg), values in cases_of(run).items():
        mine, loop, duckdb = (values.get(k) for k in (COLUMN, LOOP, DUCKDB))
        if not (mine and loop and duckdb):
            continue
        ns = {
            k: time_of(v) / run["rows"] * 1e9
            for k, v in ((COLUMN, mine), (LOOP, loop), (DUCKDB, duckdb))
        }
        against = {
            k: speed_of(rounds(v), rounds(mine)) for k, v in ((LOOP, loop), (DUCKDB, duckdb))
        }
        found.append(
            {
                "shape": shape,
                "algorithm": alg,
                "ns": ns,
                "rows": run["rows"],
                "against": {k: e.value for k, e in against.items() if e},
                "class": own["name"],
                "date": data["machine"]["date"],
            }
        )
    return found


def columns_glance(data: Optional[Dict[str, Any]]) -> Optional[str]:
    """The README's column sentence (None: no peers run, the README keeps its own)."""
    figures = column_figures(data) if data else []
    flat = [f for f in figures if f["shape"] == "32 B" and len(f["against"]) == 2]
    if not flat:
        return None
    first, *others = flat
    more = "; ".join(
        f"{ALGORITHM_NAMES[f['algorithm']]}: {answers.brief(f['against'][LOOP])}x and "
        f"{answers.brief(f['against'][DUCKDB])}x"
        for f in others
    )
    return marked(
        "columns-glance",
        [
            f"**A column**: `variants.{first['algorithm']}_column(column, hexdigest=True)` hashes "
            f"{first['rows']:,} rows of {first['shape']} in C "
            f"{answers.brief(first['against'][LOOP])}x as fast as a hashlib loop and "
            f"{answers.brief(first['against'][DUCKDB])}x as fast as DuckDB's "
            f"`{first['algorithm']}` ({more + '; ' if more else ''}one thread, "
            f"{first['class']} kernels, {first['date']}, "
            "`nox -s peers`)."
        ],
    )


def columns_table(data: Optional[Dict[str, Any]]) -> Optional[str]:
    """The README's one small Columns table (None: no peers run)."""
    figures = column_figures(data) if data else []
    if not figures:
        return None
    header = [
        "rows",
        "algorithm",
        "`digest_column`",
        "hashlib loop",
        "DuckDB's",
        "against the loop",
        "against DuckDB",
    ]
    body = [
        [
            f["shape"],
            ALGORITHM_NAMES[f["algorithm"]],
            *(f"{f['ns'][k]:.1f} ns" for k in (COLUMN, LOOP, DUCKDB)),
            *(
                f"{ratio(f['against'][k])}x faster" if k in f["against"] else None
                for k in (LOOP, DUCKDB)
            ),
        ]
        for f in figures
    ]
    f = figures[0]
    return marked(
        "columns",
        [
            f"One thread, ns a row of {f['rows']:,} hex digests, this machine's kernels "
            f"({f['class']}), {f['date']} (`nox -s peers`; every engine and thread count: "
            "[docs/columns.md](docs/columns.md)):",
            "",
            grid(header, body, 2),
        ],
    )
