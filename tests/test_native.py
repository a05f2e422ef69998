"""The native variant itself: kernels and their dispatch, the switch to the
portable kernels, the bytes-then-C state, threads, and random use against hashlib.

The hashlib-compatibility suite (test_agreement, test_behaviour, test_vectors)
covers the native variant too, through the registry; this file tests what is
particular to it. The sanitize session runs it against a build with
AddressSanitizer and UBSan.
"""

from __future__ import annotations

import hashlib
import io
import os
import platform
import subprocess
import sys
import threading
from types import ModuleType
from typing import Any, Callable, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from variants import registry
from variants._tables import MD5_IV, SHA256_IV
from variants.helpers import md5 as helpers_md5
from variants.helpers import sha256 as helpers_sha256

from conftest import jdk_pattern, load_or_skip, run_in_threads

ALGORITHMS = ["md5", "sha224", "sha256"]
IV = {"md5": MD5_IV, "sha256": SHA256_IV}
PURE = {"md5": helpers_md5.compress, "sha256": helpers_sha256.compress}
RANDOM = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def native() -> ModuleType:
    """variants.native, or a skip (a failure where every variant is required)."""
    load_or_skip("native")
    import variants.native

    return variants.native


def run_python(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter with ``env`` added; its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def cpu_flags() -> List[str]:
    """The CPU's feature flags as Linux reports them on x86 (empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return line.split(":", 1)[1].split()
    except OSError:
        pass
    return []


# ---- kernels and dispatch -------------------------------------------------


def test_describe_names_the_chosen_kernels(native: ModuleType) -> None:
    chosen = native.kernel()
    assert set(chosen) == {"md5", "sha256"}
    assert native.describe() == f"md5: {chosen['md5']}, sha256: {chosen['sha256']}"
    assert registry.load("native").details == native.describe()
    for core, kernels in native.kernels().items():
        assert kernels[0] == ("portable", True)  # the fallback, everywhere
        assert (chosen[core], True) in kernels  # only a kernel this CPU runs is chosen


def test_dispatch_picks_the_fastest_kernel_here(native: ModuleType) -> None:
    if os.environ.get(native.PORTABLE_ENV, "") not in ("", "0"):
        assert native.kernel() == {"md5": "portable", "sha256": "portable"}
        return
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the expectations below are x86-64's (tests/cross covers the others)")
    flags = cpu_flags()
    sha_ni = all(flag in flags for flag in ("sha_ni", "ssse3", "sse4_1"))
    assert native.kernel() == {
        "md5": "x86-64 scalar",
        "sha256": "x86-64 SHA-NI" if sha_ni else "portable",
    }


@pytest.mark.parametrize("value", ["1", "0"])
def test_environment_forces_the_portable_kernels(native: ModuleType, value: str) -> None:
    code = (
        "import hashlib, variants.native as n\n"
        "for algorithm in ('md5', 'sha224', 'sha256'):\n"
        "    for length in range(0, 300, 7):\n"
        "        data = bytes(range(256)) * 2\n"
        "        ours = n.constructors()[algorithm](data[:length]).digest()\n"
        "        assert ours == hashlib.new(algorithm, data[:length]).digest()\n"
        "print(n.describe())\n"
    )
    described = run_python(code, **{native.PORTABLE_ENV: value}).strip()
    if value == "1":
        assert described == "md5: portable, sha256: portable"
    else:  # the rule: the last kernel of each core this CPU runs
        fastest = {
            core: [n for n, usable in ks if usable][-1] for core, ks in native.kernels().items()
        }
        assert described == f"md5: {fastest['md5']}, sha256: {fastest['sha256']}"


def blocks_strategy() -> Any:
    """Whole blocks (1 to 6) at an offset (0 to 7) into their buffer."""
    return st.tuples(st.integers(1, 6), st.integers(0, 7)).flatmap(
        lambda shape: st.tuples(
            st.binary(min_size=64 * shape[0] + shape[1], max_size=64 * shape[0] + shape[1]),
            st.just(shape[1]),
        )
    )


@RANDOM
@given(blocks=blocks_strategy(), seed=st.lists(st.integers(0, 2**32 - 1), min_size=8, max_size=8))
def test_every_kernel_agrees_with_the_portable_one(
    native: ModuleType, blocks: Tuple[bytes, int], seed: List[int]
) -> None:
    buffer, offset = blocks
    data = memoryview(buffer)[offset:]  # misaligned on purpose
    for core, kernels in native.kernels().items():
        state = tuple(seed[: len(IV[core])])
        expected = native.block_function(core, "portable")(state, data)
        for name, usable in kernels:
            if usable:
                assert native.block_function(core, name)(state, data) == expected, name


@pytest.mark.parametrize("core", ["md5", "sha256"])
def test_block_functions_match_the_pure_python_ones(native: ModuleType, core: str) -> None:
    compress = native.block_functions()[core]
    data = memoryview(jdk_pattern(64 * 5))
    assert compress(IV[core], data) == PURE[core](IV[core], data)
    assert compress(IV[core], data[:0]) == IV[core]  # no blocks: the state unchanged
    with pytest.raises(ValueError, match="whole 64-byte blocks"):
        compress(IV[core], data[:100])


def test_block_function_refuses_unknown_kernels(native: ModuleType) -> None:
    with pytest.raises(ValueError, match="no md5 kernel"):
        native.block_function("md5", "no-such-kernel")
    for core, kernels in native.kernels().items():
        for name, usable in kernels:
            if not usable:
                with pytest.raises(ValueError, match="cannot run"):
                    native.block_function(core, name)


# ---- the state: bytes first, then C -------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_messages_around_the_pending_limit(native: ModuleType, algorithm: str) -> None:
    limit = native.PENDING_LIMIT
    data = jdk_pattern(3 * limit + 300)
    constructor = native.constructors()[algorithm]

    def reference(message: bytes) -> bytes:
        return hashlib.new(algorithm, message).digest()

    for length in (limit - 1, limit, limit + 1, 3 * limit):
        whole = constructor(data[:length])
        assert whole.digest() == whole.digest() == reference(data[:length])
        kept = whole.copy()
        whole.update(b"x")
        assert whole.digest() == reference(data[:length] + b"x")
        assert kept.digest() == reference(data[:length])
        # grown in bytes to just under, at and over the limit, then on in C
        h = constructor(data[:10])
        h.update(data[10:length])
        early = h.copy()
        h.update(data[length : length + 100])
        assert h.digest() == reference(data[: length + 100])
        assert early.digest() == reference(data[:length])
        h.update(bytearray(data[length + 100 : length + 300]))
        assert h.digest() == reference(data[: length + 300])
    # a whole message in the first update of an empty object is kept as the constructor keeps it
    for length in (limit + 1, 3 * limit):
        h = constructor()
        h.update(data[:length])
        assert h.digest() == h.digest() == reference(data[:length])
        h.update(b"y")
        assert h.digest() == reference(data[:length] + b"y")
    # a buffer that is not bytes moves the message to C at once
    h = constructor(b"abc")
    h.update(memoryview(b"def"))
    h.update(b"ghi")
    assert h.digest() == reference(b"abcdefghi")


def test_hash_types_are_made_by_their_constructors_only(native: ModuleType) -> None:
    """As with hashlib's HASH type, calling the type of a hash object is an error."""
    for name, constructor in native.constructors().items():
        h = constructor(b"abc")
        assert h.name == name and constructor.__name__ == name
        with pytest.raises(TypeError, match="cannot create"):
            type(h)()


def test_digests_are_plain_values(native: ModuleType) -> None:
    """Digests written by C into new bytes objects (on CPython) behave as values."""
    for constructor in native.constructors().values():
        for h in (constructor(b"abc"), constructor(bytes(5000)), constructor(bytearray(5))):
            first, second = h.digest(), h.digest()
            assert first == second and {first: 1}[second] == 1  # hashes as its value
            assert constructor(b"abc").digest() is not constructor(b"abc").digest()
            h.update(b"more")
            assert h.digest() != first and first == second  # not overwritten


def test_digest_through_a_cdata_buffer(native: ModuleType) -> None:
    """The digest path of interpreters where C does not fill bytes (PyPy's), here too."""
    code = (
        "import hashlib, sys, types\n"
        "sys.implementation = types.SimpleNamespace(**{**vars(sys.implementation), 'name': 'x'})\n"
        "import variants.native as n\n"
        "assert not n.FILLS_BYTES\n"
        "for algorithm in ('md5', 'sha224', 'sha256'):\n"
        "    for data in (b'abc', bytes(5000), bytearray(100)):\n"
        "        h = n.constructors()[algorithm](data)\n"
        "        assert h.digest() == h.digest() == hashlib.new(algorithm, data).digest()\n"
        "        h.update(b'x')\n"
        "        assert h.digest() == hashlib.new(algorithm, bytes(data) + b'x').digest()\n"
    )
    run_python(code)


CHUNK_KINDS: Dict[str, Callable[[bytes], object]] = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "offset view": lambda b: memoryview(b"#" + b)[1:],
    "BytesIO view": lambda b: io.BytesIO(b).getbuffer(),  # no fixed address on PyPy
}


@RANDOM
@given(
    data=st.binary(max_size=5000),
    cuts=st.lists(st.integers(0, 5000), max_size=16),
    kinds=st.lists(st.sampled_from(sorted(CHUNK_KINDS)), min_size=17, max_size=17),
    algorithm=st.sampled_from(ALGORITHMS),
)
def test_random_updates_against_hashlib(
    native: ModuleType, data: bytes, cuts: List[int], kinds: List[str], algorithm: str
) -> None:
    """Random chunkings and buffer kinds, with digests and copies along the way."""
    ours, theirs = native.constructors()[algorithm](), hashlib.new(algorithm)
    copies: List[Tuple[Any, Any]] = []
    edges = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    for i, (start, end) in enumerate(zip(edges, edges[1:])):
        chunk = data[start:end]
        ours.update(CHUNK_KINDS[kinds[i]](chunk))
        theirs.update(chunk)
        assert ours.digest() == theirs.digest()
        if i % 3 == 0:
            copies.append((ours.copy(), theirs.copy()))
    for our_copy, their_copy in copies:
        our_copy.update(b"tail")
        their_copy.update(b"tail")
        assert our_copy.hexdigest() == their_copy.hexdigest()
    assert ours.digest() == theirs.digest()


# ---- threads -------------------------------------------------------------------


@pytest.mark.parametrize("chunk_size", [10, 300, 5000])
def test_threads_racing_on_new_objects(native: ModuleType, chunk_size: int) -> None:
    """First updates from several threads at once, while the message moves to C."""
    chunk = jdk_pattern(chunk_size)
    threads, rounds, objects = 4, 6, 20
    for algorithm in ALGORITHMS:
        hashes = [native.constructors()[algorithm](b"start") for _ in range(objects)]
        barrier = threading.Barrier(threads)

        def work(hashes: List[Any] = hashes, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            for h in hashes:
                for _ in range(rounds):
                    h.update(chunk)

        run_in_threads(work, threads)
        expected = hashlib.new(algorithm, b"start" + chunk * (threads * rounds)).digest()
        assert all(h.digest() == expected for h in hashes)


def test_digests_and_copies_while_other_threads_update(native: ModuleType) -> None:
    """Every digest taken during updates is the digest of a whole number of chunks."""
    chunk = jdk_pattern(700)
    threads, rounds = 3, 30
    h = native.md5()
    prefixes = {hashlib.md5(chunk * k).digest() for k in range(threads * rounds + 1)}
    seen: List[bytes] = []
    done = threading.Event()

    def update() -> None:
        for _ in range(rounds):
            h.update(chunk)

    def observe() -> None:
        while not done.is_set():
            seen.append(h.digest())
            seen.append(h.copy().digest())

    observer = threading.Thread(target=observe)
    observer.start()
    workers = [threading.Thread(target=update) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    done.set()
    observer.join()
    assert h.digest() == hashlib.md5(chunk * (threads * rounds)).digest()
    assert set(seen) <= prefixes


# ---- the registry and the drop-in --------------------------------------------------


def test_registered_first_so_the_drop_in_prefers_it(native: ModuleType) -> None:
    entry = registry.variant("native")
    assert registry.names()[0] == "native"
    assert entry.kind == "native" and entry.provider == "variants.native"
    assert set(entry.algorithms) == set(ALGORITHMS)
    if not os.environ.get(registry.DEFAULT_ENV):
        import variants

        assert variants.default_variant.name == "native"
        assert isinstance(variants.md5(b""), native.NativeHash)
