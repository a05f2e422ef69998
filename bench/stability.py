"""Do two runs of the study agree? Every ratio of one report against the other's.

    python bench/stability.py results/bench/RUN_A results/bench/RUN_B
    python bench/stability.py A B --threshold 0.10 --strict   # exit 1 if any ratio moved more

The study's target: each ratio in the report varies by less than 10% between
two default runs on the same machine. Reads both runs' ``summary.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from machine import table

Key = Tuple[str, Tuple[str, ...], str]


def ratios(folder: Path) -> Dict[Key, float]:
    """Every ratio of a run, by (table, row labels, column)."""
    data = json.loads((folder / "summary.json").read_text())
    return {(r["table"], tuple(r["row"]), r["column"]): float(r["value"]) for r in data["ratios"]}


def deviations(a: Dict[Key, float], b: Dict[Key, float]) -> List[Tuple[Key, float, float, float]]:
    """(key, a, b, relative change |b/a - 1|) for every ratio both runs have, largest first."""
    out = [(k, a[k], b[k], abs(b[k] / a[k] - 1)) for k in a if k in b and a[k] > 0]
    return sorted(out, key=lambda item: item[3], reverse=True)


def summarise(devs: Sequence[Tuple[Key, float, float, float]], threshold: float) -> str:
    by_table: Dict[str, List[float]] = {}
    for (table_key, _, _), _, _, d in devs:
        by_table.setdefault(table_key, []).append(d)
    rows = [["table", "ratios", "median change", "largest change", f"over {threshold:.0%}"]]
    for key, ds in by_table.items():
        over = sum(1 for d in ds if d > threshold)
        rows.append(
            [key, str(len(ds)), f"{statistics.median(ds):.1%}", f"{max(ds):.1%}", str(over)]
        )
    return table(rows, "lrrrr")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--threshold", type=float, default=0.10)
    parser.add_argument("--show", type=int, default=15, help="list this many largest changes")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any ratio moved more")
    args = parser.parse_args(argv)
    devs = deviations(ratios(args.first), ratios(args.second))
    if not devs:
        print("no ratio in common")
        return 1
    over = [d for d in devs if d[3] > args.threshold]
    print(f"{args.first.name} vs {args.second.name}: {len(devs)} ratios in common")
    print(summarise(devs, args.threshold))
    print()
    rows: List[List[str]] = [["table", "row", "column", "first", "second", "change"]]
    for (key, row, column), a, b, d in devs[: args.show]:
        rows.append([key, " ".join(row), column, f"{a:.3g}", f"{b:.3g}", f"{d:.1%}"])
    print(table(rows, "lllrrr"))
    share = 1 - len(over) / len(devs)
    print(f"\n{share:.1%} of the ratios agree within {args.threshold:.0%}")
    return 1 if args.strict and over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
