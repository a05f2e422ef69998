"""What the reports say about the machine and the run: CPU, date, Markdown tables."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path
from typing import List, Sequence

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"


def cpu_model() -> str:
    """The CPU's model name, as /proc/cpuinfo (or the platform module) gives it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_label() -> str:
    """CPU model and core count, e.g. "AMD EPYC, 2 cores"."""
    return f"{cpu_model()}, {os.cpu_count()} cores"


def today() -> str:
    return datetime.date.today().isoformat()


def stamp() -> str:
    """A folder name for a run: the local date and time."""
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def size_label(length: int) -> str:
    """A message length as the reports name it: "64 B", "16 KiB", "1 MiB"."""
    if length >= 1 << 20 and length % (1 << 20) == 0:
        return f"{length >> 20} MiB"
    if length >= 1024 and length % 1024 == 0:
        return f"{length >> 10} KiB"
    return f"{length} B"


def latest(kind: str) -> Path:
    """The newest run folder under results/<kind>/."""
    runs = sorted(p for p in (RESULTS / kind).glob("2*") if p.is_dir())
    if not runs:
        raise FileNotFoundError(f"no runs under {RESULTS / kind}")
    return runs[-1]


def table(rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A Markdown table; the first row is the header. ``align``: one l/r per column."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    align = align or "l" * len(widths)

    def cell(text: str, i: int) -> str:
        return text.rjust(widths[i]) if align[i] == "r" else text.ljust(widths[i])

    lines: List[str] = [
        "| " + " | ".join(cell(c, i) for i, c in enumerate(row)) + " |" for row in rows
    ]
    rule = ["-" * w if a == "l" else "-" * (w - 1) + ":" for w, a in zip(widths, align)]
    lines.insert(1, "| " + " | ".join(rule) + " |")
    return "\n".join(lines)


def duration(seconds: float) -> str:
    """``m:ss``."""
    seconds = max(0, round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"
