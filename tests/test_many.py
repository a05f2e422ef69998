"""Many messages at once: digest_many and md5_many, sha1_many, ..., on every variant.

The native variant runs them in SIMD lanes (variants/native/many.c), every
many-kernel of this CPU forced in turn here; the others loop. Either way the
result is a hashlib list comprehension's.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, List, Optional, Tuple

import pytest
from test_native import leak_check, rss_kib

import variants
from variants import _many, registry
from variants.native import Bridge, _kernels

from conftest import BRIDGES, bridge_module, jdk_pattern, load_or_skip

ALGORITHMS = list(_kernels.ALGORITHMS)
#: Batch sizes around every lane count a kernel has (8, 16, 32; 2 and 4 on AArch64).
COUNTS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 1000]
CORE = _kernels.MANY_CORE


def expected(algorithm: str, messages: List[bytes], hexdigest: bool = False) -> List[object]:
    digests = [hashlib.new(algorithm, message) for message in messages]
    return [d.hexdigest() if hexdigest else d.digest() for d in digests]


def mixed(count: int, longest: int = 300, seed: int = 0) -> List[bytes]:
    """``count`` messages of random lengths up to ``longest``, each its own bytes."""
    rng = random.Random(seed)
    data = jdk_pattern(longest + 256)
    return [data[rng.randrange(256) :][: rng.randrange(longest + 1)] for _ in range(count)]


def test_every_variant_agrees_with_hashlib(loaded: registry.Loaded) -> None:
    messages = mixed(300)
    for algorithm in loaded.algorithms_available:
        assert loaded.digest_many(algorithm, messages) == expected(algorithm, messages)
        many = getattr(loaded, f"{algorithm}_many")
        assert many(messages[:40], hexdigest=True) == expected(algorithm, messages[:40], True)
        assert many(iter(messages[:5]), threads=2) == expected(algorithm, messages[:5])


@pytest.fixture(scope="module", params=BRIDGES)
def bridge(request: pytest.FixtureRequest) -> Bridge:
    """The bridge of each native variant, as ``Loaded.bridge`` gives it."""
    bridge = load_or_skip(request.param).bridge
    assert bridge is not None
    return bridge


@pytest.fixture(scope="module", params=BRIDGES)
def module(request: pytest.FixtureRequest) -> ModuleType:
    """The bridge module of each native variant, to force its many-kernels."""
    return bridge_module(request.param)


def kernel_ids(bridge: ModuleType, algorithm: str) -> List[str]:
    """The many-kernels of ``algorithm`` this CPU runs."""
    return [k.id for k in bridge.kernels()[CORE[algorithm]] if k.usable]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_many_kernel_on_every_batch_shape(module: ModuleType, algorithm: str) -> None:
    """Batch sizes around the lane counts; mixed, equal and padding-edge lengths."""
    shapes = {
        "mixed": [mixed(count, seed=count) for count in COUNTS],
        "equal": [
            [jdk_pattern(length)] * 40
            for length in (0, 1, 55, 56, 63, 64, 65, 111, 112, 119, 127, 128, 129, 255, 256)
        ],
        "growing": [[jdk_pattern(n) for n in range(300)]],
    }
    for kernel in kernel_ids(module, algorithm):
        for name, batches in shapes.items():
            for messages in batches:
                got = module.digest_many_with(kernel, algorithm, messages)
                assert got == expected(algorithm, messages), (kernel, name, len(messages))


@pytest.mark.parametrize("algorithm", ["md5", "sha256", "sha1", "sha512"])
def test_long_and_short_messages_together(module: ModuleType, algorithm: str) -> None:
    """Random lengths up to 1 MiB: lanes finish at different times and take the next message."""
    rng = random.Random(7)
    data = jdk_pattern((1 << 20) + 64)
    messages = [data[rng.randrange(64) :][: rng.choice([0, 5, 64, 1000, 70000, 1 << 20])]]
    messages += [data[: rng.randrange(1 << 20)] for _ in range(12)] + mixed(50)
    rng.shuffle(messages)
    for kernel in kernel_ids(module, algorithm):
        assert module.digest_many_with(kernel, algorithm, messages) == expected(algorithm, messages)


class Subclass(bytes):
    """A bytes subclass: read through the buffer protocol, as any other buffer."""


def every_kind(count: int, seed: int) -> List[Any]:
    """``count`` messages of lengths around one and two padded blocks and longer, as bytes
    (most of them, as a list of bytes is), bytearray, memoryview and a bytes subclass."""
    rng = random.Random(seed)
    data = jdk_pattern(512)
    kinds = [bytes] * 6 + [bytearray, memoryview, Subclass]
    lengths = [0, 1, 31, 32, 55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129, 200]
    return [
        rng.choice(kinds)(data[rng.randrange(256) :][: rng.choice(lengths)]) for _ in range(count)
    ]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_kind_of_message_across_windows(module: ModuleType, algorithm: str) -> None:
    """More messages than one of C's windows (4096): the short bytes are padded in place of
    their objects, the others (longer, or not bytes) take the scheduler; each digest lands
    at its message's index, with every many-kernel, binary and hex."""
    messages = every_kind(9000, seed=len(algorithm))
    reference = [bytes(m) for m in messages]
    for kernel in kernel_ids(module, algorithm):
        for hexdigest in (False, True):
            got = module.digest_many_with(kernel, algorithm, messages, hexdigest)
            assert got == expected(algorithm, reference, hexdigest), (kernel, hexdigest)


def arena_allocator() -> Tuple[Optional[int], ...]:
    """CPython's arena allocator (context, alloc, free), by ctypes (None elsewhere)."""
    if not hasattr(ctypes, "pythonapi"):
        return (None,)
    fields = (ctypes.c_void_p * 3)()
    ctypes.pythonapi.PyObject_GetArenaAllocator(fields)
    return tuple(fields)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_large_batch_of_short_messages(bridge: Bridge, algorithm: str) -> None:
    """Enough rows (70,000) that C makes the result objects in arenas it maps in ahead
    (capi_many.c: prefault_begin), in pages of 2 MiB where it can; binary (each digest
    written into its object) and hex, with every kind of message among the short ones,
    and the objects are the usual ones."""
    rng = random.Random(5)
    messages = [rng.randbytes(rng.choice([32, 60])) for _ in range(70_000)]
    messages[::97] = every_kind(len(messages[::97]), seed=6)
    before = arena_allocator()
    for hexdigest in (False, True):
        got = bridge.digest_many(algorithm, messages, hexdigest, 1)
        assert got == expected(algorithm, [bytes(m) for m in messages], hexdigest)
        assert {type(d) for d in got} == {str if hexdigest else bytes}
        assert arena_allocator() == before  # put back


@leak_check
@pytest.mark.skipif(
    sys.implementation.name != "cpython", reason="CPython's arenas (PyPy's GC frees when it runs)"
)
def test_large_batches_give_their_memory_back(bridge: Bridge) -> None:
    """The arenas carved from pages of ours go back to the system with their objects: ten
    batches of 15 MB of digests, each freed, leave the process as large as it was (within 8 MiB)."""
    messages = [bytes([i & 255]) * 32 for i in range(150_000)]
    bridge.digest_many("sha512", messages, False, 1)
    before = rss_kib()
    for _ in range(10):
        got = bridge.digest_many("sha512", messages, False, 1)
        assert len(got) == len(messages)
        del got
    assert rss_kib() - before < 8 << 10


@pytest.mark.skipif(
    not hasattr(sys, "getrefcount"), reason="PyPy has no reference counts to compare"
)
def test_the_messages_are_left_as_they_were(bridge: Bridge) -> None:
    """No reference to a message is kept or lost, after a result or an error."""
    messages = [m for m in every_kind(6000, seed=1) if len(m) > 1]  # b"", b"x": shared
    bad: List[Any] = [*messages[:4500], memoryview(b"abcdef")[::2], *messages[4500:]]
    before = [sys.getrefcount(m) for m in messages]
    for _ in range(3):
        for algorithm in ALGORITHMS:
            assert len(bridge.digest_many(algorithm, messages, False, 1)) == len(messages)
            with pytest.raises(BufferError, match=r"messages\[4500\]"):
                bridge.digest_many(algorithm, bad, True, 1)
    assert [sys.getrefcount(m) for m in messages] == before


@pytest.mark.parametrize("threads", [0, 1, 2, 3, 7])
def test_threads_give_the_same_list(module: ModuleType, threads: int) -> None:
    messages = mixed(500, longest=5000) + [jdk_pattern(300_000)] * 3
    for algorithm in ALGORITHMS:
        digests = expected(algorithm, messages)
        count = threads or 2
        assert module.digest_many_with(None, algorithm, messages, False, count) == digests


def test_buffers_of_every_kind(loaded: registry.Loaded) -> None:
    data = jdk_pattern(200)
    messages: List[Any] = [data, bytearray(data), memoryview(data)[3:], memoryview(data).cast("I")]
    for algorithm in loaded.algorithms_available:
        reference = [bytes(memoryview(m).cast("B")) for m in messages]
        assert loaded.digest_many(algorithm, messages) == expected(algorithm, reference)


def raising(messages: List[bytes], after: int) -> Iterator[bytes]:
    yield from messages[:after]
    raise RuntimeError("the generator gave up")


@pytest.mark.parametrize(
    "bad",
    ["text", None, 42, object()],
    ids=lambda bad: type(bad).__name__,
)
def test_a_bad_message_is_hashlibs_error_naming_its_index(
    loaded: registry.Loaded, bad: object
) -> None:
    try:
        hashlib.md5(bad)  # type: ignore[arg-type]
    except TypeError as exc:
        message = str(exc)
    good = mixed(10)
    for algorithm in loaded.algorithms_available:
        for index in (0, 3, 10):
            messages: List[object] = [*good[:index], bad, *good[index:]]
            with pytest.raises(TypeError) as raised:
                loaded.digest_many(algorithm, messages)
            assert str(raised.value) == f"messages[{index}]: {message}"
        # far into a batch longer than one of C's windows
        long_batch: List[object] = [*mixed(5000), bad]
        with pytest.raises(TypeError, match=r"messages\[5000\]"):
            loaded.digest_many(algorithm, long_batch)


def test_a_str_gets_the_running_hashlibs_own_words(
    loaded: registry.Loaded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hashlib's words for a str differ between releases (Debian 11's CPython 3.9.2: "Unicode-
    objects must be encoded before hashing", later ones "Strings must ..."): every variant,
    the C-API bridge's checks included, says the running hashlib's, not words of its own."""
    words = "Unicode-objects must be encoded before hashing"
    real = hashlib.sha256

    def older(data: object = b"", **kwargs: Any) -> Any:
        if isinstance(data, str):
            raise TypeError(words)
        return real(data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hashlib, "sha256", older)
    for algorithm in loaded.algorithms_available:
        with pytest.raises(TypeError) as raised:
            loaded.digest_many(algorithm, [b"a", "text"])
        assert str(raised.value) == f"messages[1]: {words}"
        with pytest.raises(TypeError, match=words):
            loaded.new(algorithm, "text")


def test_a_generator_that_raises_gives_no_result(loaded: registry.Loaded) -> None:
    for algorithm in loaded.algorithms_available:
        with pytest.raises(RuntimeError, match="gave up"):
            loaded.digest_many(algorithm, raising(mixed(20), 12))


def test_arguments_are_checked(loaded: registry.Loaded) -> None:
    with pytest.raises(ValueError, match=r"unsupported hash (type|algorithm) sha3_256"):
        loaded.digest_many("sha3_256", [b"x"])
    algorithm = sorted(loaded.algorithms_available)[0]
    with pytest.raises(ValueError):
        loaded.digest_many(algorithm, [b"x"], threads=-1)
    with pytest.raises(TypeError):
        loaded.digest_many(algorithm, [b"x"], threads=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        loaded.digest_many(algorithm, [b"x"], True)  # type: ignore[call-arg]  # keywords only


def test_the_drop_in_has_them() -> None:
    messages = mixed(100)
    for algorithm in ALGORITHMS:
        digests = expected(algorithm, messages)
        assert variants.digest_many(algorithm.upper(), messages) == digests
        assert getattr(variants, f"{algorithm}_many")(messages) == digests


def test_streams_through_the_lanes(bridge: Bridge) -> None:
    """absorb_many: several objects, each fed its own chunks, as update() would feed them."""
    rng = random.Random(3)
    data = jdk_pattern(400_000)
    cores = (
        ["md5"] * 5,
        ["sha224", "sha256", "sha256"],
        ["sha1"] * 4,
        ["sha384", "sha512", "sha512_224", "sha512_256", "sha512"],
    )
    for algorithms in cores:
        hashes = [bridge.constructors()[a](data[: rng.randrange(100)]) for a in algorithms]
        references = [h.copy() for h in hashes]
        for _ in range(6):
            chunks = [data[: rng.choice([0, 1, 63, 64, 65, 5000, 131072])] for _ in hashes]
            bridge.absorb_many(hashes, chunks)
            for reference, chunk in zip(references, chunks):
                reference.update(chunk)
            assert [h.digest() for h in hashes] == [r.digest() for r in references]
    md5 = bridge.constructors()["md5"]()
    with pytest.raises(ValueError, match="twice"):
        bridge.absorb_many([md5, md5], [b"a", b"b"])
    for other in ("sha256", "sha1", "sha512"):
        with pytest.raises(ValueError, match="one core can share"):
            bridge.absorb_many([md5, bridge.constructors()[other]()], [b"a", b"b"])
    sha1, sha256 = bridge.constructors()["sha1"](), bridge.constructors()["sha256"]()
    with pytest.raises(ValueError, match="one core can share"):
        bridge.absorb_many([sha1, sha256], [b"a", b"b"])
    with pytest.raises(TypeError, match=r"chunks\[1\]"):
        bridge.absorb_many([md5, bridge.constructors()["md5"]()], [b"a", "text"])
    with pytest.raises(TypeError, match=r"hashes\[1\] is not a native hash object"):
        bridge.absorb_many([md5, hashlib.md5()], [b"a", b"b"])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_digest_files_reads_small_regular_files(
    bridge: Bridge, algorithm: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """digest_files: a digest for each small regular file, an errno for one that cannot be
    opened, None for the rest (too large, not a regular file), in the order of the names."""
    monkeypatch.setattr(_many, "BATCH_BYTES", 250)  # several batches (the Python reader)
    sizes = [0, 1, 64, 99, 100, 101, 3, 100]
    for i, size in enumerate(sizes):
        (tmp_path / str(i)).write_bytes(jdk_pattern(size + i)[i:])
    (tmp_path / "folder").mkdir()
    names = [os.fsencode(tmp_path / n) for n in ["0", "folder", "1", "missing", *"234567"]]
    for threads in (1, 2):
        got = bridge.digest_files(algorithm, names, 100, threads)
        want: List[object] = []
        for name in names:
            path = Path(os.fsdecode(name))
            if not path.exists():
                want.append(errno.ENOENT)
            elif path.is_file() and path.stat().st_size <= 100:
                want.append(hashlib.new(algorithm, path.read_bytes()).digest())
            else:
                want.append(None)
        assert got == want
