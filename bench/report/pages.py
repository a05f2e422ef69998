"""The study's pages from a run's report: its ``report.md``, the README's results, docs/study.md's.

``page`` is a run's whole page (answers first, then every table, figures, builds, the rows);
``readme_section`` the README's headline results; ``study_section`` docs/study.md's results,
with the newest ``nox -s memory`` and ``nox -s bytecode`` runs' own pages. ``bench.report``
writes them (``python -m bench report``, ``python -m bench docs``).
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench.catalog import comparisons
from bench.catalog.comparisons import LONG, Subject
from bench.core.fmt import grid, interval, minutes, ratio, size_label, table
from bench.profile import memory as profiled
from bench.report import answers
from bench.report.answers import Report
from bench.report.figures import Figure, Shown
from bench.store import Measured, Run

START, END = "<!-- results:start -->", "<!-- results:end -->"
#: What the README's Results section may hold: lines, and characters of prose (its lines
#: outside the tables, joined); the tests hold the generated and the committed section to it.
RESULTS_LINES, RESULTS_PROSE = 60, 1500


def prose_length(lines: Sequence[str]) -> int:
    """The characters of prose among ``lines``: those outside tables, joined by newlines."""
    return len("\n".join(line for line in lines if not line.startswith("|")))


#: The headline picture's file name, in a run's folder and in docs/bench/.
HEADLINE = "styles.png"


def run_line(run: Run, brief: bool = False) -> str:
    """The run's name, effort, passes, measuring time, clock and date, and why it stopped
    (``brief``: without the stretches and the command, for the README's Results)."""
    h = run.header
    clock = "CPU time" if h.clock == "cpu" else "wall-clock time"
    stretches = h.plan.get("stretches")
    over = f" in {stretches} stretches" if stretches and not brief else ""
    how = "" if brief else "`nox -s bench`, "
    return (
        f"Run {run.name} ({how}{h.effort} effort, {h.passes} passes{over}, "
        f"{minutes(h.measure_seconds)} of measuring, {clock}, {h.started[:10]})"
        + (f"; stopped: {h.stop_reason}" if h.stop_reason else "")
    )


def modes_lines(run: Run) -> List[str]:
    """What each mode is, what it did not measure, what was left out."""
    said = []
    for c in run.columns:
        m, facts = c.mode, c.listing.runtime
        home = run.layout.folded(c.label)
        parts = [m.how, f"the JDK's {m.jdk}" if m.jdk else "", f"rows under {home}" if home else ""]
        gil = " (GIL enabled)" if facts.get("gil_enabled") else " (GIL disabled)"
        ft = gil if facts.get("free_threaded") else ""
        said.append(f"{m.label} = {c.listing.title}{ft}" + "".join(f", {p}" for p in parts if p))
    lines = ["Modes (the columns): " + "; ".join(said) + "."]
    lines += [run.header.left_out_line] if run.header.left_out_line else []
    why: Dict[str, Tuple[Dict[str, None], Dict[str, None]]] = {}  # reason: (variants, modes)
    for c in run.columns:
        gaps = [(v.name, str(v.unavailable)) for v in c.listing.variants.values() if v.unavailable]
        if c.listing.batch_unavailable:
            gaps.append(("digest_many", str(c.listing.batch_unavailable)))
        for name, reason in gaps:
            variants, labels = why.setdefault(reason, ({}, {}))
            variants[name], labels[c.label] = None, None
    if why:
        said = [f"{', '.join(variants)} under {', '.join(labels)} ({reason})"
                for reason, (variants, labels) in why.items()]  # fmt: skip
        lines.append("Not measured: " + "; ".join(said) + ".")
    details: Dict[Tuple[str, str], List[str]] = {}
    for c in run.columns:
        for v in c.listing.variants.values():
            if v.details and not v.unavailable:
                details.setdefault((v.name, v.details), []).append(c.label)
    if details:
        said = [f"{name}: {what} ({', '.join(where)})" for (name, what), where in details.items()]
        lines.append("Notes: " + "; ".join(said) + ".")
    # The cases not warmed up, those under the same modes together (the two PyPys' JITs
    # mostly leave the same ones short: one line of names, not one a mode).
    cold: Dict[str, List[str]] = {}
    for found in run.measured.values():
        if not found.warmed:
            cold.setdefault(found.case.name, []).append(found.mode)
    if cold:
        together: Dict[str, List[str]] = {}
        for name, where in cold.items():
            together.setdefault(", ".join(where), []).append(name)
        said = [f"{', '.join(names)} under {where}" for where, names in together.items()]
        lines.append(f"Not warmed up (the JIT had not settled within the warm-up in some pass): "
                     f"{'; '.join(said)}.")  # fmt: skip
    skipped = [n for names in run.header.skipped.values() for n in names]
    if skipped:
        slow = sorted({n.split("/")[2] for n in skipped})
        lines.append(
            f"Left out at effort `{run.header.effort}`: {len(skipped)} case(s) whose one "
            f"operation would take over {run.header.settings.get('slow_limit')} s "
            f"({', '.join(slow)} at the longest length); `--effort rigorous` measures them."
        )
    return [line for x in lines for line in (x, "")]


def trust_line(r: Report) -> str:
    """How far to trust the run: the README's intervals, and a rerun where there is one."""
    t = r.trust
    line = (
        f"**How far to trust it**: the README's {t.readme_ratios} ratios' median interval is "
        f"±{t.readme_half_width:.1%} (all: ±{t.half_width:.1%}); {r.run.header.cpu}"
    )
    if r.rerun is None:
        return line + "; no second run of this tree to hold them against yet."
    x = r.rerun
    return (
        f"{line}; a second run ({x.name}) fell {x.readme_inside:.0%} inside them (all: "
        f"{x.inside:.0%}), {x.readme_within:.0%} within 10%, {x.flips} verdicts changed."
    )


def trust_lines(r: Report) -> List[str]:
    rows = [["table", "ratios", "median half-width"]]
    rows += [[title, str(n), f"±{h:.1%}"] for title, n, h in r.trust.by_table]
    return [trust_line(r), "", table(rows, "lrr"), ""]


#: Where the README's terms are defined (docs/study.md's glossary).
GLOSSARY = "docs/study.md#glossary"


def said(f: Figure, above: str = "slower", below: str = "faster") -> str:
    """A time ratio said one way with its interval: ``2.28x slower (2.20-2.35)``, or
    ``1.05x faster (1.02-1.08)`` for 0.953 (the inverse, its interval's ends swapped)."""
    if f.kind == "count":  # instructions: exact, no interval
        return f"{ratio(f.value)}x more" if f.value >= 1 else f"{ratio(1 / f.value)}x fewer"
    if f.low <= 1 <= f.high and f.low != f.high:
        return f"no difference ({interval(f.low, f.high)})"
    if f.value >= 1:
        shown, low, high, word = f.value, f.low, f.high, above
    else:
        shown, low, high, word = 1 / f.value, 1 / f.high, 1 / f.low, below
    return f"{ratio(shown)}x {word}" + (f" ({interval(low, high)})" if low != high else "")


def inverse(f: Figure) -> Figure:
    """The same ratio the other way up (b ÷ a), its interval's ends swapped."""
    return replace(f, value=1 / f.value, low=1 / f.high, high=1 / f.low)


def styles_lines(r: Report, caption: str = "") -> List[str]:
    """The styles table in one direction (helpers N x slower, or faster), each mode's verdict
    in a column of its own, the JDK counterpart last: how much slower or faster than it."""
    t = r.table("styles")
    if t is None:
        return []
    names = [c for c in t.columns if c != "JDK counterpart"]
    header = [*t.spec.header, *(f"helpers, {c}" for c in names), "verdict", "against the JDK"]
    body = []
    for row in t.rows:
        cells = dict(zip(t.columns, row.cells))
        near = cells.get("JDK counterpart")
        against = None
        if near is not None:
            words = said(inverse(near))
            against = (f"streamlined as fast as {near.took} {words.split(' ', 2)[2]}"
                       if words.startswith("no difference")
                       else f"streamlined {words} than {near.took}")  # fmt: skip
        body.append([*row.labels, *(said(f) if (f := cells.get(c)) else None for c in names),
                     answers.mode_word(r.verdicts, row.labels[0]), against])  # fmt: skip
    head = caption or f"**{t.title}** ({t.meaning}):"
    return [head, "", grid(header, body, len(t.spec.header), 2), ""]


#: The README's compact tables of what compiling buys back: (title, which rows); what a
#: JIT buys is a finding's sentence there, a table in docs/study.md.
BUYS = (
    ("Compiled twins against their interpreted source", "twins"),
    ("Typed Cython and native C against streamlined", "built"),
)


def buys_lines(r: Report) -> List[str]:
    """What compiling buys back in tables of one baseline each, MD5 and SHA-256 apart, each
    cell the range over the modes of one implementation (the whole table: docs/study.md)."""
    t = r.table("buys")
    if t is None:
        return []
    lay = r.run.layout
    out: List[str] = []
    for title, which in BUYS:
        rows: Dict[Tuple[str, str, str], Dict[str, List[float]]] = {}
        where: Dict[Tuple[str, str, str], Dict[str, None]] = {}
        for row in t.rows:
            build, source, alg = row.labels
            if build == "the JIT" or (build in comparisons.BUILT) != (which == "built"):
                continue
            for column, f in zip(t.columns, row.cells):
                if f is not None:
                    key = (build, source, lay.by[column].implementation)
                    rows.setdefault(key, {}).setdefault(alg, []).append(f.value)
                    where.setdefault(key, {})[column] = None
        if not rows:
            continue
        algs = [a for a in answers.NAMES if any(a in v for v in rows.values())]
        body = [[build, source, span_of(list(where[(build, source, impl)])),
                 *(answers.direction(by_alg[a], "faster", "slower") if a in by_alg else None
                   for a in algs)]
                for (build, source, impl), by_alg in rows.items()]  # fmt: skip
        header = ["build", "source", "modes", *(answers.NAMES[a] for a in algs)]
        out += [f"**{title}**, {size_label(lay.length(LONG))}:", ""]
        out += [grid(header, body, 3), ""]
    return out


def span_of(modes: Sequence[str]) -> str:
    """``3.10-3.15``: the first and last of the modes' labels (``a, b`` for two, and
    ``a to z`` where a label has a hyphen of its own, as ``pypy3-nojit`` has)."""
    if len(modes) <= 2:
        return ", ".join(modes)
    joint = " to " if any("-" in m for m in (modes[0], modes[-1])) else "-"
    return f"{modes[0]}{joint}{modes[-1]}"


def brief(t: Optional[Shown], caption: str = "") -> List[str]:
    return [caption or f"**{t.title}** ({t.meaning}):", "", t.markdown(), ""] if t else []


def per_mode(
    run: Run,
    subjects: Sequence[Tuple[Subject, str]],
    bench: str,
    length: int,
    shown: Callable[[Measured], str],
    header: str = "variant",
) -> str:
    """``shown(case)`` of each (subject, algorithm) at ``length`` bytes, modes as columns."""
    lay = run.layout
    rows = [[s.label, alg, *(shown(run.measured[m]) if m else None for m in
             (comparisons.pick(lay, s, c, bench, alg, length) for c in lay.columns))]
            for s, alg in subjects]  # fmt: skip
    return grid([header, "algorithm", *lay.columns], rows, 2)


def build_table(builds: Dict[str, Any]) -> str:
    labels = list(builds)
    ext = {x: builds[x].get("extensions", {}) for x in labels}
    rows = [["", *labels]]
    rows.append(
        ["generating the C (mypyc, Cython)", *(ratio(builds[x].get("generate")) for x in labels)]
    )
    rows.append(["slowest extension", *(ratio(max(ext[x].values(), default=None)) for x in labels)])
    sums = [builds[x].get("generate", 0) + sum(ext[x].values()) for x in labels]
    rows.append(["every extension, summed", *(ratio(s) for s in sums)])
    return table(rows, "l" + "r" * len(labels))


def variants_lines(run: Run) -> List[str]:
    described: Dict[str, Tuple[str, str]] = {}
    for c in run.columns:
        for v in c.listing.variants.values():
            described.setdefault(v.name, (v.kind, v.description))
    rows = [["variant", "kind", "what it is"]]
    rows += [[f"`{name}`", kind, what] for name, (kind, what) in described.items()]
    return ["**The rows**, as the registry describes them:", "", table(rows, "lll"), ""]


def section(t: Shown) -> List[str]:
    return [f"### {t.title}", "", f"{t.meaning}.", "", t.markdown(), ""]


def ns(m: Measured) -> str:
    return f"{m.time * 1e9:.0f}"


#: Tables a run's report.md has and docs/study.md leaves to it (key prefixes), and the
#: bytecode run's sections docs/study.md shows (the rest stay in its ``bytecode.md``).
REPORT_ONLY = ("twins-jit", "modes-", "bridges", "style", "compiled")
STUDY_BYTECODE = (
    "Machine instructions per byte",
    "Bytecode instructions executed per block",
    "Python-level calls per block",
)


def in_docs(t: Shown, long: int) -> bool:
    """Whether docs/study.md shows the table (the run's report.md shows every one)."""
    if t.key.startswith("hashlib-"):
        return t.key == f"hashlib-{long}"
    return not any(t.key == k or (k.endswith("-") and t.key.startswith(k)) for k in REPORT_ONLY)


def page(r: Report, figures: Sequence[str] = (), full: bool = True) -> List[str]:
    """A run's page: its answers first, then every table (``full``; else those docs/study.md
    shows, naming the others), figures, builds."""
    run, lay = r.run, r.run.layout
    out = [
        run_line(run) + ".",
        "",
        *modes_lines(run),
        *trust_lines(r),
        "## The study's answers",
        "",
    ]
    out += [*styles_lines(r), *(f"- {x}" for x in r.findings), ""]
    out += brief(r.table("buys"))
    long = lay.length(LONG)
    if full:
        out += [f"**Throughput, MB/s**, {size_label(long)} messages (digest):", ""]
        rows = [(s, a) for a in lay.algorithms() for s in comparisons.subjects(lay, fastest=False)]
        out += [per_mode(run, rows, "digest", long, lambda m: ratio(m.mb_per_s)), ""]
    left = [t.title for t in r.tables if not full and not in_docs(t, long)]
    for t in r.tables:
        if t.key in ("styles", "buys") or t.title in left:
            continue
        out += section(t)
        if t.key == "bridges":
            n = min(lay.lengths("getAndDigest"), default=64)
            rows = [(s, a) for s in comparisons.bridges(lay) for a in lay.algorithms()]
            calls = per_mode(run, rows, "getAndDigest", n, ns, "bridge")
            out += ["Time per call (ns):", "", calls, ""]
    if left:
        out += [f"The run's `report.md` has the throughput in MB/s and these tables too: "
                f"{'; '.join(left)}.", ""]  # fmt: skip
    out += [f"![{Path(f).stem}]({f})" for f in figures] + ([""] if figures else [])
    if run.header.builds:
        out += ["**Build times** (seconds, as each environment's build recorded them):", ""]
        out += [build_table(dict(run.header.builds)), ""]
    return out + variants_lines(run)


def readme_section(r: Optional[Report]) -> str:
    """The README's results: the styles table, what compiling buys back, the findings and
    how far to trust them, every ratio said one way."""
    lines = [START, "## Results", ""]
    if r is None:
        return "\n".join([*lines, "No run of `nox -s bench` yet.", END])
    lines += [f"{run_line(r.run, brief=True)}. [Terms]({GLOSSARY}), "
              "[every table](docs/study.md#results).", ""]  # fmt: skip
    jdk25 = any(c.startswith("jdk25") for c in r.run.layout.columns)
    why = f"; JDK 25's `-Xint`: [JDK-8072070]({REVIEWS['8072070']})" if jdk25 else ""
    caption = (
        f"**What the coding style costs**: helpers against streamlined, "
        f"{size_label(r.run.layout.length(LONG))}, 95% rerun interval; the JDK's "
        f"[8256523]({REVIEWS['8256523']}): 4-5x under `-Xint` and Zero, none compiled{why}:"
    )
    lines += [*styles_lines(r, caption), *buys_lines(r)]
    styles = r.table("styles")
    shown = answers.counterpart(r.run, styles) if styles else ""  # the table's last column
    lines += [*(f"- {x}" for x in r.findings if x != shown), "", trust_line(r)]
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


def memory_lines(data: Dict[str, Any]) -> List[str]:
    """The ``nox -s memory`` run's table as docs/study.md shows it."""
    info = data["info"]
    version = f"{info['interpreter']['implementation']} {info['interpreter']['version']}"
    return [
        "### Memory",
        "",
        f"`nox -s memory` (memray), {version}, {info['cpu']}, {info['date']}, "
        f"{info['seconds']:.0f} s. {profiled.sizing(info)} Allocations per block: every "
        "allocation, Python's small objects included, of 16 KiB hashed in one call less "
        "those of 4 KiB, over the 192 blocks between them; peaks: the heap's while "
        "hashing. The run's `memory.md` has every case.",
        "",
        profiled.markdown(data, profiled.DOCS_COLUMNS),
        "",
    ]


def bytecode_lines(name: str, text: str) -> List[str]:
    """The ``nox -s bytecode`` run's own page (``bytecode.md``), its title a paragraph's, the
    sections of STUDY_BYTECODE only (the others named)."""
    lines = text.strip().splitlines()
    head = lines[0].lstrip("# ") if lines else ""
    parts: List[List[str]] = [[]]
    for line in lines[1:]:
        if line.startswith("### "):
            parts.append([])
        parts[-1].append(line)
    kept = [p for p in parts[1:] if p[0][4:].startswith(STUDY_BYTECODE)]
    left = [p[0][4:] for p in parts[1:] if p not in kept]
    out = [f"**{head}** (`nox -s bytecode`, run {name}):", *parts[0]]
    out += [line for p in kept for line in p]
    if left:
        out += ["", f"The run's `bytecode.md` has these too: {'; '.join(left)}."]
    return [*out, ""]


def study_section(r: Optional[Report], figures: Sequence[str]) -> str:
    """docs/study.md's results from a ``nox -s bench`` run: the tables it shows."""
    lines = [START, "## Results", ""]
    if r is not None:
        page_of = f"`results/bench/{r.run.name}/report.md`"
        lines += [f"Generated by `nox -s bench`; the run's page: {page_of}.", ""]
        lines += page(r, figures, full=False)
    return "\n".join([*wrapped(lines), END])


def memory_section(memory: Dict[str, Any]) -> str:
    """docs/study.md's memory table, from a ``nox -s memory`` run."""
    return marked("memory-table", wrapped(memory_lines(memory)))


def bytecode_section(name: str, text: str) -> str:
    """docs/study.md's page of a ``nox -s bytecode`` run (its name and ``bytecode.md``)."""
    return marked("bytecode", wrapped(bytecode_lines(name, text)))


def wrapped(lines: Sequence[str], width: int = 120) -> List[str]:
    """Prose lines wrapped at ``width`` (tables, headings, lists and HTML as they are)."""
    out: List[str] = []
    for line in lines:
        if len(line) <= width or line.startswith(("|", "#", "<", "!", "```")):
            out.append(line)
        else:
            lead = "  " if line.startswith("- ") else ""
            out += textwrap.wrap(line, width, subsequent_indent=lead, break_on_hyphens=False)
    return out


# --- the README's other generated sections: the glance, the answer, the two styles, memory ---


def marked(name: str, lines: Sequence[str]) -> str:
    """``lines`` between the markers of the section ``name``."""
    return "\n".join([f"<!-- {name}:start -->", *lines, f"<!-- {name}:end -->"])


def markers(name: str) -> Tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def one_message(r: Report) -> str:
    """The drop-in against hashlib on one message, from the run: ``native`` ÷ ``hashlib`` per
    CPython mode without a JIT, at each length the report has a table of."""
    lay = r.run.layout
    cpython = [c for c in lay.columns if lay.by[c].implementation == "CPython"
               and not lay.by[c].mode.jit and lay.folded(c) is None]  # fmt: skip
    said = []
    for key in (f"hashlib-{lay.length(64)}", f"hashlib-{lay.length(LONG)}"):
        t = r.table(key)
        if t is None:
            continue
        values = [f.value for a in answers.NAMES for c in cpython
                  if (f := t.at(("native", a), c))]  # fmt: skip
        if values:
            length = size_label(int(key.split("-")[1]))
            said.append(f"{answers.direction(values, 'slower', 'faster')} on {length}")
    if not said or not cpython:
        return ""
    return (
        f"**One message**: `variants.md5(m)` and `variants.sha256(m)` against hashlib's: "
        f"{', '.join(said)} (CPython {span_of(cpython)}, `nox -s bench` run {r.run.name})."
    )


def glance_section(r: Optional[Report]) -> str:
    """The README's first figure: one message against hashlib (``nox -s bench``)."""
    line = one_message(r) if r is not None else ""
    return marked("glance", [line or "One message: no run of `nox -s bench` yet."])


def answer_section(r: Optional[Report], picture: str) -> str:
    """The study's answer in one sentence beside its headline picture."""
    styles = r.table("styles") if r is not None else None
    if r is None or styles is None:
        return marked("answer", ["No run of `nox -s bench` yet."])
    said = [", ".join(answers.style_costs(styles, answers.by_family(r.run, jit), under=True))
            for jit in (False, True)]  # fmt: skip
    sentence = (
        f"**The study's answer**: written as helper functions, MD5 and SHA-256 run {said[0]} "
        f"without a JIT; with one, {said[1]}. The JDK measured 4-5x and none "
        f"([8256523]({REVIEWS['8256523']}))."
    )
    return marked("answer", [sentence, "", f"![What helper functions cost, per mode]({picture})"])


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
    helpers = code_lines(root / "variants/helpers/md5.py", ["rotate_left", "f", "step"],
                         "compress_block")  # fmt: skip
    streamlined = code_lines(root / "variants/streamlined/md5_words.py", [], "compress")
    cells = [
        ("helpers", "variants/helpers/md5.py", helpers),
        ("streamlined", "variants/streamlined/md5_words.py", streamlined),
    ]
    out = ["<table><tr>"]
    for name, path, code in cells:
        out += [f'<td valign="top"><b>{name}</b> (<a href="{path}">{path}</a>)', "",
                "```python", *code, "```", "", "</td>"]  # fmt: skip
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
        said = [f"{n:.0f}{noun if i == 0 else ''} for {answers.NAMES[a]}"
                for i, (a, n) in enumerate(found)]  # fmt: skip
        return " and ".join(said) or "none measured"

    native = [n for (v, _), n in per.items() if v == "native"]
    tail = f"; the native variant {max(native):.0f}" if native else ""
    grown = [f"{v} {answers.NAMES.get(a, a)}" for (v, a), r in profiled.by_row(data).items()
             if any(f.startswith("FLAG") for f in profiled.flags(r))]  # fmt: skip
    growth = (f"peaks that grow with the input: {', '.join(grown)}" if grown
              else "no variant's peak grows with the input")  # fmt: skip
    return marked("memory", [
        f"**Memory** (`nox -s memory`, memray, {version}, {info['date']}): a 64-byte block "
        f"costs the helper style {of('helpers', ' allocations')}, streamlined "
        f"{of('streamlined')}{tail}; {growth} ([the table](docs/study.md#memory)).",
    ])  # fmt: skip


# --- from a `nox -s peers` run: a column against the hashlib loop and DuckDB ----------------

#: The one-thread candidates the README compares: (key in peers.json, how the README names it).
COLUMN, LOOP, DUCKDB = "digest_column/hex", "hashlib/hex", "duckdb/hex"
#: The product's algorithms as the pages name them (the study's two and the rest of the family
#: that the peers measure).
ALGORITHM_NAMES = {**answers.NAMES, "sha1": "SHA-1", "sha512": "SHA-512"}


def column_figures(data: Dict[str, Any]) -> List[Dict[str, Any]]:
    """This CPU's own kernel class, one thread: per (shape, algorithm), ns a row of the column,
    the hashlib loop and DuckDB (hex digests), and the column's speed against the two."""
    from bench.core.stats import ratio as speed_of
    from bench.core.stats import time_of
    from bench.store import cases_of, rounds

    own = data["classes"][0]
    run = next((r for r in own["runs"] if r["threads"] == 1), None)
    if run is None:
        return []
    found = []
    for (shape, alg), values in cases_of(run).items():
        mine, loop, duckdb = (values.get(k) for k in (COLUMN, LOOP, DUCKDB))
        if not (mine and loop and duckdb):
            continue
        ns = {k: time_of(v) / run["rows"] * 1e9 for k, v in
              ((COLUMN, mine), (LOOP, loop), (DUCKDB, duckdb))}  # fmt: skip
        against = {
            k: speed_of(rounds(v), rounds(mine)) for k, v in ((LOOP, loop), (DUCKDB, duckdb))
        }
        found.append({"shape": shape, "algorithm": alg, "ns": ns, "rows": run["rows"],
                      "against": {k: e.value for k, e in against.items() if e},
                      "class": own["name"], "date": data["machine"]["date"]})  # fmt: skip
    return found


def columns_glance(data: Optional[Dict[str, Any]]) -> Optional[str]:
    """The README's column sentence (None: no peers run, the README keeps its own)."""
    figures = column_figures(data) if data else []
    flat = [f for f in figures if f["shape"] == "32 B" and len(f["against"]) == 2]
    if not flat:
        return None
    first, *others = flat
    more = "; ".join(f"{ALGORITHM_NAMES[f['algorithm']]}: {answers.brief(f['against'][LOOP])}x and "
                     f"{answers.brief(f['against'][DUCKDB])}x" for f in others)  # fmt: skip
    return marked("columns-glance", [
        f"**A column**: `variants.{first['algorithm']}_column(column, hexdigest=True)` hashes "
        f"{first['rows']:,} rows of {first['shape']} in C "
        f"{answers.brief(first['against'][LOOP])}x as fast as a hashlib loop and "
        f"{answers.brief(first['against'][DUCKDB])}x as fast as DuckDB's `{first['algorithm']}` "
        f"({more + '; ' if more else ''}one thread, {first['class']} kernels, {first['date']}, "
        "`nox -s peers`)."
    ])  # fmt: skip


def columns_table(data: Optional[Dict[str, Any]]) -> Optional[str]:
    """The README's one small Columns table (None: no peers run)."""
    figures = column_figures(data) if data else []
    if not figures:
        return None
    header = ["rows", "algorithm", "`digest_column`", "hashlib loop", "DuckDB's",
              "against the loop", "against DuckDB"]  # fmt: skip
    body = [[f["shape"], ALGORITHM_NAMES[f["algorithm"]],
             *(f"{f['ns'][k]:.1f} ns" for k in (COLUMN, LOOP, DUCKDB)),
             *(f"{ratio(f['against'][k])}x faster" if k in f["against"] else None
               for k in (LOOP, DUCKDB))] for f in figures]  # fmt: skip
    f = figures[0]
    return marked("columns", [
        f"One thread, ns a row of {f['rows']:,} hex digests, this machine's kernels "
        f"({f['class']}), {f['date']} (`nox -s peers`; every engine and thread count: "
        "[docs/columns.md](docs/columns.md)):",
        "",
        grid(header, body, 2),
    ])  # fmt: skip
