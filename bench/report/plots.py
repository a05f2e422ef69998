"""The study's figures (matplotlib, PNG), drawn from a run (``bench.store``).

Throughput against message length per mode, and speed bars of every variant
against helpers under the first mode. Every figure carries the CPU, the
mode(s) and the date of the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from bench.catalog.comparisons import LONG, TEXTBOOK
from bench.store import Run

LINESTYLES = {"interpreted": "-", "compiled": "--", "native": "-.", "reference": ":"}
BASELINE = TEXTBOOK


def footer(run: Run, fig: Figure, modes: str) -> None:
    h = run.header
    text = f"{h.cpu} · {modes} · {h.started[:10]} · mode {h.effort}"
    fig.text(0.01, 0.01, text, fontsize=8, color="0.35")


def time(run: Run, mode: str, alg: str, variant: str, n: int) -> Optional[float]:
    m = run.layout.get(mode, "digest", alg, variant, n)
    return run.measured[m].time if m else None


def throughput(run: Run, mode: str, path: Path) -> Path:
    """MB/s against message length, log-log, one line per variant (digest mode)."""
    lay = run.layout
    fig, axes = plt.subplots(
        1, len(lay.algorithms()), figsize=(6.5 * len(lay.algorithms()), 5), squeeze=False
    )
    cmap = plt.get_cmap("tab20")
    for ax, alg in zip(axes[0], lay.algorithms()):
        for i, variant in enumerate(lay.order):
            points = [
                (n, n / t / 1e6) for n in lay.lengths() if (t := time(run, mode, alg, variant, n))
            ]
            if not points:
                continue
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                LINESTYLES.get(lay.kind(variant), "-"),
                marker="o",
                markersize=3,
                color="#000000" if lay.kind(variant) == "reference" else cmap(i % 20),
                label=variant,
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message length (bytes)")
        ax.set_ylabel("MB/s (digest, fastest time)")
        ax.set_title(f"{alg} under {mode} ({run.column(mode).listing.title})")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8)
    fig.suptitle("Throughput against message length (log-log)")
    footer(run, fig, mode)
    fig.tight_layout(rect=(0, 0.03, 0.85, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def speedup(run: Run, path: Path) -> Optional[Path]:
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
        figsize=(max(8.0, 1.2 * len(variants)), 4.2 * len(lay.algorithms())),
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
        ax.set_title(f"{alg}, {length} B messages (digest): speed against {BASELINE}, {base_mode}")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=min(5, len(modes)))
    if not drawn:
        plt.close(fig)
        return None
    footer(run, fig, ", ".join(modes))
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_all(run: Run, folder: Path) -> List[Path]:
    """Every figure of ``run``, written into ``folder``."""
    paths = [throughput(run, m, folder / f"throughput-{m}.png") for m in run.layout.columns]
    bars = speedup(run, folder / "speedup.png")
    return paths + ([bars] if bars else [])
