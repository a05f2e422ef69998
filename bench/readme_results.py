"""The README's results section, generated from the newest runs of bench, memory and bytecode.

    python bench/readme_results.py                  # print the section
    python bench/readme_results.py --write          # replace it in README.md, copy two plots

The section sits between ``<!-- results:start -->`` and ``<!-- results:end -->``
in README.md; ``--write`` replaces it (or inserts it before "## Results so
far") and copies the speedup and throughput plots to ``docs/bench/``. Runs
are the newest folders under ``results/bench``, ``results/memory`` and
``results/bytecode`` unless given. Needs only the standard library.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from machine import RESULTS, ROOT, size_label, table

START, END = "<!-- results:start -->", "<!-- results:end -->"
ASSETS = ROOT / "docs" / "bench"


def _fmt(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def _table_by_key(summary: Dict[str, Any], key: str) -> Optional[Dict[str, Any]]:
    for t in summary["tables"]:
        if t["key"] == key:
            found: Dict[str, Any] = t
            return found
    return None


def _render(t: Dict[str, Any], columns: Optional[List[str]] = None) -> str:
    """A ratio table from summary.json, optionally with only some of its columns."""
    keep = [i for i, c in enumerate(t["columns"]) if columns is None or c in columns]
    header = [*t["row_header"], *(t["columns"][i] for i in keep)]
    rows = [header]
    for labels, values, *marks in t["rows"]:
        starred = marks[0] if marks else [False] * len(values)
        rows.append([*labels, *(_fmt(values[i]) + "*" * starred[i] for i in keep)])
    return table(rows, "l" * len(t["row_header"]) + "r" * len(keep))


def _pivot(t: Dict[str, Any], column: str, interps: List[str]) -> str:
    """A per-interpreter ratio table at one column, interpreters as columns (compact)."""
    where = t["row_header"].index("interpreter")
    i = t["columns"].index(column)
    cells: Dict[tuple[str, ...], Dict[str, str]] = {}
    for labels, values, *marks in t["rows"]:
        key = tuple(label for j, label in enumerate(labels) if j != where)
        star = "*" if marks and marks[0][i] else ""
        cells.setdefault(key, {})[labels[where]] = _fmt(values[i]) + star
    header = [h for j, h in enumerate(t["row_header"]) if j != where]
    used = [x for x in interps if any(x in per for per in cells.values())]
    rows = [[*header, *used]]
    rows += [[*key, *(per.get(x, "—") for x in used)] for key, per in cells.items()]
    return table(rows, "l" * len(header) + "r" * len(used))


def throughput_table(summary: Dict[str, Any], length: int) -> str:
    """MB/s of every variant at ``length`` bytes (digest), interpreters as columns."""
    interps = list(summary["interpreters"])
    cells: Dict[tuple[str, str], Dict[str, float]] = {}
    for r in summary["results"]:
        if r["mode"] == "digest" and r["length"] == length:
            cells.setdefault((r["variant"], r["algorithm"]), {})[r["interpreter"]] = r["mb_per_s"]
    rows = [["variant", "algorithm", *interps]]
    for (variant, alg), per in sorted(
        cells.items(), key=lambda kv: (kv[0][1], -max(kv[1].values()))
    ):
        rows.append([variant, alg, *(_fmt(per.get(i)) for i in interps)])
    return table(rows, "ll" + "r" * len(interps))


def build_table(builds: Dict[str, Dict[str, float]]) -> str:
    """Seconds per extension (rows) and interpreter (columns), with each build's sum."""
    labels = list(builds)
    names = sorted({name for seconds in builds.values() for name in seconds})
    rows = [["extension", *labels]]
    for name in names:
        rows.append([name, *(_fmt(builds[label].get(name)) for label in labels)])
    rows.append(["sum", *(_fmt(sum(builds[label].values())) for label in labels)])
    return table(rows, "l" + "r" * len(labels))


def bench_section(folder: Path, assets: Optional[Path]) -> List[str]:
    summary = json.loads((folder / "summary.json").read_text())
    study = summary["study"]
    interps = ", ".join(f"{k} = {v['title']}" for k, v in summary["interpreters"].items())
    interps_order = list(summary["interpreters"])
    lengths = sorted({r["length"] for r in summary["results"]})
    length = 16384 if 16384 in lengths else max(n for n in lengths if n <= 16384)
    lines = [
        f"Measured by `nox -s bench` (mode `{study['mode']}`: {study['settings']['passes']} "
        f"passes, {study['measure_seconds'] / 60:.1f} min of measuring, "
        f"{study['wall_seconds'] / 60:.1f} min for the study session) on {study['cpu']}, "
        f"{study['started'][:10]}; interpreters: {interps}. Times are process CPU time, "
        "medians over all values; message byte i is i & 0xff. The full report (JMH-shaped "
        "tables for every benchmark, all ratios, plots) is `results/bench/<run>/report.md`.",
        "",
        f"**Throughput, MB/s**, {length} B messages (`digest`: update and digest on a reused "
        "object, reset by `copy()` of an empty one):",
        "",
        throughput_table(summary, length),
        "",
    ]
    style = _table_by_key(summary, "style")
    if style:
        lines += [
            "**Streamlined vs helpers** (the JDK's 4-5x question): time of the helper style "
            f"÷ time of the streamlined one, same interpreter and build, {length} B (digest):",
            "",
            _pivot(style, f"digest {size_label(length)}", interps_order),
            "",
        ]
    compiled = _table_by_key(summary, "compiled")
    if compiled:
        lines += [
            "**Compiled builds vs their interpreted source** (time of the source ÷ time of "
            f"the build), {length} B (digest):",
            "",
            _pivot(compiled, f"digest {size_label(length)}", interps_order),
            "",
        ]
    hashlib = _table_by_key(summary, f"hashlib-{length}")
    if hashlib:
        lines += [
            f"**Every variant vs hashlib**, {length} B: how many times slower than the "
            "interpreter's own hashlib:",
            "",
            _render(hashlib),
            "",
        ]
    across = _table_by_key(summary, f"interpreters-{length}")
    if across:
        lines += [
            f"**The same variant across interpreters**, {length} B: {across['meaning']}:",
            "",
            _render(across),
            "",
        ]
    builds = study.get("builds") or {}
    if builds:
        lines += [
            "**Build times**, seconds per extension, of the `pip install .` that made each "
            "interpreter's environment for this run (the build compiles on both cores):",
            "",
            build_table(builds),
            "",
        ]
    if assets:
        assets.mkdir(parents=True, exist_ok=True)
        pictures = [folder / "speedup.png"]
        newest = [i for i in summary["interpreters"] if not i.startswith("pypy")][-1:]
        pictures += [folder / f"throughput-{i}.png" for i in newest]
        for picture in pictures:
            if picture.exists():
                shutil.copyfile(picture, assets / picture.name)
                relative = (assets / picture.name).relative_to(ROOT)
                lines += [f"![{picture.stem}]({relative.as_posix()})", ""]
    return lines


def memory_section(folder: Path) -> List[str]:
    text = (folder / "memory.md").read_text()
    body = text.split("\n", 2)[2].strip()  # without the title line
    body = re.sub(
        r"memray's flamegraph: \[[^]]*\]\([^)]*\)", "memray's flamegraph in the run's folder", body
    )
    return [f"**Memory** (`nox -s memory`, {folder.name}):", "", body, ""]


def bytecode_section(folder: Path) -> List[str]:
    text = (folder / "bytecode.md").read_text()
    parts = text.split("### ")
    intro = parts[0].split("\n", 2)[2].strip()
    keep = [
        p
        for p in parts[1:]
        if p.startswith(("Instructions executed", "Time per executed", "Why helpers"))
    ]
    lines = [f"**Bytecode** (`nox -s bytecode`, {folder.name}): {intro}", ""]
    for part in keep:
        title, _, body = part.partition("\n")
        lines += [f"*{title.strip()}*", "", body.strip(), ""]
    return lines


def section(
    bench: Optional[Path], memory: Optional[Path], bytecode: Optional[Path], assets: Optional[Path]
) -> str:
    lines = [
        START,
        "## Results",
        "",
        "Generated by `python bench/readme_results.py --write` from the newest runs of "
        "`nox -s bench`, `nox -s memory` and `nox -s bytecode`; to reproduce, run those three "
        "and then this command.",
        "",
    ]
    if bench:
        lines += bench_section(bench, assets)
    if memory:
        lines += memory_section(memory)
    if bytecode:
        lines += bytecode_section(bytecode)
    lines.append(END)
    return "\n".join(lines)


def replace_section(readme: str, text: str) -> str:
    """``readme`` with the results section replaced, or inserted before "## Results so far"."""
    if START in readme and END in readme:
        head, rest = readme.split(START, 1)
        return head + text + rest.split(END, 1)[1]
    marker = "## Results so far"
    if marker in readme:
        head, rest = readme.split(marker, 1)
        return head + text + "\n\n" + marker + rest
    return readme.rstrip("\n") + "\n\n" + text + "\n"


def _newest(kind: str, needs: str) -> Optional[Path]:
    """The newest finished run of ``kind`` (one that has written ``needs``)."""
    runs = sorted((RESULTS / kind).glob("2*/" + needs))
    return runs[-1].parent if runs else None


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bench", type=Path, help="a results/bench run (default: newest)")
    parser.add_argument("--memory", type=Path, help="a results/memory run (default: newest)")
    parser.add_argument("--bytecode", type=Path, help="a results/bytecode run (default: newest)")
    parser.add_argument("--write", action="store_true", help="update README.md and docs/bench")
    args = parser.parse_args(argv)
    bench = args.bench or _newest("bench", "summary.json")
    memory = args.memory or _newest("memory", "memory.md")
    bytecode = args.bytecode or _newest("bytecode", "bytecode.md")
    text = section(bench, memory, bytecode, ASSETS if args.write else None)
    if args.write:
        readme = ROOT / "README.md"
        readme.write_text(replace_section(readme.read_text(), text))
        print(f"README.md: results section from {bench}, {memory}, {bytecode}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
