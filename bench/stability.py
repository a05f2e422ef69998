"""Do two runs of the study agree? Every ratio of one report against the other's.

    python -m bench.stability results/bench/RUN_A results/bench/RUN_B
    python -m bench.stability A B --strict      # exit 1 if fewer than the target shares agree
    python -m bench.stability A B --floor 0.05  # and were a 5% between-run term in A's intervals
    python -m bench.stability results/bytecode/RUN_A results/bytecode/RUN_B   # instructions

The study's targets, between two consecutive default runs: at least 90% of the
settled ratios within 10% of each other and 97% within 20%; at least 90% of
all ratios settled (``bench.stats.Estimate.settled``); at least 90% of the
second run's ratios inside the first run's 95% intervals (the intervals are
honest if about 95% are); a median half-width of at most 5%. Reads both runs'
``summary.json``; prints the shares per table and in all. Given two
``bench bytecode`` runs (``bytecode.json``), it compares their
machine-instruction counts instead (target: equal within 0.5%).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Dict, Hashable, List, Mapping, Sequence, Tuple, TypeVar

from bench.fmt import table
from bench.stats import Estimate

Key = Tuple[str, Tuple[str, ...], str]
K = TypeVar("K", bound=Hashable)
#: (threshold, share of settled ratios that must agree within it).
TARGETS = ((0.10, 0.90), (0.20, 0.97))
#: Least share settled, least share of the second run inside the first's intervals,
#: largest median half-width.
SETTLED, COVERAGE, HALF_WIDTH = 0.90, 0.90, 0.05


def estimates(folder: Path) -> Dict[Key, Estimate]:
    """Every ratio of a run with its interval, by (table, row labels, column)."""
    data = json.loads((folder / "summary.json").read_text())
    return {
        (r["table"], tuple(r["row"]), r["column"]): Estimate.from_json(r) for r in data["ratios"]
    }


def ratios(folder: Path) -> Dict[Key, float]:
    """Every ratio of a run, by (table, row labels, column)."""
    return {k: e.value for k, e in estimates(folder).items()}


def deviations(a: Dict[Key, float], b: Dict[Key, float]) -> List[Tuple[Key, float, float, float]]:
    """(key, a, b, relative change |b/a - 1|) for every ratio both runs have, largest first."""
    out = [(k, a[k], b[k], abs(b[k] / a[k] - 1)) for k in a if k in b and a[k] > 0]
    return sorted(out, key=lambda item: item[3], reverse=True)


def coverage(a: Mapping[K, Estimate], b: Mapping[K, Estimate]) -> float:
    """The share of ``b``'s ratios inside ``a``'s 95% intervals (of the ratios both have)."""
    common = [k for k in a if k in b]
    inside = sum(1 for k in common if a[k].low <= b[k].value <= a[k].high)
    return inside / len(common) if common else 0.0


def precision(a: Dict[Key, Estimate], b: Dict[Key, Estimate]) -> List[Tuple[str, float, float]]:
    """(what, value, target) of the interval figures: settled shares, coverage, half-widths."""
    both = [k for k in a if k in b]
    settled = [k for k in both if a[k].settled and b[k].settled]
    return [
        ("ratios settled in both runs", len(settled) / len(both) if both else 0.0, SETTLED),
        ("second run inside the first's 95% intervals", coverage(a, b), COVERAGE),
        (
            "median half-width, first run",
            statistics.median(a[k].half_width for k in both),
            HALF_WIDTH,
        ),
        (
            "median half-width, second run",
            statistics.median(b[k].half_width for k in both),
            HALF_WIDTH,
        ),
    ]


def share_within(devs: Sequence[Tuple[Key, float, float, float]], threshold: float) -> float:
    return sum(1 for d in devs if d[3] <= threshold) / len(devs) if devs else 0.0


def within(settled: Sequence[float], changes: Sequence[float], limit: float) -> str:
    """The shares of the ``settled`` changes and of all ``changes`` at most ``limit``."""
    share = [
        f"{sum(c <= limit for c in cs) / len(cs):.1%}" if cs else "-" for cs in (settled, changes)
    ]
    return ", ".join(share)


def by_table(a: Dict[Key, Estimate], b: Dict[Key, Estimate]) -> str:
    """Per table: changes, shares within 10% / 20% (of the settled ratios, then of all),
    settled, coverage, width."""
    tables: Dict[str, List[Key]] = {}
    for k in a:
        if k in b:
            tables.setdefault(k[0], []).append(k)
    rows = [
        [
            "table",
            "ratios",
            "median change",
            "within 10%: settled, all",
            "within 20%: settled, all",
            "settled",
            "inside A's 95%",
            "median ±",
        ]
    ]
    for name, keys in tables.items():
        changes = [abs(b[k].value / a[k].value - 1) for k in keys]
        settled = [c for k, c in zip(keys, changes) if a[k].settled and b[k].settled]
        rows.append(
            [
                name,
                str(len(keys)),
                f"{statistics.median(changes):.1%}",
                *(within(settled, changes, limit) for limit in (0.10, 0.20)),
                f"{len(settled) / len(keys):.1%}",
                f"{coverage({k: a[k] for k in keys}, b):.1%}",
                f"{statistics.median(a[k].half_width for k in keys):.1%}",
            ]
        )
    return table(rows, "lrrrrrrr")


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--show", type=int, default=15, help="list this many largest changes")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument(
        "--floor",
        type=float,
        action="append",
        default=[],
        help="also: coverage and width were a between-run term of this size (0.03: 3 %%) in "
        "the first run's intervals (repeat)",
    )


def command(args: argparse.Namespace) -> int:
    if (args.first / "bytecode.json").exists():
        return compare_instructions(args.first, args.second, args.strict)
    a, b = estimates(args.first), estimates(args.second)
    devs = deviations({k: e.value for k, e in a.items()}, {k: e.value for k, e in b.items()})
    if not devs:
        print("no ratio in common")
        return 1
    print(f"{args.first.name} vs {args.second.name}: {len(devs)} ratios in common")
    only = len(set(a) ^ set(b))
    if only:
        print(f"({only} ratios are in one run only)")
    print(by_table(a, b))
    print()
    rows: List[List[str]] = [["table", "row", "column", "first", "second", "change"]]
    for (key, row, column), x, y, d in devs[: args.show]:
        rows.append([key, " ".join(row), column, f"{x:.3g}", f"{y:.3g}", f"{d:.1%}"])
    print(table(rows, "lllrrr"))
    print()
    settled = [d for d in devs if a[d[0]].settled and b[d[0]].settled]
    missed = False
    for threshold, wanted in TARGETS:
        share, every = share_within(settled, threshold), share_within(devs, threshold)
        missed = missed or share < wanted
        print(
            f"{share:.1%} of the settled ratios agree within {threshold:.0%} (target at least "
            f"{wanted:.0%}: {'met' if share >= wanted else 'missed'}); {every:.1%} of all ratios"
        )
    for what, value, target in precision(a, b):
        width = what.startswith("median")
        met = value <= target if width else value >= target
        missed = missed or not met
        bound = "at most" if width else "at least"
        print(f"{what}: {value:.1%} (target {bound} {target:.0%}: {'met' if met else 'missed'})")
    for floor in args.floor:  # the figures of precision(), the first run's intervals widened
        _, inside, half, _ = (
            value for _, value, _ in precision({k: e.widened(floor) for k, e in a.items()}, b)
        )
        print(
            f"with a between-run term of {floor:.1%}: {inside:.1%} of the second run "
            f"inside the first's intervals, median half-width {half:.1%}"
        )
    return 1 if args.strict and missed else 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_arguments(parser)
    return command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
