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

from ..catalog import comparisons
from ..catalog.comparisons import LONG, Subject
from ..catalog.modes import version_key
from ..core import stats
from ..core.fmt import grid, interval, minutes, ratio, size_label, table
from ..profile import memory as profiled
from ..store import Measured, Run
from . import answers
from .answers import Report
from .figures import Ratio, Shown

START, END = "<!-- results:start -->", "<!-- results:end -->"
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
    plays_of: Dict[str, List[str]] = {}  # the JDK mode played ("": none): what each mode is
    folded: Dict[str, str] = {}  # a mode whose rows are shown under another: that one
    for c in run.columns:
        m, facts = c.mode, c.listing.runtime
        home = run.layout.folded(c.label)
        if home:
            folded[m.label] = home
        # A Python mode plays a JDK mode in the study's comparison; a styles run has none.
        plays = "" if not m.jdk or run.header.study_name != "bench" else m.jdk
        gil = " (GIL enabled)" if facts.get("gil_enabled") else " (GIL disabled)"
        ft = gil if facts.get("free_threaded") else ""
        how = f", {m.how}" if m.how else ""
        plays_of.setdefault(plays, []).append(f"{m.label} = {c.listing.title}{ft}{how}")
    if list(plays_of) == [""]:
        lines = ["Modes (the columns): " + "; ".join(plays_of[""]) + "."]
    else:
        groups = [f"As the JDK's **{p}**: " + "; ".join(ms) + "." for p, ms in plays_of.items()]
        lines = ["Modes (the columns), by the JDK mode each plays (a JDK's own plays itself). "
                 + " ".join(groups)]  # fmt: skip
    if folded:  # said once: a -portable mode's rows are under its interpreter's
        modes = [run.column(label).mode for label in folded]  # each with a suffix: folded
        own = all(m.interpreter == folded[m.label] for m in modes)
        suffixes = "/".join(dict.fromkeys(f"-{m.suffix}" for m in modes))
        lines[0] += (
            f" A {suffixes} mode's rows are under its interpreter's mode."
            if own
            else " Rows under another mode's: "
            + ", ".join(f"{a} under {b}" for a, b in folded.items())
            + "."
        )
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
        said = [
            f"{', '.join(variants)} under {', '.join(labels)} ({reason})"
            for reason, (variants, labels) in why.items()
        ]
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
        said = [
            f"{', '.join(lengths_together(names))} under {where}"
            for where, names in together.items()
        ]
        lines.append(
            f"Not warmed up (the JIT had not settled within the warm-up in some pass): "
            f"{'; '.join(said)}."
        )
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
        return line + "; no rerun on this machine kept yet to hold them against."
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


def said(f: Ratio, above: str = "slower", below: str = "faster") -> str:
    """A time ratio said one way with its interval: ``2.28x slower (2.20-2.35)``, or
    ``1.05x faster (1.02-1.08)`` for 0.953 (the inverse, its interval's ends swapped)."""
    if f.kind == "count":  # instructions: exact, no interval
        return f"{ratio(f.value)}x more" if f.value >= 1 else f"{ratio(1 / f.value)}x fewer"
    word = stats.verdict(f.value, f.low, f.high)
    if word == stats.SAME:
        return f"{word} ({interval(f.low, f.high)})"
    if word == stats.SLOWER:
        shown, low, high, word = f.value, f.low, f.high, above
    else:
        shown, low, high, word = 1 / f.value, 1 / f.high, 1 / f.low, below
    return f"{ratio(shown)}x {word}" + (f" ({interval(low, high)})" if low != high else "")


def inverse(f: Ratio) -> Ratio:
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
            against = (
                f"streamlined as fast as {near.took} {words.split(' ', 2)[2]}"
                if words.startswith(stats.SAME)
                else f"streamlined {words} than {near.took}"
            )
        body.append(
            [
                *row.labels,
                *(said(f) if (f := cells.get(c)) else None for c in names),
                answers.mode_word(r.verdicts, row.labels[0]),
                against,
            ]
        )
    head = caption or f"**{t.title}** ({t.meaning}):"
    return [head, "", grid(header, body, len(t.spec.header), 2), ""]


def lengths_together(names: Sequence[str]) -> List[str]:
    """Case names with their lengths together: ``digest/sha512/helpers/{64,1024}`` for the
    two cases of one benchmark, algorithm and variant (a name as it was where it is alone)."""
    by: Dict[str, List[str]] = {}
    for name in names:
        head, _, length = name.rpartition("/")
        by.setdefault(head, []).append(length)
    return [
        f"{h}/{ls[0]}" if len(ls) == 1 else f"{h}/{{{','.join(sorted(ls, key=version_key))}}}"
        for h, ls in by.items()
    ]


def span_of(modes: Sequence[str]) -> str:
    """``3.10-3.15``: the first and last of the modes' labels (``a, b`` for two, and
    ``a to z`` where a label has a hyphen of its own, as ``pypy3-nojit`` has). CPython's
    labels in the order of their versions, as several runs' modes may not be (3.13t, only
    later runs', after 3.15)."""
    if all(m[:1].isdigit() for m in modes):
        modes = sorted(modes, key=version_key)
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
    rows = [
        [
            s.label,
            alg,
            *(
                shown(run.measured[m]) if m else None
                for m in (comparisons.pick(lay, s, c, bench, alg, length) for c in lay.columns)
            ),
        ]
        for s, alg in subjects
    ]
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


def page(
    r: Report, figures: Sequence[str] = (), full: bool = True, styles: bool = True
) -> List[str]:
    """A run's page: its answers first (the styles table where ``styles``: docs/study.md has
    it across the machines instead), then every table (``full``; else those docs/study.md
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
    out += [*(styles_lines(r) if styles else []), *(f"- {x}" for x in r.findings), ""]
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
        out += [
            f"The run's `report.md` has the throughput in MB/s and these tables too: "
            f"{'; '.join(left)}.",
            "",
        ]
    out += [f"![{Path(f).stem}]({f})" for f in figures] + ([""] if figures else [])
    if run.header.builds:
        out += ["**Build times** (seconds, as each environment's build recorded them):", ""]
        out += [build_table(dict(run.header.builds)), ""]
    return out + variants_lines(run)


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


def study_section(r: Optional[Report], figures: Sequence[str], across: Sequence[str] = ()) -> str:
    """docs/study.md's results: the table ``across`` the kept machines, then the tables of
    one run (the newest kept) that docs/study.md shows."""
    lines = [START, "## Results", ""]
    if r is not None:
        lines += [
            f"Generated by `python -m bench docs` from the runs kept in `runs/`; the "
            f"tables after the first are of the newest, run {r.run.name}, and its page "
            f"is `python -m bench report` of it.",
            "",
            *across,
        ]
        lines += page(r, figures, full=False, styles=not across)
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


def marked(name: str, lines: Sequence[str]) -> str:
    """``lines`` between the markers of the section ``name``."""
    return "\n".join([f"<!-- {name}:start -->", *lines, f"<!-- {name}:end -->"])


def markers(name: str) -> Tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"
