"""The study's figures (matplotlib, PNG), drawn from a run's ``summary.json``.

Throughput against message length per interpreter, and speed bars of every
variant against helpers on the first interpreter. Every figure carries the
CPU, the interpreter(s) and the date of the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

LINESTYLES = {"interpreted": "-", "compiled": "--", "native": "-.", "reference": ":"}
BASELINE = "helpers"
LONG = 16384


class Summary:
    """The digest cases of a run's summary, by (interpreter, algorithm, variant, length)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data
        self.interpreters: List[str] = list(data["interpreters"])
        self.times: Dict[Tuple[str, str, str, int], float] = {}
        self.kinds: Dict[str, str] = {}
        self.variants: List[str] = []
        for c in data["cases"]:
            if c["mode"] != "digest":
                continue
            self.times[(c["interpreter"], c["algorithm"], c["variant"], c["length"])] = c["time_s"]
            self.kinds[c["variant"]] = c["kind"]
            if c["variant"] not in self.variants:
                self.variants.append(c["variant"])
        self.algorithms = [a for a in ("md5", "sha256") if any(k[1] == a for k in self.times)]
        self.lengths = sorted({k[3] for k in self.times})

    def title(self, interp: str) -> str:
        return str(self.data["interpreters"][interp]["title"])

    def footer(self, fig: Figure, interpreters: str) -> None:
        study = self.data["study"]
        fig.text(
            0.01,
            0.01,
            f"{study['cpu']} · {interpreters} · {study['started'][:10]} · mode {study['mode']}",
            fontsize=8,
            color="0.35",
        )


def throughput(s: Summary, interp: str, path: Path) -> Path:
    """MB/s against message length, log-log, one line per variant (digest mode)."""
    fig, axes = plt.subplots(
        1, len(s.algorithms), figsize=(6.5 * len(s.algorithms), 5), squeeze=False
    )
    cmap = plt.get_cmap("tab20")
    for ax, alg in zip(axes[0], s.algorithms):
        for i, variant in enumerate(s.variants):
            points = [
                (n, n / t / 1e6)
                for n in s.lengths
                if (t := s.times.get((interp, alg, variant, n))) is not None
            ]
            if not points:
                continue
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                LINESTYLES.get(s.kinds.get(variant, ""), "-"),
                marker="o",
                markersize=3,
                color="#000000" if s.kinds.get(variant) == "reference" else cmap(i % 20),
                label=variant,
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message length (bytes)")
        ax.set_ylabel("MB/s (digest, lower-quartile time)")
        ax.set_title(f"{alg} on {s.title(interp)}")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8)
    fig.suptitle("Throughput against message length (log-log)")
    s.footer(fig, s.title(interp))
    fig.tight_layout(rect=(0, 0.03, 0.85, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def speedup(s: Summary, path: Path) -> Optional[Path]:
    """Bars: each variant on each interpreter against helpers on the first interpreter."""
    length = max((n for n in s.lengths if n <= LONG), default=None)
    if length is None or not s.interpreters:
        return None
    base_interp = s.interpreters[0]
    fig, axes = plt.subplots(
        len(s.algorithms),
        1,
        figsize=(max(8.0, 1.2 * len(s.variants)), 4.2 * len(s.algorithms)),
        squeeze=False,
    )
    drawn = False
    width = 0.8 / max(1, len(s.interpreters))
    cmap = plt.get_cmap("viridis")
    for ax, alg in zip((row[0] for row in axes), s.algorithms):
        base = s.times.get((base_interp, alg, BASELINE, length))
        if base is None:
            ax.set_visible(False)
            continue
        for j, interp in enumerate(s.interpreters):
            xs: List[float] = []
            ys: List[float] = []
            for i, variant in enumerate(s.variants):
                t = s.times.get((interp, alg, variant, length))
                if t is not None:
                    xs.append(i + (j - (len(s.interpreters) - 1) / 2) * width)
                    ys.append(base / t)
            color = cmap(j / max(1, len(s.interpreters) - 1) * 0.85)
            ax.bar(xs, ys, width, label=s.title(interp), color=color)
            drawn = drawn or bool(xs)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(s.variants)))
        ax.set_xticklabels(s.variants, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(f"× {BASELINE} on {base_interp}")
        ax.set_title(
            f"{alg}, {length} B messages (digest): speed against {BASELINE} on {base_interp}"
        )
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=min(5, len(s.interpreters)))
    if not drawn:
        plt.close(fig)
        return None
    s.footer(fig, ", ".join(s.title(i) for i in s.interpreters))
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_all(data: Dict[str, Any], folder: Path) -> List[Path]:
    """Every figure of the run described by ``data`` (its summary), written into ``folder``."""
    s = Summary(data)
    paths = [throughput(s, i, folder / f"throughput-{i}.png") for i in s.interpreters]
    bars = speedup(s, folder / "speedup.png")
    return paths + ([bars] if bars else [])
