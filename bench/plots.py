"""The study's figures (matplotlib, PNG): throughput against message length, speedup bars.

Every figure carries the CPU, the interpreter(s) and the date of the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from report import Results

LINESTYLES = {"interpreted": "-", "compiled": "--", "native": "-.", "reference": ":"}


def _footer(fig: Figure, results: Results, interpreters: str) -> None:
    study = results.study
    fig.text(
        0.01,
        0.01,
        f"{study['cpu']} · {interpreters} · {study['started'][:10]} · mode {study['mode']}",
        fontsize=8,
        color="0.35",
    )


def _colors(results: Results) -> Dict[str, str]:
    cmap = plt.get_cmap("tab20")
    names = [n for n in results.variants() if n != "hashlib"]
    colors = {name: matplotlib.colors.to_hex(cmap(i % 20)) for i, name in enumerate(names)}
    colors["hashlib"] = "#000000"
    return colors


def _kind(results: Results, interp: str, variant: str) -> str:
    return str(results.variant_info(interp, variant).get("kind", "interpreted"))


def throughput(results: Results, interp: str, path: Path) -> Path:
    """MB/s against message length, log-log, one line per variant (digest mode)."""
    algorithms = results.algorithms()
    fig, axes = plt.subplots(1, len(algorithms), figsize=(6.5 * len(algorithms), 5), squeeze=False)
    colors = _colors(results)
    for ax, alg in zip(axes[0], algorithms):
        for variant in results.variants():
            points = [
                (n, s.mb_per_s)
                for n in results.lengths()
                if (s := results.get(interp, "digest", alg, variant, n)) is not None
            ]
            if not points:
                continue
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                LINESTYLES.get(_kind(results, interp, variant), "-"),
                marker="o",
                markersize=3,
                color=colors.get(variant),
                label=variant,
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message length (bytes)")
        ax.set_ylabel("MB/s (median, digest)")
        ax.set_title(f"{alg} on {results.interpreter_title(interp)}")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8)
    fig.suptitle("Throughput against message length (log-log)")
    _footer(fig, results, results.interpreter_title(interp))
    fig.tight_layout(rect=(0, 0.03, 0.85, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def speedup(results: Results, path: Path) -> Optional[Path]:
    """Bars: each variant on each interpreter against helpers on the first interpreter."""
    length = results.ratio_length()
    base_interp = results.interpreters[0]
    algorithms = results.algorithms()
    variants = results.variants()
    fig, axes = plt.subplots(
        len(algorithms),
        1,
        figsize=(max(8.0, 0.9 * len(variants) * 1.3), 4.2 * len(algorithms)),
        squeeze=False,
    )
    drawn = False
    width = 0.8 / max(1, len(results.interpreters))
    cmap = plt.get_cmap("viridis")
    for ax, alg in zip((row[0] for row in axes), algorithms):
        base = results.median(base_interp, "digest", alg, "helpers", length)
        if base is None:
            ax.set_visible(False)
            continue
        for j, interp in enumerate(results.interpreters):
            xs: List[float] = []
            ys: List[float] = []
            for i, variant in enumerate(variants):
                m = results.median(interp, "digest", alg, variant, length)
                if m is not None:
                    xs.append(i + (j - (len(results.interpreters) - 1) / 2) * width)
                    ys.append(base / m)
            color = cmap(j / max(1, len(results.interpreters) - 1) * 0.85)
            ax.bar(xs, ys, width, label=results.interpreter_title(interp), color=color)
            drawn = drawn or bool(xs)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(f"× helpers on {base_interp}")
        ax.set_title(
            f"{alg}, {length} B messages (digest): speed relative to helpers on {base_interp}"
        )
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=min(5, len(results.interpreters)))
    if not drawn:
        plt.close(fig)
        return None
    _footer(fig, results, ", ".join(results.interpreter_title(i) for i in results.interpreters))
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_all(results: Results, folder: Path) -> List[Path]:
    """Every figure of the run, written into ``folder``."""
    paths = [
        throughput(results, interp, folder / f"throughput-{interp}.png")
        for interp in results.interpreters
    ]
    bars = speedup(results, folder / "speedup.png")
    if bars:
        paths.append(bars)
    return paths
