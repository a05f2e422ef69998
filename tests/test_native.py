"""The native variant itself, through both bridges: kernels and their dispatch, the switch to
the portable kernels, each bridge's object, threads, leaks, and random use against hashlib.

The hashlib-compatibility suite (test_agreement, test_behaviour, test_vectors)
covers ``native`` and ``native-cffi`` too, through the registry; this file tests
what is particular to them. The sanitize session runs it against builds with
AddressSanitizer and UBSan.
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
import platform
import subprocess
import sys
import sysconfig
import threading
from types import ModuleType
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from variants import registry
from variants._shell import ALGORITHMS as SPECS
from variants.helpers import md5 as helpers_md5
from variants.helpers import sha256 as helpers_sha256
from variants.native import _kernels

from conftest import BRIDGES, bridge_module, jdk_pattern, run_in_threads

ALGORITHMS = list(_kernels.ALGORITHMS)
#: The single-message cores, by the algorithm whose IV starts them.
IV = {core: SPECS[core].iv for core in ("md5", "sha256", "sha1", "sha512")}
PURE = {"md5": helpers_md5.compress, "sha256": helpers_sha256.compress}
#: Each core's block size.
BLOCK = {core: SPECS[core].block_size for core in IV}
RANDOM = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PORTABLE_ENV = "VARIANTS_NATIVE_PORTABLE"
CPYTHON = sys.implementation.name == "cpython"
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


@pytest.fixture(scope="module", params=BRIDGES)
def native(request: pytest.FixtureRequest) -> ModuleType:
    """The bridge module of each native variant."""
    return bridge_module(request.param)


@pytest.fixture(scope="module")
def cffi_bridge() -> ModuleType:
    """The cffi wrapper: ``native`` on PyPy, ``native-cffi`` on CPython."""
    name = "native-cffi" if CPYTHON else "native"
    module = bridge_module(name)
    assert module.__name__ == "variants.native.cffi_wrapper"
    return module


@pytest.fixture(scope="module")
def capi() -> ModuleType:
    """The C-API bridge (CPython only)."""
    if not CPYTHON:
        pytest.skip("the C-API bridge is CPython's")
    module = bridge_module("native")
    assert module.__name__ == "variants.native.capi"
    return module


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


CORES = ["md5", "sha256", "md5-many", "sha256-many", "sha1", "sha512", "sha1-many", "sha512-many"]


def test_describe_names_the_chosen_kernels(native: ModuleType) -> None:
    chosen = native.kernel()
    assert list(chosen) == CORES
    assert native.describe() == ", ".join(f"{core}: {chosen[core]}" for core in CORES)
    names = [n for n in BRIDGES if registry.variant(n).bridge == native.__name__]
    assert registry.load(names[0]).details == native.describe()
    for core, kernels in native.kernels().items():
        assert kernels[0].id == "portable" and kernels[0].usable  # the fallback, everywhere
        usable = [k.name for k in kernels if k.usable]
        assert chosen[core] in usable  # only a kernel this CPU runs is chosen
        assert len({k.id for k in kernels}) == len(kernels)


def expected_on_x86(flags: List[str]) -> Dict[str, str]:
    """The ids dispatch must choose on an x86-64 CPU with these flags (dispatch.c's order)."""
    sha_ni = all(flag in flags for flag in ("sha_ni", "ssse3", "sse4_1"))
    avx2 = "avx2" in flags
    avx512 = all(f"avx512{part}" in flags for part in ("f", "vl", "bw"))
    many_sha = "avx512-shani" if avx512 and sha_ni else "shani-x2" if sha_ni else None
    return {
        "md5": "amd64",
        "sha256": "shani" if sha_ni else "portable",
        "md5-many": "avx512-x32" if avx512 else "avx2-x16" if avx2 else "portable",
        "sha256-many": many_sha or ("avx512-x16" if avx512 else "avx2-x8" if avx2 else "portable"),
        "sha1": "shani" if sha_ni else "portable",
        "sha512": "sha512"
        if avx2 and "sha512" in flags
        else "avx2-asm"
        if avx2 and {"bmi1", "bmi2"} <= set(flags)
        else "portable",
        "sha1-many": many_sha or ("avx512-x16" if avx512 else "avx2-x8" if avx2 else "portable"),
        "sha512-many": "avx512-x8" if avx512 else "avx2-x4" if avx2 else "portable",
    }


def chosen_ids(native: ModuleType) -> Dict[str, str]:
    kernels = native.kernels()
    names = native.kernel()
    return {core: next(k.id for k in kernels[core] if k.name == names[core]) for core in CORES}


def test_dispatch_picks_the_fastest_kernel_here(native: ModuleType) -> None:
    if os.environ.get(PORTABLE_ENV, "") not in ("", "0"):
        assert set(chosen_ids(native).values()) == {"portable"}
        return
    # the rule: the last kernel of each core this CPU runs
    last = {core: [k.id for k in ks if k.usable][-1] for core, ks in native.kernels().items()}
    assert chosen_ids(native) == last
    if platform.machine() in ("x86_64", "AMD64"):
        assert chosen_ids(native) == expected_on_x86(cpu_flags())


@pytest.mark.parametrize("value", ["1", "0"])
def test_environment_forces_the_portable_kernels(native: ModuleType, value: str) -> None:
    code = (
        f"import hashlib, {native.__name__} as n\n"
        "for algorithm in n.constructors():\n"
        "    for length in range(0, 300, 7):\n"
        "        data = bytes(range(256)) * 2\n"
        "        ours = n.constructors()[algorithm](data[:length]).digest()\n"
        "        assert ours == hashlib.new(algorithm, data[:length]).digest()\n"
        "print(n.describe())\n"
    )
    described = run_python(code, **{PORTABLE_ENV: value}).strip()
    kernels = native.kernels()
    if value == "1":
        names = {core: kernels[core][0].name for core in CORES}
    else:  # the rule: the last kernel of each core this CPU runs
        names = {core: [k.name for k in ks if k.usable][-1] for core, ks in kernels.items()}
    assert described == ", ".join(f"{core}: {names[core]}" for core in CORES)


def test_environment_forces_each_kernel_by_id(native: ModuleType) -> None:
    """VARIANTS_NATIVE_KERNELS=core=id,... chooses those kernels; an unknown id or one this
    CPU cannot run makes the import fail, saying which."""
    code = (
        f"import hashlib, {native.__name__} as n\n"
        "data = bytes(range(256)) * 3\n"
        "messages = [data[:k] for k in range(0, 700, 11)]\n"
        "for algorithm in n.constructors():\n"
        "    expected = [hashlib.new(algorithm, m).digest() for m in messages]\n"
        "    assert [n.constructors()[algorithm](m).digest() for m in messages] == expected\n"
        "    assert n.digest_many(algorithm, messages, False, 1) == expected\n"
        "print(n.describe())\n"
    )
    kernels = native.kernels()
    for core in CORES:
        for kernel in kernels[core]:
            if not kernel.usable:
                continue
            described = run_python(code, VARIANTS_NATIVE_KERNELS=f"{core}={kernel.id}")
            assert f"{core}: {kernel.name}" in described.strip().split(", ")
    result = subprocess.run(
        [sys.executable, "-c", f"import {native.__name__}"],
        env={**os.environ, "VARIANTS_NATIVE_KERNELS": "md5=no-such-kernel"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "no-such-kernel" in result.stderr


def blocks_strategy() -> Any:
    """Whole blocks (1 to 6 of 128 bytes: 2 to 12 of 64) at an offset (0 to 7) into their
    buffer."""
    return st.tuples(st.integers(1, 6), st.integers(0, 7)).flatmap(
        lambda shape: st.tuples(
            st.binary(min_size=128 * shape[0] + shape[1], max_size=128 * shape[0] + shape[1]),
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
    for core in IV:
        words = seed if BLOCK[core] == 64 else [a << 32 | b for a, b in zip(seed, seed[::-1])]
        state = tuple(words[: len(IV[core])])
        expected = native.block_function(core, "portable")(state, data)
        for kernel in native.kernels()[core]:
            if kernel.usable:
                assert native.block_function(core, kernel.id)(state, data) == expected, kernel


@pytest.mark.parametrize("core", ["md5", "sha256"])
def test_block_functions_match_the_pure_python_ones(native: ModuleType, core: str) -> None:
    compress = native.block_functions()[core]
    data = memoryview(jdk_pattern(64 * 5))
    assert compress(IV[core], data) == PURE[core](IV[core], data)
    assert compress(IV[core], data[:0]) == IV[core]  # no blocks: the state unchanged
    with pytest.raises(ValueError, match="whole 64-byte blocks"):
        compress(IV[core], data[:100])


def padded(message: bytes, block: int) -> bytes:
    """``message`` padded for a Merkle-Damgard core of big-endian lengths (SHA-1, SHA-2)."""
    field = block // 8  # the length's bytes: 8, or 16 for 128-byte blocks
    zeros = (-len(message) - 1 - field) % block
    return message + b"\x80" + bytes(zeros) + (8 * len(message)).to_bytes(field, "big")


@pytest.mark.parametrize("algorithm", ["sha1", "sha384", "sha512", "sha512_224", "sha512_256"])
def test_block_functions_of_the_new_cores_give_hashlibs_digests(
    native: ModuleType, algorithm: str
) -> None:
    """SHA-1's and the SHA-512 core's block functions (no pure-Python twin to compare with),
    run over a padded message from the algorithm's IV, end in hashlib's digest; a length
    that is not whole blocks is refused."""
    spec = SPECS[algorithm]
    compress = native.block_functions()[spec.core]
    size = 4 if spec.block_size == 64 else 8
    for length in (0, 3, spec.block_size - 17, spec.block_size, 1000):
        message = jdk_pattern(length)
        state = compress(spec.iv, memoryview(padded(message, spec.block_size)))
        digest = b"".join(word.to_bytes(size, "big") for word in state)[: spec.digest_size]
        assert digest == hashlib.new(algorithm, message).digest(), length
    with pytest.raises(ValueError, match=f"whole {spec.block_size}-byte blocks"):
        compress(spec.iv, memoryview(bytes(spec.block_size + 32)))


def test_block_function_refuses_unknown_kernels(native: ModuleType) -> None:
    with pytest.raises(ValueError, match="no md5 kernel"):
        native.block_function("md5", "no-such-kernel")
    for core in IV:
        for kernel in native.kernels()[core]:
            if not kernel.usable:
                with pytest.raises(ValueError, match="cannot run"):
                    native.block_function(core, kernel.id)


# ---- the cffi wrapper's state: bytes first, then C ------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_messages_around_the_pending_limit(cffi_bridge: ModuleType, algorithm: str) -> None:
    limit = cffi_bridge.PENDING_LIMIT
    data = jdk_pattern(3 * limit + 300)
    constructor = cffi_bridge.constructors()[algorithm]

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
    # a buffer that is not bytes moves the message to C at once
    h = constructor(b"abc")
    h.update(memoryview(b"def"))
    h.update(b"ghi")
    assert h.digest() == reference(b"abcdefghi")


# ---- both bridges' objects --------------------------------------------------------


def test_hash_types_are_made_by_their_constructors_only(native: ModuleType) -> None:
    """As with hashlib's HASH type, calling the type of a hash object is an error."""
    for name, constructor in native.constructors().items():
        h = constructor(b"abc")
        assert h.name == name and constructor.__name__ == name
        with pytest.raises(TypeError, match="cannot create"):
            type(h)()


def test_digests_are_plain_values(native: ModuleType) -> None:
    """Digests are new objects, never overwritten by later updates."""
    for constructor in native.constructors().values():
        for h in (constructor(b"abc"), constructor(bytes(5000)), constructor(bytearray(5))):
            first, second = h.digest(), h.digest()
            assert first == second and {first: 1}[second] == 1  # hashes as its value
            assert constructor(b"abc").digest() is not constructor(b"abc").digest()
            h.update(b"more")
            assert h.digest() != first and first == second  # not overwritten


def test_buffers_are_released(native: ModuleType) -> None:
    """A bytearray can be resized after being hashed, and after a refused update."""
    for constructor in native.constructors().values():
        data = bytearray(jdk_pattern(3000))
        h = constructor(data)
        h.update(data)
        # the test's own views are released by hand: PyPy drops an export only when collected
        with memoryview(data) as whole, whole[:10] as head:
            h.update(head)
        data.extend(b"more")  # BufferError if a buffer export were still held
        with memoryview(data) as whole, whole[::2] as strided:
            try:
                hashlib.new(h.name, strided)
            except BufferError:  # CPython and PyPy 8 refuse views that are not contiguous
                with pytest.raises(BufferError):
                    h.update(strided)
                expected = jdk_pattern(3000) * 2 + jdk_pattern(10)
            else:  # PyPy 7.3 hashes their bytes
                h.update(strided)
                expected = jdk_pattern(3000) * 2 + jdk_pattern(10) + strided.tobytes()
        data.extend(b"again")
        assert h.digest() == hashlib.new(h.name, expected).digest()


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


@pytest.mark.parametrize("chunk_size", [700, 5000])
def test_digests_and_copies_while_other_threads_update(native: ModuleType, chunk_size: int) -> None:
    """Every digest taken during updates is the digest of a whole number of chunks
    (updates of 5000 bytes run without the GIL, under the object's lock)."""
    chunk = jdk_pattern(chunk_size)
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


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_short_and_long_updates_from_four_threads(native: ModuleType, algorithm: str) -> None:
    """Updates on both sides of the GIL threshold, to one object, from threads started
    together: the first long one turns the lock on while short ones run. Every
    chunk repeats the same 4 bytes, so every order of whole updates gives one message."""
    pattern = b"wxyz"
    sizes = [100, 3000, 4, 8192, 60, 2048]
    threads, rounds = 4, 25
    h = native.constructors()[algorithm]()
    barrier = threading.Barrier(threads)

    def work() -> None:
        barrier.wait()
        for i in range(rounds):
            h.update(pattern * (sizes[i % len(sizes)] // 4))

    run_in_threads(work, threads)
    total = threads * sum(sizes[i % len(sizes)] for i in range(rounds))
    assert h.digest() == hashlib.new(algorithm, pattern * (total // 4)).digest()


#: Where the 4 GiB + 1 message has non-zero bytes (the rest is the zero page).
MARKS = (0, 1 << 31, (1 << 32) - 1, 1 << 32)
_HUGE_DIGESTS: Dict[str, bytes] = {}


@pytest.fixture(scope="module")
def huge_message() -> Iterator[memoryview]:
    """A message of 2**32 + 1 bytes in an anonymous mapping, a few pages written. One for
    the module: the first reading of a new mapping takes 2**20 page faults, one a page (4.7 s
    here, of the 7.7 s that hashlib's SHA-256 took over it; 3.0 s the second time)."""
    import mmap

    mapping = mmap.mmap(-1, (1 << 32) + 1)
    for i, offset in enumerate(MARKS):
        mapping[offset] = 0x41 + i
    view = memoryview(mapping)
    yield view
    view.release()
    mapping.close()


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["md5", "sha256", "sha1", "sha512"])
def test_a_message_longer_than_4_gib(
    native: ModuleType, algorithm: str, huge_message: memoryview
) -> None:
    """2**32 + 1 bytes in one update: no length is cut to 32 bits anywhere."""
    if algorithm not in _HUGE_DIGESTS:  # hashlib's, once for both bridges
        _HUGE_DIGESTS[algorithm] = hashlib.new(algorithm, huge_message).digest()
    h = native.constructors()[algorithm]()
    h.update(huge_message)
    assert h.digest() == _HUGE_DIGESTS[algorithm]


# ---- the C-API bridge ---------------------------------------------------------------


def test_capi_objects_release_what_they_hold(capi: ModuleType) -> None:
    """Objects give back their reference to the type; error paths leak no reference."""
    data = bytearray(b"x" * 100)
    bad = memoryview(b"abcdefgh")[::2]
    gc.collect()
    before = (sys.getrefcount(capi.HASH), sys.getrefcount(data), sys.getrefcount(bad))
    for _ in range(1000):
        for constructor in capi.constructors().values():
            h = constructor(data)
            h.update(data)
            h.copy().digest()
            h.hexdigest()
            for wrong in ("text", None, 7, bad):
                with pytest.raises((TypeError, BufferError)):
                    constructor(wrong)
                with pytest.raises((TypeError, BufferError)):
                    h.update(wrong)
            with pytest.raises(TypeError):
                constructor(data, b"two")
            with pytest.raises(TypeError):
                constructor(data, colour=1)
    del h, wrong
    gc.collect()
    assert (sys.getrefcount(capi.HASH), sys.getrefcount(data), sys.getrefcount(bad)) == before


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


#: A test that reads how much memory the process holds (see rss_kib).
leak_check = pytest.mark.skipif(
    not os.path.exists("/proc/self/status")
    or "asan" in os.environ.get("LD_PRELOAD", ""),  # ASan holds freed memory in quarantine
    reason="reads /proc, and not under AddressSanitizer (which checks memory itself)",
)


@leak_check
def test_a_million_objects_leak_nothing(native: ModuleType) -> None:
    """Constructions, updates, copies and digests, a million in all: the memory stays flat."""
    md5, sha512 = native.md5, native.constructors()["sha512"]
    chunk = jdk_pattern(100)

    def run(rounds: int) -> None:
        for _ in range(rounds):
            h = md5(chunk)
            h.update(chunk)
            h.copy().digest()
            g = sha512()
            g.update(chunk)
            g.hexdigest()

    # allocator pools and caches reach their size; PyPy's GC heap takes as long as the measured
    # run to reach its own (PyPy 8 on a Xeon 6/207 through cffi: 15 to 95 MiB more after the
    # first 170,000 rounds, then within 40 KiB over four more; 20,000 rounds left 19 MiB to grow)
    measured = 170_000  # 1,020,000 calls
    run(measured if sys.implementation.name == "pypy" else 20_000)
    gc.collect()
    before = rss_kib()
    run(measured)
    gc.collect()
    grown = rss_kib() - before
    # one leaked object or state per call would be well over 100 MiB
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB"


def test_capi_releases_the_gil_from_hashlibs_threshold(capi: ModuleType) -> None:
    assert capi.GIL_MINSIZE == 2048


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded CPython")
def test_capi_keeps_the_gil_off_on_free_threaded_builds() -> None:
    code = (
        "import sys, variants.native.capi as c\n"
        "c.sha256(b'abc').digest()\n"
        "c.sha1(b'abc').digest(), c.sha512(bytes(5000)).digest()\n"
        "print(sys._is_gil_enabled())\n"
    )
    assert run_python(code).strip() == "False"


# ---- the registry and the drop-in --------------------------------------------------


def test_registered_first_so_the_drop_in_prefers_it() -> None:
    entry = registry.variant("native")
    assert registry.names()[0] == "native"
    assert entry.kind == "native"
    expected = "variants.native.capi" if CPYTHON else "variants.native.cffi_wrapper"
    assert entry.bridge == expected
    assert set(entry.algorithms) == set(ALGORITHMS)
    native = bridge_module("native")
    if not os.environ.get(registry.DEFAULT_ENV):
        import variants

        assert variants.default_variant.name == "native"
        assert variants.md5 is native.md5
        assert type(variants.md5(b"")) is type(native.md5(b""))


def test_cffi_bridge_is_a_variant_of_its_own_on_cpython() -> None:
    entry = registry.variant("native-cffi")
    assert entry.bridge == "variants.native.cffi_wrapper"
    reason = entry.unsupported()
    if not CPYTHON:
        assert reason is not None and "cffi" in reason
    elif FREE_THREADED and sys.version_info < (3, 14):
        assert reason is not None and "free-threaded" in reason
    else:
        assert reason is None
