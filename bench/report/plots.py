"""The study's figures (matplotlib, PNG), drawn from a run's report (``bench.report``).

``styles.png``, the headline: per mode, what the helper style costs (time of helpers ÷
streamlined, 16 KiB, with its 95% rerun interval), the modes grouped by kind, against the
JDK's 4-5x (OpenJDK 8256523). Then throughput against message length per mode, and speed
bars of every variant against helpers under the first mode. Every figure carries the CPU,
the mode(s), the date and the effort of the run; every legend sits outside the data.
"""

from __future__ import annotations

import math
import textwrap
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..catalog import modes as catalog
from ..catalog.comparisons import LONG, TEXTBOOK
from ..core import stats
from ..core.fmt import size_label
from ..store import Run
from .answers import NAMES, Report, span
from .figures import Ratio
from .pages import HEADLINE

LINESTYLES = {"interpreted": "-", "compiled": "--", "native": "-.", "reference": ":"}
#: The reference rows, each its own colour and mark (hashlib and the interpreter's builtin).
REFERENCES = {"hashlib": ("#000000", "s"), "builtin": ("#8c564b", "^")}
BASELINE = TEXTBOOK
#: Python and the JVM, in two colours.
PYTHON, JVM = "#1f5fa8", "#d9730d"
#: The algorithms' marks in the headline picture.
MARKS = {"md5": "o", "sha1": "s", "sha256": "D", "sha512": "^"}
#: The seeds' range: helpers ÷ streamlined under the JDK's -Xint and Zero (OpenJDK 8256523).
SEEDS = (4.0, 5.0)


def footer(run: Run, fig: Figure, modes: str) -> None:
    h = run.header
    text = f"{h.cpu} · {modes} · {h.started[:10]} · effort {h.effort}"
    fig.text(0.01, 0.01, text, fontsize=8, color="0.35")


def time(run: Run, mode: str, alg: str, variant: str, n: int) -> Optional[float]:
    m = run.layout.get(mode, "digest", alg, variant, n)
    return run.measured[m].time if m else None


# --- the headline: what the coding style costs, per mode ------------------------------------

#: The kinds of mode, in the picture's order (top to bottom): what decides a mode's kind.
KINDS: Tuple[Tuple[str, str, bool, Tuple[str, ...]], ...] = (
    # (name, implementation, jit, the JDK roles it plays; empty: any)
    ("JDK compilers", "OpenJDK", True, ()),
    ("PyPy, JIT on", "PyPy", True, ()),
    ("CPython, JIT on", "CPython", True, ()),
    ("CPython, no JIT", "CPython", False, ()),
    ("PyPy, JIT off", "PyPy", False, ()),
    ("JDK -Xint", "OpenJDK", False, (catalog.INTERPRETED,)),
    ("JDK Zero", "OpenJDK", False, (catalog.ZERO,)),
)


def kind_of(run: Run, mode: str) -> Optional[str]:
    m = run.layout.by[mode]
    for name, impl, jit, roles in KINDS:
        if m.implementation == impl and m.mode.jit == jit and (not roles or m.mode.jdk in roles):
            return name
    return None


Row = Tuple[str, str, Dict[str, Ratio]]  # (kind, mode, {algorithm: helpers ÷ streamlined})


def style_rows(r: Report) -> List[Row]:
    """Each mode's helpers ÷ streamlined per algorithm (the styles table), grouped by kind."""
    t = r.table("styles")
    if t is None:
        return []
    found: List[Row] = []
    for row in t.rows:
        mode = row.labels[0]
        kind = kind_of(r.run, mode)
        cells = {a: f for a, name in NAMES.items() if (f := t.at((mode,), name)) is not None}
        if kind and cells:
            found.append((kind, mode, cells))
    order = [k[0] for k in KINDS]
    return sorted(found, key=lambda x: order.index(x[0]))  # stable: the run's order in a kind


def kind_span(rows: Sequence[Row], kinds: Sequence[str]) -> str:
    """The kinds' range of helpers ÷ streamlined, "nothing" where every interval holds 1."""
    figures = [f for kind, _, cells in rows if kind in kinds for f in cells.values()]
    if figures and all(stats.verdict(f.value, f.low, f.high) == stats.SAME for f in figures):
        return "nothing"
    return span(figures) if figures else ""


def headline_title(rows: Sequence[Row]) -> str:
    """The finding in words, from the figures: what the style costs CPython's and PyPy's
    interpreters, and the JDK's compilers."""
    said = [
        (label, s)
        for label, kinds in (
            ("CPython", ["CPython, no JIT", "CPython, JIT on"]),
            ("PyPy without its JIT", ["PyPy, JIT off"]),
            ("the JDK's interpreters", ["JDK -Xint", "JDK Zero"]),
            ("the JDK's compilers", ["JDK compilers"]),
        )
        if (s := kind_span(rows, kinds))
    ]
    if not said:
        return "What helper functions cost"
    words = [f"{label} {s}" for label, s in said]
    tail = " and ".join(words[-2:])
    return "Helper functions cost " + ", ".join([*words[:-2], tail])


#: Each machine's mark in the headline picture, in the kept machines' order.
MACHINE_MARKS = ("o", "D", "s", "^", "v", "P", "X", "*")


def styles(reports: Sequence[Report], cpus: Sequence[str] = ()) -> Optional[Figure]:
    """The headline: helpers ÷ streamlined per mode with its 95% interval, on a log axis, a
    panel an algorithm, each machine its own mark (named in the legend by its CPU)."""
    per = [style_rows(r) for r in reports]
    if not any(per):
        return None
    cpus = list(cpus) or [r.run.header.cpu for r in reports]
    order = [k[0] for k in KINDS]
    modes: Dict[str, str] = {}
    for rows in per:
        for kind, mode, _ in rows:
            modes.setdefault(mode, kind)
    listed = sorted(modes.items(), key=lambda x: order.index(x[1]))  # stable within a kind
    y, previous, ys = 0.0, listed[0][1], {}
    groups: List[Tuple[str, float, float]] = []  # (kind, first y, last y)
    for mode, kind in listed:
        if kind != previous:
            y += 0.7  # a gap between kinds
            previous = kind
        ys[mode] = y
        if groups and groups[-1][0] == kind:
            groups[-1] = (kind, groups[-1][1], y)
        else:
            groups.append((kind, y, y))
        y += 1
    algorithms = [a for a in NAMES if any(a in cells for rows in per for _, _, cells in rows)]
    fig, axes = plt.subplots(
        1, len(algorithms), figsize=(11.0, 2.6 + 0.3 * len(listed)), sharey=True, squeeze=False
    )
    values = [
        v for rows in per for _, _, cells in rows for f in cells.values() for v in (f.low, f.high)
    ]
    low, high = min(0.9, min(values) / 1.1), max(8.0, max(values) * 1.1)
    for ax, alg in zip(axes[0], algorithms):
        for i, rows in enumerate(per):
            offset = (i - (len(per) - 1) / 2) * min(0.25, 0.8 / len(per))
            for _, mode, cells in rows:
                f = cells.get(alg)
                if f is None:
                    continue
                jvm = reports[i].run.layout.by[mode].implementation == "OpenJDK"
                ax.errorbar(
                    [f.value],
                    [ys[mode] + offset],
                    xerr=[[f.value - f.low], [f.high - f.value]],
                    fmt=MACHINE_MARKS[i % len(MACHINE_MARKS)],
                    color=JVM if jvm else PYTHON,
                    markersize=4.5,
                    capsize=2,
                    linewidth=1,
                )
        ax.set_xscale("log")
        ax.set_xlim(low, high)
        ax.axvspan(*SEEDS, color="0.88", zorder=0)
        ax.text(
            math.sqrt(SEEDS[0] * SEEDS[1]),
            -1.5,
            "OpenJDK 8256523:\n4-5x (-Xint, Zero)",
            ha="center",
            va="top",
            fontsize=7.5,
            color="0.3",
        )
        ax.axvline(1.0, color="0.3", linewidth=1, zorder=1)
        ax.text(1.02, -1.5, "no cost", ha="left", va="top", fontsize=7.5, color="0.3")
        ticks = (0.25, 0.5, 0.7, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20)
        ratio_axis(ax, (low, high), ticks, NAMES[alg], "time of helpers ÷ time of streamlined")
    last = rows_axis(axes[0], ys, (y - 0.3, -1.6))
    for kind, top, bottom in groups:
        last.text(
            1.01,
            (top + bottom) / 2,
            kind,
            transform=last.get_yaxis_transform(),
            va="center",
            fontsize=8,
            color="0.25",
        )
    n = size_label(reports[0].run.layout.length(LONG))
    title = headline_title([row for rows in per for row in rows])
    fig.suptitle(
        textwrap.fill(f"{title} ({n} digests, 95% rerun interval)", 110),
        fontsize=11,
        x=0.01,
        ha="left",
    )
    legend = [
        Line2D([], [], color=PYTHON, linewidth=4, label="Python"),
        Line2D([], [], color=JVM, linewidth=4, label="the JVM"),
        *(
            Line2D(
                [],
                [],
                color="0.3",
                marker=MACHINE_MARKS[i % len(MACHINE_MARKS)],
                linestyle="",
                label=cpu,
            )
            for i, cpu in enumerate(cpus)
        ),
    ]
    # the legend on a row of its own under the panels, the footer under it: a long CPU name
    # widens the legend, never into the footer
    fig.legend(
        handles=legend,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.035),
        ncol=min(len(legend), 5),
        fontsize=8,
        frameon=False,
    )
    dates = sorted(r.run.header.started[:10] for r in reports)
    when = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    efforts = ", ".join(sorted({r.run.header.effort for r in reports}))
    fig.text(
        0.01,
        0.005,
        f"{len(reports)} CPU{'s' if len(reports) > 1 else ''} · {len(listed)} "
        f"modes · {when} · effort {efforts}",
        fontsize=8,
        color="0.35",
    )
    fig.tight_layout(rect=(0, 0.1, 0.9, 0.97))
    return fig


# --- throughput and speed, per variant ------------------------------------------------------


def colour(lay_kind: str, variant: str, i: int) -> Tuple[str, str]:
    """A variant's colour and mark: the references their own, the others a colour each."""
    if variant in REFERENCES:
        return REFERENCES[variant]
    return matplotlib.colors.to_hex(plt.get_cmap("tab20")(i % 20)), "o"


def throughput(run: Run, mode: str) -> Figure:
    """MB/s against message length, log-log, one line per variant (digest mode)."""
    lay = run.layout
    algorithms = lay.algorithms()
    fig, axes = plt.subplots(1, len(algorithms), figsize=(6.5 * len(algorithms), 5), squeeze=False)
    legend: Dict[str, Artist] = {}  # every line of every panel, once
    for ax, alg in zip(axes[0], algorithms):
        for i, variant in enumerate(lay.order):
            points = [
                (n, n / t / 1e6) for n in lay.lengths() if (t := time(run, mode, alg, variant, n))
            ]
            if not points:
                continue
            hue, mark = colour(lay.kind(variant), variant, i)
            (line,) = ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                LINESTYLES.get(lay.kind(variant), "-"),
                marker=mark,
                markersize=3,
                color=hue,
                label=variant,
            )
            legend.setdefault(variant, line)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message length (bytes)")
        ax.set_ylabel("MB/s (digest, fastest time)")
        ax.set_title(f"{NAMES.get(alg, alg)} under {mode} ({run.column(mode).listing.title})")
        ax.grid(True, which="both", alpha=0.3)
    fig.legend(
        list(legend.values()),
        list(legend),
        loc="center left",
        bbox_to_anchor=(0.8, 0.5),
        fontsize=8,
        title="variant",
    )
    fig.suptitle("Throughput against message length (log-log)")
    footer(run, fig, mode)
    fig.tight_layout(rect=(0, 0.03, 0.8, 1))
    return fig


def speedup(run: Run) -> Optional[Figure]:
    """Bars: each variant under each mode against helpers under the first mode."""
    lay = run.layout
    length = max((n for n in lay.lengths() if n <= LONG), default=None)
    modes, variants = lay.columns, lay.order
    if length is None or not modes:
        return None
    base_mode = modes[0]
    fig, axes = plt.subplots(
        len(lay.algorithms()),
        1,
        figsize=(max(8.0, 1.2 * len(variants)) + 2.0, 4.2 * len(lay.algorithms())),
        squeeze=False,
    )
    drawn = False
    width = 0.8 / max(1, len(modes))
    cmap = plt.get_cmap("viridis")
    for ax, alg in zip((row[0] for row in axes), lay.algorithms()):
        base = time(run, base_mode, alg, BASELINE, length)
        if base is None:
            ax.set_visible(False)
            continue
        for j, mode in enumerate(modes):
            xs: List[float] = []
            ys: List[float] = []
            for i, variant in enumerate(variants):
                t = time(run, mode, alg, variant, length)
                if t is not None:
                    xs.append(i + (j - (len(modes) - 1) / 2) * width)
                    ys.append(base / t)
            color = cmap(j / max(1, len(modes) - 1) * 0.85)
            ax.bar(xs, ys, width, label=mode, color=color)
            drawn = drawn or bool(xs)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(f"× {BASELINE} under {base_mode}")
        name = NAMES.get(alg, alg)
        ax.set_title(
            f"{name}, {size_label(length)} messages (digest): speed against {BASELINE} "
            f"under {base_mode}"
        )
        ax.grid(True, axis="y", which="both", alpha=0.3)
    if not drawn:
        plt.close(fig)
        return None
    handles, labels = next(ax for ax in fig.axes if ax.get_visible()).get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="center left", bbox_to_anchor=(0.83, 0.5), fontsize=7, title="mode"
    )
    footer(run, fig, f"{len(modes)} modes")
    fig.tight_layout(rect=(0, 0.03, 0.82, 1))
    return fig


def figures(r: Report) -> Dict[str, Callable[[], Optional[Figure]]]:
    """Every figure of the report's run by its file name, the headline first: each drawn when
    called (one open at a time: matplotlib keeps every figure not closed)."""
    run = r.run
    drawn: Dict[str, Callable[[], Optional[Figure]]] = {HEADLINE: partial(styles, [r])}
    drawn.update({f"throughput-{m}.png": partial(throughput, run, m) for m in run.layout.columns})
    drawn["speedup.png"] = partial(speedup, run)
    return drawn


def save(draw: Callable[[], Optional[Figure]], path: Path) -> Optional[Path]:
    """The figure ``draw`` makes written to ``path`` and closed; None where it draws none."""
    fig = draw()
    if fig is None:
        return None
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_all(r: Report, folder: Path) -> List[Path]:
    """Every figure of the report's run, written into ``folder`` as PNG."""
    return [p for name, draw in figures(r).items() if (p := save(draw, folder / name))]


def page_names(across: Any) -> List[str]:
    """The pages' figures' names (``draw_pages``'s), without drawing them."""
    r = newest_of(across)
    if r is None:
        return []
    return [HEADLINE, "speedup.png", *(f"throughput-{c}.png" for c in last_cpython(r))]


def newest_of(across: Any) -> Optional[Report]:
    reports: Sequence[Report] = across.reports
    return max(reports, key=lambda r: r.run.header.started, default=None)


def last_cpython(r: Report) -> List[str]:
    lay = r.run.layout
    found = [
        c for c in lay.columns if lay.by[c].implementation == "CPython" and lay.folded(c) is None
    ]
    return found[-1:]


def draw_pages(across: Any, folder: Path) -> List[Path]:
    """The pages' figures into ``folder``: the headline across every kept machine, and the
    newest run's speed bars and throughput under its newest CPython."""
    r = newest_of(across)
    if r is None:
        return []
    drawn: Dict[str, Callable[[], Optional[Figure]]] = {
        HEADLINE: partial(styles, across.reports, across.cpus),
        "speedup.png": partial(speedup, r.run),
    }
    drawn.update({f"throughput-{c}.png": partial(throughput, r.run, c) for c in last_cpython(r)})
    return [p for name, draw in drawn.items() if (p := save(draw, folder / name))]


def ratio_axis(
    ax: Any, span: Tuple[float, float], ticks: Sequence[float], title: str, label: str
) -> None:
    """A forest plot's panel: its ratio ticks (those within ``span``) as "2x", a grid, its title
    and the label of its ratio axis."""
    shown = [t for t in ticks if span[0] <= t <= span[1]]
    ax.set_xticks(shown)
    ax.set_xticklabels([f"{t:g}x" for t in shown], fontsize=8)
    ax.minorticks_off()
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(label, fontsize=9)


def rows_axis(axes: Sequence[Any], ys: Dict[str, float], limits: Tuple[float, float]) -> Any:
    """The first panel of a row names the rows at ``ys``; the last panel, returned, is where
    the groups' names go."""
    axes[0].set_yticks(list(ys.values()))
    axes[0].set_yticklabels(list(ys), fontsize=8)
    axes[0].set_ylim(*limits)
    return axes[-1]
