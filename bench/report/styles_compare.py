"""Two runs of one styles file compared (``python -m bench styles compare RUN_A RUN_B``): a
before and after of an edit, of the file or of an interpreter. Each ratio the two have in common
(style, size, mode): its value in each, the change (B ÷ A - 1), and whether it moved beyond both
intervals (B's ratio outside A's 95% interval and A's outside B's: a move neither run's own
spread explains).

It reads each run's record (``bench.report.styles.summary_of``: the summary's schema) and
writes nothing.
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import store
from ..core.cli import OneLineParser
from ..core.fmt import grid

#: The CSV's columns (one row a ratio in common).
COLUMNS = ("style", "size", "mode", "ratio_a", "low_a", "high_a", "verdict_a", "ratio_b",
           "low_b", "high_b", "verdict_b", "change", "moved")  # fmt: skip


class CompareError(ValueError):
    """Two runs that cannot be compared: a folder that is no styles run, no ratio in common."""


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m bench styles compare",
        description="Two runs of one styles file: each ratio's change and whether it moved "
        "beyond both runs' 95% intervals",
    )
    p.add_argument("a", type=Path, help="the first run's folder (results/styles/<date-time>)")
    p.add_argument("b", type=Path, help="the second run's folder")
    p.add_argument("--format", choices=("md", "json", "csv"), default="md")
    return p


def moved(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether B's ratio is outside A's interval and A's outside B's."""
    return not (a["low"] <= b["ratio"] <= a["high"]) and not (b["low"] <= a["ratio"] <= b["high"])


def rows(a: Mapping[str, Any], b: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Each ratio of summary ``a`` that summary ``b`` has too, in ``a``'s order."""
    keyed = {(r["style"], r["size"], r["mode"]): r for r in b["ratios"]}
    out = []
    for x in a["ratios"]:
        y = keyed.get((x["style"], x["size"], x["mode"]))
        if y is None:
            continue
        out.append(
            {
                "style": x["style"],
                "size": x["size"],
                "mode": x["mode"],
                **{f"{k}_a": x[k] for k in ("ratio", "low", "high", "verdict")},
                **{f"{k}_b": y[k] for k in ("ratio", "low", "high", "verdict")},
                "change": y["ratio"] / x["ratio"] - 1,
                "moved": moved(x, y),
            }
        )
    return out


def summary(folder: Path) -> Dict[str, Any]:
    """The summary of the styles run in ``folder`` (CompareError if it is not one)."""
    from . import styles

    if not (folder / "study.json").is_file():
        raise CompareError(f"{folder}: no run here (no study.json); give a run's folder")
    try:
        if store.load(folder).header.study != "styles":
            raise CompareError(
                f"{folder}: not a styles run (python -m bench styles FILE makes one)"
            )
        _, found = styles.summary_of(folder)
    except store.FormatError as exc:
        raise CompareError(str(exc)) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:  # a run cut short, a file edited
        said = f"{type(exc).__name__}: {exc}"
        raise CompareError(
            f"{folder}: not a whole styles run ({said[:120]}); give a run that ended"
        ) from None
    return found


def compare(a: Mapping[str, Any], b: Mapping[str, Any]) -> Tuple[List[Dict[str, Any]], List[str]]:
    """The ratios in common, and what to say first (files, baselines, clocks that differ)."""
    notes = []
    fa, fb = a["file"], b["file"]
    if fa["baseline"] != fb["baseline"]:
        raise CompareError(
            f"the runs have different baselines ({fa['baseline']}, {fb['baseline']}): compare "
            "two runs of one styles file"
        )
    if fa["path"] != fb["path"]:
        notes.append(f"the files differ: A ran {fa['path']}, B {fb['path']}")
    if a["run"]["clock"] != b["run"]["clock"]:
        notes.append(f"the clocks differ: A {a['run']['clock']}, B {b['run']['clock']}")
    found = rows(a, b)
    if not found:
        raise CompareError("the runs have no ratio in common (style, size and mode)")
    return found, notes


def interval(r: Mapping[str, Any], side: str) -> str:
    return f"{r[f'ratio_{side}']:.3g} ({r[f'low_{side}']:.3g}-{r[f'high_{side}']:.3g})"


def markdown(a: Mapping[str, Any], b: Mapping[str, Any], found: Sequence[Mapping[str, Any]]) -> str:
    """The comparison as a page: a line, then a table of every ratio in common."""
    changed = [r for r in found if r["moved"]]
    verdicts = sum(r["verdict_a"] != r["verdict_b"] for r in found)
    head = (
        f"A: run {a['run']['name']}, B: run {b['run']['name']}, of `{a['file']['path']}` (each "
        f"style ÷ {a['file']['baseline']}, 95% rerun intervals): {len(changed)} of "
        f"{len(found)} ratios in common moved beyond both intervals; verdicts changed: "
        f"{verdicts} of {len(found)}."
    )
    body = [
        [r["style"], str(r["size"]), r["mode"], interval(r, "a"), interval(r, "b"),
         f"{r['change']:+.1%}", "moved" if r["moved"] else ""]
        for r in found
    ]  # fmt: skip
    table = grid(["style", "size", "mode", "A", "B", "B ÷ A", "beyond both"], body, 3)
    return f"{head}\n\n{table}\n"


def csv_text(found: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in found:
        writer.writerow([r[k] for k in COLUMNS])
    return out.getvalue()


def main(argv: Sequence[str]) -> int:
    """``styles compare RUN_A RUN_B``: 0, or 2 with one line saying what to change."""
    args = parser().parse_args(list(argv))
    try:
        a, b = summary(args.a), summary(args.b)
        found, notes = compare(a, b)
    except CompareError as exc:
        print(f"bench styles compare: {exc}")
        return 2
    said: Optional[str] = None
    if args.format == "json":
        said = store.record_text({"a": a["run"]["name"], "b": b["run"]["name"], "ratios": found})
    elif args.format == "csv":
        said = csv_text(found).rstrip("\n")
    else:
        said = "\n".join([*(f"Note: {n}." for n in notes), markdown(a, b, found)])
    print(said)
    return 0
