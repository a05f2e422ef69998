"""Whole columns: digest_column and md5_column, sha1_column, ..., on every variant.

Each row's digest is hashlib's, on every Arrow layout (binary, string, their
large and view forms, fixed_size_binary; sliced, with nulls, empty, chunked),
on NumPy arrays, and through the engines that take the result (pyarrow,
Polars, NumPy) without a copy. The native variant's C-API bridge reads the
columns in C (variants/native/column.c); the other variants loop.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib
import random
from typing import Any, List, Optional, Sequence

import pytest
from test_native import leak_check, rss_kib

import variants
from variants import registry
from variants.native import _kernels

from conftest import jdk_pattern, load_or_skip

np = pytest.importorskip("numpy", reason="numpy has no wheel for this interpreter")
try:
    pa: Any = importlib.import_module("pyarrow")
except ImportError:  # no wheel for PyPy (the test extra leaves it out there)
    pa = None
needs_arrow = pytest.mark.skipif(pa is None, reason="pyarrow has no wheel for this interpreter")

ALGORITHMS = list(_kernels.ALGORITHMS)
Rows = List[Optional[bytes]]


def expected(algorithm: str, rows: Sequence[Optional[bytes]], hexdigest: bool = False) -> List[Any]:
    def one(row: bytes) -> Any:
        h = hashlib.new(algorithm, row)
        return h.hexdigest() if hexdigest else h.digest()

    return [None if row is None else one(row) for row in rows]


def sample(count: int, longest: int = 200, nulls: bool = True, seed: int = 0) -> Rows:
    """``count`` rows of random lengths up to ``longest`` (every block boundary), some null."""
    rng = random.Random(seed)
    data = jdk_pattern(longest + 256)
    rows: Rows = [data[rng.randrange(256) :][: rng.randrange(longest + 1)] for _ in range(count)]
    if nulls:
        for i in range(0, count, 7):
            rows[i] = None
    return rows


@pytest.fixture(scope="module")
def native() -> registry.Loaded:
    """The native variant (the C-API bridge on CPython, cffi on PyPy)."""
    return load_or_skip("native")


BINARY_TYPES = {
    "binary": lambda: pa.binary(),
    "large_binary": lambda: pa.large_binary(),
    "binary_view": lambda: pa.binary_view(),
}
STRING_TYPES = {
    "string": lambda: pa.string(),
    "large_string": lambda: pa.large_string(),
    "string_view": lambda: pa.string_view(),
}


def ascii_rows(rows: Rows) -> List[Optional[str]]:
    return [None if r is None else r.hex()[: len(r)] for r in rows]


@pytest.mark.parametrize("layout", sorted(BINARY_TYPES))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@needs_arrow
def test_native_binary_layouts_agree_with_hashlib(
    native: registry.Loaded, algorithm: str, layout: str
) -> None:
    rows = sample(500)
    array = pa.array(rows, BINARY_TYPES[layout]())
    for hexdigest in (False, True):
        result = native.digest_column(algorithm, array, hexdigest=hexdigest)
        assert result.to_pylist() == expected(algorithm, rows, hexdigest)
        assert len(result) == len(rows) and result.null_count == rows.count(None)
        # sliced: a non-zero offset into every buffer
        part = native.digest_column(algorithm, array.slice(13, 300), hexdigest=hexdigest)
        assert part.to_pylist() == expected(algorithm, rows[13:313], hexdigest)


@pytest.mark.parametrize("layout", sorted(STRING_TYPES))
@needs_arrow
def test_native_string_layouts_hash_their_utf8(native: registry.Loaded, layout: str) -> None:
    texts = [*ascii_rows(sample(300)), "é", "日本語", ""]
    rows = [None if t is None else t.encode() for t in texts]
    array = pa.array(texts, STRING_TYPES[layout]())
    for algorithm in ALGORITHMS:
        column = functools.partial(native.digest_column, algorithm)
        assert column(array, hexdigest=True).to_pylist() == expected(algorithm, rows, True)
        assert column(array[5:]).to_pylist() == expected(algorithm, rows[5:])


@pytest.mark.parametrize("width", [0, 1, 16, 55, 56, 64, 65, 200])
@needs_arrow
def test_native_fixed_size_binary(native: registry.Loaded, width: int) -> None:
    rows: Rows = [bytes([i % 256]) * width for i in range(100)]
    rows[3] = None
    array = pa.array(rows, pa.binary(width))
    assert native.digest_column("md5", array).to_pylist() == expected("md5", rows)
    assert native.digest_column("sha256", array[1:]).to_pylist() == expected("sha256", rows[1:])


@needs_arrow
def test_native_empty_and_all_null_columns(native: registry.Loaded) -> None:
    for type_ in (pa.binary(), pa.string(), pa.large_binary(), pa.binary_view(), pa.binary(4)):
        empty = native.digest_column("md5", pa.array([], type_))
        assert len(empty) == 0 and empty.to_pylist() == []
        assert pa.array(empty).type == pa.binary(16)
        nulls = native.digest_column("sha256", pa.array([None, None], type_), hexdigest=True)
        assert nulls.to_pylist() == [None, None] and nulls.null_count == 2
        assert pa.array(nulls).to_pylist() == [None, None]
    assert np.asarray(native.digest_column("md5", np.zeros((0, 5), np.uint8))).shape == (0, 16)


@needs_arrow
def test_native_chunked_arrays_and_polars(native: registry.Loaded) -> None:
    rows = sample(400)
    parts = [rows[:150], rows[150:150], rows[150:]]
    chunked = pa.chunked_array([pa.array(part, pa.binary()) for part in parts])
    result = native.digest_column("sha224", chunked, hexdigest=True)
    assert result.to_pylist() == expected("sha224", rows, True)
    assert pa.chunked_array(result).to_pylist() == expected("sha224", rows, True)
    pl = pytest.importorskip("polars", reason="polars has no wheel for this interpreter")
    texts = ascii_rows(rows)
    series = pl.Series("s", texts)
    digests = native.digest_column("md5", series, hexdigest=True)
    encoded = [None if t is None else t.encode() for t in texts]
    assert pl.Series(digests).to_list() == expected("md5", encoded, True)
    # fixed_size_binary comes into Polars as its Binary
    assert pl.Series(native.digest_column("sha256", series)).to_list() == expected(
        "sha256", encoded
    )


def test_native_numpy_rows(native: registry.Loaded) -> None:
    fixed = np.frombuffer(jdk_pattern(37 * 50), np.uint8).reshape(50, 37)
    rows = [bytes(row) for row in fixed]
    assert native.digest_column("md5", fixed).to_pylist() == expected("md5", rows)
    # NumPy's S: each element without its trailing NULs, as NumPy shows it
    strings = np.array([b"ab", b"abc\0d", b"", b"x" * 70], dtype="S70")
    assert native.digest_column("sha256", strings).to_pylist() == expected(
        "sha256", list(strings.tolist())
    )


@needs_arrow
def test_native_results_are_taken_without_a_copy(native: registry.Loaded) -> None:
    rows = sample(100, nulls=False)
    result = native.digest_column("md5", pa.array(rows))
    view = np.asarray(result)
    assert view.shape == (100, 16) and view.dtype == np.uint8
    assert [bytes(row) for row in view] == expected("md5", rows)
    array = pa.array(result)
    assert array.type == pa.binary(16)
    assert array.buffers()[1].address == view.__array_interface__["data"][0]
    hex_result = native.digest_column("md5", pa.array(rows), hexdigest=True)
    strings = pa.array(hex_result)
    assert strings.type == pa.string()
    assert strings.buffers()[2].address == np.asarray(hex_result).__array_interface__["data"][0]
    assert np.asarray(hex_result).dtype == np.dtype("S32")
    del result, hex_result, view
    gc.collect()  # the arrays hold the digests after the columns are gone
    assert array.to_pylist() == expected("md5", rows)
    assert strings.to_pylist() == expected("md5", rows, True)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@needs_arrow
def test_native_results_are_as_wide_as_the_digest(native: registry.Loaded, algorithm: str) -> None:
    """fixed_size_binary(16, 20, 28, 32, 48 or 64), or hex strings of twice that."""
    size = hashlib.new(algorithm).digest_size
    rows = sample(40, nulls=False)
    result = native.digest_column(algorithm, pa.array(rows))
    assert result.digest_size == size and result.name == algorithm
    assert np.asarray(result).shape == (40, size)
    assert pa.array(result).type == pa.binary(size)
    hex_result = native.digest_column(algorithm, pa.array(rows), hexdigest=True)
    assert np.asarray(hex_result).dtype == np.dtype(f"S{2 * size}")
    assert pa.array(hex_result).to_pylist() == expected(algorithm, rows, True)


@needs_arrow
def test_native_threads_give_the_same_digests(native: registry.Loaded) -> None:
    rows = sample(3000, longest=1500, seed=3)
    array = pa.array(rows, pa.large_binary())
    one = native.digest_column("sha256", array).to_pylist()
    assert one == expected("sha256", rows)
    for threads in (2, 3, 0):
        assert native.digest_column("sha256", array, threads=threads).to_pylist() == one
    views = pa.array(rows, pa.binary_view())
    assert native.digest_column("md5", views, threads=4, hexdigest=True).to_pylist() == expected(
        "md5", rows, True
    )


@needs_arrow
def test_every_variant_agrees_with_hashlib(loaded: registry.Loaded) -> None:
    rows = sample(60)
    array = pa.array(rows)
    for algorithm in loaded.algorithms_available:
        result = loaded.digest_column(algorithm, array, hexdigest=True)
        assert result.to_pylist() == expected(algorithm, rows, True)
        assert pa.array(result).to_pylist() == expected(algorithm, rows, True)


def test_every_variant_takes_numpy_rows(loaded: registry.Loaded) -> None:
    fixed = np.frombuffer(jdk_pattern(30 * 8), np.uint8).reshape(8, 30)
    strings = np.array([b"ab", b"", b"x" * 9], dtype="S9")
    for algorithm in loaded.algorithms_available:
        result = loaded.digest_column(algorithm, fixed)
        assert result.to_pylist() == expected(algorithm, [bytes(r) for r in fixed])
        assert np.asarray(result).shape == (8, result.digest_size)
        hexes = loaded.digest_column(algorithm, strings, hexdigest=True)
        assert hexes.to_pylist() == expected(algorithm, list(strings.tolist()), True)
        assert len(hexes) == 3 and hexes.null_count == 0


SLICES = [
    slice(None),
    slice(1, -1),
    slice(None, None, -1),
    slice(2, None, 3),
    slice(-9, -2, 2),
    slice(5, 2),
    slice(-3, None),
    slice(None, 100),
]


def check_sequence(result: Any, wanted: List[Any], algorithm: str, hexdigest: bool) -> None:
    """``result`` is a sequence of ``wanted``: indices from both ends, slices (a column of
    the same kind), iteration, ``in``; what is not a row is not in it."""
    count = len(wanted)
    assert len(result) == count and list(result) == wanted
    assert [result[i] for i in range(-count, count)] == wanted + wanted
    for outside in (count, -count - 1):
        with pytest.raises(IndexError):
            result[outside]
    with pytest.raises(TypeError):
        result["0"]
    for where in SLICES:
        part = result[where]
        assert type(part) is type(result), where
        assert part.to_pylist() == wanted[where] and list(part) == wanted[where], where
        assert part.null_count == sum(w is None for w in wanted[where])
        assert (part.name, part.hexdigest) == (result.name, result.hexdigest)
    assert all(w in result for w in wanted)
    assert (None in result) == (None in wanted)
    absent = hashlib.new(algorithm, b"no row is this")
    assert (absent.hexdigest() if hexdigest else absent.digest()) not in result
    other = wanted[next(i for i, w in enumerate(wanted) if w is not None)]
    assert (other.encode() if hexdigest else other.hex()) not in result  # the other kind
    assert 1 not in result and b"" not in result


@needs_arrow
@pytest.mark.parametrize("hexdigest", [False, True])
def test_every_variant_result_is_a_sequence(loaded: registry.Loaded, hexdigest: bool) -> None:
    rows = sample(30)
    for algorithm in loaded.algorithms_available:
        result = loaded.digest_column(algorithm, pa.array(rows), hexdigest=hexdigest)
        check_sequence(result, expected(algorithm, rows, hexdigest), algorithm, hexdigest)


@needs_arrow
def test_native_slices_export_their_rows(native: registry.Loaded) -> None:
    """A slice is a column of its own: Arrow and NumPy see its rows only, and it outlives
    the column it was cut from."""
    rows = sample(40)
    result: Any = native.digest_column("sha256", pa.array(rows))
    part = result[3:30:4]
    del result
    gc.collect()
    wanted = expected("sha256", rows)[3:30:4]
    assert pa.array(part).to_pylist() == wanted
    assert np.asarray(part).shape == (len(wanted), 32)
    present = [w for w in wanted if w is not None]
    assert bytearray(present[0]) in part and memoryview(present[-1]) in part
    assert (None in part) == (None in wanted)
    assert (
        pa.array(native.digest_column("md5", pa.array(rows), hexdigest=True)[::-3]).to_pylist()
        == expected("md5", rows, True)[::-3]
    )


def test_list_column_is_a_sequence() -> None:
    """Where the C-API module is not built, the column made in Python is the same sequence."""
    from variants._column import ListColumn

    rows = sample(25)
    for hexdigest in (False, True):
        digests = expected("md5", rows)
        column = ListColumn("md5", digests, hexdigest)
        check_sequence(column, expected("md5", rows, hexdigest), "md5", hexdigest)


@needs_arrow
def test_the_drop_in_has_the_column_functions_of_native() -> None:
    rows = sample(20)
    assert variants.digest_column("SHA256", pa.array(rows)).to_pylist() == expected("sha256", rows)
    assert variants.md5_column(pa.array(rows), hexdigest=True).to_pylist() == expected(
        "md5", rows, True
    )
    assert variants.sha1_column(pa.array(rows)).to_pylist() == expected("sha1", rows)
    assert variants.sha512_column(pa.array(rows)).to_pylist() == expected("sha512", rows)


class Exporter:
    """An object with a fixed answer to __arrow_c_array__."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def __arrow_c_array__(self, requested_schema: Any = None) -> Any:
        return self.answer


@pytest.mark.parametrize(
    "column",
    [1, 1.5, [b"a", b"b"], (b"a",), "text", b"bytes", bytearray(b"x"), None, {"a": 1}],
    ids=lambda c: type(c).__name__,
)
def test_native_what_is_not_a_column_is_refused(native: registry.Loaded, column: object) -> None:
    with pytest.raises(TypeError, match=rf"takes .*Arrow array.* not {type(column).__name__}"):
        native.digest_column("md5", column)


@needs_arrow
def test_native_unsupported_arrow_arrays_are_refused(native: registry.Loaded) -> None:
    for array, given in [
        (pa.array([1, 2]), "'l'"),
        (pa.array([[1]]), "'\\+l'"),
        (pa.array([1.5]), "'g'"),
        (pa.array(["a", "a"]).dictionary_encode(), "dictionary"),
    ]:
        with pytest.raises(TypeError, match=f"not an Arrow array of format {given}|{given}"):
            native.digest_column("md5", array)
    with pytest.raises(ValueError, match=r"unsupported hash (type|algorithm) sha3_256"):
        native.digest_column("sha3_256", pa.array([b"a"]))
    with pytest.raises(ValueError, match="threads"):
        native.digest_column("md5", pa.array([b"a"]), threads=-1)
    with pytest.raises(TypeError, match="threads"):
        native.digest_column("md5", pa.array([b"a"]), threads=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="format 'd'"):
        native.digest_column("md5", np.zeros((2, 2)))
    with pytest.raises(ValueError, match="C-contiguous"):
        native.digest_column("md5", np.zeros((4, 4), np.uint8)[:, ::2])


@needs_arrow
def test_native_capsules_are_checked_and_consumed_once(native: registry.Loaded) -> None:
    schema, array = pa.array([b"abc"]).__arrow_c_array__()
    with pytest.raises(TypeError, match="PyCapsule named 'arrow_array', not 'arrow_schema'"):
        native.digest_column("md5", Exporter((array, schema)))
    with pytest.raises(TypeError, match="not a pair of PyCapsules"):
        native.digest_column("md5", Exporter(schema))
    once = Exporter((schema, array))
    assert native.digest_column("md5", once).to_pylist() == [hashlib.md5(b"abc").digest()]
    with pytest.raises(ValueError, match="consumed already"):
        native.digest_column("md5", once)


@leak_check
@needs_arrow
def test_native_many_small_columns_leak_nothing(native: registry.Loaded) -> None:
    """Columns made, exported to Arrow and NumPy and dropped, 400,000 in all: memory stays flat."""
    strings = pa.array(["abc", None, "a longer row of text than a block holds" * 2])
    fixed = np.zeros((3, 20), np.uint8)
    md5_column = functools.partial(native.digest_column, "md5")
    sha256_column = functools.partial(native.digest_column, "sha256")

    def run(rounds: int) -> None:
        for _ in range(rounds):
            a: Any = md5_column(strings, hexdigest=True)
            a.__arrow_c_array__()
            b: Any = sha256_column(fixed)
            b.__arrow_c_stream__()
            np.asarray(b)
            with contextlib.suppress(TypeError):
                md5_column(1)

    run(10_000)
    gc.collect()
    before = rss_kib()
    run(100_000)
    gc.collect()
    grown = rss_kib() - before
    # one leaked digest buffer or struct per column would be well over 20 MiB
    assert grown < 6 * 1024, f"RSS grew by {grown} KiB"
