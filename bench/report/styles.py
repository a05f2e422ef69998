"""A styles file's run reported (``python -m bench styles FILE``): its ``report.md``,
``summary.json`` (through ``bench.store``, in the schema of ``bench.report.styles_summary``),
``ratios.csv`` and ``styles.png``, a forest plot of each style ÷ the baseline per mode with its
95% rerun interval, titled with the file's title.

The run is measured by ``bench.conduct.styles`` and the conductor, counted by
``bench.profile.counters``; this module only reads its records and writes its pages.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

from .. import store
from ..catalog.cases import STYLES
from ..catalog.styles import StyleCase
from ..catalog.styles_study import JOIN, TABLE, compiler_of
from ..core import stats
from ..core.fmt import grid, minutes
from ..profile import style_instructions
from ..store import STOPS, STYLE_BYTECODE, Run
from . import answers, pages, styles_summary
from .answers import Report
from .figures import Ratio, Shown

#: Each verdict (``bench.core.stats.verdict``) as the summary says it of a style.
WORDS = {stats.SAME: "no different", stats.SLOWER: "slower", stats.FASTER: "faster"}
#: The picture's, the summary's and the ratios' file names in the run's folder.
PICTURE = "styles.png"
SUMMARY = "summary.json"
CSV = "ratios.csv"
#: What a cell adds where the time and the instructions disagree in direction.
DISAGREE = "⚠ instr. {:.3g}x"


def title_of(run: Run) -> str:
    found = run.header.record
    return str(found.get("title") or found.get("stem") or "styles")


def baseline_of(run: Run) -> str:
    """The file's first style (the layout's first measured, where the header has none)."""
    names = list(run.header.record.get("styles") or run.layout.order)
    return names[0] if names else ""


def run_line(run: Run) -> str:
    """The file, effort, passes, measuring time, clock, date and why it stopped."""
    h = run.header
    clock = "CPU time" if h.clock == "cpu" else "wall-clock time"
    s = h.stop
    width = s.get("half_width")
    reached = f"±{width:.1%}" if width is not None else "no ratio"
    why = (
        f"; stopped: {STOPS.get(s['rule'], s['rule'])}, the ratios' median {reached} within the run"
        if s
        else ""
    )
    fresh = list(h.record.get("fresh") or ())
    how = [
        "results compared by the file's `EQUAL`" if h.record.get("equal") == "EQUAL" else "",
        f"fresh inputs for every call at size {', '.join(map(str, fresh))}" if fresh else "",
    ]
    said = "; ".join(x for x in how if x)
    return (
        f"Run {run.name} of `{h.record.get('file')}` ({h.effort} effort, {h.passes} passes, "
        f"{minutes(h.measure_seconds)} of measuring, {clock}, {h.started[:10]}, "
        f"{h.cpu}){why}." + (f" {said[0].upper()}{said[1:]}." if said else "")
    )


def verdict(f: Ratio) -> str:
    """``1.52x slower (1.40-1.63)``, ``1.2x faster (...)`` or ``no difference (...)``: the
    interval decides (does it hold 1?)."""
    return pages.said(f)


def answer_lines(
    t: Shown, baseline: str, instructions: Mapping[Tuple[str, str, int], Optional[float]] = {}
) -> List[str]:
    """Each style at each size, a column a mode: how much slower or faster than the baseline,
    and beside it, where the instructions' ratio points the other way, that ratio."""
    clashes = 0

    def said(r: Any, column: str, f: Optional[Ratio]) -> Optional[str]:
        nonlocal clashes
        if f is None:
            return None
        word = styles_summary.VERDICTS[stats.verdict(f.value, f.low, f.high)]
        counted = instructions.get((column, r.labels[0], int(r.labels[1])))
        if not styles_summary.disagrees(word, counted):
            return verdict(f)
        clashes += 1
        assert counted is not None
        return f"{verdict(f)} {DISAGREE.format(counted)}"

    body = [[*r.labels, *(said(r, c, f) for c, f in zip(t.columns, r.cells))] for r in t.rows]
    out = [
        f"**Each style against {baseline}** (time of the style ÷ time of {baseline}, same "
        f"mode and size, 95% rerun interval; `no difference` where it holds 1):",
        "",
        grid([*t.spec.header, *t.columns], body, len(t.spec.header)),
        "",
    ]
    if clashes:
        spread = styles_summary.INSTRUCTION_SPREAD
        out += [
            f"⚠ marks the {clashes} ratios whose time and machine instructions disagree in "
            f"direction: the time slower (or faster) beyond its interval, the instructions "
            f"÷ {baseline} (callgrind's) fewer (or more) by over {spread:.0%}. Instructions "
            "are not time: a JIT's inlined loop, cache misses, mispredicted branches and "
            "allocation cost time that a count does not weigh.",
            "",
        ]
    return out


def times_lines(run: Run) -> List[str]:
    """Every case's time per call, in microseconds: style and size as rows, modes as columns."""
    lay = run.layout
    found = [StyleCase.of(c) for _, c in lay.cases]
    cases = sorted(
        {(c.style, c.size) for c in found},
        key=lambda vc: (lay.order.index(vc[0]) if vc[0] in lay.order else 0, vc[1]),
    )
    stem = str(run.header.record.get("stem"))

    def micro(mode: str, v: str, n: int) -> Optional[str]:
        m = lay.get(mode, STYLES, stem, v, n)
        return f"{run.measured[m].time * 1e6:.3g}" if m else None

    rows = [[v, str(n), *(micro(c, v, n) for c in lay.columns)] for v, n in cases]
    return ["**Time per call** (µs):", "", grid(["style", "size", *lay.columns], rows, 2), ""]


def summary_line(t: Shown, baseline: str) -> List[str]:
    """Per style, the modes (and sizes) where it is slower, faster or no different."""
    out = []
    for style in dict.fromkeys(r.labels[0] for r in t.rows):
        by: Dict[str, Dict[str, List[str]]] = {}
        for r in (r for r in t.rows if r.labels[0] == style):
            for column, f in zip(t.columns, r.cells):
                if f is not None:
                    word = WORDS[stats.verdict(f.value, f.low, f.high)]
                    by.setdefault(word, {}).setdefault(column, []).append(r.labels[1])
        sizes = len({r.labels[1] for r in t.rows})
        said = "; ".join(
            f"{word} under "
            + ", ".join(
                m if len(at) == sizes else f"{m} (size {', '.join(at)})" for m, at in where.items()
            )
            for word, where in by.items()
        )
        out.append(f"- `{style}` against `{baseline}`: {said}.")
    return [*out, ""] if out else []


def cannot_lines(run: Run) -> List[str]:
    """The compiled twins' modes said, and the modes and twins that could not run."""
    found = run.header.record
    out = []
    if "twins" in found:
        out += [
            f"A mode `<mode>{JOIN}<compiler>` runs the file compiled by that compiler "
            "(its styles against its own baseline; PyPy's modes have none).",
            "",
        ]
    for key, what in (
        ("cannot_run", "Modes that cannot run the file"),
        ("not_built", "Compiled twins that did not build"),
    ):
        said = "; ".join(f"{label}: {why}" for label, why in (found.get(key) or {}).items())
        out += [f"{what}: {said}.", ""] if said else []
    return out


def counts_lines(folder: Path) -> List[str]:
    """The bytecode counts' tables (``bench.profile.counters``' ``bytecode``): per call, style
    and size as rows, interpreters."""
    if not (folder / STYLE_BYTECODE).exists():
        return []
    found: Dict[str, Any] = store.read_record(folder / STYLE_BYTECODE)["interpreters"]
    labels = list(found)
    keyed = {(label, r["style"], r["size"]): r for label in labels for r in found[label]["rows"]}
    cases = list(dict.fromkeys((s, n) for _, s, n in keyed))
    out = []
    for title, key in (
        ("Bytecode instructions executed per call", "bytecode"),
        ("Python-level calls per call", "python_calls"),
        ("Calls into C per call", "c_calls"),
    ):
        rows = [
            [
                s,
                str(n),
                *(str(keyed[(x, s, n)][key]) if (x, s, n) in keyed else None for x in labels),
            ]
            for s, n in cases
        ]
        out += [
            f"**{title}** (counted under tracing, the interpreter's own, a JIT's mode "
            f"executes the same bytecode):",
            "",
            grid(["style", "size", *labels], rows, 2),
            "",
        ]
    return out


def page(
    r: Report,
    figures: Sequence[str] = (),
    counts: Sequence[str] = (),
    instructions: Mapping[Tuple[str, str, int], Optional[float]] = {},
) -> List[str]:
    run = r.run
    t = r.table(TABLE)
    baseline = baseline_of(run)
    out = [f"# {title_of(run)}", "", run_line(run), "", *pages.modes_lines(run), *cannot_lines(run)]
    if t is None:
        return [*out, "Nothing was measured: no mode could time two styles of the file.", ""]
    half = answers.median_half(t.ratios())
    out += [
        f"**How far to trust it**: the {len(t.ratios())} ratios' median 95% interval is "
        f"±{half:.1%}.",
        "",
    ]
    out += summary_line(t, baseline) + answer_lines(t, baseline, instructions)
    out += [f"**The ratios** ({t.meaning}):", "", t.markdown(), ""]
    out += [*times_lines(run), *counts]
    out += [f"![{Path(f).stem}]({f})" for f in figures] + ([""] if figures else [])
    return out


def picture(r: Report) -> Any:
    """The forest plot: per mode (grouped by kind), each style ÷ the baseline at each size
    with its 95% rerun interval, a panel per style, on a log axis; None: nothing to draw."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from .plots import KINDS, kind_of, ratio_axis, rows_axis

    t = r.table(TABLE)
    if t is None or not t.ratios():
        return None
    run = r.run
    order = [k[0] for k in KINDS]
    base = {c: kind_of(run, c) or "other" for c in t.columns}
    kinds = {c: " + ".join(filter(None, (base[c], compiler_of(c)))) for c in t.columns}
    listed = sorted(
        t.columns,
        key=lambda c: (
            compiler_of(c) or "",
            order.index(base[c]) if base[c] in order else 99,
        ),
    )
    ys: Dict[str, float] = {}
    y, previous = 0.0, kinds[listed[0]]
    for c in listed:
        if kinds[c] != previous:
            y, previous = y + 0.6, kinds[c]
        ys[c] = y
        y += 1
    style_names = list(dict.fromkeys(row.labels[0] for row in t.rows))
    sizes = list(dict.fromkeys(row.labels[1] for row in t.rows))
    marks = ("o", "D", "s", "^", "v", "P")
    colours = ("#1f5fa8", "#d9730d", "#2a9d3a", "#b5179e", "#6c757d", "#8c564b")
    fig, axes = plt.subplots(
        1,
        len(style_names),
        squeeze=False,
        sharey=True,
        figsize=(3.2 + 3.4 * len(style_names), 1.6 + 0.38 * len(listed)),
    )
    values = [v for f in t.ratios() for v in (f.low, f.high)]
    low, high = min(0.8, min(values) / 1.15), max(1.25, max(values) * 1.15)
    for ax, style in zip(axes[0], style_names):
        for row in (row for row in t.rows if row.labels[0] == style):
            i = sizes.index(row.labels[1])
            offset = (i - (len(sizes) - 1) / 2) * min(0.22, 0.7 / len(sizes))
            for column, f in zip(t.columns, row.cells):
                if f is not None:
                    ax.errorbar(
                        [f.value],
                        [ys[column] + offset],
                        xerr=[[f.value - f.low], [f.high - f.value]],
                        fmt=marks[i % len(marks)],
                        color=colours[i % len(colours)],
                        markersize=4.5,
                        capsize=2,
                        linewidth=1,
                    )
        ax.set_xscale("log")
        ax.set_xlim(low, high)
        ax.axvline(1.0, color="0.3", linewidth=1, zorder=1)
        ticks = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50)
        ratio_axis(
            ax,
            (low, high),
            ticks,
            f"{style} ÷ {baseline_of(run)}",
            "time ratio (<1: faster than the baseline)",
        )
    last = rows_axis(axes[0], ys, (y - 0.4, -0.6))
    groups: Dict[str, List[float]] = {}
    for c in listed:
        groups.setdefault(kinds[c], []).append(ys[c])
    for kind, where in groups.items():
        last.text(
            1.02,
            sum(where) / len(where),
            kind,
            transform=last.get_yaxis_transform(),
            va="center",
            fontsize=8,
            color="0.25",
        )
    handles = [
        Line2D(
            [],
            [],
            color=colours[i % len(colours)],
            marker=marks[i % len(marks)],
            linestyle="",
            label=f"size {n}",
        )
        for i, n in enumerate(sizes)
    ]
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=min(len(handles), 6),
        fontsize=8,
        frameon=False,
        bbox_to_anchor=(0.5, 0.03),
    )
    fig.suptitle(
        textwrap.fill(f"{title_of(run)} (95% rerun intervals)", 100), fontsize=11, x=0.01, ha="left"
    )
    h = run.header
    fig.text(
        0.01,
        0.005,
        f"{h.cpu} · {len(listed)} modes · {h.started[:10]} · effort {h.effort}"
        f" · {Path(str(h.record.get('file'))).name}",
        fontsize=7.5,
        color="0.35",
    )
    fig.tight_layout(rect=(0, 0.08, 0.88, 0.96))
    return fig


def summary_of(folder: Path) -> Tuple[Report, Dict[str, Any]]:
    """The run in ``folder`` read: its report and its summary (``styles_summary``'s schema)."""
    r = answers.build(store.load(folder))
    counts = style_instructions.ratios(folder, baseline_of(r.run))
    return r, styles_summary.summary(r, counts)


def write(folder: Path, plots: bool = True) -> Tuple[Report, List[str], List[str]]:
    """The run's report.md, summary.json, ratios.csv and picture, with the counts its counters
    wrote (``bench.profile.counters``): (its report, the notes to print, the counts' lines)."""
    r, summary = summary_of(folder)
    notes: List[str] = []
    baseline = baseline_of(r.run)
    counted = [*counts_lines(folder), *style_instructions.lines(folder, baseline)]
    store.write_record(folder / SUMMARY, summary)
    (folder / CSV).write_text(styles_summary.csv_text(summary))
    figures: List[str] = []
    if plots:
        try:
            fig = picture(r)
        except ImportError as exc:  # matplotlib missing: the report without its picture
            notes.append(f"no picture: {exc} (pip install matplotlib draws it)")
        else:
            if fig is not None:
                fig.savefig(folder / PICTURE, dpi=110)
                close(fig)
                figures.append(PICTURE)
    text = page(r, figures, counted, instructions_of(summary))
    (folder / "report.md").write_text("\n".join(pages.wrapped(text)) + "\n")
    return r, notes, counted


def instructions_of(summary: Mapping[str, Any]) -> Dict[Tuple[str, str, int], Optional[float]]:
    """(mode, style, size) -> instructions ÷ the baseline's, from a summary."""
    return {(x["mode"], x["style"], x["size"]): x["ratio"] for x in summary["instructions"]}


def close(fig: Any) -> None:
    """Let matplotlib forget a figure drawn and saved."""
    import matplotlib.pyplot as plt

    plt.close(fig)


def report_main(
    folder: Path,
    plots: bool = True,
    notes: Sequence[str] = (),
    format: str = "md",
    data: Optional[TextIO] = None,
) -> int:
    """A styles run's report written and printed (``format``: md, its page; json, its
    summary; csv, its ratios, to ``data``, else stdout), with ``notes`` (the counters'): 0, or
    1 where no mode could time two styles of the file."""
    r, more, counted = write(folder, plots)
    if format == "json":
        print((folder / SUMMARY).read_text(), file=data or sys.stdout)
    elif format == "csv":
        print((folder / CSV).read_text(), end="", file=data or sys.stdout)
    else:
        figures = [PICTURE] if (folder / PICTURE).exists() else []
        summary = store.read_record(folder / SUMMARY)
        print("\n".join(page(r, figures, counted, instructions_of(summary))))
    aside = sys.stdout if format == "md" else sys.stderr  # a summary or CSV alone on stdout
    for note in [*notes, *more]:
        print(note, file=aside)
    shown = [
        p.name
        for p in (folder / "report.md", folder / SUMMARY, folder / CSV, folder / PICTURE)
        if p.exists()
    ]
    print(f"\nreport: {folder} ({', '.join(shown)})", file=aside)
    return 0 if r.table(TABLE) is not None else 1
