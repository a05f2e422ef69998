"""``digest_column`` inside the engines people use: DuckDB, Polars, pandas 3 and Dask.

Each recipe is one line of docs/columns.md's interface section, run here as it is
written there (``test_the_readme_shows_each_recipe`` holds the two together)
on a column with nulls, empty, non-ASCII and multi-block rows, in several
chunks, and compared row by row with hashlib: a null in gives a null out. Dask
runs for real: a ``LocalCluster`` of two worker processes hashes a partitioned
frame's column, and the test checks the partitions were hashed in those
processes.

The engines are optional: a missing one skips its tests, except where
``VARIANTS_REQUIRE_ENGINES=1`` (the ``engines`` nox session, whose environment
has them all) makes that a failure.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence

import bench_package
import pytest

import variants

from conftest import SOURCE_ROOT

REQUIRE_ENGINES_ENV = "VARIANTS_REQUIRE_ENGINES"
ALGORITHMS = ("md5", "sha224", "sha256")

#: The recipes of docs/columns.md for MD5, hex digests out: two helpers, then
#: one line an engine. The tests run them as written and, for the other algorithms, with
#: ``md5`` replaced; ``test_the_readme_shows_each_recipe`` finds each there.
RECIPES: Dict[str, str] = {
    "helpers": (
        "def md5_hex(column):  # any Arrow column of strings or bytes in, its hex digests out\n"
        "    return variants.md5_column(column, hexdigest=True)\n"
        "\n\n"
        "def md5_series(s):  # pandas 3: a Series of Arrow strings in, one out, on its index\n"
        "    return pd.Series.from_arrow(md5_hex(s)).set_axis(s.index)\n"
    ),
    "duckdb": 'con.create_function("md5_hex", md5_hex, ["VARCHAR"], "VARCHAR", type="arrow")',
    "duckdb-sql": 'con.sql("SELECT md5_hex(email) FROM users")',
    "polars": (
        'df.with_columns(md5=pl.col("email").map_batches('
        "lambda s: pl.Series(md5_hex(s)), pl.String))"
    ),
    "pandas": 'df["md5"] = md5_series(df["email"])',
    "dask": 'ddf["md5"] = ddf["email"].map_partitions(md5_series, meta=("md5", "str"))',
}


def engine(name: str) -> ModuleType:
    """The engine's module, or a skip (a failure where the engines are required)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if os.environ.get(REQUIRE_ENGINES_ENV) == "1":
            pytest.fail(f"{name} is required here ({REQUIRE_ENGINES_ENV}=1) but: {exc}")
        pytest.skip(f"{name} is not installed: {exc}")


def rows(count: int = 5000) -> List[Optional[str]]:
    """A column's values: nulls, empty, ASCII and non-ASCII rows of 0 to 1,000 bytes."""
    values: List[Optional[str]] = []
    for i in range(count):
        if i % 11 == 3:
            values.append(None)
        elif i % 97 == 5:
            values.append("")
        elif i % 13 == 7:
            values.append(f"é{i}-ünïcødé-🙂" * (1 + i % 5))
        else:
            values.append(
                f"user{i}@example.com" + "x" * (i % 71) + "y" * (1000 if i % 500 == 9 else 0)
            )
    return values


def expected(name: str, values: Sequence[Optional[str]], hexdigest: bool) -> List[Any]:
    """hashlib's digest of each row (None for a null)."""
    out: List[Any] = []
    for value in values:
        if value is None:
            out.append(None)
        else:
            h = hashlib.new(name, value.encode())
            out.append(h.hexdigest() if hexdigest else h.digest())
    return out


def recipe(key: str, name: str, hexdigest: bool = True) -> str:
    """The README's recipe for algorithm ``name``; binary digests out unless ``hexdigest``."""
    text = RECIPES[key].replace("md5", name)
    if not hexdigest:
        text = text.replace("hexdigest=True", "hexdigest=False").replace(
            '], "VARCHAR"', '], "BLOB"'
        )
        text = text.replace("pl.String", "pl.Binary")
    return text


def run(text: str, namespace: Dict[str, Any]) -> Any:
    """Run a recipe in ``namespace``: the value of an expression, or None for statements."""
    try:
        code = compile(text, "<recipe>", "eval")
    except SyntaxError:
        exec(compile(text, "<recipe>", "exec"), namespace)
        return None
    return eval(code, namespace)


def prepared(name: str, hexdigest: bool = True, **namespace: Any) -> Dict[str, Any]:
    """A namespace with ``namespace`` and the recipes' helpers for ``name`` defined."""
    namespace["variants"] = variants
    run(recipe("helpers", name, hexdigest), namespace)
    return namespace


def nulls_as_none(pd: ModuleType, values: Sequence[Any]) -> List[Any]:
    """pandas' missing values (None, NaN, NA) as None, the others as they are."""
    return [None if pd.isna(value) else value for value in values]


def squeezed(text: str) -> str:
    """``text`` without white space or the trailing commas a formatter adds."""
    return re.sub(r",(?=[)\]])", "", re.sub(r"\s+", "", text))


def test_the_readme_shows_each_recipe() -> None:
    page = SOURCE_ROOT / "docs" / "columns.md"  # the README's Columns section in full
    if not page.exists():
        pytest.skip("not a source checkout")
    text = page.read_text(encoding="utf-8")
    assert "## The interface" in text
    section = squeezed(text.split("## The interface", 1)[1].split("\n## ", 1)[0])
    missing = [key for key, line in RECIPES.items() if squeezed(line) not in section]
    assert not missing, f"docs/columns.md's interface section lacks the recipes {missing}"


def test_a_recipe_changed_for_binary_digests() -> None:
    """The binary recipes are the hex ones with hexdigest=False and binary result types."""
    assert '["VARCHAR"], "BLOB"' in recipe("duckdb", "sha256", hexdigest=False)
    assert "hexdigest=False" in recipe("helpers", "sha224", hexdigest=False)
    assert "pl.Binary" in recipe("polars", "sha224", hexdigest=False)
    assert squeezed("f(a,\n    b,\n)") == "f(a,b)"


@pytest.mark.parametrize("nulls", ["duckdb", "special"], ids=["duckdb-nulls", "our-nulls"])
@pytest.mark.parametrize("hexdigest", [True, False], ids=["hex", "binary"])
@pytest.mark.parametrize("name", ALGORITHMS)
def test_duckdb_sql_calls_a_vectorized_udf(name: str, hexdigest: bool, nulls: str) -> None:
    """The UDF as the README registers it (DuckDB keeps the nulls from it) and with
    ``null_handling="special"`` (the nulls reach digest_column, which gives them back)."""
    duckdb = engine("duckdb")
    pa = engine("pyarrow")
    values = rows()
    # Batches of 1,500 rows: DuckDB hands the UDF vectors of 2,048 rows from several.
    table = pa.table({"id": list(range(len(values))), "email": values})
    con = duckdb.connect()
    con.register("users", pa.Table.from_batches(table.to_batches(max_chunksize=1500)))
    namespace = prepared(name, hexdigest, con=con)
    register = recipe("duckdb", name, hexdigest)
    if nulls == "special":
        register = register.replace('type="arrow"', 'type="arrow", null_handling="special"')
    run(register, namespace)
    query = f"SELECT id, {name}_hex(email) FROM users ORDER BY id"
    got = [row[1] for row in con.sql(query).fetchall()]
    assert got == expected(name, values, hexdigest)
    if name == "md5" and hexdigest:  # the README's query; DuckDB's own md5 agrees
        assert sorted(run(RECIPES["duckdb-sql"], namespace).fetchall(), key=str) == sorted(
            [(h,) for h in got], key=str
        )
        same = con.sql("SELECT count(*) FROM users WHERE md5_hex(email) = md5(email)").fetchall()
        assert same == [(sum(v is not None for v in values),)]


@pytest.mark.parametrize("hexdigest", [True, False], ids=["hex", "binary"])
@pytest.mark.parametrize("name", ALGORITHMS)
def test_polars_map_batches(name: str, hexdigest: bool) -> None:
    pl = engine("polars")
    values = rows()
    # Three chunks: map_batches hands over a Series whose Arrow stream has three arrays.
    parts = [
        pl.DataFrame({"email": values[a:b]}) for a, b in ((0, 1000), (1000, 1001), (1001, None))
    ]
    df = pl.concat(parts, rechunk=False)
    assert df["email"].n_chunks() == 3
    namespace = prepared(name, hexdigest, df=df, pl=pl, pd=None)
    out = run(recipe("polars", name, hexdigest), namespace)
    assert out.schema[name] == (pl.String if hexdigest else pl.Binary)
    assert out[name].to_list() == expected(name, values, hexdigest)
    assert out["email"].to_list() == values


@pytest.mark.parametrize("name", ALGORITHMS)
def test_pandas_3_with_arrow_strings(name: str) -> None:
    pd = engine("pandas")
    engine("pyarrow")
    values = rows()
    df = pd.DataFrame({"email": values}, index=range(10, 10 + len(values)))
    dtype = df["email"].dtype
    assert getattr(dtype, "storage", None) == "pyarrow", f"not Arrow strings: {dtype!r}"
    run(recipe("pandas", name), prepared(name, df=df, pd=pd))
    assert df[name].dtype == dtype
    assert nulls_as_none(pd, df[name].tolist()) == expected(name, values, hexdigest=True)
    assert list(df.index) == list(range(10, 10 + len(values)))


def partition_pid(frame: Any) -> Any:
    """The frame with a column of the id of the process that computed it."""
    return frame.assign(pid=os.getpid())


def test_dask_distributed_workers_hash_a_partitioned_column() -> None:
    pd = engine("pandas")
    engine("pyarrow")
    dd = engine("dask.dataframe")
    distributed = engine("distributed")
    values = rows(20_000)
    frame = dd.from_pandas(pd.DataFrame({"email": values}), npartitions=6)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as client:
        workers = set(client.run(os.getpid).values())
        assert len(workers) == 2 and os.getpid() not in workers
        namespace = prepared("md5", ddf=frame, pd=pd)
        run(RECIPES["dask"], namespace)
        hashed = namespace["ddf"].map_partitions(partition_pid).compute()
    assert nulls_as_none(pd, hashed["md5"].tolist()) == expected("md5", values, hexdigest=True)
    assert set(hashed["pid"]) == workers  # both workers hashed partitions, this process none


def test_the_peer_benchmark_checks_and_times_a_tiny_column() -> None:
    """bench/product/peers.py on 300 rows, one round: every engine present is checked and timed."""
    engine("pyarrow")
    bench_package.load()
    peers = importlib.import_module("bench.product.peers")
    record = peers.run_threads(1, 300, 1, require_all=False)
    present = {name for name in peers.ENGINES if name not in record["missing"]}
    keys = set(record["cases"][0]["candidates"])
    assert {"hashlib/hex", "digest_many/binary", "digest_column/hex"} <= keys
    assert ("duckdb/hex" in keys) == ("duckdb" in present)
    assert ("chdb/hex" in keys) == ("chdb" in present)
    assert [(c["column"], c["algorithm"]) for c in record["cases"]] == [
        (shape, name) for shape in peers.SHAPES for name in peers.ALGORITHMS
    ]
    machine = {"cpu": "a CPU", "flags": peers.cpu_flags(), "date": "today"}
    text = peers.render([record], machine)
    assert "variants `digest_column(table['s'])`" in text and "300 rows" in text
    blocks = peers.render_all({"machine": machine, "classes": [
        {"name": "AVX-512", "forced": "", "runs": [record]},
        {"name": "AVX2 and SHA-NI", "forced": "md5-many=avx2-x16", "runs": [record]}]})  # fmt: skip
    both = "\n\n".join(blocks.values())
    assert "**Kernels: AVX-512** (this CPU's own)" in both
    assert (
        "**Kernels: AVX2 and SHA-NI** (forced: `VARIANTS_NATIVE_KERNELS=md5-many=avx2-x16`)" in both
    )
    # An AVX2 machine's write replaces the AVX2 class and keeps the AVX-512 one, which it
    # cannot measure, as another machine left it (its caption names that machine).
    page = f"intro\n{peers.START}\n{both}\n{peers.END}\nafter\n"
    own = {"AVX2 and SHA-NI": "**Kernels: AVX2 and SHA-NI** (this CPU's own)\n\nnew table"}
    section = peers.merged(page, own)
    assert section.startswith("**Kernels: AVX-512** (this CPU's own)")
    assert section.endswith("new table") and "forced" not in section
    assert section.count("**Kernels: ") == 2
    assert peers.merged("no section here", own) == own["AVX2 and SHA-NI"]


def test_the_peers_tables_are_of_every_kernel_class_this_cpu_runs() -> None:
    bench_package.load()
    peers = importlib.import_module("bench.product.peers")
    avx2 = next(force for name, _, force in peers.CLASSES if name.startswith("AVX2"))
    assert peers.classes({"AVX-512": True, "AVX2": True}) == [
        ("AVX-512", ""),
        ("AVX2 and SHA-NI", avx2),
    ]
    assert peers.classes({"AVX-512": False, "AVX2": True}) == [("AVX2 and SHA-NI", "")]
    assert peers.classes({}) == [("the CPU's own", "")]
