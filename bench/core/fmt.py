"""Every number and table the study's reports print, formatted in one place."""

from __future__ import annotations

import math
from typing import Iterable, List, Optional, Sequence

DASH = "—"


def ratio(x: Optional[float]) -> str:
    """A ratio or a speed: three significant digits, whole numbers from 100 on."""
    if x is None or not math.isfinite(x):
        return DASH
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def interval(low: Optional[float], high: Optional[float]) -> str:
    """A confidence interval of a ratio: ``2.41-2.55``."""
    if low is None or high is None:
        return ""
    return f"{ratio(low)}-{ratio(high)}"


def count(x: Optional[float], digits: int = 4) -> str:
    """A count or a size: ``digits`` significant digits, whole numbers when that is enough."""
    if x is None:
        return DASH
    return f"{x:.{digits}g}" if abs(x) < 10**digits else f"{x:.0f}"


def size_label(length: int) -> str:
    """A message length as the reports name it: "64 B", "16 KiB", "1 MiB"."""
    if length >= 1 << 20 and length % (1 << 20) == 0:
        return f"{length >> 20} MiB"
    if length >= 1024 and length % 1024 == 0:
        return f"{length >> 10} KiB"
    return f"{length} B"


def human_bytes(size: float) -> str:
    """A memory size: ``614 B``, ``4.6 KiB``, ``1.1 MiB``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


def duration(seconds: float) -> str:
    """``m:ss``."""
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


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


def grid(
    header: Sequence[str], rows: Iterable[Sequence[Optional[str]]], labels: int, notes: int = 0
) -> str:
    """The one pivot-table writer: each row ``labels`` label cells, then values (right-aligned,
    a dash where None), then ``notes`` note cells; a row without a value is left out."""
    body = []
    for row in rows:
        values = row[labels : len(row) - notes]
        if any(v is not None for v in values):
            body.append([str(c) if c is not None else DASH for c in row])
    width = len(header) - labels - notes
    return table([list(header), *body], "l" * labels + "r" * width + "l" * notes)
