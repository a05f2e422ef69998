"""The measuring side of ``bench.product.peers``: every engine present, at one thread setting.

Two columns of ``--rows`` (1,000,000) ASCII strings in a pyarrow table, one
of 32 bytes a row and one of lengths 1 to 64, hashed with MD5, SHA-256, SHA-1 and SHA-512
(each engine's that it has) by:
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

It runs in the peers' environment (the engines, pyarrow and the installed ``variants``),
started by ``bench.product.peers`` as a worker (``bench.conduct.launch``).
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import random
from functools import partial
from types import ModuleType
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..core.machine import interpreter_info
from ..core.timing import measure
from ..store import DIGEST_ONLY, SCAN_ONLY

ALGORITHMS = ("md5", "sha256", "sha1", "sha512")
#: DuckDB's functions (it has no SHA-512) and polars-hash's (no SHA-1), by algorithm.
DUCKDB = {"md5": "md5", "sha256": "sha256", "sha1": "sha1"}
POLARS_HASH = {
    "md5": ("nchash", "md5"),
    "sha256": ("chash", "sha2_256"),
    "sha512": ("chash", "sha2_512"),
}
#: The two columns: a name and the length of row i (a random generator's draw).
SHAPES = ("32 B", "1-64 B")
#: The engines a full run needs (--require-all): module names.
ENGINES = ("pyarrow", "duckdb", "polars", "polars_hash", "chdb")


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
        for form, hexdigest in (("hex", True), ("binary", False)):
            many = partial(variants.digest_many, algorithm, messages, hexdigest=hexdigest)
            found[f"digest_many/{form}"] = partial(many, threads=threads)
            of_column = partial(variants.digest_column, algorithm, column, hexdigest=hexdigest)
            found[f"digest_column/{form}"] = partial(arrow, pa, of_column, threads)
        if self.duckdb is not None:
            self.duckdb.register("t", table)
            sql = {"duckdb/hex": f"{DUCKDB[algorithm]}(s)"} if algorithm in DUCKDB else {}
            sql.update({"duckdb/binary": "md5_number(s)"} if algorithm == "md5" else {})
            for key, what in sql.items():
                found[key] = partial(self.duckdb_query, f"SELECT {what} FROM t")
        pl, plh = self.modules.get("polars"), self.modules.get("polars_hash")
        if pl is not None and plh is not None and algorithm in POLARS_HASH:
            frame, s = pl.from_arrow(table), plh.col("s")
            space, function = POLARS_HASH[algorithm]
            found["polars-hash/hex"] = partial(frame.select, getattr(getattr(s, space), function)())
        if self.chdb is not None:
            f = algorithm.upper()
            sql = {"chdb/hex": f"lower(hex({f}(s)))", "chdb/binary": f"{f}(s)"}
            sql.update({DIGEST_ONLY: f"sum(length({f}(s)))", SCAN_ONLY: "sum(length(s))"})
            for key, what in sql.items():
                found[key] = partial(self.chdb_query, f"SELECT {what} FROM Python(table)", table)
        return found

    def duckdb_query(self, sql: str) -> Any:
        return self.duckdb.sql(sql).to_arrow_table()


def arrow(pa: Any, digest: Callable[..., Any], threads: int) -> Any:
    """``digest(threads=threads)``'s column (it exports the Arrow PyCapsule interface) as a
    pyarrow array, without a copy."""
    column = digest(threads=threads)
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
