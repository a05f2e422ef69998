"""digest_column against the engines that hash columns today, side by side in one process.

    python -m bench.peers                      # measure: results/peers/<date-time>/
    python -m bench.peers --write              # ... and the table in README.md and docs/study.md
    python -m bench.peers --report --write     # no measuring: the table from the newest run
    python -m bench.peers --rows 2000 --rounds 1 --python ENV/bin/python

(``nox -s peers`` makes the environment, runs it and writes the README.)

Two columns of ``--rows`` (1,000,000) ASCII strings in a pyarrow table, one
of 32 bytes a row and one of lengths 1 to 64, hashed with MD5 and SHA-256 by:
the hashlib loop over the rows as bytes; ``digest_many`` of that list;
``digest_column`` of the table's column; DuckDB's ``md5()``/``sha256()`` over
the table (and ``md5_number()``, its binary MD5), fetched into Arrow; the
polars-hash plugin (``nchash.md5``, ``chash.sha2_256``) on the frame made from
the table; chdb (ClickHouse in process) ``lower(hex(MD5(s)))`` and ``MD5(s)``
over the same table into Arrow, and its digest alone: the time of
``sum(length(MD5(s)))`` less that of ``sum(length(s))`` (both read the
column; the difference is the digest and its column). Every output is
compared with hashlib's, all rows, before it is timed (chdb's on several threads
as the same rows in any order: ClickHouse keeps no order without ORDER BY).

Each thread setting runs in a fresh process of its own (Polars reads
``POLARS_MAX_THREADS`` once, at its import): one thread (DuckDB ``SET
threads=1``, ``POLARS_MAX_THREADS=1``, chdb ``SETTINGS max_threads=1``,
``threads=1``; the process's CPU time) and every CPU (``threads=0`` and the
engines' thread counts set to the CPUs; the wall clock, where the CPUs are
free). The candidates of one column and algorithm are timed in turn, round
after round (``bench.timing``); a time is the lower quartile of its rounds
(``bench.stats``), with the 95% bootstrap interval of that quartile; the speed
is DuckDB's time of the same column, algorithm and threads over this one's.

The module itself uses the standard library only: the engines, pyarrow and
``variants`` are imported by the measuring processes, which run from a folder
that holds only ``bench`` (bench.layout), so that they import the installed
package, never the checkout's source tree.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from bench.fmt import DASH, table
from bench.layout import README, RESULTS, STUDY, module_command
from bench.machine import cpu_model, interpreter_info, interpreter_title, stamp, today
from bench.stats import Estimate, Values, ratio, time, time_of
from bench.timing import measure

START, END = "<!-- peers:start -->", "<!-- peers:end -->"
ROWS = 1_000_000
ROUNDS = 7
ALGORITHMS = ("md5", "sha256")
#: The two columns: a name and the length of row i (a random generator's draw).
SHAPES = ("32 B", "1-64 B")
#: The engines a full run needs (--require-all): module names.
ENGINES = ("pyarrow", "duckdb", "polars", "polars_hash", "chdb")
#: The CPU flags the caption names.
FLAGS = {"avx2": "AVX2", "avx512f": "AVX-512", "sha_ni": "SHA-NI"}


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
    Row("duckdb/hex", "DuckDB `md5(s)` / `sha256(s)`", "hex"),
    Row("duckdb/binary", "DuckDB `md5_number(s)`", "UHUGEINT"),
    Row("polars-hash/hex", "polars-hash `nchash.md5` / `chash.sha2_256`", "hex"),
    Row("chdb/hex", "chdb `lower(hex(MD5(s)))` / `SHA256`", "hex"),
    Row("chdb/binary", "chdb `MD5(s)` / `SHA256(s)`", "FixedString"),
    Row("chdb/digest", "chdb, the digest alone", "in ClickHouse"),
)
#: chdb's two aggregates whose difference is its digest alone.
DIGEST_ONLY, SCAN_ONLY = "chdb/sum-length-digest", "chdb/sum-length"


# --- the measuring process ------------------------------------------------------------


def strings(rows: int, shape: str, seed: int = 0) -> List[str]:
    """``rows`` distinct ASCII strings (base64 of random bytes): 32 bytes, or 1 to 64."""
    rng = random.Random(seed)
    pool = base64.b64encode(rng.randbytes(48 * rows)).decode()  # 64 characters a row
    if shape == "32 B":
        return [pool[64 * i : 64 * i + 32] for i in range(rows)]
    return [pool[64 * i : 64 * i + rng.randint(1, 64)] for i in range(rows)]


def optional(name: str) -> Tuple[Optional[ModuleType], str]:
    """The module, or None and why it cannot be imported."""
    try:
        return importlib.import_module(name), ""
    except ImportError as exc:
        return None, str(exc)


def versions(modules: Mapping[str, Optional[ModuleType]]) -> Dict[str, str]:
    found: Dict[str, str] = {}
    for name, module in modules.items():
        if module is not None:
            found[name] = str(getattr(module, "__version__", "?"))
    chdb = modules.get("chdb")
    if chdb is not None:
        found["clickhouse"] = str(chdb.engine_version)
    return found


class Peers:
    """The candidates of one process: every engine present, at one thread setting."""

    def __init__(self, modules: Mapping[str, Optional[ModuleType]], threads: int, cpus: int):
        self.modules = modules
        self.threads = threads  # 1, or 0: every CPU
        self.engine_threads = threads or cpus
        duckdb = modules.get("duckdb")
        self.duckdb: Any = duckdb.connect() if duckdb is not None else None
        if self.duckdb is not None:
            self.duckdb.execute(f"SET threads={self.engine_threads}")
        chdb = modules.get("chdb")
        self.chdb: Any = chdb.connect(":memory:") if chdb is not None else None

    def chdb_query(self, sql: str, table: Any) -> Any:
        """``sql`` over ``Python(table)``: chdb finds ``table`` in this frame's locals."""
        settings = f" SETTINGS max_threads={self.engine_threads}"
        return self.chdb.query(sql + settings, "ArrowTable")

    def candidates(self, algorithm: str, table: Any, messages: List[bytes]) -> Dict[str, Any]:
        """Every candidate of this algorithm: a key and a call giving its output."""
        import variants

        pa: Any = self.modules["pyarrow"]
        found: Dict[str, Callable[[], Any]] = {}
        threads = self.threads
        column = table.column("s")
        if threads == 1:  # the loop is one thread whatever the setting: once is enough
            new = getattr(hashlib, algorithm)
            found["hashlib/hex"] = lambda: [new(m).hexdigest() for m in messages]
            found["hashlib/binary"] = lambda: [new(m).digest() for m in messages]

        def of_column(hexdigest: bool) -> Callable[[], Any]:
            digest = variants.digest_column
            return lambda: arrow(
                pa, digest(algorithm, column, hexdigest=hexdigest, threads=threads)
            )

        for form, hexdigest in (("hex", True), ("binary", False)):
            many = partial(variants.digest_many, algorithm, messages, hexdigest=hexdigest)
            found[f"digest_many/{form}"] = partial(many, threads=threads)
            found[f"digest_column/{form}"] = of_column(hexdigest)
        if self.duckdb is not None:
            con = self.duckdb
            con.register("t", table)
            found["duckdb/hex"] = lambda: con.sql(f"SELECT {algorithm}(s) FROM t").to_arrow_table()
            if algorithm == "md5":
                found["duckdb/binary"] = lambda: con.sql(
                    "SELECT md5_number(s) FROM t"
                ).to_arrow_table()
        pl, plh = self.modules.get("polars"), self.modules.get("polars_hash")
        if pl is not None and plh is not None:
            frame = pl.from_arrow(table)
            expression = plh.col("s").nchash.md5() if algorithm == "md5" else None
            if expression is None:
                expression = plh.col("s").chash.sha2_256()
            found["polars-hash/hex"] = lambda: frame.select(expression)
        if self.chdb is not None:
            function = algorithm.upper()
            query = self.chdb_query
            found["chdb/hex"] = lambda: query(
                f"SELECT lower(hex({function}(s))) FROM Python(table)", table
            )
            found["chdb/binary"] = lambda: query(f"SELECT {function}(s) FROM Python(table)", table)
            found[DIGEST_ONLY] = lambda: query(
                f"SELECT sum(length({function}(s))) FROM Python(table)", table
            )
            found[SCAN_ONLY] = lambda: query("SELECT sum(length(s)) FROM Python(table)", table)
        return found


def arrow(pa: Any, column: Any) -> Any:
    """A column exporting the Arrow PyCapsule interface as a pyarrow array (no copy)."""
    if hasattr(column, "__arrow_c_array__"):
        return pa.array(column)
    return pa.chunked_array(column)


def as_list(pa: Any, output: Any) -> List[Any]:
    """A candidate's output as Python values: a list, a pyarrow or Polars result's one column."""
    if isinstance(output, list):
        return output
    if hasattr(output, "to_arrow"):  # a Polars frame
        output = output.to_arrow()
    if hasattr(output, "num_columns"):  # a table of one column
        output = output.column(0)
    values: List[Any] = output.to_pylist()
    return values


def check(
    key: str,
    output: Any,
    messages: Sequence[bytes],
    algorithm: str,
    pa: Any,
    expected: Any,
    in_order: bool = True,
) -> None:
    """The output of ``key`` is hashlib's, row by row (raises AssertionError otherwise);
    chdb's, unless ``in_order`` (one thread), the same rows in any order."""
    if key in (SCAN_ONLY, DIGEST_ONLY):  # sums of the rows' lengths, or the digests'
        size = hashlib.new(algorithm).digest_size
        want = sum(len(m) for m in messages) if key == SCAN_ONLY else len(messages) * size
        got = as_list(pa, output)
        assert got == [want], f"{key}: {got} != [{want}]"
        return
    values = as_list(pa, output)
    form = "hex" if key.endswith("/hex") else "binary"
    if key == "duckdb/binary":
        # md5_number: the digest as a little-endian 128-bit unsigned number, which
        # reaches Arrow as a decimal128's signed 128 bits
        values = [(int(v) % 2**128).to_bytes(16, "little") for v in values]
    want_values = expected[form]
    assert len(values) == len(want_values), f"{key}: {len(values)} rows, not {len(want_values)}"
    if key.startswith("chdb/") and not in_order:
        # ClickHouse on several threads gives the rows in any order (no ORDER BY)
        values, want_values = sorted(values), sorted(want_values)
    wrong = next((i for i, (a, b) in enumerate(zip(values, want_values)) if a != b), None)
    assert wrong is None, (
        f"{key}: row {wrong} is {values[wrong]!r}, hashlib's {want_values[wrong]!r}"
    )


def run_threads(
    threads: int, rows: int, rounds: int, require_all: bool, only: Optional[str] = None
) -> Dict[str, Any]:
    """Measure every case at one thread setting in this process; the run's record."""
    import variants
    from variants._many import cpus

    modules: Dict[str, Optional[ModuleType]] = {}
    missing: Dict[str, str] = {}
    for name in ENGINES:
        modules[name], why = optional(name)
        if modules[name] is None:
            missing[name] = why
    if modules["pyarrow"] is None or (require_all and missing):
        raise SystemExit(f"missing: {missing}")
    pa: Any = modules["pyarrow"]
    peers = Peers(modules, threads, cpus())
    clock = "cpu" if threads == 1 else "wall"
    cases: List[Dict[str, Any]] = []
    for shape in SHAPES:
        values = strings(rows, shape)
        messages = [v.encode() for v in values]
        arrow_table = pa.table({"s": pa.array(values, type=pa.string())})
        for algorithm in ALGORITHMS:
            if only and only not in f"{shape} {algorithm}":
                continue
            new = getattr(hashlib, algorithm)
            expected = {
                "hex": [new(m).hexdigest() for m in messages],
                "binary": [new(m).digest() for m in messages],
            }
            found = peers.candidates(algorithm, arrow_table, messages)
            for key, call in found.items():
                check(key, call(), messages, algorithm, pa, expected, threads == 1)
            print(f"  threads={threads} {shape} {algorithm}: {len(found)} candidates", flush=True)
            timed = measure(found, rounds, min_time=0.005, clock=clock)
            cases.append(
                {
                    "column": shape,
                    "algorithm": algorithm,
                    "bytes": sum(len(m) for m in messages),
                    "candidates": {
                        key: {"values": t.values, "loops": t.loops} for key, t in timed.items()
                    },
                }
            )
    return {
        "threads": threads,
        "cpus": cpus(),
        "clock": clock,
        "rows": rows,
        "rounds": rounds,
        "engines": versions(modules),
        "missing": missing,
        "variants": {
            "default": variants.default_variant.name,
            "details": variants.default_variant.details,
            "kernels": kernel_ids(),
        },
        "interpreter": interpreter_info(),
        "cases": cases,
    }


def kernel_ids() -> Dict[str, str]:
    """The native kernels chosen here (none without the native variant)."""
    try:
        from variants.native import kernel
    except ImportError:
        return {}
    return kernel()


# --- the driver: two measuring processes, the JSON, the table -------------------------


def cpu_flags() -> Dict[str, bool]:
    """Whether this CPU has AVX2, AVX-512 and SHA-NI (x86-64's /proc/cpuinfo flags)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    flags = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
            break
    return {label: flag in flags for flag, label in FLAGS.items()}


def measured(python: str, argv: Sequence[str], threads: int, cpus: int) -> Dict[str, Any]:
    """One thread setting's run, in a fresh process of ``python`` (its JSON record)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        args = [*argv, "--child", str(threads), "--out", str(out)]
        command, env, cwd = module_command(python, "peers", *args)
        env["POLARS_MAX_THREADS"] = str(threads or cpus)
        done = subprocess.run(command, env=env, cwd=cwd)
        if done.returncode:
            raise SystemExit(f"the measuring process (threads={threads}) failed: {done.returncode}")
        record: Dict[str, Any] = json.loads(out.read_text())
        return record


def rounds(values: Sequence[float]) -> Values:
    """The values of one measuring process, keyed (process, round) as bench.stats takes them."""
    return {(0, i): v for i, v in enumerate(values)}


def estimate(values: Sequence[float]) -> Estimate:
    """A time (lower quartile) with the 95% bootstrap interval of that quartile over rounds."""
    return time(rounds(values))


def per_row(values: Sequence[float], rows: int) -> str:
    """ns a row with the interval's half width: ``23.1 ±1.2%``."""
    e = estimate(values)
    return f"{e.value / rows * 1e9:.1f} ±{e.half_width * 100:.0f}%" if values else DASH


def derived(candidates: Dict[str, Any]) -> Dict[str, List[float]]:
    """Each candidate's values by key, and chdb's digest alone (per round: the difference)."""
    values = {key: list(data["values"]) for key, data in candidates.items()}
    if DIGEST_ONLY in values and SCAN_ONLY in values:
        values["chdb/digest"] = [a - b for a, b in zip(values[DIGEST_ONLY], values[SCAN_ONLY])]
    return values


def cases_of(run: Dict[str, Any]) -> Dict[Tuple[str, str], Dict[str, List[float]]]:
    """A run's values by (column, algorithm), then by candidate (chdb's digest alone too)."""
    return {(c["column"], c["algorithm"]): derived(c["candidates"]) for c in run["cases"]}


def render(runs: Sequence[Dict[str, Any]], machine: Dict[str, Any]) -> str:
    """The Markdown tables of a measurement: one per thread setting, a column per case."""
    algorithms = {"md5": "MD5", "sha256": "SHA-256"}
    parts: List[str] = []
    for run in runs:
        cases = cases_of(run)
        header = ["", "out", *(f"{shape}, {algorithms[alg]}" for shape, alg in cases)]
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
    """One of issue 18's targets on one thread: ``what`` (of ``case``) at most ``bound``."""

    what: str
    case: Tuple[str, str]  # (column, algorithm)
    mine: str  # a candidate's key
    other: str  # "": ns a row; a key: other's time over mine; "<shape>": mine there over here
    bound: float  # at most this many ns (other ""), at least this speed, at most this ratio


TARGETS = (
    Target("md5_column, hex: ns a row", ("32 B", "md5"), "digest_column/hex", "", 25),
    Target("md5_column, binary: ns a row", ("32 B", "md5"), "digest_column/binary", "", 20),
    Target(
        "md5_column, hex, against DuckDB", ("32 B", "md5"), "digest_column/hex", "duckdb/hex", 9
    ),
    Target("md5_column, hex, against chdb", ("32 B", "md5"), "digest_column/hex", "chdb/hex", 6),
    Target(
        "md5_column, binary, against chdb's digest alone",
        ("32 B", "md5"),
        "digest_column/binary",
        "chdb/digest",
        1,
    ),
    Target(
        "md5_column, hex, 1-64 B over 32 B", ("1-64 B", "md5"), "digest_column/hex", "32 B", 1.3
    ),
    Target("sha256_column, hex: ns a row", ("32 B", "sha256"), "digest_column/hex", "", 35),
    Target(
        "sha256_column, hex, against DuckDB",
        ("32 B", "sha256"),
        "digest_column/hex",
        "duckdb/hex",
        8,
    ),
    Target(
        "sha256_column, hex, against polars-hash",
        ("32 B", "sha256"),
        "digest_column/hex",
        "polars-hash/hex",
        6,
    ),
    Target(
        "sha256_column, hex, against chdb's digest alone",
        ("32 B", "sha256"),
        "digest_column/hex",
        "chdb/digest",
        3,
    ),
    Target(
        "md5_many, binary, against the hashlib loop",
        ("32 B", "md5"),
        "digest_many/binary",
        "hashlib/binary",
        10,
    ),
    Target(
        "sha256_many, binary, against the hashlib loop",
        ("32 B", "sha256"),
        "digest_many/binary",
        "hashlib/binary",
        8,
    ),
)


def targets(runs: Sequence[Dict[str, Any]]) -> str:
    """Issue 18's targets against the one-thread run: a table of figure, bound, met."""
    run = next((r for r in runs if r["threads"] == 1), None)
    if run is None:
        return ""
    cases = cases_of(run)
    lines = [["target (one thread)", "figure", "bound", ""]]
    for t in TARGETS:
        mine = cases.get(t.case, {}).get(t.mine)
        if t.other in SHAPES:
            base = cases.get((t.other, t.case[1]), {}).get(t.mine)
            found = ratio(rounds(mine), rounds(base)) if mine and base else None
            figure, met = (found.value, found.value <= t.bound) if found else (None, False)
            shown, bound = f"{figure:.2f}x" if figure else DASH, f"<= {t.bound}x"
        elif t.other:
            base = cases.get(t.case, {}).get(t.other)
            found = ratio(rounds(base), rounds(mine)) if mine and base else None
            figure, met = (found.value, found.value >= t.bound) if found else (None, False)
            shown, bound = f"{figure:.2f}x" if figure else DASH, f">= {t.bound}x"
        else:
            figure = time_of(mine) / run["rows"] * 1e9 if mine else None
            met = figure is not None and figure <= t.bound
            shown, bound = f"{figure:.1f} ns" if figure else DASH, f"<= {t.bound} ns"
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
        f"Lower quartiles of {rounds}, each with half its 95% interval; speed: DuckDB's "
        f"`md5`/`sha256` time over this line's. Every output was checked against hashlib, "
        f"all rows (chdb's on several threads as a multiset: it gives them in any order "
        f"without ORDER BY). chdb's digest alone: `sum(length(MD5(s)))` less `sum(length(s))`, "
        f"round by round. Generated by `nox -s peers` (`python -m bench.peers --write`)."
    )


def replace_section(text: str, section: str, name: str = "README.md") -> str:
    """``text`` (of the file ``name``) with the part between the markers replaced by ``section``."""
    if START not in text or END not in text:
        raise SystemExit(f"{name} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    return f"{head}{START}\n{section}\n{END}{rest.split(END, 1)[1]}"


def newest(results: Path) -> Optional[Path]:
    runs = sorted(results.glob("2*/peers.json"))
    return runs[-1] if runs else None


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS, help="rows of each column")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="interleaved rounds")
    parser.add_argument("--only", help="only the cases whose '<column> <algorithm>' has this")
    parser.add_argument("--python", default=sys.executable, help="the measuring interpreter")
    parser.add_argument("--threads", choices=("1", "all", "both"), default="both")
    parser.add_argument("--require-all", action="store_true", help="fail if an engine is missing")
    parser.add_argument("--write", action="store_true", help="update the README's table")
    parser.add_argument("--report", action="store_true", help="no measuring: the newest run")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)  # a measuring process
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        record = run_threads(args.child, args.rows, args.rounds, args.require_all, args.only)
        Path(args.out).write_text(json.dumps(record))
        return 0
    results = RESULTS / "peers"
    if args.report:
        found = newest(results)
        if found is None:
            raise SystemExit(f"no run under {results}")
        data = json.loads(found.read_text())
    else:
        cpus = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
        passed = [f"--rows={args.rows}", f"--rounds={args.rounds}"]
        passed += [f"--only={args.only}"] if args.only else []
        passed += ["--require-all"] if args.require_all else []
        settings = {"1": [1], "all": [0], "both": [1, 0]}[args.threads]
        runs = [measured(args.python, passed, threads, cpus) for threads in settings]
        machine = {
            "cpu": cpu_model(),
            "flags": cpu_flags(),
            "date": today(),
            "platform": platform.platform(),
        }
        data = {"machine": machine, "runs": runs}
        folder = results / stamp()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "peers.json").write_text(json.dumps(data, indent=1))
        found = folder / "peers.json"
    text = render(data["runs"], data["machine"])
    goals = targets(data["runs"])
    found.with_name("peers.md").write_text(f"{text}\n\nIssue 18's targets:\n\n{goals}\n")
    print(text, goals, sep="\n\n")
    if args.write:  # the README's Columns section and the study's
        for path in (README, STUDY):
            path.write_text(replace_section(path.read_text(), text, path.name))
            print(f"{path.name}: the peers' table from {found.parent.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
