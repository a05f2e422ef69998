"""digest_column against the engines that hash columns today, side by side in one process.

    python -m bench peers                      # measure: results/peers/<date-time>/
    python -m bench peers --write              # ... and the tables in docs/columns.md, README.md
    python -m bench peers --report --write     # no measuring: the table from the newest run
    python -m bench peers --rows 2000 --rounds 1 --python ENV/bin/python

(``nox -s peers`` makes the environment, runs it and writes docs/columns.md and the README.)

Each thread setting runs in a fresh worker process of its own (``bench.product.engines``
through the protocol's ``call``) (Polars reads
``POLARS_MAX_THREADS`` once, at its import): one thread (DuckDB ``SET
threads=1``, ``POLARS_MAX_THREADS=1``, chdb ``SETTINGS max_threads=1``,
``threads=1``; the process's CPU time) and every CPU (``threads=0`` and the
engines' thread counts set to the CPUs; the wall clock, where the CPUs are
free). The candidates of one column and algorithm (``bench.product.engines``) are
timed in turn, round after round (``bench.core.timing``); a time is the fastest of its
rounds (``bench.core.stats``), with its 95% interval over the rounds; the
speed is DuckDB's time of the same column, algorithm and threads over this one's.

This side uses the standard library only: the engines, pyarrow and ``variants`` are
imported by the measuring processes, which run from a folder that holds only ``bench``
(``bench.conduct.launch``), so that they import the installed package, never the checkout's
source tree.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..catalog.columns import Column
from ..catalog.modes import Mode
from ..conduct import launch
from ..core.fmt import DASH, table
from ..core.machine import cpu_flags, cpu_model, interpreter_title, today
from ..core.stats import ratio, time, time_of
from ..report.publish import COLUMNS, README, peers_sections, splice, write_sections
from ..report.readme import ALGORITHM_NAMES
from ..store import (
    RESULTS,
    cases_of,
    new_folder,
    newest,
    read_record,
    rounds,
    write_record,
)
from .engines import ALGORITHMS, ENGINES, SHAPES, run_threads

#: Read through this module by tests/test_engines.py.
__all__ = ["ALGORITHMS", "ENGINES", "SHAPES", "main", "render", "run_threads", "targets"]

START, END = "<!-- peers:start -->", "<!-- peers:end -->"
HEADING = "**Kernels: "
ROWS = 1_000_000
ROUNDS = 7


class Row(NamedTuple):
    """One line of the table: a candidate of one form."""

    key: str  # "<peer>/<form>": the candidate's key in the JSON
    peer: str
    form: str


#: The table's lines, in order; a peer's missing forms are not its own (polars-hash and
#: DuckDB's SHA-256 give hex only).
ROWS_SHOWN = (
    Row("hashlib/hex", "hashlib loop (`[md5(m).hexdigest() for m in ...]`)", "hex"),
    Row("hashlib/binary", "hashlib loop (`.digest()`)", "binary"),
    Row("digest_many/hex", "variants `digest_many(list)`", "hex"),
    Row("digest_many/binary", "variants `digest_many(list)`", "binary"),
    Row("digest_column/hex", "variants `digest_column(table['s'])`", "hex"),
    Row("digest_column/binary", "variants `digest_column(table['s'])`", "binary"),
    Row("duckdb/hex", "DuckDB `md5(s)` / `sha256(s)` / `sha1(s)`", "hex"),
    Row("duckdb/binary", "DuckDB `md5_number(s)`", "UHUGEINT"),
    Row("polars-hash/hex", "polars-hash `nchash.md5` / `chash.sha2_256` / `sha2_512`", "hex"),
    Row("chdb/hex", "chdb `lower(hex(MD5(s)))` / `SHA256` / `SHA1` / `SHA512`", "hex"),
    Row("chdb/binary", "chdb `MD5(s)` / `SHA256(s)` / ...", "FixedString"),
    Row("chdb/digest", "chdb, the digest alone", "in ClickHouse"),
)


#: The kernel classes the tables are of: (name, the CPU flag it needs, the kernels that
#: force it). The first the CPU has is its own (dispatch chooses); below it, each is forced
#: (``VARIANTS_NATIVE_KERNELS``), so that an AVX-512 machine gives the AVX2 machines' figures too.
CLASSES = (
    ("AVX-512", "AVX-512", ""),
    (
        "AVX2 and SHA-NI",
        "AVX2",
        "md5-many=avx2-x16,sha256-many=shani-x2,sha1-many=avx2-x8,sha512-many=avx2-x4",
    ),
)


def classes(flags: Dict[str, bool]) -> List[Tuple[str, str]]:
    """(class, forced kernels) this CPU runs: its own first ("" forces nothing)."""
    found = [(name, force) for name, flag, force in CLASSES if flags.get(flag)]
    if not found:  # another architecture (AArch64): its own kernels only
        return [("the CPU's own", "")]
    return [(found[0][0], ""), *found[1:]]


def measured(
    python: str, options: Dict[str, Any], threads: int, cpus: int, force: str = ""
) -> Dict[str, Any]:
    """One thread setting's run, in a fresh worker of ``python`` (its JSON record), with the
    native kernels ``force`` says (``VARIANTS_NATIVE_KERNELS``), if any."""
    column = Column(Mode("peers", "peers", {}, (), None, ""), python)
    _, env, _ = launch.command(column, RESULTS)
    env["POLARS_MAX_THREADS"] = str(threads or cpus)
    if force:
        env["VARIANTS_NATIVE_KERNELS"] = force
    with launch.worker(column, RESULTS, env=env) as w:
        record: Dict[str, Any] = w.call("product.engines.run_threads", threads=threads, **options)
    return record


def per_row(values: Sequence[float], rows: int) -> str:
    """ns a row with the half width of its time's 95% interval (``bench.core.stats``, over the
    rounds of one process): ``23.1 ±1.2%``."""
    e = time(rounds(values))
    return f"{e.value / rows * 1e9:.1f} ±{e.half_width * 100:.0f}%" if values else DASH


def render_all(data: Dict[str, Any]) -> Dict[str, str]:
    """Every kernel class's tables of a measurement, each under its own heading, by class."""
    return {
        k["name"]: f"{HEADING}{k['name']}**"
        + (
            f" (forced: `VARIANTS_NATIVE_KERNELS={k['forced']}`)"
            if k["forced"]
            else " (this CPU's own)"
        )
        + "\n\n"
        + render(k["runs"], data["machine"])
        for k in data["classes"]
    }


def merged(page: str, measured: Dict[str, str]) -> str:
    """The peers section of ``page`` with the classes of ``measured`` replaced and those this
    machine did not measure kept as they were (each block names the machine it came from: an
    AVX2 machine cannot give AVX-512 figures), in the order of CLASSES."""
    inner = page.split(START, 1)[1].split(END, 1)[0] if START in page and END in page else ""
    blocks = [b.strip() for b in re.split(r"(?m)^(?=\*\*Kernels: )", inner)]
    kept = {b[len(HEADING) :].split("**", 1)[0]: b for b in blocks if b.startswith(HEADING)}
    shown = {**kept, **measured}
    order = [name for name, _, _ in CLASSES if name in shown]
    return "\n\n".join(shown[n] for n in order + sorted(set(shown) - set(order)))


def render(runs: Sequence[Dict[str, Any]], machine: Dict[str, Any]) -> str:
    """The Markdown tables of one kernel class: one per thread setting, a column per case."""
    parts: List[str] = []
    for run in runs:
        cases = cases_of(run)
        header = ["", "out", *(f"{shape}, {ALGORITHM_NAMES[alg]}" for shape, alg in cases)]
        lines = [header]
        for row in ROWS_SHOWN:
            line = [row.peer, row.form]
            for values in cases.values():
                mine, base = values.get(row.key), values.get("duckdb/hex")
                speed = ratio(rounds(base), rounds(mine)) if mine and base else None
                shown = per_row(mine, run["rows"]) if mine else DASH
                line.append(f"{shown} ({speed.value:.3g}x)" if speed else shown)
            if any(cell != DASH for cell in line[2:]):
                lines.append(line)
        threads = "one thread" if run["threads"] == 1 else f"every CPU ({run['cpus']})"
        parts.append(
            f"On {threads}, ns a row (speed against DuckDB), {run['rows']:,} rows:\n\n"
            + table(lines, "ll" + "r" * len(cases))
        )
    return "\n\n".join(parts) + "\n\n" + caption(runs, machine)


class Target(NamedTuple):
    """A target on one thread: ``what`` at most (or at least) ``bound``."""

    what: str
    algorithm: str
    mine: str  # a candidate's key
    other: str  # "": ns a row; a key: other's time over mine; a shape: mine there over here
    bound: float  # at most this many ns (other ""), at least this speed, at most this ratio
    column: str = "32 B"


HEX, BINARY = "digest_column/hex", "digest_column/binary"
MANY, LOOP = "digest_many/binary", "hashlib/binary"
#: Issue 28's targets, for the AVX2 and SHA-NI class (a Zen 3's; issue 18's were AVX-512's).
TARGETS = (
    Target("md5_column, hex: ns a row", "md5", HEX, "", 20),
    Target("md5_column, hex, against DuckDB", "md5", HEX, "duckdb/hex", 9),
    Target("md5_column, hex, against chdb", "md5", HEX, "chdb/hex", 6),
    Target("md5_column, hex, 1-64 B over 32 B", "md5", HEX, "32 B", 1.3, column="1-64 B"),
    Target("sha256_column, hex: ns a row", "sha256", HEX, "", 35),
    Target("sha256_column, hex, against DuckDB", "sha256", HEX, "duckdb/hex", 10),
    Target("sha256_column, hex, against polars-hash", "sha256", HEX, "polars-hash/hex", 7),
    Target("md5_many, binary, against the hashlib loop", "md5", MANY, LOOP, 10),
    Target("sha256_many, binary, against the hashlib loop", "sha256", MANY, LOOP, 8),
    # issue 34's (DuckDB has no SHA-512, polars-hash no SHA-1)
    Target("sha1_column, hex: ns a row", "sha1", HEX, "", 17),
    Target("sha1_column, hex, against DuckDB", "sha1", HEX, "duckdb/hex", 8),
    Target("sha512_column, hex: ns a row", "sha512", HEX, "", 115),
    Target("sha512_column, hex, against chdb", "sha512", HEX, "chdb/hex", 3),
    Target("sha512_column, hex, against polars-hash", "sha512", HEX, "polars-hash/hex", 4),
    Target("sha1_many, binary, against the hashlib loop", "sha1", MANY, LOOP, 5),
    Target("sha512_many, binary, against the hashlib loop", "sha512", MANY, LOOP, 5),
)


def targets(runs: Sequence[Dict[str, Any]]) -> str:
    """The targets against a class's one-thread run: a table of figure, bound, met."""
    run = next((r for r in runs if r["threads"] == 1), None)
    if run is None:
        return ""
    cases = cases_of(run)
    lines = [["target (one thread)", "figure", "bound", ""]]
    for t in TARGETS:
        mine = cases.get((t.column, t.algorithm), {}).get(t.mine)
        figure: Optional[float] = None
        if not t.other:
            figure = time_of(mine) / run["rows"] * 1e9 if mine else None
            shown, bound, most = f"{figure:.1f} ns" if figure else DASH, f"<= {t.bound} ns", True
        else:
            most = t.other in SHAPES  # the same candidate on another column: mine over there
            there = cases.get((t.other if most else t.column, t.algorithm), {})
            other = there.get(t.mine if most else t.other)
            top, bottom = (mine, other) if most else (other, mine)
            found = ratio(rounds(top), rounds(bottom)) if top and bottom else None
            figure = found.value if found else None
            shown = f"{figure:.2f}x" if figure else DASH
            bound = f"{'<=' if most else '>='} {t.bound}x"
        met = figure is not None and (figure <= t.bound if most else figure >= t.bound)
        lines.append(
            [t.what, shown, bound, "met" if met else "MISSED" if figure else "not measured"]
        )
    return table(lines, "lrrl")


def caption(runs: Sequence[Dict[str, Any]], machine: Dict[str, Any]) -> str:
    first = runs[0]
    flags = ", ".join(
        f"{label} {'yes' if has else 'no'}" for label, has in machine["flags"].items()
    )
    engines = ", ".join(f"{name} {version}" for name, version in first["engines"].items())
    kernels = ", ".join(f"{core}: {name}" for core, name in first["variants"]["kernels"].items())
    missing = "; not installed: " + ", ".join(first["missing"]) if first["missing"] else ""
    rounds = ", ".join(
        f"{r['rounds']} rounds ({r['clock']} clock) at threads={r['threads']}" for r in runs
    )
    return (
        f"{machine['cpu']} ({flags}), {first['cpus']} CPUs; "
        f"{interpreter_title(first['interpreter'])}, {machine['date']}; {engines}{missing}. "
        f"variants' kernels: {kernels or 'none (no native variant)'}. "
        f"Fastest of {rounds}, each with half its 95% interval; speed: DuckDB's "
        f"`md5`/`sha256`/`sha1` time over this line's (none for SHA-512: it has none). Every "
        f"output was checked against hashlib, "
        f"all rows (chdb's on several threads as a multiset: it gives them in any order "
        f"without ORDER BY). chdb's digest alone: `sum(length(MD5(s)))` less `sum(length(s))`, "
        f"round by round. Generated by `nox -s peers` (`python -m bench peers --write`)."
    )


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench peers", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--rows", type=int, default=ROWS, help="rows of each column")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="interleaved rounds")
    parser.add_argument("--only", help="only the cases whose '<column> <algorithm>' has this")
    parser.add_argument("--python", default=sys.executable, help="the measuring interpreter")
    parser.add_argument("--threads", choices=("1", "all", "both"), default="both")
    parser.add_argument("--require-all", action="store_true", help="fail if an engine is missing")
    parser.add_argument("--write", action="store_true", help="update docs/columns.md, README.md")
    parser.add_argument("--report", action="store_true", help="no measuring: the newest run")
    return parser


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    results = RESULTS / "peers"
    if args.report:
        run = newest("peers", "peers.json")
        if run is None:
            raise SystemExit(f"no run under {results}")
        found = run / "peers.json"
        data = read_record(found)
    else:
        cpus = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
        options = {
            "rows": args.rows,
            "rounds": args.rounds,
            "require_all": args.require_all,
            "only": args.only,
        }
        settings = {"1": [1], "all": [0], "both": [1, 0]}[args.threads]
        flags = cpu_flags()
        machine = {
            "cpu": cpu_model(),
            "flags": flags,
            "date": today(),
            "platform": platform.platform(),
        }
        kinds = []
        for name, force in classes(flags):
            runs = [measured(args.python, options, t, cpus, force) for t in settings]
            kinds.append({"name": name, "forced": force, "runs": runs})
        data = {"machine": machine, "classes": kinds}
        found = new_folder("peers") / "peers.json"
        write_record(found, data)
    blocks = render_all(data)
    text = "\n\n".join(blocks.values())
    goals = "\n\n".join(f"{k['name']}:\n\n{targets(k['runs'])}" for k in data["classes"])
    found.with_name("peers.md").write_text(
        f"{text}\n\nThe targets (issues 28 and 34):\n\n{goals}\n"
    )
    print(text, goals, sep="\n\n")
    if args.write:  # every table in docs/columns.md, the README's figures and small table
        page = COLUMNS.read_text()
        section = f"{START}\n{merged(page, blocks)}\n{END}"
        COLUMNS.write_text(splice(page, section, START, END, append=False))
        write_sections(README, peers_sections(data))
        print(f"{COLUMNS.name}, {README.name}: the peers' tables from {found.parent.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
