"""Every variant against hashlib: lengths, block boundaries, chunkings, input types."""

from __future__ import annotations

import array
import ctypes
import hashlib
import sys
from typing import Any, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Constructor, jdk_pattern

PYPY = sys.implementation.name == "pypy"
DATA = jdk_pattern((1 << 16) + 3)
SLOW = settings(
    deadline=None,
    max_examples=40,
    # the fixtures are constructors, the same for every example
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def reference(algorithm: str, data: bytes) -> bytes:
    return hashlib.new(algorithm, data).digest()


def test_every_length_to_300(constructor: Constructor, algorithm: str) -> None:
    for length in range(301):
        assert constructor(DATA[:length]).digest() == reference(algorithm, DATA[:length]), length


def test_powers_of_two_boundaries(constructor: Constructor, algorithm: str) -> None:
    for n in range(6, 15):
        for length in (2**n - 1, 2**n, 2**n + 1):
            assert constructor(DATA[:length]).digest() == reference(algorithm, DATA[:length])


@pytest.mark.parametrize("length", [64, 1024, 16384])
def test_jdk_pattern(constructor: Constructor, algorithm: str, length: int) -> None:
    data = jdk_pattern(length)
    assert constructor(data).digest() == reference(algorithm, data)


def test_byte_by_byte_and_block_by_block(constructor: Constructor, algorithm: str) -> None:
    data = DATA[:300]
    one, blocks = constructor(), constructor()
    for i in range(len(data)):
        one.update(data[i : i + 1])
    for i in range(0, len(data), 64):
        blocks.update(data[i : i + 64])
    assert one.digest() == blocks.digest() == reference(algorithm, data)


@SLOW
@given(data=st.binary(max_size=1500), cuts=st.lists(st.integers(0, 1500), max_size=12))
def test_random_chunking(
    constructor: Constructor, algorithm: str, data: bytes, cuts: List[int]
) -> None:
    h = constructor()
    edges = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    for start, end in zip(edges, edges[1:]):
        h.update(data[start:end])
    assert h.digest() == reference(algorithm, data)


@SLOW
@given(prefix=st.binary(max_size=200), rest=st.binary(max_size=200))
def test_copy_is_independent(
    constructor: Constructor, algorithm: str, prefix: bytes, rest: bytes
) -> None:
    h = constructor(prefix)
    c = h.copy()
    c.update(rest)
    assert h.digest() == reference(algorithm, prefix)
    assert c.digest() == reference(algorithm, prefix + rest)
    h.update(b"x")
    assert c.digest() == reference(algorithm, prefix + rest)
    assert type(c) is type(h)


def test_digest_does_not_end_the_hash(constructor: Constructor, algorithm: str) -> None:
    h = constructor(DATA[:100])
    first = h.digest()
    assert h.digest() == first
    assert h.hexdigest() == first.hex()
    h.update(DATA[100:200])
    assert h.digest() == reference(algorithm, DATA[:200])


def buffers() -> List[Any]:
    ints = array.array("I", range(40))
    doubles = array.array("d", [0.5] * 9)
    return [
        bytearray(DATA[:77]),
        memoryview(DATA)[3:150],
        memoryview(bytearray(DATA[:200]))[64:],
        ints,
        memoryview(ints)[5:],
        doubles,
        memoryview(DATA[:96]).cast("B", (8, 12)),
        memoryview(DATA[:64]).cast("I"),
        ctypes.c_uint32(0x01020304),
        (ctypes.c_char * 70).from_buffer_copy(DATA[:70]),
    ]


@pytest.mark.parametrize("index", range(len(buffers())))
def test_bytes_like_inputs(constructor: Constructor, algorithm: str, index: int) -> None:
    data = buffers()[index]
    raw = memoryview(data).tobytes()  # the bytes hashlib hashes, in C order
    assert constructor(data).digest() == reference(algorithm, raw)
    h = constructor(b"x")
    h.update(data)
    assert h.digest() == reference(algorithm, b"x" + raw)


def test_non_contiguous_buffer_like_hashlib(constructor: Constructor, algorithm: str) -> None:
    strided = memoryview(DATA[:100])[::3]
    try:
        expected = reference(algorithm, strided)  # type: ignore[arg-type]
    except BufferError as exc:
        with pytest.raises(BufferError, match=str(exc)):
            constructor(strided)
    else:  # PyPy 7.3's hashlib hashes the bytes of any buffer (PyPy 8 refuses, as CPython)
        assert PYPY
        assert constructor(strided).digest() == expected


def test_large_single_update(constructor: Constructor, algorithm: str) -> None:
    assert constructor(DATA).digest() == reference(algorithm, DATA)
