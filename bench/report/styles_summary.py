"""A styles run's summary for other tools: ``summary.json`` in a versioned schema of its own
(``docs/styles-summary.schema.json``, ``SCHEMA`` and ``VERSION`` here), the ratios as CSV
(``ratios.csv``), and where a style's time and its instruction count disagree in direction.

The summary holds the file (its styles, the baseline first, and sizes), the run (effort,
clock, passes, when, the CPU), every mode (its interpreter's implementation, version and
build: free-threaded, JIT, the compiler of a twin), every ratio (style ÷ baseline, same mode
and size, with its 95% rerun interval, its verdict and, where callgrind counted, the
instructions' ratio and whether the two disagree), every time per call and every instruction
count. Its keys are its own, not the hash study's (no ``algorithm``, ``mb_per_s``, ``jdk``). A
change that removes or renames a key raises ``VERSION``; one that adds a key does not.

This module reads records (``bench.store``) and returns data; ``bench.report.styles`` writes.
"""

from __future__ import annotations

import csv
import io
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..catalog.cases import STYLES
from ..catalog.styles import StyleCase
from ..catalog.styles_study import TABLE, compiler_of
from ..core import stats
from . import answers
from .answers import Report

#: The schema's name and version: ``summary.json`` says both (``schema``, ``version``).
SCHEMA = "stylebench-summary"
VERSION = 1
#: Each verdict (``bench.core.stats.verdict``) as the summary says it.
VERDICTS = {stats.SAME: "no difference", stats.SLOWER: "slower", stats.FASTER: "faster"}
#: How far from 1 an instruction ratio must be to point a way: callgrind's counts of one call
#: repeat within 0.5% (two consecutive runs of the helpers example: every count within it), so
#: a ratio within 1% of 1 says neither more nor fewer.
INSTRUCTION_SPREAD = 0.01
#: The CSV's columns, in order (one row a ratio).
CSV_COLUMNS = (
    "style",
    "size",
    "mode",
    "ratio",
    "low",
    "high",
    "verdict",
    "instructions_ratio",
    "disagrees",
)


def disagrees(verdict: str, instructions: Optional[float]) -> bool:
    """Whether a time ratio and its instruction ratio point opposite ways, each beyond its
    interval: the time slower (its interval above 1) with fewer instructions (below
    1 - INSTRUCTION_SPREAD), or faster with more."""
    if instructions is None:
        return False
    if verdict == "slower":
        return instructions < 1 - INSTRUCTION_SPREAD
    if verdict == "faster":
        return instructions > 1 + INSTRUCTION_SPREAD
    return False


def instruction_ratios(
    counted: Mapping[str, Sequence[Mapping[str, Any]]],
) -> Dict[tuple[str, str, int], Optional[float]]:
    """(mode, style, size) -> instructions ÷ the baseline's (``style_instructions.ratios``)."""
    return {
        (mode, r["style"], int(r["size"])): r.get("ratio")
        for mode, rows in counted.items()
        for r in rows
    }


def summary(r: Report, counted: Mapping[str, Sequence[Mapping[str, Any]]]) -> Dict[str, Any]:
    """The run ``r`` (its instruction counts ``counted``, ``style_instructions.ratios``) in
    the schema ``SCHEMA`` ``VERSION``."""
    run, h = r.run, r.run.header
    found = h.record
    names = list(found.get("styles") or run.layout.order)
    by_instr = instruction_ratios(counted)
    ratios: List[Dict[str, Any]] = []
    t = r.table(TABLE)
    if t is not None:
        for row in t.rows:
            style, size = row.labels[0], int(row.labels[1])
            for mode, f in zip(t.columns, row.cells):
                if f is None:
                    continue
                verdict = VERDICTS[stats.verdict(f.value, f.low, f.high)]
                instructions = by_instr.get((mode, style, size))
                ratios.append(
                    {
                        "style": style,
                        "size": size,
                        "mode": mode,
                        "ratio": f.value,
                        "low": f.low,
                        "high": f.high,
                        "verdict": verdict,
                        "instructions_ratio": instructions,
                        "disagrees": disagrees(verdict, instructions),
                    }
                )
    times = [
        {
            "style": StyleCase.of(m.case).style,
            "size": StyleCase.of(m.case).size,
            "mode": m.mode,
            "seconds_per_call": m.time,
            "warmed": m.warmed,
        }
        for m in run.measured.values()
        if m.case.benchmark == STYLES
    ]
    counts = [
        {
            "style": row["style"],
            "size": int(row["size"]),
            "mode": mode,
            "instructions": row["instructions"],
            "ratio": row.get("ratio"),
        }
        for mode, rows in counted.items()
        for row in rows
    ]
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "file": {
            "path": str(found.get("file") or ""),
            "title": str(found.get("title") or found.get("stem") or ""),
            "styles": names,
            "baseline": names[0] if names else "",
            "sizes": [int(n) for n in found.get("sizes") or ()],
            "equal": str(found.get("equal") or "=="),
            "fresh": [int(n) for n in found.get("fresh") or ()],
        },
        "run": {
            "name": run.name,
            "started": h.started,
            "effort": h.effort,
            "clock": h.clock,
            "passes": h.passes,
            "measure_seconds": h.measure_seconds,
            "wall_seconds": h.wall_seconds,
            "cpu": h.cpu,
            "median_half_width": answers.median_half(t.ratios())
            if t is not None and t.ratios()
            else None,
        },
        "modes": {
            c.label: mode_of(c.label, c.mode.interpreter, c.mode.jit, c.listing.runtime)
            for c in run.columns
        },
        "ratios": ratios,
        "times": times,
        "instructions": counts,
        "unavailable": {
            c.label: {
                v.name: str(v.unavailable) for v in c.listing.variants.values() if v.unavailable
            }
            for c in run.columns
        },
        "cannot_run": {str(k): str(v) for k, v in (found.get("cannot_run") or {}).items()},
        "not_built": {str(k): str(v) for k, v in (found.get("not_built") or {}).items()},
        "left_out": {str(k): str(v) for k, v in h.left_out.items()},
    }


def mode_of(label: str, interpreter: str, jit: bool, runtime: Mapping[str, Any]) -> Dict[str, Any]:
    """A mode as the summary says it: its interpreter's version and build."""
    return {
        "interpreter": interpreter,
        "implementation": str(runtime.get("implementation") or ""),
        "version": str(runtime.get("version") or ""),
        "pypy_version": runtime.get("pypy_version"),
        "free_threaded": bool(runtime.get("free_threaded")),
        "jit": jit,
        "jit_enabled": runtime.get("jit_enabled"),
        "compiler": compiler_of(label),
        "executable": str(runtime.get("executable") or ""),
    }


def csv_text(found: Mapping[str, Any]) -> str:
    """A summary's ratios as CSV, one a row (``CSV_COLUMNS``); empty cells where none."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in found["ratios"]:
        writer.writerow(["" if r.get(k) is None else r[k] for k in CSV_COLUMNS])
    return out.getvalue()
