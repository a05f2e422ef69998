"""The study's pages from a run's report: its ``report.md``, the README's results, docs/study.md's.

``page`` is a run's whole page (answers first, then every table, figures, builds, the rows);
``readme_section`` the README's headline results; ``study_section`` docs/study.md's results,
with the newest ``nox -s memory`` and ``nox -s bytecode`` runs' own pages. ``bench.report``
writes them (``python -m bench report``, ``python -m bench docs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench.catalog import comparisons
from bench.catalog.comparisons import LONG, Subject
from bench.core.fmt import grid, human_bytes, minutes, ratio, size_label, table
from bench.profile.memory import markdown as memory_table
from bench.report import answers
from bench.report.answers import Report
from bench.report.figures import Shown
from bench.store import Measured, Run

START, END = "<!-- results:start -->", "<!-- results:end -->"


def run_line(run: Run) -> str:
    h = run.header
    clock = "CPU time" if h.clock == "cpu" else "wall-clock time"
    stretches = h.plan.get("stretches")
    over = f" in {stretches} stretches" if stretches else ""
    return (
        f"Run {run.name} (`nox -s bench`, {h.effort} effort, {h.passes} passes{over}, "
        f"{minutes(h.measure_seconds)} of measuring, {clock}, {h.started[:10]})"
        + (f"; {h.stopped}" if h.stopped else "")
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
    cold = [f"{m.case.name} under {m.mode}" for m in run.measured.values() if not m.warmed]
    if cold:
        lines.append(f"Not warmed up (the JIT had not settled within the warm-up in some pass): "
                     f"{'; '.join(cold)}.")  # fmt: skip
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


#: The README's captions of its two tables (docs/study.md gives each table's title and meaning).
CAPTIONS = {
    "styles": "**What the coding style costs**: helpers ÷ streamlined, 16 KiB digests (the JDK's "
    "8256523: 4-5x under `-Xint` and Zero, none under its compilers); counterpart: the JDK mode "
    "nearest in speed, and this mode's speed against it.",
    "buys": "**What compiling buys back**: source ÷ build, 16 KiB digests (typed Cython and "
    "native ÷ streamlined; the JIT: JIT off ÷ on).",
}


def styles_lines(r: Report, caption: str = "") -> List[str]:
    """The styles table with each mode's verdict in a column of its own, the counterpart
    named in its cell."""
    t = r.table("styles")
    if t is None:
        return []
    header = [*t.spec.header, *t.columns, "verdict"]
    body = [[*row.labels, *(f"{c.took} {c.text()}".strip() if c else None for c in row.cells),
             answers.mode_word(r.verdicts, row.labels[0])] for row in t.rows]  # fmt: skip
    head = caption or f"**{t.title}** ({t.meaning}):"
    return [head, "", grid(header, body, len(t.spec.header), 1), ""]


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


def page(r: Report, figures: Sequence[str] = ()) -> List[str]:
    """A run's whole page: its answers first, then every table, figures, builds."""
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
    out += [f"**Throughput, MB/s**, {size_label(long)} messages (digest):", ""]
    rows = [(s, a) for a in lay.algorithms() for s in comparisons.subjects(lay, fastest=False)]
    out += [per_mode(run, rows, "digest", long, lambda m: ratio(m.mb_per_s)), ""]
    for t in r.tables:
        out += section(t) if t.key not in ("styles", "buys") else []
        if t.key == "bridges":
            n = min(lay.lengths("getAndDigest"), default=64)
            rows = [(s, a) for s in comparisons.bridges(lay) for a in lay.algorithms()]
            calls = per_mode(run, rows, "getAndDigest", n, ns, "bridge")
            out += ["Time per call (ns):", "", calls, ""]
    out += [f"![{Path(f).stem}]({f})" for f in figures] + ([""] if figures else [])
    if run.header.builds:
        out += ["**Build times** (seconds, as each environment's build recorded them):", ""]
        out += [build_table(dict(run.header.builds)), ""]
    return out + variants_lines(run)


def readme_section(r: Optional[Report]) -> str:
    """The README's results: the two tables, the findings and how far to trust them."""
    lines = [START, "## Results", ""]
    if r is None:
        return "\n".join([*lines, "No run of `nox -s bench` yet.", END])
    lines += [f"{run_line(r.run)}; ratios: `value (95% rerun interval)`; all tables: "
              "[docs/study.md](docs/study.md).", ""]  # fmt: skip
    lines += [*styles_lines(r, CAPTIONS["styles"]), *brief(r.table("buys"), CAPTIONS["buys"])]
    lines += [" ".join(r.findings), "", trust_line(r)]
    return "\n".join([*lines, END])


def memory_lines(data: Dict[str, Any]) -> List[str]:
    info = data["info"]
    columns = {"variant": "variant", "algorithm": "algorithm", "stream": "peak, streamed"}
    columns.update({"one-call": "peak, 1 MiB in one call", "objects": "objects per block"})
    version = f"{info['interpreter']['implementation']} {info['interpreter']['version']}"
    return [
        f"**Memory** (`nox -s memory`, {version}, {info['date']}, "
        f"{human_bytes(info['stream_bytes'])} streamed in 64 KiB chunks); the whole table with "
        "its flags is the run's `memory.md`:",
        "",
        memory_table(data, columns),
        "",
    ]


def bytecode_lines(name: str, text: str) -> List[str]:
    """The ``nox -s bytecode`` run's own page (``bytecode.md``), its title a paragraph's."""
    lines = text.strip().splitlines()
    head = lines[0].lstrip("# ") if lines else ""
    return [f"**{head}** (`nox -s bytecode`, run {name}):", *lines[1:], ""]


def study_section(
    r: Optional[Report],
    memory: Optional[Dict[str, Any]],
    bytecode: Optional[Tuple[str, str]],
    figures: Sequence[str],
) -> str:
    """docs/study.md's generated results: the whole report, memory, the bytecode run's page
    (its name and ``bytecode.md``)."""
    lines = [START, "## Results", ""]
    if r is not None:
        page_of = f"`results/bench/{r.run.name}/report.md`"
        lines += [f"Generated by `nox -s bench`; the run's page: {page_of}.", "", *page(r, figures)]
    if memory:
        lines += memory_lines(memory)
    if bytecode is not None:
        lines += bytecode_lines(*bytecode)
    return "\n".join([*lines, END])
