"""Do two runs of the study agree? Every ratio of one report against the other's.

    python -m bench.stability results/bench/RUN_A results/bench/RUN_B
    python -m bench.stability A B --strict      # exit 1 if fewer than the target shares agree
    python -m bench.stability results/bytecode/RUN_A results/bytecode/RUN_B   # instructions

The study's targets: at least 90% of the report's ratios within 10% of each
other between two consecutive default runs, and at least 97% within 20%.
Reads both runs' ``summary.json``; prints both shares, per table and in all.
Given two ``nox -s bytecode`` runs (``bytecode.json``), it compares their
machine-instruction counts instead (target: equal within 0.5%).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from bench.fmt import table

Key = Tuple[str, Tuple[str, ...], str]
#: (threshold, share of ratios that must agree within it).
TARGETS = ((0.10, 0.90), (0.20, 0.97))


def ratios(folder: Path) -> Dict[Key, float]:
    """Every ratio of a run, by (table, row labels, column)."""
    data = json.loads((folder / "summary.json").read_text())
    return {(r["table"], tuple(r["row"]), r["column"]): float(r["value"]) for r in data["ratios"]}


def deviations(a: Dict[Key, float], b: Dict[Key, float]) -> List[Tuple[Key, float, float, float]]:
    """(key, a, b, relative change |b/a - 1|) for every ratio both runs have, largest first."""
    out = [(k, a[k], b[k], abs(b[k] / a[k] - 1)) for k in a if k in b and a[k] > 0]
    return sorted(out, key=lambda item: item[3], reverse=True)


def share_within(devs: Sequence[Tuple[Key, float, float, float]], threshold: float) -> float:
    return sum(1 for d in devs if d[3] <= threshold) / len(devs) if devs else 0.0


def by_table(devs: Sequence[Tuple[Key, float, float, float]]) -> str:
    groups: Dict[str, List[float]] = {}
    for (key, _, _), _, _, d in devs:
        groups.setdefault(key, []).append(d)
    rows = [["table", "ratios", "median change", "largest change", "within 10%", "within 20%"]]
    for key, ds in groups.items():
        rows.append(
            [
                key,
                str(len(ds)),
                f"{statistics.median(ds):.1%}",
                f"{max(ds):.1%}",
                f"{sum(d <= 0.10 for d in ds) / len(ds):.1%}",
                f"{sum(d <= 0.20 for d in ds) / len(ds):.1%}",
            ]
        )
    return table(rows, "lrrrrr")


INSTRUCTIONS_TARGET = 0.005


def instructions(folder: Path) -> Dict[Tuple[str, str, str], float]:
    """Machine instructions per byte of a bytecode run, by (interpreter, variant, algorithm)."""
    data = json.loads((folder / "bytecode.json").read_text())
    return {
        (r["interpreter"], r["variant"], r["algorithm"]): float(r["instructions_per_byte"])
        for r in data["rows"]
        if r.get("instructions_per_byte")
    }


def compare_instructions(first: Path, second: Path, strict: bool) -> int:
    a, b = instructions(first), instructions(second)
    common = [k for k in a if k in b]
    if not common:
        print("no instruction count in common")
        return 1
    changes = sorted(((abs(b[k] / a[k] - 1), k) for k in common), reverse=True)
    within = sum(1 for d, _ in changes if d <= INSTRUCTIONS_TARGET) / len(changes)
    print(f"{first.name} vs {second.name}: {len(common)} instruction counts in common")
    rows = [["interpreter", "variant", "algorithm", "first", "second", "change"]]
    for d, k in changes[:10]:
        rows.append([*k, f"{a[k]:.4g}", f"{b[k]:.4g}", f"{d:.3%}"])
    print(table(rows, "lllrrr"))
    print(
        f"\n{within:.1%} of the counts equal within {INSTRUCTIONS_TARGET:.1%}; "
        f"largest change {changes[0][0]:.3%}"
    )
    return 1 if strict and within < 1 else 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--show", type=int, default=15, help="list this many largest changes")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    if (args.first / "bytecode.json").exists():
        return compare_instructions(args.first, args.second, args.strict)
    a, b = ratios(args.first), ratios(args.second)
    devs = deviations(a, b)
    if not devs:
        print("no ratio in common")
        return 1
    print(f"{args.first.name} vs {args.second.name}: {len(devs)} ratios in common")
    only = len(set(a) ^ set(b))
    if only:
        print(f"({only} ratios are in one run only)")
    print(by_table(devs))
    print()
    rows: List[List[str]] = [["table", "row", "column", "first", "second", "change"]]
    for (key, row, column), x, y, d in devs[: args.show]:
        rows.append([key, " ".join(row), column, f"{x:.3g}", f"{y:.3g}", f"{d:.1%}"])
    print(table(rows, "lllrrr"))
    print()
    missed = False
    for threshold, wanted in TARGETS:
        share = share_within(devs, threshold)
        verdict = "met" if share >= wanted else "missed"
        missed = missed or share < wanted
        print(
            f"{share:.1%} of the ratios agree within {threshold:.0%} "
            f"(target at least {wanted:.0%}: {verdict})"
        )
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
